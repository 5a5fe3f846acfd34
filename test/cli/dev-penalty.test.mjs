// The penalty box against `wrangler dev` (npm run dev), with the example rules of
// docs/rules.md ("Penalty box") as they stand there: a penalty keeps refusing after
// the window has refilled, and Retry-After says until when. The clock is the
// machine's, so the test asserts on answers, and waits only as the scenario needs:
// the window (2 a second) has refilled once a second has passed, and the block
// (3 s) ends at the time its own Retry-After gave.
//   ./node_modules/.bin/node --test test/cli/dev-penalty.test.mjs
// Break tried: decidePenalized (src/durable/penalties.ts) starting no block on a refusal:
// the request after the window refilled was a 200. The second test holds the escalation of a
// client hammering one isolate (the finding: Retry-After counted down 14, 14, 14 and never grew).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { startDev } from "../browser/dev-server.mjs";

const TOKEN = "penalty-token-of-at-least-32-characters!";

/** The first ```json block under "## Penalty box" in docs/rules.md. */
function docsExample() {
  const page = readFileSync(new URL("../../docs/rules.md", import.meta.url), "utf8");
  const section = page.slice(page.indexOf("\n## Penalty box\n"));
  const block = /```json\n([\s\S]*?)\n```/.exec(section);
  assert.ok(block, 'docs/rules.md has no json example under "## Penalty box"');
  return JSON.parse(block[1]);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let dev;

before(async () => {
  dev = await startDev({ ADMIN_TOKEN: TOKEN });
  const put = await fetch(`${dev.base}/__ratelimit/rules`, {
    method: "PUT",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(docsExample()),
  });
  assert.equal(put.status, 200, await put.text());
});

after(async () => {
  await dev?.stop();
});

describe("penalty box against wrangler dev", { timeout: 180_000 }, () => {
  it("keeps refusing after the window has refilled, and Retry-After says until when", async () => {
    const client = `c-${Date.now()}`;
    const hit = () => fetch(`${dev.base}/api/x`, { headers: { "x-client": client } });
    const first = await Promise.all([hit(), hit(), hit()]);
    const statuses = first.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 200, 429]);
    const refused = first.find((r) => r.status === 429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    assert.ok(retryAfter >= 1 && retryAfter <= 3, `Retry-After ${retryAfter} within the 3 s block`);
    const body = await refused.json();
    assert.equal(body.retry_after, retryAfter);
    for (const r of first) if (!r.bodyUsed) await r.body?.cancel();

    // The 2-a-second window has refilled: without the penalty this request would pass.
    await sleep(1_100);
    const during = await hit();
    assert.equal(during.status, 429);
    const left = Number(during.headers.get("retry-after"));
    assert.ok(left >= 1 && left <= retryAfter, `Retry-After ${left} still counts down to the block's end`);
    assert.match(during.headers.get("ratelimit") ?? "", /;r=0;t=\d+/);
    await during.body?.cancel();

    // At the time it said, the key is let through again (this isolate's cached block ended with the object's).
    await sleep(left * 1_000 + 200);
    const afterBlock = await hit();
    assert.equal(afterBlock.status, 200, `after the block: ${afterBlock.status} ${afterBlock.headers.get("retry-after")}`);
    await afterBlock.body?.cancel();
  });

  // Break tried: the runtime not carrying breaches (BreachBook.attach returning undefined): Retry-After stayed at 2 or less, the block never grew.
  it("escalates a client that hammers one isolate to max_block_s: breaches answered from the cache reach the object", async () => {
    const client = `h-${Date.now()}`;
    const hit = () => fetch(`${dev.base}/api/x`, { headers: { "x-client": client } });
    const first = await Promise.all([hit(), hit(), hit()]);
    assert.deepEqual(first.map((r) => r.status).sort(), [200, 200, 429]);
    for (const r of first) await r.body?.cancel();
    // Hammer for 2.5 s: the isolate answers from its cache, then asks the object halfway through the 3 s block,
    // carrying the breaches it answered: 3 s doubles to the 30 s max from the block's start.
    let retryAfter = 0;
    const until = Date.now() + 2_500;
    while (Date.now() < until) {
      const r = await hit();
      assert.equal(r.status, 429);
      retryAfter = Number(r.headers.get("retry-after"));
      await r.body?.cancel();
      await sleep(100);
    }
    assert.ok(retryAfter >= 20, `Retry-After ${retryAfter}: the block escalated toward max_block_s (30 s)`);
  });
});
