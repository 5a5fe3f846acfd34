/**
 * The rules each isolate decides with: the last version it learned from the
 * RulesObject, else the bundled rules. Requests use the cached compiled
 * rules and never wait for the object once the isolate knows a version: the
 * version is re-checked in the background (ctx.waitUntil) by the first
 * request that finds it REFRESH_AFTER_MS old, however long the isolate was
 * idle. A check reads its location's copy (rules-copy.ts) and asks the
 * object only as rules-pace.ts allows, so the object's calls grow with
 * locations, not isolates. Only a fresh isolate waits, once, for its first
 * check (one round trip, at most the decision timeout), and its first
 * requests share that one check: a burst into a fresh isolate asks the
 * object once, not once a request. The bound on
 * staleness this gives is in docs/admin-api.md ("Rules", when an upload
 * applies). An unreachable RulesObject never fails a request: the last good
 * rules stay in force.
 */
import type { RulesRecord } from "../durable/rules/rules-document.ts";
import type { Env } from "../config.ts";
import type { Defer } from "../http/defer.ts";
import { compileRulesText } from "../rules/index.ts";
import type { CompiledRules, RulesOverlay } from "../rules/types.ts";
import { runtimeCopies, type LocationCopies, type RulesCopy } from "./rules-copy.ts";
import { checkStep, RULES_PACE, type RulesPace } from "./rules-pace.ts";

/** Age from which a request starts a background version check (of the location's copy, rules-pace.ts). */
export const REFRESH_AFTER_MS = RULES_PACE.checkMs;
/**
 * A background check still unsettled after this long is taken as lost (its
 * request's context ended before the object answered): the next request
 * starts another, so one hung call never stops the isolate from following.
 */
export const CHECK_LOST_AFTER_MS = 30_000;

/**
 * How often a fresh isolate's request looks whether the first check, made by
 * another request, has settled the rules. It looks on a timer of its own:
 * awaiting the other request's promise would tie it to a promise another
 * request settles (docs/reliability.md, "No promise crosses requests").
 */
