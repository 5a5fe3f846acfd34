// The 429's body is built once per rule with a slot for the retry seconds (src/admission/quota-exceeded.ts): every
// answer must be byte for byte the body written whole, whatever changed since the last one on that rule.
import { describe, expect, it } from "vitest";
import { QUOTA_EXCEEDED_TYPE, tooManyRequests } from "../../src/admission/quota-exceeded.ts";
import { rateLimitHeaders, retryAfterSeconds } from "../../src/limiter/respond.ts";
import type { PolicyOutcome, RateLimitResult } from "../../src/limiter/types.ts";
import { ZERO_LIMIT } from "../../src/rules/facts.ts";
import type { HeaderDialect } from "../../src/http/header-dialect.ts";
import "../../src/limiter/kept.ts";
import type { LimitKept } from "../../src/rules/types.ts";

// A compiled limit carries a holder (`kept`, src/limiter/kept.ts) its 429's parts are kept in; a rule made by
// hand has none, and every 429 is then made whole. Both are tested: each case runs once per kind of rule.
function ruleOf(id: string, kept: boolean): object {
  return kept ? { id, kept: {} } : { id };
}

function refused(options: {
  rule: object;
  name: string;
  limit: number;
  retryAfterMs: number;
  keys?: string[];
  also?: string;
  concurrent?: boolean;
}): RateLimitResult {
  const { rule, name, limit, retryAfterMs } = options;
  const decision = { allowed: false, limit, remaining: 0, resetAfterMs: retryAfterMs, retryAfterMs, effectiveWindowMs: retryAfterMs };
  const descriptor = (options.keys ?? ["k"]).map((key) => ({ key, value: "v" }));
  const policy = {
    name,
    windowMs: 60_000,
    descriptor,
    shadow: false,
    decision,
    rule,
    ...(options.concurrent ? { quotaUnit: "concurrent-requests" } : {}),
  } as unknown as PolicyOutcome;
  const other = options.also ? [{ ...policy, name: options.also, rule: {}, decision: { ...decision, retryAfterMs: 1 } } as PolicyOutcome] : [];
  return { allowed: false, reason: "limited", limit, remaining: 0, resetAfterMs: retryAfterMs, retryAfterMs, policy, policies: [policy, ...other] };
}

// The body as it was written whole for every 429 before templates.
function wholeBody(result: RateLimitResult): string {
  const retry = retryAfterSeconds(result);
  const policy = result.policy!;
  const rate = policy.quotaUnit === "concurrent-requests" ? "requests in flight at once" : `requests per ${policy.windowMs / 1000} s`;
  const names = result.policies.filter((p) => !p.decision.allowed).map((p) => p.name);
  return JSON.stringify({
    type: QUOTA_EXCEEDED_TYPE,
    title: "Too Many Requests",
    status: 429,
    detail: `Rate limit exceeded for ${policy.name} (${policy.descriptor.map((e) => e.key).join(", ")}): ${result.limit} ${rate}; retry in ${retry} s.`,
    "violated-policies": [...new Set(names)],
    retry_after: retry,
    policy: policy.name,
    limit: result.limit,
    remaining: 0,
  });
}

