/**
 * `routes` (*ext*): request matchers and the descriptors they produce.
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
import { readString, requireKey } from "./fields.ts";
import { compileGlob } from "./glob.ts";
import { BUILTIN_KEYS, VALUE_SOURCES } from "./keys.ts";
import { asArray, asObject, checkKeys, type Diagnostics, indexPath, type JsonObject, jsonType, keyPath } from "./reader.ts";
import { readCostFromResponse, readRouteCost } from "./route-cost.ts";
import type { CompiledRoute, EntrySource, RouteEntry } from "./types.ts";

// RFC 9110 `token`: the syntax of both method and header field names.
const TOKEN = stryMutAct_9fa48("2358") ? /^[^!#$%&'*+\-.^_`|~0-9A-Za-z]+$/ : stryMutAct_9fa48("2357") ? /^[!#$%&'*+\-.^_`|~0-9A-Za-z]$/ : stryMutAct_9fa48("2356") ? /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/ : stryMutAct_9fa48("2355") ? /[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/ : (stryCov_9fa48("2355", "2356", "2357", "2358"), /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/);

/**
 * Read a `routes` array at `path`; invalid routes are left out, with errors recorded.
 *
 * @example
 * const [route] = readRoutes(d, [{ match: { methods: ["post"], path: "/login" },
 *   descriptors: [[{ key: "remote_address" }]] }], "$.routes");
 * route.methods?.has("POST"); // true
 */
