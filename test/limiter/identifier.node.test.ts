/**
 * One limit on one identifier (src/limiter/identifier.ts), the shape the
 * drop-ins speak, in plain Node (mutation testing, docs/testing.md): how a
 * window becomes a unit, each error in the caller's terms, the counted
 * identifier, and a decision through the edge and plain counter objects
 * (test/support/plain-counters.ts). The drop-in tests run the same through
 * real objects in workerd.
 */
import { describe, expect, it } from "vitest";
import { EdgeRuntime } from "../../src/isolate/runtime.ts";
import {
  countedIdentifier,
  decideIdentifier,
  IDENTIFIER_KEY,
  IdentifierLimitError,
  identifierCounter,
  identifierDomain,
} from "../../src/limiter/identifier.ts";
import { isLongValue, longValueKey } from "../../src/rules/match/long-values.ts";
import { matchDescriptor } from "../../src/rules/match/match.ts";
import { plainNamespace } from "../support/plain-counters.ts";

const sliding = { algorithm: "sliding_window_counter" as const, tokens: 10 };
const limitOf = (windowMs: number, extra = {}) => {
  const domain = identifierDomain("ids", { ...sliding, windowMs, ...extra }, "what");
  return matchDescriptor(domain, [{ key: IDENTIFIER_KEY, value: "x" }])?.limits[0];
};

describe("identifierDomain", () => {
  it("names the window in the largest unit that divides it", () => {
    const units = [1_000, 59_000, 60_000, 90_000, 3_600_000, 7_200_000, 86_400_000, 172_800_000].map((ms) => {
      const limit = limitOf(ms);
      return [limit?.unit, limit?.unitMultiplier, limit?.windowMs, limit?.name];
    });
    expect(units).toEqual([
      ["second", 1, 1_000, "identifier:10/1s"],
      ["second", 59, 59_000, "identifier:10/59s"],
      ["minute", 1, 60_000, "identifier:10/1m"],
      ["second", 90, 90_000, "identifier:10/90s"],
      ["hour", 1, 3_600_000, "identifier:10/1h"],
      ["hour", 2, 7_200_000, "identifier:10/2h"],
      ["day", 1, 86_400_000, "identifier:10/1d"],
      ["day", 2, 172_800_000, "identifier:10/2d"],
    ]);
    const limit = limitOf(120_000);
    expect([limit?.limit, limit?.algorithm, limit?.countWhen]).toEqual([10, "sliding_window_counter", undefined]);
  });

  it("takes a burst and the statuses that are charged", () => {
    const bucket = identifierDomain("ids", { algorithm: "token_bucket", tokens: 5, windowMs: 1_000, burst: 20 }, "what");
    expect(matchDescriptor(bucket, [{ key: IDENTIFIER_KEY, value: "x" }])?.limits[0]).toMatchObject({ limit: 5, burst: 20, algorithm: "token_bucket" });
    expect(limitOf(1_000, { countWhen: ["4xx"] })?.countWhen).toBeDefined();
  });

  it("refuses a window that is not a whole number of seconds, at least 1 s", () => {
    for (const ms of [999, 1_500, 0, -1_000, 1_000.5, Number.NaN]) {
      expect(() => identifierDomain("ids", { ...sliding, windowMs: ms }, "fixedWindow(10, x)")).toThrow(
        new IdentifierLimitError(`fixedWindow(10, x): the window must be a whole number of seconds (at least 1 s), got ${ms} ms`),
      );
    }
  });

  it("names each field that does not compile in the caller's terms", () => {
    const error = (() => {
      try {
        identifierDomain("", { ...sliding, tokens: -1, windowMs: 1_000 }, "limit()");
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(IdentifierLimitError);
    expect((error as Error).name).toBe("IdentifierLimitError");
    expect((error as Error).message).toBe("limit(): the prefix: must be a non-empty string; the limit: must be at least 0, got -1");
    expect(() => identifierDomain("ids", { algorithm: "token_bucket", tokens: 5, windowMs: 1_000, burst: -3 }, "b()")).toThrow(
      new IdentifierLimitError("b(): the burst: must be at least 1, got -3"),
    );
  });
});

describe("countedIdentifier", () => {
  it("keeps a short identifier, digests a long one, refuses what is not a string", async () => {
    expect(await countedIdentifier("user-1", "limit()")).toBe("user-1");
    const long = "x".repeat(10_000);
    expect(isLongValue(long)).toBe(true);
    expect(await countedIdentifier(long, "limit()")).toBe(await longValueKey(long));
    await expect(countedIdentifier(null, "limit()")).rejects.toThrow(new TypeError("limit(): the identifier must be a string, got null"));
    await expect(countedIdentifier(7, "limit()")).rejects.toThrow(new TypeError("limit(): the identifier must be a string, got number"));
  });
});

describe("decideIdentifier and identifierCounter", () => {
  it("counts each identifier on its own counter, with the cost asked", async () => {
    const clock = 1_000_000;
    const counters = plainNamespace(() => clock);
    const edge = new EdgeRuntime(counters.binding, { now: () => clock, coalesce: false });
    const domain = identifierDomain("ids", { algorithm: "fixed_window", tokens: 3, windowMs: 60_000 }, "what");
    const options = { cost: 2, timeoutMs: 1_000, defer: () => undefined };
    expect(await decideIdentifier(edge, domain, "a", options)).toMatchObject({ allowed: true, limit: 3, remaining: 1 });
    expect(await decideIdentifier(edge, domain, "a", options)).toMatchObject({ allowed: false, remaining: 0 });
    expect(await decideIdentifier(edge, domain, "b", { ...options, cost: 0 })).toMatchObject({ allowed: true, remaining: 3 });
    const { key, object } = identifierCounter(domain, "a", edge.shardKey);
    expect(key).toBe(JSON.stringify(["ids", [IDENTIFIER_KEY, "a"]]));
    const result = await decideIdentifier(edge, domain, "a", { ...options, cost: 0 });
    expect(result.descriptors?.[0].counter?.object).toBe(object);
  });
});
