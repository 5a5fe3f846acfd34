/**
 * Typed, error-collecting access to untrusted JSON. Every reader records a
 * problem and returns `undefined` instead of throwing, so one pass over the
 * file reports every error rather than the first.
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
import { BOUNDS, ENVOY_ONLY_KEYS, RULE_KEYS, type RuleObjectKind } from "./keys.ts";
import { closest } from "./suggest.ts";
import type { RuleError } from "./types.ts";
export type JsonObject = Record<string, unknown>;

/** Collects errors up to `BOUNDS.maxErrors`, then notes the truncation once. */
export class Diagnostics {
  readonly errors: RuleError[] = stryMutAct_9fa48("2155") ? ["Stryker was here"] : (stryCov_9fa48("2155"), []);
  private truncated = stryMutAct_9fa48("2156") ? true : (stryCov_9fa48("2156"), false);

  /**
   * @example
   * const d = new Diagnostics();
   * d.add("$.domain", "must be a non-empty string");
   */
  add(path: string, message: string): void {
    if (stryMutAct_9fa48("2157")) {
      {}
    } else {
      stryCov_9fa48("2157");
      if (stryMutAct_9fa48("2161") ? this.errors.length >= BOUNDS.maxErrors : stryMutAct_9fa48("2160") ? this.errors.length <= BOUNDS.maxErrors : stryMutAct_9fa48("2159") ? false : stryMutAct_9fa48("2158") ? true : (stryCov_9fa48("2158", "2159", "2160", "2161"), this.errors.length < BOUNDS.maxErrors)) {
        if (stryMutAct_9fa48("2162")) {
          {}
        } else {
          stryCov_9fa48("2162");
          this.errors.push(stryMutAct_9fa48("2164") ? {} : (stryCov_9fa48("2164"), {
            path,
            message
          }));
        }
      } else if (stryMutAct_9fa48("2167") ? false : stryMutAct_9fa48("2166") ? true : stryMutAct_9fa48("2165") ? this.truncated : (stryCov_9fa48("2165", "2166", "2167"), !this.truncated)) {
        if (stryMutAct_9fa48("2168")) {
          {}
        } else {
          stryCov_9fa48("2168");
          this.truncated = stryMutAct_9fa48("2169") ? false : (stryCov_9fa48("2169"), true);
          this.errors.push(stryMutAct_9fa48("2171") ? {} : (stryCov_9fa48("2171"), {
            path: stryMutAct_9fa48("2172") ? "" : (stryCov_9fa48("2172"), "$"),
            message: stryMutAct_9fa48("2173") ? `` : (stryCov_9fa48("2173"), `too many errors; only the first ${BOUNDS.maxErrors} are shown`)
          }));
        }
      }
    }
  }
}
const IDENTIFIER = stryMutAct_9fa48("2178") ? /^[A-Za-z_$][^A-Za-z0-9_$]*$/ : stryMutAct_9fa48("2177") ? /^[A-Za-z_$][A-Za-z0-9_$]$/ : stryMutAct_9fa48("2176") ? /^[^A-Za-z_$][A-Za-z0-9_$]*$/ : stryMutAct_9fa48("2175") ? /^[A-Za-z_$][A-Za-z0-9_$]*/ : stryMutAct_9fa48("2174") ? /[A-Za-z_$][A-Za-z0-9_$]*$/ : (stryCov_9fa48("2174", "2175", "2176", "2177", "2178"), /^[A-Za-z_$][A-Za-z0-9_$]*$/);

/**
 * JSONPath of a member; keys that are not identifiers use bracket notation.
 *
 * @example
 * keyPath("$.descriptors[0]", "rate_limit"); // "$.descriptors[0].rate_limit"
 * keyPath("$", "a b");                       // '$["a b"]'
 */
export function keyPath(path: string, key: string): string {
  if (stryMutAct_9fa48("2179")) {
    {}
  } else {
    stryCov_9fa48("2179");
    return IDENTIFIER.test(key) ? stryMutAct_9fa48("2180") ? `` : (stryCov_9fa48("2180"), `${path}.${key}`) : stryMutAct_9fa48("2181") ? `` : (stryCov_9fa48("2181"), `${path}[${JSON.stringify(key)}]`);
  }
}

/**
 * JSONPath of an array element.
 *
 * @example
 * indexPath("$.descriptors", 2); // "$.descriptors[2]"
 */
