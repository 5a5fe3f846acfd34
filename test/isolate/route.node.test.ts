/**
 * Where the edge answers a call from (src/isolate/route.ts): a cached certain
 * block, this isolate's pre-count, or the object. Plain data, at chosen
 * instants; the paths through real objects are in test/isolate/edge-integration.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { CounterCall, CounterVerdict, LimitCall } from "../../src/stored/wire-calls.ts";
import { BlockCache } from "../../src/isolate/block-cache.ts";
import { rememberBlock, routeOf } from "../../src/isolate/route.ts";

const limit = (id: string): LimitCall => ({ id, algorithm: "fixed_window", limit: 10, windowMs: 60_000, burst: 10 });
const call: CounterCall = { key: "k", cost: 1, limits: [limit("a"), limit("b")] };
const blocked = (provisional?: true): CounterVerdict => ({
  allowed: false,
  decisions: [{ allowed: false, limit: 10, remaining: 0, resetAfterMs: 5_000, retryAfterMs: 1_000, effectiveWindowMs: 5_000 }],
  ...(provisional ? { provisional } : {}),
});

describe("edge routes", () => {
  it("answers a cacheable call from its remembered block until the block ends, then from the object", () => {
    const blocks = new BlockCache();
    rememberBlock({ call, cacheable: true }, blocked(), blocks, 1_000, 1_010);
    const route = routeOf({ call, cacheable: true }, blocks, 1_500);
    expect(route.kind).toBe("cached");
    expect(route.kind === "cached" && route.verdict.decisions[0].retryAfterMs).toBe(510);
    expect(routeOf({ call, cacheable: true }, blocks, 2_000)).toEqual({ kind: "remote" });
  });

  it("keys a block by counter, cost and every limit: another cost or another limit set is not blocked by it", () => {
    const blocks = new BlockCache();
    rememberBlock({ call, cacheable: true }, blocked(), blocks, 0, 0);
    expect(routeOf({ call: { ...call, cost: 2 }, cacheable: true }, blocks, 1).kind).toBe("remote");
    expect(routeOf({ call: { ...call, limits: [limit("a")] }, cacheable: true }, blocks, 1).kind).toBe("remote");
    expect(routeOf({ call: { ...call, limits: [limit("a"), limit("c")] }, cacheable: true }, blocks, 1).kind).toBe("remote");
    expect(routeOf({ call: { ...call, key: "k2" }, cacheable: true }, blocks, 1).kind).toBe("remote");
    expect(routeOf({ call, cacheable: true }, blocks, 1).kind).toBe("cached");
    // The cache forgets by counter key: the key's blocks of every cost and limit set.
    blocks.forget("k");
    expect(routeOf({ call, cacheable: true }, blocks, 1).kind).toBe("remote");
  });

  it("neither remembers nor answers from the cache a call that is not cacheable", () => {
    const blocks = new BlockCache();
    rememberBlock({ call, cacheable: false }, blocked(), blocks, 0, 0);
    expect(blocks.size).toBe(0);
    rememberBlock({ call, cacheable: true }, blocked(), blocks, 0, 0);
    expect(routeOf({ call, cacheable: false }, blocks, 1)).toEqual({ kind: "remote" });
    expect(routeOf({ call, cacheable: false, syncMs: 50 }, blocks, 1)).toEqual({ kind: "precount", syncMs: 50 });
  });

  it("never remembers a refusal that leased quota alone caused (provisional)", () => {
    const blocks = new BlockCache();
    rememberBlock({ call, cacheable: true }, blocked(true), blocks, 0, 0);
    expect(blocks.size).toBe(0);
    expect(routeOf({ call, cacheable: true }, blocks, 1).kind).toBe("remote");
  });

  it("pre-counts only plain calls that add hits to a pre-counted counter", () => {
    const blocks = new BlockCache();
    expect(routeOf({ call, cacheable: true, syncMs: 100 }, blocks, 0)).toEqual({ kind: "precount", syncMs: 100 });
    expect(routeOf({ call: { ...call, kind: "decide" }, cacheable: true, syncMs: 100 }, blocks, 0)).toEqual({ kind: "precount", syncMs: 100 });
    expect(routeOf({ call: { ...call, cost: 0 }, cacheable: true, syncMs: 100 }, blocks, 0)).toEqual({ kind: "remote" });
    expect(routeOf({ call: { ...call, kind: "reserve", maxDelayMs: 10 }, cacheable: false, syncMs: 100 }, blocks, 0)).toEqual({ kind: "remote" });
    expect(routeOf({ call: { ...call, kind: "refund", chargedAt: 0 }, cacheable: false, syncMs: 100 }, blocks, 0)).toEqual({ kind: "remote" });
    expect(routeOf({ call, cacheable: true }, blocks, 0)).toEqual({ kind: "remote" });
  });
});
