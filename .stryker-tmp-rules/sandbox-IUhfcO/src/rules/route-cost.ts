/**
 * A route's `cost` and `cost_from_response` (docs/response-limits.md): how
 * many hits each of its descriptors charges, from a literal, a request
 * header or the body's size, and the response header charged afterwards.
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
import { readBool, readString } from "./fields.ts";
import { BOUNDS } from "./keys.ts";
import { asObject, checkKeys, type Diagnostics, type JsonObject, jsonType, keyPath } from "./reader.ts";
import type { RouteCost } from "./types.ts";
const TOKEN = stryMutAct_9fa48("2249") ? /^[^!#$%&'*+\-.^_`|~0-9A-Za-z]+$/ : stryMutAct_9fa48("2248") ? /^[!#$%&'*+\-.^_`|~0-9A-Za-z]$/ : stryMutAct_9fa48("2247") ? /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/ : stryMutAct_9fa48("2246") ? /[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/ : (stryCov_9fa48("2246", "2247", "2248", "2249"), /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/);

/**
 * Read `cost` of the route `obj` at `path` (undefined: absent or invalid).
 *
 * @example
 * readRouteCost(d, { cost: { header: "X-Cost" } }, "$.routes[0]"); // { kind: "header", name: "x-cost" }
 */
export function readRouteCost(d: Diagnostics, obj: JsonObject, path: string): RouteCost | undefined {
  if (stryMutAct_9fa48("2250")) {
    {}
  } else {
    stryCov_9fa48("2250");
    if (stryMutAct_9fa48("2253") ? false : stryMutAct_9fa48("2252") ? true : stryMutAct_9fa48("2251") ? Object.hasOwn(obj, "cost") : (stryCov_9fa48("2251", "2252", "2253"), !Object.hasOwn(obj, stryMutAct_9fa48("2254") ? "" : (stryCov_9fa48("2254"), "cost")))) return undefined;
    const at = keyPath(path, stryMutAct_9fa48("2255") ? "" : (stryCov_9fa48("2255"), "cost"));
    const value = obj.cost;
    if (stryMutAct_9fa48("2258") ? typeof value !== "number" : stryMutAct_9fa48("2257") ? false : stryMutAct_9fa48("2256") ? true : (stryCov_9fa48("2256", "2257", "2258"), typeof value === (stryMutAct_9fa48("2259") ? "" : (stryCov_9fa48("2259"), "number")))) {
      if (stryMutAct_9fa48("2260")) {
        {}
      } else {
        stryCov_9fa48("2260");
        if (stryMutAct_9fa48("2263") ? Number.isInteger(value) && value >= 0 || value <= BOUNDS.maxCount : stryMutAct_9fa48("2262") ? false : stryMutAct_9fa48("2261") ? true : (stryCov_9fa48("2261", "2262", "2263"), (stryMutAct_9fa48("2265") ? Number.isInteger(value) || value >= 0 : stryMutAct_9fa48("2264") ? true : (stryCov_9fa48("2264", "2265"), Number.isInteger(value) && (stryMutAct_9fa48("2268") ? value < 0 : stryMutAct_9fa48("2267") ? value > 0 : stryMutAct_9fa48("2266") ? true : (stryCov_9fa48("2266", "2267", "2268"), value >= 0)))) && (stryMutAct_9fa48("2271") ? value > BOUNDS.maxCount : stryMutAct_9fa48("2270") ? value < BOUNDS.maxCount : stryMutAct_9fa48("2269") ? true : (stryCov_9fa48("2269", "2270", "2271"), value <= BOUNDS.maxCount)))) return Object.freeze(stryMutAct_9fa48("2272") ? {} : (stryCov_9fa48("2272"), {
          kind: stryMutAct_9fa48("2273") ? "" : (stryCov_9fa48("2273"), "literal"),
          value
        }));
        d.add(at, stryMutAct_9fa48("2275") ? `` : (stryCov_9fa48("2275"), `must be a whole number from 0 to ${BOUNDS.maxCount}, got ${value}`));
        return undefined;
      }
    }
    if (stryMutAct_9fa48("2278") ? (typeof value !== "object" || value === null) && Array.isArray(value) : stryMutAct_9fa48("2277") ? false : stryMutAct_9fa48("2276") ? true : (stryCov_9fa48("2276", "2277", "2278"), (stryMutAct_9fa48("2280") ? typeof value !== "object" && value === null : stryMutAct_9fa48("2279") ? false : (stryCov_9fa48("2279", "2280"), (stryMutAct_9fa48("2282") ? typeof value === "object" : stryMutAct_9fa48("2281") ? false : (stryCov_9fa48("2281", "2282"), typeof value !== (stryMutAct_9fa48("2283") ? "" : (stryCov_9fa48("2283"), "object")))) || (stryMutAct_9fa48("2285") ? value !== null : stryMutAct_9fa48("2284") ? false : (stryCov_9fa48("2284", "2285"), value === null)))) || Array.isArray(value))) {
      if (stryMutAct_9fa48("2286")) {
        {}
      } else {
        stryCov_9fa48("2286");
        d.add(at, stryMutAct_9fa48("2288") ? `` : (stryCov_9fa48("2288"), `expected a whole number, {"header": "…"} or {"body_bytes": true}, got ${jsonType(value)}`));
        return undefined;
      }
    }
    const spec = asObject(d, value, at);
    if (stryMutAct_9fa48("2291") ? spec !== undefined : stryMutAct_9fa48("2290") ? false : stryMutAct_9fa48("2289") ? true : (stryCov_9fa48("2289", "2290", "2291"), spec === undefined)) return undefined;
    checkKeys(d, spec, at, stryMutAct_9fa48("2293") ? "" : (stryCov_9fa48("2293"), "cost"));
    const hasHeader = Object.hasOwn(spec, stryMutAct_9fa48("2294") ? "" : (stryCov_9fa48("2294"), "header"));
    const hasBody = Object.hasOwn(spec, stryMutAct_9fa48("2295") ? "" : (stryCov_9fa48("2295"), "body_bytes"));
    if (stryMutAct_9fa48("2298") ? hasHeader !== hasBody : stryMutAct_9fa48("2297") ? false : stryMutAct_9fa48("2296") ? true : (stryCov_9fa48("2296", "2297", "2298"), hasHeader === hasBody)) {
      if (stryMutAct_9fa48("2299")) {
        {}
      } else {
        stryCov_9fa48("2299");
        d.add(at, stryMutAct_9fa48("2301") ? "" : (stryCov_9fa48("2301"), 'set exactly one of "header" and "body_bytes"'));
        return undefined;
      }
    }
    if (stryMutAct_9fa48("2303") ? false : stryMutAct_9fa48("2302") ? true : (stryCov_9fa48("2302", "2303"), hasHeader)) {
      if (stryMutAct_9fa48("2304")) {
        {}
      } else {
        stryCov_9fa48("2304");
        const name = readHeaderName(d, spec, at);
        return (stryMutAct_9fa48("2307") ? name !== undefined : stryMutAct_9fa48("2306") ? false : stryMutAct_9fa48("2305") ? true : (stryCov_9fa48("2305", "2306", "2307"), name === undefined)) ? undefined : Object.freeze(stryMutAct_9fa48("2308") ? {} : (stryCov_9fa48("2308"), {
          kind: stryMutAct_9fa48("2309") ? "" : (stryCov_9fa48("2309"), "header"),
          name
        }));
      }
    }
    const body = readBool(d, spec, stryMutAct_9fa48("2310") ? "" : (stryCov_9fa48("2310"), "body_bytes"), at);
    if (stryMutAct_9fa48("2313") ? body !== false : stryMutAct_9fa48("2312") ? false : stryMutAct_9fa48("2311") ? true : (stryCov_9fa48("2311", "2312", "2313"), body === (stryMutAct_9fa48("2314") ? true : (stryCov_9fa48("2314"), false)))) d.add(keyPath(at, stryMutAct_9fa48("2316") ? "" : (stryCov_9fa48("2316"), "body_bytes")), stryMutAct_9fa48("2317") ? "" : (stryCov_9fa48("2317"), 'must be true (omit "cost" to charge one hit per request)'));
    return (stryMutAct_9fa48("2320") ? body !== true : stryMutAct_9fa48("2319") ? false : stryMutAct_9fa48("2318") ? true : (stryCov_9fa48("2318", "2319", "2320"), body === (stryMutAct_9fa48("2321") ? false : (stryCov_9fa48("2321"), true)))) ? Object.freeze(stryMutAct_9fa48("2322") ? {} : (stryCov_9fa48("2322"), {
      kind: stryMutAct_9fa48("2323") ? "" : (stryCov_9fa48("2323"), "body_bytes")
    })) : undefined;
  }
}

