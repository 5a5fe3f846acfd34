/**
 * The rules and metrics objects far from the edge (issue 39): every call to
 * them goes through a wrapper that waits DISTANCE_MS before it reaches the
 * real object and again before its answer comes back. Requests must not
 * wait for them: not a steady stream, not the first request after an idle
 * gap. What is asserted is order, not time: each response is in hand while
 * the call its request set off is still on the wire. The isolates' rules
 * clock is driven (LiveRules `now`); the objects are real.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { isolateContexts } from "../../src/admission/isolate-context.ts";
import { createApp } from "../../src/gateway/app.ts";
import { compileOnce } from "../../src/rules/index.ts";
import { LiveRules, REFRESH_AFTER_MS } from "../../src/isolate/live-rules.ts";
import { RULES_PACE } from "../../src/isolate/rules-pace.ts";

const DISTANCE_MS = 400;
const TOKEN = "test-admin-token-0123456789abcdef";
const testEnv = env as unknown as Env;
const bundled = { domain: "far", descriptors: [{ key: "k", rate_limit: { unit: "minute", requests_per_unit: 1000 } }] };
const uploaded = { domain: "far", descriptors: [{ key: "k", rate_limit: { unit: "hour", requests_per_unit: 1000 } }] };

/** A namespace whose objects answer DISTANCE_MS × 2 late; `log` records each call's departure and answer. */
function distant<N extends { getByName(name: string): unknown }>(namespace: N, tag: string, log: string[]): N {
  const sleep = () => new Promise((resolve) => setTimeout(resolve, DISTANCE_MS));
  const getByName = (name: string) =>
    new Proxy(
      {},
      {
        get: (_, method) =>
          method === "then"
            ? undefined
            : async (...args: unknown[]) => {
                log.push(`${tag} sent`);
                await sleep();
                const stub = namespace.getByName(name) as Record<string | symbol, (...a: unknown[]) => Promise<unknown>>;
                const answer = await stub[method](...args);
                await sleep();
                log.push(`${tag} answered`);
                return answer;
              },
      },
    );
  return { getByName } as unknown as N;
}

let objects = 0;

/** One isolate of the gateway, on a driven rules clock, its stores DISTANCE_MS away. */
function isolate(objectName: string, clock: { at: number }) {
  const log: string[] = [];
  const rules = compileOnce(bundled, "bundled")();
  const app = createApp(isolateContexts(new LiveRules(() => rules, { objectName, bundledJson: bundled, now: () => clock.at })));
  const callEnv = {
    ...testEnv,
    ADMIN_TOKEN: TOKEN,
    // Every request sends its counts: the metrics object is called all along the stream.
    METRICS_FLUSH_MS: "0",
    ORIGIN_URL: undefined,
    RULES: distant(testEnv.RULES, "rules", log),
    METRICS: distant(testEnv.METRICS, "metrics", log),
  };
  /** One request; `during`: what the log took from its start to its response (before its background work ended). */
  async function call(path: string, init: RequestInit = {}) {
    const ctx = createExecutionContext();
    const from = log.length;
    const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "cf-connecting-ip": "192.0.2.9" };
    const started = Date.now();
    const response = await app.fetch(new Request(`http://gateway.test${path}`, { ...init, headers }), callEnv, ctx);
    const during = log.slice(from);
    const tookMs = Date.now() - started;
    const text = await response.text();
    await waitOnExecutionContext(ctx);
    // What the request's background work did: a check reads the location's copy first, so its call may leave after the response.
    const background = log.slice(from + during.length);
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text), during, background, tookMs };
  }
  const limit = async () => {
    const answer = await call("/__ratelimit/json", {
      method: "POST",
      body: JSON.stringify({ domain: "far", descriptors: [{ entries: [{ key: "k", value: "v" }] }], hits_addend: 0 }),
    });
    return { ...answer, limit: answer.body.statuses[0].currentLimit.unit as string };
  };
  return { call, limit, log };
}

