/**
 * The rules' location copy: the RulesObject's whole record as an isolate of
 * this Cloudflare location last fetched it, kept in the Cache API (per data
 * center, shared by the location's isolates), so a location's isolates
 * share their version checks instead of each asking the object
 * (docs/operations.md, "What the control plane costs"). Where no cache is
 * shared (workers.dev drops every put; plain Node has none) reads find
 * nothing and each isolate polls on its own, less often (rules-pace.ts).
 * A cache that fails is the same as none: never an error to a request.
 * Only this code writes the copies: a named cache (not the one `fetch`
 * fills) under a host no request can reach, and what a copy holds is
 * compiled and validated like the object's answer before it is used.
 */
import type { RulesRecord } from "../durable/rules/rules-document.ts";
import type { CopyAge } from "./rules-pace.ts";

/** The named cache the copies are kept in (apart from `caches.default`, which the app's responses may use). */
export const RULES_CACHE_NAME = "floodgate-rules";
/** How long the cache keeps a copy at most; a copy is judged by its own stamp (rules-pace.ts), long before this. */
const CACHE_MAX_AGE_S = 600;
const FETCHED_AT = "x-floodgate-fetched-at";
const CLAIMED_AT = "x-floodgate-claimed-at";
const VERSIONS = "x-floodgate-versions";

/** A copy as read: its age, the versions it holds, and its record (read only when needed). */
export interface RulesCopy extends CopyAge {
  /** The rules' version and the overrides' (-1: none). */
  readonly version: number;
  readonly overridesVersion: number;
  record(): Promise<RulesRecord>;
}

/** Where a location's copies are kept. */
export interface LocationCopies {
  read(objectName: string): Promise<RulesCopy | undefined>;
  write(objectName: string, record: RulesRecord, fetchedAt: number): Promise<void>;
  /** Mark `copy` as being refreshed by this isolate from `now` (rules-pace.ts, `claimMs`). */
  claim(objectName: string, copy: RulesCopy, now: number): Promise<void>;
}

const keyOf = (objectName: string) => `https://rules.floodgate.internal/${encodeURIComponent(objectName)}`;

/**
 * Copies kept in the Cache API's `floodgate-rules` cache, or undefined
 * where the runtime has no Cache API (plain Node).
 *
 * @example
 * const copies = runtimeCopies();
 * await copies?.read("global"); // undefined on workers.dev: its cache keeps nothing
 */
export function runtimeCopies(): LocationCopies | undefined {
  const storage = (globalThis as { caches?: CacheStorage }).caches;
  return storage === undefined ? undefined : cacheCopies(() => storage.open(RULES_CACHE_NAME));
}

/**
 * Copies kept in `open()`'s cache.
 *
 * @example
 * const copies = cacheCopies(() => caches.open("floodgate-rules"));
 * const copy = await copies.read("global");
 */
export function cacheCopies(open: () => Promise<Cache | undefined>): LocationCopies {
  const guarded = async <T>(work: (cache: Cache) => Promise<T>): Promise<T | undefined> => {
    try {
      const cache = await open();
      return cache === undefined ? undefined : await work(cache);
    } catch (error) {
      console.error(JSON.stringify({ event: "floodgate.rules_copy_failed", error: String(error) }));
      return undefined;
    }
  };
  const put = (cache: Cache, objectName: string, body: string, versions: string, fetchedAt: number, claimedAt?: number) => {
    const headers: Record<string, string> = { "cache-control": `max-age=${CACHE_MAX_AGE_S}`, [FETCHED_AT]: String(fetchedAt), [VERSIONS]: versions };
    if (claimedAt !== undefined) headers[CLAIMED_AT] = String(claimedAt);
    return cache.put(keyOf(objectName), new Response(body, { headers }));
  };
  return {
    read: (objectName) =>
      guarded(async (cache) => {
        const response = await cache.match(keyOf(objectName));
        if (response === undefined) return undefined;
        const [version, overridesVersion] = (response.headers.get(VERSIONS) ?? "").split(",").map(Number);
        const fetchedAt = Number(response.headers.get(FETCHED_AT));
        const claimed = response.headers.get(CLAIMED_AT);
        if (!Number.isFinite(version) || !Number.isFinite(overridesVersion) || !Number.isFinite(fetchedAt)) return undefined;
        let text: Promise<string> | undefined;
        const body = () => (text ??= response.text());
        return {
          version,
          overridesVersion,
          fetchedAt,
          ...(claimed === null ? {} : { claimedAt: Number(claimed) }),
          record: async () => JSON.parse(await body()) as RulesRecord,
          body,
        } as RulesCopy;
      }),
    write: async (objectName, record, fetchedAt) => {
      await guarded((cache) => put(cache, objectName, JSON.stringify(record), `${record.version},${record.overrides?.version ?? -1}`, fetchedAt));
    },
    claim: async (objectName, copy, now) => {
      const text = (copy as RulesCopy & { body?: () => Promise<string> }).body;
      if (text === undefined) return;
      await guarded(async (cache) => put(cache, objectName, await text(), `${copy.version},${copy.overridesVersion}`, copy.fetchedAt, now));
    },
  };
}
