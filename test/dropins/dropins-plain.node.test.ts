/**
 * The drop-ins' own logic in plain Node (mutation testing, docs/testing.md):
 * Upstash's durations, factories, options, `reset` and ephemeral cache,
 * `Ratelimit` over plain counter objects (test/support/plain-counters.ts) on
 * a driven clock, and the binding's props. Every assertion is an exact
 * value. The same faces through real objects run in workerd
 * (test/dropins/upstash.test.ts, binding.test.ts, test/faces/matrix.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type Env, readSettings } from "../../src/config.ts";
import { Isolate } from "../../src/admission/isolate-context.ts";
import { BindingLimits, bindingLimit } from "../../src/dropins/binding.ts";
import { durationMs } from "../../src/dropins/duration.ts";
import { EPHEMERAL_ENTRIES, EphemeralBlocks } from "../../src/dropins/ephemeral.ts";
import { fixedWindow, gcra, isLimiter, leakyBucket, slidingLog, slidingWindow, tokenBucket } from "../../src/dropins/limiters.ts";
import { ratelimitSettings } from "../../src/dropins/options.ts";
import { Ratelimit } from "../../src/dropins/ratelimit.ts";
import { upstashReset, windowEnd } from "../../src/dropins/reset.ts";
import { plainNamespace } from "../support/plain-counters.ts";

const HOUR = 3_600_000;

/** Plain counters on a driven clock, with `reset` calls recorded (the plain objects hold no reset). */
function counters(clock: { at: number }) {
  const plain = plainNamespace(() => clock.at);
  const resets: string[] = [];
  const base = plain.binding as unknown as { getByName(name: string): object; idFromName(name: string): unknown };
  const binding = {
    getByName: (name: string) => ({ ...base.getByName(name), reset: async (key: string) => void resets.push(`${name} ${key}`) }),
    idFromName: base.idFromName,
  } as unknown as Env["COUNTERS"];
  return { binding, resets, calls: plain.calls };
}

/** A namespace whose every call fails (a counter that cannot be reached). */
const failing = {
  getByName: () => ({
    decide: async () => {
      throw new Error("down");
    },
    decideText: async () => {
      throw new Error("down");
    },
  }),
  idFromName: (name: string) => ({ toString: () => `failing:${name}` }),
} as unknown as Env["COUNTERS"];

describe("durationMs", () => {
  it("reads every unit, with and without the space", () => {
    expect(durationMs("500 ms", "w")).toBe(500);
    expect(durationMs("10 s", "w")).toBe(10_000);
    expect(durationMs("10s", "w")).toBe(10_000);
    expect(durationMs("2 m", "w")).toBe(120_000);
    expect(durationMs("3 h", "w")).toBe(10_800_000);
    expect(durationMs("2 d", "w")).toBe(172_800_000);
    expect(durationMs("999999999999999 ms", "w")).toBe(999_999_999_999_999);
  });

  it("refuses anything else, naming the factory and the value", () => {
    const message = 'w: unable to parse the window "10 seconds"; expected a whole number and a unit (ms, s, m, h or d), e.g. "10 s", "1m", "1 h"';
    expect(() => durationMs("10 seconds", "w")).toThrow(new TypeError(message));
    for (const bad of [10, "1000000000000000 ms", " 10 s", "10 s ", "10  s", "x10 s", "10 sx", "1.5 s", "-1 s", "s"]) {
      expect(() => durationMs(bad, "w"), String(bad)).toThrow(TypeError);
    }
    expect(() => durationMs(undefined, "w")).toThrow("w: unable to parse the window undefined;");
  });
});

