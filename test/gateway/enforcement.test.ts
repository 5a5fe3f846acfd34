/**
 * Gradual and soft enforcement through the gateway (docs/rules.md, "Gradual
 * and soft enforcement"), with real counter objects and the metrics and
 * dashboard endpoints: enforce_percent 0 forwards every refusal tagged and
 * counts it, 100 refuses as before, an intermediate share refuses exactly
 * the keys whose hash bucket is below it; soft_percent forwards exactly
 * ⌊limit × (1 + N/100)⌋, sequentially and at once; a candidate's would-be
 * refusals are counted while the live limit decides alone.
 */
import { describe, expect, it } from "vitest";
import { counterKey, shardKeyFrom } from "../../src/durable/counters/placement.ts";
import { enforcementBucket } from "../../src/limiter/enforcement.ts";
import { testEnv } from "../support/app.ts";
import { d, envoyApi } from "../support/envoy.ts";

const suffix = `${Date.now()}`;
let n = 0;
const fresh = (what: string) => `${what}-${suffix}-${(n += 1)}`;

function rulesFor(domain: string, limit: Record<string, unknown>) {
  return {
    domain,
    descriptors: [{ key: "user", rate_limit: { name: "per-user", unit: "hour", requests_per_unit: 2, algorithm: "fixed_window", ...limit } }],
    routes: [{ match: { path: "/*" }, descriptors: [[{ key: "user", header: "x-user" }]] }],
  };
}

async function metricsText(api: ReturnType<typeof envoyApi>): Promise<string> {
  const res = await api.admin("/__ratelimit/metrics");
  expect(res.status).toBe(200);
  return res.text();
}

function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("enforce_percent", () => {
  it("0 forwards every refusal tagged not-enforced, again and again (never a cached block), and counts them as shadow ones", async () => {
    const domain = fresh("enf0");
    const api = envoyApi(rulesFor(domain, { enforce_percent: 0 }));
    const statuses: number[] = [];
    const tags: (string | null)[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await api.call("/x", { headers: { "x-user": "alice" } });
      statuses.push(res.status);
      tags.push(res.headers.get("X-RateLimit-Decision"));
      if (i >= 2) {
        expect(res.headers.get("X-RateLimit-Remaining")).toBe("0");
        expect(res.headers.get("Retry-After")).toBeNull();
        expect((await res.json<{ rate_limit: { reason: string } }>()).rate_limit.reason).toBe("not_enforced");
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    expect(tags).toEqual([null, null, "not-enforced", "not-enforced", "not-enforced", "not-enforced"]);
    const text = await metricsText(api);
    const labels = `domain="${domain}",descriptor="user",limit="per-user"`;
    expect(sample(text, "ratelimit_service_rate_limit_over_limit", labels)).toBe(4);
    expect(sample(text, "ratelimit_service_rate_limit_shadow_mode", labels)).toBe(4);
    expect(sample(text, "floodgate_enforcement_decisions_total", `${labels},decision="not-enforced"`)).toBe(4);
    const view = await (await api.admin("/__ratelimit/traffic")).json<any>();
    const policy = view.policies.find((p: any) => p.domain === domain);
    expect(policy.totals).toMatchObject({ allowed: 2, limited: 0, shadow_would_limit: 4 });
  });

  it("0 through the decision API: a not-enforced descriptor answers OK, an enforced one OVER_LIMIT", async () => {
    const domain = fresh("enf0-json");
    const api = envoyApi(rulesFor(domain, { enforce_percent: 0 }));
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) codes.push((await api.json({ domain, descriptors: [d(["user", "json"])] })).body.overallCode);
    expect(codes).toEqual(["OK", "OK", "OK"]);
    const enforcedApi = envoyApi(rulesFor(`${domain}-100`, {}));
    const enforcedCodes: string[] = [];
    for (let i = 0; i < 3; i++) enforcedCodes.push((await enforcedApi.json({ domain: `${domain}-100`, descriptors: [d(["user", "json"])] })).body.overallCode);
    expect(enforcedCodes).toEqual(["OK", "OK", "OVER_LIMIT"]);
  });

  it("100 (the default, written out) refuses as without it", async () => {
    const domain = fresh("enf100");
    const api = envoyApi(rulesFor(domain, { enforce_percent: 100 }));
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await api.call("/x", { headers: { "x-user": "bob" } })).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
    const over = await api.call("/x", { headers: { "x-user": "bob" } });
    expect(over.headers.get("X-RateLimit-Decision")).toBeNull();
    expect(over.headers.get("Retry-After")).not.toBeNull();
  });

  it("30 refuses exactly the keys whose counter-key bucket is below 30, and forwards the others", async () => {
    const domain = fresh("enf30");
    const api = envoyApi(rulesFor(domain, { enforce_percent: 30 }));
    const users = Array.from({ length: 40 }, (_, i) => `u${i}`);
    const refused: string[] = [];
    for (const user of users) {
      for (let i = 0; i < 2; i++) expect((await api.call("/x", { headers: { "x-user": user } })).status).toBe(200);
      const third = await api.call("/x", { headers: { "x-user": user } });
      if (third.status === 429) refused.push(user);
      else expect(third.headers.get("X-RateLimit-Decision")).toBe("not-enforced");
    }
    const expected = users.filter(
      (user) => enforcementBucket(counterKey(domain, [{ key: "user", value: user }]), shardKeyFrom(undefined, testEnv.COUNTERS)) < 30,
    );
    expect(refused).toEqual(expected);
    // Both kinds occur, so the split is tested, not just one side of it.
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(users.length);
  });
});

