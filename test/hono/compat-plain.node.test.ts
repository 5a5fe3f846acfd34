/**
 * `rateLimit()` with hono-rate-limiter's options in plain Node (mutation
 * testing, docs/testing.md): its option checks, and the middleware over
 * plain counter objects (test/support/plain-counters.ts) on a driven clock,
 * with exact headers, bodies and counts. The same through real objects runs
 * in workerd (test/hono/hono-rate-limiter.test.ts).
 */
import { Hono, type MiddlewareHandler } from "hono";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Env } from "../../src/config.ts";
import { checkLimit, compatSettings } from "../../src/hono/compat-options.ts";
import { rateLimitOn } from "../../src/hono/middleware.ts";
import { plainNamespace } from "../support/plain-counters.ts";

const HOUR = 3_600_000;
const clock = { at: 0 };
beforeEach(() => {
  clock.at = 3000 * HOUR + 2_500;
});

function counters() {
  const plain = plainNamespace(() => clock.at);
  const resets: string[] = [];

  const base = plain.binding as unknown as { getByName(name: string): object; idFromName(name: string): unknown };
  const binding = {
    getByName: (name: string) => {
      const stub = base.getByName(name);
      return {
        ...stub,
        reset: async (key: string) => void resets.push(`${name} ${key}`),
      };
    },
    idFromName: base.idFromName,
  } as unknown as Env["COUNTERS"];
  return { binding, resets };
}

const failing = {
  getByName: () => ({
    decideText: async () => {
      throw new Error("down");
    },
    decide: async () => {
      throw new Error("down");
    },
  }),
  idFromName: (name: string) => ({ toString: () => `failing:${name}` }),
} as unknown as Env["COUNTERS"];

type Options = Parameters<typeof rateLimitOn>[0];

function appWith(middlewares: MiddlewareHandler[], status = 200) {
  const app = new Hono();
  for (const m of middlewares) app.use(m);
  app.get("/", (c) => c.json({ rateLimit: c.get("rateLimit") ?? null }, status as 200));
  app.get("/throws", () => {
    throw new Error("handler failed");
  });
  const env = {};
  return (path = "/") => app.request(path, {}, env);
}

