// The packed package in Workers that use it as the drop-ins' users do
// (test/fixtures/dropins/README.md): each peer's own example, with only the
// import or binding changed, type-checked under that peer's example
// tsconfig (Upstash's uses `"moduleResolution": "node"`), every entry point
// under `node`, `node16` and `bundler`; and a Worker that binds CounterObject
// under a name of its own (`LIMITS`, no `COUNTERS` anywhere), built from the
// tarball and run in `wrangler dev`, limiting correctly through every face
// with `request.cf` set (a request with a location is decided in its
// region's copy of the counter's object, which must reach its home without
// knowing the binding's name).
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { closeSync, cpSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { freePort, installPacked } from "./packed.mjs";

const root = resolve(import.meta.dirname, "../..");
const bin = (name) => join(root, "node_modules", ".bin", name);
const scratch = mkdtempSync(join(tmpdir(), "floodgate-dropins-"));
let wrangler;

// The Worker of a user who names the binding LIMITS: the rules middleware, the Upstash-shaped Ratelimit made at
// module scope, and hono-rate-limiter's options, each on the LIMITS namespace. A request carrying x-test-cf is
// given that location as its `request.cf` (as Cloudflare's edge gives every production request one).
const limitsWorker = `
import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { rateLimit, rateLimiter } from "floodgate/hono";
import { Ratelimit } from "floodgate/limiter";

export { CounterObject } from "floodgate/durable";

type Bindings = { LIMITS: DurableObjectNamespace };

const rules = {
  domain: "app",
  descriptors: [{ key: "user", rate_limit: { unit: "minute", requests_per_unit: 3, name: "per-user" } }],
  routes: [{ match: { path: "/rules/*" }, descriptors: [[{ key: "user", header: "x-user" }]] }],
};

const ratelimit = new Ratelimit({ counters: (env as unknown as Bindings).LIMITS, limiter: Ratelimit.slidingWindow(3, "1 m") });

const app = new Hono<{ Bindings: Bindings }>();
app.use("/rules/*", rateLimit({ rules, counters: (c) => c.env.LIMITS }));
app.use("/hrl/*", rateLimiter<{ Bindings: Bindings }>({ limit: 3, keyGenerator: (c) => c.req.header("x-user") ?? "", counters: (c) => c.env.LIMITS }));
app.get("/rules/*", (c) => c.text("ok"));
app.get("/hrl/*", (c) => c.text("ok"));
app.get("/upstash", async (c) => {
  const { success, pending } = await ratelimit.limit(c.req.header("x-user") ?? "");
  c.executionCtx.waitUntil(pending);
  return c.text(success ? "ok" : "refused", success ? 200 : 429);
});

export default {
  fetch(request: Request, bindings: Bindings, ctx: ExecutionContext) {
    const cf = request.headers.get("x-test-cf");
    const located = cf === null ? request : new Request(request, { cf: JSON.parse(cf) });
    return app.fetch(located, bindings, ctx);
  },
};
`;

before(() => {
  installPacked(root, scratch);
  cpSync(join(root, "test", "fixtures", "dropins"), join(scratch, "dropins"), { recursive: true });
  // An ES module project, as node16 resolution needs one to import an ESM-only package (written here: in the
  // repository it would make the folder a package of its own to the import rules).
  writeFileSync(join(scratch, "dropins", "entry-points", "package.json"), JSON.stringify({ type: "module", private: true }));
  const worker = join(scratch, "limits-worker");
  mkdirSync(join(worker, "src"), { recursive: true });
  writeFileSync(join(worker, "src", "index.ts"), limitsWorker);
  writeFileSync(
    join(worker, "wrangler.toml"),
    [
      'name = "limits-worker"',
      'main = "src/index.ts"',
      'compatibility_date = "2026-08-15"',
      "",
      "[[durable_objects.bindings]]",
      'name = "LIMITS"',
      'class_name = "CounterObject"',
      "",
      "[[migrations]]",
      'tag = "v1"',
      'new_sqlite_classes = ["CounterObject"]',
      "",
    ].join("\n"),
  );
});

after(async () => {
  if (wrangler !== undefined && wrangler.exitCode === null) {
    wrangler.kill("SIGTERM");
    await new Promise((done) => wrangler.once("exit", done));
  }
  rmSync(scratch, { recursive: true, force: true });
});

function typeCheck(project) {
  const checked = spawnSync(bin("tsc"), ["-p", project], { cwd: scratch, encoding: "utf8" });
  assert.equal(checked.status, 0, `tsc -p ${project}:\n${checked.stdout}${checked.stderr}`);
}

for (const peer of ["upstash", "hono-rate-limiter", "cloudflare-binding"]) {
  test(`${peer}'s own example, with only the import or binding changed, type-checks under its example tsconfig`, () => {
    typeCheck(join("dropins", peer, "tsconfig.json"));
  });
}

for (const resolution of ["node", "node16", "bundler"]) {
  test(`every entry point's types resolve under moduleResolution ${resolution}`, () => {
    typeCheck(join("dropins", "entry-points", `tsconfig.${resolution}.json`));
  });
}

test("a Worker binding CounterObject as LIMITS, built from the tarball, limits through every face with request.cf set", async () => {
  const worker = join(scratch, "limits-worker");
  const port = await freePort();
  const logPath = join(worker, "wrangler.log");
  const log = openSync(logPath, "w");
  wrangler = spawn(bin("wrangler"), ["dev", "--ip", "127.0.0.1", "--port", String(port)], {
    cwd: worker,
    stdio: ["ignore", log, log],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
  });
  closeSync(log);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await (await fetch(`${base}/elsewhere`)).arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline || wrangler.exitCode !== null) assert.fail(`wrangler dev did not start:\n${readFileSync(logPath, "utf8")}`);
      await new Promise((done) => setTimeout(done, 250));
    }
  }
  // Frankfurt: region weur, so global limits are decided in weur's copy of each object.
  const frankfurt = JSON.stringify({ colo: "FRA", continent: "EU", country: "DE" });
  for (const face of ["/rules/x", "/upstash", "/hrl/x"]) {
    for (const cf of [frankfurt, undefined]) {
      const user = `u-${face}-${cf === undefined ? "nowhere" : "fra"}`;
      const seen = [];
      for (let i = 0; i < 4; i++) {
        const headers = { "x-user": user, ...(cf === undefined ? {} : { "x-test-cf": cf }) };
        const response = await fetch(`${base}${face}`, { headers });
        await response.arrayBuffer();
        seen.push([response.status, response.headers.get("x-ratelimit-decision")]);
      }
      assert.deepEqual(
        seen,
        [
          [200, null],
          [200, null],
          [200, null],
          [429, null],
        ],
        `${face} ${cf === undefined ? "without a location" : "from Frankfurt"}: 3 allowed, then refused, none failing open`,
      );
    }
  }
});
