/**
 * PUT /__ratelimit/overrides warns of a wildcard a client can type its way
 * into (src/overrides/warnings.ts, docs/admin-api.md "Overrides"): an
 * override on `api_key=partner-*`, where a route reads `api_key` from a
 * header, hands any client sending `partner-anything` the override's limit
 * in place of the rules'. Exact values, `key=*` and values no client
 * writes (a verified claim) are stored without a warning.
 */
import { describe, expect, it } from "vitest";
import { OverridesOverlay } from "../../src/overrides/overlay.ts";
import { envoyApi } from "../support/envoy.ts";

const RULES = {
  domain: "ovw",
  jwt: { secret: "JWT_SECRET" },
  descriptors: [
    { key: "api_key", rate_limit: { unit: "minute", requests_per_unit: 60 } },
    { key: "user", rate_limit: { unit: "minute", requests_per_unit: 60 } },
    { key: "doc", rate_limit: { unit: "minute", requests_per_unit: 60 } },
  ],
  routes: [
    { match: { path: "/keys/*" }, descriptors: [[{ key: "api_key", header: "x-api-key" }], [{ key: "user", jwt_claim: "sub" }]] },
    { match: { path: "/body/*" }, descriptors: [[{ key: "doc", json_body: "owner.id" }]] },
  ],
};

let objects = 0;

function api() {
  const gateway = envoyApi(RULES, {}, { objectName: `overrides-warnings-${++objects}`, overlay: new OverridesOverlay() });
  return async (descriptor: string) => {
    const response = await gateway.admin("/__ratelimit/overrides", {
      method: "PUT",
      body: JSON.stringify({ domain: "ovw", descriptor, rate_limit: { unlimited: true } }),
      headers: { "content-type": "application/json" },
    });
    return { status: response.status, body: await response.json<any>() };
  };
}

describe("PUT /__ratelimit/overrides warnings", () => {
  // Break tried: overrideWarnings returning [] whatever the pattern: no warning for partner-*.
  it("warns of a wildcard on a value a client writes, naming where it comes from; stores it all the same", async () => {
    const put = api();
    const partner = await put("api_key=partner-*");
    expect(partner.status).toBe(200);
    expect(partner.body.override.descriptor).toBe("api_key=partner-*");
    expect(partner.body.warnings).toEqual([
      {
        path: "$.descriptor",
        message:
          'any client sending header "x-api-key" starting with "partner-" gets this override\'s limit in place of the rules\' limits of "api_key": ' +
          "the client chooses that value by typing it. Override exact values you issued, or key the tier on a verified claim (jwt_claim)",
      },
    ]);
    const body = await put("doc=team-*");
    expect(body.body.warnings?.[0]?.message).toContain('JSON body field "owner.id" starting with "team-"');
  });

  // Break tried: the wildcard test dropped (`!pattern.wildcard` removed): the exact api_key=acme warned too.
  it("stores an exact value, key=*, and a wildcard on a verified claim without a warning", async () => {
    const put = api();
    for (const descriptor of ["api_key=acme", "api_key=*", "user=acme-*"]) {
      const answer = await put(descriptor);
      expect(answer.status, descriptor).toBe(200);
      expect(answer.body.warnings, descriptor).toBeUndefined();
    }
  });
});
