/**
 * Envoy's `quota_mode` and `share_threshold` on a descriptor node
 * (docs/rules.md, "quota_mode" and "share_threshold").
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
import { parsePrefix } from "./cidr.ts";
import { isRangeValue } from "./cidr-values.ts";
import { readBool } from "./fields.ts";
import { isGlob } from "./glob.ts";
import { type Diagnostics, type JsonObject, keyPath } from "./reader.ts";

/**
 * A node's Envoy `quota_mode` and `share_threshold` (docs/rules.md). As in
 * envoyproxy/ratelimit, `share_threshold` needs a value that matches many
 * (a wildcard; here an address range too), or there is nothing to share.
 *
 * @example
 * readEnvoyModes(d, { value: "files/*", share_threshold: true }, "$.descriptors[0]", "files", "files/*"); // { quotaMode: false, shareThreshold: true }
 */
export function readEnvoyModes(d: Diagnostics, obj: JsonObject, path: string, key: string | undefined, value: string | undefined): {
  quotaMode: boolean;
  shareThreshold: boolean;
} {
  if (stryMutAct_9fa48("831")) {
    {}
  } else {
    stryCov_9fa48("831");
    const quotaMode = stryMutAct_9fa48("832") ? readBool(d, obj, "quota_mode", path) && false : (stryCov_9fa48("832"), readBool(d, obj, stryMutAct_9fa48("833") ? "" : (stryCov_9fa48("833"), "quota_mode"), path) ?? (stryMutAct_9fa48("834") ? true : (stryCov_9fa48("834"), false)));
    const shareThreshold = stryMutAct_9fa48("835") ? readBool(d, obj, "share_threshold", path) && false : (stryCov_9fa48("835"), readBool(d, obj, stryMutAct_9fa48("836") ? "" : (stryCov_9fa48("836"), "share_threshold"), path) ?? (stryMutAct_9fa48("837") ? true : (stryCov_9fa48("837"), false)));
    const many = stryMutAct_9fa48("840") ? value !== undefined || isGlob(value) || key !== undefined && isRangeValue(key, value) && !isSingleAddress(value) : stryMutAct_9fa48("839") ? false : stryMutAct_9fa48("838") ? true : (stryCov_9fa48("838", "839", "840"), (stryMutAct_9fa48("842") ? value === undefined : stryMutAct_9fa48("841") ? true : (stryCov_9fa48("841", "842"), value !== undefined)) && (stryMutAct_9fa48("844") ? isGlob(value) && key !== undefined && isRangeValue(key, value) && !isSingleAddress(value) : stryMutAct_9fa48("843") ? true : (stryCov_9fa48("843", "844"), isGlob(value) || (stryMutAct_9fa48("846") ? key !== undefined && isRangeValue(key, value) || !isSingleAddress(value) : stryMutAct_9fa48("845") ? false : (stryCov_9fa48("845", "846"), (stryMutAct_9fa48("848") ? key !== undefined || isRangeValue(key, value) : stryMutAct_9fa48("847") ? true : (stryCov_9fa48("847", "848"), (stryMutAct_9fa48("850") ? key === undefined : stryMutAct_9fa48("849") ? true : (stryCov_9fa48("849", "850"), key !== undefined)) && isRangeValue(key, value))) && (stryMutAct_9fa48("851") ? isSingleAddress(value) : (stryCov_9fa48("851"), !isSingleAddress(value))))))));
    if (stryMutAct_9fa48("854") ? shareThreshold && value !== undefined || !many : stryMutAct_9fa48("853") ? false : stryMutAct_9fa48("852") ? true : (stryCov_9fa48("852", "853", "854"), (stryMutAct_9fa48("856") ? shareThreshold || value !== undefined : stryMutAct_9fa48("855") ? true : (stryCov_9fa48("855", "856"), shareThreshold && (stryMutAct_9fa48("858") ? value === undefined : stryMutAct_9fa48("857") ? true : (stryCov_9fa48("857", "858"), value !== undefined)))) && (stryMutAct_9fa48("859") ? many : (stryCov_9fa48("859"), !many)))) {
      if (stryMutAct_9fa48("860")) {
        {}
      } else {
        stryCov_9fa48("860");
        d.add(keyPath(path, stryMutAct_9fa48("862") ? "" : (stryCov_9fa48("862"), "share_threshold")), stryMutAct_9fa48("863") ? `` : (stryCov_9fa48("863"), `only applies to a wildcard value (containing "*") or an address range; ${JSON.stringify(value)} matches one value`));
      }
    } else if (stryMutAct_9fa48("866") ? shareThreshold || value === undefined : stryMutAct_9fa48("865") ? false : stryMutAct_9fa48("864") ? true : (stryCov_9fa48("864", "865", "866"), shareThreshold && (stryMutAct_9fa48("868") ? value !== undefined : stryMutAct_9fa48("867") ? true : (stryCov_9fa48("867", "868"), value === undefined)))) {
      if (stryMutAct_9fa48("869")) {
        {}
      } else {
        stryCov_9fa48("869");
        d.add(keyPath(path, stryMutAct_9fa48("871") ? "" : (stryCov_9fa48("871"), "share_threshold")), stryMutAct_9fa48("872") ? "" : (stryCov_9fa48("872"), 'only applies to a wildcard value (containing "*") or an address range; this node has no "value"'));
      }
    }
    return stryMutAct_9fa48("873") ? {} : (stryCov_9fa48("873"), {
      quotaMode,
      shareThreshold: stryMutAct_9fa48("876") ? shareThreshold || many : stryMutAct_9fa48("875") ? false : stryMutAct_9fa48("874") ? true : (stryCov_9fa48("874", "875", "876"), shareThreshold && many)
    });
  }
}
function isSingleAddress(value: string): boolean {
  if (stryMutAct_9fa48("877")) {
    {}
  } else {
    stryCov_9fa48("877");
    const prefix = parsePrefix(value);
    return stryMutAct_9fa48("880") ? prefix !== undefined || prefix.length === (prefix.family === 4 ? 32 : 128) : stryMutAct_9fa48("879") ? false : stryMutAct_9fa48("878") ? true : (stryCov_9fa48("878", "879", "880"), (stryMutAct_9fa48("882") ? prefix === undefined : stryMutAct_9fa48("881") ? true : (stryCov_9fa48("881", "882"), prefix !== undefined)) && (stryMutAct_9fa48("884") ? prefix.length !== (prefix.family === 4 ? 32 : 128) : stryMutAct_9fa48("883") ? true : (stryCov_9fa48("883", "884"), prefix.length === ((stryMutAct_9fa48("887") ? prefix.family !== 4 : stryMutAct_9fa48("886") ? false : stryMutAct_9fa48("885") ? true : (stryCov_9fa48("885", "886", "887"), prefix.family === 4)) ? 32 : 128))));
  }
}