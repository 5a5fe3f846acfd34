/**
 * Planning and folding a decision (src/limiter/plan.ts, calls.ts, fold.ts)
 * on compiled rules, in plain Node (mutation testing, docs/testing.md):
 * each call's key, object, cost and kind, whether the edge may cache or
 * pre-count it, and each field folding copies from a verdict onto a policy.
 * The verdicts are plain data as the counter objects send them; the gateway
 * tests read the same fields through real objects.
 */
import { describe, expect, it } from "vitest";
import type { CounterVerdict } from "../../src/stored/wire-calls.ts";
import { fold } from "../../src/limiter/fold.ts";
import { actionOf, type PlannedCall, plan } from "../../src/limiter/plan.ts";
import { toLimitCall } from "../../src/limiter/calls.ts";
import { domainOf } from "../rules/helpers.ts";

const shardKey = { k0: 1, k1: 2 };
const minute = (n: number, extra: object = {}) => ({ unit: "minute", requests_per_unit: n, ...extra });
const domain = domainOf({
  domain: "p",
  placement: "per_key",
  descriptors: [
    { key: "plain", rate_limit: minute(10) },
    { key: "hot", rate_limits: [minute(100, { precount: { sync_ms: 200 } }), { unit: "hour", requests_per_unit: 999, precount: { sync_ms: 50 } }] },
    { key: "half", rate_limits: [minute(100, { precount: { sync_ms: 200 } }), { unit: "hour", requests_per_unit: 999 }] },
    {
      key: "slow",
      rate_limits: [
        minute(5, { algorithm: "gcra", on_limit: "delay", max_delay_ms: 300 }),
        { unit: "hour", requests_per_unit: 50, algorithm: "gcra", on_limit: "delay", max_delay_ms: 200 },
        { unit: "day", requests_per_unit: 500 },
      ],
    },
    { key: "queued", rate_limit: minute(3, { on_limit: "queue" }) },
    { key: "counted", rate_limit: minute(3, { count_when: { status: [401] } }) },
    { key: "quiet", shadow_mode: true, rate_limit: minute(3, { on_limit: "queue" }) },
    { key: "regional", rate_limit: minute(3, { scope: "region" }) },
    { key: "quota", quota_mode: true, rate_limit: minute(3) },
    { key: "free" },
    { key: "zero", rate_limit: minute(0) },
    { key: "boxed", rate_limit: minute(3, { penalty: { block_s: 60 } }) },
  ],
});
const one = (key: string, value = "v") => [{ key, value }];
const planned = (key: string, options = {}, precount = true, extra = {}) => {
  const { outcomes, byObject } = plan([{ domain, descriptors: [one(key)], ...extra }], options, precount, shardKey);
  const calls = [...byObject.values()].flat();
  return { outcomes, byObject, call: calls[0] as PlannedCall | undefined, calls };
};
const KEY = (key: string) => JSON.stringify(["p", [key, "v"]]);

