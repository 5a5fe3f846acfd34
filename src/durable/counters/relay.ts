/**
 * A regional object's side of global limits decided in the region
 * (docs/placement.md, "Global limits decided in the region"). Toward the
 * key's home object it is a lease holder (lease-holder.ts, the one
 * pre-counting isolates use, with the regional policy of relay-lease.ts;
 * precount-sync.ts unchanged at the home): it allows a hit from the
 * regional lease when the lease covers it, and otherwise asks the home on
 * the hit's behalf in one call that also reports what the region allowed
 * and asks for the next lease. A hit (or an isolate's sync) that finds the
 * lease near its end or three quarters used renews it in the background;
 * keys that went idle report and give their leases back on the object's
 * alarm (`syncDue`), which is set only while something is owed, and a key
 * whose lease nears its end unrenewed reports on it too. A hit the
 * home refused only for the leases out is allowed from this region's lease
 * once it covers it (docs/placement.md, "Bursts"), and a hit it asks the
 * home for is taken from this region's lease first (`fromLease`), so a
 * burst does not leave the lease unspent while other regions are refused
 * (docs/placement.md, "A burst from several regions at once on a key warm
 * in each"). Toward the region's
 * isolates it is a counter object: a key hot here is hinted hot, and its
 * isolates pre-count it from quota lent out of the regional lease
 * (relay-sublease.ts). Leases live in memory only: nothing is written.
 */
import type { CounterCall, CounterVerdict, RelayCall } from "../../stored/wire-calls.ts";
import type { AbsorbCall } from "../../stored/wire-calls.ts";
import { HOT_KEYS_BYTES, HOT_SYNC_MIN_MS, type HotHint, HotKeys, REGIONAL_HOT } from "./hot-keys.ts";
import { endSync, failSync, owesHits, spend, startSync } from "./leases/lease-holder.ts";
import { leaseVerdict } from "./leases/lease-verdict.ts";
import { LeaseBook } from "./leases/leases.ts";
import { leaseId } from "./leases/precount-sync.ts";
import { homeOf } from "./regions.ts";
import { HomeLink, type HomeSend } from "./relay-link.ts";
import {
  answered,
  canSpend,
  freeOf,
  type Held,
  newHeld,
  RELAY_IDLE_MS,
  RELAY_LEASE_TTL_MS,
  RELAY_POLICY,
  RELAY_RENEW_MS,
  RELAY_SYNC_MS,
  syncCall,
  takeLease,
} from "./leases/relay-lease.ts";
import { expireLent, lend, SUBLEASE_BOOK_BYTES } from "./leases/relay-sublease.ts";

export { type HomeSend, RELAY_HOME_TIMEOUT_MS } from "./relay-link.ts";
export { RELAY_IDLE_MS, RELAY_LEASE_MIN, RELAY_LEASE_SHARE, RELAY_LEASE_TTL_MS, RELAY_RENEW_MS, RELAY_SYNC_MS } from "./leases/relay-lease.ts";

/** Bytes of per-key state a regional object keeps for global keys; idle keys beyond it are dropped, their leases given back. */
export const RELAY_BYTES = 1 << 20;

/**
 * The most of a hot key's smallest limit its rate may take in one sync
 * period (isolates hold about two periods' hits in leases): an eighth.
 */
const LEASED_SHARE = 1 / 8;

/** Syncs a hit the home refused for the leases out may wait for before it is refused: the one on its way, then one asking for it. */
const TOP_UP_ROUNDS = 3;

/** What a regional object did for global keys, for tests and the bench. */
export interface RelayStats {
  /** Hits allowed from a regional lease (no call to the home). */
  local: number;
  /** Hits the home decided, asked on the request's behalf. */
  asked: number;
  /** Calls to the home (each a batch). */
  homeCalls: number;
  /** Hits allowed from a lease the home no longer knew (it restarted) that did not fit: the overshoot. */
  overshoot: number;
  /** Syncs of isolates pre-counting a key hot here (each a call of its own or part of a batch). */
  lent: number;
}

