/**
 * One isolate's edge machinery in front of the counter objects: the
 * certain-block cache, request coalescing and pre-counting, behind a single
 * `decideCalls` the decision engine uses for every object it needs. Which
 * of them answers a call is decided in one place, `routeOf` (route.ts).
 */
import { shardKeyFrom, type ShardKey } from "../durable/counters/placement.ts";
import type { CounterCall, CounterVerdict, SendBatch } from "../stored/wire-calls.ts";
import { counterStub } from "../durable/counters/regions.ts";
import { toWire, verdictsFromWire, WIRE_VERSION } from "../stored/wire.ts";
import type { Env } from "../config.ts";
import type { Defer } from "../http/defer.ts";
import { BlockCache } from "./block-cache.ts";
import { BreachBook } from "./breaches.ts";
import { CarriedRefunds, sendUnlessCarried } from "./carried-refunds.ts";
import { Coalescer } from "./coalescer.ts";
import { DebtBook } from "./debts.ts";
import { LocalCounters } from "./local-counters.ts";
import { PrecountTable, precountId } from "./precount.ts";
import { rememberBlock, routeOf, type EdgeCall, type LocalRoute } from "./route.ts";
import { WarmHints, warmId } from "./warm-hints.ts";

export type { EdgeCall } from "./route.ts";

/** What the edge did, for tests, metrics and the bench. */
export interface EdgeStats {
  /** Calls answered 429 from the block cache. */
  cachedBlocks: number;
  /** Calls answered 429 from the rules alone (every limit 0), without an object. */
  refusedByRules: number;
  /** Object calls retried once on a fresh stub after a failure the platform marked `retryable`. */
  retries: number;
}

/**
 * Whether the platform marked `error` retryable and not overloaded: a reset
 * object (a deploy, a runtime update) failed the call in flight; an
 * overloaded one is never asked again at once (docs/reliability.md, "Failure mode").
 *
 * @example
 * isRetryable(Object.assign(new Error("reset"), { retryable: true })); // true
 */
export function isRetryable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const marks = error as { retryable?: unknown; overloaded?: unknown };
  return marks.retryable === true && marks.overloaded !== true;
}

/**
 * How often an isolate that owes debts sends them on its own, to objects its
 * requests do not call (docs/reliability.md, "Isolates come and go"): an
 * isolate evicted once its objects are back owes them nothing older than this.
 */
export const DEBT_PAY_MS = 1_000;

/** Options of an isolate's edge runtime. */
export interface EdgeOptions {
  /** Batch concurrent calls per object (default true; the bench turns it off to measure what it buys). */
  readonly coalesce?: boolean;
  /** The clock (tests drive it). */
  readonly now?: () => number;
  /** DECISION_TIMEOUT_MS: nobody waits for an answer longer, so no request is kept alive longer for one. */
  readonly decisionTimeoutMs?: number;
  /** Bytes of blocks the certain-block cache keeps (default BLOCK_CACHE_BYTES; 0 turns the cache off). */
  readonly blockCacheBytes?: number;
  /** SHARD_KEY, the secret of the shard hash (docs/deploy.md, "Shard key"); default: derived from the counters namespace. */
  readonly shardSecret?: string;
}

/**
 * Edge machinery for a counters binding. One runtime per isolate, made with
 * the isolate's context (src/context/): caches and batches are per isolate by nature.
 *
 * @example
 * const edge = new EdgeRuntime(env.COUNTERS);
 * const verdicts = await edge.decideCalls("api/shard/3", [{ call, cacheable: true }], defer);
 */
export class EdgeRuntime {
  readonly blocks: BlockCache;
  readonly coalescer: Coalescer;
  readonly precount: PrecountTable;
  readonly stats: EdgeStats = { cachedBlocks: 0, refusedByRules: 0, retries: 0 };
  /** What this isolate let through, per counter: FAILURE_MODE=local decides with it (local-counters.ts). */
  readonly local = new LocalCounters();
  /** Hits this isolate allowed on its own, owed to their objects and paid with the next call (debts.ts). */
  readonly debts = new DebtBook();
  /** Penalty breaches this isolate answered from cached blocks, carried by the counter's next call (breaches.ts). */
  readonly breaches = new BreachBook();
  /** Token budgets' refunds waiting to ride with this isolate's next batch to their object (carried-refunds.ts). */
  readonly refunds = new CarriedRefunds();
  /** Global keys their homes said are warm in this isolate's region: relayed to the region's copy (warm-hints.ts). */
  readonly warm = new WarmHints();
  /** The key every counter of this isolate is placed with (`objectName`). */
  readonly shardKey: ShardKey;
  /** The clock of this isolate's decisions (tests drive it). */
  readonly now: () => number;
  private readonly sendBatch: SendBatch;
  /** When this isolate last sent its debts on its own (payDebts). */
  private debtsSentAt = -Infinity;

