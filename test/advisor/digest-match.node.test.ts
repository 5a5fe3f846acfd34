/**
 * Matching digested sample values against proposed rules
 * (docs/advisor.md, "Replay"): exact values by their digest, key-only
 * nodes as ever, wildcards and address ranges undecidable.
 */
import { describe, expect, it } from "vitest";
import { digestValue, looksDigested } from "../../src/advisor/digest.ts";
import { digestDictionary, matchSampled } from "../../src/advisor/digest-match.ts";
import { compileOnce } from "../../src/rules/index.ts";

/** The deployment's shard key the sample's digests are keyed with. */
const KEY = { k0: 0x0badc0de, k1: 0x5eed1e55 };

const domainOf = (rules: unknown) => {
  const domain = compileOnce(rules, "proposed")().domains.get("api");
  if (domain === undefined) throw new Error("no domain api");
  return domain;
};

describe("digestValue", () => {
  it("keeps a prefix of min(4, len/4) characters and 16 hex digits", async () => {
    expect(await digestValue("abc", KEY)).toMatch(/^~[0-9a-f]{16}$/);
    expect(await digestValue("customer-42", KEY)).toMatch(/^cu~[0-9a-f]{16}$/);
    expect(await digestValue("a-much-longer-secret-token", KEY)).toMatch(/^a-mu~[0-9a-f]{16}$/);
    expect(looksDigested(await digestValue("customer-42", KEY))).toBe(true);
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
    const m = matchSampled(domain, await digestDictionary(domain, KEY), [{ key: "api_key", value: await digestValue("vip-customer", KEY) }]);
    expect(m.kind === "matched" && m.match?.limits.map((l) => l.name)).toEqual(["vip"]);
    expect(m.kind === "matched" && m.entries).toEqual([{ key: "api_key", value: "vip-customer" }]);
  });

  it("falls to the key-only node for any other digest", async () => {
    const domain = domainOf(rules);
    const m = matchSampled(domain, await digestDictionary(domain, KEY), [{ key: "api_key", value: await digestValue("someone-else", KEY) }]);
    expect(m.kind === "matched" && m.match?.limits.map((l) => l.name)).toEqual(["per-key"]);
  });

  it("reports a digest under a wildcard or an address range as undecidable", async () => {
    const domain = domainOf(rules);
    const dictionary = await digestDictionary(domain, KEY);
    for (const [key, value] of [
      ["user", "bot-17"],
      ["remote_address", "10.1.2.3"],
    ]) {
      const m = matchSampled(domain, dictionary, [{ key, value: await digestValue(value, KEY) }]);
      expect(m.kind).toBe("undecidable");
    }
  });

  it("matches raw values (path, method) as the live matcher does", async () => {
    const domain = domainOf({ domain: "api", descriptors: [{ key: "path", value: "/v1/*", rate_limit: { unit: "minute", requests_per_unit: 3 } }] });
    const m = matchSampled(domain, await digestDictionary(domain, KEY), [{ key: "path", value: "/v1/items" }]);
    expect(m.kind === "matched" && m.match?.limits.length).toBe(1);
  });

  it("without the deployment's key matches a digest to no exact value: the key-only node decides", async () => {
    const domain = domainOf(rules);
    const m = matchSampled(domain, await digestDictionary(domain, undefined), [{ key: "api_key", value: await digestValue("vip-customer", KEY) }]);
    expect(m.kind === "matched" && m.match?.limits.map((l) => l.name)).toEqual(["per-key"]);
  });
});

describe("sampled paths with digested segments", () => {
  const paths = {
    domain: "api",
    descriptors: [
      { key: "path", value: "/reset-password/tok_known", rate_limit: { name: "known", unit: "minute", requests_per_unit: 1 } },
      { key: "path", value: "/v1/*", rate_limit: { name: "v1", unit: "minute", requests_per_unit: 2 } },
      { key: "path", value: "*.png", rate_limit: { name: "png", unit: "minute", requests_per_unit: 3 } },
      { key: "path", rate_limit: { name: "any", unit: "minute", requests_per_unit: 4 } },
    ],
  };
  const seg = async (s: string) => `~${(await digestValue(s, KEY)).split("~")[1]}`;

  // Break tried: rawPath returning undefined (segments never given back): the exact rule is missed, "any" decides.
  it("gives an exact rule's path back when each digested segment is its segment's digest", async () => {
    const domain = domainOf(paths);
    const m = matchSampled(domain, await digestDictionary(domain, KEY), [{ key: "path", value: `/reset-password/${await seg("tok_known")}` }]);
    expect(m.kind === "matched" && m.match?.limits.map((l) => l.name)).toEqual(["known"]);
    expect(m.kind === "matched" && m.entries).toEqual([{ key: "path", value: "/reset-password/tok_known" }]);
  });

  // Break tried: segmentAligned always false: /v1/<digest> undecidable, though "/v1/*" matches every such path.
  it("decides a wildcard whose stars span whole segments, and not one whose literal could fall inside a digested segment", async () => {
    const aligned = domainOf({ ...paths, descriptors: paths.descriptors.filter((d) => d.rate_limit.name !== "png") });
    const m = matchSampled(aligned, await digestDictionary(aligned, KEY), [{ key: "path", value: `/v1/${await seg("tok_other")}` }]);
    expect(m.kind === "matched" && m.match?.limits.map((l) => l.name)).toEqual(["v1"]);
    const domain = domainOf(paths);
    expect(matchSampled(domain, await digestDictionary(domain, KEY), [{ key: "path", value: `/img/${await seg("a.png")}` }]).kind).toBe("undecidable");
  });
});
