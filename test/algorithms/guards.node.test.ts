/**
 * The algorithms' guards say what is wrong: each bad argument is named in
 * its RangeError (the compiler validates rules first; these stop a bad value
 * reaching a counter, and the message is what an operator reads in the
 * log). Names are own keys of the table only, whatever a value coerces to;
 * windows up to MAX_WINDOW_MS are exact.
 */
import { describe, expect, it } from "vitest";
import { algorithms, exactArithmeticOk, getAlgorithm, isAlgorithmName, refund } from "../../src/algorithms/index.ts";
import { MAX_WINDOW_MS } from "../../src/algorithms/arith.ts";
import type { AlgorithmName } from "../../src/algorithms/types.ts";

const limit = { limit: 5, windowMs: 1_000, burst: 5 };

describe("algorithm guards", () => {
  it("name the argument that is wrong, with its value", () => {
    for (const alg of Object.values(algorithms)) {
      expect(() => alg.decide(undefined, limit, 1.5, 1)).toThrow("now must be an integer ms timestamp, got 1.5");
      expect(() => alg.decide(undefined, limit, 0, -1)).toThrow("cost must be a non-negative integer, got -1");
      expect(() => alg.decide(undefined, { ...limit, limit: -2 }, 0, 1)).toThrow("limit must be a non-negative integer, got -2");
      expect(() => alg.decide(undefined, { ...limit, burst: -3 }, 0, 1)).toThrow("burst must be a non-negative integer, got -3");
      expect(() => alg.decide(undefined, { ...limit, burst: 0.5 }, 0, 1)).toThrow("burst must be a non-negative integer, got 0.5");
      expect(() => alg.decide(undefined, { ...limit, windowMs: 0 }, 0, 1)).toThrow("windowMs must be an integer in [1, 2^50], got 0");
      expect(() => alg.decide(undefined, { ...limit, windowMs: MAX_WINDOW_MS + 1 }, 0, 1)).toThrow(
        `windowMs must be an integer in [1, 2^50], got ${MAX_WINDOW_MS + 1}`,
      );
      // The longest window is accepted.
      expect(alg.decide(undefined, { ...limit, windowMs: MAX_WINDOW_MS }, 0, 1).decision.allowed).toBe(true);
    }
  });

  it("a refund checks its arguments as a decision does", () => {
    const state = { w: 0, c: 3 };
    expect(() => refund("fixed_window", state, limit, Number.NaN, 0, 1)).toThrow("now must be an integer ms timestamp, got NaN");
    expect(() => refund("fixed_window", state, limit, 10, 0, -1)).toThrow("cost must be a non-negative integer, got -1");
    expect(() => refund("token_bucket", { t: 0, n: 0 }, { ...limit, windowMs: 0 }, 10, 0, 1)).toThrow("windowMs must be an integer in [1, 2^50], got 0");
  });

  it("an unknown name is refused by name, and nothing that only coerces to a name passes", () => {
    expect(() => getAlgorithm("tokens" as AlgorithmName)).toThrow("unknown rate-limit algorithm: tokens");
    expect(isAlgorithmName({ toString: () => "gcra" })).toBe(false);
    expect(isAlgorithmName(["gcra"])).toBe(false);
  });

  it("exact arithmetic holds up to the longest window, not past it", () => {
    expect(exactArithmeticOk({ ...limit, windowMs: MAX_WINDOW_MS }, "fixed_window")).toBe(true);
    expect(exactArithmeticOk({ ...limit, windowMs: MAX_WINDOW_MS + 1 }, "fixed_window")).toBe(false);
    expect(exactArithmeticOk({ ...limit, windowMs: 0 }, "fixed_window")).toBe(false);
    expect(exactArithmeticOk({ limit: 1, windowMs: 1, burst: 1 })).toBe(true);
    // A bucket's largest amount, burst × w + l (here w = 1, l = 2), may reach 2^52 exactly, not one more.
    expect(exactArithmeticOk({ limit: 2, windowMs: 1, burst: 2 ** 52 - 2 }, "token_bucket")).toBe(true);
    expect(exactArithmeticOk({ limit: 2, windowMs: 1, burst: 2 ** 52 - 1 }, "token_bucket")).toBe(false);
  });
});
