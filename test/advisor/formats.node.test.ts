/**
 * Golden values of the traffic sample's formats (docs/stored-formats.md,
 * docs/advisor.md "Sample"): its table, the digest a replay must compute the
 * same way, and the key hash every isolate of every deploy must agree on.
 * A failure means a deploy would change what the sample holds or which keys
 * it samples: follow docs/stored-formats.md ("Changing a format").
 */
import { createHash, createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { digestValue } from "../../src/advisor/digest.ts";
import { keyHash, keySampled } from "../../src/advisor/key-sampling.ts";
import { SAMPLE_ROW_VERSION } from "../../src/advisor/sample-row.ts";
import { SAMPLE_TABLE, SAMPLE_TABLES_VERSION } from "../../src/stored/sample-tables.ts";
import { halfSipHash } from "../../src/stored/shard-hash.ts";

describe("the sample's stored formats", () => {
  it("are these versions and this table", () => {
    expect({ SAMPLE_TABLES_VERSION, SAMPLE_ROW_VERSION }).toEqual({ SAMPLE_TABLES_VERSION: 1, SAMPLE_ROW_VERSION: 2 });
    expect(SAMPLE_TABLE).toBe(
      "CREATE TABLE IF NOT EXISTS sample_batches (seq INTEGER PRIMARY KEY, domain TEXT NOT NULL, t_first INTEGER NOT NULL, t_last INTEGER NOT NULL, count INTEGER NOT NULL, rows TEXT NOT NULL)",
    );
  });
});

const SECRET = { k0: 0x01234567, k1: 0x89abcdef };

// The HMAC key as docs/advisor.md states it, computed here apart from digest.ts: four HalfSipHash words, little-endian.
function hmacKeyOf(shardKey: { k0: number; k1: number }): Buffer {
  const bytes = Buffer.alloc(16);
  for (let i = 0; i < 4; i++) bytes.writeUInt32LE(halfSipHash(shardKey, `floodgate/sample-digest/${i}`), i * 4);
  return bytes;
}

describe("digestValue", () => {
  it("is a prefix of min(4, floor(length / 4)) characters, ~, and the first 8 bytes of HMAC-SHA-256 in hex, under a fixed secret", async () => {
    expect(await digestValue("", SECRET)).toBe(GOLDEN_DIGESTS[0]);
    expect(await digestValue("abc", SECRET)).toBe(GOLDEN_DIGESTS[1]);
    expect(await digestValue("cust_3f9a0c12b7e4d6a1", SECRET)).toBe(GOLDEN_DIGESTS[2]);
    expect(await digestValue("203.0.113.77", SECRET)).toBe(GOLDEN_DIGESTS[3]);
    // Characters are code points: no half of a surrogate pair.
    expect(await digestValue("\u{1F600}\u{1F600}\u{1F600}\u{1F600}xyz", SECRET)).toBe(GOLDEN_DIGESTS[4]);
  });

  it("agrees with an independent HMAC-SHA-256 on many values", async () => {
    const key = hmacKeyOf(SECRET);
    for (let i = 0; i < 200; i++) {
      const value = `value-${i}-${"é".repeat(i % 7)}`;
      const hex = createHmac("sha256", key).update(value, "utf8").digest("hex").slice(0, 16);
      const chars = Array.from(value);
      expect(await digestValue(value, SECRET)).toBe(`${chars.slice(0, Math.min(4, Math.floor(chars.length / 4))).join("")}~${hex}`);
    }
  });

  // Break tried: digestValue back to unkeyed SHA-256 (the secret ignored): the address digest is SHA-256's, and both secrets agree.
  it("is keyed: without the deployment's secret nobody can test a guessed address against a digest", async () => {
    const unkeyed = createHash("sha256").update("203.0.113.77", "utf8").digest("hex").slice(0, 16);
    expect(await digestValue("203.0.113.77", SECRET)).not.toBe(`203~${unkeyed}`);
    expect(await digestValue("203.0.113.77", { k0: 7, k1: 11 })).not.toBe(await digestValue("203.0.113.77", SECRET));
  });
});

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
// Fixed when keyed digests were (row format 2): HMAC-SHA-256 under the key derived from SECRET.
const GOLDEN_DIGESTS = ["~1c07939b6c623d58", "~ecfa2c664206076f", "cust~49961bde6e3aed01", "203~0d4beac5377cef48", "\u{1F600}~18b3cffe6fb69683"];
