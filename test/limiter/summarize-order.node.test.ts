/**
 * Which policy speaks for a request and in what order the headers list the
 * rest (src/limiter/summarize.ts, headers/order.ts; docs/headers.md): the
 * refusing policy with the longest wait (the first of equal waits), else the
 * least remaining, the latest reset among equals; refusing policies listed
 * before admitted ones, each kind in its own order, whatever the order given.
 * Each case is checked in both orders of its input.
 */
import { describe, expect, it } from "vitest";
import type { Decision } from "../../src/algorithms/types.ts";
import { listedPolicies } from "../../src/limiter/headers/order.ts";
import { quotaAllOver, summarize } from "../../src/limiter/summarize.ts";
import type { PolicyOutcome } from "../../src/limiter/types.ts";

const allowed = (remaining: number, resetAfterMs: number): Decision => ({
  allowed: true,
  limit: 10,
  remaining,
  resetAfterMs,
  retryAfterMs: 0,
  effectiveWindowMs: resetAfterMs,
});
const refused = (retryAfterMs: number, resetAfterMs = retryAfterMs): Decision => ({
  allowed: false,
  limit: 10,
  remaining: 0,
  resetAfterMs,
  retryAfterMs,
  effectiveWindowMs: resetAfterMs,
});
const policy = (name: string, decision: Decision, extra: Partial<PolicyOutcome> = {}): PolicyOutcome => ({
  domain: "d",
  descriptor: [{ key: name, value: "v" }],
  name,
  windowMs: 60_000,
  shadow: false,
  decision,
  ...extra,
});
const names = (list: readonly PolicyOutcome[]) => list.map((p) => p.name);
const speaker = (policies: PolicyOutcome[]) => summarize(policies).policy?.name;

describe("the policy that speaks", () => {
  it("is the refusing one with the longest wait, the first of equal waits", () => {
    const long = policy("long", refused(5_000));
    const short = policy("short", refused(2_000));
    expect([speaker([long, short]), speaker([short, long])]).toEqual(["long", "long"]);
    const a = policy("a", refused(3_000));
    const b = policy("b", refused(3_000));
    expect([speaker([a, b]), speaker([b, a])]).toEqual(["a", "b"]);
    expect(summarize([short, long]).retryAfterMs).toBe(5_000);
  });

  it("among admitted ones: an over quota_mode limit first, then the least remaining, then the latest reset", () => {
    const few = policy("few", allowed(1, 10_000));
    const many = policy("many", allowed(5, 50_000));
    expect([speaker([few, many]), speaker([many, few])]).toEqual(["few", "few"]);
    const early = policy("early", allowed(3, 10_000));
    const late = policy("late", allowed(3, 30_000));
    expect([speaker([early, late]), speaker([late, early])]).toEqual(["late", "late"]);
    // An over quota_mode limit refuses nothing while another quota descriptor has room, but speaks first.
    const over = policy("over", refused(4_000), { quota: true });
    const room = policy("room", allowed(9, 1_000), { quota: true });
    const overLonger = policy("over-longer", refused(8_000), { quota: true, descriptor: [{ key: "over", value: "v" }] });
    expect([speaker([few, over, room]), speaker([room, over, few])]).toEqual(["over", "over"]);
    expect([speaker([over, overLonger, room]), speaker([room, overLonger, over])]).toEqual(["over-longer", "over-longer"]);
    const overToo = policy("over-too", refused(4_000), { quota: true, descriptor: [{ key: "too", value: "v" }] });
    expect([speaker([over, overToo, room]), speaker([overToo, over, room])]).toEqual(["over", "over-too"]);
    expect(summarize([few, over, room])).toMatchObject({ allowed: true, reason: "allowed", remaining: 0 });
  });

  it("quotaAllOver: false with no quota descriptor, true only when every one is over", () => {
    const plainOver = policy("plain", refused(1_000));
    expect(quotaAllOver([plainOver])).toBe(false);
    expect(quotaAllOver([])).toBe(false);
    const over = policy("over", refused(1_000), { quota: true });
    const room = policy("room", allowed(1, 1_000), { quota: true });
    expect([quotaAllOver([over]), quotaAllOver([over, room]), quotaAllOver([room])]).toEqual([true, false, false]);
    // A shadow quota descriptor over its limit is not over.
    expect(quotaAllOver([{ ...over, shadow: true }])).toBe(false);
  });
});

describe("the order the headers list policies in", () => {
  it("lists refusing policies before admitted ones, even an admitted one with nothing left and a later reset", () => {
    const empty = policy("empty", allowed(0, 50_000));
    const b = policy("b", refused(1_000));
    const c = policy("c", refused(2_000));
    expect(names(listedPolicies(summarize([empty, b, c])))).toEqual(["c", "b", "empty"]);
    expect(names(listedPolicies(summarize([c, empty, b])))).toEqual(["c", "b", "empty"]);
    expect(names(listedPolicies(summarize([b, c, empty])))).toEqual(["c", "b", "empty"]);
  });

  it("orders refusing policies by wait, not by reset", () => {
    const b = policy("b", refused(5_000, 1_000));
    const c = policy("c", refused(2_000, 9_000));
    const d = policy("d", refused(3_000, 2_000));
    expect(names(listedPolicies(summarize([b, c, d])))).toEqual(["b", "d", "c"]);
    expect(names(listedPolicies(summarize([c, d, b])))).toEqual(["b", "d", "c"]);
  });

  it("orders admitted policies by remaining, then the latest reset first", () => {
    const x = policy("x", allowed(1, 5_000));
    const y = policy("y", allowed(5, 10_000));
    const z = policy("z", allowed(5, 30_000));
    expect(names(listedPolicies(summarize([x, y, z])))).toEqual(["x", "z", "y"]);
    expect(names(listedPolicies(summarize([x, z, y])))).toEqual(["x", "z", "y"]);
    expect(names(listedPolicies(summarize([z, y, x])))).toEqual(["x", "z", "y"]);
  });
});
