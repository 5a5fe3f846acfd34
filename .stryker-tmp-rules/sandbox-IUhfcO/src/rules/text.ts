/**
 * Rules from text (a file, or a `PUT /__ratelimit/rules` body): JSON syntax
 * errors become located messages instead of exceptions.
 */
// @ts-nocheck
function stryNS_9fa48() {
  var g = typeof globalThis === 'object' && globalThis && globalThis.Math === Math && globalThis || new Function("return this")();
  var ns = g.__stryker__ || (g.__stryker__ = {});
  if (ns.activeMutant === undefined && g.process && g.process.env && g.process.env.__STRYKER_ACTIVE_MUTANT__) {
    ns.activeMutant = g.process.env.__STRYKER_ACTIVE_MUTANT__;
  }
  function retrieveNS() {
    return ns;
  }
  stryNS_9fa48 = retrieveNS;
  return retrieveNS();
}
stryNS_9fa48();
function stryCov_9fa48() {
  var ns = stryNS_9fa48();
  var cov = ns.mutantCoverage || (ns.mutantCoverage = {
    static: {},
    perTest: {}
  });
  function cover() {
    var c = cov.static;
    if (ns.currentTestId) {
      c = cov.perTest[ns.currentTestId] = cov.perTest[ns.currentTestId] || {};
    }
    var a = arguments;
    for (var i = 0; i < a.length; i++) {
      c[a[i]] = (c[a[i]] || 0) + 1;
    }
  }
  stryCov_9fa48 = cover;
  cover.apply(null, arguments);
}
function stryMutAct_9fa48(id) {
  var ns = stryNS_9fa48();
  function isActive(id) {
    if (ns.activeMutant === id) {
      if (ns.hitCount !== void 0 && ++ns.hitCount > ns.hitLimit) {
        throw new Error('Stryker: Hit count limit reached (' + ns.hitCount + ')');
      }
      return true;
    }
    return false;
  }
  stryMutAct_9fa48 = isActive;
  return isActive(id);
}
import { compileRules, type CompileOptions } from "./compile.ts";
import { findJsonSyntaxError, lineColumn } from "./json-syntax.ts";
import type { CompileResult } from "./types.ts";
export type ParsedText = {
  readonly ok: true;
  readonly value: unknown;
} | {
  readonly ok: false;
  readonly line: number;
  readonly column: number;
  readonly reason: string;
};

/**
 * Parse JSON text, locating a syntax error by line and column. A leading
 * byte-order mark is ignored (some Windows editors write one).
 *
 * @example
 * parseRulesText('{"domain": }'); // { ok: false, line: 1, column: 12, reason: 'expected a value, found "}"' }
 */
export function parseRulesText(text: string): ParsedText {
  if (stryMutAct_9fa48("2637")) {
    {}
  } else {
    stryCov_9fa48("2637");
    const body = (stryMutAct_9fa48("2638") ? text.endsWith("\uFEFF") : (stryCov_9fa48("2638"), text.startsWith(stryMutAct_9fa48("2639") ? "" : (stryCov_9fa48("2639"), "\uFEFF")))) ? stryMutAct_9fa48("2640") ? text : (stryCov_9fa48("2640"), text.slice(1)) : text;
    try {
      if (stryMutAct_9fa48("2641")) {
        {}
      } else {
        stryCov_9fa48("2641");
        return stryMutAct_9fa48("2642") ? {} : (stryCov_9fa48("2642"), {
          ok: stryMutAct_9fa48("2643") ? false : (stryCov_9fa48("2643"), true),
          value: JSON.parse(body)
        });
      }
    } catch (error) {
      if (stryMutAct_9fa48("2644")) {
        {}
      } else {
        stryCov_9fa48("2644");
        const located = findJsonSyntaxError(body);
        const offset = stryMutAct_9fa48("2645") ? located?.offset && 0 : (stryCov_9fa48("2645"), (stryMutAct_9fa48("2646") ? located.offset : (stryCov_9fa48("2646"), located?.offset)) ?? 0);
        const reason = stryMutAct_9fa48("2647") ? located?.reason && (error instanceof Error ? error.message : String(error)) : (stryCov_9fa48("2647"), (stryMutAct_9fa48("2648") ? located.reason : (stryCov_9fa48("2648"), located?.reason)) ?? (error instanceof Error ? error.message : String(error)));
        const {
          line,
          column
        } = lineColumn(body, offset);
        return stryMutAct_9fa48("2649") ? {} : (stryCov_9fa48("2649"), {
          ok: stryMutAct_9fa48("2650") ? true : (stryCov_9fa48("2650"), false),
          line,
          column,
          reason
        });
      }
    }
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
  if (stryMutAct_9fa48("2651")) {
    {}
  } else {
    stryCov_9fa48("2651");
    const parsed = parseRulesText(text);
    if (stryMutAct_9fa48("2654") ? false : stryMutAct_9fa48("2653") ? true : stryMutAct_9fa48("2652") ? parsed.ok : (stryCov_9fa48("2652", "2653", "2654"), !parsed.ok)) {
      if (stryMutAct_9fa48("2655")) {
        {}
      } else {
        stryCov_9fa48("2655");
        return stryMutAct_9fa48("2656") ? {} : (stryCov_9fa48("2656"), {
          ok: stryMutAct_9fa48("2657") ? true : (stryCov_9fa48("2657"), false),
          errors: stryMutAct_9fa48("2658") ? [] : (stryCov_9fa48("2658"), [stryMutAct_9fa48("2659") ? {} : (stryCov_9fa48("2659"), {
            path: stryMutAct_9fa48("2660") ? "" : (stryCov_9fa48("2660"), "$"),
            message: stryMutAct_9fa48("2661") ? `` : (stryCov_9fa48("2661"), `invalid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.reason}`)
          })])
        });
      }
    }
    return compileRules(parsed.value, options);
  }
}