/**
 * `persist_ms` and `durability` of a rate limit: how soon a change of a
 * counter that outlives a restart reaches storage (docs/reliability.md, "Durability").
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
import { readEnum, readInt } from "./fields.ts";
import { DURABILITIES, DURABLE_WINDOW_MS, PERSIST_MS } from "./keys.ts";
import { type Diagnostics, type JsonObject, keyPath } from "./reader.ts";

/**
 * The limit's durability fields, validated: `{}` for the defaults,
 * `{ persistMs }` for another checkpoint delay, `{ strict: true }` for
 * write-through. Both apply only to windows of a minute or longer; shorter
 * windows are never stored, so setting either there is an error rather than
 * a promise the limiter would not keep.
 *
 * @example
 * readDurability(d, { unit: "day", durability: "strict" }, "$.rate_limit", 86_400_000); // { strict: true }
 */
export function readDurability(d: Diagnostics, obj: JsonObject, path: string, windowMs: number): {
  persistMs?: number;
  strict?: true;
} {
  if (stryMutAct_9fa48("791")) {
    {}
  } else {
    stryCov_9fa48("791");
    const persistMs = readInt(d, obj, stryMutAct_9fa48("792") ? "" : (stryCov_9fa48("792"), "persist_ms"), path, 1, PERSIST_MS.max);
    const durability = Object.hasOwn(obj, stryMutAct_9fa48("793") ? "" : (stryCov_9fa48("793"), "durability")) ? readEnum(d, obj, stryMutAct_9fa48("794") ? "" : (stryCov_9fa48("794"), "durability"), path, DURABILITIES, stryMutAct_9fa48("795") ? "" : (stryCov_9fa48("795"), "durability")) : undefined;
    if (stryMutAct_9fa48("799") ? windowMs >= DURABLE_WINDOW_MS : stryMutAct_9fa48("798") ? windowMs <= DURABLE_WINDOW_MS : stryMutAct_9fa48("797") ? false : stryMutAct_9fa48("796") ? true : (stryCov_9fa48("796", "797", "798", "799"), windowMs < DURABLE_WINDOW_MS)) {
      if (stryMutAct_9fa48("800")) {
        {}
      } else {
        stryCov_9fa48("800");
        for (const key of stryMutAct_9fa48("801") ? [] : (stryCov_9fa48("801"), [stryMutAct_9fa48("802") ? "" : (stryCov_9fa48("802"), "persist_ms"), stryMutAct_9fa48("803") ? "" : (stryCov_9fa48("803"), "durability")])) {
          if (stryMutAct_9fa48("804")) {
            {}
          } else {
            stryCov_9fa48("804");
            if (stryMutAct_9fa48("806") ? false : stryMutAct_9fa48("805") ? true : (stryCov_9fa48("805", "806"), Object.hasOwn(obj, key))) {
              if (stryMutAct_9fa48("807")) {
                {}
              } else {
                stryCov_9fa48("807");
                d.add(keyPath(path, key), stryMutAct_9fa48("809") ? `` : (stryCov_9fa48("809"), `"${key}" applies only to windows of a minute or longer; shorter windows are kept in memory only and never stored`));
              }
            }
          }
        }
        return {};
      }
    }
    if (stryMutAct_9fa48("812") ? durability !== "strict" : stryMutAct_9fa48("811") ? false : stryMutAct_9fa48("810") ? true : (stryCov_9fa48("810", "811", "812"), durability === (stryMutAct_9fa48("813") ? "" : (stryCov_9fa48("813"), "strict")))) {
      if (stryMutAct_9fa48("814")) {
        {}
      } else {
        stryCov_9fa48("814");
        if (stryMutAct_9fa48("816") ? false : stryMutAct_9fa48("815") ? true : (stryCov_9fa48("815", "816"), Object.hasOwn(obj, stryMutAct_9fa48("817") ? "" : (stryCov_9fa48("817"), "persist_ms")))) d.add(keyPath(path, stryMutAct_9fa48("819") ? "" : (stryCov_9fa48("819"), "persist_ms")), stryMutAct_9fa48("820") ? "" : (stryCov_9fa48("820"), '"persist_ms" does not apply with durability "strict": every change is written before its answer'));
        return stryMutAct_9fa48("821") ? {} : (stryCov_9fa48("821"), {
          strict: stryMutAct_9fa48("822") ? false : (stryCov_9fa48("822"), true)
        });
      }
    }
    return (stryMutAct_9fa48("825") ? persistMs !== undefined || persistMs !== PERSIST_MS.default : stryMutAct_9fa48("824") ? false : stryMutAct_9fa48("823") ? true : (stryCov_9fa48("823", "824", "825"), (stryMutAct_9fa48("827") ? persistMs === undefined : stryMutAct_9fa48("826") ? true : (stryCov_9fa48("826", "827"), persistMs !== undefined)) && (stryMutAct_9fa48("829") ? persistMs === PERSIST_MS.default : stryMutAct_9fa48("828") ? true : (stryCov_9fa48("828", "829"), persistMs !== PERSIST_MS.default)))) ? stryMutAct_9fa48("830") ? {} : (stryCov_9fa48("830"), {
      persistMs
    }) : {};
  }
}