import { describe, expect, it, vi } from "vitest";
import { gateway, uniqueIp } from "../support/app.ts";
import { throwingCounters } from "../support/failing.ts";
import { flakyCounters } from "../support/flaky-counters.ts";

// At the default DECISION_TIMEOUT_MS: a loaded machine's slow answer is one more late answer, which reconciles
// with the local decision (docs/reliability.md, "Late answers").
const SLOW_OK = {};

// docs/reliability.md, "Failure mode": the bounds these tests hold.
// An hour, so that a run slowed by a loaded machine does not cross a window's edge (a new window admits more).
const rules = {
  domain: "local-failure",
  descriptors: [{ key: "remote_address", rate_limit: { unit: "hour", requests_per_unit: 50 } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] }],
};

type Call = ReturnType<typeof gateway>;

async function sequential(call: Call, ip: string, n: number): Promise<Response[]> {
  const responses: Response[] = [];
  for (let i = 0; i < n; i++) responses.push(await call("/x", { ip }));
  return responses;
}

const allowed = (responses: Response[]) => responses.filter((r) => r.status === 200).length;
const marked = (responses: Response[], value: string) => responses.filter((r) => r.headers.get("X-RateLimit-Decision") === value).length;

function quietErrors() {
  return vi.spyOn(console, "error").mockImplementation(() => undefined);
}

describe('FAILURE_MODE=local, the default (docs/reliability.md, "Failure mode")', () => {
  it("30 % of object calls overloaded: a limit of 50 allows 45-50 of 300, some decided locally", async () => {
    const errors = quietErrors();
    const { counters, calls } = flakyCounters(0.3, "overloaded");
    const responses = await sequential(gateway(rules, { ...SLOW_OK, COUNTERS: counters }), uniqueIp(), 300);
    errors.mockRestore();
    const n = allowed(responses);
    expect(n).toBeGreaterThanOrEqual(45);
    expect(n).toBeLessThanOrEqual(50);
    expect(marked(responses, "local")).toBeGreaterThan(0);
    expect(marked(responses, "failure-open")).toBe(0);
    expect(calls.some((c) => c.failed)).toBe(true);
  });

  it("30 % of object calls reset (retryable): each is retried once on a fresh stub, and the limit of 50 allows 45-50 of 300", async () => {
    const { counters, calls } = flakyCounters(0.3, "retryable");
    const responses = await sequential(gateway(rules, { ...SLOW_OK, COUNTERS: counters }), uniqueIp(), 300);
    const n = allowed(responses);
    expect(n).toBeGreaterThanOrEqual(45);
    expect(n).toBeLessThanOrEqual(50);
    const failures = calls.filter((c) => c.failed);
    expect(failures.length).toBeGreaterThan(0);
    // Every reset is followed by the same call once more (the retry), which the even spread lets succeed.
    for (const [i, c] of calls.entries()) {
      if (!c.failed) continue;
      expect(calls[i + 1]).toMatchObject({ name: c.name, text: c.text, failed: false });
    }
    expect(marked(responses, "local")).toBe(0);
  });

  it("a key this isolate knows is over its limit allows 0 of 200 at once at 50 % overload", async () => {
    const ip = uniqueIp();
    // Another isolate spends the key's limit on the real counters.
    expect(allowed(await sequential(gateway(rules), ip, 51))).toBe(50);
    const errors = quietErrors();
    const { counters, calls } = flakyCounters(0.5, "overloaded");
    const call = gateway(rules, { ...SLOW_OK, COUNTERS: counters });
    // The isolate knows its rules first (another address), so the 200 go at once: a fresh isolate's requests each go
    // once its first rules check has settled (src/isolate/live-rules.ts), the later ones after the key's block is known.
    await call("/x", { ip: uniqueIp() });
    const warmUpCalls = calls.length;
    const responses = await Promise.all(Array.from({ length: 200 }, () => call("/x", { ip })));
    errors.mockRestore();
    expect(calls.slice(warmUpCalls).some((c) => c.failed)).toBe(true);
    expect(allowed(responses)).toBe(0);
  });

  it("counters unreachable: a limit of 50 allows exactly 50 of 300 per isolate, each marked local", async () => {
    const errors = quietErrors();
    const ip = uniqueIp();
    const first = await sequential(gateway(rules, { ...SLOW_OK, COUNTERS: throwingCounters }), ip, 300);
    const second = await sequential(gateway(rules, { ...SLOW_OK, COUNTERS: throwingCounters }), ip, 300);
    const lines = errors.mock.calls.map((args) => String(args[0])).filter((line) => line.includes("counter_unavailable"));
    errors.mockRestore();
    expect(allowed(first)).toBe(50);
    expect(allowed(second)).toBe(50);
    expect(marked(first, "local")).toBe(300);
    expect(first.filter((r) => r.status === 429)).toHaveLength(250);
    expect(JSON.parse(lines[0])).toMatchObject({ event: "ratelimit.counter_unavailable", failure_mode: "local" });
  });

  it("an outage after the objects allowed 40 of a limit of 50: the isolate allows 10 more, counting what they allowed it", async () => {
    const ip = uniqueIp();
    const flaky = flakyCounters(0, "overloaded");
    const call = gateway(rules, { ...SLOW_OK, COUNTERS: flaky.counters });
    expect(allowed(await sequential(call, ip, 40))).toBe(40);
    const errors = quietErrors();
    flaky.setShare(1);
    const during = await sequential(call, ip, 100);
    errors.mockRestore();
    expect(allowed(during)).toBe(10);
    expect(marked(during, "local")).toBe(100);
  });

  it("open: an overloaded object never opens (the isolate decides), a failure otherwise opens", async () => {
    const errors = quietErrors();
    const { counters, calls } = flakyCounters(1, "overloaded");
    const overloaded = await sequential(gateway(rules, { ...SLOW_OK, COUNTERS: counters, FAILURE_MODE: "open" }), uniqueIp(), 60);
    const thrown = await sequential(gateway(rules, { COUNTERS: throwingCounters, FAILURE_MODE: "open" }), uniqueIp(), 60);
    errors.mockRestore();
    expect(allowed(overloaded)).toBe(50);
    expect(marked(overloaded, "failure-open")).toBe(0);
    // Never retried: one object call per request (a retry would make it two).
    expect(calls).toHaveLength(60);
    expect(allowed(thrown)).toBe(60);
    expect(marked(thrown, "failure-open")).toBe(60);
  });
});
