/**
 * The rules each isolate decides with: the last version it learned from the
 * RulesObject, else the bundled rules. Requests use the cached compiled
 * rules; the version is re-checked in the background (ctx.waitUntil) once
 * it is REFRESH_AFTER_MS old. Only a fresh isolate, or one idle past
 * MAX_AGE_MS, waits for the check, so every isolate applies an upload
 * within MAX_AGE_MS plus one RPC. An unreachable RulesObject never fails a
 * request: the last good rules stay in force.
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
import type { RulesRecord } from "./rules-object.ts";
import type { Env } from "../config.ts";
import type { Defer } from "../http/defer.ts";
import { compileRulesText } from "./index.ts";
import type { CompiledRules } from "./types.ts";

/** Age from which a request triggers a background version check. */
export const REFRESH_AFTER_MS = 4_000;
/** Age from which a request waits for the check (bounds propagation at ~8 s). */
export const MAX_AGE_MS = 8_000;

/** The rules in force on this isolate, and where they came from. */
export interface RulesState {
  readonly rules: CompiledRules;
  readonly version: number;
  readonly source: "stored" | "bundled";
  readonly updatedAt?: string;
}
export interface LiveRulesOptions {
  /** The RulesObject to follow; default "global". Tests use their own. */
  readonly objectName?: string;
  /** The bundled rules document, shown by `GET /__ratelimit/rules` while no upload is in force. */
  readonly bundledJson?: unknown;
  /** Override REFRESH_AFTER_MS / MAX_AGE_MS (tests use 0 to see a poll happen at once). */
  readonly refreshAfterMs?: number;
  readonly maxAgeMs?: number;
}

/**
 * Rules that follow `PUT /__ratelimit/rules` on every isolate.
 *
 * @example
 * const live = new LiveRules(bundledRules, { bundledJson: rulesJson });
 * const rules = await live.current(env, 1000, (p) => ctx.waitUntil(p));
 */
export class LiveRules {
  readonly objectName: string;
  readonly bundledJson: unknown;
  private readonly bundled: () => CompiledRules;
  private readonly refreshAfterMs: number;
  private readonly maxAgeMs: number;
  private state?: RulesState;
  private checkedAt = 0;
  private checking?: Promise<void>;
  constructor(bundled: () => CompiledRules, options: LiveRulesOptions = {}) {
    if (stryMutAct_9fa48("1859")) {
      {}
    } else {
      stryCov_9fa48("1859");
      this.bundled = bundled;
      this.objectName = stryMutAct_9fa48("1860") ? options.objectName && "global" : (stryCov_9fa48("1860"), options.objectName ?? (stryMutAct_9fa48("1861") ? "" : (stryCov_9fa48("1861"), "global")));
      this.bundledJson = options.bundledJson;
      this.refreshAfterMs = stryMutAct_9fa48("1862") ? options.refreshAfterMs && REFRESH_AFTER_MS : (stryCov_9fa48("1862"), options.refreshAfterMs ?? REFRESH_AFTER_MS);
      this.maxAgeMs = stryMutAct_9fa48("1863") ? options.maxAgeMs && MAX_AGE_MS : (stryCov_9fa48("1863"), options.maxAgeMs ?? MAX_AGE_MS);
    }
  }