export const FIRST_CHECK_LOOK_MS = 2;

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
  /** Override REFRESH_AFTER_MS (tests use 0 to see a check happen at once). */
  readonly refreshAfterMs?: number;
  /** Override the other intervals of RULES_PACE (tests use 0 to see each check ask the object). */
  readonly pace?: Partial<Omit<RulesPace, "checkMs">>;
  /** Where the location's copies are kept; default the Cache API (none where the runtime has none), `null`: none. */
  readonly copies?: LocationCopies | null;
  /** The clock ages are measured on (default `Date.now`); tests drive it. */
  readonly now?: () => number;
  /** What is laid over the rules at runtime and followed by the same checks (src/overrides/); default none. */
  readonly overlay?: RulesOverlay;
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
  private readonly pace: RulesPace;
  private readonly copies: LocationCopies | undefined;
  private readonly now: () => number;
  private readonly overlay?: RulesOverlay;
  private state?: RulesState;
  /** The rules of `state` before the overlay was laid over them. */
  private base?: CompiledRules;
  private checkedAt = 0;
  /** When the background check in flight started (undefined: none). */
  private checkingSince?: number;
  /** Whether a fresh isolate's first check is in flight (its other requests wait for it, without a check of their own). */
  private firstChecking = false;
  /** When this isolate last called the object (rules-pace.ts spaces these). */
  private calledAt = -Infinity;
  /** This isolate's stretch of its next gap between calls (rules-pace.ts), drawn anew at each call. */
  private spread = Math.random();

  constructor(bundled: () => CompiledRules, options: LiveRulesOptions = {}) {
    this.bundled = bundled;
    this.objectName = options.objectName ?? "global";
    this.bundledJson = options.bundledJson;
    this.refreshAfterMs = options.refreshAfterMs ?? REFRESH_AFTER_MS;
    this.pace = { ...RULES_PACE, checkMs: this.refreshAfterMs, ...options.pace };
    this.copies = options.copies === null ? undefined : (options.copies ?? runtimeCopies());
    this.now = options.now ?? Date.now;
    this.overlay = options.overlay;
  }

  /**
   * The rules to decide this request with. Synchronous once the isolate
   * knows a version, however old (a check starts in the background); a
   * promise only on a fresh isolate's first requests, bounded by `timeoutMs`.
   *
   * @example
   * const rules = await live.current(env, 1000, defer);
   */
  current(env: Env, timeoutMs: number, defer: Defer): CompiledRules | Promise<CompiledRules> {
    if (this.state === undefined) {
      if (this.firstChecking) return this.waitForFirst(env, timeoutMs, defer);
      this.firstChecking = true;
      const check = this.firstCheck(env).finally(() => {
        this.firstChecking = false;
      });
      return this.waitForCheck(check, timeoutMs, defer).then((state) => state.rules);
    }
    const now = this.now();
    if (now - this.checkedAt >= this.refreshAfterMs && (this.checkingSince === undefined || now - this.checkingSince >= CHECK_LOST_AFTER_MS)) {
      // One request checks in the background, kept alive by its own waitUntil; the others do not hand that
      // request's promise to theirs (Workers drop continuations queued across requests).
      this.checkingSince = now;
      defer(
        this.check(env).finally(() => {
          this.checkingSince = undefined;
        }),
      );
    }
    return this.state.rules;
  }

  /**
   * The full state after making sure it is current (for `GET /__ratelimit/rules`).
   *
   * @example
   * const { version, source } = await live.fresh(env, 1000, defer);
   */
  async fresh(env: Env, timeoutMs: number, defer: Defer): Promise<RulesState> {
    this.checkedAt = 0;
    return this.waitForCheck(this.poll(env), timeoutMs, defer);
  }

  /**
   * Fetch the object's whole record now and lay it in the location's copy,
   * whatever the pace: after an admin write, so the isolates of this
   * location follow it from their next check.
   *
   * @example
   * defer(live.publish(env));
   */
  publish(env: Env): Promise<void> {
    return this.poll(env);
  }

  /**
   * Apply a version this isolate just stored, without waiting for a poll.
   *
   * @example
   * live.accept({ rules, version: 4, source: "stored" });
   */
  accept(state: RulesState): void {
    if (this.state === undefined || state.version > this.state.version) this.settle(state);
    this.checkedAt = this.now();
  }

  /**
   * The bundled rules as a state of version `version`.
   *
   * @example
   * live.accept(live.bundledState(5)); // after DELETE /__ratelimit/rules
   */
  bundledState(version: number, updatedAt?: string): RulesState {
    return { rules: this.bundled(), version, source: "bundled", ...(updatedAt ? { updatedAt } : {}) };
  }

  private async waitForCheck(check: Promise<void>, timeoutMs: number, defer: Defer): Promise<RulesState> {
    // A check of this request's own (only a fresh isolate's first requests wait, so a few concurrent polls at
    // most): waiting on another request's would tie this one to a promise that request settles.
    // The check goes on in the background even if this request stops waiting.
    defer(check);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const outcome = await Promise.race([check, timeout]);
    if (timer !== undefined) clearTimeout(timer);
    // A hung object must not make every request wait: count the wait as a check, the poll goes on in the background.
    if (outcome === "timeout") this.checkedAt = this.now();
    if (this.state === undefined) this.settle(this.bundledState(-1));
    return this.state as RulesState;
  }

  /**
   * A fresh isolate's request while another makes the first check: it looks
   * every FIRST_CHECK_LOOK_MS until that check has settled the rules, makes
   * a check of its own if that one ended without (its request gone), and
   * stops waiting after `timeoutMs` on the bundled rules, as the first
   * request would.
   */
  private async waitForFirst(env: Env, timeoutMs: number, defer: Defer): Promise<CompiledRules> {
    for (let waited = 0; this.state === undefined && waited < timeoutMs; waited += FIRST_CHECK_LOOK_MS) {
      if (!this.firstChecking) return this.current(env, timeoutMs - waited, defer);
      await new Promise((resolve) => setTimeout(resolve, FIRST_CHECK_LOOK_MS));
    }
    if (this.state === undefined) {
      this.checkedAt = this.now();
      this.settle(this.bundledState(-1));
    }
    return (this.state as RulesState).rules;
  }

  /** A fresh isolate's first check: its location's copy when current (a deploy's isolates do not all ask the object), else the object. */
  private async firstCheck(env: Env): Promise<void> {
    const copy = this.copies === undefined ? undefined : await this.copies.read(this.objectName);
    if (copy !== undefined && checkStep(copy, -Infinity, this.now(), this.pace) === "use-copy") {
      try {
        this.apply(await copy.record());
        this.checkedAt = this.now();
        return;
      } catch (error) {
        console.error(JSON.stringify({ event: "floodgate.rules_copy_failed", error: String(error) }));
      }
    }
    return this.poll(env);
  }

  /** A background check: the location's copy when it is current, else the object as the pace allows. */
  private async check(env: Env): Promise<void> {
    const copy = this.copies === undefined ? undefined : await this.copies.read(this.objectName);
    const step = checkStep(copy, this.calledAt, this.now(), this.pace, this.spread);
    if (step === "refresh") {
      // Claimed first, so the location's other isolates take the copy as current while this one asks.
      if (copy !== undefined) await this.copies?.claim(this.objectName, copy, this.now());
      return this.poll(env);
    }
    if (copy !== undefined && this.behind(copy)) {
      try {
        this.apply(await copy.record());
      } catch (error) {
        console.error(JSON.stringify({ event: "floodgate.rules_copy_failed", error: String(error) }));
      }
    }
    this.checkedAt = this.now();
  }

  /** Whether `copy` holds rules or overrides newer than this isolate's. */
  private behind(copy: RulesCopy): boolean {
    if (this.state === undefined || copy.version > this.state.version) return true;
    return this.overlay !== undefined && copy.overridesVersion >= 0 && copy.overridesVersion !== this.overlay.version;
  }

  /** Ask the object (the whole record when there are copies to keep, so it can be laid in this location's). */
  private async poll(env: Env): Promise<void> {
    this.calledAt = this.now();
    this.spread = Math.random();
    const whole = this.copies !== undefined;
    try {
      const record = await env.RULES.getByName(this.objectName).since(whole ? -1 : (this.state?.version ?? -1), whole ? -1 : this.overlay?.version);
      if (record !== null) this.apply(record);
      if (record !== null && whole) await this.copies?.write(this.objectName, record, this.calledAt);
    } catch (error) {
      console.error(JSON.stringify({ event: "floodgate.rules_poll_failed", error: String(error) }));
    }
    // A failed poll also counts as a check, so an unreachable object is not asked on every request.
    this.checkedAt = this.now();
  }

  private apply(record: RulesRecord): void {
    // The overlay's update comes with the rules' head, with their text only when they changed too.
    const laid = record.overrides !== undefined && this.overlay?.take(record.overrides) === true;
    if (this.state !== undefined && record.version <= this.state.version && this.state.version >= 0) {
      if (laid) this.relay();
      return;
    }
    if (record.source === "bundled" || record.text === undefined) {
      this.settle(this.bundledState(record.version, record.updatedAt));
      return;
    }
    const result = compileRulesText(record.text, { source: "rules" });
    if (!result.ok) {
      // Stored rules were valid when stored; a newer validator may disagree. Keep the last good ones.
      console.error(JSON.stringify({ event: "floodgate.stored_rules_invalid", version: record.version, errors: result.errors.slice(0, 10) }));
      if (laid) this.relay();
      return;
    }
    this.settle({ rules: result.rules, version: record.version, source: "stored", updatedAt: record.updatedAt });
  }

  /** The overlay changed: lay it again over the rules in force. */
  private relay(): void {
    if (this.state !== undefined && this.base !== undefined && this.overlay !== undefined) this.state = { ...this.state, rules: this.overlay.over(this.base) };
  }

  /** Make `state` the one in force, the overlay laid over its rules. */
  private settle(state: RulesState): void {
    this.base = state.rules;
    this.state = this.overlay === undefined ? state : { ...state, rules: this.overlay.over(state.rules) };
  }
}
