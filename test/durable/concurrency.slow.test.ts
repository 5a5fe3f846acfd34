import { describe, expect, it } from "vitest";
import { counterKey, objectName, shardKeyFrom } from "../../src/durable/counters/placement.ts";
import { gateway, testEnv } from "../support/app.ts";

const ALGORITHMS = ["token_bucket", "leaky_bucket", "fixed_window", "sliding_window_log", "sliding_window_counter", "gcra"] as const;

describe("concurrency: one key, many simultaneous requests", () => {
  // Coalescing off: each of the 500 requests is its own call to the object, so the object alone keeps them apart.
  for (const coalescing of ["on", "off"] as const) {
    for (const algorithm of ALGORITHMS) {
      it(`${algorithm}, coalescing ${coalescing}: 500 simultaneous requests with limit 100 allow exactly 100`, async () => {
        const domain = `conc-${algorithm}-${coalescing}`;
        // A year-long window: nothing refills or rolls over during the test.
        const call = gateway(
          {
            domain,
            descriptors: [{ key: "api_key", rate_limit: { unit: "year", requests_per_unit: 100, algorithm } }],
            routes: [{ match: { path: "/*" }, descriptors: [[{ key: "api_key", header: "x-api-key" }]] }],
          },
          {},
          { coalesce: coalescing === "on" },
        );
        // The isolate knows its rules first: a fresh one's requests wait for its first rules check and go as each
        // sees it settled (src/isolate/live-rules.ts), so the later ones would find the key's block cached, and the
        // point here is the object alone keeping 500 calls at once apart. Another key on another shard: the limit and
        // the shard's calls are the burst's alone.
        const shardOf = (value: string) =>
          objectName(domain, "sharded", 64, counterKey(domain, [{ key: "api_key", value }]), shardKeyFrom(testEnv.SHARD_KEY, testEnv.COUNTERS));
        let warmUp = 0;
        while (shardOf(`warm-up-${warmUp}`) === shardOf("one-hot-key")) warmUp += 1;
        expect((await call("/hot", { headers: { "x-api-key": `warm-up-${warmUp}` } })).status).toBe(200);
        const responses = await Promise.all(Array.from({ length: 500 }, () => call("/hot", { headers: { "x-api-key": "one-hot-key" } })));
        const statuses = responses.map((r) => r.status);
        expect(statuses.filter((s) => s === 200)).toHaveLength(100);
        expect(statuses.filter((s) => s === 429)).toHaveLength(400);
        const remaining = responses.filter((r) => r.status === 200).map((r) => Number(r.headers.get("X-RateLimit-Remaining")));
        // Each allowed request saw a distinct remaining count: no two were decided on the same state.
        expect(new Set(remaining).size).toBe(100);
        expect(Math.min(...remaining)).toBe(0);
        if (coalescing === "off") {
          const stats = await testEnv.COUNTERS.getByName(shardOf("one-hot-key")).stats();
          expect(stats.calls).toBe(500);
        }
      });
    }
  }
});
