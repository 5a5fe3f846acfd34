// remote_address values as CIDR ranges (docs/rules.md, "Address ranges"):
// parsing, validation with JSON paths, and longest-prefix matching checked
// against a brute-force oracle over random ranges and addresses.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import schema from "../../rules.schema.json";
import { normalizeIp } from "../../src/request/client-ip.ts";
import { formatPrefix, hostBitsSet, parsePrefix } from "../../src/rules/match/cidr.ts";
import { compileRules, matchDescriptor } from "../../src/rules/index.ts";
import { domainOf, errorsOf } from "./helpers.ts";
import { validates } from "./mini-schema.ts";

const rl = (requests_per_unit: number) => ({ unit: "minute", requests_per_unit });
const ranges = (...values: string[]) => rangesAt(undefined, ...values);
const rangesAt = (ipv6_prefix: number | undefined, ...values: string[]) => ({
  domain: "t",
  ...(ipv6_prefix !== undefined ? { ipv6_prefix } : {}),
  descriptors: values.map((value) => ({ key: "remote_address", value, rate_limit: rl(1) })),
});
/** The value of the node a client address matches, or undefined (the address keyed as the domain keys its clients). */
const matched = (domain: ReturnType<typeof domainOf>, ip: string) =>
  matchDescriptor(domain, [{ key: "remote_address", value: normalizeIp(ip, domain.ipv6Prefix) ?? ip }])?.node.value;

describe("parsePrefix and formatPrefix", () => {
  it("reads addresses as full-length prefixes and ranges with their length", () => {
    expect(parsePrefix("203.0.113.7")).toEqual({ family: 4, bits: 0xcb007107n, length: 32 });
    expect(parsePrefix("203.0.113.0/24")?.length).toBe(24);
    expect(parsePrefix("::/0")).toEqual({ family: 6, bits: 0n, length: 0 });
    expect(parsePrefix("::ffff:1.2.3.4/128")?.bits).toBe(0xffff01020304n);
    for (const bad of [
      "unknown",
      "10.0.0.0/33",
      "10.0.0.0/",
      "10.0.0.0/08",
      "10.0.0/8",
      "2001:db8::/129",
      "1:2:3:4:5:6:7:8:9/64",
      "1::2::3/64",
      "010.0.0.0/8",
    ]) {
      expect(parsePrefix(bad), bad).toBeUndefined();
    }
  });

  it("writes ranges canonically with host bits cleared", () => {
    expect(formatPrefix(parsePrefix("203.0.113.7/24")!)).toBe("203.0.113.0/24");
    expect(formatPrefix(parsePrefix("2001:DB8:0:0:1::1/32")!)).toBe("2001:db8::/32");
    expect(formatPrefix(parsePrefix("2001:db8:0:1:0:0:0:0/64")!)).toBe("2001:db8:0:1::/64");
    expect(hostBitsSet(parsePrefix("203.0.113.7/24")!)).toBe(true);
    expect(hostBitsSet(parsePrefix("203.0.113.0/24")!)).toBe(false);
  });

  it("round-trips every IPv6 prefix through its canonical text", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), fc.integer({ min: 0, max: 128 }), (bits, length) => {
        const text = formatPrefix({ family: 6, bits, length });
        const back = parsePrefix(text)!;
        expect(back.length).toBe(length);
        expect(back.bits).toBe((bits >> BigInt(128 - length)) << BigInt(128 - length));
      }),
    );
  });
});

describe("validation", () => {
  const at = "$.descriptors[0].value";
  const longer = (value: string, prefix: number) =>
    `"${value}" is longer than /${prefix}: this domain identifies IPv6 clients by their /${prefix} ("ipv6_prefix"), so it could never match; use a /${prefix} or shorter range, or raise "ipv6_prefix" (at most /64)`;
  it.each([
    ["10.0.0.0/33", `"10.0.0.0/33" is not an IP address or CIDR range (like "203.0.113.0/24" or "2001:db8::/32")`],
    ["not/an/address", `"not/an/address" is not an IP address or CIDR range (like "203.0.113.0/24" or "2001:db8::/32")`],
    ["203.0.113.7/24", `"203.0.113.7/24" has bits set past its /24 prefix; write the range as "203.0.113.0/24"`],
    ["2001:db8::1/32", `"2001:db8::1/32" has bits set past its /32 prefix; write the range as "2001:db8::/32"`],
    ["2001:db8::/96", longer("2001:db8::/96", 56)],
    ["2001:db8::1", longer("2001:db8::1", 56)],
    ["2001:db8:0:100::/57", longer("2001:db8:0:100::/57", 56)],
  ])("rejects %s with its path", (value, message) => {
    expect(errorsOf(ranges(value))).toEqual([{ path: at, message }]);
  });

  it('checks IPv6 ranges against the domain\'s "ipv6_prefix"', () => {
    const wide = rangesAt(64, "2001:db8:0:100::/57", "2001:db8:0:1::/64");
    expect(compileRules(wide).ok).toBe(true);
    expect(validates(schema, wide)).toBe(true);
    expect(errorsOf(rangesAt(48, "2001:db8:0:100::/56", "2001:db8:1::/48"))).toEqual([{ path: at, message: longer("2001:db8:0:100::/56", 48) }]);
    expect(compileRules(rangesAt(32, "2001:db8::/32")).ok).toBe(true);
  });

  it.each([
    [31, "must be at least 32, got 31"],
    [65, "must be at most 64, got 65"],
    [56.5, "expected an integer, got 56.5"],
    ["56", "expected an integer, got string"],
  ])('rejects "ipv6_prefix": %j at its path', (ipv6_prefix, message) => {
    expect(errorsOf({ domain: "t", ipv6_prefix })).toEqual([{ path: "$.ipv6_prefix", message }]);
    expect(validates(schema, { domain: "t", ipv6_prefix })).toBe(false);
  });

  it("rejects the same range written twice", () => {
    expect(errorsOf(ranges("2001:db8::/32", "2001:0db8:0::/32"))).toEqual([
      { path: "$.descriptors[1].value", message: 'the range 2001:db8::/32 is already given as "2001:db8::/32" at this level' },
    ]);
  });

  it("leaves other keys and non-address values of remote_address as text", () => {
    const domain = domainOf({
      domain: "t",
      descriptors: [
        { key: "path", value: "10.0.0.0/33", rate_limit: rl(1) },
        { key: "remote_address", value: "unknown", rate_limit: rl(2) },
      ],
    });
    expect(matchDescriptor(domain, [{ key: "path", value: "10.0.0.0/33" }])?.limits[0].limit).toBe(1);
    expect(matchDescriptor(domain, [{ key: "remote_address", value: "unknown" }])?.limits[0].limit).toBe(2);
  });

  it("is accepted by rules.schema.json", () => {
    expect(validates(schema, ranges("10.0.0.0/8", "2001:db8::/32"))).toBe(true);
  });
});

