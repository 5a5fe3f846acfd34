/**
 * A budget settled by its answer is counted when settled (docs/llm.md,
 * "Costs and limits"), in plain Node: the recorder leaves its admitted
 * tokens out at admission, counts the charge settled (the refund and the
 * extra charge included, with Envoy's near-limit arithmetic from the same
 * count before it), counts a refused reservation at once, and, when the
 * downstream failed without an answer (`keepReservations`), counts the
 * reservation. What it sends is read from a metrics binding that records.
 *
 * Breaks tried: keepReservations recording nothing (the abandoned case
 * failed: no series); settledStats from the decision as reserved, not
 * moved by the difference (near_limit wrong in the extra-charge case).
 */
import { describe, expect, it } from "vitest";
import { keepReservations, settleWithResponse } from "../../src/admission/settle.ts";
import type { Engine } from "../../src/admission/pipeline.ts";
import type { Env } from "../../src/config.ts";
import type { EdgeRuntime } from "../../src/isolate/runtime.ts";
import type { DescriptorOutcome, RateLimitResult } from "../../src/limiter/types.ts";
import { MetricsRecorder } from "../../src/metrics/recorder.ts";

interface Sent {
  name: string;
  labels: readonly (readonly [string, string])[];
  value: number;
}

function recorder() {
  const sent: Sent[] = [];
  const binding = { getByName: () => ({ add: async (batch: Sent[]) => void sent.push(...batch) }) } as unknown as Env["METRICS"];
  const metrics = new MetricsRecorder(binding, 0, { k0: 1, k1: 2 }, () => 1_000_000, "shard");
  const stat = (name: string) => sent.filter((s) => s.name === `ratelimit_service_rate_limit_${name}`).reduce((a, s) => a + s.value, 0);
  return { metrics, sent, stat };
}

/** One descriptor of a token budget of 1000 that reserved `reserved`, with `remaining` left after it (allowed) or refused. */
function outcome(reserved: number, remaining: number, allowed = true): DescriptorOutcome {
  return {
    domain: "llm",
    descriptor: [{ key: "api_key", value: "k" }],
    cost: reserved,
    match: { node: { statKey: "api_key", detailedMetric: false }, limits: [], unlimited: false, shadowMode: false } as never,
    policies: [
      {
        domain: "llm",
        descriptor: [{ key: "api_key", value: "k" }],
        name: "tokens",
        windowMs: 60_000,
        shadow: false,
        quotaUnit: "tokens",
        decision: { allowed, limit: 1000, remaining, resetAfterMs: 0, retryAfterMs: allowed ? 0 : 1000, effectiveWindowMs: 60_000 },
      },
    ],
    costFromResponse: { kind: "usage", preset: "openai", tokens: "total" },
    ...(allowed ? { chargedAt: 1, counter: { object: "llm/shard/1", call: { key: "k", limits: [], cost: reserved } as never } } : {}),
  };
}

const resultOf = (outcomes: DescriptorOutcome[]) => ({ allowed: true, descriptors: outcomes }) as unknown as RateLimitResult;
// No counter is reached: the settlement's calls go nowhere here (the workerd tests send them).
const edge = { decideCalls: async () => [], carryRefunds: () => undefined } as unknown as EdgeRuntime;
const engineOf = (metrics: MetricsRecorder): Engine => ({ edge, metrics, settings: { failureMode: "open" } });
const json = { status: 200, headers: new Headers({ "content-type": "application/json" }) };

describe("a token budget counted when settled", () => {
  it("leaves the reservation out at admission and counts the tokens reported", async () => {
    const { metrics, stat } = recorder();
    const result = resultOf([outcome(400, 600)]);
    metrics.recordOutcomes(result.descriptors ?? []);
    await metrics.flushNow();
    expect(stat("total_hits")).toBe(0);
    settleWithResponse(engineOf(metrics), result, json, () => undefined, { tokens: 30, cut: false });
    await metrics.flushNow();
    expect([stat("total_hits"), stat("within_limit"), stat("near_limit")]).toEqual([30, 30, 0]);
  });

  it("counts an extra charge whole, near the limit from the count before the request", async () => {
    const { metrics, stat } = recorder();
    // 700 were spent before; 100 reserved (200 left), 250 reported: 950 after, past 80 % (800) by 150.
    const result = resultOf([outcome(100, 200)]);
    metrics.recordOutcomes(result.descriptors ?? []);
    settleWithResponse(engineOf(metrics), result, json, () => undefined, { tokens: 250, cut: false });
    await metrics.flushNow();
    expect([stat("total_hits"), stat("within_limit"), stat("near_limit")]).toEqual([250, 250, 150]);
  });

  it("counts a refused reservation at once, over the limit past the budget", async () => {
    const { metrics, stat } = recorder();
    metrics.recordOutcomes([outcome(500, 300, false)]);
    await metrics.flushNow();
    // 700 spent, 500 asked: 200 past the budget.
    expect([stat("total_hits"), stat("over_limit"), stat("within_limit")]).toEqual([500, 200, 0]);
  });

  it("counts the reservation of a request whose downstream failed without an answer", async () => {
    const { metrics, stat } = recorder();
    const result = resultOf([outcome(400, 600)]);
    metrics.recordOutcomes(result.descriptors ?? []);
    keepReservations(engineOf(metrics), result, () => undefined);
    await metrics.flushNow();
    expect([stat("total_hits"), stat("within_limit")]).toEqual([400, 400]);
  });
});
