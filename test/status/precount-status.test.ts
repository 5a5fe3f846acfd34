/**
 * GET /__ratelimit/status on a pre-counted limit (docs/precount.md,
 * "Reads"): hits this isolate allowed from its lease and has not synced
 * yet are counted, so the status is what the next real request sees. The
 * real gateway and real counter objects, on a clock (and timers) the test
 * drives, so no sync runs between two steps unless the test moves time.
 *
 * Break tried: PrecountTable.withOwnHits returning the object's answer
 * unchanged: the first status said 8 where 6 were left (the two unsynced hits missing), and the test failed.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { isolateContexts } from "../../src/admission/isolate-context.ts";
import { createApp } from "../../src/gateway/app.ts";
import { LiveRules } from "../../src/isolate/live-rules.ts";
import { compiled, testEnv, uniqueIp } from "../support/app.ts";
import { drivenTime } from "../support/driven-time.ts";
import { OBJECT_EPOCH, trackedCounters } from "../support/driven-object.ts";

const SYNC_MS = 100;
const LIMIT = 10;
const rules = {
  domain: "st-pc",
  descriptors: [
    {
      key: "remote_address",
      rate_limit: { name: "per-ip", unit: "hour", requests_per_unit: LIMIT, algorithm: "fixed_window", precount: { sync_ms: SYNC_MS } },
    },
  ],
  routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }],
};

describe("GET /__ratelimit/status on a pre-counted limit", () => {
  it("counts the isolate's unsynced hits: the status is what the next real request sees, and it spends nothing", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    const contexts: ExecutionContext[] = [];
    try {
      // Every object the gateway calls is put on the test's clock first, and its calls are waited for by `time`.
      const callEnv = { ...testEnv, ORIGIN_URL: undefined, COUNTERS: trackedCounters(time) } as Env;
      const isolateOf = isolateContexts(new LiveRules(() => compiled(rules), { bundledJson: rules }), { coalesce: false, now: time.now });
      const app = createApp(isolateOf);
      const ip = uniqueIp();
      const send = async (path: string) => {
        const ctx = createExecutionContext();
        contexts.push(ctx);
        const response = await app.fetch(new Request(`http://gateway.test${path}`, { headers: { "cf-connecting-ip": ip } }), callEnv, ctx);
        await time.advance(1);
        return response;
      };
      const hit = async () => {
        const response = await send("/api/x");
        return response.status === 200 ? Number(response.headers.get("X-RateLimit-Remaining")) : response.status;
      };
      const status = async () => {
        const response = await send("/__ratelimit/status?method=GET&path=/api/x");
        expect(response.status).toBe(200);
        return (await response.json<{ policies: { remaining: number }[] }>()).policies[0].remaining;
      };

      expect([await hit(), await hit(), await hit(), await hit()]).toEqual([9, 8, 7, 6]);
      // The last two were taken from this isolate's lease, and the object has not been told of them yet.
      const precount = isolateOf(callEnv).edge.precount;
      expect(precount.stats.local).toBe(2);
      expect(await status()).toBe(6);
      expect(await hit()).toBe(5);
      for (let i = 0; i < 5; i++) expect(await status()).toBe(5);
      const rest: number[] = [];
      for (let i = 0; i < 6; i++) rest.push(await hit());
      expect(rest).toEqual([4, 3, 2, 1, 0, 429]);
      expect(await status()).toBe(0);
      // The background syncs end once the counter is quiet.
      let done = false;
      void Promise.all(contexts.map((ctx) => waitOnExecutionContext(ctx))).then(() => (done = true));
      for (let waited = 0; !done && waited < 100 * SYNC_MS; waited += SYNC_MS) await time.advance(SYNC_MS, { stepMs: 10 });
      expect(done).toBe(true);
    } finally {
      time.stop();
    }
  });
});
