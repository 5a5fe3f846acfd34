/**
 * Late answers, placed exactly (docs/reliability.md, "Late answers"): calls
 * held at their object's door or on their way back by the test
 * (test/support/late-counters.ts), at the default DECISION_TIMEOUT_MS.
 */
import { describe, expect, it, vi } from "vitest";
import { allowedOf, gateway, uniqueIp } from "../support/app.ts";
import { auth, TOKEN } from "../support/envoy.ts";
import { gatedCounters } from "../support/late-counters.ts";

const LIMIT = 5;
const rules = {
  domain: "late-exact",
  descriptors: [{ key: "remote_address", rate_limit: { unit: "hour", requests_per_unit: LIMIT, algorithm: "sliding_window_log" } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] }],
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function remaining(ip: string): Promise<number> {
  const res = await gateway(rules, { ADMIN_TOKEN: TOKEN })(`/__ratelimit/counters?domain=late-exact&descriptor=remote_address=${ip}`, { headers: auth });
  return (await res.json<{ limits: { remaining: number }[] }>()).limits[0].remaining;
}

/**
 * A fresh address on one isolate over gated counters, each call its own RPC
 * so the test places every call; console.error is quiet until `settled`.
 */
function lateSetup() {
  const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
  const ip = uniqueIp();
  const gated = gatedCounters();
  const call = gateway(rules, { ADMIN_TOKEN: TOKEN, COUNTERS: gated.counters }, { coalesce: false });
  const background: Promise<void>[] = [];
  const send = () => call("/x", { ip });
  return {
    ip,
    gated,
    send,
    /** A request answered before its background work (the late answer it waits for) is done: `settled` waits for it. */
    sendKept: () => call("/x", { ip, background: (work) => background.push(work) }),
    /** How many of `n` requests sent one after another are allowed. */
    allowedOf: (n: number) => allowedOf(call, ip, n),
    /** The requests' background work is done (ctx.waitUntil), and console.error is back. */
    settled: async () => {
      await Promise.all(background);
      errors.mockRestore();
    },
  };
}

describe('late answers (docs/reliability.md, "Late answers")', () => {
  it("a call its object allowed but has not answered yet counts against a local decision: 5 of a limit of 5, not 6", async () => {
    const { ip, gated, send, sendKept, allowedOf, settled } = lateSetup();
    let allowed = await allowedOf(LIMIT - 1);
    // X waits at the door past its timeout; Y, sent while X waits, is applied at once (the 5th hit) and answered late.
    gated.next("late");
    const x = sendKept();
    await sleep(400);
    gated.next("slow");
    const y = send();
    const xResponse = await x;
    expect(xResponse.headers.get("X-RateLimit-Decision")).toBe("local");
    // Y is answered after X was decided, within its own timeout; then X reaches the object.
    await gated.release("slow");
    const yResponse = await y;
    await gated.release("late");
    await settled();
    allowed += [xResponse, yResponse].filter((r) => r.status === 200).length;
    expect(yResponse.headers.get("X-RateLimit-Decision")).toBeNull();
    expect(yResponse.status).toBe(200);
    expect(allowed).toBe(LIMIT);
    expect(await remaining(ip)).toBe(0);
  });

  it("a call decided here and then allowed by its object is counted there once, not again as a debt", async () => {
    const { ip, gated, sendKept, allowedOf, settled } = lateSetup();
    // The first call waits past its timeout: decided here (allowed, 1 of 5), then it reaches the object (1 hit there).
    gated.next("late");
    const response = await sendKept();
    expect(response.status).toBe(200);
    expect(response.headers.get("X-RateLimit-Decision")).toBe("local");
    await gated.release();
    // The request stays alive until its late answer is in (ctx.waitUntil).
    await settled();
    // The isolate's next calls carry no debt for it: the object counted it once, so 4 more are allowed, not 3.
    expect(await allowedOf(LIMIT)).toBe(LIMIT - 1);
    expect(gated.calls.some((text) => text.includes('"kind":"absorb"'))).toBe(false);
    expect(await remaining(ip)).toBe(0);
  });

  it("the debt of a call decided here is paid with the next call while the call is still on its way: 5 of a limit of 5, not 6", async () => {
    const { gated, send, sendKept, allowedOf, settled } = lateSetup();
    let allowed = await allowedOf(LIMIT - 1);
    // X waits at the door past its timeout: decided here, the 5th.
    gated.next("late");
    const x = await sendKept();
    expect(x.headers.get("X-RateLimit-Decision")).toBe("local");
    // Y, while X is still on its way, carries X's debt: the object counts X first and refuses Y.
    const y = await send();
    await gated.release("late");
    await settled();
    allowed += [x, y].filter((r) => r.status === 200).length;
    expect(y.status).toBe(429);
    expect(allowed).toBe(LIMIT);
  });
});
