/**
 * Checking a rules document without keeping what it compiles to.
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
import { compileRules } from "./compile.ts";
import type { RuleError } from "./types.ts";

/**
 * Every error in a parsed rules document, each with its JSON path; empty when it is valid.
 *
 * @example
 * validateRules({ domain: "api", descriptors: [{ key: "ip", rate_limit: { unit: "fortnight", requests_per_unit: 5 } }] });
 * // [{ path: "$.descriptors[0].rate_limit.unit", message: "..." }]
 */
export function validateRules(input: unknown): readonly RuleError[] {
  if (stryMutAct_9fa48("2662")) {
    {}
  } else {
    stryCov_9fa48("2662");
    const result = compileRules(input);
    return result.ok ? stryMutAct_9fa48("2663") ? ["Stryker was here"] : (stryCov_9fa48("2663"), []) : result.errors;
  }
}