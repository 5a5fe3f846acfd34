// Probes of issue 25 on the request's inputs, through the real gateway in
// workerd (docs/reliability.md, "Security"): repeated query parameters and
// cookies, IPv6 rotation inside one delegation, IPv4-mapped IPv6 in hex,
// and a declared cost of 0 (64 KB values: long-values.test.ts).
import { beforeEach, describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { gateway as realTimeGateway, testEnv } from "../support/app.ts";
import { drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";

const suffix = `${Date.now()}`;
const perMinute = (requests_per_unit: number) => ({ unit: "minute", requests_per_unit, algorithm: "fixed_window" });

function rules(domain: string, options: Record<string, unknown> = {}) {
  return {
    domain: `${domain}-${suffix}`,
    ...options,
    descriptors: [
      { key: "api_key", rate_limit: perMinute(2) },
      { key: "sid", rate_limit: perMinute(2) },
      { key: "remote_address", rate_limit: perMinute(2) },
      { key: "batch", rate_limit: perMinute(5) },
      { key: "free", rate_limit: perMinute(5) },
    ],
    routes: [
      { match: { path: "/q" }, descriptors: [[{ key: "api_key", query: "api_key" }]] },
      { match: { path: "/c" }, descriptors: [[{ key: "sid", cookie: "sid" }]] },
      { match: { path: "/ip" }, descriptors: [[{ key: "remote_address" }]] },
      { match: { path: "/batch/*" }, descriptors: [[{ key: "batch", header: "x-who" }]], cost: { header: "x-batch-size" } },
      { match: { path: "/free/*" }, descriptors: [[{ key: "free", header: "x-who" }]], cost: { header: "x-batch-size", allow_zero: true } },
    ],
  };
}

type Call = ReturnType<typeof gateway>;

async function statuses(call: Call, requests: [string, RequestInit & { ip?: string }][]): Promise<number[]> {
  const seen: number[] = [];
  for (const [path, init] of requests) {
    const res = await call(path, init);
    await res.arrayBuffer();
    seen.push(res.status);
  }
  return seen;
}

const cookie = (value: string) => ({ headers: { cookie: value } });

/**
 * One driven clock per test (docs/testing.md) for the isolate and the counter
 * objects: it stands still, so no window turns during a test. Each test starts
 * in a later hour than the last, as the objects are shared by the whole file.
 */
const clock = { at: OBJECT_EPOCH };
const now = () => clock.at;
beforeEach(() => {
  clock.at = Math.ceil((clock.at + 1) / 3_600_000) * 3_600_000 + 2_500;
});
const gateway = (rules: unknown, vars: Partial<Env> = {}) => realTimeGateway(rules, { COUNTERS: drivenCounters(testEnv.COUNTERS, now), ...vars }, { now });

describe("a query parameter or cookie sent twice with different values", () => {
  const call = gateway(rules("dup-reject"));

  it("is refused with 400 naming the parameter by default (today: keyed on the first, so junkN walks around the limit)", async () => {
    const res = await call("/q?api_key=junk1&api_key=REAL-q1");
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect((await res.json<{ detail: string }>()).detail).toMatch(/query parameter "api_key".*more than once/);
    // Not one of the polluted requests got through, so none of them may be the way around REAL's limit.
    const polluted = Array.from({ length: 4 }, (_, i): [string, RequestInit] => [`/q?api_key=junk${i}&api_key=REAL-q2`, {}]);
    expect(await statuses(call, polluted)).toEqual([400, 400, 400, 400]);
  });

  it("is refused with 400 naming the cookie by default", async () => {
    const res = await call("/c", cookie("sid=junk1; sid=REAL-c1"));
    expect(res.status).toBe(400);
    expect((await res.json<{ detail: string }>()).detail).toMatch(/cookie "sid".*more than once/);
  });

  it("counts the same value repeated as that value", async () => {
    expect(
      await statuses(call, [
        ["/q?api_key=REAL-q3&api_key=REAL-q3", {}],
        ["/q?api_key=REAL-q3", {}],
        ["/q?api_key=REAL-q3&api_key=REAL-q3", {}],
      ]),
    ).toEqual([200, 200, 429]);
    expect(
      await statuses(call, [
        ["/c", cookie("sid=REAL-c2; sid=REAL-c2")],
        ["/c", cookie("sid=REAL-c2")],
        ["/c", cookie("sid=REAL-c2")],
      ]),
    ).toEqual([200, 200, 429]);
  });

  it('is charged to the last value under "duplicate_values": "last"', async () => {
    const last = gateway(rules("dup-last", { duplicate_values: "last" }));
    const q = (junk: string): [string, RequestInit] => [`/q?api_key=${junk}&api_key=REAL-q4`, {}];
    expect(await statuses(last, [q("junk1"), q("junk2"), q("junk3")])).toEqual([200, 200, 429]);
    const c = (junk: string): [string, RequestInit] => ["/c", cookie(`sid=${junk}; sid=REAL-c3`)];
    expect(await statuses(last, [c("junk1"), c("junk2"), c("junk3")])).toEqual([200, 200, 429]);
  });

  it('is charged to the first value under "duplicate_values": "first"', async () => {
    const first = gateway(rules("dup-first", { duplicate_values: "first" }));
    const q = (junk: string): [string, RequestInit] => [`/q?api_key=REAL-q5&api_key=${junk}`, {}];
    expect(await statuses(first, [q("junk1"), q("junk2"), q("junk3")])).toEqual([200, 200, 429]);
    const c = (junk: string): [string, RequestInit] => ["/c", cookie(`sid=REAL-c4; sid=${junk}`)];
    expect(await statuses(first, [c("junk1"), c("junk2"), c("junk3")])).toEqual([200, 200, 429]);
  });
});

describe("IPv6 clients", () => {
  it("are keyed by their /56 by default: different /64s of one /56 share a bucket (today: by /64, 256 buckets)", async () => {
    const call = gateway(rules("v6-56"));
    const ips = ["2001:db8:5:a00::1", "2001:db8:5:a01::1", "2001:db8:5:aff:ffff::9"];
    expect(
      await statuses(
        call,
        ips.map((ip): [string, RequestInit & { ip: string }] => ["/ip", { ip }]),
      ),
    ).toEqual([200, 200, 429]);
    // The next /56 is another client.
    expect(await statuses(call, [["/ip", { ip: "2001:db8:5:b00::1" }]])).toEqual([200]);
  });

  it('are keyed by the domain\'s "ipv6_prefix"', async () => {
    const wide = gateway(rules("v6-48", { ipv6_prefix: 48 }));
    const in48 = ["2001:db8:6:100::1", "2001:db8:6:ff00::1", "2001:db8:6:7::1"];
    expect(
      await statuses(
        wide,
        in48.map((ip): [string, RequestInit & { ip: string }] => ["/ip", { ip }]),
      ),
    ).toEqual([200, 200, 429]);
    const narrow = gateway(rules("v6-64", { ipv6_prefix: 64 }));
    const in64s = ["2001:db8:7:a00::1", "2001:db8:7:a01::1", "2001:db8:7:a00::2"];
    expect(
      await statuses(
        narrow,
        in64s.map((ip): [string, RequestInit & { ip: string }] => ["/ip", { ip }]),
      ),
    ).toEqual([200, 200, 200]);
  });
});

describe("IPv4-mapped IPv6", () => {
  const call = gateway(rules("mapped"));
  const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
  // Every spelling of ::ffff:203.0.113.N, each tried with its own N.
  const spellings: [string, (p: number[]) => string][] = [
    ["hex", (p) => `::ffff:${hex(p[0], p[1])}:${hex(p[2], p[3])}`],
    ["hex, upper case", (p) => `::FFFF:${hex(p[0], p[1])}:${hex(p[2], p[3])}`.toUpperCase()],
    ["hex, no compression", (p) => `0:0:0:0:0:ffff:${hex(p[0], p[1])}:${hex(p[2], p[3])}`],
    ["hex, zero-padded", (p) => `0000:0000:0000:0000:0000:FFFF:${hex(p[0], p[1]).padStart(4, "0")}:${hex(p[2], p[3]).padStart(4, "0")}`],
    ["dotted, no compression", (p) => `0:0:0:0:0:ffff:${p.join(".")}`],
    ["dotted, partly compressed", (p) => `0::ffff:${p.join(".")}`],
  ];

  it.each(spellings.map(([name, spell], i) => [name, spell, 70 + i] as const))(
    "in %s is the same client as its IPv4 address (today: another bucket)",
    async (_name, spell, n) => {
      const v4 = [203, 0, 113, n];
      const requests: [string, RequestInit & { ip: string }][] = [
        ["/ip", { ip: v4.join(".") }],
        ["/ip", { ip: spell(v4) }],
        ["/ip", { ip: v4.join(".") }],
      ];
      expect(await statuses(call, requests)).toEqual([200, 200, 429]);
    },
  );
});

describe("a declared cost of 0", () => {
  const call = gateway(rules("cost"));
  const batch = (who: string, size: string): [string, RequestInit] => [`/batch/x`, { headers: { "x-who": who, "x-batch-size": size } }];

  it("charges 1: the 6th request over a limit of 5 is refused (today: all 6 allowed)", async () => {
    expect(
      await statuses(
        call,
        Array.from({ length: 6 }, () => batch("zero", "0")),
      ),
    ).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it("charges 0 where the route allows it", async () => {
    const free = (size: string): [string, RequestInit] => ["/free/x", { headers: { "x-who": "allowed-zero", "x-batch-size": size } }];
    expect(await statuses(call, [...Array.from({ length: 6 }, () => free("0")), free("5"), free("0"), free("1")])).toEqual([
      200, 200, 200, 200, 200, 200, 200, 200, 429,
    ]);
  });

  it("still refuses negative, fractional, huge and junk values with 400", async () => {
    for (const size of ["-1", "1.5", "99999999999", "0x10", "", "one"]) {
      const res = await call("/batch/x", { headers: { "x-who": "junk", "x-batch-size": size } });
      expect(res.status, size).toBe(400);
      expect((await res.json<{ detail: string }>()).detail, size).toMatch(/x-batch-size/);
    }
  });
});
