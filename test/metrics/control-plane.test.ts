/**
 * The control plane against the real objects, inside workerd, on a driven
 * clock (docs/operations.md, "What the control plane costs"): isolates
 * (LiveRules, and metrics sends paced by SendPace) serving one request every
 * 2 s, at two counts, so what grows with the isolate count shows. Every
 * isolate here is in one location (workerd's one Cache API). Counts scale
 * linearly from here to test/rules/control-plane.node.test.ts's 10,000.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import type { MetricsObject } from "../../src/durable/metrics/metrics-object.ts";
import { LiveRules } from "../../src/isolate/live-rules.ts";
import { cacheCopies } from "../../src/isolate/rules-copy.ts";
import { RULES_PACE } from "../../src/isolate/rules-pace.ts";
import { SendPace } from "../../src/metrics/send-pace.ts";
import type { Sample } from "../../src/metrics/samples.ts";
import { TrafficLog } from "../../src/metrics/traffic.ts";
import { compileOnce } from "../../src/rules/index.ts";
import { tapWrites } from "../support/storage-writes.ts";

const testEnv = env as unknown as Env;
const T0 = 1_767_225_600_000;
const REQUEST_EVERY_MS = 2_000;
const rulesOf = (unit: string) => JSON.stringify({ domain: "cp", descriptors: [{ key: "k", rate_limit: { unit, requests_per_unit: 9 } }] });
const bundled = compileOnce(JSON.parse(rulesOf("minute")), "bundled");
let runs = 0;
/** The Cache API as `*.workers.dev` has it: every put dropped, every match missed. */
const workersDevCopies = cacheCopies(async () => ({ match: async () => undefined, put: async () => undefined }) as unknown as Cache);

/** `isolates` LiveRules on one clock for `minutes`, the rules changed at the half; object calls counted per isolate. */
async function rulesRun(isolates: number, minutes: number, shared: boolean) {
  const objectName = `control-plane-${Date.now()}-${++runs}`;
  const clock = { at: T0 };
  const calls: number[][] = Array.from({ length: isolates }, () => []);
  const envOf = (index: number) =>
    ({
      ...testEnv,
      RULES: {
        getByName: (name: string) => ({
          since: (...args: [number, number?]) => {
            calls[index].push(clock.at);
            return testEnv.RULES.getByName(name).since(...args);
          },
        }),
      },
    }) as unknown as Env;
  const lives = Array.from(
    { length: isolates },
    () => new LiveRules(bundled, { objectName, now: () => clock.at, ...(shared ? {} : { copies: workersDevCopies }) }),
  );
  const learned: (number | undefined)[] = new Array(isolates).fill(undefined);
  const changeAt = T0 + (minutes * 60_000) / 2;
  for (; clock.at < T0 + minutes * 60_000; clock.at += REQUEST_EVERY_MS) {
    if (clock.at === changeAt) expect((await testEnv.RULES.getByName(objectName).put(rulesOf("hour"))).ok).toBe(true);
    for (let index = 0; index < isolates; index++) {
      const work: Promise<unknown>[] = [];
      const rules = await lives[index].current(envOf(index), 1_000, (p) => void work.push(p));
      await Promise.all(work);
      // Before the change the object holds no upload: the bundled rules, the very object `bundled` returns.
      if (clock.at >= changeAt && learned[index] === undefined && rules !== bundled()) learned[index] = clock.at - changeAt;
    }
  }
  const steady = calls.map((times) => times.filter((at) => at >= T0 + 60_000));
  const perMinute = (times: number[]) => Math.max(0, ...times.map((at) => times.filter((b) => b >= at && b - at < 60_000).length));
  return {
    isolates,
    shared,
    object_calls_first_minute: calls.reduce((n, times) => n + times.filter((at) => at < T0 + 60_000).length, 0),
    object_calls_after_first_minute: steady.reduce((n, times) => n + times.length, 0),
    calls_per_isolate_minute_max: Math.max(...calls.map(perMinute)),
    propagation_ms_max: Math.max(...learned.map((ms) => ms ?? Infinity)),
  };
}

