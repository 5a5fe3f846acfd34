/**
 * `count_when` inside a rate limit (docs/response-limits.md): which origin
 * responses are charged. `{"status": [401, 403, "5xx", "500-504"]}`.
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
import { requireKey } from "./fields.ts";
import { asArray, asObject, checkKeys, indexPath, type JsonObject, jsonType, keyPath } from "./reader.ts";
import type { CountWhen } from "./types.ts";
const CLASS = stryMutAct_9fa48("471") ? /^([^1-5])xx$/i : stryMutAct_9fa48("470") ? /^([1-5])xx/i : stryMutAct_9fa48("469") ? /([1-5])xx$/i : (stryCov_9fa48("469", "470", "471"), /^([1-5])xx$/i);
const RANGE = stryMutAct_9fa48("477") ? /^(\d{3})-(\D{3})$/ : stryMutAct_9fa48("476") ? /^(\d{3})-(\d)$/ : stryMutAct_9fa48("475") ? /^(\D{3})-(\d{3})$/ : stryMutAct_9fa48("474") ? /^(\d)-(\d{3})$/ : stryMutAct_9fa48("473") ? /^(\d{3})-(\d{3})/ : stryMutAct_9fa48("472") ? /(\d{3})-(\d{3})$/ : (stryCov_9fa48("472", "473", "474", "475", "476", "477"), /^(\d{3})-(\d{3})$/);
const STATUS = {
  min: 100,
  max: 599
} as const;
const isStatus = stryMutAct_9fa48("478") ? () => undefined : (stryCov_9fa48("478"), (() => {
  const isStatus = (n: number) => stryMutAct_9fa48("481") ? Number.isInteger(n) && n >= STATUS.min || n <= STATUS.max : stryMutAct_9fa48("480") ? false : stryMutAct_9fa48("479") ? true : (stryCov_9fa48("479", "480", "481"), (stryMutAct_9fa48("483") ? Number.isInteger(n) || n >= STATUS.min : stryMutAct_9fa48("482") ? true : (stryCov_9fa48("482", "483"), Number.isInteger(n) && (stryMutAct_9fa48("486") ? n < STATUS.min : stryMutAct_9fa48("485") ? n > STATUS.min : stryMutAct_9fa48("484") ? true : (stryCov_9fa48("484", "485", "486"), n >= STATUS.min)))) && (stryMutAct_9fa48("489") ? n > STATUS.max : stryMutAct_9fa48("488") ? n < STATUS.max : stryMutAct_9fa48("487") ? true : (stryCov_9fa48("487", "488", "489"), n <= STATUS.max)));
  return isStatus;
})());

/**
 * Whether a response with `status` is charged under `countWhen`.
 *
 * @example
 * countsStatus({ status: [[401, 401], [500, 599]] }, 503); // true
 * countsStatus({ status: [[401, 401]] }, 200);             // false
 */
export function countsStatus(countWhen: CountWhen, status: number): boolean {
  if (stryMutAct_9fa48("490")) {
    {}
  } else {
    stryCov_9fa48("490");
    return stryMutAct_9fa48("491") ? countWhen.status.every(([lo, hi]) => status >= lo && status <= hi) : (stryCov_9fa48("491"), countWhen.status.some(stryMutAct_9fa48("492") ? () => undefined : (stryCov_9fa48("492"), ([lo, hi]) => stryMutAct_9fa48("495") ? status >= lo || status <= hi : stryMutAct_9fa48("494") ? false : stryMutAct_9fa48("493") ? true : (stryCov_9fa48("493", "494", "495"), (stryMutAct_9fa48("498") ? status < lo : stryMutAct_9fa48("497") ? status > lo : stryMutAct_9fa48("496") ? true : (stryCov_9fa48("496", "497", "498"), status >= lo)) && (stryMutAct_9fa48("501") ? status > hi : stryMutAct_9fa48("500") ? status < hi : stryMutAct_9fa48("499") ? true : (stryCov_9fa48("499", "500", "501"), status <= hi))))));
  }
}

