/**
 * `floodgate/limiter`'s Ratelimit held to Upstash ratelimit's documented
 * behaviour: its README and method examples with only the import and the
 * store changed (`redis: Redis.fromEnv()` → `counters: env.COUNTERS`), run
 * against real CounterObjects.
 */
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import type { CounterObject } from "../../src/durable/counters/counter-object.ts";
import type { Env } from "../../src/config.ts";
import { samplesOfAllShards } from "../../src/metrics/shard-reads.ts";
import { Ratelimit as RealTimeRatelimit } from "../../src/package/limiter.ts";
import { drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";
import { hangingCounters } from "../support/failing.ts";

const realCounters = (env as unknown as { COUNTERS: DurableObjectNamespace<CounterObject> }).COUNTERS;
let serial = 0;
const unique = (label: string) => `${label}-${Date.now()}-${serial++}`;

/**
 * One driven clock per test (docs/testing.md): every Ratelimit a test makes,
 * and the counter objects it reaches, read `clock.at`, which moves only when
 * the test moves it. Each test starts an hour after the last, so an object
 * two tests share never sees its clock go back.
 */
const clock = { at: OBJECT_EPOCH };
let counters = realCounters as unknown as DurableObjectNamespace;
beforeEach(() => {
  clock.at = Math.ceil((clock.at + 1) / 3_600_000) * 3_600_000 + 2_500;
  counters = drivenCounters(realCounters, () => clock.at) as unknown as DurableObjectNamespace;
});
class Ratelimit extends RealTimeRatelimit {
  constructor(config: ConstructorParameters<typeof RealTimeRatelimit>[0]) {
    super(config, { now: () => clock.at });
  }
}

describe("Upstash's README example (Basic Usage)", () => {
  it("allows 10 requests per 10 seconds, then answers success false with the documented fields", async () => {
    // As in the README, but `counters` for `redis` (and analytics, without a metrics namespace, keeps nothing).
    const ratelimit = new Ratelimit({
      counters,
      limiter: Ratelimit.slidingWindow(10, "10 s"),
      analytics: true,
      prefix: "@upstash/ratelimit",
    });
    const identifier = unique("api");
    const remaining: number[] = [];
    const resets: number[] = [];
    for (let i = 0; i < 10; i++) {
      const { success, limit, remaining: left, reset, pending } = await ratelimit.limit(identifier);
      expect(success).toBe(true);
      expect(limit).toBe(10);
      await pending;
      remaining.push(left);
      resets.push(reset);
      clock.at += 100;
    }
    expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    // The clock started 2.5 s into a 10 s window: every answer gives the end of the current window, as Upstash's does.
    const windowStart = clock.at - 1_000 - 2_500;
    expect(resets).toEqual(Array(10).fill(windowStart + 10_000));
    const refused = await ratelimit.limit(identifier);
    expect(refused).toMatchObject({ success: false, limit: 10, remaining: 0, reset: windowStart + 10_000 });
    expect(refused.pending).toBeInstanceOf(Promise);
    // Another identifier has its own quota.
    expect((await ratelimit.limit(unique("other"))).success).toBe(true);
  });
});

describe("the methods' examples", () => {
  it("limit(id, { rate }) takes `rate` tokens", async () => {
    const ratelimit = new Ratelimit({ counters, limiter: Ratelimit.slidingWindow(100, "10 s") });
    const id = unique("rate");
    expect(await ratelimit.limit(id, { rate: 10 })).toMatchObject({ success: true, remaining: 90 });
    // Refused, it reports 0 left, as Upstash does; nothing was taken.
    expect(await ratelimit.limit(id, { rate: 91 })).toMatchObject({ success: false, remaining: 0 });
    expect(await ratelimit.limit(id, { rate: 90 })).toMatchObject({ success: true, remaining: 0 });
  });

  it("getRemaining reads { remaining, reset, limit } without consuming", async () => {
    const ratelimit = new Ratelimit({ counters, limiter: Ratelimit.fixedWindow(10, "1 m") });
    const id = unique("remaining");
    for (let i = 0; i < 3; i++) await ratelimit.limit(id);
    const first = await ratelimit.getRemaining(id);
    // The clock stands 2.5 s into a minute's fixed window.
    expect(first).toEqual({ remaining: 7, reset: clock.at + 57_500, limit: 10 });
    expect((await ratelimit.getRemaining(id)).remaining).toBe(7);
  });

  it("resetUsedTokens gives the identifier its full quota back, in this isolate's block cache too", async () => {
    const ratelimit = new Ratelimit({ counters, limiter: Ratelimit.fixedWindow(2, "1 h") });
    const id = unique("reset");
    await ratelimit.limit(id);
    await ratelimit.limit(id);
    expect((await ratelimit.limit(id)).success).toBe(false);
    expect((await ratelimit.limit(id)).reason).toBe("cacheBlock");
    await ratelimit.resetUsedTokens(id);
    expect(await ratelimit.limit(id)).toMatchObject({ success: true, remaining: 1 });
  });

  // blockUntilReady sleeps on the runtime's scheduler, which no driven clock moves: these two run on
  // the machine's clock, with a prefix (objects) of their own, and assert on no time.
  it("blockUntilReady waits for the next window and then passes", async () => {
    const ratelimit = new RealTimeRatelimit({ counters: realCounters, limiter: Ratelimit.fixedWindow(1, "1 s"), prefix: "block-until-ready" });
    const id = unique("block");
    expect((await ratelimit.limit(id)).success).toBe(true);
    expect((await ratelimit.limit(id)).success).toBe(false);
    const { success } = await ratelimit.blockUntilReady(id, 30_000);
    expect(success).toBe(true);
  });

  it("blockUntilReady gives up with success false when the timeout comes first", async () => {
    const ratelimit = new RealTimeRatelimit({ counters: realCounters, limiter: Ratelimit.fixedWindow(1, "1 h"), prefix: "block-until-ready" });
    const id = unique("block-timeout");
    await ratelimit.limit(id);
    expect((await ratelimit.blockUntilReady(id, 20)).success).toBe(false);
    await expect(ratelimit.blockUntilReady(id, 0)).rejects.toThrow(/timeout must be positive/);
  });
});

describe("the options", () => {
  it("ephemeralCache: refusals are answered from the block cache (reason cacheBlock); false turns it off", async () => {
    const cached = new Ratelimit({ counters, limiter: Ratelimit.fixedWindow(1, "1 h"), ephemeralCache: new Map() });
    const uncached = new Ratelimit({ counters, limiter: Ratelimit.fixedWindow(1, "1 h"), ephemeralCache: false });
    for (const [ratelimit, reason] of [
      [cached, "cacheBlock"],
      [uncached, undefined],
    ] as const) {
      const id = unique("cache");
      await ratelimit.limit(id);
      const first = await ratelimit.limit(id);
      expect(first.success).toBe(false);
      expect(first.reason).toBeUndefined();
      const second = await ratelimit.limit(id);
      expect(second.success).toBe(false);
      expect(second.reason).toBe(reason);
    }
  });

  it("ephemeralCache: a Map kept at module scope serves a Ratelimit made per request, as in Upstash's Workers example", async () => {
    // Upstash's examples/cloudflare-workers: `const cache = new Map()` at module scope, the Ratelimit made in fetch.
    const cache = new Map<string, number>();
    const id = unique("per-request");
    const answers = [];
    for (let i = 0; i < 4; i++) {
      const ratelimit = new Ratelimit({ counters, limiter: Ratelimit.cachedFixedWindow(2, "1 h"), ephemeralCache: cache });
      answers.push(await ratelimit.limit(id));
    }
    expect(answers.map((a) => [a.success, a.reason])).toEqual([
      [true, undefined],
      [true, undefined],
      [false, undefined],
      [false, "cacheBlock"],
    ]);
    const hourEnd = (Math.floor(clock.at / 3_600_000) + 1) * 3_600_000;
    expect(answers[3]).toMatchObject({ limit: 2, remaining: 0, reset: hourEnd });
    // Upstash's key, with the instant the refusal ends.
    expect([...cache]).toEqual([[`@upstash/ratelimit:${id}`, hourEnd]]);
    // resetUsedTokens forgets it there too.
    await new Ratelimit({ counters, limiter: Ratelimit.cachedFixedWindow(2, "1 h"), ephemeralCache: cache }).resetUsedTokens(id);
    expect(cache.size).toBe(0);
  });

  it("made at module scope, it does nothing the global scope forbids: no call on the namespace, no random id", async () => {
    const touched: string[] = [];
    const watched = new Proxy(counters, {
      get(target, prop) {
        const value = Reflect.get(target, prop);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          touched.push(String(prop));
          return Reflect.apply(value, target, args);
        };
      },
    });
    const { randomUUID, getRandomValues } = crypto;
    const forbidden = () => {
      throw new Error("Disallowed operation called within global scope");
    };
    Object.assign(crypto, { randomUUID: forbidden, getRandomValues: forbidden });
    let ratelimit: Ratelimit;
    try {
      ratelimit = new Ratelimit({ counters: watched, limiter: Ratelimit.slidingWindow(10, "10 s"), metrics: env.METRICS as never, analytics: true });
    } finally {
      Object.assign(crypto, { randomUUID, getRandomValues });
    }
    expect(touched).toEqual([]);
    // The first request starts it.
    expect((await ratelimit.limit(unique("module-scope"))).success).toBe(true);
    expect(touched.length).toBeGreaterThan(0);
  });

  it("prefix keeps counters apart; instances with the same prefix share them", async () => {
    const id = unique("prefix");
    const a = new Ratelimit({ counters, limiter: Ratelimit.fixedWindow(1, "1 h"), prefix: "app-a" });
    const b = new Ratelimit({ counters, limiter: Ratelimit.fixedWindow(1, "1 h"), prefix: "app-b" });
    expect((await a.limit(id)).success).toBe(true);
    expect((await a.limit(id)).success).toBe(false);
    expect((await b.limit(id)).success).toBe(true);
    // Another instance with the same prefix (as in another isolate, with an empty block cache) sees the same count.
    const again = new Ratelimit({ counters, limiter: Ratelimit.fixedWindow(1, "1 h"), prefix: "app-a" });
    expect(await again.limit(id)).toMatchObject({ success: false, remaining: 0 });
    expect((await again.limit(id)).reason).toBe("cacheBlock");
  });

  it("analytics with metrics counts each decision in floodgate's metrics, under the prefix as domain", async () => {
    const metrics = (env as unknown as { METRICS: DurableObjectNamespace }).METRICS;
    const prefix = unique("analytics");
    const ratelimit = new Ratelimit({ counters, limiter: Ratelimit.fixedWindow(5, "1 h"), prefix, analytics: true, metrics });
    const { pending } = await ratelimit.limit("user-1");
    // The counts go out in `pending`, as Upstash's analytics do.
    await pending;
    const samples = await samplesOfAllShards(metrics as unknown as Env["METRICS"]);
    const hits = samples.find((s) => s.name === "ratelimit_service_rate_limit_total_hits" && s.labels.some(([k, v]) => k === "domain" && v === prefix));
    expect(hits?.value).toBe(1);
  });

  it("timeout: a counter that does not answer in time lets the request through with reason timeout", async () => {
    const ratelimit = new Ratelimit({ counters: hangingCounters, limiter: Ratelimit.slidingWindow(10, "10 s"), timeout: 50 });
    const response = await ratelimit.limit(unique("timeout"));
    expect(response).toMatchObject({ success: true, limit: 0, remaining: 0, reset: 0, reason: "timeout" });
  });
});

