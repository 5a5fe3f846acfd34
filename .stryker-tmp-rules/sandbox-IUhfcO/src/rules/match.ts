/**
 * Request-time lookups in compiled rules: descriptor → limits (Envoy
 * semantics), `replaces` across one request's descriptors, and routes.
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
import { RANGE_KEY } from "./cidr-values.ts";
import type { CompiledDomain, CompiledLimit, CompiledNode, CompiledRoute, DescriptorEntry, DescriptorLevel, DescriptorMatch } from "./types.ts";

/**
 * The node one request descriptor selects, and what it enforces.
 *
 * Level by level, an entry takes the exact key+value node, else (for
 * `remote_address`) the longest address range holding its value, else the
 * first wildcard node of its key (file order), else the key-only node; there
 * is no backtracking, as in Envoy. Only a node at the descriptor's own depth
 * matches. `undefined` means no node: the descriptor is not limited. The
 * match carries `quotaMode` and, past a `share_threshold` node, the entries
 * that name the shared counter (docs/rules.md).
 *
 * @example
 * const m = matchDescriptor(domain, [{ key: "path", value: "/login" }, { key: "remote_address", value: "192.0.2.1" }]);
 * m?.limits.map((l) => l.name); // ["path=/login,remote_address:1/1s", "path=/login,remote_address:100/1d"]
 * m?.unlimited;                 // false
 */
