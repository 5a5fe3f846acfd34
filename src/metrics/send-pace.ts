/**
 * When an isolate sends its pending metric counts (docs/metrics.md,
 * "Freshness"), as a pure function of its requests and a clock, so a
 * simulated clock can drive 10,000 isolates through it
 * (test/rules/control-plane.node.test.ts): a batch goes once its first
 * count is METRICS_FLUSH_MS old or once it holds SEND_EVERY_REQUESTS
 * requests, whichever comes first (a fresh isolate's first batch at once,
 * so a new isolate's first counts show without a wait); an isolate with
 * nothing pending sends nothing. A tail timer, armed within a request's own waitUntil and never
 * longer than TAIL_MAX_MS, sends what the last requests left once the
 * stream stops.
 */

/** Most requests one batch holds: a busy isolate sends once per this many. */
export const SEND_EVERY_REQUESTS = 1_000;
/** Longest a tail timer waits (waitUntil work must end within 30 s of its response, the send's RPC included). */
export const TAIL_MAX_MS = 20_000;

/** What a request does: send now, arm a tail timer (`gen` names it), or nothing. */
export type PaceStep = { readonly send: true } | { readonly tailInMs: number; readonly gen: number } | undefined;

/**
 * One isolate's send pace.
 *
 * @example
 * const pace = new SendPace(30_000);
 * const step = pace.request(Date.now());
 * if (step?.send) { pace.sent(); send(); }
 * else if (step) setTimeout(() => pace.tailDue(step.gen) && send(), step.tailInMs);
 */
export class SendPace {
  private readonly flushMs: number;
  private readonly everyRequests: number;
  private readonly tailMaxMs: number;
  /** When the pending batch got its first count (undefined: nothing pending). */
  private firstAt?: number;
  private requests = 0;
  /** When the newest tail timer fires, and its name. */
  private tailAt?: number;
  private gen = 0;
  private sentOnce = false;

  constructor(flushMs: number, everyRequests: number = SEND_EVERY_REQUESTS, tailMaxMs: number = TAIL_MAX_MS) {
    this.flushMs = flushMs;
    this.everyRequests = everyRequests;
    this.tailMaxMs = Math.min(tailMaxMs, Math.max(flushMs, 0));
  }

  /** A request at `now` left counts pending: what it does about them. */
  request(now: number): PaceStep {
    this.firstAt ??= now;
    this.requests += 1;
    if (!this.sentOnce || now - this.firstAt >= this.flushMs || this.requests >= this.everyRequests) return { send: true };
    const fireAt = Math.min(this.firstAt + this.flushMs, now + this.tailMaxMs);
    // A newer request re-arms only when the armed timer would fire in the first half of its own reach: about two
    // timers per TAIL_MAX_MS of steady traffic, all in memory, and the newest always fires within reach of the last request.
    if (this.tailAt !== undefined && (this.tailAt >= fireAt || this.tailAt >= now + this.tailMaxMs / 2)) return undefined;
    this.tailAt = fireAt;
    this.gen += 1;
    return { tailInMs: fireAt - now, gen: this.gen };
  }

  /** A tail timer fired: whether it is the newest, so it sends. */
  tailDue(gen: number): boolean {
    return gen === this.gen && this.firstAt !== undefined;
  }

  /** A send took the pending batch. */
  sent(): void {
    this.sentOnce = true;
    this.firstAt = undefined;
    this.requests = 0;
    this.tailAt = undefined;
    this.gen += 1;
  }
}
