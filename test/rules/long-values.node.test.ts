// Long descriptor values keyed by their digest (docs/rules.md, "Long values"):
// the byte bound, the key's form, and rule values that could never match.
import { describe, expect, it } from "vitest";
import { boundedDescriptors, boundedEntries, compileRules, isLongValue, longValueKey, MAX_VALUE_BYTES, matchDescriptor } from "../../src/rules/index.ts";
import { domainOf, errorsOf } from "./helpers.ts";

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("isLongValue", () => {
  it("measures UTF-8 bytes, not characters: 256 bytes are kept, 257 are long", () => {
    expect(MAX_VALUE_BYTES).toBe(256);
    for (const [value, long] of [
      ["a".repeat(256), false],
      ["a".repeat(257), true],
      ["é".repeat(128), false], // 256 bytes in 128 characters
      [`${"é".repeat(128)}x`, true],
      ["€".repeat(85), false], // 255 bytes
      ["€".repeat(86), true], // 258 bytes in 86 characters
      ["😀".repeat(64), false], // 256 bytes in 128 code units
      [`${"😀".repeat(64)}x`, true],
    ] as const) {
      expect(isLongValue(value), `${value.length} code units`).toBe(long);
    }
  });
});

describe("longValueKey", () => {
  it("is the first 32 characters, …sha256: and the hex digest of the whole value", async () => {
    const value = `${"x".repeat(40)}${"y".repeat(1000)}`;
    expect(await longValueKey(value)).toBe(`${"x".repeat(32)}…sha256:${await sha256Hex(value)}`);
    expect(isLongValue(await longValueKey("é".repeat(5000)))).toBe(false);
  });

  it("never cuts a surrogate pair", async () => {
    const value = `${"a".repeat(31)}😀${"b".repeat(300)}`;
    expect((await longValueKey(value)).startsWith(`${"a".repeat(31)}…sha256:`)).toBe(true);
  });

  it("tells apart values that differ only at the end, and is the same for the same value", async () => {
    const base = "k".repeat(65_535);
    expect(await longValueKey(`${base}A`)).not.toBe(await longValueKey(`${base}B`));
    expect(await longValueKey(`${base}A`)).toBe(await longValueKey(`${base}A`));
  });
});

describe("boundedDescriptors and boundedEntries", () => {
  const domain = domainOf({ domain: "t" });

  it("hand back the same arrays, without a promise, when no value is long", () => {
    const requests = [{ domain, descriptors: [[{ key: "k", value: "v".repeat(256) }]] }];
    expect(boundedDescriptors(requests)).toBe(requests);
    expect(boundedEntries(requests[0].descriptors[0])).toBe(requests[0].descriptors[0]);
  });

  it("key only the long values, keeping everything else of the request", async () => {
    const long = "z".repeat(300);
    const requests = [
      {
        domain,
        descriptors: [
          [
            { key: "a", value: "short" },
            { key: "b", value: long },
          ],
          [{ key: "c", value: "c" }],
        ],
        costs: [3, 1],
      },
    ];
    const bounded = boundedDescriptors(requests);
    expect(bounded).toBeInstanceOf(Promise);
    expect(await bounded).toEqual([
      {
        domain,
        descriptors: [
          [
            { key: "a", value: "short" },
            { key: "b", value: await longValueKey(long) },
          ],
          [{ key: "c", value: "c" }],
        ],
        costs: [3, 1],
        // Matched on the full value (here: nothing in a domain without descriptors), the short one left to the tree.
        overrides: [undefined, undefined],
      },
    ]);
  });
});

describe("matching a long value", () => {
  it("is against the full value: a wildcard on its end matches a long value as it does a short one (break: match the digest)", async () => {
    const domain = domainOf({
      domain: "t",
      descriptors: [
        { key: "k", value: "partner-*", rate_limit: { unit: "minute", requests_per_unit: 1 } },
        { key: "k", value: "*.png", rate_limit: { unit: "minute", requests_per_unit: 2 } },
        { key: "k", value: `${"p".repeat(40)}*`, rate_limit: { unit: "minute", requests_per_unit: 3 } },
      ],
    });
    const limitOf = async (value: string) => {
      const [bounded] = await boundedDescriptors([{ domain, descriptors: [[{ key: "k", value }]] }]);
      const match = bounded.overrides?.[0] ?? matchDescriptor(domain, bounded.descriptors[0]);
      return match?.limits[0]?.limit;
    };
    expect(await limitOf(`partner-${"x".repeat(300)}`)).toBe(1);
    expect(await limitOf("x.png")).toBe(2);
    expect(await limitOf(`${"x".repeat(300)}.png`)).toBe(2);
    // A prefix longer than the readable 32 characters kept in the key.
    expect(await limitOf(`${"p".repeat(300)}`)).toBe(3);
  });

  it("still stores the digest: the counter key never holds the long value", async () => {
    const domain = domainOf({ domain: "t", descriptors: [{ key: "k", value: "*.png", rate_limit: { unit: "minute", requests_per_unit: 2 } }] });
    const long = `${"x".repeat(300)}.png`;
    const [bounded] = await boundedDescriptors([{ domain, descriptors: [[{ key: "k", value: long }]] }]);
    expect(bounded.descriptors[0][0].value).toBe(await longValueKey(long));
  });
});

describe("rule values longer than the bound", () => {
  it("are a compile error at their path: a request value that long is keyed by its digest and could never match", () => {
    const value = "v".repeat(257);
    expect(errorsOf({ domain: "t", descriptors: [{ key: "k", value }] })).toEqual([
      {
        path: "$.descriptors[0].value",
        message:
          'is longer than 256 bytes (257): a rule value is at most 256 bytes; match longer request values with a wildcard ("prefix*" or "*suffix"), which is matched against the full value',
      },
    ]);
    expect(compileRules({ domain: "t", descriptors: [{ key: "k", value: "v".repeat(256) }] }).ok).toBe(true);
  });
});