export function matchDescriptor(domain: CompiledDomain, entries: readonly DescriptorEntry[]): DescriptorMatch | undefined {
  if (stryMutAct_9fa48("1969")) {
    {}
  } else {
    stryCov_9fa48("1969");
    if (stryMutAct_9fa48("1972") ? entries.length !== 0 : stryMutAct_9fa48("1971") ? false : stryMutAct_9fa48("1970") ? true : (stryCov_9fa48("1970", "1971", "1972"), entries.length === 0)) return undefined;
    let level: DescriptorLevel = domain.root;
    let node: CompiledNode | undefined;
    let shared: DescriptorEntry[] | undefined;
    for (let i = 0; stryMutAct_9fa48("1975") ? i >= entries.length : stryMutAct_9fa48("1974") ? i <= entries.length : stryMutAct_9fa48("1973") ? false : (stryCov_9fa48("1973", "1974", "1975"), i < entries.length); stryMutAct_9fa48("1976") ? i-- : (stryCov_9fa48("1976"), i++)) {
      if (stryMutAct_9fa48("1977")) {
        {}
      } else {
        stryCov_9fa48("1977");
        const entry = entries[i];
        if (stryMutAct_9fa48("1980") ? node === undefined : stryMutAct_9fa48("1979") ? false : stryMutAct_9fa48("1978") ? true : (stryCov_9fa48("1978", "1979", "1980"), node !== undefined)) level = node.children;
        node = findNode(level, entry);
        if (stryMutAct_9fa48("1983") ? node !== undefined : stryMutAct_9fa48("1982") ? false : stryMutAct_9fa48("1981") ? true : (stryCov_9fa48("1981", "1982", "1983"), node === undefined)) return undefined;
        // Envoy share_threshold: the matching pattern, not the request's value, names the counter.
        if (stryMutAct_9fa48("1986") ? node.shareThreshold && node.value !== undefined || node.value !== entry.value : stryMutAct_9fa48("1985") ? false : stryMutAct_9fa48("1984") ? true : (stryCov_9fa48("1984", "1985", "1986"), (stryMutAct_9fa48("1988") ? node.shareThreshold || node.value !== undefined : stryMutAct_9fa48("1987") ? true : (stryCov_9fa48("1987", "1988"), node.shareThreshold && (stryMutAct_9fa48("1990") ? node.value === undefined : stryMutAct_9fa48("1989") ? true : (stryCov_9fa48("1989", "1990"), node.value !== undefined)))) && (stryMutAct_9fa48("1992") ? node.value === entry.value : stryMutAct_9fa48("1991") ? true : (stryCov_9fa48("1991", "1992"), node.value !== entry.value)))) {
          if (stryMutAct_9fa48("1993")) {
            {}
          } else {
            stryCov_9fa48("1993");
            (stryMutAct_9fa48("1994") ? shared &&= entries.slice() : (stryCov_9fa48("1994"), shared ??= stryMutAct_9fa48("1995") ? entries : (stryCov_9fa48("1995"), entries.slice())))[i] = stryMutAct_9fa48("1996") ? {} : (stryCov_9fa48("1996"), {
              key: entry.key,
              value: node.value
            });
          }
        }
      }
    }
    const found = node as CompiledNode;
    const match: DescriptorMatch = stryMutAct_9fa48("1997") ? {} : (stryCov_9fa48("1997"), {
      node: found,
      limits: found.limits,
      unlimited: found.unlimited,
      shadowMode: found.shadowMode
    });
    if (stryMutAct_9fa48("2000") ? found.quotaMode !== true || shared === undefined : stryMutAct_9fa48("1999") ? false : stryMutAct_9fa48("1998") ? true : (stryCov_9fa48("1998", "1999", "2000"), (stryMutAct_9fa48("2002") ? found.quotaMode === true : stryMutAct_9fa48("2001") ? true : (stryCov_9fa48("2001", "2002"), found.quotaMode !== (stryMutAct_9fa48("2003") ? false : (stryCov_9fa48("2003"), true)))) && (stryMutAct_9fa48("2005") ? shared !== undefined : stryMutAct_9fa48("2004") ? true : (stryCov_9fa48("2004", "2005"), shared === undefined)))) return match;
    return stryMutAct_9fa48("2006") ? {} : (stryCov_9fa48("2006"), {
      ...match,
      ...(found.quotaMode ? stryMutAct_9fa48("2007") ? {} : (stryCov_9fa48("2007"), {
        quotaMode: stryMutAct_9fa48("2008") ? false : (stryCov_9fa48("2008"), true)
      }) : {}),
      ...(shared ? stryMutAct_9fa48("2009") ? {} : (stryCov_9fa48("2009"), {
        counterEntries: shared
      }) : {})
    });
  }
}
function findNode(level: DescriptorLevel, entry: DescriptorEntry): CompiledNode | undefined {
  if (stryMutAct_9fa48("2010")) {
    {}
  } else {
    stryCov_9fa48("2010");
    const exact = level.exact.get(stryMutAct_9fa48("2011") ? `` : (stryCov_9fa48("2011"), `${entry.key}\u0000${entry.value}`));
    if (stryMutAct_9fa48("2014") ? exact === undefined : stryMutAct_9fa48("2013") ? false : stryMutAct_9fa48("2012") ? true : (stryCov_9fa48("2012", "2013", "2014"), exact !== undefined)) return exact;
    if (stryMutAct_9fa48("2017") ? level.ranges !== undefined || entry.key === RANGE_KEY : stryMutAct_9fa48("2016") ? false : stryMutAct_9fa48("2015") ? true : (stryCov_9fa48("2015", "2016", "2017"), (stryMutAct_9fa48("2019") ? level.ranges === undefined : stryMutAct_9fa48("2018") ? true : (stryCov_9fa48("2018", "2019"), level.ranges !== undefined)) && (stryMutAct_9fa48("2021") ? entry.key !== RANGE_KEY : stryMutAct_9fa48("2020") ? true : (stryCov_9fa48("2020", "2021"), entry.key === RANGE_KEY)))) {
      if (stryMutAct_9fa48("2022")) {
        {}
      } else {
        stryCov_9fa48("2022");
        const range = level.ranges.lookup(entry.value);
        if (stryMutAct_9fa48("2025") ? range === undefined : stryMutAct_9fa48("2024") ? false : stryMutAct_9fa48("2023") ? true : (stryCov_9fa48("2023", "2024", "2025"), range !== undefined)) return range;
      }
    }
    const wildcards = level.wildcards.get(entry.key);
    if (stryMutAct_9fa48("2028") ? wildcards === undefined : stryMutAct_9fa48("2027") ? false : stryMutAct_9fa48("2026") ? true : (stryCov_9fa48("2026", "2027", "2028"), wildcards !== undefined)) {
      if (stryMutAct_9fa48("2029")) {
        {}
      } else {
        stryCov_9fa48("2029");
        for (const wildcard of wildcards) {
          if (stryMutAct_9fa48("2030")) {
            {}
          } else {
            stryCov_9fa48("2030");
            if (stryMutAct_9fa48("2032") ? false : stryMutAct_9fa48("2031") ? true : (stryCov_9fa48("2031", "2032"), wildcard.matches(entry.value))) return wildcard.node;
          }
        }
      }
    }
    return level.keyOnly.get(entry.key);
  }
}