describe("the algorithms", () => {
  const cases = [
    ["tokenBucket(5, '10 s', 10): 10 at once, limit reports maxTokens", Ratelimit.tokenBucket(5, "10 s", 10), 10, 10],
    ["fixedWindow(3, '1m')", Ratelimit.fixedWindow(3, "1m"), 3, 3],
    ["slidingLog(4, '1 h')", Ratelimit.slidingLog(4, "1 h"), 4, 4],
    ["leakyBucket(1, '1 m', 3)", Ratelimit.leakyBucket(1, "1 m", 3), 3, 3],
    ["gcra(1, '1 d', 2)", Ratelimit.gcra(1, "1 d", 2), 2, 2],
  ] as const;
  for (const [name, limiter, allowed, limit] of cases) {
    it(`${name} allows ${allowed}, then refuses`, async () => {
      const ratelimit = new Ratelimit({ counters, limiter });
      const id = unique("algo");
      for (let i = 0; i < allowed; i++) expect(await ratelimit.limit(id)).toMatchObject({ success: true, limit });
      expect((await ratelimit.limit(id)).success).toBe(false);
    });
  }

  it("a long identifier is counted (under its hash) like any other", async () => {
    const ratelimit = new Ratelimit({ counters, limiter: Ratelimit.fixedWindow(1, "1 h") });
    const long = `${unique("long")}-${"x".repeat(100_000)}`;
    expect((await ratelimit.limit(long)).success).toBe(true);
    expect((await ratelimit.limit(long)).success).toBe(false);
    expect((await ratelimit.limit(`${long}y`)).success).toBe(true);
  });
});

