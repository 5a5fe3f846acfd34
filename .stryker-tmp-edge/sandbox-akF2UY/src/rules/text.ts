/**
 * Rules from text (a file, or a `PUT /__ratelimit/rules` body): JSON syntax
 * errors become located messages instead of exceptions.
 */
// @ts-nocheck

import { compileRules, type CompileOptions } from "./compile.ts";
import { findJsonSyntaxError, lineColumn } from "./json-syntax.ts";
import type { CompileResult } from "./types.ts";

export type ParsedText =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly line: number; readonly column: number; readonly reason: string };

/**
 * Parse JSON text, locating a syntax error by line and column. A leading
 * byte-order mark is ignored (some Windows editors write one).
 *
 * @example
 * parseRulesText('{"domain": }'); // { ok: false, line: 1, column: 12, reason: 'expected a value, found "}"' }
 */
export function parseRulesText(text: string): ParsedText {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (error) {
    const located = findJsonSyntaxError(body);
    const offset = located?.offset ?? 0;
    const reason = located?.reason ?? (error instanceof Error ? error.message : String(error));
    const { line, column } = lineColumn(body, offset);
    return { ok: false, line, column, reason };
  }
}

/**
 * Parse and compile rules text; a JSON syntax error is reported at path `$`.
 *
 * @example
 * const result = compileRulesText(await request.text());
 * if (!result.ok) return Response.json({ errors: result.errors }, { status: 400 });
 */
export function compileRulesText(text: string, options: CompileOptions = {}): CompileResult {
  const parsed = parseRulesText(text);
  if (!parsed.ok) {
    return { ok: false, errors: [{ path: "$", message: `invalid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.reason}` }] };
  }
  return compileRules(parsed.value, options);
}
