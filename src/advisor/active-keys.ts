/**
 * How many of a domain's keys an isolate sees, and the sampling rate that
 * follows from it (docs/advisor.md, "How requests are chosen: whole keys"): every key
 * while few are active, thinned by the keyed hash only as the count grows,
 * so a small deployment, and a key every request shares, is in the sample
 * whole. Per isolate and domain, in memory: a set of key hashes per minute,
 * the last two minutes kept, each set bounded.
 */
import { hashSampled } from "./key-sampling.ts";

/** Up to this many active keys of a domain, every key is sampled. */
export const SAMPLE_EVERY_KEY_UP_TO = 100;

/** Most key hashes counted per domain and minute: past it the count is "many" and the rate is SAMPLE_KEY_RATE. */
export const ACTIVE_KEYS_COUNTED = 10_000;

/** The length of one counting bucket: a key is active while it was seen in this minute or the last. */
export const ACTIVE_KEYS_BUCKET_MS = 60_000;

/**
 * The share of keys sampled when `active` keys of a domain are active and
 * the floor is `floor` (SAMPLE_KEY_RATE): 1 up to SAMPLE_EVERY_KEY_UP_TO
 * keys (and at a floor of 1), then SAMPLE_EVERY_KEY_UP_TO / active (about
 * that many keys stay in) until that falls to the floor; the floor from
 * ACTIVE_KEYS_COUNTED keys on; 0 at a floor of 0 (no sample).
 *
 * @example
 * sampleRate(19, 0.1);    // 1: a 19-key deployment is sampled whole
 * sampleRate(400, 0.1);   // 0.25
 * sampleRate(5_000, 0.1); // 0.1
 */
export function sampleRate(active: number, floor: number): number {
  if (floor <= 0) return 0;
  if (floor >= 1 || active <= SAMPLE_EVERY_KEY_UP_TO) return 1;
  if (active >= ACTIVE_KEYS_COUNTED) return floor;
  return Math.max(floor, SAMPLE_EVERY_KEY_UP_TO / active);
}

interface Buckets {
  at: number;
  /** Each key seen this minute (by its hash), and whether it is in the sample. */
  current: Map<number, boolean>;
  previous: Map<number, boolean>;
}

/**
 * Which keys of each domain this isolate samples, and how many are active:
 * keys (by their 32-bit keyed hash) seen in the current minute or the
 * previous one. The count is the larger of the two minutes' (a key seen in
 * both counts once). A key is decided when it becomes active, by the rate
 * its domain's count gives then, and keeps that answer while it stays
 * active (seen again within a minute of its minute), so a key in the sample
 * here has every request of that stretch in it, even as the count moves.
 *
 * @example
 * const keys = new ActiveKeys();
 * keys.sampled("api", keyHash("api", entries, shardKey), now, 0.1); // true while few keys are active
 */
export class ActiveKeys {
  private readonly domains = new Map<string, Buckets>();

  /** Key hashes held over every domain: at most 2 × ACTIVE_KEYS_COUNTED per domain (docs/reliability.md, "Bounded memory"). */
  get held(): number {
    let n = 0;
    for (const buckets of this.domains.values()) n += buckets.current.size + buckets.previous.size;
    return n;
  }

  /** Whether the key of `hash` in `domain` is sampled at `now`, SAMPLE_KEY_RATE being `floor`. */
  sampled(domain: string, hash: number, now: number, floor: number): boolean {
    if (floor >= 1) return true;
    if (floor <= 0) return false;
    const bucket = Math.floor(now / ACTIVE_KEYS_BUCKET_MS);
    let buckets = this.domains.get(domain);
    if (buckets === undefined) this.domains.set(domain, (buckets = { at: bucket, current: new Map(), previous: new Map() }));
    if (bucket > buckets.at) {
      // A minute on: the current map becomes the previous; longer: both are over. (A clock stepping back changes nothing.)
      buckets.previous = bucket === buckets.at + 1 ? buckets.current : new Map();
      buckets.current = new Map();
      buckets.at = bucket;
    }
    const known = buckets.current.get(hash) ?? buckets.previous.get(hash);
    const counted = buckets.current.size < ACTIVE_KEYS_COUNTED;
    const active = Math.max(buckets.current.size + (known === undefined && counted ? 1 : 0), buckets.previous.size);
    const decided = known ?? hashSampled(hash, sampleRate(active, floor));
    if (counted && !buckets.current.has(hash)) buckets.current.set(hash, decided);
    return decided;
  }
}
