/**
 * Upstash ratelimit's duration strings (docs/from-upstash.md): a whole
 * number and a unit, with or without a space between: `"10 s"`, `"1m"`,
 * `"500 ms"`, `"1 h"`, `"1 d"`.
 */

type Unit = "ms" | "s" | "m" | "h" | "d";

/** A window as Upstash writes it. */
export type Duration = `${number} ${Unit}` | `${number}${Unit}`;

const UNIT_MS: Readonly<Record<Unit, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

const DURATION = /^(\d{1,15})\s?(ms|s|m|h|d)$/;

/**
 * Milliseconds of `duration`; an Error naming it (and `what`, the factory
 * it was given to) when it does not parse.
 *
 * @example
 * durationMs("10 s", "slidingWindow"); // 10_000
 * durationMs("10 seconds", "slidingWindow"); // throws: unable to parse the window "10 seconds"
 */
export function durationMs(duration: unknown, what: string): number {
  const match = typeof duration === "string" ? DURATION.exec(duration) : null;
  if (match === null) {
    throw new TypeError(
      `${what}: unable to parse the window ${JSON.stringify(duration)}; expected a whole number and a unit (ms, s, m, h or d), e.g. "10 s", "1m", "1 h"`,
    );
  }
  return Number(match[1]) * UNIT_MS[match[2] as Unit];
}