describe("soft_percent", () => {
  it("forwards up to ⌊limit × 1.5⌋ (4 → 6), the last two tagged soft with nothing remaining, then refuses", async () => {
    const domain = fresh("soft");
    const api = envoyApi(rulesFor(domain, { requests_per_unit: 4, soft_percent: 50 }));
    const seen: [number, string | null, string | null, string | null][] = [];
    for (let i = 0; i < 8; i++) {
      const res = await api.call("/x", { headers: { "x-user": "carol" } });
      seen.push([res.status, res.headers.get("X-RateLimit-Decision"), res.headers.get("X-RateLimit-Limit"), res.headers.get("X-RateLimit-Remaining")]);
    }
    expect(seen).toEqual([
      [200, null, "4", "3"],
      [200, null, "4", "2"],
      [200, null, "4", "1"],
      [200, null, "4", "0"],
      [200, "soft", "4", "0"],
      [200, "soft", "4", "0"],
      [429, null, "4", "0"],
      [429, null, "4", "0"],
    ]);
    const text = await metricsText(api);
    expect(sample(text, "floodgate_enforcement_decisions_total", `domain="${domain}",descriptor="user",limit="per-user",decision="soft"`)).toBe(2);
  });

  it("lets exactly ⌊limit × (1 + N/100)⌋ of many requests at once through (7 × 1.3 → 9 of 30)", async () => {
    const domain = fresh("soft-at-once");
    // A loaded machine's slow answer must not become a FAILURE_MODE=local decision (up to the limit per isolate): the fault is not under test here.
    const api = envoyApi(rulesFor(domain, { requests_per_unit: 7, soft_percent: 30 }), { DECISION_TIMEOUT_MS: "10000" });
    const answers = await Promise.all(Array.from({ length: 30 }, () => api.call("/x", { headers: { "x-user": "dave" } })));
    expect(answers.filter((res) => res.headers.get("X-RateLimit-Decision") === "local").length).toBe(0);
    const forwarded = answers.filter((res) => res.status === 200);
    expect(forwarded.length).toBe(9);
    expect(answers.filter((res) => res.status === 429).length).toBe(21);
    expect(forwarded.filter((res) => res.headers.get("X-RateLimit-Decision") === "soft").length).toBe(2);
  });
});

describe("candidate", () => {
  it("counts its would-be refusals in metrics and on the dashboard while the live limit alone decides", async () => {
    const domain = fresh("cand");
    const api = envoyApi(rulesFor(domain, { requests_per_unit: 3, candidate: { unit: "hour", requests_per_unit: 1, algorithm: "fixed_window" } }));
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await api.call("/x", { headers: { "x-user": "erin" } });
      statuses.push(res.status);
      // The candidate never shows in the client's headers.
      expect(res.headers.get("RateLimit-Policy") ?? "").not.toContain("candidate");
    }
    // The live limit of 3 took its hits although the candidate refused from the 2nd request on.
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const text = await metricsText(api);
    expect(sample(text, "floodgate_candidate_refusals_total", `domain="${domain}",descriptor="user",limit="per-user",candidate="per-user/candidate"`)).toBe(4);
    expect(sample(text, "ratelimit_service_rate_limit_over_limit", `domain="${domain}",descriptor="user",limit="per-user"`)).toBe(2);
    const view = await (await api.admin("/__ratelimit/traffic")).json<any>();
    expect(view.candidates.filter((c: any) => c.domain === domain)).toEqual([
      {
        domain,
        descriptor: "user",
        limit: "per-user",
        window_seconds: 3600,
        live_limited: 2,
        live_hits: 5,
        candidate: "per-user/candidate",
        candidate_window_seconds: 3600,
        candidate_would_limit: 4,
      },
    ]);
  });
});