describe("compatSettings", () => {
  const keyGenerator = () => "k";

  it("fills in hono-rate-limiter's defaults", () => {
    const s = compatSettings({ keyGenerator });
    expect({ ...s, handler: undefined, skip: undefined, settings: undefined }).toEqual({
      keyGenerator,
      windowMs: 60_000,
      limit: 5,
      standardHeaders: "draft-6",
      handler: undefined,
      skip: undefined,
      skipFailedRequests: false,
      skipSuccessfulRequests: false,
      message: "Too many requests, please try again later.",
      statusCode: 429,
      requestPropertyName: "rateLimit",
      requestStorePropertyName: "rateLimitStore",
      prefix: undefined,
      dialect: "draft-6",
      settings: undefined,
    });
    expect(s.skip({} as never)).toBe(false);
    expect(s.settings.failureMode).toBe("local");
    expect(s.settings.decisionTimeoutMs).toBe(1000);
  });

  it("maps standardHeaders to a dialect and the skip options to the statuses charged", () => {
    expect(compatSettings({ keyGenerator, standardHeaders: true }).dialect).toBe("draft-6");
    expect(compatSettings({ keyGenerator, standardHeaders: "draft-7" }).dialect).toBe("draft-7");
    expect(compatSettings({ keyGenerator, standardHeaders: false }).dialect).toBe("none");
    expect(compatSettings({ keyGenerator, skipFailedRequests: true }).countWhen).toEqual(["100-399"]);
    expect(compatSettings({ keyGenerator, skipSuccessfulRequests: true }).countWhen).toEqual(["400-599"]);
    expect("countWhen" in compatSettings({ keyGenerator, skipSuccessfulRequests: false })).toBe(false);
    const s = compatSettings({ keyGenerator, windowMs: 1000, limit: 0, statusCode: 503, message: "m", prefix: "p", failureMode: "closed", timeoutMs: 50 });
    expect([s.windowMs, s.limit, s.statusCode, s.message, s.prefix, s.settings.failureMode, s.settings.decisionTimeoutMs]).toEqual([
      1000,
      0,
      503,
      "m",
      "p",
      "closed",
      50,
    ]);
    expect(compatSettings({ keyGenerator, statusCode: 200 as never }).statusCode).toBe(200);
    expect(compatSettings({ keyGenerator, statusCode: 599 as never }).statusCode).toBe(599);
    expect(compatSettings({ keyGenerator, requestPropertyName: "rl", requestStorePropertyName: "st" })).toMatchObject({
      requestPropertyName: "rl",
      requestStorePropertyName: "st",
    });
  });

  it("names what is wrong", () => {
    const bad = (options: unknown) => () => compatSettings(options as never);
    expect(bad(null)).toThrow(new TypeError("rateLimit(): expected an options object"));
    expect(bad({ keyGenerator, store: {} })).toThrow(
      new TypeError(
        'rateLimit(): option "store" is not supported: floodgate keeps the counts in its CounterObject: remove `store` (and pass `counters` if the namespace is not c.env.COUNTERS)',
      ),
    );
    expect(bad({ keyGenerator, shadowMode: true })).toThrow(
      new TypeError('rateLimit(): option "shadowMode" needs a rules document ("rules"); hono-rate-limiter\'s options take none'),
    );
    expect(bad({ keyGenerator, max: 5 })).toThrow('rateLimit(): unknown option "max"; without rules the options are ');
    expect(bad({})).toThrow(new TypeError("rateLimit(): keyGenerator is required: a function of the context giving the client's key"));
    const windowError = (v: unknown) => `rateLimit(): windowMs must be a whole number of seconds in milliseconds (at least 1000), got ${JSON.stringify(v)}`;
    for (const windowMs of [999, 0, 1500, 1000.5, "1000"]) expect(bad({ keyGenerator, windowMs })).toThrow(new TypeError(windowError(windowMs)));
    expect(bad({ keyGenerator, limit: -1 })).toThrow(new TypeError("rateLimit(): limit must be a whole number of at least 0, got -1"));
    expect(bad({ keyGenerator, standardHeaders: "draft-8" })).toThrow(
      new TypeError('rateLimit(): standardHeaders must be true, false, "draft-6" or "draft-7", got "draft-8"'),
    );
    for (const name of ["handler", "skip", "counters", "metrics"]) {
      expect(bad({ keyGenerator, [name]: 1 })).toThrow(new TypeError(`rateLimit(): ${name} must be a function`));
    }
    expect(bad({ keyGenerator, skipFailedRequests: "yes" })).toThrow(new TypeError('rateLimit(): skipFailedRequests must be true or false, got "yes"'));
    expect(bad({ keyGenerator, skipSuccessfulRequests: 1 })).toThrow(new TypeError("rateLimit(): skipSuccessfulRequests must be true or false, got 1"));
    expect(bad({ keyGenerator, skipFailedRequests: true, skipSuccessfulRequests: true })).toThrow(
      new TypeError("rateLimit(): skipFailedRequests and skipSuccessfulRequests together skip every request"),
    );
    for (const statusCode of [199, 600, 429.5]) {
      expect(bad({ keyGenerator, statusCode })).toThrow(new TypeError(`rateLimit(): statusCode must be an HTTP status, got ${statusCode}`));
    }
    expect(bad({ keyGenerator, prefix: "" })).toThrow(new TypeError('rateLimit(): prefix must be a non-empty string, got ""'));
    expect(bad({ keyGenerator, prefix: 1 })).toThrow("prefix must be a non-empty string, got 1");
    expect(bad({ keyGenerator, requestPropertyName: "" })).toThrow(new TypeError('rateLimit(): requestPropertyName must be a non-empty string, got ""'));
    expect(bad({ keyGenerator, requestStorePropertyName: 1 })).toThrow("rateLimit(): requestStorePropertyName must be a non-empty string, got 1");
  });

  it("checkLimit takes whole numbers from 0", () => {
    expect(checkLimit(0)).toBe(0);
    expect(checkLimit(7)).toBe(7);
    for (const bad of [-1, 1.5, "3", null]) expect(() => checkLimit(bad), String(bad)).toThrow(TypeError);
  });
});

