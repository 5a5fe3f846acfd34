// The bundled rules.json against `wrangler dev`, as a new user deploys it
// (docs/rules.md, "A tier a client cannot choose"): a probe from one address
// that rotates made-up API keys (plain, `partner-…`, `trial-…`) gets exactly
// the per-IP limit, 60 a minute. Before, `X-API-Key: partner-anything`
// reached the partner tier, whose `replaces` dropped the per-IP limit: 70 of
// 70 allowed. Break tried: the old rules.json (partner tier on `partner-*`):
// 70 allowed, the test failed.
//   ./node_modules/.bin/node --test test/cli/dev-bundled-rules.test.mjs
import assert from "node:assert/strict";
import { test } from "node:test";
import { startDev } from "../browser/dev-server.mjs";

test("a key-rotating probe from one address gets the per-IP limit of the bundled rules, no more", { timeout: 180_000 }, async () => {
  const dev = await startDev({});
  try {
    const keys = (i) => [`k-${Math.random()}`, `partner-${i}`, `trial-${i}`, "partner-", `partner-${Math.random()}`][i % 5];
    const statuses = [];
    for (let i = 0; i < 70; i += 1) {
      const response = await fetch(`${dev.base}/v1/items/${i}`, { headers: { "x-api-key": keys(i) } });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    assert.equal(statuses.filter((s) => s === 200).length, 60, statuses.join(" "));
    assert.deepEqual(statuses.slice(60), Array(10).fill(429));
  } finally {
    await dev.stop();
  }
});
