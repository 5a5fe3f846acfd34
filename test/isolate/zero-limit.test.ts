import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AlgorithmName } from "../../src/algorithms/types.ts";
import type { Env } from "../../src/config.ts";
import type { CounterVerdict } from "../../src/stored/wire-calls.ts";
import { EdgeRuntime } from "../../src/isolate/runtime.ts";
import { decide } from "../../src/limiter/decide.ts";
import { plan } from "../../src/limiter/plan.ts";
import { tooManyRequests } from "../../src/admission/quota-exceeded.ts";
import { HEADER_DIALECTS } from "../../src/http/header-dialect.ts";
import type { DomainDescriptors } from "../../src/rules/types.ts";
import { compiled } from "../support/app.ts";

const counters = (env as unknown as Env).COUNTERS;
const ALGORITHMS: AlgorithmName[] = ["token_bucket", "leaky_bucket", "fixed_window", "sliding_window_log", "sliding_window_counter", "gcra"];

function domainWith(name: string, limits: Record<string, unknown>[]) {
  const descriptors = limits.map((rate_limit, i) => ({ key: "user", value: `u${i}`, rate_limit }));
  return compiled({ domain: name, placement: "per_key", descriptors }).domains.get(name)!;
}

const request = (domain: ReturnType<typeof domainWith>, user: string): DomainDescriptors[] => [{ domain, descriptors: [[{ key: "user", value: user }]] }];
const ownerOf = (domain: string, user: string) => counters.getByName(`${domain}/key/${JSON.stringify([domain, ["user", user]])}`);

async function bodyAndHeaders(response: Response) {
  return { status: response.status, headers: [...response.headers], body: await response.text() };
}

// Break tried: routeOf without its `refused` branch (every call asked the object): the call counts and
// refusedByRules below failed; neverAllowed answering retryAfterMs 0: the verdict comparison failed;
// the once-made 429 (respond.ts, fixedRefusal) kept whatever the dialect: the 429 comparison failed.
describe("limit 0 answered from the rules (no object call)", () => {
  for (const algorithm of ALGORITHMS) {
    it(`${algorithm}: the verdict, result and 429 are the object's own, and the object is never called`, async () => {
      const name = `edge-zero-${algorithm}`;
      const domain = domainWith(name, [{ unit: "minute", requests_per_unit: 0, algorithm }]);
      const edge = new EdgeRuntime(counters);
      const results = [];
      for (let i = 0; i < 3; i++) results.push(await decide(edge, request(domain, "u0"), { timeoutMs: 1_000, defer: () => undefined }));
      expect(edge.stats.refusedByRules).toBe(3);
      expect((await ownerOf(name, "u0").stats()).calls).toBe(0);
      // What the object answers the same call (asked directly, as the edge used to).
      const planned = plan(request(domain, "u0"), {}, false, edge.shardKey).byObject.values().next().value![0];
      const [fromObject] = (await ownerOf(name, "u0").decide([planned.call])) as CounterVerdict[];
      expect(planned.refused).toEqual(fromObject);
      expect(results[0].allowed).toBe(false);
      expect(results[0].policies[0].decision).toEqual(fromObject.decisions[0]);
      // The 429 built from the object's verdict and from the rules' one (made once per rule and dialect):
      // same status, headers and body, in every dialect, however often and in whatever order asked.
      const viaObject = { ...results[0], policies: [{ ...results[0].policies[0], decision: fromObject.decisions[0] }] };
      viaObject.policy = viaObject.policies[0];
      for (const dialect of [...HEADER_DIALECTS, "draft-11" as const, ...HEADER_DIALECTS]) {
        for (const result of results)
          expect(await bodyAndHeaders(tooManyRequests(result, dialect))).toEqual(await bodyAndHeaders(tooManyRequests(viaObject, dialect)));
      }
      // A header set on one 429 (by a middleware after it) is on that one only.
      tooManyRequests(results[0]).headers.set("x-added", "1");
      expect(tooManyRequests(results[1]).headers.has("x-added")).toBe(false);
    });
  }

  it("a call with a limit above 0 beside the 0 still goes to the object (its remaining is the object's to tell)", async () => {
    const name = "edge-zero-mixed";
    const domain = compiled({
      domain: name,
      placement: "per_key",
      descriptors: [
        {
          key: "user",
          rate_limits: [
            { unit: "minute", requests_per_unit: 0 },
            { unit: "hour", requests_per_unit: 5 },
          ],
        },
      ],
    }).domains.get(name)!;
    const edge = new EdgeRuntime(counters);
    expect(plan(request(domain, "a"), {}, false, edge.shardKey).byObject.values().next().value![0].refused).toBeUndefined();
    const result = await decide(edge, request(domain, "a"), { timeoutMs: 1_000, defer: () => undefined });
    expect(result.allowed).toBe(false);
    expect(result.policies.map((p) => p.decision.remaining)).toEqual([0, 5]);
    expect(edge.stats.refusedByRules).toBe(0);
    expect((await ownerOf(name, "a").stats()).calls).toBe(1);
  });

  it("shadow mode: the limit-0 call is refused by the rules but the request passes, counted as shadow", async () => {
    const name = "edge-zero-shadow";
    const domain = domainWith(name, [{ unit: "second", requests_per_unit: 0 }]);
    const edge = new EdgeRuntime(counters);
    const result = await decide(edge, request(domain, "u0"), { timeoutMs: 1_000, shadowAll: true, defer: () => undefined });
    expect(result.allowed).toBe(true);
    expect(result.reason).toBe("shadow");
    expect(edge.stats.refusedByRules).toBe(1);
    expect((await ownerOf(name, "u0").stats()).calls).toBe(0);
  });
});
