// The packed package as a user gets it: `npm pack`, the tarball unpacked
// into a scratch Worker's node_modules, the Hono app of README.md (its
// TypeScript and wrangler.toml blocks, taken from the README itself) type-
// checked against the package's declarations and run in workerd with
// `wrangler dev`: limits apply, headers appear, a 429 comes after the limit.
// The same for the drop-ins' pages: the Worker of docs/from-upstash.md and the
// app of docs/from-hono-rate-limiter.md, taken from the pages themselves.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { freePort, installPacked } from "./packed.mjs";

const root = resolve(import.meta.dirname, "../..");
const bin = (name) => join(root, "node_modules", ".bin", name);
const scratch = mkdtempSync(join(tmpdir(), "floodgate-package-"));
const wranglers = [];

/** The first fenced block of `lang` in `file` (README.md by default) whose text contains `marker`. */
function readmeBlock(lang, marker, file = "README.md") {
  const readme = readFileSync(join(root, file), "utf8");
  for (const match of readme.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, "g"))) {
    if (match[1].includes(marker)) return match[1];
  }
  throw new Error(`${file} has no \`\`\`${lang} block containing ${JSON.stringify(marker)}`);
}

// The app's own rules: three requests per minute per `x-user` under /api/.
const rules = {
  domain: "app",
  descriptors: [{ key: "user", rate_limit: { unit: "minute", requests_per_unit: 3, name: "per-user" } }],
  routes: [{ match: { path: "/api/*" }, descriptors: [[{ key: "user", header: "x-user" }]] }],
};

before(async () => {
  installPacked(root, scratch);
  mkdirSync(join(scratch, "src"));
  writeFileSync(join(scratch, "src", "index.ts"), readmeBlock("ts", 'from "floodgate/hono"'));
  writeFileSync(join(scratch, "src", "rules.json"), JSON.stringify(rules));
  writeFileSync(join(scratch, "wrangler.toml"), readmeBlock("toml", "CounterObject"));
  // The drop-ins' pages: each Worker as its page shows it, beside the README's app, with the same bindings.
  writeFileSync(join(scratch, "src", "upstash.ts"), readmeBlock("ts", 'from "floodgate/limiter"', "docs/from-upstash.md"));
  writeFileSync(join(scratch, "src", "hono-rate-limiter.ts"), readmeBlock("ts", 'from "floodgate/hono"', "docs/from-hono-rate-limiter.md"));
  for (const name of ["upstash", "hono-rate-limiter"]) {
    const config = readmeBlock("toml", "CounterObject")
      .replace(/^main = .*$/m, `main = "src/${name}.ts"`)
      .replace(/^name = .*$/m, `name = "${name}"`);
    writeFileSync(join(scratch, `wrangler.${name}.toml`), config);
  }
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
  for (const wrangler of wranglers) {
    if (wrangler.exitCode !== null) continue;
    wrangler.kill("SIGTERM");
    await new Promise((done) => wrangler.once("exit", done));
  }
  rmSync(scratch, { recursive: true, force: true });
});

test("every entry point of the package has its code and its type declarations, and no sources are shipped", () => {
  const installed = join(scratch, "node_modules", "floodgate");
  const pkg = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
  for (const entry of ["./hono", "./durable", "./rules", "./client", "./limiter"]) {
    const target = pkg.exports[entry];
    assert.ok(readFileSync(join(installed, target.default), "utf8").length > 0, `${entry}: ${target.default} missing`);
    assert.ok(readFileSync(join(installed, target.types), "utf8").length > 0, `${entry}: ${target.types} missing`);
  }
  assert.throws(() => readFileSync(join(installed, "src", "worker.ts")), "sources are not shipped");
});

test("the README's app and the drop-in pages' Workers type-check against the package's declarations", () => {
  const checked = spawnSync(bin("tsc"), ["-p", join(scratch, "tsconfig.json")], { cwd: scratch, encoding: "utf8" });
  assert.equal(checked.status, 0, `tsc:\n${checked.stdout}${checked.stderr}`);
});

/** `wrangler dev` of the scratch project with `config`, its base URL once it answers. */
async function startWrangler(config) {
  // One at a time: the previous test's server is done.
  for (const running of wranglers) if (running.exitCode === null) running.kill("SIGTERM");
  const port = await freePort();
  const log = openSync(join(scratch, `${config}.log`), "w");
  const child = spawn(bin("wrangler"), ["dev", "-c", config, "--ip", "127.0.0.1", "--port", String(port)], {
    cwd: scratch,
    stdio: ["ignore", log, log],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
  });
  closeSync(log);
  wranglers.push(child);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const probe = await fetch(`${url}/ping`, { headers: { "x-user": "probe" } });
      await probe.arrayBuffer();
      return url;
    } catch {
      if (Date.now() > deadline || child.exitCode !== null) {
        assert.fail(`wrangler dev -c ${config} did not start:\n${readFileSync(join(scratch, `${config}.log`), "utf8")}`);
      }
      await new Promise((done) => setTimeout(done, 250));
    }
  }
}

test("the README's app runs in workerd: headers, then a 429 after the limit", async () => {
  const base = await startWrangler("wrangler.toml");
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

test("docs/from-upstash.md's Worker runs in workerd: 10 per 10 s, then 429", async () => {
  const base = await startWrangler("wrangler.upstash.toml");
  const statuses = [];
  let first;
  for (let i = 0; i < 11; i++) {
    const response = await fetch(`${base}/`, { headers: { "x-user": "carol" } });
    if (i === 0) first = await response.json();
    else await response.arrayBuffer();
    statuses.push(response.status);
  }
  assert.deepEqual(statuses, [...Array(10).fill(200), 429]);
  assert.equal(first.limit, 10);
  assert.equal(first.remaining, 9);
  assert.ok(first.reset > Date.now() - 60_000, "reset is in milliseconds since the epoch");
});

test("docs/from-hono-rate-limiter.md's app runs in workerd: draft-6 headers, the limit's count", async () => {
  const base = await startWrangler("wrangler.hono-rate-limiter.toml");
  const response = await fetch(`${base}/`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("ratelimit-limit"), "100");
  // The start-up probe was the first request of this client.
  assert.equal(response.headers.get("ratelimit-remaining"), "98");
  assert.equal((await response.json()).remaining, 98);
});