/** Calls of `tag` sent and not yet answered in `log`. */
const onTheWire = (log: readonly string[], tag: string) => log.filter((e) => e === `${tag} sent`).length - log.filter((e) => e === `${tag} answered`).length;
const rulesCall = (entry: string) => entry.startsWith("rules");
const answered = (entry: string) => entry.endsWith("answered");
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

describe("rules and metrics objects far from the edge", () => {
  it("never hold up a request after an idle gap or in a steady stream; only a fresh isolate's first request waits, once", async () => {
    const clock = { at: 1_000_000 };
    const one = isolate(`distant-${++objects}`, clock);
    const first = await one.limit();
    // The fresh isolate's one wait: it knew no version.
    expect(first.during.filter(rulesCall)).toEqual(["rules sent", "rules answered"]);
    expect(first.limit).toBe("MINUTE");

    // Idle long enough for the location's copy to be stale and the isolate's own gap (RULES_PACE.copyFreshMs,
    // stretched by up to half) over: the request is answered before its check's call to the object is answered.
    clock.at += 1.5 * RULES_PACE.copyFreshMs;
    const afterIdle = await one.limit();
    expect([...afterIdle.during, ...afterIdle.background].filter(rulesCall)).toEqual(["rules sent", "rules answered"]);
    expect(afterIdle.during.filter(answered)).toEqual([]);

    // A steady stream, through more checks: no response waits for the rules or the metrics object.
    const took: number[] = [afterIdle.tookMs];
    for (let i = 0; i < 12; i++) {
      clock.at += (1.5 * RULES_PACE.copyFreshMs) / 4;
      const answer = await one.limit();
      expect(answer.status).toBe(200);
      took.push(answer.tookMs);
      // No call's answer comes before the response of the request it was made in.
      expect(answer.during.filter(answered)).toEqual([]);
    }
    expect(one.log.filter((e) => e === "rules sent").length).toBeGreaterThanOrEqual(3);
    expect(one.log.filter((e) => e === "metrics sent").length).toBeGreaterThanOrEqual(1);
    for (const e of ["rules", "metrics"]) expect(onTheWire(one.log, e)).toBe(0);
    console.log(
      JSON.stringify({ event: "distant_stores", distance_ms: DISTANCE_MS, first_ms: first.tookMs, after_idle_ms: afterIdle.tookMs, p50_ms: median(took) }),
    );
  });

  it("has every isolate of the location decide with an upload within 10 s of it, however idle it was, without waiting for it", async () => {
    const clock = { at: 2_000_000 };
    const objectName = `distant-${++objects}`;
    const [a, b, c] = [isolate(objectName, clock), isolate(objectName, clock), isolate(objectName, clock)];
    for (const one of [a, b, c]) expect((await one.limit()).limit).toBe("MINUTE");

    clock.at += REFRESH_AFTER_MS - 1;
    const put = await a.call("/__ratelimit/rules", { method: "PUT", body: JSON.stringify(uploaded) });
    expect(put.status).toBe(200);
    const putAt = clock.at;
    // The isolate that took it applies it at once; the others still have the copy they checked 1 ms short of refreshing.
    expect((await a.limit()).limit).toBe("HOUR");
    expect((await b.limit()).limit).toBe("MINUTE");

    // b serves a stream; c is idle for 60 s.
    const seen = new Map<string, number>();
    while (clock.at < putAt + 10_000) {
      clock.at += 500;
      if ((await b.limit()).limit === "HOUR" && !seen.has("b")) seen.set("b", clock.at - putAt);
    }
    expect(seen.get("b")).toBeLessThanOrEqual(10_000);
    expect(seen.get("b")).toBeGreaterThan(1);

    clock.at = putAt + 60_000;
    // The idle isolate's first request decides with what it knew, without waiting, and starts the check...
    const woken = await c.limit();
    expect([woken.limit, [...woken.during, ...woken.background].filter(rulesCall), woken.during.filter(answered)]).toEqual([
      "MINUTE",
      ["rules sent", "rules answered"],
      [],
    ]);
    // ...whose answer the next request decides with.
    clock.at += 1;
    expect((await c.limit()).limit).toBe("HOUR");
  });
});
