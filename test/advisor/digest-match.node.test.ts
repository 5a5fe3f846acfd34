/**
 * Matching digested sample values against proposed rules
 * (docs/advisor.md, "Replay"): exact values by their digest, key-only
 * nodes as ever, wildcards and address ranges undecidable.
 */
import { describe, expect, it } from "vitest";
import { digestValue, looksDigested } from "../../src/advisor/digest.ts";
import { digestDictionary, matchSampled } from "../../src/advisor/digest-match.ts";
import { compileOnce } from "../../src/rules/index.ts";

const domainOf = (rules: unknown) => {
  const domain = compileOnce(rules, "proposed")().domains.get("api");
  if (domain === undefined) throw new Error("no domain api");
  return domain;
};

describe("digestValue", () => {
  it("keeps a prefix of min(4, len/4) characters and the first 8 bytes of SHA-256 in hex", async () => {
    // SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
    expect(await digestValue("abc")).toBe("~ba7816bf8f01cfea");
    expect(await digestValue("customer-42")).toMatch(/^cu~[0-9a-f]{16}$/);
    expect(await digestValue("a-much-longer-secret-token")).toMatch(/^a-mu~[0-9a-f]{16}$/);
    expect(looksDigested(await digestValue("customer-42"))).toBe(true);
    expect(looksDigested("/v1/items")).toBe(false);
  });
});

describe("matchSampled", () => {
  const rules = {
    domain: "api",
    descriptors: [
      { key: "api_key", value: "vip-customer", rate_limit: { name: "vip", unit: "minute", requests_per_unit: 100 } },
      { key: "api_key", rate_limit: { name: "per-key", unit: "minute", requests_per_unit: 10 } },
      { key: "user", value: "bot-*", rate_limit: { name: "bots", unit: "minute", requests_per_unit: 1 } },
      { key: "user", rate_limit: { name: "users", unit: "minute", requests_per_unit: 5 } },
      { key: "remote_address", value: "10.0.0.0/8", rate_limit: { name: "office", unit: "minute", requests_per_unit: 5 } },
    ],
  };

  it("matches an exact rule value to its digest, and gives the entry back its raw value", async () => {
    const domain = domainOf(rules);
    const m = matchSampled(domain, await digestDictionary(domain), [{ key: "api_key", value: await digestValue("vip-customer") }]);
    expect(m.kind === "matched" && m.match?.limits.map((l) => l.name)).toEqual(["vip"]);
    expect(m.kind === "matched" && m.entries).toEqual([{ key: "api_key", value: "vip-customer" }]);
  });

  it("falls to the key-only node for any other digest", async () => {
    const domain = domainOf(rules);
    const m = matchSampled(domain, await digestDictionary(domain), [{ key: "api_key", value: await digestValue("someone-else") }]);
    expect(m.kind === "matched" && m.match?.limits.map((l) => l.name)).toEqual(["per-key"]);
  });

  it("reports a digest under a wildcard or an address range as undecidable", async () => {
    const domain = domainOf(rules);
    const dictionary = await digestDictionary(domain);
    for (const [key, value] of [
      ["user", "bot-17"],
      ["remote_address", "10.1.2.3"],
    ]) {
      const m = matchSampled(domain, dictionary, [{ key, value: await digestValue(value) }]);
      expect(m.kind).toBe("undecidable");
    }
  });

  it("matches raw values (path, method) as the live matcher does", async () => {
    const domain = domainOf({ domain: "api", descriptors: [{ key: "path", value: "/v1/*", rate_limit: { unit: "minute", requests_per_unit: 3 } }] });
    const m = matchSampled(domain, await digestDictionary(domain), [{ key: "path", value: "/v1/items" }]);
    expect(m.kind === "matched" && m.match?.limits.length).toBe(1);
  });
});
