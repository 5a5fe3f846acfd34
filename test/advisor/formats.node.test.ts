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

const SECRET = { k0: 0x01234567, k1: 0x89abcdef };

describe("keyHash", () => {
  it("gives these values under a fixed secret, so isolates of two deploys with one secret sample the same keys", () => {
    expect([
      keyHash("api", [], SECRET),
      keyHash("api", [{ key: "user", value: "u1" }], SECRET),
      keyHash("api", [{ key: "use", value: "ru1" }], SECRET),
      keyHash(
        "api",
        [
          { key: "path", value: "/v1/items" },
          { key: "api_key", value: "cust_3f9a0c12b7e4d6a1" },
        ],
        SECRET,
      ),
    ]).toEqual(GOLDEN_HASHES);
  });

  // Break tried: keyHash ignoring its shard key (unkeyed): another secret gives the same hashes.
  it("is keyed: another secret samples other keys, so no client can pick a value never sampled", () => {
    const other = { k0: 7, k1: 11 };
    expect(keyHash("api", [{ key: "user", value: "u1" }], other)).not.toBe(GOLDEN_HASHES[1]);
    const keys = Array.from({ length: 1_000 }, (_, i) => [{ key: "k", value: `v${i}` }]);
    const agree = keys.filter((entries) => keySampled("d", entries, 0.1, SECRET) === keySampled("d", entries, 0.1, other)).length;
    // Independent choices at 10 % agree on about 82 % of keys; the same hash would agree on all.
    expect(agree).toBeLessThan(900);
  });

  it("samples about the rate's share of keys, all at 1 and none at 0", () => {
    const keys = Array.from({ length: 10_000 }, (_, i) => [{ key: "k", value: `v${i}` }]);
    for (const rate of [0.01, 0.1, 0.5]) {
      const share = keys.filter((entries) => keySampled("d", entries, rate, SECRET)).length / keys.length;
      expect(Math.abs(share - rate)).toBeLessThan(Math.max(0.005, rate * 0.1));
    }
    expect(keys.every((entries) => keySampled("d", entries, 1, SECRET))).toBe(true);
    expect(keys.some((entries) => keySampled("d", entries, 0, SECRET))).toBe(false);
  });
});

// Fixed when the hash was: HalfSipHash-2-4 of domain, keys and values (each ended by U+0000), keyed from SECRET.
const GOLDEN_HASHES = [2455089795, 4064904506, 2698558182, 4080044651];
