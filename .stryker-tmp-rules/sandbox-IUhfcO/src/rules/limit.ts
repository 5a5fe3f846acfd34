/**
 * One rate limit object (`rate_limit`, or an element of `rate_limits`) into a
 * CompiledLimit, or the `unlimited` marker.
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
import { exactArithmeticOk } from "../algorithms/index.ts";
import type { AlgorithmName } from "../algorithms/types.ts";
import type { DomainContext } from "./context.ts";
import { readBool, readEnum, readInt, requireKey } from "./fields.ts";
import { ALGORITHMS, BOUNDS, BURST_ALGORITHMS, DEFAULT_ALGORITHM, UNIT_MS, UNITS } from "./keys.ts";
import { readCountWhen } from "./count-when.ts";
import { readDurability } from "./durability.ts";
import { readConcurrency } from "./concurrency.ts";
import { readName, readOnLimit, readPrecount, readReplaces } from "./limit-options.ts";
import { derivedName, limitId } from "./names.ts";
import { asObject, checkKeys, type JsonObject, keyPath } from "./reader.ts";
import type { CompiledLimit } from "./types.ts";
export type LimitResult = {
  readonly kind: "limit";
  readonly limit: CompiledLimit;
} | {
  readonly kind: "unlimited";
  readonly replaces: readonly string[];
};

/** Keys that describe counting, and so contradict `unlimited: true`. */
const COUNTING_KEYS = ["unit", "requests_per_unit", "unit_multiplier", "algorithm", "burst", "precount", "on_limit", "max_delay_ms", "persist_ms", "durability", "concurrency", "count_when"] as const;

/**
 * Read one rate limit at `path`; `label` names its tree node for derived
 * limit names. Returns undefined (with errors recorded) when invalid.
 *
 * @example
 * readRateLimit(ctx, { unit: "minute", requests_per_unit: 60 }, "$.descriptors[0].rate_limit", "remote_address", false);
 * // { kind: "limit", limit: { id: "swc:60:60000:60", name: "remote_address:60/1m", ... } }
 */