describe("the factories", () => {
  it("give the limit, window and description of each", () => {
    expect(fixedWindow(10, "10 s")).toEqual({ algorithm: "fixed_window", tokens: 10, windowMs: 10_000, describe: 'Ratelimit.fixedWindow(10, "10 s")' });
    expect(slidingWindow(5, "1 m")).toEqual({
      algorithm: "sliding_window_counter",
      tokens: 5,
      windowMs: 60_000,
      describe: 'Ratelimit.slidingWindow(5, "1 m")',
    });
    expect(tokenBucket(5, "10 s", 20)).toEqual({
      algorithm: "token_bucket",
      tokens: 5,
      burst: 20,
      windowMs: 10_000,
      describe: 'Ratelimit.tokenBucket(5, "10 s", 20)',
    });
    expect(slidingLog(3, "1 h")).toEqual({ algorithm: "sliding_window_log", tokens: 3, windowMs: HOUR, describe: 'Ratelimit.slidingLog(3, "1 h")' });
    expect(leakyBucket(10, "1 s")).toEqual({
      algorithm: "leaky_bucket",
      tokens: 10,
      burst: undefined,
      windowMs: 1000,
      describe: 'Ratelimit.leakyBucket(10, "1 s")',
    });
    expect(leakyBucket(10, "1 s", 20)).toEqual({
      algorithm: "leaky_bucket",
      tokens: 10,
      burst: 20,
      windowMs: 1000,
      describe: 'Ratelimit.leakyBucket(10, "1 s", 20)',
    });
    expect(gcra(10, "1 s")).toEqual({ algorithm: "gcra", tokens: 10, burst: undefined, windowMs: 1000, describe: 'Ratelimit.gcra(10, "1 s")' });
    expect(gcra(10, "1 s", 5)).toEqual({ algorithm: "gcra", tokens: 10, burst: 5, windowMs: 1000, describe: 'Ratelimit.gcra(10, "1 s", 5)' });
    expect(Object.isFrozen(fixedWindow(1, "1 s"))).toBe(true);
  });

  it("refuse a count that is not a whole number of at least 1, naming the factory and the argument", () => {
    expect(() => fixedWindow(0, "1 s")).toThrow(new TypeError("Ratelimit.fixedWindow: tokens must be a whole number of at least 1, got 0"));
    expect(() => slidingWindow(1.5, "1 s")).toThrow(new TypeError("Ratelimit.slidingWindow: tokens must be a whole number of at least 1, got 1.5"));
    expect(() => slidingLog("3" as unknown as number, "1 s")).toThrow(
      new TypeError('Ratelimit.slidingLog: tokens must be a whole number of at least 1, got "3"'),
    );
    expect(() => tokenBucket(0, "1 s", 1)).toThrow(new TypeError("Ratelimit.tokenBucket: refillRate must be a whole number of at least 1, got 0"));
    expect(() => tokenBucket(1, "1 s", 0)).toThrow(new TypeError("Ratelimit.tokenBucket: maxTokens must be a whole number of at least 1, got 0"));
    expect(() => leakyBucket(0, "1 s")).toThrow(new TypeError("Ratelimit.leakyBucket: rate must be a whole number of at least 1, got 0"));
    expect(() => leakyBucket(1, "1 s", 0)).toThrow(new TypeError("Ratelimit.leakyBucket: capacity must be a whole number of at least 1, got 0"));
    expect(() => gcra(0, "1 s")).toThrow(new TypeError("Ratelimit.gcra: rate must be a whole number of at least 1, got 0"));
    expect(() => gcra(1, "1 s", 0)).toThrow(new TypeError("Ratelimit.gcra: burst must be a whole number of at least 1, got 0"));
    expect(fixedWindow(1, "1 s").tokens).toBe(1);
    expect(() => fixedWindow(1, "1 x" as never)).toThrow('Ratelimit.fixedWindow(1, "1 x"): unable to parse the window "1 x"');
  });

  it("isLimiter knows their output from anything else", () => {
    expect(isLimiter(fixedWindow(1, "1 s"))).toBe(true);
    expect(isLimiter(null)).toBe(false);
    expect(isLimiter("fixedWindow")).toBe(false);
    expect(isLimiter({ describe: "x" })).toBe(false);
    expect(isLimiter({ algorithm: "fixed_window" })).toBe(false);
    expect(isLimiter({ algorithm: "fixed_window", describe: 1 })).toBe(false);
    expect(isLimiter({ algorithm: 1, describe: "x" })).toBe(false);
  });
});

