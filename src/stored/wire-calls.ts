/**
 * STORED FORMAT (docs/stored-formats.md): what an isolate sends a
 * CounterObject and what it answers, and what a regional object sends its
 * home. Old and new isolates and objects talk to each other during every
 * deploy, so these shapes change only as that page says: a field added is
 * optional and its absence means what it meant before; a meaning changed
 * is a new `WIRE_VERSION` (src/stored/wire.ts). Plain data, so it crosses
 * the RPC boundary as JSON text (`decideText`) or by structured clone.
 */
import type { PenaltySpec } from "../algorithms/penalty.ts";
import type { AlgorithmName, Decision } from "../algorithms/types.ts";
import type { Defer } from "../http/defer.ts";

/** What a pre-counting sync asks of the object, beside the hits it reports. */
export interface LeaseRequest {
  /** The isolate: random per isolate (and per pre-counting table). */
  readonly holder: string;
  /** Unspent quota the isolate would like to hold after this call (0: none). */
  readonly want: number;
  /** Of its lease, hits it gives back unspent; it will not spend them. */
  readonly release?: number;
  /** How long the lease lasts without a sync; the isolate stops spending it sooner (its own clock, from before it sent). */
  readonly ttlMs: number;
  /**
   * A region's copy numbers its syncs (increasing per copy): the object keeps
   * the last one it took, so a hit the copy sends beside its lease
   * (`DecideCall.fromLease`) is taken from the lease only once the sync it
   * followed is in (docs/placement.md, "Bursts"). Absent: not numbered.
   */
  readonly syncNo?: number;
}

/**
 * A hit a region's copy asks its home for while it holds a lease there
 * (docs/placement.md, "Bursts"): the home takes it from that lease first,
 * out of what the lease holds beyond `claimed` (the hits the copy spent and
 * quota it lent, not yet reported), once the sync numbered `after` is in.
 */
export interface FromLease {
  readonly holder: string;
  readonly after: number;
  readonly claimed: number;
}

/** One limit to enforce on a counter, as the algorithms need it. */
export interface LimitCall {
  /** Stable identity of the limit's configuration (CompiledLimit.id). */
  readonly id: string;
  readonly algorithm: AlgorithmName;
  readonly limit: number;
  readonly windowMs: number;
  readonly burst: number;
  /**
   * Read only by a `reserve` call: this window may admit the request at a
   * future slot (a bucket limit with `on_limit: "delay"`, or any bucket when
   * the queue consumer paces); the other windows must allow it now. It stays
   * on the limit, not the call, because queued messages carry it this way.
   */
  readonly reserve?: boolean;
  /**
   * Windows of 5 s or longer: the longest a change waits for its
   * checkpoint (absent: 1000 ms). Optional, like `strict`, so a call from an
   * older isolate decides with the defaults.
   */
  readonly persistMs?: number;
  /** Write every change of this window before the answer leaves the object. */
  readonly strict?: boolean;
  /** A concurrency limit (docs/concurrency.md): `limit` slots, leased to the call's `slot` holder; the window fields are unused. */
  readonly concurrency?: true;
  /**
   * The limit's penalty box (docs/rules.md, "Penalty box"), in
   * milliseconds. Optional: an object of an older deploy ignores it and
   * decides by the window alone, as before.
   */
  readonly penalty?: PenaltySpec;
}

/** Who takes a concurrency slot, and for how long without a renewal (docs/concurrency.md). */
export interface SlotLease {
  /** Unique per request: the release and renewals name it. */
  readonly holder: string;
  /** The slot is freed this long after it was taken or last renewed, if nobody releases it. */
  readonly leaseMs: number;
}

/** What every call names: one counter key, all its windows, and how many hits. */
interface CallTarget {
  /** Unambiguous counter key (see `counterKey`). */
  readonly key: string;
  readonly limits: readonly LimitCall[];
  /** Hits to add; 0 reads the counter without consuming. */
  readonly cost: number;
  /**
   * Decide and reserve calls: the hits may be given back (`count_when`,
   * `cost_from_response`), so an allowed verdict says when the object took
   * them (`chargedAt`), which a later RefundCall names.
   */
  readonly refundable?: boolean;
}

