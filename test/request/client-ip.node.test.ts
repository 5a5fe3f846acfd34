import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clientAddress, InvalidClientIpError, ipv6Groups, normalizeIp, UNKNOWN_CLIENT } from "../../src/request/client-ip.ts";

const h = (init: Record<string, string>) => new Headers(init);

describe("client identity (remote_address)", () => {
  it("uses CF-Connecting-IP and ignores X-Forwarded-For and X-Real-IP by default", () => {
    const headers = h({ "cf-connecting-ip": "192.0.2.1", "x-forwarded-for": "203.0.113.5", "x-real-ip": "203.0.113.6" });
    expect(clientAddress(headers)).toBe("192.0.2.1");
  });

  it("cannot be spoofed into a bucket of the client's choosing without a trusted proxy", () => {
    const a = clientAddress(h({ "cf-connecting-ip": "192.0.2.1", "x-forwarded-for": "10.0.0.1" }));
    const b = clientAddress(h({ "cf-connecting-ip": "192.0.2.1", "x-forwarded-for": "10.0.0.2" }));
    expect(a).toBe(b);
  });

  it("keys requests with no client IP as 'unknown' rather than leaving them unlimited", () => {
    expect(clientAddress(h({}))).toBe(UNKNOWN_CLIENT);
    expect(clientAddress(h({ "x-forwarded-for": "203.0.113.5" }))).toBe(UNKNOWN_CLIENT);
  });

  it("with TRUSTED_PROXY_HOPS=N takes the Nth X-Forwarded-For entry from the right", () => {
    const headers = h({ "cf-connecting-ip": "192.0.2.50", "x-forwarded-for": "6.6.6.6, 198.51.100.9, 192.0.2.40" });
    expect(clientAddress(headers, 1)).toBe("192.0.2.40");
    expect(clientAddress(headers, 2)).toBe("198.51.100.9");
    // A client prepending entries cannot move the trusted position.
    const spoofed = h({ "cf-connecting-ip": "192.0.2.50", "x-forwarded-for": "1.1.1.1, 6.6.6.6, 198.51.100.9, 192.0.2.40" });
    expect(clientAddress(spoofed, 2)).toBe("198.51.100.9");
  });

  it("with a trusted proxy reads only the header TRUSTED_PROXY_HEADER names, then CF-Connecting-IP", () => {
    // X-Forwarded-For proxies: an X-Real-IP is the client's own, never a fallback.
    expect(clientAddress(h({ "cf-connecting-ip": "192.0.2.50", "x-real-ip": "198.51.100.7" }), 1)).toBe("192.0.2.50");
    expect(clientAddress(h({ "cf-connecting-ip": "192.0.2.50", "x-forwarded-for": "198.51.100.7" }), 3)).toBe("192.0.2.50");
    // An X-Real-IP proxy: its header wins over any X-Forwarded-For a client wrote.
    const both = h({ "cf-connecting-ip": "192.0.2.50", "x-forwarded-for": "203.0.113.9", "x-real-ip": "198.51.100.7" });
    expect(clientAddress(both, 1, "x-real-ip")).toBe("198.51.100.7");
    expect(clientAddress(h({ "cf-connecting-ip": "192.0.2.50", "x-forwarded-for": "203.0.113.9" }), 1, "x-real-ip")).toBe("192.0.2.50");
  });

  it("rejects a malformed address naming the header it came from", () => {
    expect(() => clientAddress(h({ "cf-connecting-ip": "999.1.1.1" }))).toThrow(InvalidClientIpError);
    expect(() => clientAddress(h({ "cf-connecting-ip": "x", "x-forwarded-for": "nope" }), 1)).toThrow(/X-Forwarded-For is not an IP address/);
  });

  it("reduces IPv6 to its /56 by default, to a given prefix otherwise, and reads IPv4-mapped IPv6 as IPv4", () => {
    expect(clientAddress(h({ "cf-connecting-ip": "2001:db8:aa:bb:1:2:3:4" }))).toBe("2001:db8:aa:0::/56");
    expect(clientAddress(h({ "cf-connecting-ip": "2001:DB8:AA:1BB::9" }))).toBe("2001:db8:aa:100::/56");
    expect(clientAddress(h({ "cf-connecting-ip": "2001:db8:aa:bb:1:2:3:4" }), 0, "x-forwarded-for", 64)).toBe("2001:db8:aa:bb::/64");
    expect(clientAddress(h({ "cf-connecting-ip": "2001:db8:aaff:bb::1" }), 0, "x-forwarded-for", 40)).toBe("2001:db8:aa00:0::/40");
    expect(normalizeIp("::1")).toBe("0:0:0:0::/56");
    for (const mapped of ["::ffff:203.0.113.77", "::ffff:cb00:714d", "::FFFF:CB00:714D", "0:0:0:0:0:ffff:cb00:714d", "0::ffff:203.0.113.77"]) {
      expect(normalizeIp(mapped), mapped).toBe("203.0.113.77");
    }
    // Not mapped: the deprecated IPv4-compatible form, and NAT64, are IPv6 networks.
    expect(normalizeIp("::203.0.113.77")).toBe("0:0:0:0::/56");
    expect(normalizeIp("64:ff9b::cb00:714d")).toBe("64:ff9b:0:0::/56");
    for (const bad of ["1:2:3:4:5:6:7:8:9", "1::2::3", "", "1.2.3.4::", "::1.2.3.4:5", "::ffff:203.0.113.256", "1:2:3:4:5:6:7:", ":1:2:3:4:5:6:7", "12345::"]) {
      expect(normalizeIp(bad), bad).toBeUndefined();
    }
  });
});

