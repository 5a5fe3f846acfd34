/**
 * The replay against an independent naive count: for a tighter and a
 * looser rule over the same random rows, the replay refuses exactly the
 * requests a plain per-key count refuses (docs/advisor.md, "Replay").
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replay, replayRules } from "../../src/advisor/replay.ts";
import { compileOnce } from "../../src/rules/index.ts";
import { keyRows, keyRules, ROWS_KEY } from "./rows.ts";

const SEED = 0x41_0f1d;
const WINDOW_MS = 1000;

interface Hit {
  readonly t: number;
  readonly key: string;
  readonly cost: number;
}

/** Naive fixed window: the hits allowed so far in the aligned window, plus this one, within the limit. */
function fixedWindowCount(hits: readonly Hit[], limit: number): boolean[] {
  const used = new Map<string, number>();
  return hits.map((hit) => {
    const id = `${hit.key}@${Math.floor(hit.t / WINDOW_MS)}`;
    const sofar = used.get(id) ?? 0;
    if (sofar + hit.cost > limit) return false;
    used.set(id, sofar + hit.cost);
    return true;
  });
}

/** Naive sliding log: the hits allowed in (t - W, t], plus this one, within the limit. */
function slidingLogCount(hits: readonly Hit[], limit: number): boolean[] {
  const allowed: Hit[] = [];
  return hits.map((hit) => {
    let inWindow = 0;
    for (const a of allowed) if (a.key === hit.key && a.t > hit.t - WINDOW_MS) inWindow += a.cost;
    if (inWindow + hit.cost > limit) return false;
    allowed.push(hit);
    return true;
  });
}

const traffic = fc
  .array(
    fc.record({ gap: fc.integer({ min: 0, max: 400 }), key: fc.constantFrom("alice-key", "bob-key", "carol-key"), cost: fc.integer({ min: 1, max: 3 }) }),
    {
      minLength: 1,
      maxLength: 80,
    },
  )
  .map((events) => {
    let t = 1_764_000_000_000;
    return events.map(({ gap, key, cost }) => ({ t: (t += gap), key, cost }));
  });

const COUNTS = { fixed_window: fixedWindowCount, sliding_window_log: slidingLogCount } as const;

describe("replay against a naive count", () => {
  for (const [algorithm, count] of Object.entries(COUNTS)) {
    it(`${algorithm}: a tighter and a looser rule refuse exactly what the count refuses`, async () => {
      await fc.assert(
        fc.asyncProperty(traffic, fc.integer({ min: 1, max: 4 }), fc.integer({ min: 5, max: 12 }), async (hits, tight, loose) => {
          const rows = await keyRows(hits);
          for (const limit of [tight, loose]) {
            const rules = compileOnce(keyRules({ unit: "second", requests_per_unit: limit, algorithm }), "proposed")();
            const run = replay(await replayRules(rules, ROWS_KEY), rows);
            const expected = count(hits, limit);
            expect(run.decided.map((d) => d.allowed)).toEqual(expected);
            expect(run.decided.filter((d) => !d.allowed).length).toBe(expected.filter((a) => !a).length);
          }
        }),
        { seed: SEED, numRuns: 60 },
      );
    });
  }

  it("keys the counters by the sampled key: two keys never share one", async () => {
    const rows = await keyRows([
      { t: 0, key: "alice-key" },
      { t: 1, key: "bob-key" },
      { t: 2, key: "alice-key" },
    ]);
    const rules = compileOnce(keyRules({ unit: "minute", requests_per_unit: 1 }), "proposed")();
    expect(replay(await replayRules(rules, ROWS_KEY), rows).decided.map((d) => d.allowed)).toEqual([true, true, false]);
  });
});
