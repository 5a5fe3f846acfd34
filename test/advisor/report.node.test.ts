/**
 * The report and the advice (docs/advisor.md, "Replay" and "Advice"):
 * only sampled descriptors replayed, undecidable ones counted apart,
 * `replaces` across a row's descriptors, the per-key peak, the
 * percentile, and the legitimate/abusive criterion.
 */
import { describe, expect, it } from "vitest";
import { ABUSE_FACTOR, adviseLimit, type KeyArrivals, peakPerWindow, percentile } from "../../src/advisor/advice.ts";
import { digestValue } from "../../src/advisor/digest.ts";
import { parseSample } from "../../src/advisor/sample-row.ts";
import { whatIf } from "../../src/advisor/what-if.ts";
import { compileOnce } from "../../src/rules/index.ts";
import { keyRows, keyRules, ROWS_KEY, row } from "./rows.ts";

const rules = (doc: unknown) => compileOnce(doc, "rules")();
const arrivals = (times: number[], refusals = 0): KeyArrivals => ({ times, costs: times.map(() => 1), refusals });

describe("advice", () => {
  it("the peak is the most hits within any window, refused requests included", () => {
    // Windows are (t - W, t]: 0 has left the window of 1000, 10 that of 1010.
    expect(peakPerWindow(arrivals([0, 10, 999, 1000, 1010]), 1000)).toBe(3);
    expect(peakPerWindow(arrivals([0, 10, 999, 1000, 1009]), 1000)).toBe(4);
    expect(peakPerWindow({ times: [0, 500], costs: [3, 4], refusals: 0 }, 1000)).toBe(7);
    expect(peakPerWindow(arrivals([0, 1000, 2000]), 1000)).toBe(1);
  });

  it("nearest-rank percentiles", () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile([7], 99)).toBe(7);
  });

  it("a refused key is abusive only when its busiest window asked for more than twice the limit", () => {
    const keys = new Map([
      ["at-twice", arrivals([0, 1, 2, 3], 2)],
      ["over-twice", arrivals([0, 1, 2, 3, 4], 3)],
      ["never-refused", arrivals([0])],
    ]);
    const advice = adviseLimit(keys, 2, 1000, 5);
    expect(ABUSE_FACTOR).toBe(2);
    expect(advice).toMatchObject({ keys: 3, keys_hit_pct: 66.67, legitimate_refused: 1, abusive_refused: 1, never_fires: false });
    expect(advice.suggested_limit).toEqual({ percentile: 99, value: 5, keys: 3 });
    expect(adviseLimit(new Map([["k", arrivals([0])]]), 2, 1000, 0).never_fires).toBe(true);
  });
});