/**
 * Envoy `replaces` across the descriptors of one request: every name listed
 * in `replaces` by any matched limit (an `unlimited` one included) drops the
 * matched limits that carry that explicit name. Returns the limits still to
 * enforce, one array per input position (empty for `undefined`).
 *
 * @example
 * // "vip" replaces "per-ip": a request matching both is only counted by "vip".
 * const [perIp, vip] = applyReplaces([matchPerIp, matchVip]);
 * perIp; // []
 * vip;   // [vipLimit]
 */
export function applyReplaces(matches: readonly (DescriptorMatch | undefined)[]): (readonly CompiledLimit[])[] {
  if (stryMutAct_9fa48("2033")) {
    {}
  } else {
    stryCov_9fa48("2033");
    let replaced: Set<string> | undefined;
    for (const match of matches) {
      if (stryMutAct_9fa48("2034")) {
        {}
      } else {
        stryCov_9fa48("2034");
        if (stryMutAct_9fa48("2037") ? match !== undefined : stryMutAct_9fa48("2036") ? false : stryMutAct_9fa48("2035") ? true : (stryCov_9fa48("2035", "2036", "2037"), match === undefined)) continue;
        for (const limit of match.limits) {
          if (stryMutAct_9fa48("2038")) {
            {}
          } else {
            stryCov_9fa48("2038");
            for (const name of limit.replaces) (stryMutAct_9fa48("2040") ? replaced &&= new Set() : (stryCov_9fa48("2040"), replaced ??= new Set())).add(name);
          }
        }
        for (const name of stryMutAct_9fa48("2041") ? match.node.unlimitedReplaces && [] : (stryCov_9fa48("2041"), match.node.unlimitedReplaces ?? (stryMutAct_9fa48("2042") ? ["Stryker was here"] : (stryCov_9fa48("2042"), [])))) (stryMutAct_9fa48("2044") ? replaced &&= new Set() : (stryCov_9fa48("2044"), replaced ??= new Set())).add(name);
      }
    }
    return matches.map(match => {
      if (stryMutAct_9fa48("2045")) {
        {}
      } else {
        stryCov_9fa48("2045");
        if (stryMutAct_9fa48("2048") ? match !== undefined : stryMutAct_9fa48("2047") ? false : stryMutAct_9fa48("2046") ? true : (stryCov_9fa48("2046", "2047", "2048"), match === undefined)) return stryMutAct_9fa48("2049") ? ["Stryker was here"] : (stryCov_9fa48("2049"), []);
        if (stryMutAct_9fa48("2052") ? replaced !== undefined : stryMutAct_9fa48("2051") ? false : stryMutAct_9fa48("2050") ? true : (stryCov_9fa48("2050", "2051", "2052"), replaced === undefined)) return match.limits;
        const names = replaced;
        return (stryMutAct_9fa48("2053") ? match.limits.every(l => l.named && names.has(l.name)) : (stryCov_9fa48("2053"), match.limits.some(stryMutAct_9fa48("2054") ? () => undefined : (stryCov_9fa48("2054"), l => stryMutAct_9fa48("2057") ? l.named || names.has(l.name) : stryMutAct_9fa48("2056") ? false : stryMutAct_9fa48("2055") ? true : (stryCov_9fa48("2055", "2056", "2057"), l.named && names.has(l.name)))))) ? stryMutAct_9fa48("2058") ? match.limits : (stryCov_9fa48("2058"), match.limits.filter(stryMutAct_9fa48("2059") ? () => undefined : (stryCov_9fa48("2059"), l => stryMutAct_9fa48("2060") ? l.named && names.has(l.name) : (stryCov_9fa48("2060"), !(stryMutAct_9fa48("2063") ? l.named || names.has(l.name) : stryMutAct_9fa48("2062") ? false : stryMutAct_9fa48("2061") ? true : (stryCov_9fa48("2061", "2062", "2063"), l.named && names.has(l.name))))))) : match.limits;
      }
    });
  }
}

