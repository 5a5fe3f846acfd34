/**
 * Shared pieces of the rate-limit header values: whole seconds, and policy
 * names as RFC 8941 strings.
 */
// @ts-nocheck


/**
 * Whole seconds, rounded up so a client never retries, or paces, too early.
 *
 * @example
 * seconds(1001); // 2
 */
export function seconds(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}

/** An RFC 8941 sf-string. */
function sfString(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[^\x20-\x7e]/g, "?")}"`;
}

// Policy names come from the rules, so there are few: quote each once.
const quoted = new Map<string, string>();
const QUOTED_MAX = 1_000;

/**
 * `name` as an sf-string, from a cache: the hot path quotes nothing twice.
 *
 * @example
 * quotedName('per "ip"'); // "\"per \\\"ip\\\"\""
 */
export function quotedName(name: string): string {
  let text = quoted.get(name);
  if (text === undefined) {
    text = sfString(name);
    if (quoted.size >= QUOTED_MAX) quoted.clear();
    quoted.set(name, text);
  }
  return text;
}
