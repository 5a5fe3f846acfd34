/**
 * `"rate_limit": { "concurrency": N }`: at most N requests of a key in
 * flight at once (docs/concurrency.md). No window and no algorithm: the
 * counter object holds N slots, each leased to one request until its
 * response ends.
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
import { readInt } from "./fields.ts";
import { BOUNDS } from "./keys.ts";
import { keyPath, type JsonObject } from "./reader.ts";
import type { CompiledLimit } from "./types.ts";

/**
 * Keys of a counting limit that mean nothing beside `concurrency`: it has no
 * window, no algorithm, and a request over it is always refused at once
 * (nobody knows when a slot frees, so it cannot be delayed or queued).
 */
export const NOT_WITH_CONCURRENCY = ["unit", "requests_per_unit", "unit_multiplier", "algorithm", "burst", "persist_ms", "durability", "precount", "on_limit", "max_delay_ms", "count_when"] as const;

/**
 * The limit id of every concurrency limit: the slots of a key stay the same
 * table when the rule's N changes, so requests in flight keep counting.
 */
export const CONCURRENCY_ID = stryMutAct_9fa48("419") ? "" : (stryCov_9fa48("419"), "concurrency");

/**
 * Read a concurrency limit at `path` (the caller saw `concurrency` in `obj`).
 *
 * @example
 * readConcurrency(ctx, { concurrency: 5 }, "$.descriptors[0].rate_limit", "api_key", undefined, []);
 * // { concurrency: 5, limit: 5, name: "api_key:5/in-flight", id: "concurrency", ... }
 */
export function readConcurrency(ctx: DomainContext, obj: JsonObject, path: string, label: string, name: string | undefined, replaces: readonly string[]): CompiledLimit | undefined {
  if (stryMutAct_9fa48("420")) {
    {}
  } else {
    stryCov_9fa48("420");
    for (const key of NOT_WITH_CONCURRENCY) {
      if (stryMutAct_9fa48("421")) {
        {}
      } else {
        stryCov_9fa48("421");
        if (stryMutAct_9fa48("423") ? false : stryMutAct_9fa48("422") ? true : (stryCov_9fa48("422", "423"), Object.hasOwn(obj, key))) ctx.d.add(keyPath(path, key), stryMutAct_9fa48("425") ? `` : (stryCov_9fa48("425"), `"${key}" must not be set beside "concurrency" (a concurrency limit has no window or algorithm)`));
      }
    }
    const n = readInt(ctx.d, obj, stryMutAct_9fa48("426") ? "" : (stryCov_9fa48("426"), "concurrency"), path, 1, BOUNDS.maxCount);
    if (stryMutAct_9fa48("429") ? n !== undefined : stryMutAct_9fa48("428") ? false : stryMutAct_9fa48("427") ? true : (stryCov_9fa48("427", "428", "429"), n === undefined)) return undefined;
    stryMutAct_9fa48("430") ? ctx.counts.limits -= 1 : (stryCov_9fa48("430"), ctx.counts.limits += 1);
    return Object.freeze(stryMutAct_9fa48("431") ? {} : (stryCov_9fa48("431"), {
      concurrency: n,
      // The window fields only feed headers and messages: Retry-After is 1 s, as a slot may free any moment.
      limit: n,
      windowMs: 1000,
      burst: n,
      id: CONCURRENCY_ID,
      name: stryMutAct_9fa48("432") ? name && `${label}:${n}/in-flight` : (stryCov_9fa48("432"), name ?? (stryMutAct_9fa48("433") ? `` : (stryCov_9fa48("433"), `${label}:${n}/in-flight`))),
      named: stryMutAct_9fa48("436") ? name === undefined : stryMutAct_9fa48("435") ? false : stryMutAct_9fa48("434") ? true : (stryCov_9fa48("434", "435", "436"), name !== undefined),
      replaces,
      unit: stryMutAct_9fa48("437") ? "" : (stryCov_9fa48("437"), "second"),
      unitMultiplier: 1,
      requestsPerUnit: n,
      algorithm: stryMutAct_9fa48("438") ? "" : (stryCov_9fa48("438"), "fixed_window"),
      onLimit: stryMutAct_9fa48("439") ? "" : (stryCov_9fa48("439"), "reject")
    }));
  }
}

/**
 * A node holding a concurrency limit may not also delay or queue: both take
 * their slot at a later time, a concurrency slot is taken now.
 *
 * @example
 * checkConcurrencyMix(ctx, limits, "$.descriptors[0].rate_limits");
 */
export function checkConcurrencyMix(ctx: DomainContext, limits: readonly CompiledLimit[], path: string): void {
  if (stryMutAct_9fa48("440")) {
    {}
  } else {
    stryCov_9fa48("440");
    if (stryMutAct_9fa48("443") ? false : stryMutAct_9fa48("442") ? true : stryMutAct_9fa48("441") ? limits.some(limit => limit.concurrency !== undefined) : (stryCov_9fa48("441", "442", "443"), !(stryMutAct_9fa48("444") ? limits.every(limit => limit.concurrency !== undefined) : (stryCov_9fa48("444"), limits.some(stryMutAct_9fa48("445") ? () => undefined : (stryCov_9fa48("445"), limit => stryMutAct_9fa48("448") ? limit.concurrency === undefined : stryMutAct_9fa48("447") ? false : stryMutAct_9fa48("446") ? true : (stryCov_9fa48("446", "447", "448"), limit.concurrency !== undefined))))))) return;
    const waiting = limits.find(stryMutAct_9fa48("449") ? () => undefined : (stryCov_9fa48("449"), limit => stryMutAct_9fa48("452") ? limit.onLimit === "delay" && limit.onLimit === "queue" : stryMutAct_9fa48("451") ? false : stryMutAct_9fa48("450") ? true : (stryCov_9fa48("450", "451", "452"), (stryMutAct_9fa48("454") ? limit.onLimit !== "delay" : stryMutAct_9fa48("453") ? false : (stryCov_9fa48("453", "454"), limit.onLimit === (stryMutAct_9fa48("455") ? "" : (stryCov_9fa48("455"), "delay")))) || (stryMutAct_9fa48("457") ? limit.onLimit !== "queue" : stryMutAct_9fa48("456") ? false : (stryCov_9fa48("456", "457"), limit.onLimit === (stryMutAct_9fa48("458") ? "" : (stryCov_9fa48("458"), "queue")))))));
    if (stryMutAct_9fa48("461") ? waiting === undefined : stryMutAct_9fa48("460") ? false : stryMutAct_9fa48("459") ? true : (stryCov_9fa48("459", "460", "461"), waiting !== undefined)) {
      if (stryMutAct_9fa48("462")) {
        {}
      } else {
        stryCov_9fa48("462");
        ctx.d.add(path, stryMutAct_9fa48("464") ? `` : (stryCov_9fa48("464"), `a concurrency limit cannot share a node with on_limit "${waiting.onLimit}" limits (a request takes its slot now, not later)`));
      }
    }
  }
}