// The keyed shard hash (src/stored/shard-hash.ts, docs/deploy.md, "Shard key") against a byte-wise
// HalfSipHash-2-4 oracle, its reference vectors and golden values, and the key stretch. Plain: no bindings, so the mutation gate runs it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_SHARD_KEY_NAME, halfSipHash, shardKeyFrom } from "../../src/stored/shard-hash.ts";

// An independent oracle: HalfSipHash-2-4 with 32-bit output as the reference describes it, over bytes
// (4-byte little-endian words, the last word the length's low byte and the tail).
const rotl = (x: number, b: number) => (x << b) | (x >>> (32 - b)) | 0;
function referenceHash(key: { k0: number; k1: number }, bytes: Uint8Array): number {
  let v0 = key.k0 | 0;
  let v1 = key.k1 | 0;
  let v2 = (0x6c796765 ^ key.k0) | 0;
  let v3 = (0x74656462 ^ key.k1) | 0;
  const round = () => {
    v0 = (v0 + v1) | 0;
    v1 = rotl(v1, 5) ^ v0;
    v0 = rotl(v0, 16);
    v2 = (v2 + v3) | 0;
    v3 = rotl(v3, 8) ^ v2;
    v0 = (v0 + v3) | 0;
    v3 = rotl(v3, 7) ^ v0;
    v2 = (v2 + v1) | 0;
    v1 = rotl(v1, 13) ^ v2;
    v2 = rotl(v2, 16);
  };
  const whole = bytes.length - (bytes.length % 4);
  const compress = (m: number) => {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  };
  for (let i = 0; i < whole; i += 4) compress(bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
  let last = (bytes.length & 0xff) << 24;
  for (let i = whole; i < bytes.length; i++) last |= bytes[i] << (8 * (i - whole));
  compress(last);
  v2 ^= 0xff;
  for (let r = 0; r < 4; r++) round();
  return (v1 ^ v3) >>> 0;
}
const utf16le = (text: string) => {
  const bytes = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    bytes[2 * i] = text.charCodeAt(i) & 0xff;
    bytes[2 * i + 1] = text.charCodeAt(i) >>> 8;
  }
  return bytes;
};
const REFERENCE_KEY = { k0: 0x03020100, k1: 0x07060504 };
const GOLDEN = [0x143646e6, 0xd7d14ddd, 0x3be534d2, 0x41e8b25f, 0x78324619];
const word = fc.integer({ min: 0, max: 0xffffffff });

describe("halfSipHash", () => {
  it("gives the reference vectors (key 00…07; messages 00 and 00 01)", () => {
    expect(referenceHash(REFERENCE_KEY, new Uint8Array([]))).toBe(0x5b9f35a9);
    expect(referenceHash(REFERENCE_KEY, new Uint8Array([0, 1]))).toBe(0x03a662fa);
    expect(halfSipHash(REFERENCE_KEY, "")).toBe(0x5b9f35a9);
    expect(halfSipHash(REFERENCE_KEY, "\u0100")).toBe(0x03a662fa);
  });

  it("equals the byte-wise reference over any text's UTF-16LE bytes and any key", () => {
    fc.assert(
      fc.property(word, word, fc.string({ unit: "binary", maxLength: 40 }), (k0, k1, text) => {
        expect(halfSipHash({ k0, k1 }, text)).toBe(referenceHash({ k0, k1 }, utf16le(text)));
      }),
      { numRuns: 200 },
    );
    for (let n = 0; n <= 9; n++) {
      const text = "\uffff".repeat(n);
      expect(halfSipHash({ k0: 0xffffffff, k1: 0x80000000 }, text)).toBe(referenceHash({ k0: 0xffffffff, k1: 0x80000000 }, utf16le(text)));
    }
  });

  it("is fixed: golden values, since the shard every stored counter lives in depends on them", () => {
    const key = { k0: 0x12345678, k1: 0x9abcdef0 };
    expect(["", "a", "ab", "abc", "api/api_key=k"].map((t) => halfSipHash(key, t))).toEqual(GOLDEN);
  });
});

describe("shardKeyFrom", () => {
  const ids = { idFromName: (name: string) => ({ toString: () => `id-of-${name}` }) };

  it("stretches a secret into two independent words", () => {
    const key = shardKeyFrom("s3cret", ids);
    expect(key).toEqual({ k0: shardKeyFrom("s3cret", ids).k0, k1: shardKeyFrom("s3cret", ids).k1 });
    expect(key.k0).not.toBe(key.k1);
    expect(shardKeyFrom("s3cret", ids)).not.toEqual(shardKeyFrom("s3cret2", ids));
  });

  it("falls back to the namespace's id of the default name when the secret is unset or empty", () => {
    const unset = shardKeyFrom(undefined, ids);
    expect(shardKeyFrom("", ids)).toEqual(unset);
    expect(unset).toEqual(shardKeyFrom(`id:id-of-${DEFAULT_SHARD_KEY_NAME}`, ids));
    expect(unset).not.toEqual(shardKeyFrom("id:id-of-other", ids));
  });
});
