// The bundled rules.json against `wrangler dev`, as a new user deploys it
// (docs/rules.md, "A tier a client cannot choose"): a probe from one address
// that rotates made-up API keys (plain, `partner-…`, `trial-…`) gets exactly
// the per-IP limit, 60 a minute. Before, `X-API-Key: partner-anything`
// reached the partner tier, whose `replaces` dropped the per-IP limit: 70 of
// 70 allowed. Break tried: the old rules.json (partner tier on `partner-*`):
// 70 allowed, the test failed. In the dev tier (it starts `wrangler dev`, or takes the tier's
// shared one and puts the bundled rules back first), from an address of its own.
//   PATH=node_modules/.bin:$PATH node --test test/cli/dev-bundled-rules.slow.test.mjs
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { DEV_TOKEN, startDev } from "../browser/dev-server.mjs";

test("a key-rotating probe from one address gets the per-IP limit of the bundled rules, no more", { timeout: 180_000 }, async () => {
  // The dev tier's token: with it, this file runs on the tier's shared server.
  const dev = await startDev({ ADMIN_TOKEN: DEV_TOKEN });
  try {
    // The bundled rules, put back: on the tier's shared server another file may have uploaded its own.
    const put = await fetch(`${dev.base}/__ratelimit/rules`, {
      method: "PUT",
      headers: { authorization: `Bearer ${DEV_TOKEN}`, "content-type": "application/json" },
      body: readFileSync(new URL("../../rules.json", import.meta.url), "utf8"),
    });
    assert.equal(put.status, 200, await put.text());
    const ip = `198.51.100.${Math.floor(Math.random() * 200) + 20}`;
    // The isolate picks the rules up within its poll: until then another file's rules may decide, so wait for the bundled ones.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const probe = await fetch(`${dev.base}/__ratelimit/status?method=GET&path=/v1/items/0`, { headers: { "cf-connecting-ip": "192.0.2.250" } });
      const names = probe.ok ? (await probe.json()).policies.map((p) => p.name) : [];
      if (names.includes("per-ip")) break;
      assert.ok(Date.now() < deadline, `the bundled rules never applied: ${names}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const keys = (i) => [`k-${Math.random()}`, `partner-${i}`, `trial-${i}`, "partner-", `partner-${Math.random()}`][i % 5];
    const statuses = [];
    for (let i = 0; i < 70; i += 1) {
      const response = await fetch(`${dev.base}/v1/items/${i}`, { headers: { "x-api-key": keys(i), "cf-connecting-ip": ip } });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    assert.equal(statuses.filter((s) => s === 200).length, 60, statuses.join(" "));
    assert.deepEqual(statuses.slice(60), Array(10).fill(429));
  } finally {
    await dev.stop();
  }
});
