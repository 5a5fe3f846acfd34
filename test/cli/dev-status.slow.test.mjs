// GET /__ratelimit/status against `wrangler dev` with the bundled rules.json
// (docs/admin-api.md, "Status"): without ADMIN_TOKEN, it reports the same
// remaining quota the next real request sees and spends nothing. Break tried:
// the status read at cost 1 (src/admin/quota-status.ts): the first status
// already said 9 of 10 left, and the test failed.
//   ./node_modules/.bin/node --test test/cli/dev-status.slow.test.mjs
import assert from "node:assert/strict";
import { test } from "node:test";
import { startDev } from "../browser/dev-server.mjs";

test("the status endpoint reports the same remaining quota that the next real request sees and spends nothing", { timeout: 180_000 }, async () => {
  const dev = await startDev({});
  try {
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
  } finally {
    await dev.stop();
  }
});
