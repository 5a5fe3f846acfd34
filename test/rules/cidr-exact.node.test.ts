/**
 * Exact cases of src/rules/match/cidr.ts beside cidr.test.ts's oracle: IPv6 texts
 * at each rule of their grammar (group counts with and without "::", an
 * embedded IPv4 only last), prefix lengths at each family's edge, RFC 5952's
 * choice of the zero run to collapse, and the table's own answers (the
 * range already there, lookups of a prefix, every value).
 */
import { describe, expect, it } from "vitest";
import { CidrTable, formatPrefix, parsePrefix } from "../../src/rules/match/cidr.ts";

const bits6 = (...groups: number[]) => groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);

describe("parsePrefix, exactly", () => {
  it("reads IPv6 with eight groups, or fewer around one '::', and IPv4 only as the last two", () => {
    expect(parsePrefix("1:2:3:4:5:6:7:8")).toEqual({ family: 6, bits: bits6(1, 2, 3, 4, 5, 6, 7, 8), length: 128 });
    expect(parsePrefix("1:2:3:4:5:6::8")).toEqual({ family: 6, bits: bits6(1, 2, 3, 4, 5, 6, 0, 8), length: 128 });
    expect(parsePrefix("::")).toEqual({ family: 6, bits: 0n, length: 128 });
    expect(parsePrefix("::1.2.3.4")?.bits).toBe(0x01020304n);
    expect(parsePrefix("1::")?.bits).toBe(bits6(1, 0, 0, 0, 0, 0, 0, 0));
    expect(parsePrefix("ABCD::ef")?.bits).toBe(bits6(0xabcd, 0, 0, 0, 0, 0, 0, 0xef));
    for (const bad of ["1:2:3:4:5:6:7::8", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "12345::", "::1.2.3", "::1.2.3.4:5", "g::", ":::", "1:::2", ""]) {
      expect(parsePrefix(bad), bad).toBeUndefined();
    }
  });

  it("takes lengths from 0 to 32 for IPv4 and to 128 for IPv6, with no leading zero", () => {
    expect(parsePrefix("1.2.3.4/0")?.length).toBe(0);
    expect(parsePrefix("1.2.3.4/32")?.length).toBe(32);
    expect(parsePrefix("::/128")?.length).toBe(128);
    expect(parsePrefix("::/100")?.length).toBe(100);
    for (const bad of ["1.2.3.4/33", "::/129", "::/1000", "::/0128", "1.2.3.4/-1", "1.2.3.4/ 8", "1.2.3.4/8/8"]) {
      expect(parsePrefix(bad), bad).toBeUndefined();
    }
  });
});

describe("formatPrefix, exactly", () => {
  it("collapses the longest run of two or more zero groups, the first of equal runs", () => {
    expect(formatPrefix({ family: 6, bits: bits6(1, 0, 1, 0, 1, 0, 1, 0), length: 128 })).toBe("1:0:1:0:1:0:1:0/128");
    expect(formatPrefix({ family: 6, bits: bits6(1, 0, 0, 1, 0, 0, 1, 1), length: 128 })).toBe("1::1:0:0:1:1/128");
    expect(formatPrefix({ family: 6, bits: bits6(0, 0, 1, 0, 0, 0, 1, 1), length: 128 })).toBe("0:0:1::1:1/128");
    expect(formatPrefix({ family: 6, bits: 0n, length: 0 })).toBe("::/0");
    expect(formatPrefix({ family: 6, bits: bits6(0, 0, 0, 0, 0, 0, 0, 1), length: 128 })).toBe("::1/128");
    expect(formatPrefix({ family: 6, bits: bits6(1, 0, 0, 0, 0, 0, 0, 0), length: 16 })).toBe("1::/16");
    expect(formatPrefix({ family: 4, bits: 0xffffffffn, length: 1 })).toBe("128.0.0.0/1");
  });
});

describe("CidrTable, exactly", () => {
  it("returns the value already held for the same range, keeps the first, and lists every value", () => {
    const table = new CidrTable<string>();
    expect(table.add(parsePrefix("10.0.0.0/8")!, "a")).toBeUndefined();
    expect(table.add(parsePrefix("10.255.0.0/8")!, "b")).toBe("a");
    expect(table.add(parsePrefix("10.1.0.0/16")!, "c")).toBeUndefined();
    expect(table.add(parsePrefix("2001:db8::/32")!, "d")).toBeUndefined();
    expect(table.lookup("10.200.0.1")).toBe("a");
    expect([...table.values()].sort()).toEqual(["a", "c", "d"]);
  });

  it("looks a prefix up only in ranges at most as long as it", () => {
    const table = new CidrTable<string>();
    table.add(parsePrefix("10.0.0.0/8")!, "wide");
    table.add(parsePrefix("10.1.0.0/16")!, "narrow");
    expect(table.lookup("10.1.0.0/16")).toBe("narrow");
    expect(table.lookup("10.1.0.0/15")).toBe("wide");
    expect(table.lookup("10.0.0.0/7")).toBeUndefined();
    expect(table.lookup("10.1.2.3")).toBe("narrow");
    expect(table.lookup("::ffff:10.1.2.3")).toBeUndefined();
    expect(table.lookup("no address")).toBeUndefined();
  });
});
