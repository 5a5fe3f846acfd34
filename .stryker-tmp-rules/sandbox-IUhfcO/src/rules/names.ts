/**
 * Identities and display names of compiled limits.
 *
 * The id keys counter state, so it depends only on what changes the counting
 * (algorithm, quota, window, burst): renaming a rule or moving it in the file
 * keeps its counters. The name goes into `RateLimit-Policy` structured-field
 * strings, so it is kept to printable ASCII without `"` or `\`.
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
import type { AlgorithmName } from "../algorithms/types.ts";
import type { Unit } from "./types.ts";
const ALGORITHM_CODES: Readonly<Record<AlgorithmName, string>> = stryMutAct_9fa48("2084") ? {} : (stryCov_9fa48("2084"), {
  token_bucket: stryMutAct_9fa48("2085") ? "" : (stryCov_9fa48("2085"), "tb"),
  leaky_bucket: stryMutAct_9fa48("2086") ? "" : (stryCov_9fa48("2086"), "lb"),
  fixed_window: stryMutAct_9fa48("2087") ? "" : (stryCov_9fa48("2087"), "fw"),
  sliding_window_log: stryMutAct_9fa48("2088") ? "" : (stryCov_9fa48("2088"), "swl"),
  sliding_window_counter: stryMutAct_9fa48("2089") ? "" : (stryCov_9fa48("2089"), "swc"),
  gcra: stryMutAct_9fa48("2090") ? "" : (stryCov_9fa48("2090"), "gcra")
});
const UNIT_SUFFIX: Readonly<Record<Unit, string>> = stryMutAct_9fa48("2091") ? {} : (stryCov_9fa48("2091"), {
  second: stryMutAct_9fa48("2092") ? "" : (stryCov_9fa48("2092"), "s"),
  minute: stryMutAct_9fa48("2093") ? "" : (stryCov_9fa48("2093"), "m"),
  hour: stryMutAct_9fa48("2094") ? "" : (stryCov_9fa48("2094"), "h"),
  day: stryMutAct_9fa48("2095") ? "" : (stryCov_9fa48("2095"), "d"),
  week: stryMutAct_9fa48("2096") ? "" : (stryCov_9fa48("2096"), "w"),
  month: stryMutAct_9fa48("2097") ? "" : (stryCov_9fa48("2097"), "mo"),
  year: stryMutAct_9fa48("2098") ? "" : (stryCov_9fa48("2098"), "y")
});

/** Characters a structured-field string may carry without escaping. */
export const SAFE_NAME = stryMutAct_9fa48("2102") ? /^[^\x20\x21\x23-\x5B\x5D-\x7E]+$/ : stryMutAct_9fa48("2101") ? /^[\x20\x21\x23-\x5B\x5D-\x7E]$/ : stryMutAct_9fa48("2100") ? /^[\x20\x21\x23-\x5B\x5D-\x7E]+/ : stryMutAct_9fa48("2099") ? /[\x20\x21\x23-\x5B\x5D-\x7E]+$/ : (stryCov_9fa48("2099", "2100", "2101", "2102"), /^[\x20\x21\x23-\x5B\x5D-\x7E]+$/);

/**
 * Stable id of a limit's counting parameters.
 *
 * @example
 * limitId("token_bucket", 1, 1000, 5); // "tb:1:1000:5"
 */
export function limitId(algorithm: AlgorithmName, limit: number, windowMs: number, burst: number): string {
  if (stryMutAct_9fa48("2103")) {
    {}
  } else {
    stryCov_9fa48("2103");
    return stryMutAct_9fa48("2104") ? `` : (stryCov_9fa48("2104"), `${ALGORITHM_CODES[algorithm]}:${limit}:${windowMs}:${burst}`);
  }
}

/**
 * Replace every character that is unsafe in a structured-field string.
 *
 * @example
 * sanitizeName('say "hi"'); // "say _hi_"
 */
export function sanitizeName(text: string): string {
  if (stryMutAct_9fa48("2105")) {
    {}
  } else {
    stryCov_9fa48("2105");
    return text.replace(stryMutAct_9fa48("2106") ? /[\x20\x21\x23-\x5B\x5D-\x7E]/g : (stryCov_9fa48("2106"), /[^\x20\x21\x23-\x5B\x5D-\x7E]/g), stryMutAct_9fa48("2107") ? "" : (stryCov_9fa48("2107"), "_"));
  }
}

/**
 * Readable label of a tree node, in the `k=v,k2` form the admin API uses for descriptors.
 *
 * @example
 * descriptorLabel("path=/login", "remote_address", undefined); // "path=/login,remote_address"
 */
export function descriptorLabel(parent: string, key: string, value: string | undefined): string {
  if (stryMutAct_9fa48("2108")) {
    {}
  } else {
    stryCov_9fa48("2108");
    const own = (stryMutAct_9fa48("2111") ? value !== undefined : stryMutAct_9fa48("2110") ? false : stryMutAct_9fa48("2109") ? true : (stryCov_9fa48("2109", "2110", "2111"), value === undefined)) ? key : stryMutAct_9fa48("2112") ? `` : (stryCov_9fa48("2112"), `${key}=${value}`);
    return (stryMutAct_9fa48("2115") ? parent !== "" : stryMutAct_9fa48("2114") ? false : stryMutAct_9fa48("2113") ? true : (stryCov_9fa48("2113", "2114", "2115"), parent === (stryMutAct_9fa48("2116") ? "Stryker was here!" : (stryCov_9fa48("2116"), "")))) ? own : stryMutAct_9fa48("2117") ? `` : (stryCov_9fa48("2117"), `${parent},${own}`);
  }
}

/**
 * Name for a limit the rules did not name: its node label and quota.
 *
 * @example
 * derivedName("remote_address", 60, "minute", 1); // "remote_address:60/1m"
 */
export function derivedName(label: string, requestsPerUnit: number, unit: Unit, unitMultiplier: number): string {
  if (stryMutAct_9fa48("2118")) {
    {}
  } else {
    stryCov_9fa48("2118");
    return sanitizeName(stryMutAct_9fa48("2119") ? `` : (stryCov_9fa48("2119"), `${label}:${requestsPerUnit}/${unitMultiplier}${UNIT_SUFFIX[unit]}`));
  }
}