  /**
   * The rules to decide this request with. Synchronous on the hot path; a
   * promise only when this isolate must wait for a check (first request, or
   * idle past MAX_AGE_MS), bounded by `timeoutMs`.
   *
   * @example
   * const rules = await live.current(env, 1000, defer);
   */
  current(env: Env, timeoutMs: number, defer: Defer): CompiledRules | Promise<CompiledRules> {
    if (stryMutAct_9fa48("1864")) {
      {}
    } else {
      stryCov_9fa48("1864");
      const age = stryMutAct_9fa48("1865") ? Date.now() + this.checkedAt : (stryCov_9fa48("1865"), Date.now() - this.checkedAt);
      if (stryMutAct_9fa48("1868") ? this.state !== undefined || age < this.refreshAfterMs : stryMutAct_9fa48("1867") ? false : stryMutAct_9fa48("1866") ? true : (stryCov_9fa48("1866", "1867", "1868"), (stryMutAct_9fa48("1870") ? this.state === undefined : stryMutAct_9fa48("1869") ? true : (stryCov_9fa48("1869", "1870"), this.state !== undefined)) && (stryMutAct_9fa48("1873") ? age >= this.refreshAfterMs : stryMutAct_9fa48("1872") ? age <= this.refreshAfterMs : stryMutAct_9fa48("1871") ? true : (stryCov_9fa48("1871", "1872", "1873"), age < this.refreshAfterMs)))) return this.state.rules;
      if (stryMutAct_9fa48("1876") ? this.state !== undefined || age < this.maxAgeMs : stryMutAct_9fa48("1875") ? false : stryMutAct_9fa48("1874") ? true : (stryCov_9fa48("1874", "1875", "1876"), (stryMutAct_9fa48("1878") ? this.state === undefined : stryMutAct_9fa48("1877") ? true : (stryCov_9fa48("1877", "1878"), this.state !== undefined)) && (stryMutAct_9fa48("1881") ? age >= this.maxAgeMs : stryMutAct_9fa48("1880") ? age <= this.maxAgeMs : stryMutAct_9fa48("1879") ? true : (stryCov_9fa48("1879", "1880", "1881"), age < this.maxAgeMs)))) {
        if (stryMutAct_9fa48("1882")) {
          {}
        } else {
          stryCov_9fa48("1882");
          // One request checks in the background, kept alive by its own waitUntil; the others do not hand that
          // request's promise to theirs (Workers drop continuations queued across requests).
          if (stryMutAct_9fa48("1885") ? this.checking !== undefined : stryMutAct_9fa48("1884") ? false : stryMutAct_9fa48("1883") ? true : (stryCov_9fa48("1883", "1884", "1885"), this.checking === undefined)) if (stryMutAct_9fa48("1886")) {
            ;
          } else {
            stryCov_9fa48("1886");
            defer(this.check(env));
          }
          return this.state.rules;
        }
      }
      return this.waitForCheck(env, timeoutMs, defer).then(stryMutAct_9fa48("1887") ? () => undefined : (stryCov_9fa48("1887"), state => state.rules));
    }
  }

  /**
   * The full state after making sure it is current (for `GET /__ratelimit/rules`).
   *
   * @example
   * const { version, source } = await live.fresh(env, 1000, defer);
   */
  async fresh(env: Env, timeoutMs: number, defer: Defer): Promise<RulesState> {
    if (stryMutAct_9fa48("1888")) {
      {}
    } else {
      stryCov_9fa48("1888");
      this.checkedAt = 0;
      return this.waitForCheck(env, timeoutMs, defer);
    }
  }

  /**
   * Apply a version this isolate just stored, without waiting for a poll.
   *
   * @example
   * live.accept({ rules, version: 4, source: "stored" });
   */
  accept(state: RulesState): void {
    if (stryMutAct_9fa48("1889")) {
      {}
    } else {
      stryCov_9fa48("1889");
      if (stryMutAct_9fa48("1892") ? this.state === undefined && state.version > this.state.version : stryMutAct_9fa48("1891") ? false : stryMutAct_9fa48("1890") ? true : (stryCov_9fa48("1890", "1891", "1892"), (stryMutAct_9fa48("1894") ? this.state !== undefined : stryMutAct_9fa48("1893") ? false : (stryCov_9fa48("1893", "1894"), this.state === undefined)) || (stryMutAct_9fa48("1897") ? state.version <= this.state.version : stryMutAct_9fa48("1896") ? state.version >= this.state.version : stryMutAct_9fa48("1895") ? false : (stryCov_9fa48("1895", "1896", "1897"), state.version > this.state.version)))) this.state = state;
      this.checkedAt = Date.now();
    }
  }

