/**
 * The real counters namespace, with a chosen share of its object calls
 * failing the way the platform fails them: an Error with `overloaded` set
 * (an object past its soft limit) or `retryable` set (an object reset in
 * flight). The share is spread evenly (call n fails when n × share crosses
 * an integer), so the first call always succeeds and runs are repeatable.
 */
import type { Env } from "../../src/config.ts";
import { pickedEvenly, wrappedCounters } from "./wrapped-counters.ts";

/** One object call as the wrapper saw it. */
export interface FlakyCall {
  readonly name: string;
  readonly text: string;
  readonly failed: boolean;
}

/** A flaky namespace, the log of every call made to it, and a way to change its share of failures (an outage that ends). */
export interface Flaky {
  readonly counters: Env["COUNTERS"];
  readonly calls: FlakyCall[];
  setShare(share: number): void;
}

/** A namespace whose calls fail at `share` with `mark`, and the log of every call made to it. */
export function flakyCounters(share: number, mark: "overloaded" | "retryable"): Flaky {
  const calls: FlakyCall[] = [];
  let n = 0;
  const counters = wrappedCounters((decide, name) => async (text, version) => {
    const failed = pickedEvenly(n++, share);
    calls.push({ name, text, failed });
    if (failed)
      throw Object.assign(new Error(mark === "overloaded" ? "Durable Object is overloaded." : "Durable Object reset because its code was updated."), {
        [mark]: true,
      });
    return decide(text, version);
  });
  return {
    counters,
    calls,
    setShare: (next) => {
      share = next;
    },
  };
}