export function readRateLimit(ctx: DomainContext, value: unknown, path: string, label: string, inArray: boolean): LimitResult | undefined {
  if (stryMutAct_9fa48("1683")) {
    {}
  } else {
    stryCov_9fa48("1683");
    const obj = asObject(ctx.d, value, path);
    if (stryMutAct_9fa48("1686") ? obj !== undefined : stryMutAct_9fa48("1685") ? false : stryMutAct_9fa48("1684") ? true : (stryCov_9fa48("1684", "1685", "1686"), obj === undefined)) return undefined;
    const before = ctx.d.errors.length;
    checkKeys(ctx.d, obj, path, stryMutAct_9fa48("1688") ? "" : (stryCov_9fa48("1688"), "rateLimit"));
    const name = readName(ctx, obj, path);
    const replaces = Object.freeze(readReplaces(ctx, obj, path, name));
    if (stryMutAct_9fa48("1691") ? readBool(ctx.d, obj, "unlimited", path) !== true : stryMutAct_9fa48("1690") ? false : stryMutAct_9fa48("1689") ? true : (stryCov_9fa48("1689", "1690", "1691"), readBool(ctx.d, obj, stryMutAct_9fa48("1692") ? "" : (stryCov_9fa48("1692"), "unlimited"), path) === (stryMutAct_9fa48("1693") ? false : (stryCov_9fa48("1693"), true)))) {
      if (stryMutAct_9fa48("1694")) {
        {}
      } else {
        stryCov_9fa48("1694");
        if (stryMutAct_9fa48("1696") ? false : stryMutAct_9fa48("1695") ? true : (stryCov_9fa48("1695", "1696"), inArray)) {
          if (stryMutAct_9fa48("1697")) {
            {}
          } else {
            stryCov_9fa48("1697");
            ctx.d.add(keyPath(path, stryMutAct_9fa48("1699") ? "" : (stryCov_9fa48("1699"), "unlimited")), stryMutAct_9fa48("1700") ? "" : (stryCov_9fa48("1700"), '"unlimited" is not allowed in "rate_limits" (use "rate_limit": { "unlimited": true })'));
          }
        }
        for (const key of COUNTING_KEYS) {
          if (stryMutAct_9fa48("1701")) {
            {}
          } else {
            stryCov_9fa48("1701");
            if (stryMutAct_9fa48("1703") ? false : stryMutAct_9fa48("1702") ? true : (stryCov_9fa48("1702", "1703"), Object.hasOwn(obj, key))) ctx.d.add(keyPath(path, key), stryMutAct_9fa48("1705") ? `` : (stryCov_9fa48("1705"), `"${key}" must not be set when "unlimited" is true`));
          }
        }
        return (stryMutAct_9fa48("1709") ? ctx.d.errors.length <= before : stryMutAct_9fa48("1708") ? ctx.d.errors.length >= before : stryMutAct_9fa48("1707") ? false : stryMutAct_9fa48("1706") ? true : (stryCov_9fa48("1706", "1707", "1708", "1709"), ctx.d.errors.length > before)) ? undefined : stryMutAct_9fa48("1710") ? {} : (stryCov_9fa48("1710"), {
          kind: stryMutAct_9fa48("1711") ? "" : (stryCov_9fa48("1711"), "unlimited"),
          replaces
        });
      }
    }
    const limit = Object.hasOwn(obj, stryMutAct_9fa48("1712") ? "" : (stryCov_9fa48("1712"), "concurrency")) ? readConcurrency(ctx, obj, path, label, name, replaces) : readCounting(ctx, obj, path, label, name, replaces);
    return (stryMutAct_9fa48("1715") ? limit === undefined && ctx.d.errors.length > before : stryMutAct_9fa48("1714") ? false : stryMutAct_9fa48("1713") ? true : (stryCov_9fa48("1713", "1714", "1715"), (stryMutAct_9fa48("1717") ? limit !== undefined : stryMutAct_9fa48("1716") ? false : (stryCov_9fa48("1716", "1717"), limit === undefined)) || (stryMutAct_9fa48("1720") ? ctx.d.errors.length <= before : stryMutAct_9fa48("1719") ? ctx.d.errors.length >= before : stryMutAct_9fa48("1718") ? false : (stryCov_9fa48("1718", "1719", "1720"), ctx.d.errors.length > before)))) ? undefined : stryMutAct_9fa48("1721") ? {} : (stryCov_9fa48("1721"), {
      kind: stryMutAct_9fa48("1722") ? "" : (stryCov_9fa48("1722"), "limit"),
      limit
    });
  }
}
function readCounting(ctx: DomainContext, obj: JsonObject, path: string, label: string, name: string | undefined, replaces: readonly string[]): CompiledLimit | undefined {
  if (stryMutAct_9fa48("1723")) {
    {}
  } else {
    stryCov_9fa48("1723");
    const {
      d
    } = ctx;
    requireKey(d, obj, stryMutAct_9fa48("1725") ? "" : (stryCov_9fa48("1725"), "unit"), path);
    requireKey(d, obj, stryMutAct_9fa48("1727") ? "" : (stryCov_9fa48("1727"), "requests_per_unit"), path);
    const unit = readEnum(d, obj, stryMutAct_9fa48("1728") ? "" : (stryCov_9fa48("1728"), "unit"), path, UNITS, stryMutAct_9fa48("1729") ? "" : (stryCov_9fa48("1729"), "unit"));
    const requestsPerUnit = readInt(d, obj, stryMutAct_9fa48("1730") ? "" : (stryCov_9fa48("1730"), "requests_per_unit"), path, 0, BOUNDS.maxCount);
    const unitMultiplier = stryMutAct_9fa48("1731") ? readInt(d, obj, "unit_multiplier", path, 1, BOUNDS.maxCount) && 1 : (stryCov_9fa48("1731"), readInt(d, obj, stryMutAct_9fa48("1732") ? "" : (stryCov_9fa48("1732"), "unit_multiplier"), path, 1, BOUNDS.maxCount) ?? 1);
    const algorithm = Object.hasOwn(obj, stryMutAct_9fa48("1733") ? "" : (stryCov_9fa48("1733"), "algorithm")) ? readEnum(d, obj, stryMutAct_9fa48("1734") ? "" : (stryCov_9fa48("1734"), "algorithm"), path, ALGORITHMS, stryMutAct_9fa48("1735") ? "" : (stryCov_9fa48("1735"), "algorithm")) : DEFAULT_ALGORITHM;
    const givenBurst = readInt(d, obj, stryMutAct_9fa48("1736") ? "" : (stryCov_9fa48("1736"), "burst"), path, 1, BOUNDS.maxCount);
    const hasBurst = stryMutAct_9fa48("1739") ? algorithm !== undefined || BURST_ALGORITHMS.includes(algorithm) : stryMutAct_9fa48("1738") ? false : stryMutAct_9fa48("1737") ? true : (stryCov_9fa48("1737", "1738", "1739"), (stryMutAct_9fa48("1741") ? algorithm === undefined : stryMutAct_9fa48("1740") ? true : (stryCov_9fa48("1740", "1741"), algorithm !== undefined)) && BURST_ALGORITHMS.includes(algorithm));
    if (stryMutAct_9fa48("1744") ? Object.hasOwn(obj, "burst") && algorithm !== undefined || !hasBurst : stryMutAct_9fa48("1743") ? false : stryMutAct_9fa48("1742") ? true : (stryCov_9fa48("1742", "1743", "1744"), (stryMutAct_9fa48("1746") ? Object.hasOwn(obj, "burst") || algorithm !== undefined : stryMutAct_9fa48("1745") ? true : (stryCov_9fa48("1745", "1746"), Object.hasOwn(obj, stryMutAct_9fa48("1747") ? "" : (stryCov_9fa48("1747"), "burst")) && (stryMutAct_9fa48("1749") ? algorithm === undefined : stryMutAct_9fa48("1748") ? true : (stryCov_9fa48("1748", "1749"), algorithm !== undefined)))) && (stryMutAct_9fa48("1750") ? hasBurst : (stryCov_9fa48("1750"), !hasBurst)))) {
      if (stryMutAct_9fa48("1751")) {
        {}
      } else {
        stryCov_9fa48("1751");
        const which = Object.hasOwn(obj, stryMutAct_9fa48("1752") ? "" : (stryCov_9fa48("1752"), "algorithm")) ? stryMutAct_9fa48("1753") ? `` : (stryCov_9fa48("1753"), `"${algorithm}"`) : stryMutAct_9fa48("1754") ? `` : (stryCov_9fa48("1754"), `"${algorithm}" (the default)`);
        d.add(keyPath(path, stryMutAct_9fa48("1756") ? "" : (stryCov_9fa48("1756"), "burst")), stryMutAct_9fa48("1757") ? `` : (stryCov_9fa48("1757"), `"burst" does not apply to algorithm ${which}; only ${BURST_ALGORITHMS.join(stryMutAct_9fa48("1758") ? "" : (stryCov_9fa48("1758"), ", "))} have a burst`));
      }
    }
    const precount = readPrecount(ctx, obj, path);
    const {
      onLimit,
      maxDelayMs
    } = readOnLimit(ctx, obj, path, algorithm);
    const countWhen = readCountWhen(ctx, obj, path);
    if (stryMutAct_9fa48("1761") ? countWhen === undefined : stryMutAct_9fa48("1760") ? false : stryMutAct_9fa48("1759") ? true : (stryCov_9fa48("1759", "1760", "1761"), countWhen !== undefined)) if (stryMutAct_9fa48("1762")) {
      ;
    } else {
      stryCov_9fa48("1762");
      conflictsWithCountWhen(ctx, obj, path, onLimit);
    }
    if (stryMutAct_9fa48("1765") ? (unit === undefined || requestsPerUnit === undefined) && algorithm === undefined : stryMutAct_9fa48("1764") ? false : stryMutAct_9fa48("1763") ? true : (stryCov_9fa48("1763", "1764", "1765"), (stryMutAct_9fa48("1767") ? unit === undefined && requestsPerUnit === undefined : stryMutAct_9fa48("1766") ? false : (stryCov_9fa48("1766", "1767"), (stryMutAct_9fa48("1769") ? unit !== undefined : stryMutAct_9fa48("1768") ? false : (stryCov_9fa48("1768", "1769"), unit === undefined)) || (stryMutAct_9fa48("1771") ? requestsPerUnit !== undefined : stryMutAct_9fa48("1770") ? false : (stryCov_9fa48("1770", "1771"), requestsPerUnit === undefined)))) || (stryMutAct_9fa48("1773") ? algorithm !== undefined : stryMutAct_9fa48("1772") ? false : (stryCov_9fa48("1772", "1773"), algorithm === undefined)))) return undefined;
    const windowMs = stryMutAct_9fa48("1774") ? UNIT_MS[unit] / unitMultiplier : (stryCov_9fa48("1774"), UNIT_MS[unit] * unitMultiplier);
    if (stryMutAct_9fa48("1777") ? false : stryMutAct_9fa48("1776") ? true : stryMutAct_9fa48("1775") ? windowOk(windowMs) : (stryCov_9fa48("1775", "1776", "1777"), !windowOk(windowMs))) {
      if (stryMutAct_9fa48("1778")) {
        {}
      } else {
        stryCov_9fa48("1778");
        d.add(keyPath(path, stryMutAct_9fa48("1780") ? "" : (stryCov_9fa48("1780"), "unit_multiplier")), stryMutAct_9fa48("1781") ? `` : (stryCov_9fa48("1781"), `window too long: with unit "${unit}", unit_multiplier must be at most ${maxMultiplier(UNIT_MS[unit])}`));
        return undefined;
      }
    }
    const durability = readDurability(d, obj, path, windowMs);
    const burst = hasBurst ? stryMutAct_9fa48("1782") ? givenBurst && requestsPerUnit : (stryCov_9fa48("1782"), givenBurst ?? requestsPerUnit) : requestsPerUnit;
    if (stryMutAct_9fa48("1785") ? algorithm === "sliding_window_log" || requestsPerUnit > BOUNDS.maxLogLimit : stryMutAct_9fa48("1784") ? false : stryMutAct_9fa48("1783") ? true : (stryCov_9fa48("1783", "1784", "1785"), (stryMutAct_9fa48("1787") ? algorithm !== "sliding_window_log" : stryMutAct_9fa48("1786") ? true : (stryCov_9fa48("1786", "1787"), algorithm === (stryMutAct_9fa48("1788") ? "" : (stryCov_9fa48("1788"), "sliding_window_log")))) && (stryMutAct_9fa48("1791") ? requestsPerUnit <= BOUNDS.maxLogLimit : stryMutAct_9fa48("1790") ? requestsPerUnit >= BOUNDS.maxLogLimit : stryMutAct_9fa48("1789") ? true : (stryCov_9fa48("1789", "1790", "1791"), requestsPerUnit > BOUNDS.maxLogLimit)))) {
      if (stryMutAct_9fa48("1792")) {
        {}
      } else {
        stryCov_9fa48("1792");
        // The log keeps an entry per allowed request; past this it outgrows a storage row and the hot path.
        d.add(keyPath(path, stryMutAct_9fa48("1794") ? "" : (stryCov_9fa48("1794"), "requests_per_unit")), stryMutAct_9fa48("1795") ? `` : (stryCov_9fa48("1795"), `sliding_window_log keeps one entry per request, so requests_per_unit must be at most ${BOUNDS.maxLogLimit} (got ${requestsPerUnit}); use sliding_window_counter for larger limits`));
        return undefined;
      }
    }
    if (stryMutAct_9fa48("1798") ? false : stryMutAct_9fa48("1797") ? true : stryMutAct_9fa48("1796") ? exactArithmeticOk({
      limit: requestsPerUnit,
      windowMs,
      burst
    }, algorithm) : (stryCov_9fa48("1796", "1797", "1798"), !exactArithmeticOk(stryMutAct_9fa48("1799") ? {} : (stryCov_9fa48("1799"), {
      limit: requestsPerUnit,
      windowMs,
      burst
    }), algorithm))) {
      if (stryMutAct_9fa48("1800")) {
        {}
      } else {
        stryCov_9fa48("1800");
        d.add(keyPath(path, Object.hasOwn(obj, stryMutAct_9fa48("1802") ? "" : (stryCov_9fa48("1802"), "burst")) ? stryMutAct_9fa48("1803") ? "" : (stryCov_9fa48("1803"), "burst") : stryMutAct_9fa48("1804") ? "" : (stryCov_9fa48("1804"), "requests_per_unit")), inexactMessage(algorithm));
        return undefined;
      }
    }
    stryMutAct_9fa48("1805") ? ctx.counts.limits -= 1 : (stryCov_9fa48("1805"), ctx.counts.limits += 1);
    return Object.freeze(stryMutAct_9fa48("1806") ? {} : (stryCov_9fa48("1806"), {
      limit: requestsPerUnit,
      windowMs,
      burst,
      // A limit that counts only some responses keeps its own counter beside an otherwise equal one.
      id: stryMutAct_9fa48("1807") ? limitId(algorithm, requestsPerUnit, windowMs, burst) - (countWhen !== undefined ? ":cw" : "") : (stryCov_9fa48("1807"), limitId(algorithm, requestsPerUnit, windowMs, burst) + ((stryMutAct_9fa48("1810") ? countWhen === undefined : stryMutAct_9fa48("1809") ? false : stryMutAct_9fa48("1808") ? true : (stryCov_9fa48("1808", "1809", "1810"), countWhen !== undefined)) ? stryMutAct_9fa48("1811") ? "" : (stryCov_9fa48("1811"), ":cw") : stryMutAct_9fa48("1812") ? "Stryker was here!" : (stryCov_9fa48("1812"), ""))),
      name: stryMutAct_9fa48("1813") ? name && derivedName(label, requestsPerUnit, unit, unitMultiplier) : (stryCov_9fa48("1813"), name ?? derivedName(label, requestsPerUnit, unit, unitMultiplier)),
      named: stryMutAct_9fa48("1816") ? name === undefined : stryMutAct_9fa48("1815") ? false : stryMutAct_9fa48("1814") ? true : (stryCov_9fa48("1814", "1815", "1816"), name !== undefined),
      replaces,
      unit,
      unitMultiplier,
      requestsPerUnit,
      algorithm,
      ...((stryMutAct_9fa48("1819") ? precount === undefined : stryMutAct_9fa48("1818") ? false : stryMutAct_9fa48("1817") ? true : (stryCov_9fa48("1817", "1818", "1819"), precount !== undefined)) ? stryMutAct_9fa48("1820") ? {} : (stryCov_9fa48("1820"), {
        precount
      }) : {}),
      onLimit,
      ...((stryMutAct_9fa48("1823") ? maxDelayMs === undefined : stryMutAct_9fa48("1822") ? false : stryMutAct_9fa48("1821") ? true : (stryCov_9fa48("1821", "1822", "1823"), maxDelayMs !== undefined)) ? stryMutAct_9fa48("1824") ? {} : (stryCov_9fa48("1824"), {
        maxDelayMs
      }) : {}),
      ...durability,
      ...((stryMutAct_9fa48("1827") ? countWhen === undefined : stryMutAct_9fa48("1826") ? false : stryMutAct_9fa48("1825") ? true : (stryCov_9fa48("1825", "1826", "1827"), countWhen !== undefined)) ? stryMutAct_9fa48("1828") ? {} : (stryCov_9fa48("1828"), {
        countWhen
      }) : {})
    }));
  }
}

