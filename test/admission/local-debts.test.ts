/**
 * Hits FAILURE_MODE=local allowed in an isolate are debts owed to the
 * counter's object, paid with the counter's next call (src/isolate/debts.ts;
 * docs/reliability.md, "Failure mode"): once paid, every isolate sees them.
 */
import { describe, expect, it, vi } from "vitest";
import { allowedOf, gateway, uniqueIp } from "../support/app.ts";
import { auth, TOKEN } from "../support/envoy.ts";
import { flakyCounters } from "../support/flaky-counters.ts";

// At the default DECISION_TIMEOUT_MS: a loaded machine's slow answer is one more late answer, which reconciles
// with the local decision (docs/reliability.md, "Late answers").
const SLOW_OK = {};

const LIMIT = 50;
const rules = {
  domain: "local-debts",
  descriptors: [
    { key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: LIMIT } },
    { key: "user", rate_limit: { unit: "minute", requests_per_unit: LIMIT } },
  ],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] }],
};

type Call = ReturnType<typeof gateway>;

/** Envoy's decision API (/json): `hits` hits on the user's counter; true when OK. */
async function hit(call: Call, user: string, hits: number): Promise<boolean> {
  const body = { domain: "local-debts", descriptors: [{ entries: [{ key: "user", value: user }] }], hits_addend: hits };
  const res = await call("/__ratelimit/json", { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(body) });
  return (await res.json<{ overallCode: string }>()).overallCode === "OK";
}

describe('debts of local decisions (docs/reliability.md, "Failure mode")', () => {
  it("hits allowed during an outage reach the object with the isolate's next call: another isolate then gets only the rest", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const ip = uniqueIp();
    const flaky = flakyCounters(1, "overloaded");
    const a = gateway(rules, { ...SLOW_OK, COUNTERS: flaky.counters });
    // Every call fails: 30 decided locally, each later one carrying the debts and failing (they are owed again).
    expect(await allowedOf(a, ip, 30)).toBe(30);
    errors.mockRestore();
    flaky.setShare(0);
    // The outage ends: this call pays the 30 and is decided after them.
    expect(await allowedOf(a, ip, 1)).toBe(1);
    expect(flaky.calls.at(-1)?.text).toContain('"kind":"absorb"');
    // A fresh isolate on the real counters: 50 − 31.
    expect(await allowedOf(gateway(rules), ip, 100)).toBe(LIMIT - 31);
  });

  it("a debt is the hits' cost: 4 local calls of 5 hits are 20 hits at the object", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const user = `debtor-${uniqueIp()}`;
    const flaky = flakyCounters(1, "overloaded");
    const a = gateway(rules, { ...SLOW_OK, ADMIN_TOKEN: TOKEN, COUNTERS: flaky.counters });
    for (let i = 0; i < 4; i++) expect(await hit(a, user, 5)).toBe(true);
    errors.mockRestore();
    flaky.setShare(0);
    expect(await hit(a, user, 5)).toBe(true);
    const b = gateway(rules, { ADMIN_TOKEN: TOKEN });
    let more = 0;
    while (await hit(b, user, 1)) more += 1;
    expect(more).toBe(LIMIT - 25);
  });
});

describe("debts of a global key relayed through a region (docs/placement.md)", () => {
  it("30 % of object calls overloaded: 45-50 of 300 from one region, all of them known to the home after", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const flaky = flakyCounters(0.3, "overloaded");
    const a = gateway(rules, { ...SLOW_OK, COUNTERS: flaky.counters });
    const ip = uniqueIp();
    const frankfurt = { colo: "FRA", continent: "EU", country: "DE" } as unknown as RequestInit["cf"];
    let allowed = 0;
    let local = 0;
    for (let i = 0; i < 300; i++) {
      const response = await a("/x", { ip, cf: frankfurt });
      if (response.status === 200) allowed += 1;
      if (response.headers.get("X-RateLimit-Decision") === "local") local += 1;
    }
    errors.mockRestore();
    expect(local).toBeGreaterThan(0);
    // Decided in the region until the first local decision, at the home after (src/limiter/owed-home.ts).
    expect(new Set(flaky.calls.map((c) => c.name.replace(/\/shard\/\d+/, "")))).toEqual(new Set(["local-debts@weur", "local-debts"]));
    expect(allowed).toBeGreaterThanOrEqual(45);
    expect(allowed).toBeLessThanOrEqual(LIMIT);
    expect(await allowedOf(gateway(rules), ip, 100)).toBe(0);
  });
});

describe("debts of a pre-counted key (docs/precount.md)", () => {
  it("hits allowed locally are paid with the pre-count's next call to the object", async () => {
    const precounted = {
      domain: "local-debts-pre",
      descriptors: [{ key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: LIMIT, precount: { sync_ms: 50 } } }],
      routes: [{ match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] }],
    };
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const ip = uniqueIp();
    const flaky = flakyCounters(1, "overloaded");
    const a = gateway(precounted, { ...SLOW_OK, COUNTERS: flaky.counters });
    expect(await allowedOf(a, ip, 30)).toBe(30);
    errors.mockRestore();
    flaky.setShare(0);
    await allowedOf(a, ip, 1);
    expect(flaky.calls.some((c) => !c.failed && c.text.includes('"kind":"absorb","key"') && c.text.includes('"cost":30'))).toBe(true);
    // Read back through the same counter without pre-counting (a limit's id does not name its precount), so only the object decides.
    const plain = { ...precounted, descriptors: [{ key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: LIMIT } }] };
    expect(await allowedOf(gateway(plain), ip, 100)).toBe(LIMIT - 31);
  });
});
