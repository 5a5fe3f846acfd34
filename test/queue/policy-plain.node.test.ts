// The queueing terms of a request (src/queue/policy.ts, docs/on-limit.md, "Bounds"): the shortest age,
// each counter's smallest backlog, credentials kept only when every queue limit asks for it. Plain: no
// bindings, so the mutation gate (test/mutation/gates.mjs) runs it.
import { describe, expect, it } from "vitest";
import type { DescriptorOutcome, PolicyOutcome, RateLimitResult } from "../../src/limiter/types.ts";
import { counterOf, queuePolicy } from "../../src/queue/policy.ts";
import { QUEUE_OPTION_BOUNDS } from "../../src/rules/queue-options.ts";

interface PolicySpec {
  onLimit?: "delay" | "queue";
  allowed?: boolean;
  shadow?: boolean;
  ageMs?: number;
  backlog?: number;
  credentials?: boolean;
  noRule?: boolean;
}

const policy = (spec: PolicySpec): PolicyOutcome =>
  ({
    domain: "d",
    descriptor: [],
    name: "p",
    windowMs: 60_000,
    shadow: spec.shadow ?? false,
    decision: { allowed: spec.allowed ?? false, remaining: 0, resetAfterMs: 1000, retryAfterMs: 1000, limit: 1 },
    onLimit: spec.onLimit ?? "queue",
    rule: spec.noRule
      ? undefined
      : {
          ...(spec.ageMs === undefined ? {} : { maxQueueAgeMs: spec.ageMs }),
          ...(spec.backlog === undefined ? {} : { maxQueueBacklog: spec.backlog }),
          ...(spec.credentials ? { queueCredentials: true } : {}),
        },
  }) as unknown as PolicyOutcome;

const outcome = (name: string, policies: PolicySpec[], counted = true): DescriptorOutcome =>
  ({
    domain: "d",
    descriptor: [{ key: "k", value: name }],
    cost: 1,
    policies: policies.map(policy),
    ...(counted ? { counter: { object: `obj-${name}`, call: { key: `key-${name}`, limits: [], cost: 1 } } } : {}),
  }) as unknown as DescriptorOutcome;

const result = (descriptors: DescriptorOutcome[] | undefined) => ({ allowed: false, reason: "queued", descriptors }) as unknown as RateLimitResult;

const { maxAgeSeconds, maxBacklog } = QUEUE_OPTION_BOUNDS;

describe("queuePolicy", () => {
  it("takes the shortest age, each counter's smallest backlog, and keeps credentials only when all ask", () => {
    const p = queuePolicy(
      result([
        outcome("a", [
          { ageMs: 60_000, backlog: 7, credentials: true },
          { ageMs: 30_000, backlog: 9, credentials: true },
        ]),
        outcome("b", [{ ageMs: 45_000, backlog: 3, credentials: true }]),
      ]),
    );
    expect(p.maxAgeMs).toBe(30_000);
    expect(p.caps).toEqual([7, 3]);
    expect(p.keepCredentials).toBe(true);
    expect(p.outcomes.map((o) => o.descriptor[0]?.value)).toEqual(["a", "b"]);
    expect(p.outcomes.map(counterOf)).toEqual([
      { object: "obj-a", call: { key: "key-a", limits: [], cost: 1 } },
      { object: "obj-b", call: { key: "key-b", limits: [], cost: 1 } },
    ]);
  });

  it("drops credentials when any one queue limit does not keep them", () => {
    const p = queuePolicy(result([outcome("a", [{ credentials: true }]), outcome("b", [{ credentials: false }])]));
    expect(p.keepCredentials).toBe(false);
    const q = queuePolicy(result([outcome("a", [{ credentials: true }, {}])]));
    expect(q.keepCredentials).toBe(false);
  });

  it("uses the defaults when a limit names none, and the bounds' maxima when nothing queues", () => {
    const p = queuePolicy(result([outcome("a", [{}])]));
    expect(p.maxAgeMs).toBe(maxAgeSeconds.default * 1000);
    expect(p.caps).toEqual([maxBacklog.default]);
    expect(p.keepCredentials).toBe(false);
    const none = queuePolicy(result(undefined));
    expect(none).toEqual({ outcomes: [], maxAgeMs: maxAgeSeconds.max * 1000, caps: [], keepCredentials: false });
    const noRule = queuePolicy(result([outcome("a", [{ noRule: true }])]));
    expect(noRule.maxAgeMs).toBe(maxAgeSeconds.default * 1000);
    expect(noRule.caps).toEqual([maxBacklog.default]);
  });

  it("keeps a larger-than-default age and backlog as given (the default is no cap)", () => {
    const p = queuePolicy(result([outcome("a", [{ ageMs: 7_200_000, backlog: 5_000 }])]));
    expect(p.maxAgeMs).toBe(7_200_000);
    expect(p.caps).toEqual([5_000]);
  });

  it("counts only refusing, enforced queue limits of an outcome with a counter", () => {
    const p = queuePolicy(
      result([
        outcome("allowed", [{ allowed: true, ageMs: 1_000, backlog: 1 }]),
        outcome("shadow", [{ shadow: true, ageMs: 1_000, backlog: 1 }]),
        outcome("delay", [{ onLimit: "delay", ageMs: 1_000, backlog: 1 }]),
        outcome("uncounted", [{ ageMs: 1_000, backlog: 1 }], false),
        outcome("queued", [
          { ageMs: 90_000, backlog: 4, credentials: true },
          { allowed: true, ageMs: 2_000, backlog: 2 },
        ]),
      ]),
    );
    expect(p.outcomes.map((o) => o.descriptor[0]?.value)).toEqual(["queued"]);
    expect(p.maxAgeMs).toBe(90_000);
    expect(p.caps).toEqual([4]);
    expect(p.keepCredentials).toBe(true);
  });
});
