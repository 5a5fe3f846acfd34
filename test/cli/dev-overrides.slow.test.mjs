// Overrides against `wrangler dev` (the Worker as `npm run dev` runs it, with
// the bundled rules.json): an override raises and lowers one API key's limit
// without a deploy, a wildcard applies to every matching key, and an expired
// override stops applying. The bundled rules give `api_key` (header
// x-api-key) 1000 a minute; each test uses keys of its own.
//   ./node_modules/.bin/node --test test/cli/dev-overrides.slow.test.mjs
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { DEV_TOKEN, startDev, putRules } from "../browser/dev-server.mjs";

// The dev tier's token: with it, this file runs on the tier's shared server.
const TOKEN = DEV_TOKEN;
const auth = { authorization: `Bearer ${TOKEN}` };
let dev;

before(async () => {
  dev = await startDev({ ADMIN_TOKEN: TOKEN });
  // The bundled rules, put back: on the tier's shared server another file may have uploaded its own.
  await putRules(dev, TOKEN, readFileSync(new URL("../../rules.json", import.meta.url), "utf8"));
});
after(async () => {
  await dev?.stop();
});

const putOverride = async (body) => {
  const response = await fetch(`${dev.base}/__ratelimit/overrides`, {
    method: "PUT",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
};
/** The api_key limit the counters endpoint reports for `key`, and which override applies. */
const counter = async (key) => {
  const response = await fetch(`${dev.base}/__ratelimit/counters?domain=api&descriptor=api_key=${key}`, { headers: auth });
  const body = await response.json();
  return { limit: body.limits[0].requests_per_unit, override: body.override?.descriptor ?? null };
};
/** Statuses of `n` requests with `x-api-key: key`, each from its own address (the per-address limits stay out of the way). */
let address = 0;
const statuses = async (key, n) => {
  const out = [];
  for (let i = 0; i < n; i++) {
    address += 1;
    const ip = `198.18.${(address >> 8) & 255}.${address & 255}`;
    out.push((await fetch(`${dev.base}/anything`, { headers: { "x-api-key": key, "cf-connecting-ip": ip } })).status);
  }
  return out;
};

test("an override lowers and raises one key's limit without a deploy, and DELETE gives the rules' limit back", async () => {
  assert.deepEqual(await counter("acme"), { limit: 1000, override: null });
  const lowered = await putOverride({ domain: "api", descriptor: "api_key=acme", rate_limit: { unit: "minute", requests_per_unit: 2 }, note: "abuse" });
  assert.equal(lowered.status, 200, JSON.stringify(lowered.body));
  assert.deepEqual(await statuses("acme", 3), [200, 200, 429]);
  assert.deepEqual(await statuses("someone-else", 3), [200, 200, 200]);
  const raised = await putOverride({ domain: "api", descriptor: "api_key=acme", rate_limit: { unit: "minute", requests_per_unit: 5000 } });
  assert.equal(raised.status, 200);
  assert.deepEqual(await counter("acme"), { limit: 5000, override: "api_key=acme" });
  assert.deepEqual(await statuses("acme", 3), [200, 200, 200]);
  const removed = await fetch(`${dev.base}/__ratelimit/overrides?domain=api&descriptor=api_key=acme`, { method: "DELETE", headers: auth });
  assert.equal(removed.status, 200);
  assert.deepEqual(await counter("acme"), { limit: 1000, override: null });
});

test("a wildcard override applies to every matching key, and only to those", async () => {
  const put = await putOverride({ domain: "api", descriptor: "api_key=team-*", rate_limit: { unit: "minute", requests_per_unit: 1 } });
  assert.equal(put.status, 200);
  assert.deepEqual(await statuses("team-a", 2), [200, 429]);
  assert.deepEqual(await statuses("team-b", 2), [200, 429]);
  assert.deepEqual(await statuses("teamster", 2), [200, 200]);
  assert.deepEqual(await counter("team-zzz"), { limit: 1, override: "api_key=team-*" });
});

test("an expired override stops applying", async () => {
  const expiresAt = new Date(Date.now() + 4_000).toISOString();
  const put = await putOverride({ domain: "api", descriptor: "api_key=brief", rate_limit: { unit: "minute", requests_per_unit: 1 }, expires_at: expiresAt });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.deepEqual(await statuses("brief", 2), [200, 429]);
  // Wait out the expiry (on the Worker's clock, the same machine's), then the rules' 1000 a minute apply again.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now()) + 500));
  assert.deepEqual(await statuses("brief", 2), [200, 200]);
  assert.deepEqual(await counter("brief"), { limit: 1000, override: null });
  const list = await (await fetch(`${dev.base}/__ratelimit/overrides?domain=api`, { headers: auth })).json();
  assert.equal(list.overrides.find((o) => o.descriptor === "api_key=brief").expired, true);
});

test("invalid input is a 400 with every error, and nothing changes", async () => {
  const before = await (await fetch(`${dev.base}/__ratelimit/overrides?domain=api`, { headers: auth })).json();
  const bad = await putOverride({ domain: "api", descriptor: "api_key=a*,plan=b", rate_limit: { unit: "eon" }, note: 7 });
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body.errors.map((e) => e.path).sort(), ["$.descriptor", "$.note", "$.rate_limit", "$.rate_limit.unit"]);
  assert.deepEqual(await (await fetch(`${dev.base}/__ratelimit/overrides?domain=api`, { headers: auth })).json(), before);
});

// The finding: overrides had no length bound, and 2,300 of ~16 KB made every rules poll fail (isolates froze
// their rules). Break tried: the descriptor bound removed (src/overrides/validate.ts): no error at $.descriptor
// naming the bound, and the test failed.
test("a descriptor over 1,024 bytes is a 400 naming its bound, and the overrides in force still reach the isolates", async () => {
  const long = await putOverride({ domain: "api", descriptor: `api_key=${"k".repeat(1_100)}`, rate_limit: { unit: "minute", requests_per_unit: 1 } });
  assert.equal(long.status, 400, JSON.stringify(long.body));
  assert.deepEqual(
    long.body.errors.map((e) => [e.path, e.message.startsWith("must be at most 1024 bytes")]),
    [["$.descriptor", true]],
  );
  const put = await putOverride({ domain: "api", descriptor: "api_key=bounded", rate_limit: { unit: "minute", requests_per_unit: 1 } });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.deepEqual(await statuses("bounded", 2), [200, 429]);
});
