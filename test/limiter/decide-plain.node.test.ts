/**
 * The decision engine (src/limiter/decide.ts, plan.ts, fold.ts,
 * summarize.ts, timeout.ts) with the edge runtime in front of plain counter
 * objects (test/support/plain-counters.ts), on a clock the test sets, so it
 * also runs in Node for mutation testing (docs/testing.md). Exact results:
 * which limit speaks, what it reports, when the block cache answers, what
 * a timeout says. The gateway tests run the same engine through real objects.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { EdgeRuntime } from "../../src/isolate/runtime.ts";
import { CounterUnavailableError, decide, descriptorOutcomes } from "../../src/limiter/decide.ts";
import type { Env } from "../../src/config.ts";
import { domainOf } from "../rules/helpers.ts";

// The shard key's default is derived from an id the namespace gives a fixed name.
const idFromName = (name: string) => ({ toString: () => `plain-id:${name}` });
import { plainNamespace } from "../support/plain-counters.ts";

const MINUTE = 60_000;
// 10 s into an aligned minute (and hour): fixed windows reset 50 s (and 3 590 s) from now.
const START = 1_000 * 60 * MINUTE + 10_000;
const fixed = (unit: "minute" | "hour", n: number) => ({ unit, requests_per_unit: n, algorithm: "fixed_window" });

function setup(descriptors: unknown[]) {
  let clock = START;
  const counters = plainNamespace(() => clock);
  const edge = new EdgeRuntime(counters.binding, { now: () => clock, coalesce: false });
  const domain = domainOf({ domain: "plain", descriptors });
  return { edge, domain, counters, tick: (ms: number) => (clock += ms) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("decision engine on plain objects", () => {
  it("counts down one limit, refuses past it with the wait to its reset, then answers from the block cache", async () => {
    const { edge, domain, counters, tick } = setup([{ key: "api_key", rate_limit: fixed("minute", 3) }]);
    const request = [{ domain, descriptors: [[{ key: "api_key", value: "a" }]] }];
    for (const remaining of [2, 1, 0]) {
      expect(await decide(edge, request, { timeoutMs: 1_000 })).toMatchObject({
        allowed: true,
        reason: "allowed",
        limit: 3,
        remaining,
        resetAfterMs: 50_000,
        retryAfterMs: 0,
      });
    }
    const refused = await decide(edge, request, { timeoutMs: 1_000 });
    expect(refused).toMatchObject({ allowed: false, reason: "limited", limit: 3, remaining: 0, retryAfterMs: 50_000 });
    expect(refused.policy?.decision.allowed).toBe(false);
    expect(refused.descriptors?.[0].policies).toHaveLength(1);
    expect(counters.calls()).toBe(4);
    tick(1_000);
    expect(await decide(edge, request, { timeoutMs: 1_000 })).toMatchObject({ allowed: false, reason: "limited", retryAfterMs: 49_000 });
    expect([counters.calls(), edge.stats.cachedBlocks]).toEqual([4, 1]);
    // Another key is not blocked by it.
    expect((await decide(edge, [{ domain, descriptors: [[{ key: "api_key", value: "b" }]] }], { timeoutMs: 1_000 })).remaining).toBe(2);
  });

  it("reports the least remaining while allowed, and the longest wait once refused", async () => {
    const { edge, domain } = setup([
      { key: "user", rate_limit: fixed("hour", 1) },
      { key: "ip", rate_limit: fixed("minute", 5) },
    ]);
    const request = [{ domain, descriptors: [[{ key: "ip", value: "1" }], [{ key: "user", value: "u" }]] }];
    const first = await decide(edge, request, { timeoutMs: 1_000 });
    expect(first).toMatchObject({ allowed: true, limit: 1, remaining: 0, resetAfterMs: 60 * MINUTE - 10_000 });
    expect(first.policies.map((p) => p.decision.remaining)).toEqual([4, 0]);
    const second = await decide(edge, request, { timeoutMs: 1_000 });
    expect(second).toMatchObject({ allowed: false, reason: "limited", limit: 1, retryAfterMs: 60 * MINUTE - 10_000 });
    // Each counter decides on its own, as Envoy's service counts each descriptor: the ip counter had room and took the hit.
    expect(second.policies.map((p) => [p.decision.allowed, p.decision.remaining])).toEqual([
      [true, 3],
      [false, 0],
    ]);
  });

  it("charges the request's cost, and refuses a cost no window can ever hold", async () => {
    const { edge, domain } = setup([{ key: "k", rate_limit: fixed("minute", 3) }]);
    const request = [{ domain, descriptors: [[{ key: "k", value: "v" }]] }];
    expect(await decide(edge, request, { timeoutMs: 1_000, cost: 2 })).toMatchObject({ allowed: true, remaining: 1 });
    expect(await decide(edge, request, { timeoutMs: 1_000, cost: 4 })).toMatchObject({ allowed: false, retryAfterMs: Infinity });
    // A read (cost 0) takes nothing.
    expect(await decide(edge, request, { timeoutMs: 1_000, cost: 0 })).toMatchObject({ allowed: true, remaining: 1 });
    expect(await decide(edge, request, { timeoutMs: 1_000 })).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("never blocks on a shadow limit; with SHADOW_MODE lets a refused request through as shadow", async () => {
    const { edge, domain } = setup([
      { key: "quiet", shadow_mode: true, rate_limit: fixed("minute", 1) },
      { key: "loud", rate_limit: fixed("minute", 1) },
    ]);
    const quiet = [{ domain, descriptors: [[{ key: "quiet", value: "q" }]] }];
    await decide(edge, quiet, { timeoutMs: 1_000 });
    const over = await decide(edge, quiet, { timeoutMs: 1_000 });
    expect(over).toMatchObject({ allowed: true, reason: "no_limit" });
    expect(over.policies[0]).toMatchObject({ shadow: true, decision: { allowed: false } });
    const loud = [{ domain, descriptors: [[{ key: "loud", value: "l" }]] }];
    await decide(edge, loud, { timeoutMs: 1_000, shadowAll: true });
    expect(await decide(edge, loud, { timeoutMs: 1_000, shadowAll: true })).toMatchObject({
      allowed: true,
      reason: "shadow",
      limit: 1,
      remaining: 0,
      retryAfterMs: 0,
      resetAfterMs: 50_000,
    });
  });

  // docs/precount.md: shadow-mode limits are never cached (a cached refusal would stop counting the traffic the shadow
  // limit is there to measure). Break tried: `cacheable` without `!shadow` in src/limiter/plan.ts: 4 of the 8 were
  // answered from the cache.
  it("never answers a shadow limit's refusal from the block cache: every hit over it reaches its object", async () => {
    const { edge, domain, counters } = setup([
      { key: "quiet", shadow_mode: true, rate_limit: fixed("minute", 1) },
      { key: "loud", rate_limit: fixed("minute", 1) },
    ]);
    const quiet = [{ domain, descriptors: [[{ key: "quiet", value: "q" }]] }];
    const loud = [{ domain, descriptors: [[{ key: "loud", value: "l" }]] }];
    for (let i = 0; i < 4; i++) expect((await decide(edge, quiet, { timeoutMs: 1_000 })).allowed).toBe(true);
    for (let i = 0; i < 4; i++) expect((await decide(edge, loud, { timeoutMs: 1_000, shadowAll: true })).allowed).toBe(true);
    expect([counters.calls(), edge.stats.cachedBlocks]).toEqual([8, 0]);
  });

  it("quota_mode: refuses only when every quota descriptor of the request is over", async () => {
    const { edge, domain } = setup([
      { key: "service", value: "one", quota_mode: true, rate_limit: fixed("minute", 1) },
      { key: "service", value: "two", quota_mode: true, rate_limit: fixed("minute", 2) },
    ]);
    const request = [{ domain, descriptors: [[{ key: "service", value: "one" }], [{ key: "service", value: "two" }]] }];
    expect((await decide(edge, request, { timeoutMs: 1_000 })).allowed).toBe(true);
    // "one" is over, "two" is not: admitted, and the over quota limit speaks first.
    const second = await decide(edge, request, { timeoutMs: 1_000 });
    expect(second).toMatchObject({ allowed: true, reason: "allowed", limit: 1 });
    expect((await decide(edge, request, { timeoutMs: 1_000 })).allowed).toBe(false);
  });

  it("reports each descriptor on its own, with the object it was counted in", async () => {
    const { edge, domain } = setup([{ key: "k", rate_limit: fixed("minute", 2) }, { key: "free" }]);
    const outcomes = await descriptorOutcomes(
      edge,
      [{ domain, descriptors: [[{ key: "k", value: "v" }], [{ key: "free", value: "x" }], [{ key: "none", value: "y" }]] }],
      {
        timeoutMs: 1_000,
      },
    );
    expect(outcomes.map((o) => o.policies.map((p) => p.decision.remaining))).toEqual([[1], [], []]);
    expect(outcomes[0].counter?.object).toMatch(/^plain/);
    expect(outcomes.map((o) => o.counter === undefined)).toEqual([false, true, true]);
  });

  it("decides pre-counted limits in the isolate once hot, with no object call; without a defer, through the object", async () => {
    const { edge, domain, counters } = setup([{ key: "hot", rate_limit: { ...fixed("minute", 1_000), precount: { sync_ms: 100 } } }]);
    const request = [{ domain, descriptors: [[{ key: "hot", value: "k" }]] }];
    const background: Promise<unknown>[] = [];
    const options = { timeoutMs: 1_000, defer: (p: Promise<unknown>) => void background.push(p) };
    // The first learns the counter, the second asks for a lease: both through the object.
    await decide(edge, request, options);
    await decide(edge, request, options);
    expect(counters.calls()).toBe(2);
    for (let remaining = 997; remaining > 990; remaining--) expect(await decide(edge, request, options)).toMatchObject({ allowed: true, remaining });
    expect([counters.calls(), edge.precount.stats.local]).toEqual([2, 7]);
    // Without a defer (the decision API) nothing is pre-counted: every call asks the object.
    await decide(edge, request, { timeoutMs: 1_000 });
    expect(counters.calls()).toBe(3);
    // The same counter twice in one request: each hit counted, in order (the view has not synced the direct hit yet).
    const twice = [{ domain, descriptors: [[{ key: "hot", value: "k" }], [{ key: "hot", value: "k" }]] }];
    const both = await decide(edge, twice, options);
    expect(both.policies.map((p) => p.decision.remaining)).toEqual([990, 989]);
    expect(edge.precount.stats.local).toBe(9);
    // The syncs run on the request's own waitUntil, which keeps them alive after the response.
    expect(background.length).toBeGreaterThan(0);
  });

  it("reports no descriptors for a request no domain applies to", async () => {
    const { edge } = setup([{ key: "k", rate_limit: fixed("minute", 2) }]);
    const result = await decide(edge, [], { timeoutMs: 1_000 });
    expect(result).toMatchObject({ allowed: true, reason: "no_limit", policies: [] });
    expect(result).not.toHaveProperty("descriptors");
  });

  it("gives up on counters that do not answer within the timeout, or fail, with CounterUnavailableError", async () => {
    const domain = domainOf({ domain: "plain", descriptors: [{ key: "k", rate_limit: fixed("minute", 2) }] });
    const request = [{ domain, descriptors: [[{ key: "k", value: "v" }]] }];
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const hanging = { getByName: () => ({ decideText: () => new Promise(() => undefined) }), idFromName } as unknown as Env["COUNTERS"];
    const waiting = decide(new EdgeRuntime(hanging, { coalesce: false }), request, { timeoutMs: 50 });
    // The error carries the planned calls too (`unanswered`, for FAILURE_MODE=local): matched on its class and message.
    const outcome = expect(waiting).rejects.toSatisfy(
      (error) => error instanceof CounterUnavailableError && error.message === "no answer from counters within 50 ms" && error.unanswered !== undefined,
    );
    await vi.advanceTimersByTimeAsync(49);
    await vi.advanceTimersByTimeAsync(1);
    await outcome;
    const failing = { getByName: () => ({ decideText: () => Promise.reject(new Error("object gone")) }), idFromName } as unknown as Env["COUNTERS"];
    await expect(decide(new EdgeRuntime(failing, { coalesce: false }), request, { timeoutMs: 50 })).rejects.toSatisfy(
      (error) => error instanceof CounterUnavailableError && error.message === "Error: object gone" && !error.overloaded,
    );
  });
});
