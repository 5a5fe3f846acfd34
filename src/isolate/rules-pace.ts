/**
 * When an isolate asks the RulesObject, as a pure function of what it last
 * did and what its location's copy says (rules-copy.ts), so a simulated
 * clock can drive 10,000 isolates through it
 * (test/rules/control-plane.node.test.ts). The bounds this gives are in
 * docs/operations.md ("What the control plane costs").
 */

/** The intervals of rules checks; the defaults are RULES_PACE. */
export interface RulesPace {
  /** Age of an isolate's last check from which a request starts another (it reads the location's copy: no object call). */
  readonly checkMs: number;
  /** A location copy younger than this is taken as current; an older one is refreshed from the object by one isolate. */
  readonly copyFreshMs: number;
  /** Least time between an isolate's own object calls when its location keeps no copy (workers.dev, no Cache API). */
  readonly ownPollMs: number;
  /** How long an isolate's claim to refresh a stale copy keeps the others of its location from calling too. */
  readonly claimMs: number;
}

/**
 * The defaults, set by the contract that a rules change applies everywhere
 * within 10 s (docs/admin-api.md, "Rules"): where a location keeps a copy,
 * one of its isolates asks the object about every 3–4.5 s for all of them
 * (13–20 calls per location-minute, however many isolates it runs); where
 * none is kept, each isolate asks every 4–6 s. An isolate's calls are
 * spaced 1 to 1.5 times these (`checkStep`'s spread).
 */
export const RULES_PACE: RulesPace = { checkMs: 2_000, copyFreshMs: 3_000, ownPollMs: 4_000, claimMs: 2_000 };

/** What a location copy says about its age. */
export interface CopyAge {
  /** When an isolate fetched it from the object (its clock). */
  readonly fetchedAt: number;
  /** When an isolate claimed its refresh, if one did. */
  readonly claimedAt?: number;
}

/** `use-copy`: apply the copy if newer; `refresh`: call the object (claiming the copy first); `wait`: nothing yet. */
export type CheckStep = "use-copy" | "refresh" | "wait";

/** A stamp this far ahead of the reader's clock is not trusted (clocks of isolates differ a little). */
const AHEAD_TOLERANCE_MS = 5_000;

const within = (at: number | undefined, now: number, ms: number) => at !== undefined && now - at >= -AHEAD_TOLERANCE_MS && now - at < ms;

/**
 * What a check at `now` does, given the location's copy (undefined: none)
 * and when this isolate last called the object. `spread` (0 to 1, drawn
 * anew by the isolate after each call) stretches its gap between calls by
 * up to half, so isolates started together (a deploy) do not call together
 * ever after.
 *
 * @example
 * checkStep({ fetchedAt: 0 }, -Infinity, 10_000); // "use-copy": fresh
 * checkStep({ fetchedAt: 0 }, -Infinity, 40_000); // "refresh": stale, and this isolate may call
 * checkStep(undefined, 30_000, 40_000); // "wait": no copy, and its own last call is under ownPollMs old
 */
export function checkStep(copy: CopyAge | undefined, lastCallAt: number, now: number, pace: RulesPace = RULES_PACE, spread = 0): CheckStep {
  if (copy !== undefined && (within(copy.fetchedAt, now, pace.copyFreshMs) || within(copy.claimedAt, now, pace.claimMs))) return "use-copy";
  const gap = (copy === undefined ? pace.ownPollMs : pace.copyFreshMs) * (1 + Math.min(1, Math.max(0, spread)) / 2);
  if (now - lastCallAt >= gap) return "refresh";
  return copy === undefined ? "wait" : "use-copy";
}
