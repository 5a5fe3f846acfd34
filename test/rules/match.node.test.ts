import { describe, expect, it } from "vitest";
import { applyReplaces, matchDescriptor } from "../../src/rules/index.ts";
import type { CompiledDomain, DescriptorEntry } from "../../src/rules/types.ts";
import { domainOf } from "./helpers.ts";

const rl = (requests_per_unit: number, extra: Record<string, unknown> = {}) => ({ unit: "second", requests_per_unit, ...extra });
const e = (key: string, value: string): DescriptorEntry => ({ key, value });
/** The requests_per_unit of each limit a descriptor matches, or undefined for no node. */
const limitsOf = (domain: CompiledDomain, ...entries: DescriptorEntry[]) => matchDescriptor(domain, entries)?.limits.map((l) => l.limit);

describe("matchDescriptor: most specific first", () => {
  const domain = domainOf({
    domain: "t",
    descriptors: [
      { key: "k", rate_limit: rl(3) },
      { key: "k", value: "a*", rate_limit: rl(2) },
      { key: "k", value: "ab*", rate_limit: rl(4) },
      { key: "k", value: "abc", rate_limit: rl(1) },
      { key: "other", value: "x", rate_limit: rl(5) },
    ],
  });

  it("prefers exact key+value, then wildcards in file order, then key only", () => {
    expect(limitsOf(domain, e("k", "abc"))).toEqual([1]);
    expect(limitsOf(domain, e("k", "abd"))).toEqual([2]); // "a*" comes before "ab*" in the file
    expect(limitsOf(domain, e("k", "zzz"))).toEqual([3]);
  });

  it("is case-sensitive in keys and values, as Envoy descriptors are", () => {
    expect(limitsOf(domain, e("k", "ABC"))).toEqual([3]);
    expect(limitsOf(domain, e("K", "abc"))).toBeUndefined();
  });

  it("returns undefined for an unknown key, an unlisted value without key-only node, or no entries", () => {
    expect(limitsOf(domain, e("nope", "x"))).toBeUndefined();
    expect(limitsOf(domain, e("other", "y"))).toBeUndefined();
    expect(matchDescriptor(domain, [])).toBeUndefined();
  });
});

describe("matchDescriptor: wildcards", () => {
  const domain = domainOf({
    domain: "t",
    descriptors: [
      { key: "prefix", value: "partner-*", rate_limit: rl(1) },
      { key: "suffix", value: "*-admin", rate_limit: rl(2) },
      { key: "middle", value: "/api/*/items", rate_limit: rl(3) },
      { key: "multi", value: "foo*bar*baz", rate_limit: rl(4) },
      { key: "any", value: "*", rate_limit: rl(5) },
      { key: "regex", value: "a.b(c)*", rate_limit: rl(6) },
    ],
  });

  it.each([
    ["prefix", "partner-acme", true],
    ["prefix", "partner-", true],
    ["prefix", "partne", false],
    ["prefix", "xpartner-a", false],
    ["suffix", "root-admin", true],
    ["suffix", "-admin", true],
    ["suffix", "root-admins", false],
    ["middle", "/api/v1/items", true],
    ["middle", "/api/a/b/items", true],
    ["middle", "/api//items", true],
    ["middle", "/api/items", false],
    ["multi", "foobarbaz", true],
    ["multi", "foo1bar2baz", true],
    ["multi", "foobaz", false],
    ["multi", "foobarbazbar", false],
    ["any", "", true],
    ["any", "anything at all", true],
    ["regex", "a.b(c)", true],
    ["regex", "a.b(c)d", true],
    ["regex", "axb(c)", false],
  ] as const)("%s matches %j: %s", (key, value, matches) => {
    expect(matchDescriptor(domain, [e(key, value)]) !== undefined).toBe(matches);
  });
});

describe("matchDescriptor: depth", () => {
  const domain = domainOf({
    domain: "t",
    descriptors: [
      { key: "a", rate_limit: rl(1), descriptors: [{ key: "b", rate_limit: rl(2), descriptors: [{ key: "c", value: "1", rate_limit: rl(3) }] }] },
      { key: "x", value: "1", descriptors: [{ key: "y", rate_limit: rl(4) }] },
      { key: "x", descriptors: [{ key: "z", rate_limit: rl(5) }] },
    ],
  });

  it("matches only a node at the same depth as the descriptor", () => {
    expect(limitsOf(domain, e("a", "v"))).toEqual([1]);
    expect(limitsOf(domain, e("a", "v"), e("b", "w"))).toEqual([2]);
    expect(limitsOf(domain, e("a", "v"), e("b", "w"), e("c", "1"))).toEqual([3]);
    expect(limitsOf(domain, e("a", "v"), e("b", "w"), e("c", "2"))).toBeUndefined();
    expect(limitsOf(domain, e("a", "v"), e("b", "w"), e("c", "1"), e("d", "1"))).toBeUndefined();
    expect(limitsOf(domain, e("b", "w"))).toBeUndefined();
  });

  it("gives an intermediate node without limits no limits", () => {
    const match = matchDescriptor(domain, [e("x", "1")]);
    expect(match?.limits).toEqual([]);
    expect(match?.unlimited).toBe(false);
  });

  it("does not backtrack from key+value to key only (Envoy)", () => {
    expect(limitsOf(domain, e("x", "1"), e("y", "q"))).toEqual([4]);
    expect(limitsOf(domain, e("x", "2"), e("z", "q"))).toEqual([5]);
    expect(limitsOf(domain, e("x", "1"), e("z", "q"))).toBeUndefined();
  });
});