/**
 * The plain call: all-or-nothing, every window must allow the hits now.
 * `kind` may be left out, so `{ key, limits, cost }` is a decide call.
 */
export interface DecideCall extends CallTarget {
  readonly kind?: "decide";
  /** With concurrency limits among `limits`: the slot to take (without it they are only read). */
  readonly slot?: SlotLease;
  /**
   * Breaches of a penalty block that the isolate answered from its
   * certain-block cache since its last call on this counter (docs/rules.md,
   * "Penalty box"): the object counts them, with this call's own, against
   * the block in force. Optional: absent is none; an object of an older
   * deploy ignores it.
   */
  readonly breaches?: number;
  /**
   * A global call sent to its home directly from a request of this region
   * (a location hint), because the key is not warm there yet: the home
   * counts the region's hits and answers `warm` once they pay for a
   * regional lease (docs/placement.md, "Relay only what pays"). Absent: no
   * region (or an isolate of an older deploy); an object of an older deploy
   * ignores it.
   */
  readonly region?: string;
  /** A region's copy's hit: taken from its lease first (FromLease). Absent: from the free quota only. */
  readonly fromLease?: FromLease;
}

/**
 * The concurrency slots `slot.holder` took on every concurrency limit of
 * `limits`: `release` frees them (a no-op for slots it does not hold),
 * `renew` extends their lease (`allowed` false when one was already freed).
 * Rate windows among `limits` are left alone.
 */
export interface SlotCall extends CallTarget {
  readonly kind: "release" | "renew";
  readonly slot: SlotLease;
}

/**
 * A request over a reservable window is not rejected but given the first
 * slot at which every window allows it, if that is at most `maxDelayMs`
 * away; the slot is taken now, atomically, and answered as `delayMs`
 * (on_limit "delay", and the queue consumer's pacing).
 */
export interface ReserveCall extends CallTarget {
  readonly kind: "reserve";
  /** The furthest slot to take; further is a plain rejection. */
  readonly maxDelayMs: number;
}

/**
 * Edge pre-counting sync: `cost` hits the isolate already allowed (also how
 * an isolate pays the hits FAILURE_MODE=local allowed: src/isolate/debts.ts). Hits its
 * lease covered are charged (they were set aside); any others are taken one
 * by one while they fit, and `accepted` says how many were (the rest is
 * overshoot). With `lease`, the object then sets quota aside for the
 * isolate's next local decisions and answers it as `reserved`.
 */
export interface AbsorbCall extends CallTarget {
  readonly kind: "absorb";
  /**
   * The call's id (docs/reliability.md, "Exactly once"): a debt payment, a
   * usage settlement or a pre-counting sync, unique per isolate and call
   * (at most 64 characters). An object that applied a call with this id in
   * the last minute answers a second one as it did the first and applies
   * nothing. Absent (an isolate of an older deploy, a regional copy's sync):
   * applied every time it comes; an object of an older deploy ignores it.
   */
  readonly op?: string;
  readonly lease?: LeaseRequest;
  /**
   * Set by an isolate pre-counting a global key hot at the region's copy
   * (docs/placement.md, "Hot keys at the region's copy"): that copy's own
   * name. The copy leases the isolate quota out of its own regional lease and
   * passes the reported hits on to the home. An isolate sends it only to a
   * copy that hinted the key hot in an answer to a relayed call, which an
   * object of an older deploy never does.
   */
  readonly object?: string;
  /**
   * When the reported hits were allowed, on the holder's clock
   * (docs/placement.md, "Hits charged in their window"): parts in time
   * order whose costs sum to `cost`; a part's `at` is the time of its last
   * hit, and no part spans a window edge of `limits`. The object charges
   * each part at its `at` (never later than its own now), so a hit allowed
   * before a window's end counts in that window, and in none once that
   * window is over. Absent (a holder of an older deploy), or not summing to
   * `cost`: every hit at the object's now, as before.
   */
  readonly spentAt?: readonly SpentAt[];
}