/**
 * The regional leases of one regional object.
 *
 * @example
 * const relay = new RegionalRelay(async (home, calls) => verdictsFromWire(await counterStub(namespace, home).decideText(toWire(calls), WIRE_VERSION)), () => Date.now());
 * const verdict = await relay.decide({ kind: "relay", object: "api/shard/3@weur", key, limits, cost: 1 });
 */
export class RegionalRelay {
  private readonly counts = { local: 0, asked: 0, overshoot: 0, lent: 0 };
  /** Quota lent on to isolates pre-counting keys hot here (relay-sublease.ts). */
  private readonly lentBook = new LeaseBook(SUBLEASE_BOOK_BYTES);
  /** Hits and calls per key here: a hot one is hinted to the isolates (hot-keys.ts, as at a home). */
  private readonly hotKeys = new HotKeys(HOT_KEYS_BYTES, REGIONAL_HOT);
  /** This object instance as the home's lease book names it: a restarted one starts afresh. */
  readonly holder: string = crypto.randomUUID();
  private readonly held = new Map<string, Held>();
  private heldBytes = 0;
  /** Set by the first relayed call (this object's name names its home). */
  private link: HomeLink | undefined;
  /** When the next background sync is due (Infinity: none, nothing held). */
  private dueAt = Infinity;
  /** Syncs sent so far (over every key): each sync's number (LeaseRequest.syncNo). */
  private syncs = 0;
  private readonly send: HomeSend;
  private readonly now: () => number;
  private readonly schedule: (at: number) => void;

  /**
   * `schedule(at)` asks the owner to call `syncDue` at `at` (a counter
   * object sets its alarm: docs/placement.md, "What it costs"); without it,
   * a timer does (tests of the relay alone).
   */
  constructor(send: HomeSend, now: () => number, schedule?: (at: number) => void) {
    this.send = send;
    this.now = now;
    this.schedule = schedule ?? ((at) => void setTimeout(() => void this.syncDue(), Math.max(0, at - this.now())));
  }

  /** When the next background sync is due (Infinity: none): the owner's alarm is set no later. */
  get nextSyncAt(): number {
    return this.dueAt;
  }

  /**
   * Run the background sync (the owner's alarm, at `nextSyncAt` or later;
   * earlier is harmless): report hits, renew leases nearing their end, give
   * back idle ones, drop keys that hold and owe nothing. Resolves once the
   * home answered or failed.
   *
   * @example
   * if (relay.nextSyncAt <= now) await relay.syncDue();
   */
  async syncDue(): Promise<void> {
    if (this.dueAt === Infinity) return;
    this.dueAt = Infinity;
    await this.tick();
  }

  /** Estimated bytes of per-key state (RELAY_BYTES bounds it, keys with hits on their way aside). */
  get bytes(): number {
    return this.heldBytes;
  }

  /** What this object did for global keys so far. */
  get stats(): RelayStats {
    return { ...this.counts, homeCalls: this.link?.sent ?? 0 };
  }

  /** Keys held. */
  get size(): number {
    return this.held.size;
  }

  /**
   * Resolves once no call to the home is queued or unanswered (tests and the bench wait for background syncs with it).
   *
   * @example
   * await relay.settled();
   */
  async settled(): Promise<void> {
    await this.link?.settled();
  }

  /**
   * Decide a relayed hit: at once from the lease, or through the home.
   *
   * @example
   * const verdict = await relay.decide(call);
   */
  decide(call: RelayCall): CounterVerdict | Promise<CounterVerdict> {
    this.linkFor(call.object);
    const now = this.now();
    const id = leaseId(call);
    const hint = this.hintOf(call, id, now);
    const held = this.held.get(id);
    if (held !== undefined) {
      // Least recently used first out: a hit moves the key to the end.
      this.held.delete(id);
      this.held.set(id, held);
      expireLent(this.lentBook, id, held, now);
      if (call.cost > 0 && canSpend(held, call.cost, now)) {
        spend(held, call.cost, now);
        this.counts.local += 1;
        this.renewIfDue(held, now);
        this.wake(Math.min(now + RELAY_IDLE_MS, syncBefore(held, now)));
        return withHint(leaseVerdict(held, now), hint);
      }
    }
    const asked = this.ask(id, held, call, now);
    return hint === undefined ? asked : asked.then((verdict) => withHint(verdict, hint));
  }

