/**
 * The oracle of the JSON readers' tests (src/rules/json-syntax.ts,
 * src/request/json-syntax-error.ts): a text is JSON exactly when JSON.parse
 * takes it.
 */

/**
 * Whether JSON.parse takes `text`.
 *
 * @example
 * parses('{"a": 1}'); // true
 * parses("{a: 1}"); // false
 */
export function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