for (const [what, kept] of [
  ["made by hand", false],
  ["compiled, with a holder", true],
] as const) {
  // Break tried: the template kept when only the limit changed (no `template.limit` check): the third case
  // answered limit 5 in place of 7 and failed; without the keys check, the fourth.
  describe(`429 body built once per rule (${what})`, () => {
    // Fresh holders for each test, the earlier 429s answered first: each test stands alone (Stryker runs only
    // the tests that cover a mutant) and still meets what the holder kept from the ones before it.
    const cases = (): [string, RateLimitResult][] => {
      const ruleA = ruleOf("a", kept);
      const ruleB = ruleOf("b", kept);
      return [
        ["first 429 of a rule", refused({ rule: ruleA, name: "a", limit: 5, retryAfterMs: 1_500 })],
        ["same rule, another retry", refused({ rule: ruleA, name: "a", limit: 5, retryAfterMs: 59_001 })],
        ["same rule, another limit", refused({ rule: ruleA, name: "a", limit: 7, retryAfterMs: 2_000 })],
        ["same rule, other descriptor keys", refused({ rule: ruleA, name: "a", limit: 7, retryAfterMs: 2_000, keys: ["k", "plan"] })],
        ["same rule, same number of other keys", refused({ rule: ruleA, name: "a", limit: 7, retryAfterMs: 2_000, keys: ["k", "tier"] })],
        ["same rule, two policies violated", refused({ rule: ruleA, name: "a", limit: 7, retryAfterMs: 9_000, keys: ["k", "tier"], also: "b" })],
        ["same rule, another policy violated", refused({ rule: ruleA, name: "a", limit: 7, retryAfterMs: 9_000, keys: ["k", "tier"], also: "c" })],
        ["another rule", refused({ rule: ruleB, name: "b", limit: 1, retryAfterMs: 3_600_000 })],
        ["a concurrency rule", refused({ rule: ruleB, name: "b", limit: 1, retryAfterMs: 1, concurrent: true })],
        ["a name that spells the slot", refused({ rule: ruleB, name: "x\u0001retry\u0001", limit: 1, retryAfterMs: 4_000, concurrent: true })],
        ["the rule again after that name", refused({ rule: ruleB, name: "b", limit: 1, retryAfterMs: 5_000, concurrent: true })],
        ["limit 0 (no retry ever)", refused({ rule: ruleOf("z", kept), name: "zero", limit: 0, retryAfterMs: Infinity })],
      ];
    };
    cases().forEach(([what], i) => {
      it(`${what}: the same bytes as the whole body, content type set once`, async () => {
        const all = cases();
        for (const [, earlier] of all.slice(0, i)) await tooManyRequests(earlier).text();
        const result = all[i][1];
        const response = tooManyRequests(result);
        expect(response.status).toBe(429);
        expect(response.headers.get("content-type")).toBe("application/problem+json");
        expect(await response.text()).toBe(wholeBody(result));
      });
    });

    it("the bytes, written out, of a 429 repeated on one rule with another retry", async () => {
      const rule = ruleOf("a", kept);
      await tooManyRequests(refused({ rule, name: "per-ip", limit: 5, retryAfterMs: 1_500 })).text();
      expect(await tooManyRequests(refused({ rule, name: "per-ip", limit: 5, retryAfterMs: 12_001, keys: ["ip"] })).text()).toBe(
        '{"type":"https://iana.org/assignments/http-problem-types#quota-exceeded","title":"Too Many Requests","status":429,' +
          '"detail":"Rate limit exceeded for per-ip (ip): 5 requests per 60 s; retry in 13 s.","violated-policies":["per-ip"],' +
          '"retry_after":13,"policy":"per-ip","limit":5,"remaining":0}',
      );
    });
  });

  // A rule's last 429 headers are kept and reused while the list is the same (src/admission/quota-exceeded.ts): every
  // answer must still carry exactly the headers made for it. Break tried: reuse when only the first pair's value matches;
  // the draft-6, draft-7 and draft-11 cases then answered an earlier Retry-After and failed.
  describe(`429 headers kept per rule (${what})`, () => {
    const ruleA = ruleOf("a", kept);
    const ruleB = ruleOf("b", kept);
    const sequence: RateLimitResult[] = [
      refused({ rule: ruleA, name: "a", limit: 5, retryAfterMs: 1_500 }),
      refused({ rule: ruleA, name: "a", limit: 5, retryAfterMs: 1_500 }),
      refused({ rule: ruleA, name: "a", limit: 5, retryAfterMs: 2_500 }),
      refused({ rule: ruleB, name: "b", limit: 1, retryAfterMs: 2_500 }),
      refused({ rule: ruleA, name: "a", limit: 6, retryAfterMs: 2_500 }),
      refused({ rule: ruleA, name: "a", limit: 6, retryAfterMs: 2_500, also: "b" }),
    ];
    const expected = (result: RateLimitResult, dialect: Parameters<typeof rateLimitHeaders>[1]) => [
      ...new Headers([...rateLimitHeaders(result, dialect), ["content-type", "application/problem+json"]]),
    ];
    for (const dialect of ["draft-6", "draft-7", "draft-11", "none"] as const) {
      it(`${dialect}: each 429 has its own headers, repeated and interleaved`, () => {
        for (const result of [...sequence, ...sequence]) expect([...tooManyRequests(result, dialect).headers]).toEqual(expected(result, dialect));
      });
    }

    it("a change to one 429's headers reaches no other", () => {
      tooManyRequests(sequence[0]).headers.set("x-added", "1");
      expect(tooManyRequests(sequence[1]).headers.has("x-added")).toBe(false);
    });
  });
}