describe("errors name what is wrong", () => {
  const limiter = Ratelimit.slidingWindow(10, "10 s");
  it("an unknown option", () => {
    expect(() => new Ratelimit({ counters, limiter, prefx: "x" } as never)).toThrow('new Ratelimit(): unknown option "prefx"');
  });
  it("an Upstash option floodgate does not support", () => {
    expect(() => new Ratelimit({ redis: {}, limiter } as never)).toThrow(/option "redis" is not supported: .*replace `redis` with `counters`/);
    expect(() => new Ratelimit({ counters, limiter, enableProtection: true } as never)).toThrow(/option "enableProtection" is not supported/);
  });
  it("a duration that does not parse", () => {
    expect(() => Ratelimit.slidingWindow(10, "10 seconds" as never)).toThrow(
      'Ratelimit.slidingWindow(10, "10 seconds"): unable to parse the window "10 seconds"',
    );
    expect(() => Ratelimit.tokenBucket(1, "1.5 s" as never, 2)).toThrow(/unable to parse the window "1.5 s"/);
  });
  it("a window that is not whole seconds, and counts that are not whole", () => {
    expect(() => new Ratelimit({ counters, limiter: Ratelimit.fixedWindow(10, "500 ms") })).toThrow(
      'Ratelimit.fixedWindow(10, "500 ms"): the window must be a whole number of seconds',
    );
    expect(() => Ratelimit.tokenBucket(1, "1 s", 0)).toThrow("Ratelimit.tokenBucket: maxTokens must be a whole number of at least 1, got 0");
    // What the counters cannot hold is refused when the Ratelimit is made, in the factory's terms.
    expect(() => new Ratelimit({ counters, limiter: Ratelimit.slidingLog(20000, "1 m") })).toThrow(
      /^Ratelimit\.slidingLog\(20000, "1 m"\): the limit: sliding_window_log keeps one entry per request/,
    );
  });
  it("a rate that is not a whole number", async () => {
    const ratelimit = new Ratelimit({ counters, limiter });
    await expect(ratelimit.limit("x", { rate: -1 })).rejects.toThrow("Ratelimit.limit(): rate must be a whole number of at least 0, got -1");
  });
});
