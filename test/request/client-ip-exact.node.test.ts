/**
 * The client address at its edges: which texts are an address (IPv4 octet
 * by octet, IPv6's longest spelling, `::` where it may stand), how a proxy
 * chain's entries are read, and the error a malformed one gives.
 */
import { describe, expect, it } from "vitest";
import { clientAddress, clientIp, clientKey, InvalidClientIpError, ipv6Groups, normalizeIp, UNKNOWN_CLIENT } from "../../src/request/client-ip.ts";

const h = (init: Record<string, string>) => new Headers(init);

describe("IPv4 text", () => {
  it("takes every octet from 0 to 255, written without leading zeros", () => {
    for (const ip of ["0.0.0.0", "255.255.255.255", "250.249.200.199", "100.99.10.9", "1.20.109.254", "192.0.2.1"]) expect(normalizeIp(ip), ip).toBe(ip);
  });

  it("refuses an octet over 255, a leading zero, a missing or extra part, and anything beside the digits", () => {
    for (const bad of [
      "256.1.1.1",
      "1.1.1.260",
      "1.300.1.1",
      "1.1.1.01",
      "01.1.1.1",
      "1.2.3",
      "1.2.3.4.5",
      "1.2.3.4.",
      ".1.2.3.4",
      "1..2.3",
      "1.2.3.a",
      "a1.2.3.4",
      "1.2.3.4a",
      "1.2.3.4/32",
      "1,2,3,4",
      "1.2.3.1000",
    ]) {
      expect(normalizeIp(bad), bad).toBeUndefined();
    }
  });
});

describe("IPv6 text", () => {
  it("takes its longest spelling (45 characters) and leading zeros up to four digits", () => {
    const longest = "0000:0000:0000:0000:0000:ffff:255.255.255.255";
    expect(longest.length).toBe(45);
    expect(normalizeIp(longest)).toBe("255.255.255.255");
    expect(normalizeIp("2001:0db8:0001:0002:0000:0000:0000:0001")).toBe("2001:db8:1:0::/56");
    expect(normalizeIp(`0${longest}`)).toBeUndefined();
    expect(normalizeIp("02001:db8::1")).toBeUndefined();
  });

  it("puts :: where it stands, for one group or more, and nowhere twice", () => {
    expect(ipv6Groups("::")).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups("1::")).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups("::8")).toEqual([0, 0, 0, 0, 0, 0, 0, 8]);
    expect(ipv6Groups("1:2:3::5:6:7:8")).toEqual([1, 2, 3, 0, 5, 6, 7, 8]);
    expect(ipv6Groups("1:2:3:4:5:6:7::")).toEqual([1, 2, 3, 4, 5, 6, 7, 0]);
    expect(ipv6Groups("::2:3:4:5:6:7:8")).toEqual([0, 2, 3, 4, 5, 6, 7, 8]);
    expect(ipv6Groups("::1.2.3.4")).toEqual([0, 0, 0, 0, 0, 0, 0x102, 0x304]);
    expect(ipv6Groups("1:2:3:4:5:6:1.2.3.4")).toEqual([1, 2, 3, 4, 5, 6, 0x102, 0x304]);
    for (const bad of [
      "1:2:3:4:5:6:7:8::",
      "1:2:3:4:5:6:7:8::1::2",
      "::1:2:3:4:5:6:7:8",
      "1:2:3:4::5:6:7:8",
      "1:2:3:4:5:6:7",
      "1:2:3:4:5:6:7:8:9",
      ":::",
      "1:::2",
      "1:2:3:4:5:1.2.3.4",
      "1:2:3:4:5:6:7:1.2.3.4",
      "1.2.3.4::1",
      "::1.2.3.4::",
      "1:2:3:4:5:6:7:g",
      "1:2:3:4:5:6:7:-8",
      "::1.2.3",
      ":",
      "",
    ]) {
      expect(ipv6Groups(bad), bad).toBeUndefined();
    }
  });

  it("maps ::ffff:0:0/96 to IPv4 and nothing beside it", () => {
    expect(normalizeIp("::ffff:0102:0304")).toBe("1.2.3.4");
    expect(normalizeIp("::ffff:ff01:02ff")).toBe("255.1.2.255");
    // One bit outside ::ffff:0:0/96 is an IPv6 network, whichever group it is in.
    for (const [text, key] of [
      ["::fffe:102:304", "0:0:0:0::/64"],
      ["1::ffff:102:304", "1:0:0:0::/64"],
      ["0:0:0:0:1:ffff:102:304", "0:0:0:0::/64"],
    ]) {
      expect(normalizeIp(text, 64), text).toBe(key);
    }
    expect(normalizeIp("0:0:0:1:0:ffff:102:304", 64)).toBe("0:0:0:1::/64");
    expect(normalizeIp("0:0:1:0:0:ffff:102:304", 48)).toBe("0:0:1:0::/48");
    expect(normalizeIp("0:1:0:0:0:ffff:102:304", 32)).toBe("0:1:0:0::/32");
    expect(normalizeIp("1:0:0:0:0:ffff:102:304", 32)).toBe("1:0:0:0::/32");
  });
});

