// @ts-nocheck
// The packed package as a user gets it: `npm pack`, the tarball unpacked
// into a scratch Worker's node_modules, the Hono app of README.md (its
// TypeScript and wrangler.toml blocks, taken from the README itself) type-
// checked against the package's declarations and run in workerd with
// `wrangler dev`: limits apply, headers appear, a 429 comes after the limit.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";

const root = resolve(import.meta.dirname, "../..");
const bin = (name) => join(root, "node_modules", ".bin", name);
const scratch = mkdtempSync(join(tmpdir(), "floodgate-package-"));
let wrangler;
let base;

/** The first fenced block of `lang` in README.md whose text contains `marker`. */
function readmeBlock(lang, marker) {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  for (const match of readme.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, "g"))) {
    if (match[1].includes(marker)) return match[1];
  }
  throw new Error(`README.md has no \`\`\`${lang} block containing ${JSON.stringify(marker)}`);
}

function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.on("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

// The app's own rules: three requests per minute per `x-user` under /api/.
const rules = {
  domain: "app",
  descriptors: [{ key: "user", rate_limit: { unit: "minute", requests_per_unit: 3, name: "per-user" } }],
  routes: [{ match: { path: "/api/*" }, descriptors: [[{ key: "user", header: "x-user" }]] }],
};

before(async () => {
  const packed = spawnSync("npm", ["pack", "--silent", "--pack-destination", scratch], { cwd: root, encoding: "utf8" });
  assert.equal(packed.status, 0, `npm pack failed:\n${packed.stderr}`);
  const tarball = join(scratch, packed.stdout.trim().split("\n").pop());
  const installed = join(scratch, "node_modules", "floodgate");
  mkdirSync(installed, { recursive: true });
  const untar = spawnSync("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"], { encoding: "utf8" });
  assert.equal(untar.status, 0, untar.stderr);
  // The package's peer and the Workers types, as the user's own install would provide them (no network here).
  symlinkSync(join(root, "node_modules", "hono"), join(scratch, "node_modules", "hono"));
  mkdirSync(join(scratch, "node_modules", "@cloudflare"));
  symlinkSync(join(root, "node_modules", "@cloudflare", "workers-types"), join(scratch, "node_modules", "@cloudflare", "workers-types"));
  mkdirSync(join(scratch, "src"));
  writeFileSync(join(scratch, "src", "index.ts"), readmeBlock("ts", 'from "floodgate/hono"'));
  writeFileSync(join(scratch, "src", "rules.json"), JSON.stringify(rules));
  writeFileSync(join(scratch, "wrangler.toml"), readmeBlock("toml", "CounterObject"));
  writeFileSync(
    join(scratch, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2023",
        lib: ["ES2023"],
        module: "ESNext",
        moduleResolution: "Bundler",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        resolveJsonModule: true,
        types: ["@cloudflare/workers-types"],
      },
      include: ["src"],
    }),
  );
});

after(async () => {
  if (wrangler && wrangler.exitCode === null) {
    wrangler.kill("SIGTERM");
    await new Promise((done) => wrangler.once("exit", done));
  }
  rmSync(scratch, { recursive: true, force: true });
});

test("every entry point of the package has its code and its type declarations, and no sources are shipped", () => {
  const installed = join(scratch, "node_modules", "floodgate");
  const pkg = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
  for (const entry of ["./hono", "./durable", "./rules", "./client"]) {
    const target = pkg.exports[entry];
    assert.ok(readFileSync(join(installed, target.default), "utf8").length > 0, `${entry}: ${target.default} missing`);
    assert.ok(readFileSync(join(installed, target.types), "utf8").length > 0, `${entry}: ${target.types} missing`);
  }
  assert.throws(() => readFileSync(join(installed, "src", "worker.ts")), "sources are not shipped");
});

test("the README's app type-checks against the package's declarations", () => {
  const checked = spawnSync(bin("tsc"), ["-p", join(scratch, "tsconfig.json")], { cwd: scratch, encoding: "utf8" });
  assert.equal(checked.status, 0, `tsc:\n${checked.stdout}${checked.stderr}`);
});

test("the README's app runs in workerd: headers, then a 429 after the limit", async () => {
  const port = await freePort();
  const log = openSync(join(scratch, "wrangler.log"), "w");
  wrangler = spawn(bin("wrangler"), ["dev", "--ip", "127.0.0.1", "--port", String(port)], {
    cwd: scratch,
    stdio: ["ignore", log, log],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
  });
  closeSync(log);
  base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const probe = await fetch(`${base}/ping`);
      await probe.arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline || wrangler.exitCode !== null) {
        assert.fail(`wrangler dev did not start:\n${readFileSync(join(scratch, "wrangler.log"), "utf8")}`);
      }
      await new Promise((done) => setTimeout(done, 250));
    }
  }
  const seen = [];
  for (let i = 0; i < 4; i++) {
    const response = await fetch(`${base}/api/hello`, { headers: { "x-user": "alice" } });
    seen.push({ status: response.status, headers: response.headers, body: await response.json() });
  }
  assert.deepEqual(
    seen.map((s) => s.status),
    [200, 200, 200, 429],
  );
  assert.deepEqual(
    seen.slice(0, 3).map((s) => s.body.remaining),
    [2, 1, 0],
  );
  assert.equal(seen[0].headers.get("x-ratelimit-limit"), "3");
  assert.match(seen[0].headers.get("ratelimit-policy") ?? "", /"per-user";q=3;w=60/);
  assert.ok(Number(seen[3].headers.get("retry-after")) >= 1, "a 429 says when to retry");
  assert.equal(seen[3].headers.get("content-type"), "application/problem+json");
  assert.equal(seen[3].body.status, 429);
  // Another user has their own counter; a path outside /api/ is not limited.
  const bob = await fetch(`${base}/api/hello`, { headers: { "x-user": "bob" } });
  assert.equal(bob.status, 200);
  assert.equal((await bob.json()).remaining, 2);
  const outside = await fetch(`${base}/elsewhere`);
  await outside.arrayBuffer();
  assert.equal(outside.headers.get("x-ratelimit-limit"), null);
});
