/**
 * The compiled overrides (src/overrides/compile.ts, lookup.ts) on their
 * own: which override a descriptor gets (exact before wildcard, longer
 * wildcard before shorter, unlimited, expiry by the clock passed in), and
 * that thousands of them cost a few hash probes, not a scan.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { compileOverrides } from "../../src/overrides/compile.ts";
import { lookupOverride } from "../../src/overrides/lookup.ts";
import type { StoredOverride } from "../../src/overrides/types.ts";

const NOW = Date.parse("2026-11-27T12:00:00Z");
const row = (descriptor: string, rateLimit: unknown, expiresAt: string | null = null, domain = "api"): StoredOverride => ({
  domain,
  descriptor,
  rate_limit: JSON.stringify(rateLimit),
  expires_at: expiresAt,
  note: null,
  updated_at: "2026-11-27T00:00:00.000Z",
});
const perMinute = (n: number) => ({ unit: "minute", requests_per_unit: n });
const user = (value: string) => [{ key: "user", value }];

function tableOf(rows: StoredOverride[]) {
  const table = compileOverrides(rows).get("api");
  if (table === undefined) throw new Error("no table");
  return table;
}

afterEach(() => vi.restoreAllMocks());

describe("override lookup", () => {
  const table = tableOf([
    row("user=acme-*", perMinute(100)),
    row("user=acme-eu-*", perMinute(200)),
    row("user=acme-eu-1", perMinute(300)),
    row("user=*", perMinute(1)),
    row("user=vip", { unlimited: true }),
    row("plan=pro,user=acme-*", perMinute(400)),
  ]);
  const limitOf = (entries: { key: string; value: string }[]) => {
    const found = lookupOverride(table, entries, NOW);
    return found === undefined ? undefined : found.unlimited ? "unlimited" : found.limits[0].requestsPerUnit;
  };

  it("takes the exact override before any wildcard, and the longest wildcard before shorter ones", () => {
    expect(limitOf(user("acme-eu-1"))).toBe(300);
    expect(limitOf(user("acme-eu-2"))).toBe(200);
    expect(limitOf(user("acme-us-1"))).toBe(100);
    expect(limitOf(user("acme-"))).toBe(100);
    expect(limitOf(user("other"))).toBe(1);
    expect(lookupOverride(table, user("acme-eu-2"), NOW)?.info.descriptor).toBe("user=acme-eu-*");
  });

  it("matches every entry but the last exactly, and only descriptors of the same length", () => {
    expect(
      limitOf([
        { key: "plan", value: "pro" },
        { key: "user", value: "acme-x" },
      ]),
    ).toBe(400);
    expect(
      limitOf([
        { key: "plan", value: "free" },
        { key: "user", value: "acme-x" },
      ]),
    ).toBeUndefined();
    expect(limitOf([{ key: "team", value: "acme-x" }])).toBeUndefined();
    expect(
      limitOf([
        { key: "user", value: "acme-x" },
        { key: "path", value: "/" },
      ]),
    ).toBeUndefined();
  });

  it("gives an unlimited override no limits", () => {
    const found = lookupOverride(table, user("vip"), NOW);
    expect(found?.unlimited).toBe(true);
    expect(found?.limits).toEqual([]);
    expect(found?.node.unlimited).toBe(true);
  });

  it("stops applying an override from its expiry on the clock passed in, falling back to the next one", () => {
    const timed = tableOf([row("user=acme", perMinute(9), "2026-11-27T12:01:00.000Z"), row("user=ac*", perMinute(5), "2026-11-27T12:02:00.000Z")]);
    const at = (ms: number) => lookupOverride(timed, user("acme"), ms)?.limits[0].requestsPerUnit;
    expect(at(NOW)).toBe(9);
    expect(at(NOW + 59_999)).toBe(9);
    expect(at(NOW + 60_000)).toBe(5);
    expect(at(NOW + 119_999)).toBe(5);
    expect(at(NOW + 120_000)).toBeUndefined();
  });

  it("reads values as the counters endpoint does: %2C, %3D and %2A are literal, a raw trailing * is the wildcard", () => {
    const escaped = tableOf([row("user=a%2Cb%3Dc", perMinute(7)), row("user=x%2A", perMinute(8)), row("user=x%2A*", perMinute(6))]);
    expect(lookupOverride(escaped, user("a,b=c"), NOW)?.limits[0].requestsPerUnit).toBe(7);
    expect(lookupOverride(escaped, user("x*"), NOW)?.limits[0].requestsPerUnit).toBe(8);
    expect(lookupOverride(escaped, user("x*y"), NOW)?.limits[0].requestsPerUnit).toBe(6);
    expect(lookupOverride(escaped, user("xy"), NOW)).toBeUndefined();
  });

  it("leaves a stored row the validator refuses out, with a log line", () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const tables = compileOverrides([row("user=a", { unit: "eon", requests_per_unit: 1 }), row("user=b", perMinute(2))]);
    expect(tables.get("api")?.size).toBe(1);
    expect(errors.mock.calls[0][0]).toContain("floodgate.stored_override_invalid");
  });

  it("costs at most one probe per prefix length present, with thousands of overrides", () => {
    const rows: StoredOverride[] = [];
    for (let i = 0; i < 4000; i++) rows.push(row(`user=customer-${i}`, perMinute(i + 1)));
    // 2000 wildcards of only two prefix lengths.
    for (let i = 0; i < 1000; i++) rows.push(row(`user=t${String(i).padStart(4, "0")}-*`, perMinute(10_000 + i)));
    for (let i = 0; i < 1000; i++) rows.push(row(`user=t${String(i).padStart(4, "0")}-eu-*`, perMinute(20_000 + i)));
    const big = tableOf(rows);
    expect(big.size).toBe(6000);
    expect(big.prefixLengths).toEqual([9, 6]);
    const probes = vi.spyOn(Map.prototype, "get");
    expect(lookupOverride(big, user("customer-3999"), NOW)?.limits[0].requestsPerUnit).toBe(4000);
    expect(probes).toHaveBeenCalledTimes(1);
    probes.mockClear();
    expect(lookupOverride(big, user("t0999-eu-7"), NOW)?.limits[0].requestsPerUnit).toBe(20_999);
    expect(probes).toHaveBeenCalledTimes(2);
    probes.mockClear();
    expect(lookupOverride(big, user("t0500-us-7"), NOW)?.limits[0].requestsPerUnit).toBe(10_500);
    expect(probes).toHaveBeenCalledTimes(3);
    probes.mockClear();
    expect(lookupOverride(big, user("nobody-at-all"), NOW)).toBeUndefined();
    expect(probes).toHaveBeenCalledTimes(3);
  });
});