export function indexPath(path: string, index: number): string {
  if (stryMutAct_9fa48("2182")) {
    {}
  } else {
    stryCov_9fa48("2182");
    return stryMutAct_9fa48("2183") ? `` : (stryCov_9fa48("2183"), `${path}[${index}]`);
  }
}

/**
 * The JSON type name used in messages (`array` and `null` are told apart from `object`).
 *
 * @example
 * jsonType([]);   // "array"
 * jsonType(null); // "null"
 */
export function jsonType(value: unknown): string {
  if (stryMutAct_9fa48("2184")) {
    {}
  } else {
    stryCov_9fa48("2184");
    if (stryMutAct_9fa48("2187") ? value !== null : stryMutAct_9fa48("2186") ? false : stryMutAct_9fa48("2185") ? true : (stryCov_9fa48("2185", "2186", "2187"), value === null)) return stryMutAct_9fa48("2188") ? "" : (stryCov_9fa48("2188"), "null");
    if (stryMutAct_9fa48("2190") ? false : stryMutAct_9fa48("2189") ? true : (stryCov_9fa48("2189", "2190"), Array.isArray(value))) return stryMutAct_9fa48("2191") ? "" : (stryCov_9fa48("2191"), "array");
    return typeof value;
  }
}

/**
 * Narrow to a plain JSON object, or record `expected an object`.
 *
 * @example
 * asObject(d, "x", "$.descriptors[0]"); // undefined; error "expected an object, got string"
 */
export function asObject(d: Diagnostics, value: unknown, path: string): JsonObject | undefined {
  if (stryMutAct_9fa48("2192")) {
    {}
  } else {
    stryCov_9fa48("2192");
    if (stryMutAct_9fa48("2195") ? typeof value === "object" && value !== null || !Array.isArray(value) : stryMutAct_9fa48("2194") ? false : stryMutAct_9fa48("2193") ? true : (stryCov_9fa48("2193", "2194", "2195"), (stryMutAct_9fa48("2197") ? typeof value === "object" || value !== null : stryMutAct_9fa48("2196") ? true : (stryCov_9fa48("2196", "2197"), (stryMutAct_9fa48("2199") ? typeof value !== "object" : stryMutAct_9fa48("2198") ? true : (stryCov_9fa48("2198", "2199"), typeof value === (stryMutAct_9fa48("2200") ? "" : (stryCov_9fa48("2200"), "object")))) && (stryMutAct_9fa48("2202") ? value === null : stryMutAct_9fa48("2201") ? true : (stryCov_9fa48("2201", "2202"), value !== null)))) && (stryMutAct_9fa48("2203") ? Array.isArray(value) : (stryCov_9fa48("2203"), !Array.isArray(value))))) return value as JsonObject;
    d.add(path, stryMutAct_9fa48("2205") ? `` : (stryCov_9fa48("2205"), `expected an object, got ${jsonType(value)}`));
    return undefined;
  }
}

/**
 * Narrow to an array, or record `expected an array`.
 *
 * @example
 * asArray(d, {}, "$.routes"); // undefined; error "expected an array, got object"
 */
export function asArray(d: Diagnostics, value: unknown, path: string): readonly unknown[] | undefined {
  if (stryMutAct_9fa48("2206")) {
    {}
  } else {
    stryCov_9fa48("2206");
    if (stryMutAct_9fa48("2208") ? false : stryMutAct_9fa48("2207") ? true : (stryCov_9fa48("2207", "2208"), Array.isArray(value))) return value;
    d.add(path, stryMutAct_9fa48("2210") ? `` : (stryCov_9fa48("2210"), `expected an array, got ${jsonType(value)}`));
    return undefined;
  }
}

// Where a key lives, for "it belongs inside ..." hints on keys put one level off.
const KIND_HOME: Record<RuleObjectKind, string> = stryMutAct_9fa48("2211") ? {} : (stryCov_9fa48("2211"), {
  rateLimit: stryMutAct_9fa48("2212") ? "" : (stryCov_9fa48("2212"), 'inside "rate_limit"'),
  descriptor: stryMutAct_9fa48("2213") ? "" : (stryCov_9fa48("2213"), "on a descriptor"),
  document: stryMutAct_9fa48("2214") ? "" : (stryCov_9fa48("2214"), "at the top level of a domain document"),
  route: stryMutAct_9fa48("2215") ? "" : (stryCov_9fa48("2215"), "on a route"),
  match: stryMutAct_9fa48("2216") ? "" : (stryCov_9fa48("2216"), 'inside a route\'s "match"'),
  routeEntry: stryMutAct_9fa48("2217") ? "" : (stryCov_9fa48("2217"), "on a route descriptor entry"),
  precount: stryMutAct_9fa48("2218") ? "" : (stryCov_9fa48("2218"), 'inside "precount"'),
  replaces: stryMutAct_9fa48("2219") ? "" : (stryCov_9fa48("2219"), 'inside a "replaces" entry'),
  countWhen: stryMutAct_9fa48("2220") ? "" : (stryCov_9fa48("2220"), 'inside "count_when"'),
  cost: stryMutAct_9fa48("2221") ? "" : (stryCov_9fa48("2221"), 'inside a route\'s "cost"'),
  costFromResponse: stryMutAct_9fa48("2222") ? "" : (stryCov_9fa48("2222"), 'inside a route\'s "cost_from_response"')
});

