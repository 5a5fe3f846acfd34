/**
 * Request coalescing: concurrent decisions for the same counter object in
 * one isolate travel as one batched RPC. While an RPC to an object is in
 * flight from this isolate, calls for it gather in the next batch, which
 * leaves once that RPC has returned (see POLL_MS); when that RPC carried other callers'
 * calls too (the object is contended), no sooner than CONTENDED_INTERVAL_MS
 * after it left, so batches grow and each RPC and storage write serves more
 * decisions (group commit). The object decides a batch in order, so every
 * call gets exactly the answer it would have got alone, and an idle or
 * uncontended isolate adds no delay at all.
 *
 * Workers tie promises to the request that created them, and a promise
 * settled from another request is handed back to its own by the runtime:
 * if that request has ended (or ends before the hand-over runs), its
 * continuations are dropped and workerd logs a warning. So no request here
 * settles, or wakes, another's promise. The batch is plain data: its sender
 * writes the answer (or the error) into it, and each caller waiting on it
 * looks, from a timer of its own request (see POLL_MS), whether its answer
 * is in, and whether the object is free so that it may send the batch
 * itself. A sender keeps its request alive (`defer`, i.e. ctx.waitUntil)
 * until its RPC has settled, so the answer gets written.
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
import type { CounterCall, CounterVerdict, SendBatch } from "../durable/protocol.ts";
import type { Defer } from "../http/defer.ts";

/** Calls gathered for one RPC. Plain data only: no request's promise or callback is reachable from it. */
interface Batch {
  readonly name: string;
  readonly calls: CounterCall[];
  /** Callers waiting on it (not its sender's own calls, when it sends them at once). */
  waiters: number;
  /** When it was sent (undefined: still gathering calls). */
  sentAt?: number;
  /** Written by the sender when its RPC answers; each waiter reads its slice from its own timer. */
  verdicts?: CounterVerdict[];
  /** Written by the sender when its RPC fails. */
  failure?: {
    readonly error: unknown;
  };
}

/** How long an unanswered RPC keeps its object "busy" for batching. */
export const BUSY_FOR_MS = 1_000;

/**
 * How often a waiting caller looks (from its own request's timer) whether
 * its batch was answered, or whether it may send it; once the batch is
 * out, every eighth of the time its answer has taken so far, if that is
 * longer. The price of never being woken by another request: up to that
 * much added to a batched call's wait.
 */
export const POLL_MS = 1;

/** Holds kept before expired ones are swept (objects of per-key counters come and go). */
const HELD_KEPT = 1_024;

/** Largest batch one RPC carries; later calls wait for the next one. */
export const MAX_BATCH_CALLS = 512;

/**
 * Shortest gap between two batches to one contended object (see `release`).
 * Measured on one hot key in local workerd, where an RPC returns in a few
 * ms: 8 ms took throughput from 0.50× to 0.65× bare; 16 ms did no better.
 */
export const CONTENDED_INTERVAL_MS = 8;

/** Tuning for a Coalescer; the defaults suit the gateway. */
export interface CoalescerOptions {
  /** The longest a batch waits for the RPC before it; past that it goes out anyway, so a slow or lost RPC delays others by at most this. Default 100. */
  readonly maxWaitMs?: number;
  /** How long a sender's request stays alive for its batch (callers give up after the decision timeout anyway). Default 1,000. */
  readonly keepAliveMs?: number;
  /** Shortest gap between two batches to a contended object. Default CONTENDED_INTERVAL_MS. */
  readonly contendedIntervalMs?: number;
}

/**
 * Per-isolate batcher of counter calls, one queue per object.
 *
 * @example
 * const coalescer = new Coalescer((name, calls) => env.COUNTERS.getByName(name).decide(calls));
 * const verdicts = await coalescer.submit("api/shard/3", [call], (p) => ctx.waitUntil(p));
 */
