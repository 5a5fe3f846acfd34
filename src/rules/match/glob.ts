/**
 * `*` glob matching, compiled once per pattern. `*` matches any run of
 * characters, including none and including `/`; every other character is
 * literal. No RegExp is built, so pattern text can never be misread as regex
 * syntax, and matching is linear in the input.
 */

/** A compiled glob: true when the whole input matches. */
export type GlobMatcher = (input: string) => boolean;

/**
 * Whether `pattern` contains a wildcard (otherwise it is matched exactly).
 *
 * @example
 * isGlob("partner-*"); // true
 */
export function isGlob(pattern: string): boolean {
  return pattern.includes("*");
}

/**
 * Compile `pattern`. With `ignoreCase`, both the pattern and each input are
 * lower-cased (host names).
 *
 * @example
 * const m = compileGlob("/files/*.json");
 * m("/files/a/b.json"); // true
 * m("/files/b.txt");    // false
 * compileGlob("*.Example.com", true)("API.example.COM"); // true
 */
export function compileGlob(pattern: string, ignoreCase = false): GlobMatcher {
  const source = ignoreCase ? pattern.toLowerCase() : pattern;
  const match = compileParts(source.split("*"));
  return ignoreCase ? (input) => match(input.toLowerCase()) : match;
}

function compileParts(parts: readonly string[]): GlobMatcher {
  if (parts.length === 1) {
    const literal = parts[0];
    return (input) => input === literal;
  }
  const first = parts[0];
  const last = parts[parts.length - 1];
  // Empty middle parts come from `**` and constrain nothing.
  const middle = parts.slice(1, -1).filter((part) => part !== "");
  if (middle.length === 0) {
    if (last === "") return first === "" ? () => true : (input) => input.startsWith(first);
    const minLength = first.length + last.length;
    return (input) => input.length >= minLength && input.startsWith(first) && input.endsWith(last);
  }
  const minLength = parts.reduce((sum, part) => sum + part.length, 0);
  return (input) => {
    if (input.length < minLength || !input.startsWith(first) || !input.endsWith(last)) return false;
    // Leftmost placement of each middle part leaves the most room for the
    // rest, so a greedy scan is exact for `*`-only globs.
    const end = input.length - last.length;
    let from = first.length;
    for (const part of middle) {
      const at = input.indexOf(part, from);
      if (at < 0 || at + part.length > end) return false;
      from = at + part.length;
    }
    return true;
  };
}