// The hit is reserved at the counter and maybe given back: the edge's
// estimate (precount) and future slots (delay, queue) cannot take it back.
function conflictsWithCountWhen(ctx: DomainContext, obj: JsonObject, path: string, onLimit: string): void {
  if (stryMutAct_9fa48("1829")) {
    {}
  } else {
    stryCov_9fa48("1829");
    if (stryMutAct_9fa48("1831") ? false : stryMutAct_9fa48("1830") ? true : (stryCov_9fa48("1830", "1831"), Object.hasOwn(obj, stryMutAct_9fa48("1832") ? "" : (stryCov_9fa48("1832"), "precount")))) ctx.d.add(keyPath(path, stryMutAct_9fa48("1834") ? "" : (stryCov_9fa48("1834"), "precount")), stryMutAct_9fa48("1835") ? "" : (stryCov_9fa48("1835"), '"precount" cannot be combined with "count_when": a hit that may be refunded is taken at the counter itself'));
    if (stryMutAct_9fa48("1838") ? onLimit === "reject" : stryMutAct_9fa48("1837") ? false : stryMutAct_9fa48("1836") ? true : (stryCov_9fa48("1836", "1837", "1838"), onLimit !== (stryMutAct_9fa48("1839") ? "" : (stryCov_9fa48("1839"), "reject")))) ctx.d.add(keyPath(path, stryMutAct_9fa48("1841") ? "" : (stryCov_9fa48("1841"), "on_limit")), stryMutAct_9fa48("1842") ? `` : (stryCov_9fa48("1842"), `on_limit "${onLimit}" cannot be combined with "count_when"; only "reject" can`));
  }
}

