/**
 * "Did you mean" (src/rules/suggest.ts): the edit distance against its
 * definition (optimal string alignment: insert, delete, substitute, swap two
 * adjacent letters, each once per position) on random strings, and which
 * candidate `closest` picks at each of its bounds.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { closest, editDistance } from "../../src/rules/suggest.ts";

/** The distance by its recurrence, from the ends of the strings, memoized. */
function osa(a: string, b: string): number {
  const memo = new Map<string, number>();
  const go = (i: number, j: number): number => {
    if (i === 0) return j;
    if (j === 0) return i;
    const key = `${i},${j}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let best = Math.min(go(i - 1, j) + 1, go(i, j - 1) + 1, go(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
    if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, go(i - 2, j - 2) + 1);
    memo.set(key, best);
    return best;
  };
  return go(a.length, b.length);
}

describe("suggestions", () => {
  it("counts edits as the optimal string alignment does, a swap of neighbours as one (property)", () => {
    const word = fc.string({ unit: fc.constantFrom("a", "b", "c"), maxLength: 7 });
    fc.assert(
      fc.property(word, word, (a, b) => editDistance(a, b) === osa(a, b)),
      { seed: 26, numRuns: 2_000 },
    );
    expect([editDistance("rate_limt", "rate_limit"), editDistance("uint", "unit"), editDistance("ca", "abc"), editDistance("", "abc")]).toEqual([1, 1, 3, 3]);
  });

  it("picks the first of equally close candidates, within a third of the word", () => {
    expect(closest("ab", ["ax", "ay"])).toBe("ax");
    expect(closest("abcdef", ["abxyef", "abcxyz"])).toBe("abxyef");
    expect(closest("abcdef", ["axyzef"])).toBeUndefined();
    expect(closest("KEY", ["value", "key"])).toBe("key");
  });

  it("takes a truncation of three letters or more, not of two", () => {
    expect(closest("sha", ["per_key", "sharded"])).toBe("sharded");
    expect(closest("sh", ["sharded"])).toBeUndefined();
  });
});