/** Hits a lease holder allowed at one time (the last of them), reported later: see `AbsorbCall.spentAt`. */
export interface SpentAt {
  readonly at: number;
  readonly cost: number;
}

/**
 * Give back `cost` hits a refundable DecideCall took at `chargedAt` (the
 * object's clock, from its verdict), on the windows in `limits`: the
 * response did not match `count_when`, or the origin reported less than was
 * reserved. See `refund` in src/algorithms for how exact each algorithm is.
 */
export interface RefundCall extends CallTarget {
  readonly kind: "refund";
  readonly chargedAt: number;
  /** The refund's id: applied once however often it comes (see `AbsorbCall.op`). */
  readonly op?: string;
}

/**
 * A strong decision on a global counter, sent to the region's copy of its
 * home object (docs/placement.md, "Global limits decided in the region"):
 * that object decides it from the quota its home leased the region, or asks
 * the home on its behalf. `object` is the regional object's own name
 * (`inRegion(home, region)`): it learns its home and its region from it.
 */
export interface RelayCall extends CallTarget {
  readonly kind: "relay";
  readonly object: string;
}

/** One hit (or several, via `cost`) against one counter key and all its windows. */
export type CounterCall = DecideCall | ReserveCall | AbsorbCall | SlotCall | RefundCall | RelayCall;

/** The object's answer to one CounterCall. */
export interface CounterVerdict {
  /** True only if every window allowed; then every window consumed `cost`. */
  readonly allowed: boolean;
  /** One decision per `limits` entry, same order. */
  readonly decisions: readonly Decision[];
  /** For `absorb` calls: how many of the hits fitted. */
  readonly accepted?: number;
  /**
   * For `absorb` calls with a lease: the quota leased to that isolate after
   * this call; it may allow that many hits without asking (its decisions
   * then count the view as their `remaining`).
   */
  readonly reserved?: number;
  /**
   * A rejection that quota leased to pre-counting isolates caused: it may
   * pass as soon as they give it back, so it is no certain block.
   */
  readonly provisional?: boolean;
  /**
   * For `reserve` calls that were allowed: how long after the object's now
   * the reserved slot is (0 or absent: now). The decisions are then those
   * at the slot.
   */
  readonly delayMs?: number;
  /** For allowed refundable calls: the object's clock when it took the hits. */
  readonly chargedAt?: number;
  /**
   * For plain decisions and pre-counting syncs on a counter hot at its
   * object: pre-count it with this sync period (docs/precount.md, "Hot keys
   * lease on their own"). Absent: not hot (or an object of an older deploy).
   */
  readonly hot?: { readonly syncMs: number };
  /**
   * For `absorb` calls with a lease, when the lease granted ends sooner than
   * the `ttlMs` asked (a region's copy never lends past its own lease's end):
   * the time it has left, counted from when the object took the call. The
   * holder stops spending at its send time plus the shorter of the two.
   */
  readonly leaseMs?: number;
  /**
   * For plain calls with `fromLease`: the hits taken from the caller's lease
   * (the caller's budget shrinks by them), and the number of the caller's
   * last sync the object had taken then (`after`: a sync numbered above it
   * was answered with the lease not yet shrunk).
   */
  readonly taken?: { readonly hits: number; readonly after: number };
  /**
   * For plain calls that carried `region`: the key is warm in that region,
   * so its next calls from there go to the region's copy (docs/placement.md,
   * "Relay only what pays").
   */
  readonly warm?: true;
}

/**
 * Sends calls owned by one object (named as in `objectName`) and resolves
 * with one verdict per call, in order: the CounterObject's `decide` RPC, as
 * the edge uses it. `defer` (the caller's `ctx.waitUntil`) keeps the
 * caller's request alive for work other requests wait on: a batch it sends
 * for them, in the coalescer.
 *
 * @example
 * const send: SendBatch = (name, calls) => env.COUNTERS.getByName(name).decide(calls);
 */
export type SendBatch = (objectName: string, calls: readonly CounterCall[], defer?: Defer) => Promise<CounterVerdict[]>;