// The oracle: the address as one 128-bit number, its network by shifting, mapped addresses by their top 96 bits.
function oracle(groups: readonly number[], prefix: number): string {
  const value = groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
  if (value >> 32n === 0xffffn) return [24n, 16n, 8n, 0n].map((shift) => (value >> shift) & 0xffn).join(".");
  const network = (value >> BigInt(128 - prefix)) << BigInt(128 - prefix);
  const top = [112n, 96n, 80n, 64n].map((shift) => ((network >> shift) & 0xffffn).toString(16));
  return `${top.join(":")}::/${prefix}`;
}

interface Spelling {
  readonly upper: boolean;
  readonly pad: readonly boolean[];
  readonly dotted: boolean;
  /** Where `::` stands, as [start, length] of a run of zero groups, tried modulo the runs there are. */
  readonly compress: number;
}

// One RFC 4291 text form of `groups`: case, leading zeros, a dotted IPv4 tail and `::` over any zero run chosen by `how`.
function spell(groups: readonly number[], how: Spelling): string {
  const texts = groups.map((g, i) => {
    const hex = how.pad[i] ? g.toString(16).padStart(4, "0") : g.toString(16);
    return how.upper ? hex.toUpperCase() : hex;
  });
  const parts: string[] = how.dotted ? [...texts.slice(0, 6), `${groups[6] >> 8}.${groups[6] & 255}.${groups[7] >> 8}.${groups[7] & 255}`] : texts;
  const width = how.dotted ? 6 : 8; // groups a `::` may cover
  const runs: [number, number][] = [];
  for (let start = 0; start < width; start++) {
    for (let end = start; end < width && groups[end] === 0; end++) runs.push([start, end + 1]);
  }
  if (runs.length === 0 || how.compress < 0) return parts.join(":");
  const [start, end] = runs[how.compress % runs.length];
  return `${parts.slice(0, start).join(":")}::${parts.slice(end).join(":")}`;
}

describe("IPv6 client keys against an oracle (fast-check)", () => {
  const group = fc.integer({ min: 0, max: 0xffff });
  const sparse = fc.oneof(group, fc.constant(0), fc.constant(0));
  // Plain addresses (zeros likely, so `::` has runs to cover) and IPv4-mapped ones.
  const address = fc.oneof(
    fc.array(sparse, { minLength: 8, maxLength: 8 }),
    fc.tuple(group, group).map(([a, b]) => [0, 0, 0, 0, 0, 0xffff, a, b]),
  );
  const spelling = fc.record({
    upper: fc.boolean(),
    pad: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
    dotted: fc.boolean(),
    compress: fc.integer({ min: -1, max: 40 }),
  });
  const prefix = fc.integer({ min: 32, max: 64 });

  it("reads every spelling of an address as the oracle does: mapped ones as IPv4, others as their network", () => {
    fc.assert(
      fc.property(address, spelling, prefix, (groups, how, bits) => {
        const text = spell(groups, how);
        expect(normalizeIp(text, bits), text).toBe(oracle(groups, bits));
        expect(ipv6Groups(text), text).toEqual(groups);
      }),
      { seed: 25, numRuns: 2000 },
    );
  });

  it("gives two addresses one key exactly when they share their network (or map the same IPv4 address)", () => {
    fc.assert(
      fc.property(address, address, spelling, spelling, prefix, (a, b, howA, howB, bits) => {
        const same = oracle(a, bits) === oracle(b, bits);
        expect(normalizeIp(spell(a, howA), bits) === normalizeIp(spell(b, howB), bits)).toBe(same);
      }),
      { seed: 56, numRuns: 2000 },
    );
  });

  it("never throws on arbitrary text, and reads nothing but an address", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."0123456789abcdefABCDEF:.x% ") }), (text) => {
        const key = normalizeIp(text);
        if (key !== undefined) expect(key).toMatch(/^(\d+\.\d+\.\d+\.\d+|[0-9a-f]+(:[0-9a-f]+){3}::\/56)$/);
      }),
      { seed: 7, numRuns: 3000 },
    );
  });
});