export class Coalescer {
  private readonly send: SendBatch;
  private readonly maxWaitMs: number;
  private readonly keepAliveMs: number;
  private readonly contendedIntervalMs: number;
  /** The batch gathering calls for an object while an RPC to it is in flight. */
  private readonly open = new Map<string, Batch>();
  /** Start times of the RPCs in flight per object (a lost one stops counting after BUSY_FOR_MS). */
  private readonly inFlight = new Map<string, number[]>();
  /** Per contended object, when its next batch may leave (see `release`). */
  private readonly heldUntil = new Map<string, number>();
  /** RPCs sent, for tests and metrics. */
  rpcs = 0;
  constructor(send: SendBatch, options: CoalescerOptions = {}) {
    if (stryMutAct_9fa48("57")) {
      {}
    } else {
      stryCov_9fa48("57");
      this.send = send;
      this.maxWaitMs = stryMutAct_9fa48("58") ? options.maxWaitMs && 100 : (stryCov_9fa48("58"), options.maxWaitMs ?? 100);
      this.keepAliveMs = stryMutAct_9fa48("59") ? options.keepAliveMs && 1_000 : (stryCov_9fa48("59"), options.keepAliveMs ?? 1_000);
      this.contendedIntervalMs = stryMutAct_9fa48("60") ? options.contendedIntervalMs && CONTENDED_INTERVAL_MS : (stryCov_9fa48("60"), options.contendedIntervalMs ?? CONTENDED_INTERVAL_MS);
    }
  }