  /**
   * An isolate's sync on a global key it pre-counts from this copy (its
   * `object` names this copy): its reported hits charged to the region, and
   * quota lent it out of the regional lease (relay-sublease.ts). When this
   * copy holds no lease on the key yet, or too little, it asks the home in the
   * background; a sync already on its way is waited for first.
   *
   * @example
   * const verdict = await relay.lend({ kind: "absorb", object: "api/shard/3@weur", key, limits, cost: 5, lease });
   */
  lend(call: AbsorbCall): CounterVerdict | Promise<CounterVerdict> {
    this.linkFor(call.object ?? "");
    const now = this.now();
    const id = leaseId(call);
    this.counts.lent += 1;
    const hint = this.hintOf(call, id, now);
    const held = this.held.get(id) ?? this.add(id, newHeld(call, now, this.syncs + 1));
    const lendNow = (at: number): CounterVerdict => {
      const answer = withHint(lend(this.lentBook, id, held, call, at), hint);
      this.renewIfDue(held, at);
      this.wake(Math.min(at + RELAY_IDLE_MS, syncBefore(held, at)));
      return answer;
    };
    // Nothing free to lend (a key new here, a lease all spent or lent): ask the home first, and lend what it grants.
    const want = call.lease?.want ?? 0;
    if (!held.syncing && want > 0 && freeOf(held) <= 0) {
      held.subAsk += want;
      void this.sync(held, now);
    }
    if (held.syncing && held.synced !== undefined) return held.synced.then(() => lendNow(this.now()));
    return lendNow(now);
  }

  /**
   * Meter a call on key `id`; its hint when hot, the period no longer than
   * leases a key's rate would take a LEASED_SHARE of its smallest limit in:
   * near its limit a long period would leave quota unspent in the isolates'
   * leases while others are refused (false denies), so a key whose limit is
   * small for its rate is synced as often as at a home.
   */
  private hintOf(call: CounterCall, id: string, now: number): HotHint | undefined {
    const hint = this.hotKeys.note(id, call.cost, now);
    if (hint === undefined) return undefined;
    const limit = Math.min(...call.limits.map((l) => l.limit));
    const fits = Math.floor((limit * LEASED_SHARE * 1_000) / Math.max(1, this.hotKeys.hitsPerSecond(id, now)));
    return fits >= hint.syncMs ? hint : { syncMs: Math.max(HOT_SYNC_MIN_MS, fits) };
  }

  /** A hit or an isolate's sync found the lease near its end or mostly used: renew it now, in the background. */
  private renewIfDue(held: Held, now: number): void {
    if (held.syncing) return;
    const free = freeOf(held);
    if (held.until - now > RELAY_RENEW_MS && 4 * free >= held.budget) return;
    void this.sync(held, now);
  }

  private linkFor(object: string): void {
    const home = homeOf(object);
    this.link ??= new HomeLink(this.send, home);
    // One regional object relays to one home: a call naming another would charge the wrong counter.
    if (home !== this.link.home) throw new Error(`relay call for ${object} reached the copy of ${this.link.home}`);
  }

