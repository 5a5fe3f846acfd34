/**
 * When a region's copy calls a key hot (docs/placement.md, "Hot keys at the
 * region's copy"; REGIONAL_HOT in src/durable/counters/hot-keys.ts): at
 * HOT_HITS_PER_S judged from EARLY_HOT_MS on (EARLY_HOT_HITS hits at that
 * rate), not after a whole second of strong calls, and on a first period of
 * REGIONAL_FIRST_SYNC_MS; a home's meters (HOME_HOT) are unchanged. The
 * meter alone, on times the test passes.
 *
 * Breaks tried, each seen to fail here:
 * - REGIONAL_HOT with `earlyHits: Infinity` (a home's judgement): "hot from
 *   its 50th hit";
 * - a counter turning hot on the meter's period as it is (no
 *   `firstSyncMs`): "hot from its 50th hit" (100, not 1,000).
 */
import { describe, expect, it } from "vitest";
import {
  EARLY_HOT_HITS,
  EARLY_HOT_MS,
  HOME_HOT,
  HOT_HITS_PER_S,
  HOT_KEYS_BYTES,
  HOT_SYNC_MIN_MS,
  HotKeys,
  REGIONAL_FIRST_SYNC_MS,
  REGIONAL_HOT,
} from "../../src/durable/counters/hot-keys.ts";

/** `n` calls of one hit each on `id`, `gapMs` apart from `from`; every answer. */
function hits(hot: HotKeys, id: string, n: number, from: number, gapMs: number) {
  return Array.from({ length: n }, (_, i) => hot.note(id, 1, from + i * gapMs));
}

describe("a region's copy calls a key hot", () => {
  it("from its 50th hit when they come at 200 a second or faster, on a first period of 1 s", () => {
    const hot = new HotKeys(HOT_KEYS_BYTES, REGIONAL_HOT);
    // 800 a second: a hit every 1.25 ms, rounded to 1 ms.
    const answers = hits(hot, "k", 60, 0, 1);
    expect(answers.findIndex((a) => a !== undefined)).toBe(EARLY_HOT_HITS - 1);
    expect(answers[EARLY_HOT_HITS - 1]).toEqual({ syncMs: REGIONAL_FIRST_SYNC_MS });
    expect(hot.hitsPerSecond("k", 59)).toBe((60 * 1_000) / EARLY_HOT_MS);
  });

  it("not below 200 a second: 100 a second stays cold all second, and 200 a second turns hot at its 50th hit (250 ms)", () => {
    const hot = new HotKeys(HOT_KEYS_BYTES, REGIONAL_HOT);
    expect(hits(hot, "slow", 99, 0, 10).every((a) => a === undefined)).toBe(true);
    const at200 = hits(hot, "at-200", 60, 0, 5);
    expect(at200.findIndex((a) => a !== undefined)).toBe(EARLY_HOT_HITS - 1);
  });

  it("a home's meters judge a whole second as before: 60 hits in 60 ms are not hot, and the first period is the shortest", () => {
    const home = new HotKeys(HOT_KEYS_BYTES, HOME_HOT);
    expect(hits(home, "k", 60, 0, 1).every((a) => a === undefined)).toBe(true);
    const answers = hits(home, "k2", HOT_HITS_PER_S, 0, 1);
    expect(answers.at(-1)).toEqual({ syncMs: HOT_SYNC_MIN_MS });
  });
});