/** `isolates` sending their metrics, paced by SendPace, to one real shard for `minutes`: rows written and sends. */
async function metricsRun(isolates: number, minutes: number) {
  const stub = testEnv.METRICS.getByName(`control-plane-metrics-${Date.now()}-${++runs}`);
  return runInDurableObject(stub, (instance: MetricsObject, state) => {
    const writes = tapWrites(state.storage);
    const senders = Array.from({ length: isolates }, (_, i) => ({ pace: new SendPace(30_000), log: new TrafficLog(), hits: 0, start: ((i * 7) % 20) * 100 }));
    let sends = 0;
    for (let at = T0; at < T0 + minutes * 60_000; at += 100) {
      for (const sender of senders) {
        if ((at - T0 - sender.start) % REQUEST_EVERY_MS !== 0) continue;
        sender.hits += 1;
        for (let p = 0; p < 4; p++)
          sender.log.record(
            "cp",
            `d${p}`,
            { name: "nine", windowMs: 60_000, shadow: false },
            { total_hits: 1, within_limit: 1, over_limit: 0, near_limit: 0, shadow_mode: 0 },
            [{ key: "user", value: `u${sender.hits % 50}` }],
            at,
          );
        if (!("send" in (sender.pace.request(at) ?? {}))) continue;
        sender.pace.sent();
        const samples: Sample[] = Array.from({ length: 40 }, (_, i) => ({
          name: "ratelimit_service_rate_limit_total_hits",
          labels: [
            ["domain", "cp"],
            ["descriptor", `d${i}`],
          ],
          value: sender.hits,
        }));
        sender.hits = 0;
        instance.add(samples, sender.log.take(), at);
        sends += 1;
      }
    }
    writes.restore();
    const rows = writes.rows() + writes.alarms();
    return { isolates, sends, rows_per_hour: Math.round((rows * 60) / minutes), sends_per_s: sends / (minutes * 60) };
  });
}

describe("the control plane against the real objects", () => {
  // Breaks tried: copyFreshMs at 0 (every isolate asks: the object's calls grew with the isolates: failed); copyFreshMs
  // at 30 s (propagation past 10 s: failed); foldStep always "fold" (rows grew with the isolates: failed).
  it("asks the rules object per location, not per isolate, and every isolate follows a change within the bound", async () => {
    const few = await rulesRun(4, 6, true);
    const many = await rulesRun(16, 6, true);
    const alone = await rulesRun(4, 6, false);
    console.log(JSON.stringify({ event: "control_plane_rules", few, many, alone }));
    // The contract's 10 s (docs/admin-api.md, "Rules"): where a location keeps a copy, one isolate asks about every
    // RULES_PACE.copyFreshMs for all of them; where none is kept, each isolate asks every ownPollMs.
    const perLocationMinute = 60_000 / RULES_PACE.copyFreshMs;
    for (const run of [few, many, alone]) expect(run.propagation_ms_max).toBeLessThanOrEqual(10_000);
    for (const run of [few, many]) expect(run.calls_per_isolate_minute_max).toBeLessThanOrEqual(perLocationMinute + 2);
    expect(alone.calls_per_isolate_minute_max).toBeLessThanOrEqual(60_000 / RULES_PACE.ownPollMs);
    // One location: 4 times the isolates, about the same calls, whoever makes them.
    expect(many.object_calls_after_first_minute).toBeLessThanOrEqual(few.object_calls_after_first_minute + 5);
    expect(many.object_calls_after_first_minute).toBeLessThanOrEqual(5 * perLocationMinute + 5);
    // Started together (a deploy): the first isolate asks, the others take its copy.
    expect(many.object_calls_first_minute).toBeLessThanOrEqual(few.object_calls_first_minute + 2);
    // No shared cache (a cache that keeps nothing, as on workers.dev): at most one call per isolate and RULES_PACE.ownPollMs.
    expect(alone.object_calls_first_minute).toBeLessThanOrEqual(4 * Math.ceil(60_000 / RULES_PACE.ownPollMs));
    expect(alone.object_calls_after_first_minute).toBeLessThanOrEqual(4 * Math.ceil((5 * 60_000) / RULES_PACE.ownPollMs));
  }, 240_000);

  it("writes metrics rows per hour independent of the isolate count within a factor of 2", async () => {
    const few = await metricsRun(10, 10);
    const many = await metricsRun(100, 10);
    console.log(JSON.stringify({ event: "control_plane_metrics", few, many }));
    // Ten times the isolates: ten times the sends (each isolate's once per 30 s), about the same rows.
    expect(many.sends).toBeGreaterThan(8 * few.sends);
    expect(many.rows_per_hour).toBeLessThanOrEqual(2 * few.rows_per_hour);
    expect(few.rows_per_hour).toBeLessThanOrEqual(2 * many.rows_per_hour);
  }, 240_000);
});
