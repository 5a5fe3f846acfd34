// @ts-nocheck
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clientAddress, InvalidClientIpError, ipv6Prefix64, normalizeIp, UNKNOWN_CLIENT } from "../../src/request/client-ip.ts";

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

  it("with a trusted proxy falls back to X-Real-IP, then to CF-Connecting-IP", () => {
    expect(clientAddress(h({ "cf-connecting-ip": "192.0.2.50", "x-real-ip": "198.51.100.7" }), 1)).toBe("198.51.100.7");
    expect(clientAddress(h({ "cf-connecting-ip": "192.0.2.50", "x-forwarded-for": "198.51.100.7" }), 3)).toBe("192.0.2.50");
  });

  it("rejects a malformed address naming the header it came from", () => {
    expect(() => clientAddress(h({ "cf-connecting-ip": "999.1.1.1" }))).toThrow(InvalidClientIpError);
    expect(() => clientAddress(h({ "cf-connecting-ip": "x", "x-forwarded-for": "nope" }), 1)).toThrow(/X-Forwarded-For is not an IP address/);
  });

  it("reduces IPv6 to its /64 and reads IPv4-mapped IPv6 as IPv4", () => {
    expect(clientAddress(h({ "cf-connecting-ip": "2001:db8:aa:bb:1:2:3:4" }))).toBe("2001:db8:aa:bb::/64");
    expect(clientAddress(h({ "cf-connecting-ip": "2001:DB8:AA:BB::9" }))).toBe("2001:db8:aa:bb::/64");
    expect(normalizeIp("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(normalizeIp("::1")).toBe("0:0:0:0::/64");
    expect(normalizeIp("1:2:3:4:5:6:7:8:9")).toBeUndefined();
    expect(normalizeIp("1::2::3")).toBeUndefined();
    expect(normalizeIp("")).toBeUndefined();
  });

  it("gives every spelling of one IPv6 /64 the same key, and different /64s different keys", () => {
    const group = fc.integer({ min: 0, max: 0xffff });
    fc.assert(
      fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), fc.array(group, { minLength: 4, maxLength: 4 }), (g, tail) => {
        const full = g.map((x) => x.toString(16)).join(":");
        const padded = g.map((x) => x.toString(16).padStart(4, "0").toUpperCase()).join(":");
        const sameNet = [...g.slice(0, 4), ...tail].map((x) => x.toString(16)).join(":");
        expect(ipv6Prefix64(full)).toBe(ipv6Prefix64(padded));
        expect(ipv6Prefix64(full)).toBe(ipv6Prefix64(sameNet));
        const otherNet = [...g.slice(0, 3), (g[3] + 1) & 0xffff, ...g.slice(4)].map((x) => x.toString(16)).join(":");
        expect(ipv6Prefix64(otherNet)).not.toBe(ipv6Prefix64(full));
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});