// Zero counts isolate the window bound of the algorithms' arithmetic.
const windowOk = stryMutAct_9fa48("1843") ? () => undefined : (stryCov_9fa48("1843"), (() => {
  const windowOk = (windowMs: number) => exactArithmeticOk(stryMutAct_9fa48("1844") ? {} : (stryCov_9fa48("1844"), {
    limit: 0,
    windowMs,
    burst: 0
  }));
  return windowOk;
})());

// Largest multiplier of `unitMs` the algorithms accept; the bound is monotone, so bisect.
function maxMultiplier(unitMs: number): number {
  if (stryMutAct_9fa48("1845")) {
    {}
  } else {
    stryCov_9fa48("1845");
    let lo = 1;
    let hi = BOUNDS.maxCount;
    while (stryMutAct_9fa48("1848") ? lo >= hi : stryMutAct_9fa48("1847") ? lo <= hi : stryMutAct_9fa48("1846") ? false : (stryCov_9fa48("1846", "1847", "1848"), lo < hi)) {
      if (stryMutAct_9fa48("1849")) {
        {}
      } else {
        stryCov_9fa48("1849");
        const mid = Math.ceil(stryMutAct_9fa48("1850") ? (lo + hi) * 2 : (stryCov_9fa48("1850"), (stryMutAct_9fa48("1851") ? lo - hi : (stryCov_9fa48("1851"), lo + hi)) / 2));
        if (stryMutAct_9fa48("1853") ? false : stryMutAct_9fa48("1852") ? true : (stryCov_9fa48("1852", "1853"), windowOk(stryMutAct_9fa48("1854") ? unitMs / mid : (stryCov_9fa48("1854"), unitMs * mid)))) lo = mid;else hi = stryMutAct_9fa48("1855") ? mid + 1 : (stryCov_9fa48("1855"), mid - 1);
      }
    }
    return lo;
  }
}
function inexactMessage(algorithm: AlgorithmName): string {
  if (stryMutAct_9fa48("1856")) {
    {}
  } else {
    stryCov_9fa48("1856");
    return (stryMutAct_9fa48("1857") ? `` : (stryCov_9fa48("1857"), `too large for exact integer arithmetic in ${algorithm}: burst × window ÷ gcd(requests_per_unit, window) `)) + (stryMutAct_9fa48("1858") ? "" : (stryCov_9fa48("1858"), "must stay below 2^52; lower burst or requests_per_unit, or pick a rounder requests_per_unit"));
  }
}