/**
 * Record every key of `obj` that `kind` does not allow, suggesting the
 * likely intended key.
 *
 * @example
 * checkKeys(d, { rate_limt: {} }, "$.descriptors[0]", "descriptor");
 * // error at $.descriptors[0].rate_limt: unknown key "rate_limt" (did you mean "rate_limit"?)
 */
export function checkKeys(d: Diagnostics, obj: JsonObject, path: string, kind: RuleObjectKind): void {
  if (stryMutAct_9fa48("2223")) {
    {}
  } else {
    stryCov_9fa48("2223");
    const allowed: readonly string[] = RULE_KEYS[kind];
    for (const key of Object.keys(obj)) {
      if (stryMutAct_9fa48("2224")) {
        {}
      } else {
        stryCov_9fa48("2224");
        if (stryMutAct_9fa48("2226") ? false : stryMutAct_9fa48("2225") ? true : (stryCov_9fa48("2225", "2226"), allowed.includes(key))) continue;
        if (stryMutAct_9fa48("2227")) {
          ;
        } else {
          stryCov_9fa48("2227");
          d.add(keyPath(path, key), unknownKeyMessage(key, kind));
        }
      }
    }
  }
}
function unknownKeyMessage(key: string, kind: RuleObjectKind): string {
  if (stryMutAct_9fa48("2228")) {
    {}
  } else {
    stryCov_9fa48("2228");
    if (stryMutAct_9fa48("2230") ? false : stryMutAct_9fa48("2229") ? true : (stryCov_9fa48("2229", "2230"), ENVOY_ONLY_KEYS.includes(key))) return stryMutAct_9fa48("2231") ? `` : (stryCov_9fa48("2231"), `unknown key "${key}" (an Envoy option floodgate does not support)`);
    const allowed: readonly string[] = RULE_KEYS[kind];
    const suggestion = closest(key, allowed);
    if (stryMutAct_9fa48("2234") ? suggestion === undefined : stryMutAct_9fa48("2233") ? false : stryMutAct_9fa48("2232") ? true : (stryCov_9fa48("2232", "2233", "2234"), suggestion !== undefined)) return stryMutAct_9fa48("2235") ? `` : (stryCov_9fa48("2235"), `unknown key "${key}" (did you mean "${suggestion}"?)`);
    for (const other of Object.keys(KIND_HOME) as RuleObjectKind[]) {
      if (stryMutAct_9fa48("2236")) {
        {}
      } else {
        stryCov_9fa48("2236");
        if (stryMutAct_9fa48("2239") ? other !== kind || (RULE_KEYS[other] as readonly string[]).includes(key) : stryMutAct_9fa48("2238") ? false : stryMutAct_9fa48("2237") ? true : (stryCov_9fa48("2237", "2238", "2239"), (stryMutAct_9fa48("2241") ? other === kind : stryMutAct_9fa48("2240") ? true : (stryCov_9fa48("2240", "2241"), other !== kind)) && (RULE_KEYS[other] as readonly string[]).includes(key))) {
          if (stryMutAct_9fa48("2242")) {
            {}
          } else {
            stryCov_9fa48("2242");
            return stryMutAct_9fa48("2243") ? `` : (stryCov_9fa48("2243"), `unknown key "${key}" here (it belongs ${KIND_HOME[other]})`);
          }
        }
      }
    }
    return stryMutAct_9fa48("2244") ? `` : (stryCov_9fa48("2244"), `unknown key "${key}" (expected one of: ${allowed.join(stryMutAct_9fa48("2245") ? "" : (stryCov_9fa48("2245"), ", "))})`);
  }
}