describe("ratelimitSettings", () => {
  const namespace = { getByName: () => undefined } as unknown as Env["COUNTERS"];
  const limiter = slidingWindow(10, "10 s");

  it("fills in the defaults", () => {
    expect(ratelimitSettings({ counters: namespace, limiter })).toEqual({
      counters: namespace,
      limiter,
      prefix: "@upstash/ratelimit",
      timeoutMs: 5000,
      blockCache: true,
    });
  });

  it("keeps what is given; timeout 0 means the longest timer", () => {
    const map = new Map<string, number>();
    const settings = ratelimitSettings({ counters: namespace, limiter, prefix: "p", timeout: 0, ephemeralCache: map, analytics: true, metrics: namespace });
    expect(settings).toEqual({ counters: namespace, limiter, prefix: "p", timeoutMs: 2_147_483_647, blockCache: true, ephemeral: map, metrics: namespace });
    expect(ratelimitSettings({ counters: namespace, limiter, ephemeralCache: false, timeout: 600_000 })).toEqual({
      counters: namespace,
      limiter,
      prefix: "@upstash/ratelimit",
      timeoutMs: 600_000,
      blockCache: false,
    });
    // Metrics without analytics, or analytics without metrics: nothing is counted.
    expect("metrics" in ratelimitSettings({ counters: namespace, limiter, metrics: namespace })).toBe(false);
    expect("metrics" in ratelimitSettings({ counters: namespace, limiter, analytics: true })).toBe(false);
  });

  it("names what is wrong", () => {
    const bad = (config: unknown) => () => ratelimitSettings(config as never);
    expect(bad(null)).toThrow(new TypeError("new Ratelimit(): expected an options object"));
    expect(bad("x")).toThrow(new TypeError("new Ratelimit(): expected an options object"));
    expect(bad({ redis: 1 })).toThrow(
      new TypeError(
        'new Ratelimit(): option "redis" is not supported: floodgate keeps the counts in its CounterObject: replace `redis` with `counters` (the CounterObject namespace, e.g. env.COUNTERS)',
      ),
    );
    expect(bad({ counters: namespace, limiter, rdis: 1 })).toThrow(
      new TypeError('new Ratelimit(): unknown option "rdis"; the options are counters, limiter, prefix, timeout, ephemeralCache, analytics, metrics'),
    );
    expect(bad({ limiter })).toThrow(new TypeError("new Ratelimit(): counters must be the CounterObject namespace (e.g. env.COUNTERS)"));
    expect(bad({ counters: {}, limiter })).toThrow("counters must be the CounterObject namespace");
    expect(bad({ counters: namespace, limiter: {} })).toThrow(
      new TypeError('new Ratelimit(): limiter must come from a factory, e.g. Ratelimit.slidingWindow(10, "10 s")'),
    );
    expect(bad({ counters: namespace, limiter, prefix: "" })).toThrow(new TypeError('new Ratelimit(): prefix must be a non-empty string, got ""'));
    expect(bad({ counters: namespace, limiter, prefix: 1 })).toThrow("prefix must be a non-empty string, got 1");
    const timeout = (value: unknown) => `new Ratelimit(): timeout must be a whole number of milliseconds from 0 to 600000, got ${JSON.stringify(value)}`;
    for (const value of [-1, 600_001, 1.5, "5"]) expect(bad({ counters: namespace, limiter, timeout: value })).toThrow(new TypeError(timeout(value)));
    expect(bad({ counters: namespace, limiter, ephemeralCache: {} })).toThrow(new TypeError("new Ratelimit(): ephemeralCache must be a Map or false"));
    expect(bad({ counters: namespace, limiter, ephemeralCache: true })).toThrow("ephemeralCache must be a Map or false");
    expect(bad({ counters: namespace, limiter, analytics: "yes" })).toThrow(new TypeError('new Ratelimit(): analytics must be true or false, got "yes"'));
    expect(bad({ counters: namespace, limiter, metrics: {} })).toThrow(
      new TypeError("new Ratelimit(): metrics must be the MetricsObject namespace (e.g. env.METRICS)"),
    );
  });
});

