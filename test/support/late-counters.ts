/**
 * The real counters namespace, with a chosen share of its object calls
 * answered late: each such call waits `delayMs` (past the decision timeout
 * the test sets) before it reaches the object, which then applies it as
 * usual, and its answer comes back to whoever still waits for it (the
 * caller's request is kept alive until it lands, as in production). Spread
 * evenly as in test/support/flaky-counters.ts (`pickedEvenly`). The log
 * says which calls were late.
 */
import type { Env } from "../../src/config.ts";
import { pickedEvenly, wrappedCounters } from "./wrapped-counters.ts";

/** One object call as the wrapper saw it. */
export interface LateCall {
  readonly name: string;
  readonly text: string;
  readonly late: boolean;
}

/** A namespace whose calls are late at `share`, the log of every call, and how many late calls have landed. */
export interface Late {
  readonly counters: Env["COUNTERS"];
  readonly calls: LateCall[];
  /** Late calls that reached the object so far. */
  landed(): number;
}

/**
 * A namespace whose calls reach the object `delayMs` late at `share`.
 *
 * @example
 * const { counters } = lateCounters(0.3, 1_200); // with DECISION_TIMEOUT_MS 1000: 30 % of calls time out, then apply
 */
export function lateCounters(share: number, delayMs: number): Late {
  const calls: LateCall[] = [];
  let n = 0;
  let landed = 0;
  const counters = wrappedCounters((decide, name) => async (text, version) => {
    const late = pickedEvenly(n++, share);
    calls.push({ name, text, late });
    if (late) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      landed += 1;
    }
    return decide(text, version);
  });
  return { counters, calls, landed: () => landed };
}

/** How the next call through a gated namespace goes: held before its object (`late`), or applied with its answer held (`slow`). */
export type Gate = "late" | "slow";

/** A namespace whose chosen calls wait for the test, and the log of every call. */
export interface Gated {
  readonly counters: Env["COUNTERS"];
  readonly calls: string[];
  /** The next call made goes as `gate` says; `release` lets it on. */
  next(gate: Gate): void;
  /** Let the oldest held call (of `gate`, if given) reach its object (`late`) or its answer reach the caller (`slow`); resolves when it has. */
  release(gate?: Gate): Promise<void>;
  /** Calls held now. */
  held(): number;
}

/**
 * The real counters namespace, with the calls the test chooses held at its
 * object's door or on their way back, until the test lets them on: a call
 * answered after DECISION_TIMEOUT_MS, or applied before and answered after
 * another's timeout, placed exactly without timing it.
 *
 * @example
 * const gated = gatedCounters(); gated.next("late"); // the next call waits for gated.release()
 */
export function gatedCounters(): Gated {
  const calls: string[] = [];
  const gates: Gate[] = [];
  const waiting: { gate: Gate; let: () => Promise<void> }[] = [];
  const counters = wrappedCounters((decide) => async (text, version) => {
    calls.push(text);
    const gate = gates.shift();
    if (gate === undefined) return decide(text, version);
    let open: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => (open = resolve));
    let done: () => void = () => undefined;
    const through = new Promise<void>((resolve) => (done = resolve));
    waiting.push({
      gate,
      let: async () => {
        open();
        await through;
      },
    });
    if (gate === "late") {
      await opened;
      const answer = await decide(text, version);
      done();
      return answer;
    }
    const answer = await decide(text, version);
    await opened;
    done();
    return answer;
  });
  return {
    counters,
    calls,
    next: (gate) => void gates.push(gate),
    release: async (gate) => {
      const i = waiting.findIndex((held) => gate === undefined || held.gate === gate);
      if (i < 0) throw new Error(`no ${gate ?? ""} call is held`);
      const [held] = waiting.splice(i, 1);
      await held.let();
    },
    held: () => waiting.length,
  };
}

/**
 * The real counters namespace, where the calls the test marks (`loseNext`)
 * reach their object and are applied, and then fail the way the platform
 * fails a call whose object was reset before its answer left: an Error with
 * `retryable` set. The edge retries such a call once on a fresh stub.
 *
 * @example
 * const lossy = lossyCounters(); lossy.loseNext(); // the next call is applied, its answer lost
 */
export function lossyCounters(): { counters: Env["COUNTERS"]; texts: string[]; loseNext(): void } {
  const texts: string[] = [];
  let lose = 0;
  const counters = wrappedCounters((decide) => async (text, version) => {
    texts.push(text);
    const answer = await decide(text, version);
    if (lose > 0) {
      lose -= 1;
      throw Object.assign(new Error("Durable Object reset because its code was updated."), { retryable: true });
    }
    return answer;
  });
  return {
    counters,
    texts,
    loseNext: () => {
      lose += 1;
    },
  };
}
