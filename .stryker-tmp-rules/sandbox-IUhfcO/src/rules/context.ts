/**
 * State shared while one domain document is compiled: its errors, the limit
 * names it defines and the `replaces` references to check against them once
 * the whole domain has been read (a limit may replace one defined later).
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
import type { Diagnostics } from "./reader.ts";
export interface DomainContext {
  readonly d: Diagnostics;
  /** Explicit rate limit names defined anywhere in the domain. */
  readonly names: Set<string>;
  /** Every `replaces` name with the path it was written at. */
  readonly replacesRefs: {
    readonly name: string;
    readonly path: string;
  }[];
  /** Tree nodes and compiled limits, for the summary line. */
  readonly counts: {
    descriptors: number;
    limits: number;
  };
}

/**
 * A fresh context for one domain document.
 *
 * @example
 * const ctx = domainContext(new Diagnostics());
 */
export function domainContext(d: Diagnostics): DomainContext {
  if (stryMutAct_9fa48("465")) {
    {}
  } else {
    stryCov_9fa48("465");
    return stryMutAct_9fa48("466") ? {} : (stryCov_9fa48("466"), {
      d,
      names: new Set(),
      replacesRefs: stryMutAct_9fa48("467") ? ["Stryker was here"] : (stryCov_9fa48("467"), []),
      counts: stryMutAct_9fa48("468") ? {} : (stryCov_9fa48("468"), {
        descriptors: 0,
        limits: 0
      })
    });
  }
}