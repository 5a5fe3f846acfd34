/**
 * The optional parts of a rate limit that do not affect counting: its name,
 * `replaces`, `precount` and `on_limit`.
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
import type { DomainContext } from "./context.ts";
import { readEnum, readInt, readString, requireKey } from "./fields.ts";
import { BOUNDS, DELAY_ALGORITHMS, ON_LIMIT_ACTIONS } from "./keys.ts";
import { SAFE_NAME } from "./names.ts";
import { asArray, asObject, checkKeys, indexPath, type JsonObject, keyPath } from "./reader.ts";
import type { AlgorithmName } from "../algorithms/types.ts";
import type { OnLimitAction } from "./types.ts";

/**
 * `name`, checked to be safe inside a `RateLimit-Policy` structured-field
 * string, and recorded as defined in the domain (even when the rest of the
 * limit is invalid, so `replaces` pointing at it does not also fail).
 *
 * @example
 * readName(ctx, { name: "per-ip" }, "$.descriptors[0].rate_limit"); // "per-ip"
 */
export function readName(ctx: DomainContext, obj: JsonObject, path: string): string | undefined {
  if (stryMutAct_9fa48("1542")) {
    {}
  } else {
    stryCov_9fa48("1542");
    const name = readString(ctx.d, obj, stryMutAct_9fa48("1543") ? "" : (stryCov_9fa48("1543"), "name"), path);
    if (stryMutAct_9fa48("1546") ? name !== undefined : stryMutAct_9fa48("1545") ? false : stryMutAct_9fa48("1544") ? true : (stryCov_9fa48("1544", "1545", "1546"), name === undefined)) return undefined;
    if (stryMutAct_9fa48("1549") ? false : stryMutAct_9fa48("1548") ? true : stryMutAct_9fa48("1547") ? SAFE_NAME.test(name) : (stryCov_9fa48("1547", "1548", "1549"), !SAFE_NAME.test(name))) {
      if (stryMutAct_9fa48("1550")) {
        {}
      } else {
        stryCov_9fa48("1550");
        ctx.d.add(keyPath(path, stryMutAct_9fa48("1552") ? "" : (stryCov_9fa48("1552"), "name")), stryMutAct_9fa48("1553") ? "" : (stryCov_9fa48("1553"), 'must be printable ASCII without " or \\ (it is sent in the RateLimit-Policy header)'));
        return undefined;
      }
    }
    if (stryMutAct_9fa48("1554")) {
      ;
    } else {
      stryCov_9fa48("1554");
      ctx.names.add(name);
    }
    return name;
  }
}

/**
 * `replaces`: a list of `{ "name": ... }` objects (Envoy's shape). A limit may
 * not replace itself; names that exist nowhere are checked per domain later.
 *
 * @example
 * readReplaces(ctx, { replaces: [{ name: "per-ip" }] }, "$.descriptors[1].rate_limit", "vip"); // ["per-ip"]
 */