/**
 * Read `count_when` of the rate limit `obj` at `path`; undefined when absent
 * or invalid (errors recorded with their JSON paths).
 *
 * @example
 * readCountWhen(ctx, { count_when: { status: [401, "5xx"] } }, "$.descriptors[0].rate_limit");
 * // { status: [[401, 401], [500, 599]] }
 */
export function readCountWhen(ctx: DomainContext, obj: JsonObject, path: string): CountWhen | undefined {
  if (stryMutAct_9fa48("502")) {
    {}
  } else {
    stryCov_9fa48("502");
    if (stryMutAct_9fa48("505") ? false : stryMutAct_9fa48("504") ? true : stryMutAct_9fa48("503") ? Object.hasOwn(obj, "count_when") : (stryCov_9fa48("503", "504", "505"), !Object.hasOwn(obj, stryMutAct_9fa48("506") ? "" : (stryCov_9fa48("506"), "count_when")))) return undefined;
    const at = keyPath(path, stryMutAct_9fa48("507") ? "" : (stryCov_9fa48("507"), "count_when"));
    const spec = asObject(ctx.d, obj.count_when, at);
    if (stryMutAct_9fa48("510") ? spec !== undefined : stryMutAct_9fa48("509") ? false : stryMutAct_9fa48("508") ? true : (stryCov_9fa48("508", "509", "510"), spec === undefined)) return undefined;
    checkKeys(ctx.d, spec, at, stryMutAct_9fa48("512") ? "" : (stryCov_9fa48("512"), "countWhen"));
    if (stryMutAct_9fa48("515") ? false : stryMutAct_9fa48("514") ? true : stryMutAct_9fa48("513") ? requireKey(ctx.d, spec, "status", at) : (stryCov_9fa48("513", "514", "515"), !requireKey(ctx.d, spec, stryMutAct_9fa48("516") ? "" : (stryCov_9fa48("516"), "status"), at))) return undefined;
    const list = asArray(ctx.d, spec.status, keyPath(at, stryMutAct_9fa48("517") ? "" : (stryCov_9fa48("517"), "status")));
    if (stryMutAct_9fa48("520") ? list !== undefined : stryMutAct_9fa48("519") ? false : stryMutAct_9fa48("518") ? true : (stryCov_9fa48("518", "519", "520"), list === undefined)) return undefined;
    if (stryMutAct_9fa48("523") ? list.length !== 0 : stryMutAct_9fa48("522") ? false : stryMutAct_9fa48("521") ? true : (stryCov_9fa48("521", "522", "523"), list.length === 0)) ctx.d.add(keyPath(at, stryMutAct_9fa48("525") ? "" : (stryCov_9fa48("525"), "status")), stryMutAct_9fa48("526") ? "" : (stryCov_9fa48("526"), 'must list at least one status, class ("4xx") or range ("500-599")'));
    const ranges: [number, number][] = stryMutAct_9fa48("527") ? ["Stryker was here"] : (stryCov_9fa48("527"), []);
    const before = ctx.d.errors.length;
    list.forEach((item, i) => {
      if (stryMutAct_9fa48("529")) {
        {}
      } else {
        stryCov_9fa48("529");
        const range = readStatus(item);
        if (stryMutAct_9fa48("532") ? typeof range !== "string" : stryMutAct_9fa48("531") ? false : stryMutAct_9fa48("530") ? true : (stryCov_9fa48("530", "531", "532"), typeof range === (stryMutAct_9fa48("533") ? "" : (stryCov_9fa48("533"), "string")))) ctx.d.add(indexPath(keyPath(at, stryMutAct_9fa48("535") ? "" : (stryCov_9fa48("535"), "status")), i), range);else if (stryMutAct_9fa48("536")) {
          ;
        } else {
          stryCov_9fa48("536");
          ranges.push(range);
        }
      }
    });
    if (stryMutAct_9fa48("539") ? ctx.d.errors.length > before && ranges.length === 0 : stryMutAct_9fa48("538") ? false : stryMutAct_9fa48("537") ? true : (stryCov_9fa48("537", "538", "539"), (stryMutAct_9fa48("542") ? ctx.d.errors.length <= before : stryMutAct_9fa48("541") ? ctx.d.errors.length >= before : stryMutAct_9fa48("540") ? false : (stryCov_9fa48("540", "541", "542"), ctx.d.errors.length > before)) || (stryMutAct_9fa48("544") ? ranges.length !== 0 : stryMutAct_9fa48("543") ? false : (stryCov_9fa48("543", "544"), ranges.length === 0)))) return undefined;
    return Object.freeze(stryMutAct_9fa48("545") ? {} : (stryCov_9fa48("545"), {
      status: Object.freeze(ranges.map(stryMutAct_9fa48("546") ? () => undefined : (stryCov_9fa48("546"), r => Object.freeze(r))))
    }));
  }
}