describe("matchDescriptor: what a node enforces", () => {
  const domain = domainOf({
    domain: "t",
    descriptors: [
      { key: "ip", rate_limit: rl(60) },
      { key: "ip", value: "10.0.0.1" },
      { key: "ip", value: "10.0.0.2", rate_limit: { unlimited: true } },
      { key: "ip", value: "203.0.113.7", rate_limit: rl(0) },
      { key: "ip", value: "10.0.0.3", rate_limit: rl(5), shadow_mode: true },
      {
        key: "path",
        value: "/login",
        descriptors: [
          {
            key: "ip",
            rate_limits: [
              { unit: "second", requests_per_unit: 1, algorithm: "token_bucket", burst: 5 },
              { unit: "day", requests_per_unit: 100 },
            ],
          },
        ],
      },
    ],
  });

  it("whitelists a node with neither limits nor children", () => {
    expect(matchDescriptor(domain, [e("ip", "10.0.0.1")])).toMatchObject({ limits: [], unlimited: false });
    expect(limitsOf(domain, e("ip", "10.0.0.9"))).toEqual([60]);
  });

  it("marks an unlimited node", () => {
    expect(matchDescriptor(domain, [e("ip", "10.0.0.2")])).toMatchObject({ limits: [], unlimited: true });
  });

  it("compiles requests_per_unit 0 to a limit of 0 (always over limit)", () => {
    const [limit] = matchDescriptor(domain, [e("ip", "203.0.113.7")])!.limits;
    expect(limit).toMatchObject({ limit: 0, burst: 0, requestsPerUnit: 0, windowMs: 1000 });
  });

  it("carries shadow mode", () => {
    expect(matchDescriptor(domain, [e("ip", "10.0.0.3")])?.shadowMode).toBe(true);
    expect(matchDescriptor(domain, [e("ip", "10.0.0.9")])?.shadowMode).toBe(false);
  });

  it("returns every limit of rate_limits on a nested node", () => {
    const match = matchDescriptor(domain, [e("path", "/login"), e("ip", "192.0.2.1")]);
    expect(match?.limits.map((l) => [l.algorithm, l.limit, l.windowMs, l.burst])).toEqual([
      ["token_bucket", 1, 1000, 5],
      ["sliding_window_counter", 100, 86_400_000, 100],
    ]);
  });
});

describe("applyReplaces", () => {
  const domain = domainOf({
    domain: "t",
    descriptors: [
      { key: "ip", rate_limit: rl(60, { name: "per-ip" }) },
      { key: "key", value: "partner-*", rate_limit: rl(1000, { name: "partner", replaces: [{ name: "per-ip" }] }) },
      { key: "key", value: "vip", rate_limit: { unlimited: true, replaces: [{ name: "partner" }] } },
      { key: "key", rate_limit: rl(10, { name: "per-key" }) },
      { key: "anon", rate_limit: rl(7, { replaces: [{ name: "per-key" }] }) },
      { key: "multi", rate_limits: [rl(1, { name: "m1" }), { unit: "day", requests_per_unit: 9, name: "m2", replaces: [{ name: "m1" }] }] },
    ],
  });
  const m = (...entries: DescriptorEntry[]) => matchDescriptor(domain, entries);
  const names = (kept: ReturnType<typeof applyReplaces>) => kept.map((limits) => limits.map((l) => l.name));

  it("drops a named limit that another matched limit replaces", () => {
    expect(names(applyReplaces([m(e("ip", "1.2.3.4")), m(e("key", "partner-acme"))]))).toEqual([[], ["partner"]]);
  });

  it("keeps everything when nothing replaces", () => {
    expect(names(applyReplaces([m(e("ip", "1.2.3.4")), m(e("key", "k1"))]))).toEqual([["per-ip"], ["per-key"]]);
  });

  it("counts replaces of an unlimited limit (Envoy)", () => {
    expect(names(applyReplaces([m(e("key", "partner-x")), m(e("key", "vip"))]))).toEqual([[], []]);
  });

  it("lets an unnamed limit replace, and maps undefined matches to no limits", () => {
    expect(names(applyReplaces([m(e("key", "k1")), m(e("anon", "a")), undefined]))).toEqual([[], ["anon:7/1s"], []]);
  });

  it("applies between the limits of one node's rate_limits", () => {
    expect(names(applyReplaces([m(e("multi", "x"))]))).toEqual([["m2"]]);
  });

  it("never replaces by a derived name", () => {
    const d = domainOf({
      domain: "t",
      descriptors: [
        { key: "a", rate_limit: rl(1) },
        { key: "b", rate_limit: rl(2, { name: "a:1/1s" }) },
        { key: "c", rate_limit: rl(3, { replaces: [{ name: "a:1/1s" }] }) },
      ],
    });
    const kept = applyReplaces([matchDescriptor(d, [e("a", "x")]), matchDescriptor(d, [e("b", "x")]), matchDescriptor(d, [e("c", "x")])]);
    expect(kept.map((limits) => limits.length)).toEqual([1, 0, 1]);
  });
});