  /**
   * Decide `calls` (all owned by `objectName`) together with whatever else
   * this isolate is deciding on that object at the same time.
   *
   * @example
   * const [verdict] = await coalescer.submit(name, [call], defer);
   */
  submit(objectName: string, calls: readonly CounterCall[], defer: Defer = () => undefined): Promise<CounterVerdict[]> {
    if (stryMutAct_9fa48("61")) {
      {}
    } else {
      stryCov_9fa48("61");
      if (stryMutAct_9fa48("64") ? !this.busy(objectName) || !this.open.has(objectName) : stryMutAct_9fa48("63") ? false : stryMutAct_9fa48("62") ? true : (stryCov_9fa48("62", "63", "64"), (stryMutAct_9fa48("65") ? this.busy(objectName) : (stryCov_9fa48("65"), !this.busy(objectName))) && (stryMutAct_9fa48("66") ? this.open.has(objectName) : (stryCov_9fa48("66"), !this.open.has(objectName))))) {
        if (stryMutAct_9fa48("67")) {
          {}
        } else {
          stryCov_9fa48("67");
          return this.dispatch(stryMutAct_9fa48("68") ? {} : (stryCov_9fa48("68"), {
            name: objectName,
            calls: stryMutAct_9fa48("69") ? [] : (stryCov_9fa48("69"), [...calls]),
            waiters: 0
          }), defer, calls.length);
        }
      }
      let batch = this.open.get(objectName);
      if (stryMutAct_9fa48("72") ? batch === undefined && batch.calls.length + calls.length > MAX_BATCH_CALLS : stryMutAct_9fa48("71") ? false : stryMutAct_9fa48("70") ? true : (stryCov_9fa48("70", "71", "72"), (stryMutAct_9fa48("74") ? batch !== undefined : stryMutAct_9fa48("73") ? false : (stryCov_9fa48("73", "74"), batch === undefined)) || (stryMutAct_9fa48("77") ? batch.calls.length + calls.length <= MAX_BATCH_CALLS : stryMutAct_9fa48("76") ? batch.calls.length + calls.length >= MAX_BATCH_CALLS : stryMutAct_9fa48("75") ? false : (stryCov_9fa48("75", "76", "77"), (stryMutAct_9fa48("78") ? batch.calls.length - calls.length : (stryCov_9fa48("78"), batch.calls.length + calls.length)) > MAX_BATCH_CALLS)))) {
        if (stryMutAct_9fa48("79")) {
          {}
        } else {
          stryCov_9fa48("79");
          batch = stryMutAct_9fa48("80") ? {} : (stryCov_9fa48("80"), {
            name: objectName,
            calls: stryMutAct_9fa48("81") ? ["Stryker was here"] : (stryCov_9fa48("81"), []),
            waiters: 0
          });
          if (stryMutAct_9fa48("82")) {
            ;
          } else {
            stryCov_9fa48("82");
            this.open.set(objectName, batch);
          }
        }
      }
      const joined = batch;
      const from = joined.calls.length;
      if (stryMutAct_9fa48("83")) {
        ;
      } else {
        stryCov_9fa48("83");
        joined.calls.push(...calls);
      }
      stryMutAct_9fa48("84") ? joined.waiters -= 1 : (stryCov_9fa48("84"), joined.waiters += 1);
      const since = Date.now();
      const giveUpMs = stryMutAct_9fa48("85") ? this.maxWaitMs - this.keepAliveMs : (stryCov_9fa48("85"), this.maxWaitMs + this.keepAliveMs);
      // Settled only here, from this caller's own timer: the batch's sender writes the answer into the batch and
      // settles nothing of this request's. Past maxWaitMs the batch goes out even if the object still looks busy (a
      // lost RPC delays others by at most that); past the keep-alive a sender allows itself on top, this caller gives up.
      const answer = new Promise<CounterVerdict[]>((resolve, reject) => {
        if (stryMutAct_9fa48("86")) {
          {}
        } else {
          stryCov_9fa48("86");
          const look = () => {
            if (stryMutAct_9fa48("87")) {
              {}
            } else {
              stryCov_9fa48("87");
              if (stryMutAct_9fa48("90") ? joined.verdicts === undefined : stryMutAct_9fa48("89") ? false : stryMutAct_9fa48("88") ? true : (stryCov_9fa48("88", "89", "90"), joined.verdicts !== undefined)) return resolve(stryMutAct_9fa48("91") ? joined.verdicts : (stryCov_9fa48("91"), joined.verdicts.slice(from, stryMutAct_9fa48("92") ? from - calls.length : (stryCov_9fa48("92"), from + calls.length))));
              if (stryMutAct_9fa48("95") ? joined.failure === undefined : stryMutAct_9fa48("94") ? false : stryMutAct_9fa48("93") ? true : (stryCov_9fa48("93", "94", "95"), joined.failure !== undefined)) return reject(joined.failure.error);
              const now = Date.now();
              const waited = stryMutAct_9fa48("96") ? now + since : (stryCov_9fa48("96"), now - since);
              if (stryMutAct_9fa48("99") ? joined.sentAt === undefined || waited >= this.maxWaitMs || !this.busy(objectName) : stryMutAct_9fa48("98") ? false : stryMutAct_9fa48("97") ? true : (stryCov_9fa48("97", "98", "99"), (stryMutAct_9fa48("101") ? joined.sentAt !== undefined : stryMutAct_9fa48("100") ? true : (stryCov_9fa48("100", "101"), joined.sentAt === undefined)) && (stryMutAct_9fa48("103") ? waited >= this.maxWaitMs && !this.busy(objectName) : stryMutAct_9fa48("102") ? true : (stryCov_9fa48("102", "103"), (stryMutAct_9fa48("106") ? waited < this.maxWaitMs : stryMutAct_9fa48("105") ? waited > this.maxWaitMs : stryMutAct_9fa48("104") ? false : (stryCov_9fa48("104", "105", "106"), waited >= this.maxWaitMs)) || (stryMutAct_9fa48("107") ? this.busy(objectName) : (stryCov_9fa48("107"), !this.busy(objectName))))))) void this.dispatch(joined, defer, 0).catch(noop);
              if (stryMutAct_9fa48("111") ? waited < giveUpMs : stryMutAct_9fa48("110") ? waited > giveUpMs : stryMutAct_9fa48("109") ? false : stryMutAct_9fa48("108") ? true : (stryCov_9fa48("108", "109", "110", "111"), waited >= giveUpMs)) return reject(new Error(stryMutAct_9fa48("112") ? `` : (stryCov_9fa48("112"), `no answer from ${objectName} within ${giveUpMs} ms`)));
              // A batch held behind a contended one cannot leave before its hold ends: no need to look sooner.
              const held = (stryMutAct_9fa48("115") ? joined.sentAt === undefined : stryMutAct_9fa48("114") ? false : stryMutAct_9fa48("113") ? true : (stryCov_9fa48("113", "114", "115"), joined.sentAt !== undefined)) ? 0 : stryMutAct_9fa48("116") ? Math.min(this.heldUntil.get(objectName) ?? 0, since + this.maxWaitMs) + now : (stryCov_9fa48("116"), (stryMutAct_9fa48("117") ? Math.max(this.heldUntil.get(objectName) ?? 0, since + this.maxWaitMs) : (stryCov_9fa48("117"), Math.min(stryMutAct_9fa48("118") ? this.heldUntil.get(objectName) && 0 : (stryCov_9fa48("118"), this.heldUntil.get(objectName) ?? 0), stryMutAct_9fa48("119") ? since - this.maxWaitMs : (stryCov_9fa48("119"), since + this.maxWaitMs)))) - now);
              // Once the batch is out, looking less often the longer its answer takes adds at most an eighth to a long
              // round trip (an object far away) and keeps the looks per call few; never past the moment to give up.
              const answerFor = (stryMutAct_9fa48("122") ? joined.sentAt !== undefined : stryMutAct_9fa48("121") ? false : stryMutAct_9fa48("120") ? true : (stryCov_9fa48("120", "121", "122"), joined.sentAt === undefined)) ? 0 : stryMutAct_9fa48("123") ? now + joined.sentAt : (stryCov_9fa48("123"), now - joined.sentAt);
              setTimeout(look, stryMutAct_9fa48("125") ? Math.max(Math.max(POLL_MS, held, Math.floor(answerFor / 8)), Math.max(POLL_MS, since + giveUpMs - now)) : (stryCov_9fa48("125"), Math.min(stryMutAct_9fa48("126") ? Math.min(POLL_MS, held, Math.floor(answerFor / 8)) : (stryCov_9fa48("126"), Math.max(POLL_MS, held, Math.floor(stryMutAct_9fa48("127") ? answerFor * 8 : (stryCov_9fa48("127"), answerFor / 8)))), stryMutAct_9fa48("128") ? Math.min(POLL_MS, since + giveUpMs - now) : (stryCov_9fa48("128"), Math.max(POLL_MS, stryMutAct_9fa48("129") ? since + giveUpMs + now : (stryCov_9fa48("129"), (stryMutAct_9fa48("130") ? since - giveUpMs : (stryCov_9fa48("130"), since + giveUpMs)) - now))))));
            }
          };
          if (stryMutAct_9fa48("131")) {
            ;
          } else {
            stryCov_9fa48("131");
            setTimeout(look, POLL_MS);
          }
        }
      });
      // This request stays alive until its own timer has settled its answer (and sent the batch, if it was its turn).
      if (stryMutAct_9fa48("132")) {
        ;
      } else {
        stryCov_9fa48("132");
        defer(answer.then(noop, noop));
      }
      return answer;
    }
  }

