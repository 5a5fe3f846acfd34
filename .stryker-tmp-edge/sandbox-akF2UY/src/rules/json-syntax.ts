/**
 * Locates the first JSON syntax error in a text. `JSON.parse` only sometimes
 * says where it failed, and the wording differs between V8 versions; a rules
 * author needs a line and column. Only runs after `JSON.parse` has failed.
 */
// @ts-nocheck


/** Where and why a text is not JSON; `offset` counts UTF-16 code units. */
export interface JsonSyntaxError {
  readonly offset: number;
  readonly reason: string;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPES = '"\\/bfnrt';
const HEX4 = /^[0-9a-fA-F]{4}$/;

/**
 * The first syntax error in `text`, or undefined when it is valid JSON.
 * Iterative, so absurdly deep nesting cannot overflow the stack.
 *
 * @example
 * findJsonSyntaxError('{"a": 1,}'); // { offset: 8, reason: "trailing comma before '}'" }
 * findJsonSyntaxError('{"a": 1}');  // undefined
 */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const closers: string[] = [];
  let i = 0;
  let state: "value" | "key" | "after" = "value";
  let afterComma = false;
  const found = (c: string | undefined) => (c === undefined ? "end of input" : JSON.stringify(c));
  const fail = (reason: string, offset = i): JsonSyntaxError => ({ offset, reason });
  for (;;) {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
    const c = text[i] as string | undefined;
    if (state === "key") {
      if (c === "}" && afterComma) return fail("trailing comma before '}'");
      if (c !== '"') return fail(`expected a double-quoted property name, found ${found(c)}`);
      const bad = scanString(text, i);
      if (typeof bad === "object") return bad;
      i = bad;
      while (i < text.length && " \t\n\r".includes(text[i])) i++;
      if (text[i] !== ":") return fail(`expected ':' after property name, found ${found(text[i])}`);
      i++;
      state = "value";
      afterComma = false;
    } else if (state === "value") {
      if (c === "]" && afterComma) return fail("trailing comma before ']'");
      if (c === "{" || c === "[") {
        closers.push(c === "{" ? "}" : "]");
        i++;
        while (i < text.length && " \t\n\r".includes(text[i])) i++;
        if (text[i] === closers[closers.length - 1]) {
          closers.pop();
          i++;
          state = "after";
        } else {
          state = c === "{" ? "key" : "value";
        }
        continue;
      }
      const end = scanScalar(text, i);
      if (typeof end === "object") return end;
      if (end === i) return fail(`expected a value, found ${found(c)}`);
      i = end;
      state = "after";
      afterComma = false;
    } else {
      const closer = closers[closers.length - 1];
      if (closer === undefined) return c === undefined ? undefined : fail(`unexpected ${found(c)} after the end of the JSON value`);
      if (c === ",") {
        i++;
        state = closer === "}" ? "key" : "value";
        afterComma = true;
      } else if (c === closer) {
        closers.pop();
        i++;
      } else {
        return fail(`expected ',' or '${closer}', found ${found(c)}`);
      }
    }
  }
}

// Returns the offset after a string, number or literal at `i` (i itself if none starts there).
function scanScalar(text: string, i: number): number | JsonSyntaxError {
  if (text[i] === '"') return scanString(text, i);
  for (const literal of ["true", "false", "null"]) {
    if (text.startsWith(literal, i)) return i + literal.length;
  }
  NUMBER.lastIndex = i;
  return NUMBER.test(text) ? NUMBER.lastIndex : i;
}

function scanString(text: string, start: number): number | JsonSyntaxError {
  let i = start + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') return i + 1;
    if (c < " ") return { offset: i, reason: "control character in string (write it as an escape such as \\n)" };
    if (c === "\\") {
      const e = text[i + 1];
      if (e === "u") {
        if (!HEX4.test(text.slice(i + 2, i + 6))) return { offset: i, reason: "invalid \\u escape in string" };
        i += 6;
        continue;
      }
      if (e === undefined || !ESCAPES.includes(e)) return { offset: i, reason: "invalid escape in string" };
      i += 2;
      continue;
    }
    i++;
  }
  return { offset: start, reason: "unterminated string" };
}

/**
 * 1-based line and column of a UTF-16 offset.
 *
 * @example
 * lineColumn('{\n  "a": }', 9); // { line: 2, column: 8 }
 */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === "\n") {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