// A range, or the message saying why `item` is none.
function readStatus(item: unknown): [number, number] | string {
  if (stryMutAct_9fa48("547")) {
    {}
  } else {
    stryCov_9fa48("547");
    if (stryMutAct_9fa48("550") ? typeof item !== "number" : stryMutAct_9fa48("549") ? false : stryMutAct_9fa48("548") ? true : (stryCov_9fa48("548", "549", "550"), typeof item === (stryMutAct_9fa48("551") ? "" : (stryCov_9fa48("551"), "number")))) return isStatus(item) ? stryMutAct_9fa48("552") ? [] : (stryCov_9fa48("552"), [item, item]) : stryMutAct_9fa48("553") ? `` : (stryCov_9fa48("553"), `status ${item} is not an HTTP status (${STATUS.min}–${STATUS.max})`);
    if (stryMutAct_9fa48("556") ? typeof item === "string" : stryMutAct_9fa48("555") ? false : stryMutAct_9fa48("554") ? true : (stryCov_9fa48("554", "555", "556"), typeof item !== (stryMutAct_9fa48("557") ? "" : (stryCov_9fa48("557"), "string")))) return stryMutAct_9fa48("558") ? `` : (stryCov_9fa48("558"), `expected a status (401), class ("4xx") or range ("500-599"), got ${jsonType(item)}`);
    const cls = CLASS.exec(item);
    if (stryMutAct_9fa48("560") ? false : stryMutAct_9fa48("559") ? true : (stryCov_9fa48("559", "560"), cls)) return stryMutAct_9fa48("561") ? [] : (stryCov_9fa48("561"), [stryMutAct_9fa48("562") ? Number(cls[1]) / 100 : (stryCov_9fa48("562"), Number(cls[1]) * 100), stryMutAct_9fa48("563") ? Number(cls[1]) * 100 - 99 : (stryCov_9fa48("563"), (stryMutAct_9fa48("564") ? Number(cls[1]) / 100 : (stryCov_9fa48("564"), Number(cls[1]) * 100)) + 99)]);
    const range = RANGE.exec(item);
    if (stryMutAct_9fa48("566") ? false : stryMutAct_9fa48("565") ? true : (stryCov_9fa48("565", "566"), range)) {
      if (stryMutAct_9fa48("567")) {
        {}
      } else {
        stryCov_9fa48("567");
        const lo = Number(range[1]);
        const hi = Number(range[2]);
        if (stryMutAct_9fa48("570") ? isStatus(lo) && isStatus(hi) || lo <= hi : stryMutAct_9fa48("569") ? false : stryMutAct_9fa48("568") ? true : (stryCov_9fa48("568", "569", "570"), (stryMutAct_9fa48("572") ? isStatus(lo) || isStatus(hi) : stryMutAct_9fa48("571") ? true : (stryCov_9fa48("571", "572"), isStatus(lo) && isStatus(hi))) && (stryMutAct_9fa48("575") ? lo > hi : stryMutAct_9fa48("574") ? lo < hi : stryMutAct_9fa48("573") ? true : (stryCov_9fa48("573", "574", "575"), lo <= hi)))) return stryMutAct_9fa48("576") ? [] : (stryCov_9fa48("576"), [lo, hi]);
        return stryMutAct_9fa48("577") ? `` : (stryCov_9fa48("577"), `range ${JSON.stringify(item)} must run from a lower to a higher status within ${STATUS.min}–${STATUS.max}`);
      }
    }
    return stryMutAct_9fa48("578") ? `` : (stryCov_9fa48("578"), `${JSON.stringify(item)} is not a status (401), class ("4xx") or range ("500-599")`);
  }
}