  /** Send a batch once; its first `own` verdicts are returned, the rest are left in it for its waiters. */
  private async dispatch(batch: Batch, defer: Defer, own: number): Promise<CounterVerdict[]> {
    if (stryMutAct_9fa48("133")) {
      {}
    } else {
      stryCov_9fa48("133");
      if (stryMutAct_9fa48("136") ? batch.sentAt === undefined : stryMutAct_9fa48("135") ? false : stryMutAct_9fa48("134") ? true : (stryCov_9fa48("134", "135", "136"), batch.sentAt !== undefined)) return stryMutAct_9fa48("137") ? ["Stryker was here"] : (stryCov_9fa48("137"), []);
      const startedAt = Date.now();
      batch.sentAt = startedAt;
      if (stryMutAct_9fa48("140") ? this.open.get(batch.name) !== batch : stryMutAct_9fa48("139") ? false : stryMutAct_9fa48("138") ? true : (stryCov_9fa48("138", "139", "140"), this.open.get(batch.name) === batch)) if (stryMutAct_9fa48("141")) {
        ;
      } else {
        stryCov_9fa48("141");
        this.open.delete(batch.name);
      }
      this.inFlight.set(batch.name, stryMutAct_9fa48("143") ? [] : (stryCov_9fa48("143"), [...(stryMutAct_9fa48("144") ? this.inFlight.get(batch.name) && [] : (stryCov_9fa48("144"), this.inFlight.get(batch.name) ?? (stryMutAct_9fa48("145") ? ["Stryker was here"] : (stryCov_9fa48("145"), [])))), startedAt]));
      stryMutAct_9fa48("146") ? this.rpcs -= 1 : (stryCov_9fa48("146"), this.rpcs += 1);
      const contended = stryMutAct_9fa48("150") ? batch.waiters <= 0 : stryMutAct_9fa48("149") ? batch.waiters >= 0 : stryMutAct_9fa48("148") ? false : stryMutAct_9fa48("147") ? true : (stryCov_9fa48("147", "148", "149", "150"), batch.waiters > 0);
      // Known now, so waiters can sleep through the hold instead of looking every POLL_MS.
      if (stryMutAct_9fa48("152") ? false : stryMutAct_9fa48("151") ? true : (stryCov_9fa48("151", "152"), contended)) this.heldUntil.set(batch.name, stryMutAct_9fa48("154") ? Math.min(this.heldUntil.get(batch.name) ?? 0, startedAt + this.contendedIntervalMs) : (stryCov_9fa48("154"), Math.max(stryMutAct_9fa48("155") ? this.heldUntil.get(batch.name) && 0 : (stryCov_9fa48("155"), this.heldUntil.get(batch.name) ?? 0), stryMutAct_9fa48("156") ? startedAt - this.contendedIntervalMs : (stryCov_9fa48("156"), startedAt + this.contendedIntervalMs))));
      const sent = this.send(batch.name, batch.calls);
      const settled = sent.then(verdicts => {
        if (stryMutAct_9fa48("157")) {
          {}
        } else {
          stryCov_9fa48("157");
          batch.verdicts = verdicts;
        }
      }, (error: unknown) => {
        if (stryMutAct_9fa48("158")) {
          {}
        } else {
          stryCov_9fa48("158");
          batch.failure = stryMutAct_9fa48("159") ? {} : (stryCov_9fa48("159"), {
            error
          });
        }
      }).finally(stryMutAct_9fa48("160") ? () => undefined : (stryCov_9fa48("160"), () => this.release(batch.name, startedAt)));
      // Only other callers' answers depend on this request staying alive; a batch of its own calls alone needs no keep-alive.
      if (stryMutAct_9fa48("162") ? false : stryMutAct_9fa48("161") ? true : (stryCov_9fa48("161", "162"), contended)) {
        if (stryMutAct_9fa48("163")) {
          {}
        } else {
          stryCov_9fa48("163");
          let timer: ReturnType<typeof setTimeout> | undefined;
          const giveUp = new Promise<void>(stryMutAct_9fa48("164") ? () => undefined : (stryCov_9fa48("164"), resolve => timer = setTimeout(resolve, this.keepAliveMs)));
          defer(Promise.race(stryMutAct_9fa48("166") ? [] : (stryCov_9fa48("166"), [settled, giveUp])).finally(() => {
            if (stryMutAct_9fa48("167")) {
              {}
            } else {
              stryCov_9fa48("167");
              if (stryMutAct_9fa48("170") ? timer === undefined : stryMutAct_9fa48("169") ? false : stryMutAct_9fa48("168") ? true : (stryCov_9fa48("168", "169", "170"), timer !== undefined)) if (stryMutAct_9fa48("171")) {
                ;
              } else {
                stryCov_9fa48("171");
                clearTimeout(timer);
              }
            }
          }));
        }
      } else {
        if (stryMutAct_9fa48("172")) {
          {}
        } else {
          stryCov_9fa48("172");
          void settled;
        }
      }
      const verdicts = await sent;
      return stryMutAct_9fa48("173") ? verdicts : (stryCov_9fa48("173"), verdicts.slice(0, own));
    }
  }

