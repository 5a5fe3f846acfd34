// The penalty box against `wrangler dev` (npm run dev), with the example rules of
// docs/rules.md ("Penalty box") as they stand there: a penalty keeps refusing after
// the window has refilled, and Retry-After says until when.
// The worker's clock is the machine's, and the test reads the same clock: it asserts
// only what the times it measured make certain, whatever the load. A refusal seen
// back at `refusedAt` was decided before then, so its one-second window has ended
// by `refusedAt + 1 s`; its block began after the burst was sent (`sentAt`), so it
// lasts until `sentAt + 3 s` at least. A request answered before that instant is
// inside the block; one sent after the end its own Retry-After gave is past it. An
// attempt the machine made too slow to place a request inside the block is started
// again with a fresh client (at most ATTEMPTS), never counted as a pass.
//   ./node_modules/.bin/node --test test/cli/dev-penalty.slow.test.mjs
// Break tried: decidePenalized (src/durable/counters/penalties.ts) starting no block on a refusal:
// the request after the window refilled was a 200.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { DEV_TOKEN, startDev, putRules } from "../browser/dev-server.mjs";

// The dev tier's token: with it, this file runs on the tier's shared server.
const TOKEN = DEV_TOKEN;

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
  await putRules(dev, TOKEN, docsExample());
});

after(async () => {
  await dev?.stop();
});

/** Wait until the machine's clock reads `at` (ms). */
const until = (at) => sleep(Math.max(0, at - Date.now()));
const ATTEMPTS = 5;
const BLOCK_MS = 3_000;

/**
 * One try with a fresh client: undefined when the machine was too slow to place a request
 * inside the block (nothing asserted then), else after asserting every step.
 */
async function attempt(n) {
  const client = `c-${Date.now()}-${n}`;
  const hit = () => fetch(`${dev.base}/api/x`, { headers: { "x-client": client } });
  // Just after a second begins, so the three land in one window of the fixed one-second windows.
  await until(Math.ceil(Date.now() / 1_000) * 1_000 + 5);
  const sentAt = Date.now();
  const first = await Promise.all([hit(), hit(), hit()]);
  const refusedAt = Date.now();
  for (const r of first) if (r.status !== 429) await r.body?.cancel();
  // Three in one second need not share a window if the machine stalled past its end: try again.
  if (Math.floor(refusedAt / 1_000) !== Math.floor(sentAt / 1_000) && first.every((r) => r.status === 200)) return undefined;
  assert.deepEqual(first.map((r) => r.status).sort(), [200, 200, 429]);
  const refused = first.find((r) => r.status === 429);
  const retryAfter = Number(refused.headers.get("retry-after"));
  assert.ok(retryAfter >= 1 && retryAfter <= 3, `Retry-After ${retryAfter} within the 3 s block`);
  const body = await refused.json();
  assert.equal(body.retry_after, retryAfter);

  // The refusal's window has ended: without the penalty this request would pass.
  await until(refusedAt + 1_000);
  const during = await hit();
  const duringAt = Date.now();
  await during.body?.cancel();
  // Answered after the block could have ended: nothing certain about it.
  if (duringAt >= sentAt + BLOCK_MS) return undefined;
  assert.equal(during.status, 429, "refused inside the block although the window has refilled");
  const left = Number(during.headers.get("retry-after"));
  assert.ok(left >= 1 && left <= retryAfter, `Retry-After ${left} still counts down to the block's end`);
  assert.match(during.headers.get("ratelimit") ?? "", /;r=0;t=\d+/);

  // Past the end it said (this isolate's cached block ended with the object's), the key is let through again.
  await until(duringAt + left * 1_000);
  const afterBlock = await hit();
  await afterBlock.body?.cancel();
  assert.equal(afterBlock.status, 200, `after the block: ${afterBlock.status} ${afterBlock.headers.get("retry-after")}`);
  return true;
}

describe("penalty box against wrangler dev", { timeout: 180_000 }, () => {
  it("keeps refusing after the window has refilled, and Retry-After says until when", async () => {
    for (let n = 1; n <= ATTEMPTS; n++) if (await attempt(n)) return;
    assert.fail(`the machine was too slow in ${ATTEMPTS} attempts to place a request inside a 3 s block`);
  });
});

// A client hammering one isolate (the finding: Retry-After counted down 14, 14, 14 and never grew).
// Break tried: the runtime not carrying breaches (BreachBook.attach returning undefined): Retry-After 4 (one breach a renewal), not 20 or more.
describe("penalty box against wrangler dev: escalation from one isolate", { timeout: 180_000 }, () => {
  it("escalates a client that hammers one isolate to max_block_s: breaches answered from the cache reach the object", async () => {
    for (let n = 0; n < ATTEMPTS; n++) {
      const client = `h-${Date.now()}-${n}`;
      const hit = () => fetch(`${dev.base}/api/x`, { headers: { "x-client": client } });
      await until(Math.ceil(Date.now() / 1_000) * 1_000 + 5);
      const sentAt = Date.now();
      const first = await Promise.all([hit(), hit(), hit()]);
      for (const r of first) await r.body?.cancel();
      // The three split over two windows (a stalled machine): a fresh client, never a pass.
      if (first.every((r) => r.status === 200) && Math.floor(Date.now() / 1_000) !== Math.floor(sentAt / 1_000)) continue;
      assert.deepEqual(first.map((r) => r.status).sort(), [200, 200, 429]);
      // Hammer for 2.5 s: the isolate answers from its cache, then asks the object halfway through the 3 s block,
      // carrying the breaches it answered: 3 s doubles to the 30 s max from the block's start.
      let retryAfter = 0;
      const end = Date.now() + 2_500;
      while (Date.now() < end) {
        const r = await hit();
        assert.equal(r.status, 429);
        retryAfter = Number(r.headers.get("retry-after"));
        await r.body?.cancel();
        await sleep(100);
      }
      assert.ok(retryAfter >= 20, `Retry-After ${retryAfter}: the block escalated toward max_block_s (30 s)`);
      return;
    }
    assert.fail(`the machine never landed three requests in one window in ${ATTEMPTS} attempts`);
  });
});