describe("upstashReset", () => {
  const decision = (allowed: boolean, resetAfterMs: number, retryAfterMs: number, effectiveWindowMs: number) => ({
    allowed,
    resetAfterMs,
    retryAfterMs,
    effectiveWindowMs,
  });

  it("gives the end of the window for the window algorithms, allowed or refused", () => {
    expect(windowEnd(12_500, 10_000)).toBe(20_000);
    expect(windowEnd(20_000, 10_000)).toBe(30_000);
    expect(windowEnd(19_999, 10_000)).toBe(20_000);
    expect(upstashReset(fixedWindow(1, "10 s"), decision(true, 1, 2, 3), 12_500)).toBe(20_000);
    expect(upstashReset(slidingWindow(1, "10 s"), decision(false, 1, 2, 3), 12_500)).toBe(20_000);
  });

  it("gives the next token for the token bucket", () => {
    const bucket = tokenBucket(1, "10 s", 5);
    expect(upstashReset(bucket, decision(true, 100, 200, 300), 1000)).toBe(1300);
    expect(upstashReset(bucket, decision(false, 100, 200, 300), 1000)).toBe(1200);
    expect(upstashReset(bucket, decision(false, 100, Number.POSITIVE_INFINITY, 300), 1000)).toBe(11_000);
    expect(upstashReset(bucket, decision(true, 100, 200, Number.POSITIVE_INFINITY), 1000)).toBe(11_000);
  });

  it("gives the full quota back when allowed, the first fit when refused, for the others", () => {
    const log = slidingLog(1, "10 s");
    expect(upstashReset(log, decision(true, 100, 200, 300), 1000)).toBe(1100);
    expect(upstashReset(log, decision(false, 100, 200, 300), 1000)).toBe(1200);
    expect(upstashReset(gcra(1, "1 s"), decision(false, 100, Number.POSITIVE_INFINITY, 300), 1000)).toBe(1100);
  });
});

describe("EphemeralBlocks", () => {
  it("remembers a refusal under prefix:identifier until it ends", () => {
    const map = new Map<string, number>();
    const blocks = new EphemeralBlocks(map, "p");
    expect(blocks.blockedUntil("a", 0)).toBeUndefined();
    blocks.block("a", 100);
    expect([...map]).toEqual([["p:a", 100]]);
    expect(blocks.blockedUntil("a", 99)).toBe(100);
    expect(map.size).toBe(1);
    // At its end the entry is gone.
    expect(blocks.blockedUntil("a", 100)).toBeUndefined();
    expect(map.size).toBe(0);
    blocks.block("b", 50);
    blocks.forget("b");
    expect(map.size).toBe(0);
  });

  it("drops an entry that is not a number, and keeps other prefixes apart", () => {
    const map = new Map<string, number>([["p:a", "soon" as unknown as number]]);
    expect(new EphemeralBlocks(map, "p").blockedUntil("a", 0)).toBeUndefined();
    expect(map.size).toBe(0);
    new EphemeralBlocks(map, "q").block("a", 10);
    expect(new EphemeralBlocks(map, "p").blockedUntil("a", 0)).toBeUndefined();
    expect(map.get("q:a")).toBe(10);
  });

  it("keeps at most EPHEMERAL_ENTRIES, dropping the oldest (a re-block counts as new)", () => {
    expect(EPHEMERAL_ENTRIES).toBe(10_000);
    const map = new Map<string, number>();
    const blocks = new EphemeralBlocks(map, "p");
    for (let i = 0; i < EPHEMERAL_ENTRIES; i++) blocks.block(String(i), 1000);
    expect(map.size).toBe(EPHEMERAL_ENTRIES);
    blocks.block("0", 2000);
    expect(map.size).toBe(EPHEMERAL_ENTRIES);
    expect(map.keys().next().value).toBe("p:1");
    blocks.block("new", 1000);
    expect(map.size).toBe(EPHEMERAL_ENTRIES);
    expect(map.has("p:1")).toBe(false);
    expect(map.get("p:0")).toBe(2000);
    expect(map.get("p:new")).toBe(1000);
  });
});