describe("matching: the most specific range wins", () => {
  const domain = domainOf({
    domain: "t",
    ipv6_prefix: 64,
    descriptors: [
      { key: "remote_address", rate_limit: rl(100) },
      { key: "remote_address", value: "10.0.0.0/8" },
      { key: "remote_address", value: "10.1.0.0/16", rate_limit: rl(0) },
      { key: "remote_address", value: "10.1.2.3", rate_limit: rl(5) },
      { key: "remote_address", value: "0.0.0.0/0", rate_limit: rl(50) },
      { key: "remote_address", value: "2001:db8::/32", rate_limit: rl(0) },
      { key: "remote_address", value: "2001:db8:1::/48" },
      { key: "remote_address", value: "2001:db8:1:2::/64", rate_limit: rl(7) },
    ],
  });

  it("picks the longest prefix, then falls back to the key-only node", () => {
    expect(matched(domain, "10.1.2.3")).toBe("10.1.2.3");
    expect(matched(domain, "10.1.9.9")).toBe("10.1.0.0/16");
    expect(matched(domain, "10.9.9.9")).toBe("10.0.0.0/8");
    expect(matched(domain, "192.0.2.1")).toBe("0.0.0.0/0");
    expect(matched(domain, "::ffff:10.1.2.3")).toBe("10.1.2.3");
    expect(matched(domain, "2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(matched(domain, "2001:db8:1:3::1")).toBe("2001:db8:1::/48");
    expect(matched(domain, "2001:db8:ffff::1")).toBe("2001:db8::/32");
    expect(matched(domain, "2001:db9::1")).toBeUndefined();
    expect(matched(domain, "unknown")).toBeUndefined();
  });

  it("agrees with a brute-force oracle on random ranges and addresses", () => {
    const v4 = fc.record({ family: fc.constant(4 as const), bits: fc.bigInt({ min: 0n, max: (1n << 32n) - 1n }), length: fc.integer({ min: 0, max: 32 }) });
    const v6 = fc.record({ family: fc.constant(6 as const), bits: fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), length: fc.integer({ min: 0, max: 64 }) });
    const prefixes = fc.integer({ min: 32, max: 64 });
    // Addresses near a range (its bits, some low bits flipped) so that most probes hit something.
    const probe = fc.tuple(fc.nat(), fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), fc.integer({ min: 0, max: 128 }));
    fc.assert(
      fc.property(
        fc.array(fc.oneof(v4, v6), { minLength: 1, maxLength: 12 }),
        fc.array(probe, { minLength: 1, maxLength: 10 }),
        prefixes,
        (raw, probes, prefix) => {
          // IPv6 ranges at most as long as the domain's client prefix: longer ones are compile errors.
          const byText = new Map(raw.map((p) => (p.family === 6 ? { ...p, length: Math.min(p.length, prefix) } : p)).map((p) => [formatPrefix(p), p]));
          const list = [...byText.keys()];
          const domain = domainOf(rangesAt(prefix, ...list));
          for (const [pick, noise, flip] of probes) {
            const base = byText.get(list[pick % list.length])!;
            const width = base.family === 4 ? 32 : 128;
            const address = base.bits ^ (noise & ((1n << BigInt(Math.min(flip, width))) - 1n));
            const text = formatPrefix({ family: base.family, bits: address, length: width }).replace(/\/\d+$/, "");
            // The client's value: IPv4 as is, IPv6 as its network of the domain's prefix.
            const clientLength = base.family === 4 ? 32 : prefix;
            const expected = [...byText.entries()]
              .filter(([, p]) => p.family === base.family && p.length <= clientLength)
              .filter(([, p]) => address >> BigInt(width - p.length) === p.bits >> BigInt(width - p.length))
              .sort(([, a], [, b]) => b.length - a.length)[0]?.[0];
            expect(matched(domain, text), text).toBe(expected);
          }
        },
      ),
    );
  });
});