// A 429 for one limit of 0 alone is made once per header dialect and kept with the limit (respond.ts, fixedRefusal):
// its decision is the rules' own ZERO_LIMIT, so no counter state changes it; a change to what it names makes it anew.
describe("429 of a limit of 0, kept per dialect", () => {
  function zero(rule: object, changes: { name?: string; windowMs?: number; keys?: string[]; concurrent?: boolean } = {}): RateLimitResult {
    const policy = {
      name: changes.name ?? "blocked",
      windowMs: changes.windowMs ?? 60_000,
      descriptor: (changes.keys ?? ["path"]).map((key) => ({ key, value: "v" })),
      shadow: false,
      decision: ZERO_LIMIT,
      rule,
      ...(changes.concurrent ? { quotaUnit: "concurrent-requests" } : {}),
    } as unknown as PolicyOutcome;
    return { allowed: false, reason: "limited", limit: 0, remaining: 0, resetAfterMs: 0, retryAfterMs: Infinity, policy, policies: [policy] };
  }
  const made = (result: RateLimitResult, dialect: HeaderDialect) => [
    ...new Headers([...rateLimitHeaders(result, dialect), ["content-type", "application/problem+json"]]),
  ];

  it("the bytes and headers, written out (draft-11), the same on a repeat, kept for that dialect only", async () => {
    const rule = { id: "z", kept: {} as LimitKept };
    for (let round = 0; round < 2; round++) {
      const response = tooManyRequests(zero(rule), "draft-11");
      expect(response.status).toBe(429);
      expect([...response.headers]).toEqual([
        ["content-type", "application/problem+json"],
        ["ratelimit", '"blocked";r=0;t=60'],
        ["ratelimit-policy", '"blocked";q=0;w=60'],
        ["retry-after", "60"],
        ["x-ratelimit-limit", "0"],
        ["x-ratelimit-remaining", "0"],
        ["x-ratelimit-reset", "60"],
        ["x-ratelimit-retry-after", "60"],
      ]);
      expect(await response.text()).toBe(
        '{"type":"https://iana.org/assignments/http-problem-types#quota-exceeded","title":"Too Many Requests","status":429,' +
          '"detail":"Rate limit exceeded for blocked (path): 0 requests per 60 s; retry in 60 s.","violated-policies":["blocked"],' +
          '"retry_after":60,"policy":"blocked","limit":0,"remaining":0}',
      );
    }
    expect(Object.keys(rule.kept.zero429 ?? {})).toEqual(["draft-11"]);
  });

  // Each differs from the plain refusal in one thing the kept answer was made for, or in one thing that makes
  // the answer not fixed: answered after the other on one holder, each must still get its own answer.
  // Break tried: the kept answer reused without comparing its keys (`sameKeys` left out): "keys of the same
  // count" answered "(path)" and failed; with `result.policies.length !== 1` left out, "two limits" did.
  const variants: [string, (rule: object) => RateLimitResult][] = [
    ["another name", (rule) => zero(rule, { name: "other" })],
    ["another window", (rule) => zero(rule, { windowMs: 30_000 })],
    ["more keys", (rule) => zero(rule, { keys: ["path", "ip"] })],
    ["keys of the same count", (rule) => zero(rule, { keys: ["host"] })],
    ["requests in flight", (rule) => zero(rule, { concurrent: true })],
    [
      "two limits",
      (rule) => {
        const r = zero(rule);
        return { ...r, policies: [r.policy!, { ...r.policy!, name: "second" }] };
      },
    ],
    ["queued", (rule) => ({ ...zero(rule), reason: "queued" })],
    ["a result limit of 3", (rule) => ({ ...zero(rule), limit: 3 })],
    ["a result remaining of 1", (rule) => ({ ...zero(rule), remaining: 1 })],
    ["a result reset of 5 s", (rule) => ({ ...zero(rule), resetAfterMs: 5_000 })],
    ["a result retry of 7 s", (rule) => ({ ...zero(rule), retryAfterMs: 7_000 })],
  ];
  for (const dialect of ["draft-6", "draft-7", "draft-11", "none"] as const) {
    for (const [what, variant] of variants) {
      it(`${dialect}: ${what}, before and after the plain refusal`, async () => {
        for (const order of [0, 1]) {
          const rule = { id: "z", kept: {} };
          const pair = order === 0 ? [zero(rule), variant(rule)] : [variant(rule), zero(rule)];
          for (const result of [...pair, ...pair]) {
            const response = tooManyRequests(result, dialect);
            expect([...response.headers]).toEqual(made(result, dialect));
            expect(await response.text()).toBe(wholeBody(result));
          }
        }
      });
    }
  }

  it("only the rules' own ZERO_LIMIT decision is kept: an equal copy is answered, not kept", async () => {
    const rule = { id: "z", kept: {} as LimitKept };
    const result = zero(rule);
    const copy = { ...result, policy: { ...result.policy!, decision: { ...ZERO_LIMIT } } };
    const response = tooManyRequests({ ...copy, policies: [copy.policy] }, "draft-11");
    expect(await response.text()).toBe(wholeBody(result));
    expect(rule.kept.zero429).toBeUndefined();
  });
});
