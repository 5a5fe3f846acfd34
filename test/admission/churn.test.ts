/**
 * Isolates come and go (docs/reliability.md, "Isolates come and go"): the
 * debts of an isolate evicted before it paid them are lost. An isolate sends
 * its debts with any call to the object owed and, at most DEBT_PAY_MS
 * apart, on its own with any request, so once its objects answer again an
 * isolate leaves nothing unpaid behind for longer than that; one evicted
 * while they do not costs at most what it allowed on its own.
 */
import { describe, expect, it, vi } from "vitest";
import { DEBT_PAY_MS } from "../../src/isolate/runtime.ts";
import { allowedOf, gateway, uniqueIp } from "../support/app.ts";
import { flakyCounters } from "../support/flaky-counters.ts";

const LIMIT = 50;
// Each key its own object: a request for one key never calls another's.
const rules = {
  domain: "churn",
  placement: "per_key",
  descriptors: [{ key: "remote_address", rate_limit: { unit: "hour", requests_per_unit: LIMIT } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] }],
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('isolates come and go (docs/reliability.md, "Isolates come and go")', () => {
  it("an isolate that served a request for another key after the outage has paid its debts: evicted then, it costs nothing", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const ip = uniqueIp();
    const flaky = flakyCounters(1, "overloaded");
    const a = gateway(rules, { COUNTERS: flaky.counters });
    expect(await allowedOf(a, ip, 30)).toBe(30);
    errors.mockRestore();
    flaky.setShare(0);
    // The objects are back; the isolate's next request, DEBT_PAY_MS on, is for another key (another object).
    await sleep(DEBT_PAY_MS + 50);
    expect(await allowedOf(a, uniqueIp(), 1)).toBe(1);
    // The isolate is evicted (never used again); a fresh one finds the 30 counted.
    expect(flaky.calls.some((c) => !c.failed && c.text.includes('"kind":"absorb"') && c.text.includes('"cost":30'))).toBe(true);
    expect(await allowedOf(gateway(rules), ip, 100)).toBe(LIMIT - 30);
  });

  it("an isolate evicted while its objects are unreachable loses what it allowed: at most the limit, so a key gets at most the limit × (1 + such isolates)", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const ip = uniqueIp();
    const flaky = flakyCounters(1, "overloaded");
    // Three isolates in turn during the outage, each evicted before it could pay.
    const during: number[] = [];
    for (let i = 0; i < 3; i++) during.push(await allowedOf(gateway(rules, { COUNTERS: flaky.counters }), ip, 80));
    errors.mockRestore();
    expect(during).toEqual([LIMIT, LIMIT, LIMIT]);
    // Back: the objects know none of it, and allow the limit once more.
    expect(await allowedOf(gateway(rules), ip, 80)).toBe(LIMIT);
  });
});
