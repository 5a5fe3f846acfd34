/**
 * Certain-block cache: when a counter object answers "over the limit, next
 * allowed at T", this isolate answers the same request 429 locally until T
 * without asking the object. Exact, because a rejected request consumes
 * nothing and time only frees quota: nothing another isolate does can make
 * the request fit before T. (An admin counter reset or a rules change can;
 * rules changes give limits new ids and so new cache keys. A reset is seen
 * by every isolate within `BLOCK_CACHE_HOLD_MS`: a longer block, such as a
 * penalty's, is asked of the object again after that hold, its Retry-After
 * still the object's.)
 *
 * A penalty block that breaches escalate is asked of the object again
 * sooner, halfway to its end (`renewAt`), so the breaches this isolate
 * answered reach the object while the block holds (breaches.ts). And a
 * block stays known until its end, past the hold: FAILURE_MODE's answer
 * refuses the key for as long as this isolate knows it blocked (`known`).
 */
import type { CounterCall, CounterVerdict } from "../stored/wire-calls.ts";

interface Block {
  /** Local-clock instant until which this isolate answers for the object: when the request was sent + retry-after, at most the hold. */
  readonly blockedUntil: number;
  /** Local-clock instant at which the object certainly allows again (when the answer arrived + retry-after), for Retry-After. */
  readonly allowedBy: number;
  readonly verdict: CounterVerdict;
  /** When the verdict was received, to age its relative times. */
  readonly receivedAt: number;
  /** Bytes it takes with its key (see `blockBytes`). */
  readonly weight: number;
}

/**
 * The longest an isolate answers a block without asking its object again:
 * the bound on how long an admin reset elsewhere goes unseen here
 * (docs/precount.md, "Certain-block cache").
 */
export const BLOCK_CACHE_HOLD_MS = 60_000;

/** A penalty block with less than this left is answered to its end without asking the object again (renewAt). */
export const BLOCK_RENEW_FLOOR_MS = 1_000;

/**
 * How long after `sentAt` this isolate answers a block of `waitMs` on its
 * own: to its end, at most the hold; a block that breaches escalate
 * (`renewEarly`) only halfway to its end, so that a hit after that asks the
 * object while the block still holds, carrying the breaches counted here
 * (the halves shrink to BLOCK_RENEW_FLOOR_MS: a few calls per block).
 *
 * @example
 * renewAt(15_000, false); // 15000
 * renewAt(15_000, true);  // 7500
 * renewAt(600_000, true); // 60000 (the hold)
 */
export function renewAt(waitMs: number, renewEarly: boolean): number {
  const local = renewEarly && waitMs > BLOCK_RENEW_FLOOR_MS ? Math.max(BLOCK_RENEW_FLOOR_MS, waitMs / 2) : waitMs;
  return Math.min(local, BLOCK_CACHE_HOLD_MS);
}

/**
 * The cache key of a counter call: its counter key, cost and limit ids.
 *
 * @example
 * blockKey({ key: "k", cost: 1, limits: [limit] }); // "k\u00011\u0001<limit id>"
 */
export function blockKey(call: CounterCall): string {
  let key = `${call.key}\u0001${call.cost}`;
  for (const limit of call.limits) key += `\u0001${limit.id}`;
  return key;
}

/**
 * Default bytes of blocks remembered per isolate (about 9,000 blocks of
 * short keys): weighed in bytes, not entries, so long keys cannot take an
 * isolate past its 128 MB (docs/reliability.md, "Bounded memory").
 */
export const BLOCK_CACHE_BYTES = 4 * 1024 * 1024;

// Estimates of what V8 holds: the Map slot, the Block and verdict objects, one object per decision,
// and the key at two bytes a character (it may also be held as the concatenation it was built from).
const BLOCK_BYTES = 200;
const DECISION_BYTES = 100;
/**
 * The bytes a block of `verdict` under `key` is weighed at.
 *
 * @example
 * new BlockCache(2 * blockBytes(key, verdict)); // room for two such blocks
 */
export function blockBytes(key: string, verdict: CounterVerdict): number {
  return BLOCK_BYTES + 2 * key.length + DECISION_BYTES * verdict.decisions.length;
}

/**
 * A bounded LRU of certain blocks, keyed by counter call (key + limit ids +
 * cost), `capacity` bytes at most.
 *
 * @example
 * const cache = new BlockCache();
 * cache.remember(cacheKey, verdict, sentAt, Date.now());
 * const cached = cache.lookup(cacheKey, Date.now()); // a verdict to answer 429 from, or undefined
 */
