// @ts-nocheck
// remote_address values as CIDR ranges (docs/rules.md, "Address ranges"):
// parsing, validation with JSON paths, and longest-prefix matching checked
// against a brute-force oracle over random ranges and addresses.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import schema from "../../rules.schema.json";
import { normalizeIp } from "../../src/request/client-ip.ts";
import { formatPrefix, hostBitsSet, parsePrefix } from "../../src/rules/cidr.ts";
import { matchDescriptor } from "../../src/rules/index.ts";
import { domainOf, errorsOf } from "./helpers.ts";
import { validates } from "./mini-schema.ts";

const rl = (requests_per_unit: number) => ({ unit: "minute", requests_per_unit });
const ranges = (...values: string[]) => ({
  domain: "t",
  descriptors: values.map((value) => ({ key: "remote_address", value, rate_limit: rl(1) })),
});
/** The value of the node a client address matches, or undefined. */
const matched = (domain: ReturnType<typeof domainOf>, ip: string) =>
  matchDescriptor(domain, [{ key: "remote_address", value: normalizeIp(ip) ?? ip }])?.node.value;

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
  it.each([
    ["10.0.0.0/33", `"10.0.0.0/33" is not an IP address or CIDR range (like "203.0.113.0/24" or "2001:db8::/32")`],
    ["not/an/address", `"not/an/address" is not an IP address or CIDR range (like "203.0.113.0/24" or "2001:db8::/32")`],
    ["203.0.113.7/24", `"203.0.113.7/24" has bits set past its /24 prefix; write the range as "203.0.113.0/24"`],
    ["2001:db8::1/32", `"2001:db8::1/32" has bits set past its /32 prefix; write the range as "2001:db8::/32"`],
    ["2001:db8::/96", `"2001:db8::/96" is longer than /64: IPv6 clients are identified by their /64, so it could never match; use a /64 or shorter range`],
    ["2001:db8::1", `"2001:db8::1" is longer than /64: IPv6 clients are identified by their /64, so it could never match; use a /64 or shorter range`],
  ])("rejects %s with its path", (value, message) => {
    expect(errorsOf(ranges(value))).toEqual([{ path: at, message }]);
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
    // Addresses near a range (its bits, some low bits flipped) so that most probes hit something.
    const probe = fc.tuple(fc.nat(), fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), fc.integer({ min: 0, max: 128 }));
    fc.assert(
      fc.property(fc.array(fc.oneof(v4, v6), { minLength: 1, maxLength: 12 }), fc.array(probe, { minLength: 1, maxLength: 10 }), (raw, probes) => {
        const byText = new Map(raw.map((p) => [formatPrefix(p), p]));
        const list = [...byText.keys()];
        const domain = domainOf(ranges(...list));
        for (const [pick, noise, flip] of probes) {
          const base = byText.get(list[pick % list.length])!;
          const width = base.family === 4 ? 32 : 128;
          const address = base.bits ^ (noise & ((1n << BigInt(Math.min(flip, width))) - 1n));
          const text = formatPrefix({ family: base.family, bits: address, length: width }).replace(/\/\d+$/, "");
          // The client's value: IPv4 as is, IPv6 as its /64.
          const clientLength = base.family === 4 ? 32 : 64;
          const expected = [...byText.entries()]
            .filter(([, p]) => p.family === base.family && p.length <= clientLength)
            .filter(([, p]) => address >> BigInt(width - p.length) === p.bits >> BigInt(width - p.length))
            .sort(([, a], [, b]) => b.length - a.length)[0]?.[0];
          expect(matched(domain, text), text).toBe(expected);
        }
      }),
    );
  });
});
