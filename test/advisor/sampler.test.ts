/**
 * The isolate's buffer of sampled rows (src/advisor/sampler.ts): bounded,
 * oldest dropped first, due for a send after SAMPLE_HOLD_MS or half full.
 */
import { describe, expect, it } from "vitest";
import { decisionOf, SAMPLE_BUFFER_ROWS, SAMPLE_HOLD_MS, TrafficSampler } from "../../src/advisor/sampler.ts";
import { compiledDomain, noLimitResult } from "./support.ts";

const domain = compiledDomain({
  domain: "buffer",
  descriptors: [{ key: "api_key", rate_limit: { unit: "minute", requests_per_unit: 10 } }],
  routes: [{ match: {}, descriptors: [[{ key: "api_key", header: "x-api-key" }]] }],
});
const source = { domains: [{ domain, descriptors: [] }], route: () => "GET /" };
const result = (value: string) => noLimitResult("buffer", [{ key: "api_key", value }]);

describe("TrafficSampler", () => {
  it("tags a row as the gateway tagged the answer: not-enforced and soft kept under FAILURE_MODE=local", () => {
    const base = result("k");
    expect(decisionOf(base)).toBe("allowed");
    expect(decisionOf({ ...base, allowed: false, reason: "limited" })).toBe("refused");
    expect(decisionOf({ ...base, reason: "shadow" })).toBe("shadow");
    expect(decisionOf({ ...base, reason: "queued" })).toBe("refused");
    expect(decisionOf({ ...base, reason: "not_enforced" })).toBe("not-enforced");
    expect(decisionOf({ ...base, reason: "soft", decidedLocally: true })).toBe("soft");
    expect(decisionOf({ ...base, reason: "not_enforced", decidedLocally: true })).toBe("not-enforced");
    expect(decisionOf({ ...base, decidedLocally: true })).toBe("local");
  });

  it("holds at most SAMPLE_BUFFER_ROWS rows, the oldest dropped first", async () => {
    let now = 1_000;
    const sampler = new TrafficSampler({ keyRate: 1, maxRows: 100_000, retentionMs: 3_600_000 }, () => now, { k0: 1, k1: 2 });
    for (let i = 0; i < SAMPLE_BUFFER_ROWS + 500; i++) {
      now += 1;
      sampler.record(result(`key-${i}`), source);
    }
    expect(sampler.size).toBe(SAMPLE_BUFFER_ROWS);
    const send = await sampler.take();
    expect(send?.rows).toHaveLength(SAMPLE_BUFFER_ROWS);
    expect(send?.rows[0].t).toBe(1_000 + 501);
    expect(send?.rows.at(-1)?.t).toBe(1_000 + SAMPLE_BUFFER_ROWS + 500);
    expect(sampler.size).toBe(0);
    expect(await sampler.take()).toBeUndefined();
  });

  it("is due once the oldest row is SAMPLE_HOLD_MS old, or the buffer half full", () => {
    let now = 5_000;
    const sampler = new TrafficSampler({ keyRate: 1, maxRows: 100, retentionMs: 1 }, () => now, { k0: 1, k1: 2 });
    expect(sampler.due()).toBe(false);
    sampler.record(result("a"), source);
    now += SAMPLE_HOLD_MS - 1;
    expect(sampler.due()).toBe(false);
    now += 1;
    expect(sampler.due()).toBe(true);
    const full = new TrafficSampler({ keyRate: 1, maxRows: 100, retentionMs: 1 }, () => 0, { k0: 1, k1: 2 });
    for (let i = 0; i < SAMPLE_BUFFER_ROWS / 2 - 1; i++) full.record(result(`k${i}`), source);
    expect(full.due()).toBe(false);
    full.record(result("last"), source);
    expect(full.due()).toBe(true);
  });

  it("keeps nothing at rate 0 or with no rows allowed", () => {
    for (const settings of [
      { keyRate: 0, maxRows: 100, retentionMs: 1 },
      { keyRate: 1, maxRows: 0, retentionMs: 1 },
    ]) {
      const sampler = new TrafficSampler(settings, () => 0, { k0: 1, k1: 2 });
      sampler.record(result("a"), source);
      expect(sampler.size).toBe(0);
    }
  });
});