describe("Ratelimit over plain counters", () => {
  const clock = { at: 0 };
  beforeEach(() => {
    clock.at = 1000 * HOUR + 2_500;
  });

  it("counts a sliding window with Upstash's fields, then refuses from the block cache", async () => {
    const { binding } = counters(clock);
    const ratelimit = new Ratelimit({ counters: binding, limiter: Ratelimit.slidingWindow(3, "10 s") }, { now: () => clock.at });
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const { pending, ...answer } = await ratelimit.limit("u");
      await pending;
      answers.push(answer);
    }
    const reset = 1000 * HOUR + 10_000;
    expect(answers).toEqual([
      { success: true, limit: 3, remaining: 2, reset },
      { success: true, limit: 3, remaining: 1, reset },
      { success: true, limit: 3, remaining: 0, reset },
    ]);
    const { pending: _first, ...refused } = await ratelimit.limit("u");
    expect(refused).toEqual({ success: false, limit: 3, remaining: 0, reset });
    const { pending: _second, ...cached } = await ratelimit.limit("u");
    expect(cached).toEqual({ success: false, limit: 3, remaining: 0, reset, reason: "cacheBlock" });
    expect(await ratelimit.getRemaining("u")).toEqual({ remaining: 0, reset, limit: 3 });
    expect(await ratelimit.getRemaining("other")).toEqual({ remaining: 3, reset, limit: 3 });
  });

  it("reports a bucket's capacity as the limit, takes `rate` tokens, and refuses a bad rate", async () => {
    const { binding } = counters(clock);
    const ratelimit = new Ratelimit({ counters: binding, limiter: Ratelimit.tokenBucket(1, "10 s", 4), ephemeralCache: false }, { now: () => clock.at });
    const { pending, ...answer } = await ratelimit.limit("u", { rate: 3 });
    await pending;
    // Upstash's bucket reports when its next token comes: one interval away.
    expect(answer).toEqual({ success: true, limit: 4, remaining: 1, reset: clock.at + 10_000 });
    const { pending: _p, ...read } = await ratelimit.limit("u", { rate: 0 });
    expect(read).toEqual({ success: true, limit: 4, remaining: 1, reset: clock.at + 10_000 });
    await expect(ratelimit.limit("u", { rate: -1 })).rejects.toThrow(new TypeError("Ratelimit.limit(): rate must be a whole number of at least 0, got -1"));
    await expect(ratelimit.limit("u", { rate: 1.5 })).rejects.toThrow("rate must be a whole number of at least 0, got 1.5");
    await expect(ratelimit.limit(1 as unknown as string)).rejects.toThrow("Ratelimit.limit(): the identifier must be a string, got number");
  });

  it("answers a refusal from a shared ephemeralCache Map until it would fit, and resetUsedTokens forgets it", async () => {
    const { binding, resets, calls } = counters(clock);
    const map = new Map<string, number>();
    const make = () =>
      new Ratelimit({ counters: binding, limiter: Ratelimit.fixedWindow(1, "10 s"), ephemeralCache: map, prefix: "px" }, { now: () => clock.at });
    const first = make();
    expect((await first.limit("u")).success).toBe(true);
    const refused = await first.limit("u");
    expect([refused.success, refused.reason]).toEqual([false, undefined]);
    // Refused at 2.5 s into the window: certain until the window ends.
    expect([...map]).toEqual([["px:u", 1000 * HOUR + 10_000]]);
    const before = calls();
    const second = make();
    const { pending, ...cached } = await second.limit("u");
    expect(cached).toEqual({ success: false, limit: 1, remaining: 0, reset: 1000 * HOUR + 10_000, reason: "cacheBlock" });
    expect(calls()).toBe(before);
    // A read (rate 0) is not answered from the cache.
    expect((await second.limit("u", { rate: 0 })).reason).toBeUndefined();
    await second.resetUsedTokens("u");
    expect(map.size).toBe(0);
    expect(resets).toEqual(['px/shard/32 ["px",["identifier","u"]]']);
    // At the end of the window the entry expires.
    clock.at = 1000 * HOUR + 10_000;
    map.set("px:v", 1000 * HOUR + 10_000);
    expect((await second.limit("v")).success).toBe(true);
  });

  it("does not cache a refusal of more than one token", async () => {
    const { binding } = counters(clock);
    const map = new Map<string, number>();
    const ratelimit = new Ratelimit({ counters: binding, limiter: Ratelimit.fixedWindow(2, "10 s"), ephemeralCache: map }, { now: () => clock.at });
    expect((await ratelimit.limit("u", { rate: 3 })).success).toBe(false);
    expect(map.size).toBe(0);
  });

  it("lets the request through with reason timeout when the counters fail", async () => {
    const ratelimit = new Ratelimit({ counters: failing, limiter: Ratelimit.fixedWindow(1, "10 s") }, { now: () => clock.at });
    const { pending, ...answer } = await ratelimit.limit("u");
    await pending;
    expect(answer).toEqual({ success: true, limit: 0, remaining: 0, reset: 0, reason: "timeout" });
  });

  describe("blockUntilReady", () => {
    const wait = vi.fn(async (ms: number) => {
      clock.at += ms;
    });
    beforeEach(() => {
      wait.mockClear();
      (globalThis as { scheduler?: unknown }).scheduler = { wait };
    });
    afterEach(() => {
      delete (globalThis as { scheduler?: unknown }).scheduler;
    });

    it("waits until the window ends, then takes the token", async () => {
      const { binding } = counters(clock);
      const ratelimit = new Ratelimit({ counters: binding, limiter: Ratelimit.fixedWindow(1, "10 s"), ephemeralCache: false }, { now: () => clock.at });
      expect((await ratelimit.blockUntilReady("u", 1000)).success).toBe(true);
      expect(wait).not.toHaveBeenCalled();
      const answer = await ratelimit.blockUntilReady("u", 30_000);
      expect(answer.success).toBe(true);
      expect(wait.mock.calls).toEqual([[7_500]]);
    });

    it("gives up at the deadline", async () => {
      const { binding } = counters(clock);
      const ratelimit = new Ratelimit({ counters: binding, limiter: Ratelimit.fixedWindow(1, "10 s"), ephemeralCache: false }, { now: () => clock.at });
      await ratelimit.limit("u");
      const answer = await ratelimit.blockUntilReady("u", 1000);
      expect(answer.success).toBe(false);
      expect(wait.mock.calls).toEqual([[1000]]);
      expect(clock.at).toBe(1000 * HOUR + 3_500);
      wait.mockClear();
      // Waiting exactly to the window's end is the deadline itself: one more try, allowed.
      const exact = await ratelimit.blockUntilReady("u", 6_500);
      expect(exact.success).toBe(true);
      expect(wait.mock.calls).toEqual([[6_500]]);
      await expect(ratelimit.blockUntilReady("u", 0)).rejects.toThrow(new TypeError("Ratelimit.blockUntilReady(): timeout must be positive, got 0"));
    });
  });
});

