/**
 * Gradual and soft enforcement in the decision engine (src/limiter/
 * enforcement.ts, candidates.ts, fold.ts, summarize.ts, respond.ts) with the
 * edge runtime in front of plain counter objects, on a clock the test sets,
 * so it runs in Node for mutation testing too (docs/testing.md). Exact:
 * which keys are enforced, where soft starts, what the headers say, how
 * many object calls a candidate costs, and that the block cache and the
 * pre-count never turn a forwarded request into a refusal.
 */
import { describe, expect, it } from "vitest";
import type { Decision } from "../../src/algorithms/types.ts";
import { counterKey } from "../../src/durable/counters/placement.ts";
import { EdgeRuntime } from "../../src/isolate/runtime.ts";
import { candidateCall, candidatesOf } from "../../src/limiter/candidates.ts";
import { decide } from "../../src/limiter/decide.ts";
import { enforced, enforcementBucket, enforcementOf, writtenDecision } from "../../src/limiter/enforcement.ts";
import type { PlannedCall } from "../../src/limiter/plan.ts";
import { rateLimitHeaders } from "../../src/limiter/respond.ts";
import { summarize } from "../../src/limiter/summarize.ts";
import type { PolicyOutcome } from "../../src/limiter/types.ts";
import type { CompiledLimit } from "../../src/rules/types.ts";
import { domainOf } from "../rules/helpers.ts";
import { plainNamespace } from "../support/plain-counters.ts";

const MINUTE = 60_000;
const START = 1_000 * 60 * MINUTE + 10_000;
const fixed = (n: number, extra: Record<string, unknown> = {}) => ({
  name: "per-user",
  unit: "minute",
  requests_per_unit: n,
  algorithm: "fixed_window",
  ...extra,
});

function setup(rateLimit: Record<string, unknown>) {
  const clock = START;
  const counters = plainNamespace(() => clock);
  const edge = new EdgeRuntime(counters.binding, { now: () => clock, coalesce: false });
  const domain = domainOf({ domain: "plain", descriptors: [{ key: "user", rate_limit: rateLimit }] });
  const request = (user: string) => [{ domain, descriptors: [[{ key: "user", value: user }]] }];
  return { edge, counters, request };
}

const decision = (over: Partial<Decision> = {}): Decision => ({
  allowed: true,
  limit: 10,
  remaining: 5,
  resetAfterMs: 1_000,
  retryAfterMs: 0,
  effectiveWindowMs: 1_000,
  ...over,
});
const limitOf = (over: Partial<CompiledLimit>) => ({ limit: 12, burst: 12, ...over }) as CompiledLimit;

describe("the share of keys enforced", () => {
  const SECRET_A = { k0: 0x01234567, k1: 0x89abcdef };
  const SECRET_B = { k0: 0x0badf00d, k1: 0x5eed1e55 };
  const users = Array.from({ length: 200 }, (_, i) => `plain\u0000user\u0000u${i}`);

  // Break tried: enforcementBucket ignoring its shard key (the hash unkeyed, as FNV-1a was): the two secrets give the same buckets.
  it("is a hash keyed by the deployment's secret: the same under one secret, unrelated under another", () => {
    const a = users.map((key) => enforcementBucket(key, SECRET_A));
    expect(users.map((key) => enforcementBucket(key, { ...SECRET_A }))).toEqual(a);
    const b = users.map((key) => enforcementBucket(key, SECRET_B));
    // Independent buckets agree by chance about once in 100: 2 of 200 expected.
    expect(a.filter((bucket, i) => bucket === b[i]).length).toBeLessThan(10);
    // So at 10 % no key value is outside the share for every deployment: u1, u2, u3 each enforced under some secret.
    const enforcedUnder = (secret: typeof SECRET_A, user: string) => enforcementBucket(`plain\u0000user\u0000${user}`, secret) < 10;
    const secrets = Array.from({ length: 100 }, (_, i) => ({ k0: i, k1: i * 7919 }));
    for (const user of ["u1", "u2", "u3"]) expect(secrets.some((secret) => enforcedUnder(secret, user))).toBe(true);
    expect(Math.min(...a)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...a)).toBeLessThanOrEqual(99);
  });

  it("enforces a key when its bucket is below the percent (all at 100, none at 0), and every key without the field", () => {
    expect(enforced(limitOf({ enforcePercent: 86 }), 86)).toBe(false);
    expect(enforced(limitOf({ enforcePercent: 87 }), 86)).toBe(true);
    expect(enforced(limitOf({ enforcePercent: 0 }), 0)).toBe(false);
    expect(enforced(limitOf({ enforcePercent: 100 }), 99)).toBe(true);
    expect(enforced(limitOf({}), 99)).toBe(true);
  });
});

