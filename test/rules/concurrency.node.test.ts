/**
 * `rate_limit: { concurrency: N }`: what the compiler makes of it, the
 * errors it reports with their JSON paths, and rules.schema.json in step.
 */
import { describe, expect, it } from "vitest";
import schema from "../../rules.schema.json";
import { NOT_WITH_CONCURRENCY } from "../../src/rules/concurrency.ts";
import { BOUNDS } from "../../src/rules/keys.ts";
import { domainOf, errorsOf } from "./helpers.ts";
import { validates } from "./mini-schema.ts";

const limited = (rateLimit: unknown) => ({ domain: "t", descriptors: [{ key: "k", rate_limit: rateLimit }] });
const RL = "$.descriptors[0].rate_limit";
const beside = (key: string) => `"${key}" must not be set beside "concurrency" (a concurrency limit has no window or algorithm)`;
const SAMPLE: Record<(typeof NOT_WITH_CONCURRENCY)[number], unknown> = {
  unit: "second",
  requests_per_unit: 1,
  unit_multiplier: 2,
  algorithm: "gcra",
  burst: 3,
  persist_ms: 100,
  durability: "strict",
  precount: { sync_ms: 50 },
  on_limit: "reject",
  max_delay_ms: 10,
  count_when: { status: [401] },
  max_queue_age_s: 60,
  max_queue_backlog: 5,
  queue_credentials: true,
  penalty: { block_s: 60 },
};

describe("concurrency limits in rules.json", () => {
  it("compiles to a named limit of N slots, and derives a name when none is given", () => {
    const named = domainOf(limited({ concurrency: 5, name: "five" })).root.keyOnly.get("k")?.limits[0];
    expect(named).toMatchObject({ concurrency: 5, limit: 5, name: "five", named: true, onLimit: "reject" });
    const derived = domainOf(limited({ concurrency: 3 })).root.keyOnly.get("k")?.limits[0];
    expect(derived?.name).toBe("k:3/in-flight");
    expect(validates(schema, limited({ concurrency: 5, name: "five", replaces: [{ name: "other" }] }))).toBe(true);
  });

  it("sits beside rate windows of the same node", () => {
    const input = { domain: "t", descriptors: [{ key: "k", rate_limits: [{ concurrency: 2 }, { unit: "minute", requests_per_unit: 60 }] }] };
    expect(
      domainOf(input)
        .root.keyOnly.get("k")
        ?.limits.map((l) => l.concurrency ?? l.requestsPerUnit),
    ).toEqual([2, 60]);
    expect(validates(schema, input)).toBe(true);
  });

  it.each([
    ["0", 0, "must be at least 1, got 0"],
    ["too large", BOUNDS.maxCount + 1, `must be at most ${BOUNDS.maxCount}, got ${BOUNDS.maxCount + 1}`],
    ["fractional", 1.5, "expected an integer, got 1.5"],
    ["a string", "5", "expected an integer, got string"],
  ])("rejects concurrency %s at its path", (_name, value, message) => {
    const input = limited({ concurrency: value });
    expect(errorsOf(input)).toEqual([{ path: `${RL}.concurrency`, message }]);
    expect(validates(schema, input)).toBe(false);
  });

  it.each(NOT_WITH_CONCURRENCY.map((key) => [key]))("rejects %s beside concurrency", (key) => {
    const input = limited({ concurrency: 2, [key]: SAMPLE[key] });
    expect(errorsOf(input)).toEqual([{ path: `${RL}.${key}`, message: beside(key) }]);
    expect(validates(schema, input)).toBe(false);
  });

  it("rejects concurrency beside unlimited", () => {
    const input = limited({ unlimited: true, concurrency: 2 });
    expect(errorsOf(input)).toEqual([{ path: `${RL}.concurrency`, message: '"concurrency" must not be set when "unlimited" is true' }]);
    expect(validates(schema, input)).toBe(false);
  });

  it("still requires unit and requests_per_unit of a limit without concurrency", () => {
    const input = limited({ name: "x" });
    expect(errorsOf(input).map((e) => e.message)).toEqual(['missing required key "unit"', 'missing required key "requests_per_unit"']);
    expect(validates(schema, input)).toBe(false);
  });

  it.each(["delay", "queue"])("rejects a node holding concurrency and an on_limit %s limit", (action) => {
    const delayed = action === "delay" ? { algorithm: "gcra", max_delay_ms: 100 } : {};
    const input = {
      domain: "t",
      descriptors: [{ key: "k", rate_limits: [{ concurrency: 2 }, { unit: "second", requests_per_unit: 5, on_limit: action, ...delayed }] }],
    };
    expect(errorsOf(input)).toEqual([
      {
        path: "$.descriptors[0].rate_limits",
        message: `a concurrency limit cannot share a node with on_limit "${action}" limits (a request takes its slot now, not later)`,
      },
    ]);
  });
});
