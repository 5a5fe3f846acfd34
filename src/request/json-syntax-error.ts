/**
 * Where a JSON text first goes wrong (docs/llm.md, "Bad bodies"): the byte
 * offset, line and column, and what was expected there. Run only on a body
 * `JSON.parse` refused, whose own message does not always say where.
 */

/** The first syntax error of a JSON text. */
export interface JsonSyntaxError {
  /** Offset in characters of the decoded text (0-based). */
  readonly offset: number;
  /** 1-based line and column, as editors count them. */
  readonly line: number;
  readonly column: number;
  /** What the text should have had there, in words. */
  readonly expected: string;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// A string's characters: no control character, escapes only of the nine JSON knows.
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON forbids exactly these control characters in a string.
const STRING_BODY = /(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*/y;

/**
 * The first syntax error of `text`, or undefined when it is valid JSON.
 * Iterative (an explicit stack), so a body nested a million levels deep
 * cannot overflow the call stack.
 *
 * @example
 * jsonSyntaxError('{"model": "gpt", }'); // { offset: 16, line: 1, column: 17, expected: "a member name in double quotes" }
 */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const stack: ("{" | "[")[] = [];
  let i = 0;
  // Set when a string went wrong: it says so rather than "a JSON value".
  let inString = false;
  const skip = () => {
    while (i < text.length && WS.has(text.charCodeAt(i))) i++;
  };
  const fail = (expected: string): JsonSyntaxError =>
    at(text, i, inString ? 'a string character (no control character; escapes \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX) or its closing quote' : expected);
  // Reads one scalar, or opens a container; false on an error at `i`.
  const value = (): boolean => {
    skip();
    const c = text[i];
    if (c === "{" || c === "[") {
      stack.push(c);
      i++;
      return true;
    }
    if (c === '"') return string();
    for (const word of ["true", "false", "null"]) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return true;
      }
    }
    NUMBER.lastIndex = i;
    if (NUMBER.test(text)) {
      i = NUMBER.lastIndex;
      return true;
    }
    return false;
  };
  const string = (): boolean => {
    STRING_BODY.lastIndex = i + 1;
    STRING_BODY.test(text);
    if (text[STRING_BODY.lastIndex] !== '"') {
      i = STRING_BODY.lastIndex;
      inString = true;
      return false;
    }
    i = STRING_BODY.lastIndex + 1;
    return true;
  };
  skip();
  if (!value()) return fail("a JSON value");
  for (;;) {
    // After a value, or just inside a container just opened.
    const top = stack.at(-1);
    if (top === undefined) {
      skip();
      return i < text.length ? fail("the end of the body") : undefined;
    }
    skip();
    const close = top === "{" ? "}" : "]";
    const empty = justOpened(text, i, top);
    if (empty && text[i] === close) {
      stack.pop();
      i++;
      continue;
    }
    if (!empty) {
      if (text[i] === close) {
        stack.pop();
        i++;
        continue;
      }
      if (text[i] !== ",") return fail(`"," or "${close}"`);
      i++;
      skip();
    }
    if (top === "{") {
      if (text[i] !== '"' || !string()) return fail("a member name in double quotes");
      skip();
      if (text[i] !== ":") return fail('":" after the member name');
      i++;
    }
    if (!value()) return fail("a JSON value");
  }
}

// Whether the last non-space character before `i` is the container's own opening bracket.
function justOpened(text: string, i: number, top: "{" | "["): boolean {
  let j = i - 1;
  while (j >= 0 && WS.has(text.charCodeAt(j))) j--;
  return text[j] === top;
}

function at(text: string, offset: number, expected: string): JsonSyntaxError {
  let line = 1;
  let lineStart = 0;
  for (let k = text.indexOf("\n"); k >= 0 && k < offset; k = text.indexOf("\n", k + 1)) {
    line++;
    lineStart = k + 1;
  }
  return { offset, line, column: offset - lineStart + 1, expected: offset >= text.length ? `${expected} (the body ended)` : expected };
}
