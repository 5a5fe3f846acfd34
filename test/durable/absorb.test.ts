/**
 * A pre-counted flush (`kind: "absorb"`) in a real CounterObject: the object
 * takes the hits one at a time while they fit, across every window of the
 * call, reports how many it took, and answers with the counter's state
 * after them; a flush that fits wholly is taken whole.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { CounterCall, LimitCall } from "../../src/stored/wire-calls.ts";
import type { Env } from "../../src/config.ts";
import { perHour } from "../support/limits.ts";

const counters = (env as unknown as Env).COUNTERS;
let n = 0;
const fresh = (name: string) => `absorb-test/${name}/${++n}/${Date.now()}`;

describe("CounterObject pre-counted flushes", () => {
  for (const [algorithm, cost, spent, accepted] of [
    ["fixed_window", 40, 90, 10], // 10 left of 100: 10 of 40 taken
    ["token_bucket", 7, 0, 7], // all fit: taken whole
    ["sliding_window_log", 250, 1, 99], // 99 left
    ["gcra", 1, 100, 0], // none left
    ["leaky_bucket", 30, 80, 20], // 20 left: 20 of 30 taken
    ["sliding_window_counter", 513, 0, 100],
  ] as const) {
    it(`${algorithm}: ${cost} hits with ${100 - spent} left of 100 takes ${accepted}`, async () => {
      const key = fresh(algorithm);
      const limits = [perHour(100, algorithm)];
      const stub = counters.getByName(key);
      if (spent > 0) {
        const [first] = await stub.decide([{ key, limits, cost: spent }]);
        expect(first.allowed).toBe(true);
      }
      const [flush] = await stub.decide([{ key, limits, cost, kind: "absorb" } satisfies CounterCall]);
      expect(flush.accepted).toBe(accepted);
      expect(flush.decisions[0].remaining).toBe(100 - spent - accepted);
      // The state really holds what was taken: the next single hit fits only if quota is left.
      const [next] = await stub.decide([{ key, limits, cost: 1 }]);
      expect(next.allowed).toBe(100 - spent - accepted > 0);
    });
  }

  it("takes no more than the tightest window allows", async () => {
    const key = fresh("two-windows");
    const limits: LimitCall[] = [perHour(100), { id: "tb-30-h", algorithm: "token_bucket", limit: 30, windowMs: 3_600_000, burst: 30 }];
    const [flush] = await counters.getByName(key).decide([{ key, limits, cost: 64, kind: "absorb" }]);
    expect(flush.accepted).toBe(30);
    expect(flush.decisions.map((d) => d.remaining)).toEqual([70, 0]);
  });
});
