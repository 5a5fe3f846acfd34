import { describe, expect, it } from "vitest";
import { matchDescriptor } from "../../src/rules/index.ts";
import { domainOf, errorsOf } from "./helpers.ts";

const doc = (rateLimit: Record<string, unknown>) => ({ domain: "t", descriptors: [{ key: "k", rate_limit: rateLimit }] });
const limitOf = (rateLimit: Record<string, unknown>) => matchDescriptor(domainOf(doc(rateLimit)), [{ key: "k", value: "v" }])!.limits[0];
const at = "$.descriptors[0].rate_limit";

describe("persist_ms and durability", () => {
  it("default to checkpoints every 1000 ms (nothing set on the compiled limit)", () => {
    const limit = limitOf({ unit: "minute", requests_per_unit: 5 });
    expect(limit.persistMs).toBeUndefined();
    expect(limit.strict).toBeUndefined();
    expect(limitOf({ unit: "minute", requests_per_unit: 5, persist_ms: 1000, durability: "checkpoint" })).toEqual(limit);
  });

  it("compile persist_ms and strict durability", () => {
    expect(limitOf({ unit: "hour", requests_per_unit: 5, persist_ms: 250 }).persistMs).toBe(250);
    expect(limitOf({ unit: "day", requests_per_unit: 5, durability: "strict" }).strict).toBe(true);
  });

  it("reject bad values with their path", () => {
    expect(errorsOf(doc({ unit: "minute", requests_per_unit: 5, persist_ms: 0 }))).toEqual([
      { path: `${at}.persist_ms`, message: "must be at least 1, got 0" },
    ]);
    expect(errorsOf(doc({ unit: "minute", requests_per_unit: 5, persist_ms: 60_001 }))).toEqual([
      { path: `${at}.persist_ms`, message: "must be at most 60000, got 60001" },
    ]);
    expect(errorsOf(doc({ unit: "minute", requests_per_unit: 5, persist_ms: "1s" }))).toEqual([
      { path: `${at}.persist_ms`, message: "expected an integer, got string" },
    ]);
    expect(errorsOf(doc({ unit: "minute", requests_per_unit: 5, durability: "strong" }))).toEqual([
      { path: `${at}.durability`, message: 'unknown durability "strong" (expected one of: checkpoint, strict)' },
    ]);
  });

  it("reject persist_ms with strict durability, and either on a window too short to store", () => {
    expect(errorsOf(doc({ unit: "day", requests_per_unit: 5, durability: "strict", persist_ms: 10 }))).toEqual([
      { path: `${at}.persist_ms`, message: '"persist_ms" does not apply with durability "strict": every change is written before its answer' },
    ]);
    expect(errorsOf(doc({ unit: "second", requests_per_unit: 5, unit_multiplier: 4, durability: "strict", persist_ms: 10 }))).toEqual(
      ["persist_ms", "durability"].map((key) => ({
        path: `${at}.${key}`,
        message: `"${key}" applies only to windows of 5 s or longer; shorter windows are kept in memory only and never stored`,
      })),
    );
  });

  it('apply to windows of 5 s and more, which are stored (docs/reliability.md, "Short windows")', () => {
    expect(limitOf({ unit: "second", requests_per_unit: 5, unit_multiplier: 5, durability: "strict" }).strict).toBe(true);
    expect(limitOf({ unit: "second", requests_per_unit: 2, unit_multiplier: 30, persist_ms: 250 }).persistMs).toBe(250);
  });

  it("must not be set on an unlimited rate limit", () => {
    expect(errorsOf(doc({ unlimited: true, durability: "strict" }))).toEqual([
      { path: `${at}.durability`, message: '"durability" must not be set when "unlimited" is true' },
    ]);
  });
});
