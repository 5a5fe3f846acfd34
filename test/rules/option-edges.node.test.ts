/**
 * Bounds of rate limit options stated in docs/rules.md, held at the edge:
 * the exact bound compiles, one past it is refused at its JSON path.
 * `persist_ms` and `durability` apply from a window of 5 s (DURABLE_WINDOW_MS); `max_queue_age_s` 1–86,400, `max_queue_backlog` 1–10,000;
 * `persist_ms` 1–60,000. Break tried: `windowMs < DURABLE_WINDOW_MS` as
 * `<=` fails the 5 s case.
 */
import { describe, expect, it } from "vitest";
import { domainOf, errorsOf } from "./helpers.ts";

const RL = "$.descriptors[0].rate_limit";
const doc = (rateLimit: Record<string, unknown>) => ({ domain: "t", descriptors: [{ key: "k", rate_limit: rateLimit }] });
const limitOf = (rateLimit: Record<string, unknown>) => domainOf(doc(rateLimit)).root.keyOnly.get("k")?.limits[0];
const seconds = (n: number, extra: Record<string, unknown> = {}) => ({ unit: "second", unit_multiplier: n, requests_per_unit: 5, ...extra });

describe("option edges", () => {
  it("stores a window of 5 s, not one of 4 s", () => {
    expect(limitOf(seconds(5, { persist_ms: 60_000 }))?.persistMs).toBe(60_000);
    expect(limitOf(seconds(5, { durability: "strict" }))?.strict).toBe(true);
    expect(errorsOf(doc(seconds(4, { persist_ms: 1 })))).toEqual([
      {
        path: `${RL}.persist_ms`,
        message: '"persist_ms" applies only to windows of 5 s or longer; shorter windows are kept in memory only and never stored',
      },
    ]);
  });

  it("takes persist_ms from 1 to 60,000, leaving the default 1000 unset", () => {
    expect(limitOf(seconds(60, { persist_ms: 1 }))?.persistMs).toBe(1);
    expect(limitOf(seconds(60, { persist_ms: 999 }))?.persistMs).toBe(999);
    expect(limitOf(seconds(60, { persist_ms: 1_000 }))).not.toHaveProperty("persistMs");
    expect(errorsOf(doc(seconds(60, { persist_ms: 60_001 })))).toEqual([{ path: `${RL}.persist_ms`, message: "must be at most 60000, got 60001" }]);
    expect(errorsOf(doc(seconds(60, { persist_ms: 0 })))).toEqual([{ path: `${RL}.persist_ms`, message: "must be at least 1, got 0" }]);
  });

  it("takes queue ages from 1 s to a day and backlogs from 1 to 10,000, in milliseconds and requests", () => {
    const queued = (extra: Record<string, unknown>) => limitOf({ unit: "minute", requests_per_unit: 5, on_limit: "queue", ...extra });
    expect(queued({ max_queue_age_s: 1, max_queue_backlog: 1 })).toMatchObject({ maxQueueAgeMs: 1_000, maxQueueBacklog: 1 });
    expect(queued({ max_queue_age_s: 86_400, max_queue_backlog: 10_000 })).toMatchObject({ maxQueueAgeMs: 86_400_000, maxQueueBacklog: 10_000 });
    expect(queued({})).toMatchObject({ maxQueueAgeMs: 3_600_000, maxQueueBacklog: 100 });
    expect(queued({})).not.toHaveProperty("queueCredentials");
    expect(queued({ queue_credentials: false })).not.toHaveProperty("queueCredentials");
    expect(queued({ queue_credentials: true })?.queueCredentials).toBe(true);
  });
});
