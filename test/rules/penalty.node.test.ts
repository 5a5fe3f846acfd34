/**
 * `rate_limit.penalty`: what the compiler makes of it, the exact errors it
 * reports with their JSON paths, and rules.schema.json in step.
 */
import { describe, expect, it } from "vitest";
import schema from "../../rules.schema.json";
import { toLimitCall } from "../../src/limiter/calls.ts";
import { BOUNDS } from "../../src/rules/keys.ts";
import { domainOf, errorsOf } from "./helpers.ts";
import { validates } from "./mini-schema.ts";

const limited = (rateLimit: unknown) => ({ domain: "t", descriptors: [{ key: "k", rate_limit: rateLimit }] });
const RL = "$.descriptors[0].rate_limit";
const PL = `${RL}.penalty`;
const base = { unit: "second", requests_per_unit: 2 };
const withPenalty = (penalty: unknown, more: object = {}) => limited({ ...base, ...more, penalty });
const nodeOf = (input: unknown) => domainOf(input).root.keyOnly.get("k");

describe("penalty in rules.json", () => {
  it("compiles to milliseconds, onto the limit call, and keeps the node off leases and relays", () => {
    const node = nodeOf(withPenalty({ block_s: 900, escalate: 2, max_block_s: 86_400 }));
    expect(node?.limits[0].penalty).toEqual({ blockMs: 900_000, escalate: 2, maxBlockMs: 86_400_000 });
    expect(toLimitCall(node!.limits[0]).penalty).toEqual({ blockMs: 900_000, escalate: 2, maxBlockMs: 86_400_000 });
    expect(node?.facts).toMatchObject({ penalized: true, relayable: false });
    expect(nodeOf(limited(base))?.facts).toMatchObject({ relayable: true });
    expect(nodeOf(limited(base))?.facts?.penalized).toBeUndefined();
    expect(validates(schema, withPenalty({ block_s: 900, escalate: 2, max_block_s: 86_400 }))).toBe(true);
  });

  it("defaults escalate to 1 and max_block_s to a day, or block_s when longer", () => {
    expect(nodeOf(withPenalty({ block_s: 3 }))?.limits[0].penalty).toEqual({ blockMs: 3_000, escalate: 1, maxBlockMs: 86_400_000 });
    expect(nodeOf(withPenalty({ block_s: 100_000 }))?.limits[0].penalty).toEqual({ blockMs: 100_000_000, escalate: 1, maxBlockMs: 100_000_000 });
    expect(toLimitCall(nodeOf(limited(base))!.limits[0])).not.toHaveProperty("penalty");
  });

  it.each([
    [{}, PL, 'missing required key "block_s"'],
    [{ block_s: 0 }, `${PL}.block_s`, "must be at least 1, got 0"],
    [{ block_s: 1.5 }, `${PL}.block_s`, "expected an integer, got 1.5"],
    [{ block_s: "9" }, `${PL}.block_s`, "expected an integer, got string"],
    [{ block_s: BOUNDS.maxBlockS + 1 }, `${PL}.block_s`, `must be at most ${BOUNDS.maxBlockS}, got ${BOUNDS.maxBlockS + 1}`],
    [{ block_s: 9, escalate: 0 }, `${PL}.escalate`, "must be at least 1, got 0"],
    [{ block_s: 9, escalate: 1001 }, `${PL}.escalate`, "must be at most 1000, got 1001"],
    [{ block_s: 9, max_block_s: 8 }, `${PL}.max_block_s`, "must be at least block_s (9), got 8"],
    [{ block_s: 9, block: 1 }, `${PL}.block`, expect.stringContaining('unknown key "block"')],
  ])("rejects penalty %j with an exact error", (penalty, path, message) => {
    expect(errorsOf(withPenalty(penalty))).toEqual([{ path, message }]);
    // JSON Schema cannot compare two fields: max_block_s below block_s is the validator's alone.
    if (!path.endsWith("max_block_s")) expect(validates(schema, withPenalty(penalty))).toBe(false);
  });

  it("rejects a penalty that is not an object", () => {
    expect(errorsOf(withPenalty(900))).toEqual([{ path: PL, message: "expected an object, got number" }]);
  });

  it("cannot be combined with precount, on_limit delay or queue, concurrency or unlimited", () => {
    const p = { block_s: 9 };
    expect(errorsOf(withPenalty(p, { precount: { sync_ms: 100 } }))).toEqual([
      { path: PL, message: '"penalty" cannot be combined with "precount": a pre-counting isolate allows from its lease and never sees the block' },
    ]);
    expect(errorsOf(withPenalty(p, { on_limit: "queue" }))).toEqual([
      { path: PL, message: '"penalty" cannot be combined with on_limit "queue"; only "reject" can (a blocked key has no slot before its block ends)' },
    ]);
    expect(errorsOf(withPenalty(p, { on_limit: "delay", max_delay_ms: 10, algorithm: "gcra" }))).toEqual([
      { path: PL, message: '"penalty" cannot be combined with on_limit "delay"; only "reject" can (a blocked key has no slot before its block ends)' },
    ]);
    expect(errorsOf(limited({ concurrency: 2, penalty: p }))).toEqual([
      { path: PL, message: '"penalty" must not be set beside "concurrency" (a concurrency limit has no window or algorithm)' },
    ]);
    expect(errorsOf({ domain: "t", descriptors: [{ key: "k", rate_limits: [{ concurrency: 2 }, { ...base, penalty: p }] }] })).toEqual([
      { path: "$.descriptors[0].rate_limits", message: 'a concurrency limit cannot share a node with a limit that has a "penalty"' },
    ]);
    expect(errorsOf(limited({ unlimited: true, penalty: p }))).toEqual([{ path: PL, message: '"penalty" must not be set when "unlimited" is true' }]);
    for (const input of [
      withPenalty(p, { precount: { sync_ms: 100 } }),
      withPenalty(p, { on_limit: "queue" }),
      limited({ concurrency: 2, penalty: p }),
      limited({ unlimited: true, penalty: p }),
    ])
      expect(validates(schema, input)).toBe(false);
    expect(validates(schema, withPenalty(p, { on_limit: "reject", count_when: { status: [401] } }))).toBe(true);
  });
});
