/**
 * Which sampled values are kept raw (src/advisor/entry-sources.ts,
 * docs/advisor.md "Values are digests"): a position is raw only when every
 * route entry of the domain with the same keys reads a literal, the
 * method or the host, and a `path` value keeps only the segments the rules
 * name (the rest digested); a key given by a literal on one
 * route and by a header on another is digested wherever it comes from, in
 * either order of the routes, alone or beside other entries.
 */
import { describe, expect, it } from "vitest";
import { entryForms } from "../../src/advisor/entry-sources.ts";
import { compiledDomain, everyKeySampler, noLimitResult } from "./support.ts";

const SECRET = "sk_live_4f9a0c12b7e4d6a1";

const domainOf = (routes: unknown[]) =>
  compiledDomain({ domain: "mix", descriptors: [{ key: "api_key", rate_limit: { unit: "minute", requests_per_unit: 10 } }], routes });

const literal = {
  match: { path: "/public/*" },
  descriptors: [[{ key: "api_key", value: "public" }], [{ key: "method" }, { key: "api_key", value: "public" }]],
};
const header = {
  match: { path: "/private/*" },
  descriptors: [[{ key: "api_key", header: "x-api-key" }], [{ key: "method" }, { key: "api_key", header: "x-api-key" }]],
};

describe("values kept raw in the sample", () => {
  // Break tried: masksOf keeping the last route's mask (`was && shown[i]` → `shown[i]`): the literal-last order shows the secret.
  // Break tried: masksOf keeping the first route's mask (→ `was`): the literal-first order shows it.
  for (const [name, routes] of [
    ["literal first", [literal, header]],
    ["header first", [header, literal]],
  ] as const) {
    it(`a key a literal gives on one route and a header on another is digested (${name})`, async () => {
      const domain = domainOf([...routes]);
      expect(entryForms(domain, [{ key: "api_key", value: SECRET }])).toEqual(["digest"]);
      expect(
        entryForms(domain, [
          { key: "method", value: "GET" },
          { key: "api_key", value: SECRET },
        ]),
      ).toEqual(["raw", "digest"]);
      const sampler = everyKeySampler();
      sampler.record(noLimitResult("mix", [{ key: "api_key", value: SECRET }]), { domains: [{ domain, descriptors: [] }], route: () => "GET /private/*" });
      const text = JSON.stringify((await sampler.take())?.rows);
      expect(text).not.toContain("sk_live");
      expect(text).toContain("sk_l~");
    });
  }
});

describe("the route a row keeps", () => {
  // Break tried: heldRoute marking every segment shown (the raw canonical path, as before): the token is in the export.
  // Break tried: literalSegments keeping glob segments too: the same, for a route "/reset-password/tok_*".
  it("keeps the segments the routes name and digests the rest: no raw token of a path reaches the export", async () => {
    const domain = compiledDomain({
      domain: "paths",
      descriptors: [{ key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 10 } }],
      routes: [
        { match: { path: "/reset-password/*" }, descriptors: [[{ key: "remote_address" }]] },
        { match: { path: "/API/v1/tok_*" }, descriptors: [[{ key: "remote_address" }]] },
      ],
    });
    const sampler = everyKeySampler();
    const result = noLimitResult("paths", [{ key: "remote_address", value: "203.0.113.77" }]);
    for (const path of ["/reset-password/tok_supersecret_abcdef", "/api/v1/tok_other"])
      sampler.record(result, { domains: [{ domain, descriptors: [] }], route: () => `POST ${path}` });
    const routes = (await sampler.take())?.rows.map((row) => row.route);
    expect(routes?.[0]).toMatch(/^POST \/reset-password\/~[0-9a-f]{16}$/);
    expect(routes?.[1]).toMatch(/^POST \/api\/v1\/~[0-9a-f]{16}$/);
    expect(JSON.stringify(routes)).not.toContain("tok_");
  });
});

describe("a path entry a row keeps", () => {
  // Break tried: formOf giving "raw" for the path source (as before): the raw token is in the export.
  // Break tried: formsOf keeping the first route's form (a path route, then a header route of the same key): the header's value kept as a path.
  it("is the canonical path with the segments no rule names digested; a key a header gives on another route is digested whole", async () => {
    const domain = compiledDomain({
      domain: "paths",
      descriptors: [
        { key: "path", rate_limit: { unit: "minute", requests_per_unit: 10 } },
        { key: "path", value: "/login", rate_limit: { unit: "minute", requests_per_unit: 5 } },
      ],
      routes: [
        { match: { path: "/reset-password/*" }, descriptors: [[{ key: "path" }]] },
        { match: { path: "/*" }, descriptors: [[{ key: "path" }]] },
      ],
    });
    expect(entryForms(domain, [{ key: "path", value: "/x" }])).toEqual(["path"]);
    const sampler = everyKeySampler();
    const rowOf = (path: string) => noLimitResult("paths", [{ key: "path", value: path }]);
    for (const path of ["/reset-password/tok_supersecret_abcdef", "/login"])
      sampler.record(rowOf(path), { domains: [{ domain, descriptors: [] }], route: () => `POST ${path}` });
    const rows = (await sampler.take())?.rows ?? [];
    expect(rows.map((row) => row.descriptors[0].entries[0].value)).toEqual([expect.stringMatching(/^\/reset-password\/~[0-9a-f]{16}$/), "/login"]);
    expect(JSON.stringify(rows)).not.toContain("tok_");

    const mixed = compiledDomain({
      domain: "mixed",
      descriptors: [{ key: "path", rate_limit: { unit: "minute", requests_per_unit: 10 } }],
      routes: [
        { match: { path: "/a/*" }, descriptors: [[{ key: "path" }]] },
        { match: { path: "/b/*" }, descriptors: [[{ key: "path", header: "x-secret" }]] },
      ],
    });
    expect(entryForms(mixed, [{ key: "path", value: "sk_live_x" }])).toEqual(["digest"]);
  });
});