describe("the key of an IPv6 network", () => {
  const all = [0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff];
  it("keeps exactly the prefix's bits of the first four groups", () => {
    expect(clientKey(all, 32)).toBe("ffff:ffff:0:0::/32");
    expect(clientKey(all, 33)).toBe("ffff:ffff:8000:0::/33");
    expect(clientKey(all, 47)).toBe("ffff:ffff:fffe:0::/47");
    expect(clientKey(all, 48)).toBe("ffff:ffff:ffff:0::/48");
    expect(clientKey(all, 56)).toBe("ffff:ffff:ffff:ff00::/56");
    expect(clientKey(all, 63)).toBe("ffff:ffff:ffff:fffe::/63");
    expect(clientKey(all, 64)).toBe("ffff:ffff:ffff:ffff::/64");
    expect(clientKey("203.0.113.7", 56)).toBe("203.0.113.7");
  });
});

describe("which header names the client", () => {
  it("trims the entries of X-Forwarded-For and takes the one as many hops from the right as trusted", () => {
    const chain = h({ "cf-connecting-ip": "192.0.2.50", "x-forwarded-for": " 198.51.100.1 ,203.0.113.2 ,\t192.0.2.40" });
    expect(clientAddress(chain, 1)).toBe("192.0.2.40");
    expect(clientAddress(chain, 2)).toBe("203.0.113.2");
    expect(clientAddress(chain, 3)).toBe("198.51.100.1");
    // Exactly one entry per trusted hop is a whole chain; one fewer is not, and the edge's view stands.
    expect(clientAddress(chain, 4)).toBe("192.0.2.50");
    expect(clientAddress(h({ "cf-connecting-ip": "192.0.2.50", "x-forwarded-for": "198.51.100.1" }), 1)).toBe("198.51.100.1");
    expect(clientAddress(h({ "x-forwarded-for": "198.51.100.1" }), 2)).toBe(UNKNOWN_CLIENT);
  });

  it("reads an empty entry where the client must be as no address, not a malformed one", () => {
    expect(clientAddress(h({ "cf-connecting-ip": "192.0.2.50", "x-forwarded-for": "198.51.100.1, , 192.0.2.40" }), 2)).toBe(UNKNOWN_CLIENT);
    expect(clientAddress(h({ "cf-connecting-ip": "" }))).toBe(UNKNOWN_CLIENT);
  });

  it("falls back to CF-Connecting-IP when the trusted X-Real-IP is empty", () => {
    expect(clientAddress(h({ "cf-connecting-ip": "192.0.2.50", "x-real-ip": "" }), 1, "x-real-ip")).toBe("192.0.2.50");
    expect(clientAddress(h({ "cf-connecting-ip": "192.0.2.50", "x-real-ip": "198.51.100.7" }), 0, "x-real-ip")).toBe("192.0.2.50");
    expect(clientAddress(h({ "x-real-ip": "198.51.100.7" }), 2, "x-real-ip")).toBe("198.51.100.7");
  });

  it("names the header a malformed address came from, and quotes at most 64 characters of it", () => {
    const error = (headers: Record<string, string>, hops = 0, header: "x-forwarded-for" | "x-real-ip" = "x-forwarded-for") => {
      try {
        clientIp(h(headers), hops, header);
      } catch (thrown) {
        expect(thrown).toBeInstanceOf(InvalidClientIpError);
        return (thrown as Error).message;
      }
      throw new Error("no error");
    };
    expect(error({ "cf-connecting-ip": "999.1.1.1" })).toBe('CF-Connecting-IP is not an IP address: "999.1.1.1"');
    expect(error({ "x-forwarded-for": "a, nope" }, 1)).toBe('X-Forwarded-For is not an IP address: "nope"');
    expect(error({ "x-real-ip": "nope" }, 1, "x-real-ip")).toBe('X-Real-IP is not an IP address: "nope"');
    expect(error({ "cf-connecting-ip": "x".repeat(100) })).toBe(`CF-Connecting-IP is not an IP address: "${"x".repeat(64)}"`);
  });
});
