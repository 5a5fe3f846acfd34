// Envoy's quota_mode and share_threshold (docs/rules.md): validation,
// what matching hands the limiter, and the quota rule of summarize checked
// against envoyproxy/ratelimit's rule as an oracle.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import schema from "../../rules.schema.json";
import type { Decision } from "../../src/algorithms/types.ts";
import { listedPolicies } from "../../src/limiter/headers/order.ts";
import { summarize } from "../../src/limiter/summarize.ts";
import type { PolicyOutcome } from "../../src/limiter/types.ts";
import { matchDescriptor } from "../../src/rules/index.ts";
import type { DescriptorEntry } from "../../src/rules/types.ts";
import { domainOf, errorsOf } from "./helpers.ts";
import { validates } from "./mini-schema.ts";

const rl = { unit: "minute", requests_per_unit: 10 };
const e = (key: string, value: string): DescriptorEntry => ({ key, value });
const NEEDS_MANY = 'only applies to a wildcard value (containing "*") or an address range';

describe("validation", () => {
  it.each([
    [{ key: "files", value: "files", share_threshold: true, rate_limit: rl }, `${NEEDS_MANY}; "files" matches one value`],
    [{ key: "remote_address", value: "192.0.2.1", share_threshold: true, rate_limit: rl }, `${NEEDS_MANY}; "192.0.2.1" matches one value`],
    [{ key: "files", share_threshold: true, rate_limit: rl }, `${NEEDS_MANY}; this node has no "value"`],
  ])("rejects share_threshold on a node that matches one value: %o", (node, message) => {
    expect(errorsOf({ domain: "t", descriptors: [node] })).toEqual([{ path: "$.descriptors[0].share_threshold", message }]);
  });

  it("wants booleans", () => {
    expect(errorsOf({ domain: "t", descriptors: [{ key: "k", quota_mode: "yes", share_threshold: 1 }] })).toEqual([
      { path: "$.descriptors[0].quota_mode", message: "expected a boolean, got string" },
      { path: "$.descriptors[0].share_threshold", message: "expected a boolean, got number" },
    ]);
  });

  it("accepts both, also in rules.schema.json", () => {
    const rules = {
      domain: "t",
      descriptors: [
        { key: "files", value: "files/*", share_threshold: true, rate_limit: rl },
        { key: "remote_address", value: "198.18.0.0/15", share_threshold: true, rate_limit: rl },
        { key: "service", value: "a", quota_mode: true, rate_limit: rl },
      ],
    };
    expect(domainOf(rules).root.exact.size).toBe(1);
    expect(validates(schema, rules)).toBe(true);
  });
});

describe("matching", () => {
  const domain = domainOf({
    domain: "t",
    descriptors: [
      { key: "files", value: "files/*", share_threshold: true, rate_limit: rl },
      { key: "own", value: "own/*", rate_limit: rl },
      { key: "route", value: "api/*", share_threshold: true, descriptors: [{ key: "method", rate_limit: rl }] },
      { key: "remote_address", value: "198.18.0.0/15", share_threshold: true, rate_limit: rl },
      { key: "service", value: "a", quota_mode: true, rate_limit: rl },
    ],
  });

  it("names a shared counter by the pattern, at any depth above the limit", () => {
    expect(matchDescriptor(domain, [e("files", "files/a.pdf")])?.counterEntries).toEqual([e("files", "files/*")]);
    expect(matchDescriptor(domain, [e("route", "api/v1"), e("method", "GET")])?.counterEntries).toEqual([e("route", "api/*"), e("method", "GET")]);
    expect(matchDescriptor(domain, [e("remote_address", "198.19.4.5")])?.counterEntries).toEqual([e("remote_address", "198.18.0.0/15")]);
  });

  it("keeps each value's own counter without share_threshold", () => {
    expect(matchDescriptor(domain, [e("own", "own/a")])?.counterEntries).toBeUndefined();
    expect(matchDescriptor(domain, [e("service", "a")])?.counterEntries).toBeUndefined();
  });

  it("marks quota_mode matches", () => {
    expect(matchDescriptor(domain, [e("service", "a")])?.quotaMode).toBe(true);
    expect(matchDescriptor(domain, [e("own", "own/a")])?.quotaMode).toBeUndefined();
  });
});

describe("summarize with quota_mode", () => {
  const decision = (allowed: boolean): Decision => ({
    allowed,
    limit: 10,
    remaining: allowed ? 1 : 0,
    resetAfterMs: 1000,
    retryAfterMs: allowed ? 0 : 500,
    effectiveWindowMs: 1000,
  });
  const policy = (descriptor: readonly DescriptorEntry[], quota: boolean, allowed: boolean, shadow: boolean): PolicyOutcome => ({
    domain: "t",
    descriptor,
    name: "n",
    windowMs: 60_000,
    shadow,
    decision: decision(allowed),
    ...(quota ? { quota: true } : {}),
  });

  it("refuses only when a plain descriptor is over or every quota descriptor is (Envoy's rule)", () => {
    // Each descriptor: quota mode, shadow mode, and each of its limits' verdicts.
    const descriptor = fc.record({ quota: fc.boolean(), shadow: fc.boolean(), allowed: fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }) });
    fc.assert(
      fc.property(fc.array(descriptor, { minLength: 1, maxLength: 6 }), (descriptors) => {
        // The limits of one descriptor share its entries (the engine hands each descriptor's one array to all its limits).
        const policies = descriptors.flatMap((d, i) => {
          const entries = [e("k", String(i))];
          return d.allowed.map((allowed) => policy(entries, d.quota, allowed, d.shadow));
        });
        const over = (d: (typeof descriptors)[number]) => !d.shadow && d.allowed.includes(false);
        const quota = descriptors.filter((d) => d.quota);
        const expected = !descriptors.some((d) => !d.quota && over(d)) && !(quota.length > 0 && quota.every(over));
        const result = summarize(policies);
        expect(result.allowed).toBe(expected);
        // The reported policy is the one the headers list first, admitted or not.
        if (policies.some((p) => !p.shadow)) expect(listedPolicies(result)[0]).toBe(result.policy);
      }),
    );
  });
});