  /**
   * The bundled rules as a state of version `version`.
   *
   * @example
   * live.accept(live.bundledState(5)); // after DELETE /__ratelimit/rules
   */
  bundledState(version: number, updatedAt?: string): RulesState {
    if (stryMutAct_9fa48("1898")) {
      {}
    } else {
      stryCov_9fa48("1898");
      return stryMutAct_9fa48("1899") ? {} : (stryCov_9fa48("1899"), {
        rules: this.bundled(),
        version,
        source: stryMutAct_9fa48("1900") ? "" : (stryCov_9fa48("1900"), "bundled"),
        ...(updatedAt ? stryMutAct_9fa48("1901") ? {} : (stryCov_9fa48("1901"), {
          updatedAt
        }) : {})
      });
    }
  }
  private async waitForCheck(env: Env, timeoutMs: number, defer: Defer): Promise<RulesState> {
    if (stryMutAct_9fa48("1902")) {
      {}
    } else {
      stryCov_9fa48("1902");
      // A check of this request's own (only a fresh or long-idle isolate waits, so a few concurrent polls at
      // most): waiting on another request's would tie this one to a promise that request settles.
      const check = this.poll(env);
      // The check goes on in the background even if this request stops waiting.
      if (stryMutAct_9fa48("1903")) {
        ;
      } else {
        stryCov_9fa48("1903");
        defer(check);
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<"timeout">(resolve => {
        if (stryMutAct_9fa48("1904")) {
          {}
        } else {
          stryCov_9fa48("1904");
          timer = setTimeout(stryMutAct_9fa48("1905") ? () => undefined : (stryCov_9fa48("1905"), () => resolve(stryMutAct_9fa48("1906") ? "" : (stryCov_9fa48("1906"), "timeout"))), timeoutMs);
        }
      });
      const outcome = await Promise.race(stryMutAct_9fa48("1907") ? [] : (stryCov_9fa48("1907"), [check, timeout]));
      if (stryMutAct_9fa48("1910") ? timer === undefined : stryMutAct_9fa48("1909") ? false : stryMutAct_9fa48("1908") ? true : (stryCov_9fa48("1908", "1909", "1910"), timer !== undefined)) if (stryMutAct_9fa48("1911")) {
        ;
      } else {
        stryCov_9fa48("1911");
        clearTimeout(timer);
      }
      // A hung object must not make every request wait: count the wait as a check, the poll goes on in the background.
      if (stryMutAct_9fa48("1914") ? outcome !== "timeout" : stryMutAct_9fa48("1913") ? false : stryMutAct_9fa48("1912") ? true : (stryCov_9fa48("1912", "1913", "1914"), outcome === (stryMutAct_9fa48("1915") ? "" : (stryCov_9fa48("1915"), "timeout")))) this.checkedAt = Date.now();
      return stryMutAct_9fa48("1916") ? this.state &&= this.bundledState(-1) : (stryCov_9fa48("1916"), this.state ??= this.bundledState(stryMutAct_9fa48("1917") ? +1 : (stryCov_9fa48("1917"), -1)));
    }
  }
  private check(env: Env): Promise<void> {
    if (stryMutAct_9fa48("1918")) {
      {}
    } else {
      stryCov_9fa48("1918");
      stryMutAct_9fa48("1919") ? this.checking &&= this.poll(env).finally(() => {
        this.checking = undefined;
      }) : (stryCov_9fa48("1919"), this.checking ??= this.poll(env).finally(() => {
        if (stryMutAct_9fa48("1920")) {
          {}
        } else {
          stryCov_9fa48("1920");
          this.checking = undefined;
        }
      }));
      return this.checking;
    }
  }
  private async poll(env: Env): Promise<void> {
    if (stryMutAct_9fa48("1921")) {
      {}
    } else {
      stryCov_9fa48("1921");
      try {
        if (stryMutAct_9fa48("1922")) {
          {}
        } else {
          stryCov_9fa48("1922");
          const record = await env.RULES.getByName(this.objectName).since(stryMutAct_9fa48("1923") ? this.state?.version && -1 : (stryCov_9fa48("1923"), (stryMutAct_9fa48("1924") ? this.state.version : (stryCov_9fa48("1924"), this.state?.version)) ?? (stryMutAct_9fa48("1925") ? +1 : (stryCov_9fa48("1925"), -1))));
          if (stryMutAct_9fa48("1928") ? record === null : stryMutAct_9fa48("1927") ? false : stryMutAct_9fa48("1926") ? true : (stryCov_9fa48("1926", "1927", "1928"), record !== null)) if (stryMutAct_9fa48("1929")) {
            ;
          } else {
            stryCov_9fa48("1929");
            this.apply(record);
          }
        }
      } catch (error) {
        if (stryMutAct_9fa48("1930")) {
          {}
        } else {
          stryCov_9fa48("1930");
          console.error(JSON.stringify(stryMutAct_9fa48("1932") ? {} : (stryCov_9fa48("1932"), {
            event: stryMutAct_9fa48("1933") ? "" : (stryCov_9fa48("1933"), "floodgate.rules_poll_failed"),
            error: String(error)
          })));
        }
      }
      // A failed poll also counts as a check, so an unreachable object is not waited for on every request.
      this.checkedAt = Date.now();
    }
  }
  private apply(record: RulesRecord): void {
    if (stryMutAct_9fa48("1934")) {
      {}
    } else {
      stryCov_9fa48("1934");
      if (stryMutAct_9fa48("1937") ? this.state !== undefined && record.version <= this.state.version || this.state.version >= 0 : stryMutAct_9fa48("1936") ? false : stryMutAct_9fa48("1935") ? true : (stryCov_9fa48("1935", "1936", "1937"), (stryMutAct_9fa48("1939") ? this.state !== undefined || record.version <= this.state.version : stryMutAct_9fa48("1938") ? true : (stryCov_9fa48("1938", "1939"), (stryMutAct_9fa48("1941") ? this.state === undefined : stryMutAct_9fa48("1940") ? true : (stryCov_9fa48("1940", "1941"), this.state !== undefined)) && (stryMutAct_9fa48("1944") ? record.version > this.state.version : stryMutAct_9fa48("1943") ? record.version < this.state.version : stryMutAct_9fa48("1942") ? true : (stryCov_9fa48("1942", "1943", "1944"), record.version <= this.state.version)))) && (stryMutAct_9fa48("1947") ? this.state.version < 0 : stryMutAct_9fa48("1946") ? this.state.version > 0 : stryMutAct_9fa48("1945") ? true : (stryCov_9fa48("1945", "1946", "1947"), this.state.version >= 0)))) return;
      if (stryMutAct_9fa48("1950") ? record.source === "bundled" && record.text === undefined : stryMutAct_9fa48("1949") ? false : stryMutAct_9fa48("1948") ? true : (stryCov_9fa48("1948", "1949", "1950"), (stryMutAct_9fa48("1952") ? record.source !== "bundled" : stryMutAct_9fa48("1951") ? false : (stryCov_9fa48("1951", "1952"), record.source === (stryMutAct_9fa48("1953") ? "" : (stryCov_9fa48("1953"), "bundled")))) || (stryMutAct_9fa48("1955") ? record.text !== undefined : stryMutAct_9fa48("1954") ? false : (stryCov_9fa48("1954", "1955"), record.text === undefined)))) {
        if (stryMutAct_9fa48("1956")) {
          {}
        } else {
          stryCov_9fa48("1956");
          this.state = this.bundledState(record.version, record.updatedAt);
          return;
        }
      }
      const result = compileRulesText(record.text, stryMutAct_9fa48("1957") ? {} : (stryCov_9fa48("1957"), {
        source: stryMutAct_9fa48("1958") ? "" : (stryCov_9fa48("1958"), "rules")
      }));
      if (stryMutAct_9fa48("1961") ? false : stryMutAct_9fa48("1960") ? true : stryMutAct_9fa48("1959") ? result.ok : (stryCov_9fa48("1959", "1960", "1961"), !result.ok)) {
        if (stryMutAct_9fa48("1962")) {
          {}
        } else {
          stryCov_9fa48("1962");
          // Stored rules were valid when stored; a newer validator may disagree. Keep the last good ones.
          console.error(JSON.stringify(stryMutAct_9fa48("1964") ? {} : (stryCov_9fa48("1964"), {
            event: stryMutAct_9fa48("1965") ? "" : (stryCov_9fa48("1965"), "floodgate.stored_rules_invalid"),
            version: record.version,
            errors: stryMutAct_9fa48("1966") ? result.errors : (stryCov_9fa48("1966"), result.errors.slice(0, 10))
          })));
          return;
        }
      }
      this.state = stryMutAct_9fa48("1967") ? {} : (stryCov_9fa48("1967"), {
        rules: result.rules,
        version: record.version,
        source: stryMutAct_9fa48("1968") ? "" : (stryCov_9fa48("1968"), "stored"),
        updatedAt: record.updatedAt
      });
    }
  }
}