/**
 * Read `cost_from_response` of the route `obj` at `path`: the lower-case
 * name of the response header to charge.
 *
 * @example
 * readCostFromResponse(d, { cost_from_response: { header: "X-Tokens-Used" } }, "$.routes[0]"); // "x-tokens-used"
 */
export function readCostFromResponse(d: Diagnostics, obj: JsonObject, path: string): string | undefined {
  if (stryMutAct_9fa48("2324")) {
    {}
  } else {
    stryCov_9fa48("2324");
    if (stryMutAct_9fa48("2327") ? false : stryMutAct_9fa48("2326") ? true : stryMutAct_9fa48("2325") ? Object.hasOwn(obj, "cost_from_response") : (stryCov_9fa48("2325", "2326", "2327"), !Object.hasOwn(obj, stryMutAct_9fa48("2328") ? "" : (stryCov_9fa48("2328"), "cost_from_response")))) return undefined;
    const at = keyPath(path, stryMutAct_9fa48("2329") ? "" : (stryCov_9fa48("2329"), "cost_from_response"));
    const spec = asObject(d, obj.cost_from_response, at);
    if (stryMutAct_9fa48("2332") ? spec !== undefined : stryMutAct_9fa48("2331") ? false : stryMutAct_9fa48("2330") ? true : (stryCov_9fa48("2330", "2331", "2332"), spec === undefined)) return undefined;
    checkKeys(d, spec, at, stryMutAct_9fa48("2334") ? "" : (stryCov_9fa48("2334"), "costFromResponse"));
    if (stryMutAct_9fa48("2337") ? false : stryMutAct_9fa48("2336") ? true : stryMutAct_9fa48("2335") ? Object.hasOwn(spec, "header") : (stryCov_9fa48("2335", "2336", "2337"), !Object.hasOwn(spec, stryMutAct_9fa48("2338") ? "" : (stryCov_9fa48("2338"), "header")))) {
      if (stryMutAct_9fa48("2339")) {
        {}
      } else {
        stryCov_9fa48("2339");
        d.add(at, stryMutAct_9fa48("2341") ? "" : (stryCov_9fa48("2341"), 'missing required key "header"'));
        return undefined;
      }
    }
    return readHeaderName(d, spec, at);
  }
}
function readHeaderName(d: Diagnostics, spec: JsonObject, at: string): string | undefined {
  if (stryMutAct_9fa48("2342")) {
    {}
  } else {
    stryCov_9fa48("2342");
    const name = readString(d, spec, stryMutAct_9fa48("2343") ? "" : (stryCov_9fa48("2343"), "header"), at);
    if (stryMutAct_9fa48("2346") ? name !== undefined : stryMutAct_9fa48("2345") ? false : stryMutAct_9fa48("2344") ? true : (stryCov_9fa48("2344", "2345", "2346"), name === undefined)) return undefined;
    if (stryMutAct_9fa48("2349") ? false : stryMutAct_9fa48("2348") ? true : stryMutAct_9fa48("2347") ? TOKEN.test(name) : (stryCov_9fa48("2347", "2348", "2349"), !TOKEN.test(name))) {
      if (stryMutAct_9fa48("2350")) {
        {}
      } else {
        stryCov_9fa48("2350");
        d.add(keyPath(at, stryMutAct_9fa48("2352") ? "" : (stryCov_9fa48("2352"), "header")), stryMutAct_9fa48("2353") ? `` : (stryCov_9fa48("2353"), `${JSON.stringify(name)} is not a valid header name`));
        return undefined;
      }
    }
    return stryMutAct_9fa48("2354") ? name.toUpperCase() : (stryCov_9fa48("2354"), name.toLowerCase());
  }
}