/**
 * `ephemeralCache`: a `Map` the user keeps at module scope (Upstash's
 * pattern for a `Ratelimit` made per request) in which refused identifiers
 * are remembered, as Upstash does, under `prefix:identifier` with the
 * instant (ms since the epoch) until which they are certainly refused
 * (docs/from-upstash.md, "Options").
 */

/** Entries the Map is kept under: past it, the oldest is dropped, so no stream of identifiers can grow it without bound. */
export const EPHEMERAL_ENTRIES = 10_000;

/**
 * The refusals of one prefix in the user's Map.
 *
 * @example
 * const cache = new EphemeralBlocks(userMap, "@upstash/ratelimit");
 * cache.blockedUntil("user-1", Date.now()); // undefined, or when the refusal ends
 */
export class EphemeralBlocks {
  private readonly map: Map<string, number>;
  private readonly prefix: string;

  constructor(map: Map<string, number>, prefix: string) {
    this.map = map;
    this.prefix = prefix;
  }

  /** Until when `identifier` is certainly refused at `now`, or undefined (an expired entry is dropped). */
  blockedUntil(identifier: string, now: number): number | undefined {
    const key = `${this.prefix}:${identifier}`;
    const until = this.map.get(key);
    if (until === undefined) return undefined;
    if (typeof until !== "number" || !(until > now)) {
      this.map.delete(key);
      return undefined;
    }
    return until;
  }

  /** Remember that `identifier` is refused until `until`. */
  block(identifier: string, until: number): void {
    const key = `${this.prefix}:${identifier}`;
    this.map.delete(key);
    this.map.set(key, until);
    for (const oldest of this.map.keys()) {
      if (this.map.size <= EPHEMERAL_ENTRIES) break;
      this.map.delete(oldest);
    }
  }

  /** Forget `identifier` (`resetUsedTokens`). */
  forget(identifier: string): void {
    this.map.delete(`${this.prefix}:${identifier}`);
  }
}
