/**
 * Refunds in a real CounterObject: a refundable decision says when it took
 * its hits, a refund call naming that instant gives them back on exactly
 * the windows it lists, and a refund of a counter reset meanwhile invents
 * nothing.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { EXACT_REFUND } from "../../src/algorithms/index.ts";
import type { Env } from "../../src/config.ts";
import type { CounterCall } from "../../src/stored/wire-calls.ts";
import { perHour } from "../support/limits.ts";

const counters = (env as unknown as Env).COUNTERS;
let n = 0;
const fresh = (name: string) => `refund-test/${name}/${++n}/${Date.now()}`;

describe("CounterObject refunds", () => {
  for (const algorithm of ["fixed_window", "sliding_window_log", "sliding_window_counter", "token_bucket", "leaky_bucket", "gcra"] as const) {
    it(`${algorithm}: a refundable call reports chargedAt, and its refund frees the hits`, async () => {
      const key = fresh(algorithm);
      const stub = counters.getByName(key);
      const limits = [perHour(3, algorithm)];
      const take: CounterCall = { key, limits, cost: 2, refundable: true };
      const [taken] = await stub.decide([take]);
      expect(taken.allowed).toBe(true);
      expect(typeof taken.chargedAt).toBe("number");
      expect((await stub.decide([{ key, limits, cost: 2 }]))[0].allowed).toBe(false);
      const [back] = await stub.decide([{ kind: "refund", key, limits, cost: 2, chargedAt: taken.chargedAt as number }]);
      // Buckets refunded a moment after the charge give back slightly less than two whole hits.
      expect(back.decisions[0].remaining).toBeGreaterThanOrEqual(EXACT_REFUND.has(algorithm) ? 3 : 2);
      expect((await stub.decide([{ key, limits, cost: 2 }]))[0].allowed).toBe(true);
    });
  }

  it("a plain call reports no chargedAt; a refund touches only the windows it names", async () => {
    const key = fresh("windows");
    const stub = counters.getByName(key);
    const hour = perHour(2);
    const log = perHour(2, "sliding_window_log");
    const [plain] = await stub.decide([{ key, limits: [hour, log], cost: 1 }]);
    expect(plain.chargedAt).toBeUndefined();
    const [taken] = await stub.decide([{ key, limits: [hour, log], cost: 1, refundable: true }]);
    await stub.decide([{ kind: "refund", key, limits: [log], cost: 1, chargedAt: taken.chargedAt as number }]);
    const [peek] = await stub.decide([{ key, limits: [hour, log], cost: 0 }]);
    expect(peek.decisions.map((d) => d.remaining)).toEqual([0, 1]);
  });

  it("a refund after the counter was reset leaves it empty, not in credit", async () => {
    const key = fresh("reset");
    const stub = counters.getByName(key);
    const limits = [perHour(2)];
    const [taken] = await stub.decide([{ key, limits, cost: 2, refundable: true }]);
    await stub.reset(key);
    await stub.decide([{ kind: "refund", key, limits, cost: 2, chargedAt: taken.chargedAt as number }]);
    const verdicts = await stub.decide([
      { key, limits, cost: 1 },
      { key, limits, cost: 1 },
      { key, limits, cost: 1 },
    ]);
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, false]);
  });
});
