/**
 * A batch of counter calls, and its verdicts, as one JSON string across the
 * RPC: structured clone walks and rebuilds every object of the batch in the
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
