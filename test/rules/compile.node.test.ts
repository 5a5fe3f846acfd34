import { describe, expect, it } from "vitest";
import { matchDescriptor } from "../../src/rules/index.ts";
import type { CompiledLimit, DescriptorEntry } from "../../src/rules/types.ts";
import { compileOk, domainOf } from "./helpers.ts";

const limitAt = (rateLimit: Record<string, unknown>, entries: DescriptorEntry[] = [{ key: "k", value: "v" }]): CompiledLimit => {
  const domain = domainOf({ domain: "t", descriptors: [{ key: "k", rate_limit: rateLimit }] });
  return matchDescriptor(domain, entries)!.limits[0];
};

describe("compiled limits", () => {
  it("applies the defaults: sliding_window_counter, burst = requests_per_unit, multiplier 1, reject", () => {
    expect(limitAt({ unit: "minute", requests_per_unit: 60 })).toEqual({
      limit: 60,
      windowMs: 60_000,
      burst: 60,
      id: "swc:60:60000:60",
      name: "k:60/1m",
      named: false,
      replaces: [],
      unit: "minute",
      unitMultiplier: 1,
      requestsPerUnit: 60,
      algorithm: "sliding_window_counter",
      onLimit: "reject",
    });
  });

  it("compiles every option", () => {
    expect(
      limitAt({
        name: "login",
        unit: "second",
        unit_multiplier: 10,
        requests_per_unit: 3,
        algorithm: "token_bucket",
        burst: 7,
        precount: { sync_ms: 100 },
        on_limit: "reject",
      }),
    ).toEqual({
      limit: 3,
      windowMs: 10_000,
      burst: 7,
      id: "tb:3:10000:7",
      name: "login",
      named: true,
      replaces: [],
      unit: "second",
      unitMultiplier: 10,
      requestsPerUnit: 3,
      algorithm: "token_bucket",
      precount: { syncMs: 100 },
      onLimit: "reject",
    });
  });

  it("defaults burst to requests_per_unit for burst algorithms too", () => {
    expect(limitAt({ unit: "hour", requests_per_unit: 9, algorithm: "gcra" })).toMatchObject({ burst: 9, id: "gcra:9:3600000:9" });
    expect(limitAt({ unit: "hour", requests_per_unit: 9, algorithm: "leaky_bucket", burst: 2 })).toMatchObject({ burst: 2, id: "lb:9:3600000:2" });
  });

  it.each([
    ["second", 1_000, "s"],
    ["minute", 60_000, "m"],
    ["hour", 3_600_000, "h"],
    ["day", 86_400_000, "d"],
    ["week", 604_800_000, "w"],
    ["month", 2_592_000_000, "mo"],
    ["year", 31_536_000_000, "y"],
  ] as const)("a %s is %i ms", (unit, ms, suffix) => {
    expect(limitAt({ unit, requests_per_unit: 1, unit_multiplier: 2 })).toMatchObject({ windowMs: 2 * ms, name: `k:1/2${suffix}` });
  });

  it("gives every algorithm a distinct id code", () => {
    const ids = ["token_bucket", "leaky_bucket", "fixed_window", "sliding_window_log", "sliding_window_counter", "gcra"].map(
      (algorithm) => limitAt({ unit: "second", requests_per_unit: 1, algorithm }).id,
    );
    expect(ids).toEqual(["tb:1:1000:1", "lb:1:1000:1", "fw:1:1000:1", "swl:1:1000:1", "swc:1:1000:1", "gcra:1:1000:1"]);
  });

  it("keeps the id when only the name or the place in the file changes", () => {
    const a = limitAt({ unit: "minute", requests_per_unit: 5 });
    const b = limitAt({ unit: "minute", requests_per_unit: 5, name: "renamed" });
    expect(a.id).toBe(b.id);
    expect(a.id).not.toBe(limitAt({ unit: "second", unit_multiplier: 60, requests_per_unit: 5, algorithm: "fixed_window" }).id);
  });

  it("derives readable names from the node path, safe inside a structured-field string", () => {
    const domain = domainOf({
      domain: "t",
      descriptors: [
        { key: "path", value: "/login", descriptors: [{ key: "remote_address", rate_limit: { unit: "second", requests_per_unit: 1 } }] },
        { key: "q", value: 'say "hi"\\ é', rate_limit: { unit: "day", requests_per_unit: 2 } },
      ],
    });
    const nested = matchDescriptor(domain, [
      { key: "path", value: "/login" },
      { key: "remote_address", value: "x" },
    ]);
    expect(nested?.limits[0].name).toBe("path=/login,remote_address:1/1s");
    const odd = matchDescriptor(domain, [{ key: "q", value: 'say "hi"\\ é' }]);
    expect(odd?.limits[0].name).toBe("q=say _hi__ _:2/1d");
  });

  it("records replaces names", () => {
    const domain = domainOf({
      domain: "t",
      descriptors: [
        { key: "a", rate_limit: { name: "x", unit: "second", requests_per_unit: 1 } },
        { key: "b", rate_limit: { replaces: [{ name: "x" }], unit: "second", requests_per_unit: 2 } },
      ],
    });
    expect(matchDescriptor(domain, [{ key: "b", value: "" }])?.limits[0].replaces).toEqual(["x"]);
  });

  it("keeps replaces of an unlimited node on the node", () => {
    const domain = domainOf({
      domain: "t",
      descriptors: [
        { key: "a", rate_limit: { name: "x", unit: "second", requests_per_unit: 1 } },
        { key: "b", rate_limit: { unlimited: true, replaces: [{ name: "x" }] } },
      ],
    });
    expect(matchDescriptor(domain, [{ key: "b", value: "1" }])?.node.unlimitedReplaces).toEqual(["x"]);
  });
});

describe("compiled tree", () => {
  it("applies domain defaults and keeps file order of domains", () => {
    const rules = compileOk([{ domain: "b" }, { domain: "a", placement: "per_key" }, { domain: "c", shards: 8 }]);
    expect([...rules.domains.keys()]).toEqual(["b", "a", "c"]);
    expect(rules.domains.get("b")).toMatchObject({ placement: "sharded", shards: 64, routes: [] });
    expect(rules.domains.get("a")?.placement).toBe("per_key");
    expect(rules.domains.get("c")?.shards).toBe(8);
  });

  it("indexes a level by exact value, wildcard and key only", () => {
    const domain = domainOf({ domain: "t", descriptors: [{ key: "k" }, { key: "k", value: "v" }, { key: "k", value: "v*" }] });
    expect([...domain.root.exact.keys()]).toEqual(["k\u0000v"]);
    expect(domain.root.wildcards.get("k")?.map((w) => w.node.value)).toEqual(["v*"]);
    expect(domain.root.keyOnly.get("k")?.value).toBeUndefined();
  });

  it("freezes what it builds", () => {
    const domain = domainOf({ domain: "t", descriptors: [{ key: "k", rate_limit: { unit: "second", requests_per_unit: 1 } }] });
    const node = domain.root.keyOnly.get("k")!;
    expect(Object.isFrozen(domain)).toBe(true);
    expect(Object.isFrozen(node)).toBe(true);
    expect(Object.isFrozen(node.limits)).toBe(true);
    expect(Object.isFrozen(node.limits[0])).toBe(true);
  });

  it("does not share state between compilations", () => {
    const input = { domain: "t", descriptors: [{ key: "k", rate_limit: { unit: "second", requests_per_unit: 1 } }] };
    expect(domainOf(input).root).not.toBe(domainOf(input).root);
  });
});