describe("the report", () => {
  it("replays only sampled descriptors, and counts the rest apart", async () => {
    const rows = await keyRows([
      { t: 0, key: "alice-key" },
      { t: 1, key: "alice-key", sampled: false },
      { t: 2, key: "alice-key" },
    ]);
    const tight = rules(keyRules({ unit: "minute", requests_per_unit: 1 }));
    const report = await whatIf(tight, tight, rows, ROWS_KEY);
    expect(report.replayed).toBe(2);
    expect(report.not_sampled).toBe(1);
    // Had the unsampled row been counted, the third would still be refused, but the limit would show 3 requests and 2 refusals.
    expect(report.limits[0]).toMatchObject({ requests: 2, refusals: 1, keys_refused: 1 });
  });

  it("a wildcard against a digest is undecidable and left out; an exact value matches its digest", async () => {
    const proposed = rules({
      domain: "api",
      descriptors: [
        { key: "api_key", value: "partner-*", rate_limit: { name: "partner", unit: "minute", requests_per_unit: 1 } },
        { key: "api_key", value: "vip", rate_limit: { name: "vip", unit: "minute", requests_per_unit: 1 } },
      ],
    });
    const rows = await keyRows([
      { t: 0, key: "partner-1" },
      { t: 1, key: "vip" },
      { t: 2, key: "vip" },
    ]);
    const report = await whatIf(proposed, proposed, rows, ROWS_KEY);
    expect(report.undecidable).toEqual([{ reason: expect.stringContaining('"api_key" is digested'), count: 1 }]);
    expect(report.limits.find((l) => l.name === "vip")).toMatchObject({ requests: 2, refusals: 1 });
    expect(report.limits.find((l) => l.name === "partner")).toMatchObject({ requests: 0 });
  });

  it("`replaces` looks at every descriptor of the row, sampled or not", async () => {
    const proposed = rules({
      domain: "api",
      descriptors: [
        { key: "ip", rate_limit: { name: "per-ip", unit: "minute", requests_per_unit: 1 } },
        { key: "plan", value: "gold", rate_limit: { name: "gold", replaces: [{ name: "per-ip" }], unit: "minute", requests_per_unit: 100 } },
      ],
    });
    const ip = { entries: [{ key: "ip", value: await digestValue("192.0.2.1", ROWS_KEY) }], sampled: true, limit: null, allowed: true };
    const gold = { entries: [{ key: "plan", value: "gold" }], sampled: false, limit: null, allowed: true };
    const rows = [row("api", 0, 1, [ip, gold]), row("api", 1, 1, [ip, gold]), row("api", 2, 1, [ip])];
    const report = await whatIf(proposed, proposed, rows, ROWS_KEY);
    // per-ip decided only the third row (the others were replaced by gold's limit): one request, none refused.
    expect(report.limits.find((l) => l.name === "per-ip")).toMatchObject({ requests: 1, refusals: 0 });
  });

  it("lists limits in force that the proposed rules drop, and the change per limit", async () => {
    const inForce = rules({
      domain: "api",
      descriptors: [
        { key: "api_key", rate_limit: { name: "per-key", unit: "minute", requests_per_unit: 1 } },
        { key: "user", rate_limit: { name: "per-user", unit: "minute", requests_per_unit: 1 } },
      ],
    });
    const proposed = rules(keyRules({ unit: "minute", requests_per_unit: 3 }));
    const rows = await keyRows([0, 1, 2, 3].map((t) => ({ t, key: "alice-key", allowed: t === 0 })));
    const report = await whatIf(proposed, inForce, rows, ROWS_KEY);
    expect(report.reproduced).toEqual({ matching: 4, of: 4 });
    expect(report.limits[0]).toMatchObject({ name: "per-key", refusals: 1, refusals_change: -2, in_force: { refusals: 3 } });
    expect(report.newly_allowed).toBe(2);
    expect(report.dropped).toEqual([{ domain: "api", name: "per-user", requests: 0, refusals: 0, refused_pct: 0, keys_refused: 0 }]);
  });

  // Break tried: replay using the dictionary for every row version: the format 1 row matches "vip" too.
  it("matches a rule's exact value to rows of format 2 only: format 1 rows held unkeyed digests", async () => {
    const vip = rules({
      domain: "api",
      descriptors: [
        { key: "api_key", rate_limit: { name: "per-key", unit: "minute", requests_per_unit: 1 } },
        { key: "api_key", value: "vip-key", rate_limit: { name: "vip", unit: "minute", requests_per_unit: 100 } },
      ],
    });
    const [current, old] = await keyRows([
      { t: 0, key: "vip-key" },
      { t: 1, key: "vip-key" },
    ]);
    const report = await whatIf(vip, vip, [current, { ...old, v: 1 }], ROWS_KEY);
    expect(report.limits.map((l) => [l.name, l.requests])).toEqual([
      ["vip", 1],
      ["per-key", 1],
    ]);
    expect(parseSample(JSON.stringify({ ...old, v: 1 })).ok).toBe(true);
  });

  it("sample rows are read in clock order, and a bad row is named by its line", () => {
    const text = [
      '{"v":1,"t":5,"domain":"api","route":"GET /","cost":1,"decision":"allowed","descriptors":[]}',
      "",
      '{"v":1,"t":2,"domain":"api","route":"GET /","cost":1,"decision":"allowed","descriptors":[]}',
    ].join("\n");
    const sample = parseSample(text);
    expect(sample.ok && sample.rows.map((r) => r.t)).toEqual([2, 5]);
    expect(parseSample('{"v":1,"t":-1}')).toEqual({ ok: false, line: 1, message: '"t" must be a non-negative integer (epoch ms)' });
    expect(parseSample("[]\n")).toEqual({ ok: false, line: 1, message: "not a JSON object" });
  });
});

describe("candidate limits (a `candidate` beside a live limit, docs/rules.md)", () => {
  it("are decided on their own counter, never enforced, their figures beside the live limit's", async () => {
    const live = rules(keyRules({ unit: "minute", requests_per_unit: 5, candidate: { unit: "minute", requests_per_unit: 2 } }));
    const rows = await keyRows([0, 1, 2, 3].map((t) => ({ t, key: "alice-key" })));
    const report = await whatIf(live, live, rows, ROWS_KEY);
    expect(report.limits[0]).toMatchObject({ requests: 4, refusals: 0, candidate: { requests: 4, refusals: 2, refused_pct: 50, keys_refused: 1 } });
  });
});