  constructor(counters: Env["COUNTERS"], options: EdgeOptions = {}) {
    this.now = options.now ?? Date.now;
    this.blocks = new BlockCache(options.blockCacheBytes);
    this.shardKey = shardKeyFrom(options.shardSecret, counters);
    // Through counterStub: a per-region object is created with its region's location hint (docs/placement.md).
    // One JSON text each way (src/stored/wire.ts): cheaper across the RPC than the batch's objects.
    const once = async (name: string, text: string) => verdictsFromWire<CounterVerdict>(await counterStub(counters, name).decideText(text, WIRE_VERSION));
    // A retryable failure is retried once, on a fresh stub (a failed stub stays broken); the decision timeout still bounds the wait.
    const direct: SendBatch = async (name, calls) => {
      const text = toWire(calls);
      try {
        return await once(name, text);
      } catch (error) {
        if (!isRetryable(error)) throw error;
        this.stats.retries += 1;
        return once(name, text);
      }
    };
    this.coalescer = new Coalescer(direct, { keepAliveMs: options.decisionTimeoutMs });
    this.sendBatch = options.coalesce === false ? direct : (name, calls, defer) => this.coalescer.submit(name, calls, defer);
    // Pre-counting passes its request's (or its sync's host request's) defer on: a batch it sends for other
    // callers keeps that request alive until they have their answers.
    // Its calls pay the debts of their counters too (debts.ts).
    this.precount = new PrecountTable((name, calls, defer) => this.send(name, calls, defer), this.now);
  }

  /**
   * The answers when every call can be decided in this isolate right now
   * (a cached certain block, or a pre-counted call within its budget), else
   * undefined, having consumed nothing. Synchronous: a request answered
   * here needs no object, so the caller arms no decision timeout for it.
   *
   * @example
   * const verdicts = edge.localVerdicts(calls, (p) => ctx.waitUntil(p)); // CounterVerdict[] | undefined
   */
  localVerdicts(items: readonly EdgeCall[], defer: Defer): CounterVerdict[] | undefined {
    const now = this.now();
    const routes: LocalRoute[] = [];
    // The pre-counted counters' ids, in order: computed once, used for both steps.
    const ids: string[] = [];
    for (const item of items) {
      const route = routeOf(item, this.blocks, now, this.precount.hints);
      if (route.kind === "remote") return undefined;
      if (route.kind === "precount") {
        const id = precountId(item.call);
        // The same `now` for the check and the decision below, so a view cannot age past a limit in between.
        if (!this.precount.canDecideLocally(item.call, route.syncMs, now, id)) return undefined;
        // The same counter twice in one request (whatever the costs) would spend one budget twice; let decideCalls take it in order.
        if (ids.includes(id)) return undefined;
        ids.push(id);
      }
      routes.push(route);
    }
    const verdicts: CounterVerdict[] = [];
    let precounted = 0;
    for (let i = 0; i < items.length; i++) {
      const route = routes[i];
      if (route.kind === "cached" || route.kind === "refused") {
        this.countLocal(route.kind, items[i].call);
        verdicts.push(route.verdict);
        continue;
      }
      const verdict = this.precount.decideLocally(items[i].call, route.syncMs, defer, now, ids[precounted++]);
      // Unreachable after the checks above; a plain error beats a verdict missing further on.
      if (verdict === undefined) throw new Error(`pre-counted call for ${items[i].call.key} could not be decided locally after its check`);
      verdicts.push(verdict);
    }
    return verdicts;
  }

  /**
   * Decide calls owned by one object: cached blocks answer at once,
   * pre-counted calls decide locally, the rest go to the object (batched).
   *
   * @example
   * const [verdict] = await edge.decideCalls(name, [{ call, cacheable: true }], (p) => ctx.waitUntil(p));
   */
  async decideCalls(objectName: string, items: readonly EdgeCall[], defer: Defer): Promise<CounterVerdict[]> {
    const now = this.now();
    // Most requests are one call the object decides: no per-call bookkeeping for them. Its route is found once.
    const only = items.length === 1 ? routeOf(items[0], this.blocks, now, this.precount.hints) : undefined;
    if (only?.kind === "remote") {
      const sent = await this.send(objectName, [items[0].call], defer);
      const answers = items[0].call.cost === 0 ? [this.read(items[0].call, sent[0])] : sent;
      rememberBlock(items[0], answers[0], this.blocks, now, this.now());
      this.learnHot(items[0], answers[0]);
      this.learnWarm(items[0].call, answers[0]);
      return answers;
    }
    const verdicts: CounterVerdict[] = new Array(items.length);
    const remote: number[] = [];
    const local: Promise<void>[] = [];
    items.forEach((item, i) => {
      const route = only ?? routeOf(item, this.blocks, now, this.precount.hints);
      if (route.kind === "cached" || route.kind === "refused") {
        this.countLocal(route.kind, item.call);
        verdicts[i] = route.verdict;
      } else if (route.kind === "precount") {
        local.push(
          this.precount.decide(objectName, item.call, route.syncMs, defer, route.auto === true).then((verdict) => {
            verdicts[i] = verdict;
            rememberBlock(item, verdict, this.blocks, now, this.now());
            this.learnWarm(item.call, verdict);
          }),
        );
      } else {
        remote.push(i);
      }
    });
    if (remote.length > 0) {
      const answers = await this.send(
        objectName,
        remote.map((i) => items[i].call),
        defer,
      );
      const receivedAt = this.now();
      remote.forEach((i, j) => {
        verdicts[i] = this.read(items[i].call, answers[j]);
        rememberBlock(items[i], answers[j], this.blocks, now, receivedAt);
        this.learnHot(items[i], answers[j]);
        this.learnWarm(items[i].call, answers[j]);
      });
    }
    await Promise.all(local);
    return verdicts;
  }