export function readReplaces(ctx: DomainContext, obj: JsonObject, path: string, ownName: string | undefined): string[] {
  if (stryMutAct_9fa48("1555")) {
    {}
  } else {
    stryCov_9fa48("1555");
    if (stryMutAct_9fa48("1558") ? false : stryMutAct_9fa48("1557") ? true : stryMutAct_9fa48("1556") ? Object.hasOwn(obj, "replaces") : (stryCov_9fa48("1556", "1557", "1558"), !Object.hasOwn(obj, stryMutAct_9fa48("1559") ? "" : (stryCov_9fa48("1559"), "replaces")))) return stryMutAct_9fa48("1560") ? ["Stryker was here"] : (stryCov_9fa48("1560"), []);
    const list = asArray(ctx.d, obj.replaces, keyPath(path, stryMutAct_9fa48("1561") ? "" : (stryCov_9fa48("1561"), "replaces")));
    if (stryMutAct_9fa48("1564") ? list !== undefined : stryMutAct_9fa48("1563") ? false : stryMutAct_9fa48("1562") ? true : (stryCov_9fa48("1562", "1563", "1564"), list === undefined)) return stryMutAct_9fa48("1565") ? ["Stryker was here"] : (stryCov_9fa48("1565"), []);
    const names: string[] = stryMutAct_9fa48("1566") ? ["Stryker was here"] : (stryCov_9fa48("1566"), []);
    list.forEach((item, i) => {
      if (stryMutAct_9fa48("1568")) {
        {}
      } else {
        stryCov_9fa48("1568");
        const at = indexPath(keyPath(path, stryMutAct_9fa48("1569") ? "" : (stryCov_9fa48("1569"), "replaces")), i);
        const entry = asObject(ctx.d, item, at);
        if (stryMutAct_9fa48("1572") ? entry !== undefined : stryMutAct_9fa48("1571") ? false : stryMutAct_9fa48("1570") ? true : (stryCov_9fa48("1570", "1571", "1572"), entry === undefined)) return;
        checkKeys(ctx.d, entry, at, stryMutAct_9fa48("1574") ? "" : (stryCov_9fa48("1574"), "replaces"));
        if (stryMutAct_9fa48("1577") ? false : stryMutAct_9fa48("1576") ? true : stryMutAct_9fa48("1575") ? requireKey(ctx.d, entry, "name", at) : (stryCov_9fa48("1575", "1576", "1577"), !requireKey(ctx.d, entry, stryMutAct_9fa48("1578") ? "" : (stryCov_9fa48("1578"), "name"), at))) return;
        const name = readString(ctx.d, entry, stryMutAct_9fa48("1579") ? "" : (stryCov_9fa48("1579"), "name"), at);
        if (stryMutAct_9fa48("1582") ? name !== undefined : stryMutAct_9fa48("1581") ? false : stryMutAct_9fa48("1580") ? true : (stryCov_9fa48("1580", "1581", "1582"), name === undefined)) return;
        if (stryMutAct_9fa48("1585") ? name !== ownName : stryMutAct_9fa48("1584") ? false : stryMutAct_9fa48("1583") ? true : (stryCov_9fa48("1583", "1584", "1585"), name === ownName)) {
          if (stryMutAct_9fa48("1586")) {
            {}
          } else {
            stryCov_9fa48("1586");
            ctx.d.add(keyPath(at, stryMutAct_9fa48("1588") ? "" : (stryCov_9fa48("1588"), "name")), stryMutAct_9fa48("1589") ? `` : (stryCov_9fa48("1589"), `a rate limit cannot replace itself ("${name}")`));
            return;
          }
        }
        ctx.replacesRefs.push(stryMutAct_9fa48("1591") ? {} : (stryCov_9fa48("1591"), {
          name,
          path: keyPath(at, stryMutAct_9fa48("1592") ? "" : (stryCov_9fa48("1592"), "name"))
        }));
        if (stryMutAct_9fa48("1593")) {
          ;
        } else {
          stryCov_9fa48("1593");
          names.push(name);
        }
      }
    });
    return names;
  }
}

/**
 * `precount: { "sync_ms": N }` (docs/precount.md, "Pre-counting").
 *
 * @example
 * readPrecount(ctx, { precount: { sync_ms: 100 } }, "$.rate_limit"); // { syncMs: 100 }
 */
export function readPrecount(ctx: DomainContext, obj: JsonObject, path: string): {
  syncMs: number;
} | undefined {
  if (stryMutAct_9fa48("1594")) {
    {}
  } else {
    stryCov_9fa48("1594");
    if (stryMutAct_9fa48("1597") ? false : stryMutAct_9fa48("1596") ? true : stryMutAct_9fa48("1595") ? Object.hasOwn(obj, "precount") : (stryCov_9fa48("1595", "1596", "1597"), !Object.hasOwn(obj, stryMutAct_9fa48("1598") ? "" : (stryCov_9fa48("1598"), "precount")))) return undefined;
    const at = keyPath(path, stryMutAct_9fa48("1599") ? "" : (stryCov_9fa48("1599"), "precount"));
    const precount = asObject(ctx.d, obj.precount, at);
    if (stryMutAct_9fa48("1602") ? precount !== undefined : stryMutAct_9fa48("1601") ? false : stryMutAct_9fa48("1600") ? true : (stryCov_9fa48("1600", "1601", "1602"), precount === undefined)) return undefined;
    checkKeys(ctx.d, precount, at, stryMutAct_9fa48("1604") ? "" : (stryCov_9fa48("1604"), "precount"));
    if (stryMutAct_9fa48("1607") ? false : stryMutAct_9fa48("1606") ? true : stryMutAct_9fa48("1605") ? requireKey(ctx.d, precount, "sync_ms", at) : (stryCov_9fa48("1605", "1606", "1607"), !requireKey(ctx.d, precount, stryMutAct_9fa48("1608") ? "" : (stryCov_9fa48("1608"), "sync_ms"), at))) return undefined;
    const syncMs = readInt(ctx.d, precount, stryMutAct_9fa48("1609") ? "" : (stryCov_9fa48("1609"), "sync_ms"), at, 1, BOUNDS.maxMs);
    return (stryMutAct_9fa48("1612") ? syncMs !== undefined : stryMutAct_9fa48("1611") ? false : stryMutAct_9fa48("1610") ? true : (stryCov_9fa48("1610", "1611", "1612"), syncMs === undefined)) ? undefined : Object.freeze(stryMutAct_9fa48("1613") ? {} : (stryCov_9fa48("1613"), {
      syncMs
    }));
  }
}

