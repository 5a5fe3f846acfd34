/**
 * One isolate's edge machinery in front of the counter objects: the
 * certain-block cache, request coalescing and pre-counting, behind a single
 * `decideCalls` the decision engine uses for every object it needs.
 */
import type { CounterCall, CounterVerdict } from "../durable/protocol.ts";
import type { Env } from "../config.ts";
import { BlockCache } from "./block-cache.ts";
import { Coalescer } from "./coalescer.ts";
import { PrecountTable, precountId } from "./precount.ts";

/** One counter call and how the edge may treat it. */
export interface EdgeCall {
  readonly call: CounterCall;
  /** Shadow-mode calls never produce cached blocks. */
  readonly shadow: boolean;
  /** Set when every limit of the call has `precount`: the smallest `sync_ms`. */
  readonly syncMs?: number;
  /**
   * Delay and queue calls: a rejection there is not a plain 429 (and a
   * reservation must be taken by the object), so they never read or fill
   * the block cache.
   */
  readonly bypass?: boolean;
}

/** What the edge did, for tests, metrics and the bench. */
export interface EdgeStats {
  /** Calls answered 429 from the block cache. */
  cachedBlocks: number;
}

/** Options of an isolate's edge runtime. */
export interface EdgeOptions {
  /** Batch concurrent calls per object (default true; the bench turns it off to measure what it buys). */
  readonly coalesce?: boolean;
  /** The clock (tests drive it). */
  readonly now?: () => number;
  /** DECISION_TIMEOUT_MS: nobody waits for an answer longer, so no request is kept alive longer for one. */
  readonly decisionTimeoutMs?: number;
}

/**
 * Edge machinery for a counters binding. One runtime per isolate, made with
 * the isolate's context (src/context/): caches and batches are per isolate by nature.
 *
 * @example
 * const edge = new EdgeRuntime(env.COUNTERS);
 * const verdicts = await edge.decideCalls("api/shard/3", [{ call, shadow: false }], defer);
 */
export class EdgeRuntime {
  readonly blocks = new BlockCache();
  readonly coalescer: Coalescer;
  readonly precount: PrecountTable;
  readonly stats: EdgeStats = { cachedBlocks: 0 };
  private readonly now: () => number;
  private readonly sendBatch: (name: string, calls: readonly CounterCall[], defer?: (work: Promise<unknown>) => void) => Promise<CounterVerdict[]>;

  constructor(counters: Env["COUNTERS"], options: EdgeOptions = {}) {
    this.now = options.now ?? Date.now;
    const direct = (name: string, calls: readonly CounterCall[]) => counters.getByName(name).decide(calls) as Promise<CounterVerdict[]>;
    this.coalescer = new Coalescer(direct, { keepAliveMs: options.decisionTimeoutMs });
    this.sendBatch = options.coalesce === false ? direct : (name, calls, defer) => this.coalescer.submit(name, calls, defer);
    // Precount syncs already run inside the request's waitUntil, which keeps their RPCs alive.
    this.precount = new PrecountTable((name, calls) => this.sendBatch(name, calls), this.now);
  }

  /**
   * The answers when every call can be decided in this isolate right now
   * (a cached certain block, or a pre-counted call within its budget), else
   * undefined, having consumed nothing. Synchronous: a request answered
   * here needs no object, so the caller arms no decision timeout for it.
   *
   * @example
   * const verdicts = edge.localVerdicts(pending, (p) => ctx.waitUntil(p)); // CounterVerdict[] | undefined
   */
  localVerdicts(items: readonly EdgeCall[], defer: (work: Promise<unknown>) => void): CounterVerdict[] | undefined {
    const now = this.now();
    // Per item: its cached block, or the pre-counted counter's id (computed once, used for both steps).
    const found: (CounterVerdict | string)[] = [];
    for (const item of items) {
      const block = !item.shadow && item.bypass !== true ? this.blocks.lookup(blockKey(item.call), now) : undefined;
      if (block !== undefined) {
        found.push(block);
        continue;
      }
      if (item.syncMs === undefined || item.call.cost <= 0 || item.bypass === true) return undefined;
      const id = precountId(item.call);
      // The same `now` for the check and the decision below, so a view cannot age past a limit in between.
      if (!this.precount.canDecideLocally(item.call, item.syncMs, now, id)) return undefined;
      // The same counter twice in one request (whatever the costs) would spend one budget twice; let decideCalls take it in order.
      if (found.includes(id)) return undefined;
      found.push(id);
    }
    const verdicts: CounterVerdict[] = [];
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      const step = found[i];
      if (typeof step !== "string") {
        this.stats.cachedBlocks += 1;
        verdicts.push(step);
        continue;
      }
      const verdict = this.precount.decideLocally(item.call, item.syncMs as number, defer, now, step);
      // Unreachable after the checks above; a plain error beats a verdict missing further on.
      if (verdict === undefined) throw new Error(`pre-counted call for ${item.call.key} could not be decided locally after its check`);
      verdicts.push(verdict);
    }
    return verdicts;
  }

  /**
   * Decide calls owned by one object: cached blocks answer at once,
   * pre-counted calls decide locally, the rest go to the object (batched).
   *
   * @example
   * const [verdict] = await edge.decideCalls(name, [{ call, shadow: false }], (p) => ctx.waitUntil(p));
   */
  async decideCalls(objectName: string, items: readonly EdgeCall[], defer: (work: Promise<unknown>) => void): Promise<CounterVerdict[]> {
    const now = this.now();
    const verdicts: CounterVerdict[] = new Array(items.length);
    const remote: number[] = [];
    const local: Promise<void>[] = [];
    items.forEach((item, i) => {
      const cacheable = !item.shadow && item.bypass !== true;
      const cached = cacheable ? this.blocks.lookup(blockKey(item.call), now) : undefined;
      if (cached !== undefined) {
        this.stats.cachedBlocks += 1;
        verdicts[i] = cached;
      } else if (item.syncMs !== undefined && item.call.cost > 0 && item.bypass !== true) {
        local.push(this.precount.decide(objectName, item.call, item.syncMs, defer).then((verdict) => {
          verdicts[i] = verdict;
          if (cacheable) this.blocks.remember(blockKey(item.call), verdict, now, this.now());
        }));
      } else {
        remote.push(i);
      }
    });
    if (remote.length > 0) {
      const answers = await this.sendBatch(objectName, remote.map((i) => items[i].call), defer);
      const receivedAt = this.now();
      remote.forEach((i, j) => {
        verdicts[i] = answers[j];
        if (!items[i].shadow && items[i].bypass !== true) this.blocks.remember(blockKey(items[i].call), answers[j], now, receivedAt);
      });
    }
    await Promise.all(local);
    return verdicts;
  }
}

function blockKey(call: CounterCall): string {
  let key = call.key + "\u0001" + call.cost;
  for (const limit of call.limits) key += "\u0001" + limit.id;
  return key;
}
