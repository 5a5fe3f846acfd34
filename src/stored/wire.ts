/**
 * STORED FORMAT (docs/stored-formats.md): a batch of counter calls
 * (src/stored/wire-calls.ts), and its verdicts, as one JSON string across the
 * RPC, with the version of the shapes it carries: structured clone walks and rebuilds every object of the batch in the
 * runtime, where one string is copied whole and JSON.parse rebuilds it on
 * V8's fast path (bench/README.md, "Where the time goes").
 *
 * JSON has no Infinity, which decisions use (a retry that never comes): a
 * non-finite number travels as a tagged string and is revived. Texts
 * without one (almost all) are written and read without a replacer or
 * reviver; protocol values are never `null`, so a `null` in the plain text
 * is the sign that one was lost and the value is written again with the tags.
 */

const TAG = "\u0000num:";
// The tag as it appears inside a JSON text.
const TAG_IN_TEXT = "\\u0000num:";

function tagNonFinite(_key: string, value: unknown): unknown {
  return typeof value === "number" && !Number.isFinite(value) ? TAG + String(value) : value;
}

function untag(_key: string, value: unknown): unknown {
  return typeof value === "string" && value.startsWith(TAG) ? Number(value.slice(TAG.length)) : value;
}

/**
 * `value` (plain data: objects, arrays, strings, finite or infinite numbers,
 * booleans) as one JSON text that `fromWire` turns back into an equal value.
 *
 * @example
 * fromWire(toWire([{ retryAfterMs: Infinity }])); // [{ retryAfterMs: Infinity }]
 */
export function toWire(value: unknown): string {
  const text = JSON.stringify(value);
  return text.includes("null") ? JSON.stringify(value, tagNonFinite) : text;
}

/**
 * The value `toWire` wrote.
 *
 * @example
 * const calls = fromWire<CounterCall[]>(text);
 */
export function fromWire<T>(text: string): T {
  return (text.includes(TAG_IN_TEXT) ? JSON.parse(text, untag) : JSON.parse(text)) as T;
}

/**
 * The version of the calls and verdicts an isolate sends and an object reads
 * (src/stored/wire-calls.ts), passed beside the batch: `decideText(text,
 * WIRE_VERSION)`. Version 1 is the format as it was before it carried a
 * version, so a caller that sends none (an isolate of an older deploy) is
 * read as 1. An object answers a version it does not read (a newer
 * isolate's, during a rollback) with a WireRefusal rather than deciding
 * calls it may misread.
 */
export const WIRE_VERSION = 1;

/** The oldest version an object still reads; raised only a deploy after isolates stopped sending it (docs/stored-formats.md). */
export const OLDEST_WIRE_VERSION = 1;

/** An object's answer to a batch in a wire version it does not read, in place of the verdicts: what it refused and which versions it reads. */
export interface WireRefusal {
  readonly refused: string;
  readonly reads: readonly [oldest: number, newest: number];
}

/** A batch answered with a WireRefusal: the message names the version sent and the versions read. */
export class WireVersionError extends Error {
  override name = "WireVersionError";
}

/**
 * The refusal of a batch in wire version `version` (absent: 1, the format
 * before the version field), or undefined when this object reads it.
 *
 * @example
 * wireRefusal(undefined); // undefined
 * wireRefusal(2)?.refused; // "floodgate wire version 2 is not read by this object (it reads 1 to 1) …"
 */
export function wireRefusal(version: unknown): WireRefusal | undefined {
  if (version === undefined) return undefined;
  if (typeof version === "number" && Number.isInteger(version) && version >= OLDEST_WIRE_VERSION && version <= WIRE_VERSION) return undefined;
  return {
    refused: `floodgate wire version ${JSON.stringify(version)} is not read by this object (it reads ${OLDEST_WIRE_VERSION} to ${WIRE_VERSION}): the caller and the object are from different deploys; retry once one deploy has reached both`,
    reads: [OLDEST_WIRE_VERSION, WIRE_VERSION],
  };
}

/**
 * The verdicts of a `decideText` answer, or a WireVersionError if the
 * object refused the batch's version.
 *
 * @example
 * const verdicts = verdictsFromWire<CounterVerdict>(await stub.decideText(toWire(calls), WIRE_VERSION));
 */
export function verdictsFromWire<T>(text: string): T[] {
  const answer = fromWire<T[] | WireRefusal>(text);
  if (Array.isArray(answer)) return answer;
  throw new WireVersionError(typeof answer?.refused === "string" ? answer.refused : `an object answered ${text.slice(0, 200)} in place of verdicts`);
}