  // Busy: an RPC to it is in flight from this isolate, or it is held after a
  // contended batch (see `release`). An RPC whose sender's request was torn
  // down never reports back; after BUSY_FOR_MS it no longer counts.
  private busy(objectName: string): boolean {
    if (stryMutAct_9fa48("174")) {
      {}
    } else {
      stryCov_9fa48("174");
      const now = Date.now();
      const held = this.heldUntil.get(objectName);
      if (stryMutAct_9fa48("177") ? held === undefined : stryMutAct_9fa48("176") ? false : stryMutAct_9fa48("175") ? true : (stryCov_9fa48("175", "176", "177"), held !== undefined)) {
        if (stryMutAct_9fa48("178")) {
          {}
        } else {
          stryCov_9fa48("178");
          if (stryMutAct_9fa48("182") ? now >= held : stryMutAct_9fa48("181") ? now <= held : stryMutAct_9fa48("180") ? false : stryMutAct_9fa48("179") ? true : (stryCov_9fa48("179", "180", "181", "182"), now < held)) return stryMutAct_9fa48("183") ? false : (stryCov_9fa48("183"), true);
          if (stryMutAct_9fa48("184")) {
            ;
          } else {
            stryCov_9fa48("184");
            this.heldUntil.delete(objectName);
          }
        }
      }
      const starts = this.inFlight.get(objectName);
      if (stryMutAct_9fa48("187") ? starts !== undefined : stryMutAct_9fa48("186") ? false : stryMutAct_9fa48("185") ? true : (stryCov_9fa48("185", "186", "187"), starts === undefined)) return stryMutAct_9fa48("188") ? true : (stryCov_9fa48("188"), false);
      const live = stryMutAct_9fa48("189") ? starts : (stryCov_9fa48("189"), starts.filter(stryMutAct_9fa48("190") ? () => undefined : (stryCov_9fa48("190"), t => stryMutAct_9fa48("194") ? now - t >= BUSY_FOR_MS : stryMutAct_9fa48("193") ? now - t <= BUSY_FOR_MS : stryMutAct_9fa48("192") ? false : stryMutAct_9fa48("191") ? true : (stryCov_9fa48("191", "192", "193", "194"), (stryMutAct_9fa48("195") ? now + t : (stryCov_9fa48("195"), now - t)) < BUSY_FOR_MS))));
      if (stryMutAct_9fa48("198") ? live.length !== 0 : stryMutAct_9fa48("197") ? false : stryMutAct_9fa48("196") ? true : (stryCov_9fa48("196", "197", "198"), live.length === 0)) {
        if (stryMutAct_9fa48("199")) {
          ;
        } else {
          stryCov_9fa48("199");
          this.inFlight.delete(objectName);
        }
      } else if (stryMutAct_9fa48("202") ? live.length === starts.length : stryMutAct_9fa48("201") ? false : stryMutAct_9fa48("200") ? true : (stryCov_9fa48("200", "201", "202"), live.length !== starts.length)) if (stryMutAct_9fa48("203")) {
        ;
      } else {
        stryCov_9fa48("203");
        this.inFlight.set(objectName, live);
      }
      return stryMutAct_9fa48("207") ? live.length <= 0 : stryMutAct_9fa48("206") ? live.length >= 0 : stryMutAct_9fa48("205") ? false : stryMutAct_9fa48("204") ? true : (stryCov_9fa48("204", "205", "206", "207"), live.length > 0);
    }
  }