export class BlockCache {
  private readonly blocks = new Map<string, Block>();
  private readonly capacity: number;
  private held = 0;

  constructor(capacity = BLOCK_CACHE_BYTES) {
    this.capacity = capacity;
  }

  /**
   * Remember a rejection if it is certain (finite retry-after, counted by
   * every window). `sentAt`/`receivedAt` bracket the round trip, so the block
   * ends no later than the object's T and Retry-After is never earlier.
   * `renewEarly`: breaches escalate the block (see renewAt). Any other
   * answer forgets what was known of `key` (the object knows better).
   *
   * @example
   * cache.remember(key, verdict, sentAt, receivedAt);
   */
  remember(key: string, verdict: CounterVerdict, sentAt: number, receivedAt: number, renewEarly = false): void {
    // A rejection leased quota caused may pass as soon as the lease comes back: not certain.
    if (verdict.allowed || verdict.provisional === true) {
      if (this.blocks.size > 0) this.drop(key);
      return;
    }
    let wait = 0;
    this.drop(key);
    for (const decision of verdict.decisions) {
      if (decision.allowed) continue;
      if (!Number.isFinite(decision.retryAfterMs)) return; // can never pass: nothing to learn about time
      wait = Math.max(wait, decision.retryAfterMs);
    }
    if (wait <= 0) return;
    const weight = blockBytes(key, verdict);
    // A block heavier than the whole cache (every block, with a cache of 0 bytes: the cache off) is not kept.
    if (weight > this.capacity) return;
    this.blocks.set(key, { blockedUntil: sentAt + renewAt(wait, renewEarly), allowedBy: receivedAt + wait, verdict, receivedAt, weight });
    this.held += weight;
    for (const oldest of this.blocks.keys()) {
      if (this.held <= this.capacity || oldest === key) break;
      this.drop(oldest);
    }
  }

  /**
   * The cached rejection for `key` as it stands at `now`, with its times
   * re-based to `now`; undefined when there is none or it has expired.
   *
   * @example
   * const verdict = cache.lookup(key, Date.now());
   */
  lookup(key: string, now: number): CounterVerdict | undefined {
    const block = this.blocks.get(key);
    if (block === undefined) return undefined;
    if (now >= block.blockedUntil) {
      // Past the hold the object is asked again; the block stays known to its end (see `known`).
      if (now >= block.allowedBy) this.drop(key);
      return undefined;
    }
    return rebased(block, now);
  }

  /**
   * The rejection for `key` while this isolate knows it holds (to the end
   * the object gave, past the hold): what a decision without the object
   * answers (FAILURE_MODE, src/admission/local-decision.ts).
   *
   * @example
   * const verdict = cache.known(key, Date.now()); // undefined once the block has ended
   */
  known(key: string, now: number): CounterVerdict | undefined {
    const block = this.blocks.get(key);
    if (block === undefined || now >= block.allowedBy) return undefined;
    return rebased(block, now);
  }

  /**
   * Drop every cached block of a counter key (after an admin reset in this
   * isolate; other isolates ask the object again within the hold).
   *
   * @example
   * cache.forget(counterKey);
   */
  forget(counterKey: string): void {
    const prefix = `${counterKey}\u0001`;
    for (const key of this.blocks.keys()) if (key.startsWith(prefix)) this.drop(key);
  }

  /** Number of cached blocks. */
  get size(): number {
    return this.blocks.size;
  }

  /** Estimated bytes the cached blocks take, keys included. */
  get bytes(): number {
    return this.held;
  }

  private drop(key: string): void {
    const block = this.blocks.get(key);
    if (block === undefined) return;
    this.held -= block.weight;
    this.blocks.delete(key);
  }
}

// The block's verdict with its relative times aged to `now`.
function rebased(block: Block, now: number): CounterVerdict {
  const aged = now - block.receivedAt;
  return {
    allowed: false,
    decisions: block.verdict.decisions.map((d) => ({
      ...d,
      remaining: d.allowed ? d.remaining : 0,
      resetAfterMs: Math.max(0, d.resetAfterMs - aged),
      retryAfterMs: d.allowed ? 0 : Math.max(1, d.retryAfterMs - aged),
      effectiveWindowMs: Math.max(1, d.effectiveWindowMs - aged),
    })),
  };
}