describe("plan", () => {
  it("keys a counter by domain and entries, in the object per_key placement names, at the default cost 1", () => {
    const { call, byObject, outcomes } = planned("plain");
    expect([...byObject.keys()]).toEqual([`p/key/${KEY("plain")}`]);
    expect(call?.call).toEqual({ key: KEY("plain"), limits: call?.limits.map(toLimitCall), cost: 1 });
    expect(call).toMatchObject({ cacheable: true, syncMs: undefined, outcome: 0, honoured: false });
    expect(outcomes[0]).toMatchObject({ domain: "p", cost: 1, counter: { object: `p/key/${KEY("plain")}` } });
    expect(outcomes[0]).not.toHaveProperty("quotaUnit");
    expect(outcomes[0]).not.toHaveProperty("costFromResponse");
  });

  it("takes the decision's cost, and a descriptor's own cost before it", () => {
    const request = [{ domain, descriptors: [one("plain", "a"), one("plain", "b")], costs: [undefined, 7] }];
    const { outcomes } = plan(request, { cost: 3 }, false, shardKey);
    expect(outcomes.map((o) => [o.cost, o.counter?.call.cost])).toEqual([
      [3, 3],
      [7, 7],
    ]);
  });

  it("pre-counts only when every limit is pre-counted, at the smallest sync_ms, and only with somewhere to sync", () => {
    expect(planned("hot").call?.syncMs).toBe(50);
    expect(planned("hot", {}, false).call?.syncMs).toBeUndefined();
    expect(planned("half").call?.syncMs).toBeUndefined();
  });

  it("reserves for delay limits when on_limit is honoured, up to the smallest max_delay_ms; never cached", () => {
    const { call } = planned("slow", { onLimit: true });
    expect(call?.call).toMatchObject({ kind: "reserve", maxDelayMs: 200, cost: 1 });
    expect(call?.call.limits.map((l) => l.reserve === true)).toEqual([true, true, false]);
    expect(call).toMatchObject({ cacheable: false, syncMs: undefined, honoured: true });
    // Not honoured (the decision API): a plain call, cacheable.
    const plainCall = planned("slow").call;
    expect(plainCall?.call).not.toHaveProperty("kind");
    expect(plainCall).toMatchObject({ cacheable: true, honoured: false });
    expect(planned("slow", { onLimit: false }).call?.honoured).toBe(false);
  });

  it("does not cache a queued limit when honoured; a shadow descriptor is never honoured nor cached", () => {
    expect(planned("queued", { onLimit: true }).call).toMatchObject({ cacheable: false, honoured: true });
    expect(planned("queued").call).toMatchObject({ cacheable: true, honoured: false });
    expect(planned("quiet", { onLimit: true }).call).toMatchObject({ cacheable: false, honoured: false });
    expect(planned("plain", { shadowAll: true }).call).toMatchObject({ cacheable: false, honoured: false });
    expect(planned("plain", { shadowAll: false }).call).toMatchObject({ cacheable: true });
  });

  it("marks count_when and cost_from_response calls refundable: never cached or pre-counted", () => {
    expect(planned("counted").call).toMatchObject({ cacheable: false, syncMs: undefined, call: { refundable: true } });
    const reported = planned("hot", {}, true, { costFromResponse: { kind: "header" as const, name: "x-used" }, quotaUnit: "content-bytes" });
    expect(reported.call).toMatchObject({ cacheable: false, syncMs: undefined, call: { refundable: true } });
    expect(reported.outcomes[0]).toMatchObject({ costFromResponse: { kind: "header" as const, name: "x-used" }, quotaUnit: "content-bytes" });
    expect(planned("plain").call?.call).not.toHaveProperty("refundable");
    expect(planned("plain", {}, true, { quotaUnit: "content-bytes" }).outcomes[0]).toMatchObject({ quotaUnit: "content-bytes" });
  });

  it("counts a regional limit in its region's copy of key and object, local by default", () => {
    const local = planned("regional").call;
    expect(local?.call.key).toBe(`${KEY("regional")}@local`);
    expect(planned("regional", { region: "weur" }).byObject.has(`p/key/${KEY("regional")}@weur`)).toBe(true);
    expect(planned("plain", { region: "weur" }).call?.call.key).toBe(KEY("plain"));
  });

  // Break tried: `refused` computed after the relay (as before): the call became a relay call and the region was read.
  it("refuses a limit of 0 from the rules in any region: no relay, and the request's location is never read", () => {
    let reads = 0;
    const inWeur = {
      get region() {
        reads += 1;
        return "weur" as const;
      },
    };
    const { call, byObject } = planned("zero", inWeur);
    expect(call?.refused?.allowed).toBe(false);
    expect(call?.call).not.toHaveProperty("kind");
    expect([...byObject.keys()]).toEqual([`p/key/${KEY("zero")}`]);
    expect(reads).toBe(0);
    // The same refusal each time: made once per node's limits.
    expect(planned("zero", inWeur).call?.refused).toBe(call?.refused);
    expect(planned("plain", inWeur).call?.call.kind).toBe("relay");
    expect(reads).toBe(1);
  });

  // Break tried: `leasable` not looking at `penalized` (src/limiter/plan.ts): the boxed call was leasable.
  it("decides a penalty limit at its home object: cacheable, never leased, never relayed, its penalty on the call", () => {
    const boxed = planned("boxed", { region: "weur" }).call;
    expect([boxed?.cacheable, boxed?.leasable, boxed?.call.kind]).toEqual([true, false, undefined]);
    expect(boxed?.call.limits[0].penalty).toEqual({ blockMs: 60_000, escalate: 1, maxBlockMs: 86_400_000 });
    const plain = planned("plain").call;
    expect([plain?.cacheable, plain?.leasable]).toEqual([true, true]);
  });

  it("gives a slot only to calls with a concurrency limit, and makes a call refundable if any of its limits is", () => {
    const slot = { holder: "isolate:1", leaseMs: 60_000 };
    const plainCall = planned("plain", { slot }).call;
    expect(plainCall?.call).not.toHaveProperty("slot");
    expect(plainCall?.cacheable).toBe(true);
    const mixed = domainOf({
      domain: "m",
      descriptors: [{ key: "k", rate_limits: [minute(3, { count_when: { status: [401] } }), { unit: "hour", requests_per_unit: 30 }] }],
    });
    const [call] = [...plan([{ domain: mixed, descriptors: [one("k")] }], {}, true, shardKey).byObject.values()].flat();
    expect(call).toMatchObject({ cacheable: false, call: { refundable: true } });
  });

  it("plans no call for a descriptor without limits, and groups calls by object", () => {
    const { outcomes, byObject } = plan([{ domain, descriptors: [one("free"), one("plain"), one("plain"), one("none")] }], {}, false, shardKey);
    expect(outcomes.map((o) => o.counter === undefined)).toEqual([true, false, false, true]);
    expect([...byObject.values()].map((calls) => calls.map((c) => c.outcome))).toEqual([[1, 2]]);
  });

  it("actionOf: delay and queue when honoured, nothing for reject or when not honoured", () => {
    const [delay] = planned("slow").call?.limits ?? [];
    const [queue] = planned("queued").call?.limits ?? [];
    const [reject] = planned("plain").call?.limits ?? [];
    expect([actionOf(delay, true), actionOf(queue, true), actionOf(reject, true), actionOf(delay, false), actionOf(queue, false)]).toEqual([
      "delay",
      "queue",
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe("fold", () => {
  const verdict = (allowed: boolean, extra: Partial<CounterVerdict> = {}): CounterVerdict => ({
    allowed,
    decisions: [{ allowed, limit: 3, remaining: allowed ? 2 : 0, resetAfterMs: 1_000, retryAfterMs: allowed ? 0 : 1_000, effectiveWindowMs: 1_000 }],
    ...extra,
  });

  it("copies each verdict's decisions onto its descriptor's policies with the limit's name, window and rule", () => {
    const { outcomes, byObject } = plan([{ domain, descriptors: [one("plain"), one("quota")] }], {}, false, shardKey);
    const groups = [...byObject.values()];
    fold(outcomes, groups, [[verdict(true, { chargedAt: 1234 })], [verdict(false)]]);
    const [plainPolicy] = outcomes[0].policies;
    expect(plainPolicy).toEqual({
      domain: "p",
      descriptor: one("plain"),
      name: groups[0][0].limits[0].name,
      windowMs: 60_000,
      shadow: false,
      decision: verdict(true).decisions[0],
      rule: groups[0][0].limits[0],
    });
    expect(outcomes[0].chargedAt).toBe(1234);
    expect(outcomes[1].chargedAt).toBeUndefined();
    expect(outcomes[1].policies[0]).toMatchObject({ quota: true, shadow: false });
  });

  it("sets on_limit when honoured, the delay, shadow, and the quota unit", () => {
    const request = [{ domain, descriptors: [one("slow"), one("quiet"), one("plain")], quotaUnit: "content-bytes" as const }];
    const { outcomes, byObject } = plan(request, { onLimit: true }, false, shardKey);
    const groups = [...byObject.values()];
    const three = (delayMs?: number): CounterVerdict => ({
      allowed: true,
      decisions: [0, 1, 2].map(() => verdict(true).decisions[0]),
      ...(delayMs === undefined ? {} : { delayMs }),
    });
    fold(outcomes, groups, [[three(150)], [verdict(true)], [verdict(true, { delayMs: 0 })]]);
    expect(outcomes[0].policies.map((p) => [p.onLimit, p.delayMs, p.quotaUnit])).toEqual([
      ["delay", 150, "content-bytes"],
      ["delay", 150, "content-bytes"],
      // The verdict's delay is the call's: every window of it reports it.
      [undefined, 150, "content-bytes"],
    ]);
    expect(outcomes[1].policies[0]).toMatchObject({ shadow: true });
    expect(outcomes[1].policies[0]).not.toHaveProperty("onLimit");
    expect(outcomes[2].policies[0]).not.toHaveProperty("delayMs");
    expect(outcomes[2].policies[0]).not.toHaveProperty("quota");
  });

  it("tells a concurrency limit's unit as concurrent requests", () => {
    const d = domainOf({ domain: "c", descriptors: [{ key: "k", rate_limits: [{ concurrency: 2 }, minute(5)] }] });
    const { outcomes, byObject } = plan(
      [{ domain: d, descriptors: [one("k")], quotaUnit: "content-bytes" }],
      { slot: { holder: "h", leaseMs: 1_000 } },
      false,
      shardKey,
    );
    const two: CounterVerdict = { allowed: true, decisions: [verdict(true).decisions[0], verdict(true).decisions[0]] };
    fold(outcomes, [...byObject.values()], [[two]]);
    expect(outcomes[0].policies.map((p) => p.quotaUnit)).toEqual(["concurrent-requests", "content-bytes"]);
  });
});

describe("toLimitCall", () => {
  it("sends persist_ms, strict and concurrency only when set", () => {
    const d = domainOf({
      domain: "t",
      descriptors: [
        { key: "a", rate_limit: { unit: "second", requests_per_unit: 2, algorithm: "token_bucket", burst: 4 } },
        { key: "c", rate_limit: { concurrency: 2 } },
        { key: "d", rate_limit: { unit: "minute", requests_per_unit: 2, durability: "strict" } },
        { key: "e", rate_limit: { unit: "minute", requests_per_unit: 2, persist_ms: 500 } },
      ],
    });
    const [a] = plan([{ domain: d, descriptors: [one("a")] }], {}, false, shardKey).outcomes[0].counter?.call.limits ?? [];
    expect(Object.keys(a).sort()).toEqual(["algorithm", "burst", "id", "limit", "windowMs"]);
    expect(a).toMatchObject({ algorithm: "token_bucket", limit: 2, windowMs: 1_000, burst: 4 });
    const slot = { holder: "h", leaseMs: 1_000 };
    const c = plan([{ domain: d, descriptors: [one("c")] }], { slot }, false, shardKey).outcomes[0].counter?.call;
    expect(c).toMatchObject({ slot, cost: 1 });
    expect(c?.limits[0].concurrency).toBe(true);
    const strict = plan([{ domain: d, descriptors: [one("d"), one("e")] }], {}, false, shardKey).outcomes.map((o) => o.counter?.call.limits[0]);
    expect([strict[0]?.strict, strict[0]?.persistMs, strict[1]?.strict, strict[1]?.persistMs]).toEqual([true, undefined, undefined, 500]);
  });
});