/** What a route matcher looks at. `host` is the host name without port. */
export interface RouteRequest {
  readonly method: string;
  readonly path: string;
  readonly host: string;
}

/**
 * The first route of `routes` that matches (docs/rules.md, "Routes": the first matching route
 * wins). Methods compare upper-cased, hosts case-insensitively.
 *
 * @example
 * matchRoute(domain.routes, { method: "post", path: "/login", host: "api.example.com" })?.descriptors.length; // 1
 */
export function matchRoute(routes: readonly CompiledRoute[], request: RouteRequest): CompiledRoute | undefined {
  if (stryMutAct_9fa48("2064")) {
    {}
  } else {
    stryCov_9fa48("2064");
    const method = stryMutAct_9fa48("2065") ? request.method.toLowerCase() : (stryCov_9fa48("2065"), request.method.toUpperCase());
    return routes.find(stryMutAct_9fa48("2066") ? () => undefined : (stryCov_9fa48("2066"), route => stryMutAct_9fa48("2069") ? (route.methods === undefined || route.methods.has(method)) && (route.path === undefined || route.path(request.path)) || route.host === undefined || route.host(request.host) : stryMutAct_9fa48("2068") ? false : stryMutAct_9fa48("2067") ? true : (stryCov_9fa48("2067", "2068", "2069"), (stryMutAct_9fa48("2071") ? route.methods === undefined || route.methods.has(method) || route.path === undefined || route.path(request.path) : stryMutAct_9fa48("2070") ? true : (stryCov_9fa48("2070", "2071"), (stryMutAct_9fa48("2073") ? route.methods === undefined && route.methods.has(method) : stryMutAct_9fa48("2072") ? true : (stryCov_9fa48("2072", "2073"), (stryMutAct_9fa48("2075") ? route.methods !== undefined : stryMutAct_9fa48("2074") ? false : (stryCov_9fa48("2074", "2075"), route.methods === undefined)) || route.methods.has(method))) && (stryMutAct_9fa48("2077") ? route.path === undefined && route.path(request.path) : stryMutAct_9fa48("2076") ? true : (stryCov_9fa48("2076", "2077"), (stryMutAct_9fa48("2079") ? route.path !== undefined : stryMutAct_9fa48("2078") ? false : (stryCov_9fa48("2078", "2079"), route.path === undefined)) || route.path(request.path))))) && (stryMutAct_9fa48("2081") ? route.host === undefined && route.host(request.host) : stryMutAct_9fa48("2080") ? true : (stryCov_9fa48("2080", "2081"), (stryMutAct_9fa48("2083") ? route.host !== undefined : stryMutAct_9fa48("2082") ? false : (stryCov_9fa48("2082", "2083"), route.host === undefined)) || route.host(request.host))))));
  }
}