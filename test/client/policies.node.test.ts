/**
 * `rateLimitPolicies` (docs/client.md, "Reading each budget"): every
 * policy of an answer, its unit and what is left, from the gateway's own
 * headers and from hand-written ones.
 */
import { describe, expect, it } from "vitest";
import { rateLimitPolicies } from "../../src/client/index.ts";

describe("rateLimitPolicies", () => {
  it("joins RateLimit-Policy and RateLimit by name, with their units", () => {
    const headers = new Headers({
      "RateLimit-Policy": '"tokens-per-minute";q=100000;qu="tokens";w=60, "requests-per-minute";q=600;w=60, "a\\"b";q=1',
      RateLimit: '"requests-per-minute";r=599;t=60, "tokens-per-minute";r=2500;t=17',
    });
    expect(rateLimitPolicies(headers)).toEqual([
      { name: "tokens-per-minute", quota: 100000, unit: "tokens", windowSeconds: 60, remaining: 2500, resetSeconds: 17 },
      { name: "requests-per-minute", quota: 600, unit: "requests", windowSeconds: 60, remaining: 599, resetSeconds: 60 },
      { name: 'a"b', quota: 1, unit: "requests" },
    ]);
  });

  it("is empty without the fields, or with a malformed list", () => {
    expect(rateLimitPolicies(new Headers())).toEqual([]);
    expect(rateLimitPolicies(new Headers({ "RateLimit-Policy": "junk" }))).toEqual([]);
  });
});
