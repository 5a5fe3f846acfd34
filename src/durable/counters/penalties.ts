/**
 * The penalty box at the counter object (docs/rules.md, "Penalty box"): a
 * call on a limit with a `penalty` is first held against the limit's block
 * (a blocked key is refused, each hit a breach that escalates the block),
 * then decided as any call; a refusal by the limit's window starts a block.
 * The state machine is the pure `penaltyStep`; the blocks are the
 * PenaltyBook's.
 */
import { blockedDecision, blockLeft, type PenaltySpec, type PenaltyState, type PenaltyStep, penaltyStep } from "../../algorithms/penalty.ts";
import type { Decision } from "../../algorithms/types.ts";
import type { CounterCall, CounterVerdict, LimitCall } from "../../stored/wire-calls.ts";
import type { PenaltyBook } from "./penalty-book.ts";

/** What the object lends the penalty box for one call. */
export interface PenaltyAccess {
  readonly book: Pick<PenaltyBook, "read" | "write">;
  /** Storage id of a limit's window (and of its block): counter key U+0001 limit id. */
  id(limit: LimitCall): string;
  /** The window's decision for no hits now (nothing consumed). */
  peek(limit: LimitCall): Decision;
  /** A block now ends at `until`: the object sweeps it then. */
  blocked(until: number): void;
}

/**
 * Whether any limit of `call` has a penalty (one check per call: the rest
 * of this file is skipped for all others).
 *
 * @example
 * if (penalized(call)) verdict = decidePenalized(call, access, now, () => decide(call));
 */
export function penalized(call: CounterCall): boolean {
  for (const limit of call.limits) if (limit.penalty !== undefined) return true;
  return false;
}

/**
 * Decide `call` under its limits' penalties: refused while a block holds
 * (nothing consumed; each hit, cost > 0, a breach), else as `decide` says,
 * with a block started on every penalty limit whose window refused a hit.
 * A peek (cost 0) reports blocks and changes none. A provisional refusal
 * (leased quota caused it) starts no block: it is no certain refusal.
 *
 * @example
 * decidePenalized(call, access, now, () => this.decideWindows(call, now));
 */
export function decidePenalized(call: CounterCall, access: PenaltyAccess, now: number, decide: () => CounterVerdict): CounterVerdict {
  const held = blocksNow(call, access, now);
  if (held !== undefined) return held;
  const verdict = decide();
  if (verdict.allowed || call.cost === 0 || verdict.provisional === true) return verdict;
  let decisions: Decision[] | undefined;
  call.limits.forEach((limit, i) => {
    const spec = limit.penalty;
    if (spec === undefined || verdict.decisions[i].allowed) return;
    const step = penaltyStep(undefined, spec, now, true);
    access.book.write(access.id(limit), step.state);
    if (step.state !== undefined) access.blocked(step.state.until);
    decisions ??= [...verdict.decisions];
    decisions[i] = blockedDecision(verdict.decisions[i], step.blockedMs);
  });
  return decisions === undefined ? verdict : { ...verdict, decisions };
}

// The verdict of a call some block holds now (undefined: none does). Every
// window is peeked: a blocked call consumes nothing.
function blocksNow(call: CounterCall, access: PenaltyAccess, now: number): CounterVerdict | undefined {
  let left: number[] | undefined;
  call.limits.forEach((limit, i) => {
    const spec = limit.penalty;
    if (spec === undefined) return;
    const state = access.book.read(access.id(limit));
    if (blockLeft(state, now) === 0) return;
    left ??= call.limits.map(() => 0);
    if (call.cost === 0) {
      left[i] = blockLeft(state, now);
      return;
    }
    // A hit during a block is a breach, whatever its window says (the window is not asked), and so is each the
    // isolate answered from its cache since it last called (`breaches`, src/isolate/breaches.ts).
    const step = breach(state, spec, now, 1 + carriedBreaches(call));
    access.book.write(access.id(limit), step.state);
    if (step.state !== undefined) access.blocked(step.state.until);
    left[i] = step.blockedMs;
  });
  if (left === undefined) return undefined;
  const blocked = left;
  return {
    allowed: false,
    decisions: call.limits.map((limit, i) => (blocked[i] > 0 ? blockedDecision(access.peek(limit), blocked[i]) : access.peek(limit))),
  };
}

/** The most breaches one call applies: any block reaches its max sooner (max_block_s / block_s < 2^25, escalate at least 2). */
const MAX_CARRIED_BREACHES = 64;

// The breaches a call carries, as a count the loop below may take: a bad value (negative, fractional, huge) is bounded.
function carriedBreaches(call: CounterCall): number {
  const carried = call.kind === undefined || call.kind === "decide" ? call.breaches : undefined;
  if (typeof carried !== "number" || !(carried >= 1)) return 0;
  return Math.min(Math.floor(carried), MAX_CARRIED_BREACHES);
}

// `count` breaches of a held block at `now`, stopping once one changes nothing (the block at its max, or escalate 1).
function breach(state: PenaltyState | undefined, spec: PenaltySpec, now: number, count: number): PenaltyStep {
  let step = penaltyStep(state, spec, now, false);
  for (let i = 1; i < count && step.state !== state; i++) {
    state = step.state;
    step = penaltyStep(state, spec, now, false);
  }
  return step;
}