  private async ask(id: string, existing: Held | undefined, call: RelayCall, now: number): Promise<CounterVerdict> {
    this.counts.asked += 1;
    const held = existing ?? this.add(id, newHeld(call, now, this.syncs + 1));
    if (held.budget > 0) held.short += call.cost;
    held.hitsSinceSync += call.cost;
    held.lastHitAt = now;
    // The hit first, decided beside every lease, and out of this region's own first, as far as it holds more than the
    // hits spent and quota lent not yet reported, once the sync it follows is in (docs/placement.md, "Bursts"): else a
    // burst spends the home's free quota while the lease the region took for it stays unspent and others are refused.
    const fromLease = { holder: this.holder, after: held.syncNo, claimed: held.pending + held.subleased };
    const calls: CounterCall[] = [{ key: call.key, limits: call.limits, cost: call.cost, fromLease }];
    const syncs = !held.syncing;
    const sent = syncs ? startSync(held) : 0;
    if (syncs) calls.push(syncCall(held, sent, this.holder, now, ++this.syncs));
    // Until answered, the home may take it from the lease: it counts against the lease.
    held.asking += call.cost;
    const reply = this.home().call(calls);
    void reply.then(
      (answers) => answered(held, call.cost, answers[0]?.taken),
      // Unanswered, it may still have been taken: counted as taken, until a sync sent after now is answered.
      () => answered(held, call.cost, { hits: call.cost, after: held.syncNo }),
    );
    // The lease is taken (or the carried hits put back, for the next sync) before anyone waiting on the sync looks.
    if (syncs)
      held.synced = reply.then(
        (answers) => this.took(held, sent, answers[1], now),
        () => this.failed(held, sent),
      );
    const answers = await reply;
    const after = this.now();
    this.wake(Math.min(after + RELAY_IDLE_MS, syncBefore(held, after)));
    // The home decided the hit before the sync in the same call told it of this region's own spent hits (and of any
    // allowed since), so what it says is left counts them as free: they are not.
    const verdict = lessRemaining(answers[0], sent + held.pending + held.inflight);
    return !verdict.allowed && verdict.provisional === true && call.cost > 0 ? this.overturn(held, call, verdict) : verdict;
  }

  /**
   * A hit the home refused only because leases hold the quota, this
   * region's own among them (docs/placement.md, "Bursts"): allowed from this
   * region's lease once it covers it, after the sync on its way, or after a
   * sync that asks for what covers it; refused if the home has no more to
   * lease this region. Without it a burst is refused the lease the region
   * took and did not get to spend.
   */
  private async overturn(held: Held, call: RelayCall, refusal: CounterVerdict): Promise<CounterVerdict> {
    held.wanting += call.cost;
    try {
      for (let round = 0; round < TOP_UP_ROUNDS; round++) {
        // A sync on its way may bring the lease that covers it; one at a time, so wait for it first.
        while (held.syncing && held.synced !== undefined) if (!(await held.synced)) return refusal;
        const now = this.now();
        if (canSpend(held, call.cost, now)) {
          spend(held, call.cost, now);
          this.counts.local += 1;
          this.wake(Math.min(now + RELAY_IDLE_MS, syncBefore(held, now)));
          return leaseVerdict(held, now);
        }
        if (held.dry || !(await this.sync(held, now))) return refusal;
      }
      return refusal;
    } finally {
      held.wanting -= call.cost;
    }
  }

  private took(held: Held, sent: number, verdict: CounterVerdict, sentAt: number): boolean {
    this.counts.overshoot += sent - endSync(held, sent, verdict);
    takeLease(held, verdict, sentAt, this.now());
    return true;
  }

  /** The home did not answer: the carried hits wait for the next sync rather than being lost. */
  private failed(held: Held, sent: number): boolean {
    failSync(held, sent);
    return false;
  }

  /** Report and renew (or give back) one key's lease: whether the home answered. */
  private sync(held: Held, now: number): Promise<boolean> {
    const sent = startSync(held);
    const call = syncCall(held, sent, this.holder, now, ++this.syncs);
    const synced = this.home()
      .call([call])
      .then(
        ([verdict]) => this.took(held, sent, verdict, now),
        () => this.failed(held, sent),
      );
    held.synced = synced;
    return synced;
  }

  /**
   * On the alarm (`syncDue`): keys gone idle report their hits and give their
   * leases back; a lease isolates still hold quota of and nobody renewed is
   * renewed; keys holding and owing nothing are dropped. The next alarm is
   * set for the next key to go idle, and none while nothing is owed.
   */
  private async tick(): Promise<void> {
    const now = this.now();
    const syncs: Promise<void>[] = [];
    for (const [id, held] of this.held) {
      expireLent(this.lentBook, id, held, now);
      if (held.syncing) continue;
      const idle = RELAY_POLICY.idle(held, now);
      const ending = syncBefore(held, now) <= now;
      if ((idle && (held.pending > 0 || held.budget > 0)) || ending || (held.subleased > 0 && held.until - now <= RELAY_RENEW_MS))
        syncs.push(this.sync(held, now).then(noop));
    }
    if (syncs.length === 0 && this.link?.owesBack) syncs.push(this.link.call([]).then(noop, noop));
    await Promise.all(syncs);
    const after = this.now();
    for (const [id, held] of this.held) {
      if (owes(held)) this.wake(Math.min(Math.max(held.lastHitAt + RELAY_IDLE_MS, after + RELAY_SYNC_MS), syncBefore(held, after)));
      else if (after - held.lastHitAt >= RELAY_IDLE_MS) this.remove(id);
    }
  }