  // A batch that carried other callers' calls means the object is contended
  // here: the next batch then leaves no sooner than CONTENDED_INTERVAL_MS
  // after this one did (`heldUntil`, set when it left), so it gathers more
  // calls (fewer RPCs and commits per decision). Waiters see that the
  // object is free from their own timers; nobody is woken.
  private release(objectName: string, startedAt: number): void {
    if (stryMutAct_9fa48("208")) {
      {}
    } else {
      stryCov_9fa48("208");
      const left = stryMutAct_9fa48("209") ? this.inFlight.get(objectName) ?? [] : (stryCov_9fa48("209"), (stryMutAct_9fa48("210") ? this.inFlight.get(objectName) && [] : (stryCov_9fa48("210"), this.inFlight.get(objectName) ?? (stryMutAct_9fa48("211") ? ["Stryker was here"] : (stryCov_9fa48("211"), [])))).filter(stryMutAct_9fa48("212") ? () => undefined : (stryCov_9fa48("212"), t => stryMutAct_9fa48("215") ? t === startedAt : stryMutAct_9fa48("214") ? false : stryMutAct_9fa48("213") ? true : (stryCov_9fa48("213", "214", "215"), t !== startedAt))));
      if (stryMutAct_9fa48("219") ? left.length <= 0 : stryMutAct_9fa48("218") ? left.length >= 0 : stryMutAct_9fa48("217") ? false : stryMutAct_9fa48("216") ? true : (stryCov_9fa48("216", "217", "218", "219"), left.length > 0)) {
        if (stryMutAct_9fa48("220")) {
          ;
        } else {
          stryCov_9fa48("220");
          this.inFlight.set(objectName, left);
        }
      } else if (stryMutAct_9fa48("221")) {
        ;
      } else {
        stryCov_9fa48("221");
        this.inFlight.delete(objectName);
      }
      // A hold is otherwise dropped only when its object is asked about again, which one key's object may never be.
      if (stryMutAct_9fa48("225") ? this.heldUntil.size <= HELD_KEPT : stryMutAct_9fa48("224") ? this.heldUntil.size >= HELD_KEPT : stryMutAct_9fa48("223") ? false : stryMutAct_9fa48("222") ? true : (stryCov_9fa48("222", "223", "224", "225"), this.heldUntil.size > HELD_KEPT)) {
        if (stryMutAct_9fa48("226")) {
          {}
        } else {
          stryCov_9fa48("226");
          const now = Date.now();
          for (const [name, until] of this.heldUntil) if (stryMutAct_9fa48("230") ? until > now : stryMutAct_9fa48("229") ? until < now : stryMutAct_9fa48("228") ? false : stryMutAct_9fa48("227") ? true : (stryCov_9fa48("227", "228", "229", "230"), until <= now)) if (stryMutAct_9fa48("231")) {
            ;
          } else {
            stryCov_9fa48("231");
            this.heldUntil.delete(name);
          }
        }
      }
    }
  }
}
function noop(): void {}