describe("one decision's enforcement", () => {
  const soft = limitOf({ soft: { percent: 20, limit: 10, burst: 10 } });
  it("is soft exactly when fewer remain than the soft span (ceiling − written burst)", () => {
    expect(enforcementOf(soft, decision({ limit: 12, remaining: 2 }), 0)).toBeUndefined();
    expect(enforcementOf(soft, decision({ limit: 12, remaining: 1 }), 0)).toBe("soft");
    expect(enforcementOf(soft, decision({ limit: 12, remaining: 0 }), 0)).toBe("soft");
    expect(enforcementOf(limitOf({}), decision({ remaining: 0 }), 0)).toBeUndefined();
  });

  it("is not-enforced for a refusal of a key outside the share, never for an allowed request", () => {
    const waived = limitOf({ enforcePercent: 0 });
    expect(enforcementOf(waived, decision({ allowed: false, remaining: 0 }), 0)).toBe("not-enforced");
    expect(enforcementOf(waived, decision({ remaining: 0 }), 0)).toBeUndefined();
    expect(enforcementOf(limitOf({ enforcePercent: 100 }), decision({ allowed: false }), 0)).toBeUndefined();
  });

  it("reads a soft limit's counter against the written limit, nothing remaining past it", () => {
    expect(writtenDecision(soft, decision({ limit: 12, remaining: 5 }))).toEqual(decision({ limit: 10, remaining: 3 }));
    expect(writtenDecision(soft, decision({ limit: 12, remaining: 1 }))).toEqual(decision({ limit: 10, remaining: 0 }));
    const plain = decision();
    expect(writtenDecision(limitOf({}), plain)).toBe(plain);
  });
});

describe("summarize with enforcement", () => {
  const policy = (name: string, d: Partial<Decision>, extra: Partial<PolicyOutcome> = {}): PolicyOutcome => ({
    domain: "d",
    descriptor: [],
    name,
    windowMs: 1_000,
    shadow: false,
    decision: decision(d),
    ...extra,
  });

  it("forwards a not-enforced refusal as not_enforced, reporting it with nothing remaining and no retry", () => {
    const waived = policy("a", { allowed: false, remaining: 0, retryAfterMs: 700 }, { enforcement: "not-enforced" });
    const result = summarize([policy("b", { remaining: 4 }), waived]);
    expect(result).toMatchObject({ allowed: true, reason: "not_enforced", policy: waived, remaining: 0, retryAfterMs: 0 });
    expect(rateLimitHeaders(result, "draft-7")).toContainEqual(["X-RateLimit-Decision", "not-enforced"]);
    expect(rateLimitHeaders(result, "draft-7").map(([name]) => name)).not.toContain("Retry-After");
  });

  it("still refuses when an enforced limit refuses beside a not-enforced one", () => {
    const enforcedOne = policy("b", { allowed: false, remaining: 0, retryAfterMs: 100 });
    const result = summarize([policy("a", { allowed: false, remaining: 0, retryAfterMs: 900 }, { enforcement: "not-enforced" }), enforcedOne]);
    expect(result).toMatchObject({ allowed: false, reason: "limited", policy: enforcedOne, retryAfterMs: 100 });
  });

  it("reports the most restrictive of several not-enforced refusals", () => {
    const longer = policy("b", { allowed: false, remaining: 0, retryAfterMs: 900 }, { enforcement: "not-enforced" });
    const result = summarize([policy("a", { allowed: false, remaining: 0, retryAfterMs: 100 }, { enforcement: "not-enforced" }), longer]);
    expect(result.policy).toBe(longer);
  });

  it("answers soft with the soft limit's written limit and nothing remaining, tagged soft", () => {
    const softOne = policy("s", { limit: 4, remaining: 0, resetAfterMs: 3_000 }, { enforcement: "soft" });
    const result = summarize([policy("a", { limit: 100, remaining: 0, resetAfterMs: 9_000 }), softOne]);
    expect(result).toMatchObject({ allowed: true, reason: "soft", policy: softOne, limit: 4, remaining: 0, resetAfterMs: 3_000 });
    expect(rateLimitHeaders(result, "draft-7")).toContainEqual(["X-RateLimit-Decision", "soft"]);
    // A not-enforced refusal speaks before a soft allowance.
    expect(summarize([softOne, policy("w", { allowed: false, remaining: 0 }, { enforcement: "not-enforced" })]).reason).toBe("not_enforced");
    // A shadow limit's softness is not the request's.
    expect(summarize([policy("a", { remaining: 3 }), policy("s", { remaining: 0 }, { enforcement: "soft", shadow: true })]).reason).toBe("allowed");
  });
});

