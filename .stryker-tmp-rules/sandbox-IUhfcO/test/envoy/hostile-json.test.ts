// @ts-nocheck
// Hostile bodies for POST /__ratelimit/json (docs/reliability.md, "Security"): every one gets
// a clear 4xx or a correct decision, never a 500.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { auth, d, envoyApi } from "../support/envoy.ts";

const rules = { domain: "hostile-json", descriptors: [{ key: "k", rate_limit: { unit: "hour", requests_per_unit: 1000 } }] };
const { json, call } = envoyApi(rules);

describe("hostile /json bodies", () => {
  it("deeply nested JSON is a 400, not a crash", async () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const res = await json(`{"domain":"hostile-json","descriptors":${deep}}`);
    expect(res.status).toBe(400);
  });

  it("a 10 MB body is refused with 413 without buffering it all", async () => {
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 10 * 1024 * 1024) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const res = await call("/__ratelimit/json", { method: "POST", headers: auth, body, duplex: "half" } as RequestInit);
    expect(res.status).toBe(413);
    expect(sent).toBeLessThan(10 * 1024 * 1024);
  });

  it("1,000 descriptors are decided; one more is a 400", async () => {
    const ok = await json({ domain: "hostile-json", descriptors: Array.from({ length: 1000 }, (_, i) => d(["k", `v${i}`])) });
    expect(ok.status).toBe(200);
    expect(ok.body.statuses).toHaveLength(1000);
    const tooMany = await json({ domain: "hostile-json", descriptors: Array.from({ length: 1001 }, (_, i) => d(["k", `v${i}`])) });
    expect(tooMany.status).toBe(400);
  });

  for (const placement of ["sharded", "per_key"] as const) {
    it(`${placement}: values with separators and huge values never collide and never fail`, async () => {
      const domain = `hostile-json-${placement}`;
      const { json: decide } = envoyApi({ ...rules, domain, placement });
      const first = await decide({ domain, descriptors: [d(["k", "a,b=c"])], hits_addend: 1000 });
      expect(first.status).toBe(200);
      // The 1,000 hits were counted: "a,b=c" itself is now over its limit.
      const spent = await decide({ domain, descriptors: [d(["k", "a,b=c"])] });
      expect(spent.body.statuses.map((s: { code: string }) => s.code)).toEqual(["OVER_LIMIT"]);
      const neighbour = await decide({ domain, descriptors: [d(["k", "a"], ["b", "c"]), d(["k", "a,b"]), d(["k", "a,b=c\u0000"])] });
      expect(neighbour.body.statuses.map((s: { code: string }) => s.code)).toEqual(["OK", "OK", "OK"]);
      // ["k","a"],["b","c"] matches no limit (no "b" under "k"); the other two are counters of their own, untouched before.
      expect(neighbour.body.statuses.map((s: { limitRemaining?: number }) => s.limitRemaining)).toEqual([undefined, 999, 999]);
      const huge = await decide({ domain, descriptors: [d(["k", "h".repeat(300_000)])] });
      expect(huge.status).toBe(200);
    });
  }

  it("arbitrary JSON values and arbitrary text get 200, 400 or 429, never 500", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
          fc.string({ maxLength: 200 }),
          fc
            .record(
              {
                domain: fc.oneof(fc.string(), fc.constant("hostile-json")),
                descriptors: fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 }),
                hits_addend: fc.jsonValue({ maxDepth: 1 }),
              },
              { requiredKeys: [] },
            )
            .map((v) => JSON.stringify(v)),
        ),
        async (body) => {
          const res = await json(body);
          expect([200, 400, 429]).toContain(res.status);
        },
      ),
      { numRuns: 150, seed: 3 },
    );
  });
});