describe("the binding entrypoint", () => {
  const clock = { at: 0 };
  beforeEach(() => {
    clock.at = 2000 * HOUR + 2_500;
  });
  const isolateOn = (binding: Env["COUNTERS"], mode = "open") =>
    new Isolate({ env: {} as Env, settings: readSettings({ FAILURE_MODE: mode } as Env), counters: binding }, null, { now: () => clock.at });

  it("compiles its props once per configuration, as a sliding window of period seconds", () => {
    const limits = new BindingLimits();
    const domain = limits.domainOf({ namespace_id: "1001", simple: { limit: 100, period: 60 } });
    expect(limits.domainOf({ namespace_id: "1001", simple: { limit: 100, period: 60 } })).toBe(domain);
    expect(domain.domain).toBe("binding:1001");
    expect(limits.domainOf({ limit: 5, period: 10 }).domain).toBe("binding:default");
    expect(limits.domainOf({ namespace_id: 7, limit: 5, period: 10 }).domain).toBe("binding:7");
    expect(limits.domainOf({ namespace_id: "x".repeat(64), limit: 5, period: 10 }).domain).toBe(`binding:${"x".repeat(64)}`);
  });

  it("names what is wrong with the props", () => {
    const limits = new BindingLimits();
    const example = 'props = { namespace_id = "1001", simple = { limit = 100, period = 60 } }';
    expect(() => limits.domainOf(undefined)).toThrow(
      new TypeError(`RateLimiterBinding: the service binding has no props; give its [[services]] block ${example}`),
    );
    expect(() => limits.domainOf({})).toThrow("the service binding has no props");
    expect(() => limits.domainOf("x")).toThrow("the service binding has no props");
    expect(() => limits.domainOf({ limit: 1, period: 1, rate: 2 })).toThrow(
      new TypeError(`RateLimiterBinding: unknown prop "rate"; the props are namespace_id, simple, limit, period (${example})`),
    );
    expect(() => limits.domainOf({ simple: { limit: 1, period: 1 }, limit: 1 })).toThrow(
      new TypeError('RateLimiterBinding: give the limit and period either in "simple" or beside it, not both'),
    );
    expect(() => limits.domainOf({ simple: { limit: 1, period: 1 }, period: 1 })).toThrow("not both");
    expect(() => limits.domainOf({ simple: 5 })).toThrow(new TypeError('RateLimiterBinding: prop "simple" must be { limit, period }'));
    expect(() => limits.domainOf({ simple: null })).toThrow('prop "limit" must be a whole number of at least 1, got undefined');
    expect(() => limits.domainOf({ limit: 0, period: 10 })).toThrow(
      new TypeError(`RateLimiterBinding: prop "limit" must be a whole number of at least 1, got 0 (${example})`),
    );
    expect(() => limits.domainOf({ limit: 1, period: 1.5 })).toThrow('prop "period" must be a whole number of at least 1, got 1.5');
    expect(() => limits.domainOf({ limit: 1, period: "1" })).toThrow('prop "period" must be a whole number of at least 1, got "1"');
    expect(() => limits.domainOf({ namespace_id: "", limit: 1, period: 1 })).toThrow(
      new TypeError('RateLimiterBinding: prop "namespace_id" must be a string of 1 to 64 characters, got ""'),
    );
    expect(() => limits.domainOf({ namespace_id: "x".repeat(65), limit: 1, period: 1 })).toThrow('prop "namespace_id" must be a string of 1 to 64');
    expect(() => limits.domainOf({ namespace_id: true, limit: 1, period: 1 })).toThrow('prop "namespace_id" must be a string of 1 to 64 characters, got true');
  });

  it("keeps at most 256 configurations, dropping the oldest", () => {
    const limits = new BindingLimits();
    const first = limits.domainOf({ limit: 1, period: 1 });
    for (let i = 2; i <= 256; i++) limits.domainOf({ limit: i, period: 1 });
    expect(limits.domainOf({ limit: 1, period: 1 })).toBe(first);
    limits.domainOf({ limit: 257, period: 1 });
    expect(limits.domainOf({ limit: 1, period: 1 })).not.toBe(first);
  });

  it("allows limit requests per period for one key, then refuses; the period is in seconds", async () => {
    const { binding } = counters(clock);
    const isolate = isolateOn(binding);
    const domain = new BindingLimits().domainOf({ simple: { limit: 2, period: 10 } });
    const work: Promise<unknown>[] = [];
    const defer = (p: Promise<unknown>) => void work.push(p);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push((await bindingLimit(isolate, domain, { key: "k" }, defer)).success);
    expect(answers).toEqual([true, true, false]);
    expect((await bindingLimit(isolate, domain, { key: "other" }, defer)).success).toBe(true);
    // Two whole periods later the sliding window has forgotten both hits: the period is 10 s, not 10 ms or 1000 s.
    clock.at += 20_000;
    expect((await bindingLimit(isolate, domain, { key: "k" }, defer)).success).toBe(true);
    await Promise.all(work);
  });

  it("refuses bad options and answers by FAILURE_MODE when the counters fail", async () => {
    const isolate = isolateOn(failing);
    const domain = new BindingLimits().domainOf({ limit: 1, period: 10 });
    const defer = () => undefined;
    await expect(bindingLimit(isolate, domain, null, defer)).rejects.toThrow(new TypeError("RateLimiterBinding.limit(): expected { key }, got null"));
    await expect(bindingLimit(isolate, domain, "k", defer)).rejects.toThrow(new TypeError("RateLimiterBinding.limit(): expected { key }, got string"));
    await expect(bindingLimit(isolate, domain, { key: "k", cost: 2 }, defer)).rejects.toThrow(
      new TypeError('RateLimiterBinding.limit(): unknown option "cost"; it takes { key }'),
    );
    await expect(bindingLimit(isolate, domain, {}, defer)).rejects.toThrow("RateLimiterBinding.limit({ key }): the identifier must be a string, got undefined");
    const quiet = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      expect(await bindingLimit(isolate, domain, { key: "k" }, defer)).toEqual({ success: true });
      expect(await bindingLimit(isolateOn(failing, "closed"), domain, { key: "k" }, defer)).toEqual({ success: false });
    } finally {
      quiet.mockRestore();
    }
  });
});