/**
 * `on_limit` and `max_delay_ms` (docs/on-limit.md): a delay needs its bound
 * and an algorithm with future slots, a bound without a delay is a mistake,
 * and neither delay nor queue mixes with `precount` (both must take their
 * slot from the counter itself, not from an edge estimate). `algorithm` is
 * the limit's algorithm when known (default included).
 *
 * @example
 * readOnLimit(ctx, { on_limit: "delay", max_delay_ms: 500, algorithm: "gcra" }, "$.rate_limit", "gcra"); // { onLimit: "delay", maxDelayMs: 500 }
 */
export function readOnLimit(ctx: DomainContext, obj: JsonObject, path: string, algorithm: AlgorithmName | undefined): {
  onLimit: OnLimitAction;
  maxDelayMs?: number;
} {
  if (stryMutAct_9fa48("1614")) {
    {}
  } else {
    stryCov_9fa48("1614");
    const given = readEnum(ctx.d, obj, stryMutAct_9fa48("1615") ? "" : (stryCov_9fa48("1615"), "on_limit"), path, ON_LIMIT_ACTIONS, stryMutAct_9fa48("1616") ? "" : (stryCov_9fa48("1616"), "on_limit action"));
    const maxDelayMs = readInt(ctx.d, obj, stryMutAct_9fa48("1617") ? "" : (stryCov_9fa48("1617"), "max_delay_ms"), path, 0, BOUNDS.maxDelayMs);
    const hasDelay = Object.hasOwn(obj, stryMutAct_9fa48("1618") ? "" : (stryCov_9fa48("1618"), "max_delay_ms"));
    if (stryMutAct_9fa48("1621") ? given === "delay" || given === "queue" || Object.hasOwn(obj, "precount") : stryMutAct_9fa48("1620") ? false : stryMutAct_9fa48("1619") ? true : (stryCov_9fa48("1619", "1620", "1621"), (stryMutAct_9fa48("1623") ? given === "delay" && given === "queue" : stryMutAct_9fa48("1622") ? true : (stryCov_9fa48("1622", "1623"), (stryMutAct_9fa48("1625") ? given !== "delay" : stryMutAct_9fa48("1624") ? false : (stryCov_9fa48("1624", "1625"), given === (stryMutAct_9fa48("1626") ? "" : (stryCov_9fa48("1626"), "delay")))) || (stryMutAct_9fa48("1628") ? given !== "queue" : stryMutAct_9fa48("1627") ? false : (stryCov_9fa48("1627", "1628"), given === (stryMutAct_9fa48("1629") ? "" : (stryCov_9fa48("1629"), "queue")))))) && Object.hasOwn(obj, stryMutAct_9fa48("1630") ? "" : (stryCov_9fa48("1630"), "precount")))) {
      if (stryMutAct_9fa48("1631")) {
        {}
      } else {
        stryCov_9fa48("1631");
        ctx.d.add(keyPath(path, stryMutAct_9fa48("1633") ? "" : (stryCov_9fa48("1633"), "precount")), stryMutAct_9fa48("1634") ? `` : (stryCov_9fa48("1634"), `"precount" cannot be combined with on_limit "${given}": a ${(stryMutAct_9fa48("1637") ? given !== "delay" : stryMutAct_9fa48("1636") ? false : stryMutAct_9fa48("1635") ? true : (stryCov_9fa48("1635", "1636", "1637"), given === (stryMutAct_9fa48("1638") ? "" : (stryCov_9fa48("1638"), "delay")))) ? stryMutAct_9fa48("1639") ? "" : (stryCov_9fa48("1639"), "delayed") : stryMutAct_9fa48("1640") ? "" : (stryCov_9fa48("1640"), "queued")} request takes its slot from the counter itself, never from the edge's estimate`));
      }
    }
    if (stryMutAct_9fa48("1643") ? given !== "delay" : stryMutAct_9fa48("1642") ? false : stryMutAct_9fa48("1641") ? true : (stryCov_9fa48("1641", "1642", "1643"), given === (stryMutAct_9fa48("1644") ? "" : (stryCov_9fa48("1644"), "delay")))) {
      if (stryMutAct_9fa48("1645")) {
        {}
      } else {
        stryCov_9fa48("1645");
        if (stryMutAct_9fa48("1648") ? false : stryMutAct_9fa48("1647") ? true : stryMutAct_9fa48("1646") ? hasDelay : (stryCov_9fa48("1646", "1647", "1648"), !hasDelay)) ctx.d.add(path, stryMutAct_9fa48("1650") ? "" : (stryCov_9fa48("1650"), 'missing required key "max_delay_ms" (required when "on_limit" is "delay")'));
        if (stryMutAct_9fa48("1653") ? algorithm !== undefined || !DELAY_ALGORITHMS.includes(algorithm) : stryMutAct_9fa48("1652") ? false : stryMutAct_9fa48("1651") ? true : (stryCov_9fa48("1651", "1652", "1653"), (stryMutAct_9fa48("1655") ? algorithm === undefined : stryMutAct_9fa48("1654") ? true : (stryCov_9fa48("1654", "1655"), algorithm !== undefined)) && (stryMutAct_9fa48("1656") ? DELAY_ALGORITHMS.includes(algorithm) : (stryCov_9fa48("1656"), !DELAY_ALGORITHMS.includes(algorithm))))) {
          if (stryMutAct_9fa48("1657")) {
            {}
          } else {
            stryCov_9fa48("1657");
            const which = Object.hasOwn(obj, stryMutAct_9fa48("1658") ? "" : (stryCov_9fa48("1658"), "algorithm")) ? stryMutAct_9fa48("1659") ? `` : (stryCov_9fa48("1659"), `"${algorithm}"`) : stryMutAct_9fa48("1660") ? `` : (stryCov_9fa48("1660"), `"${algorithm}" (the default)`);
            ctx.d.add(keyPath(path, stryMutAct_9fa48("1662") ? "" : (stryCov_9fa48("1662"), "on_limit")), stryMutAct_9fa48("1663") ? `` : (stryCov_9fa48("1663"), `on_limit "delay" needs an algorithm with future slots (${DELAY_ALGORITHMS.join(stryMutAct_9fa48("1664") ? "" : (stryCov_9fa48("1664"), ", "))}); algorithm ${which} has none — pick one of those, or use on_limit "queue"`));
          }
        }
        return stryMutAct_9fa48("1665") ? {} : (stryCov_9fa48("1665"), {
          onLimit: given,
          maxDelayMs
        });
      }
    }
    // An invalid `on_limit` was already reported; a second error about the delay would be noise.
    const invalidAction = stryMutAct_9fa48("1668") ? Object.hasOwn(obj, "on_limit") || given === undefined : stryMutAct_9fa48("1667") ? false : stryMutAct_9fa48("1666") ? true : (stryCov_9fa48("1666", "1667", "1668"), Object.hasOwn(obj, stryMutAct_9fa48("1669") ? "" : (stryCov_9fa48("1669"), "on_limit")) && (stryMutAct_9fa48("1671") ? given !== undefined : stryMutAct_9fa48("1670") ? true : (stryCov_9fa48("1670", "1671"), given === undefined)));
    if (stryMutAct_9fa48("1674") ? hasDelay || !invalidAction : stryMutAct_9fa48("1673") ? false : stryMutAct_9fa48("1672") ? true : (stryCov_9fa48("1672", "1673", "1674"), hasDelay && (stryMutAct_9fa48("1675") ? invalidAction : (stryCov_9fa48("1675"), !invalidAction)))) {
      if (stryMutAct_9fa48("1676")) {
        {}
      } else {
        stryCov_9fa48("1676");
        ctx.d.add(keyPath(path, stryMutAct_9fa48("1678") ? "" : (stryCov_9fa48("1678"), "max_delay_ms")), stryMutAct_9fa48("1679") ? "" : (stryCov_9fa48("1679"), '"max_delay_ms" is only used when "on_limit" is "delay"'));
      }
    }
    return stryMutAct_9fa48("1680") ? {} : (stryCov_9fa48("1680"), {
      onLimit: stryMutAct_9fa48("1681") ? given && "reject" : (stryCov_9fa48("1681"), given ?? (stryMutAct_9fa48("1682") ? "" : (stryCov_9fa48("1682"), "reject")))
    });
  }
}