/**
 * Reading `remote_address` values that are addresses or CIDR ranges
 * (docs/rules.md, "Address ranges") into a level's CidrTable.
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
import { type CidrTable, formatPrefix, hostBitsSet, IPV6_CLIENT_PREFIX, parsePrefix } from "./cidr.ts";
import { isGlob } from "./glob.ts";
import type { Diagnostics } from "./reader.ts";
import type { CompiledNode } from "./types.ts";

/** The descriptor key whose values may be address ranges. */
export const RANGE_KEY = stryMutAct_9fa48("1") ? "" : (stryCov_9fa48("1"), "remote_address");

/**
 * Whether a node's value is matched as an address range: a `remote_address`
 * value that is an address or contains `/` (an invalid range is an error,
 * never a literal). Other values (`unknown`, globs) match as text.
 *
 * @example
 * isRangeValue("remote_address", "10.0.0.0/8"); // true
 * isRangeValue("remote_address", "unknown");    // false
 * isRangeValue("path", "10.0.0.0/8");           // false
 */
export function isRangeValue(key: string, value: string): boolean {
  if (stryMutAct_9fa48("2")) {
    {}
  } else {
    stryCov_9fa48("2");
    return stryMutAct_9fa48("5") ? key === RANGE_KEY && !isGlob(value) || value.includes("/") || parsePrefix(value) !== undefined : stryMutAct_9fa48("4") ? false : stryMutAct_9fa48("3") ? true : (stryCov_9fa48("3", "4", "5"), (stryMutAct_9fa48("7") ? key === RANGE_KEY || !isGlob(value) : stryMutAct_9fa48("6") ? true : (stryCov_9fa48("6", "7"), (stryMutAct_9fa48("9") ? key !== RANGE_KEY : stryMutAct_9fa48("8") ? true : (stryCov_9fa48("8", "9"), key === RANGE_KEY)) && (stryMutAct_9fa48("10") ? isGlob(value) : (stryCov_9fa48("10"), !isGlob(value))))) && (stryMutAct_9fa48("12") ? value.includes("/") && parsePrefix(value) !== undefined : stryMutAct_9fa48("11") ? true : (stryCov_9fa48("11", "12"), value.includes(stryMutAct_9fa48("13") ? "" : (stryCov_9fa48("13"), "/")) || (stryMutAct_9fa48("15") ? parsePrefix(value) === undefined : stryMutAct_9fa48("14") ? false : (stryCov_9fa48("14", "15"), parsePrefix(value) !== undefined)))));
  }
}

/**
 * Add a node whose value passed `isRangeValue` to `table`, or record why it
 * cannot be one: not a range, host bits set, an IPv6 range longer than the
 * /64 client addresses are reduced to, or the same range twice.
 *
 * @example
 * addRange(d, table, node, "$.descriptors[0].value"); // node.value "10.0.0.0/8"
 */
export function addRange(d: Diagnostics, table: CidrTable<CompiledNode>, node: CompiledNode, at: string): void {
  if (stryMutAct_9fa48("16")) {
    {}
  } else {
    stryCov_9fa48("16");
    const value = node.value as string;
    const prefix = parsePrefix(value);
    if (stryMutAct_9fa48("19") ? prefix !== undefined : stryMutAct_9fa48("18") ? false : stryMutAct_9fa48("17") ? true : (stryCov_9fa48("17", "18", "19"), prefix === undefined)) {
      if (stryMutAct_9fa48("20")) {
        {}
      } else {
        stryCov_9fa48("20");
        d.add(at, stryMutAct_9fa48("22") ? `` : (stryCov_9fa48("22"), `${JSON.stringify(value)} is not an IP address or CIDR range (like "203.0.113.0/24" or "2001:db8::/32")`));
        return;
      }
    }
    if (stryMutAct_9fa48("24") ? false : stryMutAct_9fa48("23") ? true : (stryCov_9fa48("23", "24"), hostBitsSet(prefix))) {
      if (stryMutAct_9fa48("25")) {
        {}
      } else {
        stryCov_9fa48("25");
        d.add(at, stryMutAct_9fa48("27") ? `` : (stryCov_9fa48("27"), `${JSON.stringify(value)} has bits set past its /${prefix.length} prefix; write the range as "${formatPrefix(prefix)}"`));
        return;
      }
    }
    if (stryMutAct_9fa48("30") ? prefix.family === 6 || prefix.length > IPV6_CLIENT_PREFIX : stryMutAct_9fa48("29") ? false : stryMutAct_9fa48("28") ? true : (stryCov_9fa48("28", "29", "30"), (stryMutAct_9fa48("32") ? prefix.family !== 6 : stryMutAct_9fa48("31") ? true : (stryCov_9fa48("31", "32"), prefix.family === 6)) && (stryMutAct_9fa48("35") ? prefix.length <= IPV6_CLIENT_PREFIX : stryMutAct_9fa48("34") ? prefix.length >= IPV6_CLIENT_PREFIX : stryMutAct_9fa48("33") ? true : (stryCov_9fa48("33", "34", "35"), prefix.length > IPV6_CLIENT_PREFIX)))) {
      if (stryMutAct_9fa48("36")) {
        {}
      } else {
        stryCov_9fa48("36");
        d.add(at, stryMutAct_9fa48("38") ? `` : (stryCov_9fa48("38"), `${JSON.stringify(value)} is longer than /${IPV6_CLIENT_PREFIX}: IPv6 clients are identified by their /${IPV6_CLIENT_PREFIX}, so it could never match; use a /${IPV6_CLIENT_PREFIX} or shorter range`));
        return;
      }
    }
    const twin = table.add(prefix, node);
    if (stryMutAct_9fa48("41") ? twin === undefined : stryMutAct_9fa48("40") ? false : stryMutAct_9fa48("39") ? true : (stryCov_9fa48("39", "40", "41"), twin !== undefined)) d.add(at, stryMutAct_9fa48("43") ? `` : (stryCov_9fa48("43"), `the range ${formatPrefix(prefix)} is already given as ${JSON.stringify(twin.value)} at this level`));
  }
}