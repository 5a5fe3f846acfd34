/**
 * Duplicate member names on the paths a route reads (docs/llm.md, "Bad
 * bodies"). `JSON.parse` keeps the last of two `"model"` members, and so
 * do most origins, but not all (some take the first, some refuse the
 * body): a request keyed on one copy while its origin reads the other
 * would escape its limit, so a duplicate on a path read is refused.
 */
import type { JsonPath } from "../rules/types.ts";

const STRUCTURE = /[{}[\]"]/g;
const SCALAR_END = /[,}\]\s]/g;

/**
 * The first member name found twice in one object along `paths` of the
 * valid JSON `text` (as the dotted path of the second copy), or undefined.
 * Names are compared decoded: `"mod\u0065l"` is `"model"`. Only the
 * objects on the paths are looked into; everything else is skipped over.
 *
 * @example
 * duplicateOnPaths('{"model":"a","model":"b"}', [["model"]]); // "model"
 * duplicateOnPaths('{"metadata":{"user":1},"metadata":{}}', [["metadata", "user"]]); // "metadata"
 * duplicateOnPaths('{"messages":[{"role":"a","role":"b"}]}', [["model"]]); // undefined: not on a path read
 */
export function duplicateOnPaths(text: string, paths: readonly JsonPath[]): string | undefined {
  const start = skipSpace(text, 0);
  if (text[start] !== "{") return undefined;
  return walkObject(text, start, paths, 0, "").duplicate;
}

interface Walked {
  /** Index just past the object. */
  readonly end: number;
  readonly duplicate?: string;
}

function walkObject(text: string, open: number, paths: readonly JsonPath[], depth: number, prefix: string): Walked {
  const seen = new Set<string>();
  let i = skipSpace(text, open + 1);
  if (text[i] === "}") return { end: i + 1 };
  for (;;) {
    const keyEnd = stringEnd(text, i);
    const raw = text.slice(i, keyEnd);
    // A name without a backslash is itself; JSON.parse decodes the rest exactly as the origin's parser does.
    const name = raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
    i = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const onPath = paths.filter((path) => path[depth] === name);
    const at = prefix === "" ? name : `${prefix}.${name}`;
    if (onPath.length > 0) {
      if (seen.has(name)) return { end: i, duplicate: at };
      seen.add(name);
    }
    const deeper = onPath.filter((path) => path.length > depth + 1);
    if (deeper.length > 0 && text[i] === "{") {
      const inner = walkObject(text, i, deeper, depth + 1, at);
      if (inner.duplicate !== undefined) return inner;
      i = inner.end;
    } else {
      i = valueEnd(text, i);
    }
    i = skipSpace(text, i);
    if (text[i] === "}") return { end: i + 1 };
    i = skipSpace(text, i + 1); // past ","
  }
}

function skipSpace(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return i;
    i++;
  }
  return i;
}

// Index just past the string opening at `open`: the first quote not escaped by an odd run of backslashes.
function stringEnd(text: string, open: number): number {
  let q = text.indexOf('"', open + 1);
  for (;;) {
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return q + 1;
    q = text.indexOf('"', q + 1);
  }
}

// Index just past the value starting at `i` (valid JSON), jumping from one structural character to the next.
function valueEnd(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return stringEnd(text, i);
  if (c !== "{" && c !== "[") {
    SCALAR_END.lastIndex = i;
    return SCALAR_END.exec(text)?.index ?? text.length;
  }
  let depth = 0;
  STRUCTURE.lastIndex = i;
  for (;;) {
    const found = STRUCTURE.exec(text) as RegExpExecArray;
    const ch = found[0];
    if (ch === '"') STRUCTURE.lastIndex = stringEnd(text, found.index);
    else if (ch === "{" || ch === "[") depth++;
    else if (--depth === 0) return found.index + 1;
  }
}
