/**
 * What the compiler keeps on each node of the descriptor tree
 * (src/rules/descriptors.ts): Envoy's stat key per level (the metrics
 * endpoint labels series with it), `detailed_metric`, `shadow_mode`,
 * `quota_mode` and `share_threshold` only when set, the label a limit's
 * derived name is built from, an unlimited node's `replaces`, and where each
 * kind of value is indexed. Exact values, read off the compiled tree.
 */
import { describe, expect, it } from "vitest";
import type { CompiledNode, DescriptorLevel } from "../../src/rules/types.ts";
import { domainOf } from "./helpers.ts";

const minute = (n: number) => ({ unit: "minute", requests_per_unit: n });
const exact = (level: DescriptorLevel, key: string, value: string) => level.exact.get(`${key}\u0000${value}`) as CompiledNode;

const domain = domainOf({
  domain: "tree",
  descriptors: [
    {
      key: "message_type",
      value: "marketing",
      detailed_metric: true,
      descriptors: [
        { key: "to_number", rate_limit: minute(5), descriptors: [{ key: "hour", value: "h1", rate_limit: { name: "late", ...minute(2) } }] },
        { key: "from", value: "a*", shadow_mode: true, rate_limit: minute(3) },
      ],
    },
    { key: "client", value: "c*", share_threshold: true, quota_mode: true, rate_limit: minute(4) },
    { key: "free", rate_limit: { unlimited: true, replaces: [{ name: "late" }] } },
    { key: "remote_address", value: "10.0.0.0/8", rate_limit: minute(6) },
    { key: "plain", value: "v" },
  ],
});
const root = domain.root;

describe("compiled nodes", () => {
  it("keeps Envoy's stat key of every level: key or key_value, dot-joined", () => {
    const marketing = exact(root, "message_type", "marketing");
    const toNumber = marketing.children.keyOnly.get("to_number") as CompiledNode;
    expect([marketing.statKey, toNumber.statKey, exact(toNumber.children, "hour", "h1").statKey]).toEqual([
      "message_type_marketing",
      "message_type_marketing.to_number",
      "message_type_marketing.to_number.hour_h1",
    ]);
    expect(marketing.children.wildcards.get("from")?.[0].node.statKey).toBe("message_type_marketing.from_a*");
    expect(root.keyOnly.get("free")?.statKey).toBe("free");
  });

  it("names a limit by its node's label: every level's key=value, comma-joined, then the rate", () => {
    const toNumber = exact(root, "message_type", "marketing").children.keyOnly.get("to_number") as CompiledNode;
    expect(toNumber.limits.map((l) => l.name)).toEqual(["message_type=marketing,to_number:5/1m"]);
    expect(exact(toNumber.children, "hour", "h1").limits[0].name).toBe("late");
    expect(root.wildcards.get("client")?.[0].node.limits[0].name).toBe("client=c*:4/1m");
  });

  it("keeps detailed_metric and shadow_mode, false by default, and Envoy's modes only when set", () => {
    const marketing = exact(root, "message_type", "marketing");
    const from = marketing.children.wildcards.get("from")?.[0].node as CompiledNode;
    expect([marketing.detailedMetric, marketing.shadowMode, from.detailedMetric, from.shadowMode]).toEqual([true, false, false, true]);
    const client = root.wildcards.get("client")?.[0].node as CompiledNode;
    expect([client.quotaMode, client.shareThreshold]).toEqual([true, true]);
    expect(Object.keys(marketing)).not.toContain("quotaMode");
    expect(Object.keys(marketing)).not.toContain("shareThreshold");
    expect(Object.keys(marketing)).not.toContain("unlimitedReplaces");
    expect(Object.isFrozen(marketing)).toBe(true);
  });

  it("keeps what an unlimited node replaces, and a key-only node has no value", () => {
    const free = root.keyOnly.get("free") as CompiledNode;
    expect([free.unlimited, free.limits, free.unlimitedReplaces, Object.hasOwn(free, "value")]).toEqual([true, [], ["late"], false]);
    expect(exact(root, "plain", "v")).toMatchObject({ key: "plain", value: "v", limits: [], unlimited: false });
  });

  it("indexes exact values, wildcards, key-only nodes and ranges apart", () => {
    expect([...root.exact.keys()]).toEqual(["message_type\u0000marketing", "plain\u0000v"]);
    expect([...root.wildcards.keys()]).toEqual(["client"]);
    expect([...root.keyOnly.keys()]).toEqual(["free"]);
    expect(root.ranges?.lookup("10.1.2.3")?.limits[0].limit).toBe(6);
    expect(exact(root, "plain", "v").children.ranges).toBeUndefined();
    expect(Object.isFrozen(root)).toBe(true);
  });
});