describe("the engine on plain objects", () => {
  it("enforce_percent 0: every refusal forwarded, from the object and then from the block cache", async () => {
    const { edge, counters, request } = setup(fixed(2, { enforce_percent: 0 }));
    const reasons: string[] = [];
    for (let i = 0; i < 5; i++) reasons.push((await decide(edge, request("alice"), { timeoutMs: 1_000 })).reason);
    expect(reasons).toEqual(["allowed", "allowed", "not_enforced", "not_enforced", "not_enforced"]);
    // The first refusal was a certain block: the cache answered the others, and they were still forwarded.
    expect(counters.calls()).toBe(3);
    expect(edge.blocks.size).toBe(1);
  });

  it("enforce_percent 50: refuses exactly the keys whose bucket is below 50", async () => {
    const { edge, request } = setup(fixed(1, { enforce_percent: 50 }));
    const users = Array.from({ length: 30 }, (_, i) => `user-${i}`);
    const refused: string[] = [];
    for (const user of users) {
      await decide(edge, request(user), { timeoutMs: 1_000 });
      if (!(await decide(edge, request(user), { timeoutMs: 1_000 })).allowed) refused.push(user);
    }
    expect(refused).toEqual(users.filter((u) => enforcementBucket(counterKey("plain", [{ key: "user", value: u }]), edge.shardKey) < 50));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThan(users.length);
  });

  it("soft_percent 50 on 4: four plain, two soft, then refused; a pre-counted one no further", async () => {
    for (const extra of [{}, { precount: { sync_ms: 100 } }]) {
      const { edge, request } = setup(fixed(4, { soft_percent: 50, ...extra }));
      const background: Promise<unknown>[] = [];
      const options = { timeoutMs: 1_000, defer: (p: Promise<unknown>) => void background.push(p) };
      const seen: [string, number, number][] = [];
      for (let i = 0; i < 8; i++) {
        const result = await decide(edge, request("carol"), options);
        seen.push([result.reason, result.limit, result.remaining]);
      }
      await Promise.all(background);
      expect(seen).toEqual([
        ["allowed", 4, 3],
        ["allowed", 4, 2],
        ["allowed", 4, 1],
        ["allowed", 4, 0],
        ["soft", 4, 0],
        ["soft", 4, 0],
        ["limited", 4, 0],
        ["limited", 4, 0],
      ]);
    }
  });

  it("a candidate: in the same RPC as its live limit, its own counter, never deciding", async () => {
    const { edge, counters, request } = setup(fixed(3, { candidate: { unit: "minute", requests_per_unit: 1, algorithm: "fixed_window" } }));
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await decide(edge, request("erin"), { timeoutMs: 1_000 }));
    expect(results.map((r) => r.reason)).toEqual(["allowed", "allowed", "allowed", "limited"]);
    // One object call per request until the live refusal is cached; never a second one for the candidate.
    expect(counters.calls()).toBe(4);
    const candidates = results.map((r) => r.descriptors?.[0].candidates?.map((p) => [p.name, p.decision.allowed]));
    expect(candidates).toEqual([
      [["per-user/candidate", true]],
      [["per-user/candidate", false]],
      [["per-user/candidate", false]],
      [["per-user/candidate", false]],
    ]);
    // The candidate is never among the request's policies (headers, Envoy statuses, slots).
    expect(results.every((r) => r.policies.every((p) => p.name === "per-user"))).toBe(true);
  });
});

describe("the candidate's call", () => {
  const candidate = { name: "c", limit: 0, burst: 0, windowMs: 1_000, id: "fw:0:1000:0:cand", algorithm: "fixed_window" } as CompiledLimit;
  const live: PlannedCall = {
    call: { key: "k", limits: [], cost: 2, kind: "relay", object: "home/r" },
    cacheable: true,
    syncMs: 50,
    leasable: false,
    outcome: 3,
    limits: [],
    honoured: true,
  };

  it("is relayed with its live call, answered from the same places, never honouring on_limit", () => {
    const planned = candidateCall(live, [candidate]);
    expect(planned).toMatchObject({
      call: { key: "k", cost: 2, kind: "relay", object: "home/r" },
      cacheable: true,
      syncMs: 50,
      leasable: false,
      outcome: 3,
      honoured: false,
      candidate: true,
    });
    expect(planned.call.limits.map((l) => l.id)).toEqual(["fw:0:1000:0:cand"]);
    // A candidate of 0 needs no object when its live call is answered in the isolate.
    expect(planned.refused?.allowed).toBe(false);
    expect(candidateCall({ ...live, cacheable: false }, [candidate]).refused).toBeUndefined();
    const direct = candidateCall({ ...live, call: { key: "k", limits: [], cost: 1 }, syncMs: undefined, leasable: undefined }, [candidate]);
    expect(direct.call.kind).toBeUndefined();
    expect("syncMs" in direct || "leasable" in direct).toBe(false);
  });

  it("is made only for limits that have one", () => {
    expect(candidatesOf([limitOf({})])).toBeUndefined();
    expect(candidatesOf([limitOf({}), limitOf({ candidate })])).toEqual([candidate]);
  });
});