  /**
   * Send `calls`, refunds to `objectName` each with its `op`, first in the
   * next batch this isolate sends there within REFUND_CARRY_MS, or alone
   * after it (carried-refunds.ts). Returns at once; `defer` keeps the
   * request alive until they have been sent.
   *
   * @example
   * edge.carryRefunds("api/shard/3", [{ kind: "refund", op: newOp(), key, limits, cost: 268, chargedAt }], defer);
   */
  carryRefunds(objectName: string, calls: readonly CounterCall[], defer: Defer): void {
    const alone = (refunds: readonly CounterCall[]) =>
      this.decideCalls(
        objectName,
        refunds.map((call) => ({ call, cacheable: false })),
        defer,
      );
    defer(sendUnlessCarried(this.refunds, this.refunds.park(objectName, calls), alone));
  }

  /**
   * Send the debts owed to objects outside `calling` (the objects this
   * request calls, whose batches carry theirs), in the background, at most
   * once per DEBT_PAY_MS; a payment that fails is owed again
   * (docs/reliability.md, "Isolates come and go").
   *
   * @example
   * if (edge.debts.size > 0) edge.payDebts(new Set(byObject.keys()), defer);
   */
  payDebts(calling: ReadonlySet<string>, defer: Defer): void {
    const now = this.now();
    if (this.debts.size === 0 || now - this.debtsSentAt < DEBT_PAY_MS) return;
    this.debtsSentAt = now;
    for (const [name, batch] of this.debts.due(now, calling)) defer(this.sendBatch(name, batch.calls, defer).then(noop, () => batch.restore()));
  }

  /** A read (a cost-0 decide) counts this isolate's own unsynced pre-counted hits (PrecountTable.withOwnHits). */
  private read(call: CounterCall, verdict: CounterVerdict): CounterVerdict {
    if (call.cost !== 0 || (call.kind !== undefined && call.kind !== "decide") || this.precount.size === 0) return verdict;
    return this.precount.withOwnHits(call, verdict);
  }

  /** An object's answer to a leasable call may say its counter is hot: its next calls are pre-counted (hot-hints.ts). */
  private learnHot(item: EdgeCall, verdict: CounterVerdict): void {
    if (item.leasable === true && (verdict.hot !== undefined || this.precount.hints.size > 0)) this.precount.hints.learn(precountId(item.call), verdict);
  }

  /** A home's answer to a call sent from a region may say the key is warm there: its next calls are relayed (warm-hints.ts). */
  private learnWarm(call: CounterCall, verdict: CounterVerdict): void {
    if (verdict.warm === true && (call.kind === undefined || call.kind === "decide") && typeof call.region === "string")
      this.warm.learn(warmId(call, call.region), this.now());
  }

  // The batch to the object, with the debts its counters are owed (debts.ts), the breaches they carry
  // (breaches.ts), and the refunds waiting for a batch to that object (carried-refunds.ts); a failed batch owes them again.
  private async send(objectName: string, given: readonly CounterCall[], defer?: Defer): Promise<CounterVerdict[]> {
    const carrying = this.breaches.attach(given);
    const riding = this.refunds.size === 0 ? undefined : this.refunds.attach(objectName, carrying === undefined ? given : carrying.calls);
    const calls = riding !== undefined ? riding.calls : carrying === undefined ? given : carrying.calls;
    const owing = this.debts.attach(objectName, calls, this.now());
    if (owing === undefined && carrying === undefined && riding === undefined) return this.sendBatch(objectName, calls, defer);
    try {
      const verdicts =
        owing === undefined ? await this.sendBatch(objectName, calls, defer) : owing.answers(await this.sendBatch(objectName, owing.calls, defer));
      if (riding === undefined) return verdicts;
      riding.delivered();
      return riding.answers(verdicts);
    } catch (error) {
      owing?.restore();
      carrying?.restore();
      riding?.failed();
      throw error;
    }
  }

  // A hit answered from a cached block is a breach of its penalty, if it has one (breaches.ts).
  private countLocal(kind: "cached" | "refused", call: CounterCall): void {
    if (kind === "cached") {
      this.stats.cachedBlocks += 1;
      this.breaches.count(call);
    } else this.stats.refusedByRules += 1;
  }
}

function noop(): void {}
