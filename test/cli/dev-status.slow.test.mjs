// GET /__ratelimit/status against `wrangler dev` with the bundled rules.json
// (docs/admin-api.md, "Status"): without the admin token, it reports the same
// remaining quota the next real request sees and spends nothing, on a route
// with a cost too (rules uploaded last). Break tried: the status read at cost 1
// (src/admin/quota-status.ts): the first status already said 9 of 10 left, and
// the test failed. Break tried: the status read at the route's cost (the
// `costs` of src/admin/quota-status.ts kept): the cost test read 0, 0, 0 where
// 10 was left.
//   ./node_modules/.bin/node --test test/cli/dev-status.slow.test.mjs
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startDev } from "../browser/dev-server.mjs";

// For the rules upload of the last test only; the status endpoint takes no token.
const TOKEN = "dev-status-admin-token-of-32-characters";
let dev;
before(async () => {
  dev = await startDev({ ADMIN_TOKEN: TOKEN });
});
after(async () => {
  await dev?.stop();
});

test("the status endpoint reports the same remaining quota that the next real request sees and spends nothing", { timeout: 180_000 }, async () => {
  {
    const key = { "x-api-key": `dev-status-${Date.now()}` };
    const status = async () => {
      const response = await fetch(`${dev.base}/__ratelimit/status?method=GET&path=/`, { headers: key });
      assert.equal(response.status, 200, await response.clone().text());
      assert.equal(response.headers.get("cache-control"), "no-store");
      const { policies } = await response.json();
      return policies;
    };
    const real = () => fetch(`${dev.base}/`, { headers: key });
    const first = await status();
    assert.deepEqual(
      first.map((p) => [p.name, p.limit, p.remaining]),
      [
        ["demo", 10, 10],
        ["per-ip", 60, 60],
        ["per-key", 1000, 1000],
      ],
    );
    // Many reads spend nothing.
    for (let i = 0; i < 10; i++)
      assert.deepEqual(
        (await status()).map((p) => p.remaining),
        [10, 60, 1000],
      );
    // The next real request sees one less than reported, on every policy.
    const response = await real();
    await response.arrayBuffer();
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-ratelimit-remaining"), "9");
    assert.match(response.headers.get("ratelimit") ?? "", /"demo";r=9;.*"per-ip";r=59;.*"per-key";r=999;/);
    const now = await status();
    assert.deepEqual(
      now.map((p) => p.remaining),
      [9, 59, 999],
    );
    // Exactly the limit passes: 9 more, then 429, whatever the status reads in between.
    const statuses = [];
    for (let i = 0; i < 10; i++) {
      await status();
      const r = await real();
      await r.arrayBuffer();
      statuses.push(r.status);
    }
    assert.deepEqual(statuses, [...Array(9).fill(200), 429]);
    assert.equal((await status())[0].remaining, 0);
  }
});

// The finding: on a route with `cost: 5` the status read as if it had spent 5 ([5, 0, 0] where 10 was left).
test("on a route with cost 5, the status reads what is left and spends nothing", { timeout: 180_000 }, async () => {
  const rules = {
    domain: "cost",
    descriptors: [{ key: "remote_address", rate_limit: { name: "costly", unit: "minute", requests_per_unit: 10, algorithm: "fixed_window" } }],
    routes: [{ match: { path: "/api/*" }, cost: 5, descriptors: [[{ key: "remote_address" }]] }],
  };
  const put = await fetch(`${dev.base}/__ratelimit/rules`, { method: "PUT", body: JSON.stringify(rules), headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(put.status, 200, await put.text());
  const ip = { "cf-connecting-ip": `198.51.100.${Math.floor(Math.random() * 200) + 20}` };
  const read = async () => {
    const response = await fetch(`${dev.base}/__ratelimit/status?method=GET&path=/api/x`, { headers: ip });
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()).policies.map((p) => [p.name, p.remaining]);
  };
  // The isolate picks the uploaded rules up within its poll.
  const deadline = Date.now() + 30_000;
  while ((await read())[0]?.[0] !== "costly") {
    assert.ok(Date.now() < deadline, "the uploaded rules never applied");
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  assert.deepEqual([await read(), await read(), await read()], [[["costly", 10]], [["costly", 10]], [["costly", 10]]]);
  const real = async () => {
    const response = await fetch(`${dev.base}/api/x`, { headers: ip });
    await response.arrayBuffer();
    return response.status;
  };
  assert.equal(await real(), 200);
  assert.deepEqual(await read(), [["costly", 5]]);
  assert.equal(await real(), 200);
  assert.deepEqual(await read(), [["costly", 0]]);
  assert.equal(await real(), 429);
});
