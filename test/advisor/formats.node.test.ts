/**
 * Golden values of the traffic sample's formats (docs/stored-formats.md,
 * docs/advisor.md "Sample"): its table, the digest a replay must compute the
 * same way, and the key hash every isolate of every deploy must agree on.
 * A failure means a deploy would change what the sample holds or which keys
 * it samples: follow docs/stored-formats.md ("Changing a format").
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { digestValue } from "../../src/advisor/digest.ts";
import { keyHash, keySampled } from "../../src/advisor/key-sampling.ts";
import { SAMPLE_ROW_VERSION } from "../../src/advisor/sample-row.ts";
import { SAMPLE_TABLE, SAMPLE_TABLES_VERSION } from "../../src/stored/sample-tables.ts";

describe("the sample's stored formats", () => {
  it("are these versions and this table", () => {
    expect({ SAMPLE_TABLES_VERSION, SAMPLE_ROW_VERSION }).toEqual({ SAMPLE_TABLES_VERSION: 1, SAMPLE_ROW_VERSION: 1 });
    expect(SAMPLE_TABLE).toBe(
      "CREATE TABLE IF NOT EXISTS sample_batches (seq INTEGER PRIMARY KEY, domain TEXT NOT NULL, t_first INTEGER NOT NULL, t_last INTEGER NOT NULL, count INTEGER NOT NULL, rows TEXT NOT NULL)",
    );
  });
});

describe("digestValue", () => {
  it("is a prefix of min(4, floor(length / 4)) characters, ~, and the first 8 bytes of SHA-256 in hex", async () => {
    expect(await digestValue("")).toBe("~e3b0c44298fc1c14");
    expect(await digestValue("abc")).toBe("~ba7816bf8f01cfea");
    expect(await digestValue("cust_3f9a0c12b7e4d6a1")).toBe("cust~b64c8e2b006a37ee");
    expect(await digestValue("203.0.113.77")).toBe("203~0c25434b09c62046");
    expect(await digestValue("Bearer AUTHTOKENSECRET9191")).toBe("Bear~b4824c168ae40ffb");
    // Characters are code points: no half of a surrogate pair.
    expect(await digestValue("\u{1F600}\u{1F600}\u{1F600}\u{1F600}xyz")).toBe("\u{1F600}~5edb588acfbcd40e");
  });

  it("agrees with an independent SHA-256 on many values", async () => {
    for (let i = 0; i < 200; i++) {
      const value = `value-${i}-${"é".repeat(i % 7)}`;
      const hex = createHash("sha256").update(value, "utf8").digest("hex").slice(0, 16);
      const chars = Array.from(value);
      expect(await digestValue(value)).toBe(`${chars.slice(0, Math.min(4, Math.floor(chars.length / 4))).join("")}~${hex}`);
    }
  });
});

describe("keyHash", () => {
  it("gives these values, so isolates of two deploys sample the same keys", () => {
    expect([
      keyHash("api", []),
      keyHash("api", [{ key: "user", value: "u1" }]),
      keyHash("api", [{ key: "use", value: "ru1" }]),
      keyHash("api", [
        { key: "path", value: "/v1/items" },
        { key: "api_key", value: "cust_3f9a0c12b7e4d6a1" },
      ]),
    ]).toEqual(GOLDEN_HASHES);
  });

  it("samples about the rate's share of keys, all at 1 and none at 0", () => {
    const keys = Array.from({ length: 10_000 }, (_, i) => [{ key: "k", value: `v${i}` }]);
    for (const rate of [0.01, 0.1, 0.5]) {
      const share = keys.filter((entries) => keySampled("d", entries, rate)).length / keys.length;
      expect(Math.abs(share - rate)).toBeLessThan(Math.max(0.005, rate * 0.1));
    }
    expect(keys.every((entries) => keySampled("d", entries, 1))).toBe(true);
    expect(keys.some((entries) => keySampled("d", entries, 0))).toBe(false);
  });
});

// Fixed when the hash was: FNV-1a over domain, keys and values (each ended by U+0000), MurmurHash3's finalizer.
const GOLDEN_HASHES = [3603499758, 1247833826, 1687826591, 1420105030];
