/**
 * `reset` and the windows as Upstash ratelimit reports them
 * (docs/from-upstash.md, "reset"), against real CounterObjects on a driven
 * clock: `fixedWindow` and `slidingWindow` give the end of the current
 * window (windows aligned to the epoch), allowed or refused; `tokenBucket`
 * gives when its next token comes; `h` and `d` are hours and days.
 *
 * Breaks tried, each seen to fail here: `h` in src/dropins/duration.ts set
 * to a minute; `d` set to an hour; slidingWindow's reset one window later
 * (the end of the next window, as before this test).
 */
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import type { CounterObject } from "../../src/durable/counters/counter-object.ts";
import { Ratelimit as RealTimeRatelimit } from "../../src/package/limiter.ts";
import { durationMs } from "../../src/dropins/duration.ts";
import { drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";

const realCounters = (env as unknown as { COUNTERS: DurableObjectNamespace<CounterObject> }).COUNTERS;
const DAY = 86_400_000;
let serial = 0;
const unique = (label: string) => `${label}-${Date.now()}-${serial++}`;

// One driven clock per test, each test starting a day after the last, 2.5 s past midnight.
const clock = { at: OBJECT_EPOCH };
let counters = realCounters as unknown as DurableObjectNamespace;
beforeEach(() => {
  clock.at = (Math.floor(clock.at / DAY) + 2) * DAY + 2_500;
  counters = drivenCounters(realCounters, () => clock.at) as unknown as DurableObjectNamespace;
});
class Ratelimit extends RealTimeRatelimit {
  constructor(config: ConstructorParameters<typeof RealTimeRatelimit>[0]) {
    super(config, { now: () => clock.at });
  }
}

describe("durations", () => {
  it("reads ms, s, m, h and d, with or without a space", () => {
    expect(["500 ms", "10 s", "10s", "1 m", "1m", "1 h", "2h", "1 d", "7d"].map((d) => durationMs(d, "t"))).toEqual([
      500,
      10_000,
      10_000,
      60_000,
      60_000,
      3_600_000,
      7_200_000,
      86_400_000,
      7 * 86_400_000,
    ]);
  });
});

describe("reset, as Upstash reports it", () => {
  it("fixedWindow: the end of the current window, allowed and refused; an hour is an hour", async () => {
    const ratelimit = new Ratelimit({ counters, limiter: Ratelimit.fixedWindow(2, "1 h") });
    const id = unique("fixed");
    const hourEnd = (Math.floor(clock.at / 3_600_000) + 1) * 3_600_000;
    const answers = [];
    for (let i = 0; i < 3; i++) {
      answers.push(await ratelimit.limit(id));
      clock.at += 1_000;
    }
    expect(answers.map((a) => [a.success, a.reset])).toEqual([
      [true, hourEnd],
      [true, hourEnd],
      [false, hourEnd],
    ]);
    // 59 minutes on, still the same hour: refused; after the hour's end: allowed.
    clock.at = hourEnd - 1;
    expect((await ratelimit.limit(id)).success).toBe(false);
    clock.at = hourEnd;
    expect(await ratelimit.limit(id)).toMatchObject({ success: true, reset: hourEnd + 3_600_000 });
  });

  it("fixedWindow over a day: a day is a day", async () => {
    const ratelimit = new Ratelimit({ counters, limiter: Ratelimit.fixedWindow(1, "1 d") });
    const id = unique("daily");
    const dayEnd = (Math.floor(clock.at / DAY) + 1) * DAY;
    expect(await ratelimit.limit(id)).toMatchObject({ success: true, reset: dayEnd });
    clock.at += 23 * 3_600_000;
    expect(await ratelimit.limit(id)).toMatchObject({ success: false, reset: dayEnd });
  });

  it("slidingWindow: the end of the current window, allowed and refused, and getRemaining the same", async () => {
    const ratelimit = new Ratelimit({ counters, limiter: Ratelimit.slidingWindow(2, "10 s") });
    const id = unique("sliding");
    const end = (Math.floor(clock.at / 10_000) + 1) * 10_000;
    expect(await ratelimit.limit(id)).toMatchObject({ success: true, remaining: 1, reset: end });
    expect(await ratelimit.limit(id)).toMatchObject({ success: true, remaining: 0, reset: end });
    expect(await ratelimit.limit(id)).toMatchObject({ success: false, remaining: 0, reset: end });
    expect(await ratelimit.getRemaining(id)).toEqual({ remaining: 0, reset: end, limit: 2 });
    // In the next window the previous one still weighs: 2.5 s in, 2 × 0.75 = 1.5 of 2 are taken, so nothing fits.
    clock.at = end + 2_500;
    expect(await ratelimit.limit(id)).toMatchObject({ success: false, reset: end + 10_000 });
  });

  it("tokenBucket: when the next token comes", async () => {
    // 5 tokens per 10 s: a token every 2 s.
    const ratelimit = new Ratelimit({ counters, limiter: Ratelimit.tokenBucket(5, "10 s", 2) });
    const id = unique("bucket");
    const start = clock.at;
    expect(await ratelimit.limit(id)).toMatchObject({ success: true, remaining: 1, reset: start + 2_000 });
    expect(await ratelimit.limit(id)).toMatchObject({ success: true, remaining: 0, reset: start + 2_000 });
    clock.at += 500;
    expect(await ratelimit.limit(id)).toMatchObject({ success: false, remaining: 0, reset: start + 2_000 });
  });
});