  /** Something is owed by `at` (a key's idle time, a lease to give back): the alarm is set no later, on the RELAY_SYNC_MS grid. */
  private wake(at: number): void {
    // On multiples of the period, so the keys due together leave in one call.
    const due = (Math.floor(at / RELAY_SYNC_MS) + 1) * RELAY_SYNC_MS;
    if (due >= this.dueAt) return;
    this.dueAt = due;
    this.schedule(due);
  }

  /** The link to the home (made by the first relayed call, before any key is held). */
  private home(): HomeLink {
    if (this.link === undefined) throw new Error("no relayed call yet");
    return this.link;
  }

  private add(id: string, held: Held): Held {
    this.held.set(id, held);
    this.heldBytes += held.bytes;
    if (this.heldBytes > RELAY_BYTES) this.evict();
    return held;
  }

  // Oldest first; a key with hits on their way is kept, so no hit goes unreported.
  private evict(): void {
    let scanned = 0;
    for (const [id, held] of this.held) {
      if (this.heldBytes <= RELAY_BYTES || ++scanned > 64) return;
      // Quota lent to isolates is part of the lease: the key stays until it is back.
      if (owesHits(held) || held.subleased > 0) continue;
      if (held.budget > 0) {
        const release = held.budget;
        this.home().giveBack({ ...held.call, kind: "absorb", cost: 0, lease: { holder: this.holder, want: 0, release, ttlMs: RELAY_LEASE_TTL_MS } });
        this.wake(this.now());
      }
      this.remove(id);
    }
  }

  private remove(id: string): void {
    const held = this.held.get(id);
    if (held === undefined) return;
    this.held.delete(id);
    this.heldBytes -= held.bytes;
  }
}

function noop(): void {}

/**
 * How long before its lease ends (as this object counts it) a key holding quota or hits syncs: two alarm periods, so
 * the alarm, on the RELAY_SYNC_MS grid, runs while the lease still lasts.
 */
const LEASE_END_SYNC_MS = 2 * RELAY_SYNC_MS;

/**
 * By when `held` must sync, seen at `from`, so the home hears of its hits and gets back its unspent quota before the
 * lease ends there (Infinity: nothing held, or the lease is over). A lease the home sees end is charged whole at that
 * instant and the hits reported after it are taken from that charge: the hits land at the lease's end, not at the
 * instants they were allowed (docs/placement.md, "Hits charged in their window"), and the quota never spent is charged
 * too. Without syncing every period, a key last hit between RELAY_RENEW_MS and RELAY_IDLE_MS before its lease's end
 * goes idle only after that end (the window-edge trace: a sliding window log refusing hits its exact model allows).
 */
function syncBefore(held: Held, from: number): number {
  if ((held.pending <= 0 && held.budget <= 0) || held.until <= from) return Infinity;
  return Math.max(from, held.until - LEASE_END_SYNC_MS);
}

/** Whether `held` has anything the home must hear of: hits, a lease to give back, quota lent to isolates, a sync on its way. */
function owes(held: Held): boolean {
  return owesHits(held) || held.budget > 0 || held.subleased > 0;
}

/** `verdict` with the hot hint, when the key is hot here. */
function withHint(verdict: CounterVerdict, hint: HotHint | undefined): CounterVerdict {
  return hint === undefined ? verdict : { ...verdict, hot: hint };
}

/** `verdict` with `spent` fewer left in each of its windows (never below 0). */
function lessRemaining(verdict: CounterVerdict, spent: number): CounterVerdict {
  if (spent <= 0) return verdict;
  return { ...verdict, decisions: verdict.decisions.map((d) => ({ ...d, remaining: Math.max(0, d.remaining - spent) })) };
}