export function readRoutes(d: Diagnostics, value: unknown, path: string): CompiledRoute[] {
  if (stryMutAct_9fa48("2359")) {
    {}
  } else {
    stryCov_9fa48("2359");
    const list = asArray(d, value, path);
    if (stryMutAct_9fa48("2362") ? list !== undefined : stryMutAct_9fa48("2361") ? false : stryMutAct_9fa48("2360") ? true : (stryCov_9fa48("2360", "2361", "2362"), list === undefined)) return stryMutAct_9fa48("2363") ? ["Stryker was here"] : (stryCov_9fa48("2363"), []);
    const routes: CompiledRoute[] = stryMutAct_9fa48("2364") ? ["Stryker was here"] : (stryCov_9fa48("2364"), []);
    list.forEach((item, i) => {
      if (stryMutAct_9fa48("2366")) {
        {}
      } else {
        stryCov_9fa48("2366");
        const route = readRoute(d, item, indexPath(path, i));
        if (stryMutAct_9fa48("2369") ? route === undefined : stryMutAct_9fa48("2368") ? false : stryMutAct_9fa48("2367") ? true : (stryCov_9fa48("2367", "2368", "2369"), route !== undefined)) if (stryMutAct_9fa48("2370")) {
          ;
        } else {
          stryCov_9fa48("2370");
          routes.push(route);
        }
      }
    });
    return routes;
  }
}
function readRoute(d: Diagnostics, item: unknown, path: string): CompiledRoute | undefined {
  if (stryMutAct_9fa48("2371")) {
    {}
  } else {
    stryCov_9fa48("2371");
    const obj = asObject(d, item, path);
    if (stryMutAct_9fa48("2374") ? obj !== undefined : stryMutAct_9fa48("2373") ? false : stryMutAct_9fa48("2372") ? true : (stryCov_9fa48("2372", "2373", "2374"), obj === undefined)) return undefined;
    const before = d.errors.length;
    checkKeys(d, obj, path, stryMutAct_9fa48("2376") ? "" : (stryCov_9fa48("2376"), "route"));
    requireKey(d, obj, stryMutAct_9fa48("2378") ? "" : (stryCov_9fa48("2378"), "match"), path);
    requireKey(d, obj, stryMutAct_9fa48("2380") ? "" : (stryCov_9fa48("2380"), "descriptors"), path);
    const match = Object.hasOwn(obj, stryMutAct_9fa48("2381") ? "" : (stryCov_9fa48("2381"), "match")) ? readMatch(d, obj.match, keyPath(path, stryMutAct_9fa48("2382") ? "" : (stryCov_9fa48("2382"), "match"))) : {};
    const descriptors: (readonly RouteEntry[])[] = stryMutAct_9fa48("2383") ? ["Stryker was here"] : (stryCov_9fa48("2383"), []);
    const at = keyPath(path, stryMutAct_9fa48("2384") ? "" : (stryCov_9fa48("2384"), "descriptors"));
    const list = Object.hasOwn(obj, stryMutAct_9fa48("2385") ? "" : (stryCov_9fa48("2385"), "descriptors")) ? asArray(d, obj.descriptors, at) : undefined;
    stryMutAct_9fa48("2386") ? list.forEach((descriptor, i) => {
      const entries = readDescriptor(d, descriptor, indexPath(at, i));
      if (entries !== undefined) descriptors.push(entries);
    }) : (stryCov_9fa48("2386"), list?.forEach((descriptor, i) => {
      if (stryMutAct_9fa48("2387")) {
        {}
      } else {
        stryCov_9fa48("2387");
        const entries = readDescriptor(d, descriptor, indexPath(at, i));
        if (stryMutAct_9fa48("2390") ? entries === undefined : stryMutAct_9fa48("2389") ? false : stryMutAct_9fa48("2388") ? true : (stryCov_9fa48("2388", "2389", "2390"), entries !== undefined)) if (stryMutAct_9fa48("2391")) {
          ;
        } else {
          stryCov_9fa48("2391");
          descriptors.push(entries);
        }
      }
    }));
    const cost = readRouteCost(d, obj, path);
    const costFromResponse = readCostFromResponse(d, obj, path);
    if (stryMutAct_9fa48("2395") ? d.errors.length <= before : stryMutAct_9fa48("2394") ? d.errors.length >= before : stryMutAct_9fa48("2393") ? false : stryMutAct_9fa48("2392") ? true : (stryCov_9fa48("2392", "2393", "2394", "2395"), d.errors.length > before)) return undefined;
    return Object.freeze(stryMutAct_9fa48("2396") ? {} : (stryCov_9fa48("2396"), {
      ...match,
      descriptors: Object.freeze(descriptors),
      ...((stryMutAct_9fa48("2399") ? cost === undefined : stryMutAct_9fa48("2398") ? false : stryMutAct_9fa48("2397") ? true : (stryCov_9fa48("2397", "2398", "2399"), cost !== undefined)) ? stryMutAct_9fa48("2400") ? {} : (stryCov_9fa48("2400"), {
        cost
      }) : {}),
      ...((stryMutAct_9fa48("2403") ? costFromResponse === undefined : stryMutAct_9fa48("2402") ? false : stryMutAct_9fa48("2401") ? true : (stryCov_9fa48("2401", "2402", "2403"), costFromResponse !== undefined)) ? stryMutAct_9fa48("2404") ? {} : (stryCov_9fa48("2404"), {
        costFromResponse
      }) : {})
    }));
  }
}
type MatchParts = Pick<CompiledRoute, "methods" | "path" | "host">;
function readMatch(d: Diagnostics, value: unknown, path: string): MatchParts {
  if (stryMutAct_9fa48("2405")) {
    {}
  } else {
    stryCov_9fa48("2405");
    const obj = asObject(d, value, path);
    if (stryMutAct_9fa48("2408") ? obj !== undefined : stryMutAct_9fa48("2407") ? false : stryMutAct_9fa48("2406") ? true : (stryCov_9fa48("2406", "2407", "2408"), obj === undefined)) return {};
    checkKeys(d, obj, path, stryMutAct_9fa48("2410") ? "" : (stryCov_9fa48("2410"), "match"));
    const parts: {
      methods?: ReadonlySet<string>;
      path?: (p: string) => boolean;
      host?: (h: string) => boolean;
    } = {};
    if (stryMutAct_9fa48("2412") ? false : stryMutAct_9fa48("2411") ? true : (stryCov_9fa48("2411", "2412"), Object.hasOwn(obj, stryMutAct_9fa48("2413") ? "" : (stryCov_9fa48("2413"), "methods")))) parts.methods = readMethods(d, obj.methods, keyPath(path, stryMutAct_9fa48("2414") ? "" : (stryCov_9fa48("2414"), "methods")));
    const pathPattern = readString(d, obj, stryMutAct_9fa48("2415") ? "" : (stryCov_9fa48("2415"), "path"), path);
    if (stryMutAct_9fa48("2418") ? pathPattern === undefined : stryMutAct_9fa48("2417") ? false : stryMutAct_9fa48("2416") ? true : (stryCov_9fa48("2416", "2417", "2418"), pathPattern !== undefined)) parts.path = compileGlob(pathPattern);
    const hostPattern = readString(d, obj, stryMutAct_9fa48("2419") ? "" : (stryCov_9fa48("2419"), "host"), path);
    if (stryMutAct_9fa48("2422") ? hostPattern === undefined : stryMutAct_9fa48("2421") ? false : stryMutAct_9fa48("2420") ? true : (stryCov_9fa48("2420", "2421", "2422"), hostPattern !== undefined)) parts.host = compileGlob(hostPattern, stryMutAct_9fa48("2423") ? false : (stryCov_9fa48("2423"), true));
    return parts;
  }
}
function readMethods(d: Diagnostics, value: unknown, path: string): ReadonlySet<string> | undefined {
  if (stryMutAct_9fa48("2424")) {
    {}
  } else {
    stryCov_9fa48("2424");
    const list = asArray(d, value, path);
    if (stryMutAct_9fa48("2427") ? list !== undefined : stryMutAct_9fa48("2426") ? false : stryMutAct_9fa48("2425") ? true : (stryCov_9fa48("2425", "2426", "2427"), list === undefined)) return undefined;
    if (stryMutAct_9fa48("2430") ? list.length !== 0 : stryMutAct_9fa48("2429") ? false : stryMutAct_9fa48("2428") ? true : (stryCov_9fa48("2428", "2429", "2430"), list.length === 0)) d.add(path, stryMutAct_9fa48("2432") ? "" : (stryCov_9fa48("2432"), 'must not be empty (omit "methods" to match every method)'));
    const methods = new Set<string>();
    list.forEach((method, i) => {
      if (stryMutAct_9fa48("2434")) {
        {}
      } else {
        stryCov_9fa48("2434");
        if (stryMutAct_9fa48("2437") ? typeof method === "string" : stryMutAct_9fa48("2436") ? false : stryMutAct_9fa48("2435") ? true : (stryCov_9fa48("2435", "2436", "2437"), typeof method !== (stryMutAct_9fa48("2438") ? "" : (stryCov_9fa48("2438"), "string")))) d.add(indexPath(path, i), stryMutAct_9fa48("2440") ? `` : (stryCov_9fa48("2440"), `expected a string, got ${jsonType(method)}`));else if (stryMutAct_9fa48("2443") ? false : stryMutAct_9fa48("2442") ? true : stryMutAct_9fa48("2441") ? TOKEN.test(method) : (stryCov_9fa48("2441", "2442", "2443"), !TOKEN.test(method))) d.add(indexPath(path, i), stryMutAct_9fa48("2445") ? `` : (stryCov_9fa48("2445"), `${JSON.stringify(method)} is not a valid HTTP method`));else methods.add(stryMutAct_9fa48("2447") ? method.toLowerCase() : (stryCov_9fa48("2447"), method.toUpperCase()));
      }
    });
    return methods;
  }
}
function readDescriptor(d: Diagnostics, value: unknown, path: string): readonly RouteEntry[] | undefined {
  if (stryMutAct_9fa48("2448")) {
    {}
  } else {
    stryCov_9fa48("2448");
    if (stryMutAct_9fa48("2451") ? false : stryMutAct_9fa48("2450") ? true : stryMutAct_9fa48("2449") ? Array.isArray(value) : (stryCov_9fa48("2449", "2450", "2451"), !Array.isArray(value))) {
      if (stryMutAct_9fa48("2452")) {
        {}
      } else {
        stryCov_9fa48("2452");
        d.add(path, stryMutAct_9fa48("2454") ? `` : (stryCov_9fa48("2454"), `expected a descriptor (an array of entries), got ${jsonType(value)}`));
        return undefined;
      }
    }
    if (stryMutAct_9fa48("2457") ? value.length !== 0 : stryMutAct_9fa48("2456") ? false : stryMutAct_9fa48("2455") ? true : (stryCov_9fa48("2455", "2456", "2457"), value.length === 0)) d.add(path, stryMutAct_9fa48("2459") ? "" : (stryCov_9fa48("2459"), "a descriptor needs at least one entry"));
    const entries: RouteEntry[] = stryMutAct_9fa48("2460") ? ["Stryker was here"] : (stryCov_9fa48("2460"), []);
    value.forEach((item, i) => {
      if (stryMutAct_9fa48("2462")) {
        {}
      } else {
        stryCov_9fa48("2462");
        const entry = readEntry(d, item, indexPath(path, i));
        if (stryMutAct_9fa48("2465") ? entry === undefined : stryMutAct_9fa48("2464") ? false : stryMutAct_9fa48("2463") ? true : (stryCov_9fa48("2463", "2464", "2465"), entry !== undefined)) if (stryMutAct_9fa48("2466")) {
          ;
        } else {
          stryCov_9fa48("2466");
          entries.push(entry);
        }
      }
    });
    return Object.freeze(entries);
  }
}
function readEntry(d: Diagnostics, item: unknown, path: string): RouteEntry | undefined {
  if (stryMutAct_9fa48("2467")) {
    {}
  } else {
    stryCov_9fa48("2467");
    const obj = asObject(d, item, path);
    if (stryMutAct_9fa48("2470") ? obj !== undefined : stryMutAct_9fa48("2469") ? false : stryMutAct_9fa48("2468") ? true : (stryCov_9fa48("2468", "2469", "2470"), obj === undefined)) return undefined;
    checkKeys(d, obj, path, stryMutAct_9fa48("2472") ? "" : (stryCov_9fa48("2472"), "routeEntry"));
    requireKey(d, obj, stryMutAct_9fa48("2474") ? "" : (stryCov_9fa48("2474"), "key"), path);
    const key = readString(d, obj, stryMutAct_9fa48("2475") ? "" : (stryCov_9fa48("2475"), "key"), path);
    const sources = stryMutAct_9fa48("2476") ? VALUE_SOURCES : (stryCov_9fa48("2476"), VALUE_SOURCES.filter(stryMutAct_9fa48("2477") ? () => undefined : (stryCov_9fa48("2477"), source => Object.hasOwn(obj, source))));
    if (stryMutAct_9fa48("2481") ? sources.length <= 1 : stryMutAct_9fa48("2480") ? sources.length >= 1 : stryMutAct_9fa48("2479") ? false : stryMutAct_9fa48("2478") ? true : (stryCov_9fa48("2478", "2479", "2480", "2481"), sources.length > 1)) {
      if (stryMutAct_9fa48("2482")) {
        {}
      } else {
        stryCov_9fa48("2482");
        d.add(path, stryMutAct_9fa48("2484") ? `` : (stryCov_9fa48("2484"), `entry has ${sources.length} value sources (${sources.map(stryMutAct_9fa48("2485") ? () => undefined : (stryCov_9fa48("2485"), s => stryMutAct_9fa48("2486") ? `` : (stryCov_9fa48("2486"), `"${s}"`))).join(stryMutAct_9fa48("2487") ? "" : (stryCov_9fa48("2487"), ", "))}); set exactly one`));
        return undefined;
      }
    }
    if (stryMutAct_9fa48("2490") ? key !== undefined : stryMutAct_9fa48("2489") ? false : stryMutAct_9fa48("2488") ? true : (stryCov_9fa48("2488", "2489", "2490"), key === undefined)) return undefined;
    const source = (stryMutAct_9fa48("2493") ? sources.length !== 1 : stryMutAct_9fa48("2492") ? false : stryMutAct_9fa48("2491") ? true : (stryCov_9fa48("2491", "2492", "2493"), sources.length === 1)) ? readSource(d, obj, path, sources[0]) : builtinSource(d, key, path);
    return (stryMutAct_9fa48("2496") ? source !== undefined : stryMutAct_9fa48("2495") ? false : stryMutAct_9fa48("2494") ? true : (stryCov_9fa48("2494", "2495", "2496"), source === undefined)) ? undefined : Object.freeze(stryMutAct_9fa48("2497") ? {} : (stryCov_9fa48("2497"), {
      key,
      source
    }));
  }
}
function builtinSource(d: Diagnostics, key: string, path: string): EntrySource | undefined {
  if (stryMutAct_9fa48("2498")) {
    {}
  } else {
    stryCov_9fa48("2498");
    const builtin = BUILTIN_KEYS.find(stryMutAct_9fa48("2499") ? () => undefined : (stryCov_9fa48("2499"), k => stryMutAct_9fa48("2502") ? k !== key : stryMutAct_9fa48("2501") ? false : stryMutAct_9fa48("2500") ? true : (stryCov_9fa48("2500", "2501", "2502"), k === key)));
    if (stryMutAct_9fa48("2505") ? builtin === undefined : stryMutAct_9fa48("2504") ? false : stryMutAct_9fa48("2503") ? true : (stryCov_9fa48("2503", "2504", "2505"), builtin !== undefined)) return Object.freeze(stryMutAct_9fa48("2506") ? {} : (stryCov_9fa48("2506"), {
      kind: builtin
    }));
    const sources = VALUE_SOURCES.map(stryMutAct_9fa48("2507") ? () => undefined : (stryCov_9fa48("2507"), s => stryMutAct_9fa48("2508") ? `` : (stryCov_9fa48("2508"), `"${s}"`))).join(stryMutAct_9fa48("2509") ? "" : (stryCov_9fa48("2509"), ", "));
    d.add(path, stryMutAct_9fa48("2511") ? `` : (stryCov_9fa48("2511"), `entry "${key}" has no value source; set one of ${sources} (only the built-in keys ${BUILTIN_KEYS.join(stryMutAct_9fa48("2512") ? "" : (stryCov_9fa48("2512"), ", "))} need none)`));
    return undefined;
  }
}
function readSource(d: Diagnostics, obj: JsonObject, path: string, kind: typeof VALUE_SOURCES[number]): EntrySource | undefined {
  if (stryMutAct_9fa48("2513")) {
    {}
  } else {
    stryCov_9fa48("2513");
    const text = readString(d, obj, kind, path);
    if (stryMutAct_9fa48("2516") ? text !== undefined : stryMutAct_9fa48("2515") ? false : stryMutAct_9fa48("2514") ? true : (stryCov_9fa48("2514", "2515", "2516"), text === undefined)) return undefined;
    if (stryMutAct_9fa48("2519") ? kind !== "value" : stryMutAct_9fa48("2518") ? false : stryMutAct_9fa48("2517") ? true : (stryCov_9fa48("2517", "2518", "2519"), kind === (stryMutAct_9fa48("2520") ? "" : (stryCov_9fa48("2520"), "value")))) return Object.freeze(stryMutAct_9fa48("2521") ? {} : (stryCov_9fa48("2521"), {
      kind,
      value: text
    }));
    if (stryMutAct_9fa48("2524") ? kind !== "header" : stryMutAct_9fa48("2523") ? false : stryMutAct_9fa48("2522") ? true : (stryCov_9fa48("2522", "2523", "2524"), kind === (stryMutAct_9fa48("2525") ? "" : (stryCov_9fa48("2525"), "header")))) {
      if (stryMutAct_9fa48("2526")) {
        {}
      } else {
        stryCov_9fa48("2526");
        if (stryMutAct_9fa48("2529") ? false : stryMutAct_9fa48("2528") ? true : stryMutAct_9fa48("2527") ? TOKEN.test(text) : (stryCov_9fa48("2527", "2528", "2529"), !TOKEN.test(text))) {
          if (stryMutAct_9fa48("2530")) {
            {}
          } else {
            stryCov_9fa48("2530");
            d.add(keyPath(path, kind), stryMutAct_9fa48("2532") ? `` : (stryCov_9fa48("2532"), `${JSON.stringify(text)} is not a valid header name`));
            return undefined;
          }
        }
        // Headers are case-insensitive; the lower-case form is what `Headers` hands back.
        return Object.freeze(stryMutAct_9fa48("2533") ? {} : (stryCov_9fa48("2533"), {
          kind,
          name: stryMutAct_9fa48("2534") ? text.toUpperCase() : (stryCov_9fa48("2534"), text.toLowerCase())
        }));
      }
    }
    return Object.freeze(stryMutAct_9fa48("2535") ? {} : (stryCov_9fa48("2535"), {
      kind,
      name: text
    }));
  }
}