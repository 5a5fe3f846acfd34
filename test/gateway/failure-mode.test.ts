import { describe, expect, it, vi } from "vitest";
import type { CounterCall } from "../../src/stored/wire-calls.ts";
import type { Env } from "../../src/config.ts";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";
import { hangingCounters, throwingCounters } from "../support/failing.ts";
import { fromWire, toWire } from "../../src/stored/wire.ts";

const rules = {
  domain: "gw-failure",
  descriptors: [{ key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 5 } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] }],
};

// Fault injection: real objects that never answer, or throw (test/support/failing-objects.mjs).
function brokenCounters(fault: "hang" | "throw"): Env["COUNTERS"] {
  return fault === "hang" ? hangingCounters : throwingCounters;
}

// A real CounterObject that throws: the calls reaching it name an algorithm it does not know.
function throwingRealCounters(): Env["COUNTERS"] {
  return {
    getByName: (name: string) => {
      const stub = testEnv.COUNTERS.getByName(name);
      const decide = (calls: CounterCall[]) => stub.decide(calls.map((c) => ({ ...c, limits: c.limits.map((l) => ({ ...l, algorithm: "bogus" as never })) })));
      // The edge sends its batches as one JSON text (src/stored/wire.ts).
      return { decide, decideText: async (text: string) => toWire(await decide(fromWire<CounterCall[]>(text))) };
    },
    // The shard key's default is derived from the namespace's ids.
    idFromName: (name: string) => testEnv.COUNTERS.idFromName(name),
  } as unknown as Env["COUNTERS"];
}

describe('FAILURE_MODE when counters cannot be reached (docs/reliability.md, "Failure mode")', () => {
  it("open: a real object that throws lets the request through, logs one structured line", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const call = gateway(rules, { COUNTERS: throwingRealCounters(), FAILURE_MODE: "open" });
    const res = await call("/x", { ip: uniqueIp() });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-RateLimit-Decision")).toBe("failure-open");
    const lines = errors.mock.calls.map((args) => String(args[0])).filter((line) => line.includes("counter_unavailable"));
    errors.mockRestore();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ event: "ratelimit.counter_unavailable", failure_mode: "open", path: "/x" });
  });

  /**
   * The gateway's answer to a call at a hanging object, with its timers driven
   * by the test: still pending 1 ms before DECISION_TIMEOUT_MS, there at it.
   */
  async function answerAtTimeout(call: ReturnType<typeof gateway>, timeoutMs: number): Promise<Response> {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      let answered: Response | undefined;
      const pending = call("/x", { ip: uniqueIp() }).then((res) => (answered = res));
      // Time starts once the request waits on the object (a real RPC that does not come back): its timeout is armed.
      for (let i = 0; i < 500 && vi.getTimerCount() === 0; i++) await scheduler.wait(10);
      expect(vi.getTimerCount()).toBe(1);
      await vi.advanceTimersByTimeAsync(timeoutMs - 1);
      expect(answered).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      return await pending;
    } finally {
      vi.useRealTimers();
    }
  }

  it("closed: a hanging object gets 503 after DECISION_TIMEOUT_MS, not before", async () => {
    const call = gateway(rules, { COUNTERS: brokenCounters("hang"), FAILURE_MODE: "closed", DECISION_TIMEOUT_MS: "80" });
    const res = await answerAtTimeout(call, 80);
    expect(res.status).toBe(503);
    expect(res.headers.get("X-RateLimit-Decision")).toBe("failure-closed");
  });

  it("open: lets the request through, marked as undecided, after DECISION_TIMEOUT_MS", async () => {
    const call = gateway(rules, { COUNTERS: brokenCounters("hang"), FAILURE_MODE: "open", DECISION_TIMEOUT_MS: "50" });
    const res = await answerAtTimeout(call, 50);
    expect(res.status).toBe(200);
    expect(res.headers.get("X-RateLimit-Decision")).toBe("failure-open");
  });

  it("closed: answers 503 with Retry-After when the object throws", async () => {
    const call = gateway(rules, { COUNTERS: brokenCounters("throw"), FAILURE_MODE: "closed" });
    const res = await call("/x", { ip: uniqueIp() });
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("1");
    expect(res.headers.get("content-type")).toBe("application/problem+json");
  });

  it("rejects an unknown FAILURE_MODE with a clear 503, not a 500", async () => {
    const call = gateway(rules, { FAILURE_MODE: "sometimes" });
    const res = await call("/x", { ip: uniqueIp() });
    expect(res.status).toBe(503);
    // The setting and its value go to the log, not to the client (test/security/errors.test.ts).
    expect(await res.json()).toMatchObject({ type: "urn:floodgate:misconfigured", status: 503 });
  });
});