describe("the middleware over plain counters", () => {
  const on = (options: Record<string, unknown>, binding: Env["COUNTERS"]) =>
    rateLimitOn({ keyGenerator: () => "client", counters: () => binding, ...options } as Options, { now: () => clock.at });

  it("counts a fixed window with draft-6 headers and hono-rate-limiter's fields, then answers the default 429", async () => {
    const { binding } = counters();
    const call = appWith([on({ limit: 2, windowMs: 10_000 }, binding)]);
    const first = await call();
    expect(first.status).toBe(200);
    expect([first.headers.get("RateLimit-Limit"), first.headers.get("RateLimit-Remaining"), first.headers.get("RateLimit-Reset")]).toEqual(["2", "1", "8"]);
    const { rateLimit } = (await first.json()) as { rateLimit: { limit: number; remaining: number; used: number; resetTime: string } };
    expect([rateLimit.limit, rateLimit.remaining, rateLimit.used, rateLimit.resetTime]).toEqual([2, 1, 1, new Date(3000 * HOUR + 10_000).toISOString()]);
    expect((await call()).status).toBe(200);
    const over = await call();
    expect(over.status).toBe(429);
    expect(await over.text()).toBe("Too many requests, please try again later.");
    expect([over.headers.get("RateLimit-Remaining"), over.headers.get("Retry-After")]).toEqual(["0", "8"]);
  });

  it("answers with statusCode and a JSON message, or the user's handler", async () => {
    const { binding } = counters();
    const json = appWith([on({ limit: 0, statusCode: 503, message: { error: "slow down" }, standardHeaders: false }, binding)]);
    const refused = await json();
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ error: "slow down" });
    expect(refused.headers.get("RateLimit-Limit")).toBeNull();
    const fn = appWith([on({ limit: 0, prefix: "fn", message: () => "computed" }, binding)]);
    expect(await (await fn()).text()).toBe("computed");
    const handled = appWith([on({ limit: 0, prefix: "h", handler: (c: { text(t: string, s: number): Response }) => c.text("mine", 418) }, binding)]);
    const answer = await handled();
    expect([answer.status, await answer.text()]).toEqual([418, "mine"]);
  });

  it("keeps two middlewares on one mount apart, and one prefix shared", async () => {
    const { binding } = counters();
    const two = appWith([on({ limit: 1 }, binding), on({ limit: 1 }, binding)]);
    expect((await two()).status).toBe(200);
    expect((await two()).status).toBe(429);
    const shared = appWith([on({ limit: 2, prefix: "same" }, binding), on({ limit: 2, prefix: "same" }, binding)]);
    expect((await shared()).status).toBe(200);
    expect((await shared()).status).toBe(429);
  });

  it("skips what skip says, and a limit function's answer is its own limit per plan", async () => {
    const { binding } = counters();
    let skip = true;
    const skipping = appWith([on({ limit: 0, skip: () => skip }, binding)]);
    expect((await skipping()).status).toBe(200);
    skip = false;
    expect((await skipping()).status).toBe(429);
    let plan = 1;
    const plans = appWith([on({ limit: () => plan, prefix: "plans", keyGenerator: () => `plan-${plan}` }, binding)]);
    expect((await plans()).headers.get("RateLimit-Limit")).toBe("1");
    plan = 3;
    expect((await plans()).headers.get("RateLimit-Limit")).toBe("3");
    const badLimit = appWith([on({ limit: () => -2, prefix: "bad" }, binding)]);
    expect((await badLimit()).status).toBe(500);
  });

  it("sets the store: getKey reads the hits, resetKey forgets them", async () => {
    const { binding, resets } = counters();
    const app = new Hono();
    app.use(on({ limit: 3, windowMs: 10_000, prefix: "store" }, binding));
    app.get("/", async (c) => {
      const store = c.get("rateLimitStore");
      const hit = await store.getKey("client");
      const none = await store.getKey("nobody");
      await store.resetKey("client");
      return c.json({ hit: hit && { totalHits: hit.totalHits, resetTime: hit.resetTime?.toISOString() }, none: none ?? null });
    });
    const response = await app.request("/", {}, {});
    expect(await response.json()).toEqual({ hit: { totalHits: 1, resetTime: new Date(3000 * HOUR + 10_000).toISOString() }, none: null });
    expect(resets).toEqual(['store/shard/44 ["store",["identifier","client"]]']);
  });

  it("answers by failureMode when the counters fail: 503 with a problem closed, marked and through open, decided in the isolate local", async () => {
    const quiet = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const closed = await appWith([on({ failureMode: "closed" }, failing)])();
      expect(closed.status).toBe(503);
      expect([closed.headers.get("Retry-After"), closed.headers.get("X-RateLimit-Decision")]).toEqual(["1", "failure-closed"]);
      expect(await closed.json()).toMatchObject({ status: 503, retry_after: 1 });
      const open = await appWith([on({ failureMode: "open" }, failing)])();
      expect(open.status).toBe(200);
      expect(open.headers.get("X-RateLimit-Decision")).toBe("failure-open");
      // The default, local: the isolate's own counter decides.
      const local = await appWith([on({}, failing)])();
      expect(local.status).toBe(200);
      expect(local.headers.get("X-RateLimit-Decision")).toBe("local");
    } finally {
      quiet.mockRestore();
    }
  });
});
