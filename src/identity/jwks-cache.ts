/**
 * The keys of a `jwks_url`, fetched and kept (docs/rules.md, "Verified
 * identity (jwt)"). Keys are used for 5 minutes, then the next request that
 * needs them fetches them again while every other request of the isolate
 * goes on with the keys it has: one request waits per refresh, and no
 * promise is shared between requests. A token naming a `kid` the keys lack
 * (a rotation) fetches early, at most once a minute, so random `kid`s
 * cannot make the isolate fetch on every request. A failed fetch keeps the
 * old keys (for up to a day) and is retried after 30 s; with no keys at
 * all, no token verifies and the requests are limited as ones without.
 */
import { BodyTooLargeError, readStreamBytes } from "../http/body.ts";
import { JWT_BOUNDS } from "../rules/index.ts";
import { type ImportedKey, importJwks } from "./jwk-import.ts";

/** How a `jwks_url`'s keys are kept, in the verifier's holder (kept.ts). */
export interface JwksState {
  keys?: readonly ImportedKey[];
  fetchedAt?: number;
  /** When the last fetch failed (retried RETRY_MS later). */
  failedAt?: number;
  /** When a refresh began; another does not begin while this is recent. */
  refreshingSince?: number;
}

/** Timings and bounds of the cache; the defaults are documented in docs/rules.md. */
export const JWKS_CACHE = {
  /** Keys are fetched again after this long. */
  maxAgeMs: 300_000,
  /** An unknown `kid` fetches again no sooner than this after the last fetch. */
  unknownKidMs: 60_000,
  /** A failed fetch is tried again after this long. */
  retryMs: 30_000,
  /** Keys older than this are no longer used when fetches keep failing. */
  maxStaleMs: 86_400_000,
  /** A fetch slower than this has failed (and a refresh that long ago is over, whatever became of it). */
  timeoutMs: 5_000,
  /** A larger JWKS document has failed. */
  maxBytes: 65_536,
} as const;

/**
 * The keys of `url` at `nowMs` for a token naming `kid` (or none): the kept ones, or newly fetched.
 *
 * @example
 * const keys = await jwksKeys((kept.jwks ??= {}), domain.jwt.jwksUrl, Date.now(), header.kid); // [] when none are known
 */
export async function jwksKeys(state: JwksState, url: string, nowMs: number, kid: string | undefined): Promise<readonly ImportedKey[]> {
  if (shouldRefresh(state, nowMs, kid)) {
    state.refreshingSince = nowMs;
    try {
      const keys = await fetchKeys(url);
      if (keys.length > 0) {
        state.keys = keys;
        state.fetchedAt = nowMs;
        state.failedAt = undefined;
      } else state.failedAt = nowMs;
    } catch {
      state.failedAt = nowMs;
    } finally {
      state.refreshingSince = undefined;
    }
  }
  const fresh = state.fetchedAt !== undefined && nowMs - state.fetchedAt < JWKS_CACHE.maxStaleMs;
  return fresh ? (state.keys ?? []) : [];
}

function shouldRefresh(state: JwksState, nowMs: number, kid: string | undefined): boolean {
  if (state.refreshingSince !== undefined && nowMs - state.refreshingSince < JWKS_CACHE.timeoutMs) return false;
  if (state.failedAt !== undefined && nowMs - state.failedAt < JWKS_CACHE.retryMs) return false;
  if (state.fetchedAt === undefined || state.keys === undefined) return true;
  const age = nowMs - state.fetchedAt;
  if (age >= JWKS_CACHE.maxAgeMs) return true;
  return kid !== undefined && age >= JWKS_CACHE.unknownKidMs && !state.keys.some((k) => k.kid === kid);
}

async function fetchKeys(url: string): Promise<ImportedKey[]> {
  const response = await fetch(url, { headers: { accept: "application/json" }, redirect: "manual", signal: AbortSignal.timeout(JWKS_CACHE.timeoutMs) });
  // A redirect is not followed (manual): the keys come from the URL the rules name.
  if (!response.ok) {
    await response.body?.cancel();
    return [];
  }
  const text = await boundedText(response);
  if (text === undefined) return [];
  const document: unknown = JSON.parse(text);
  const keys = typeof document === "object" && document !== null ? (document as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(keys)) return [];
  return importJwks(keys.slice(0, JWT_BOUNDS.maxKeys));
}

// The body, or undefined past maxBytes (read no further).
async function boundedText(response: Response): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await readStreamBytes(response.body, JWKS_CACHE.maxBytes));
  } catch (error) {
    if (error instanceof BodyTooLargeError) return undefined;
    throw error;
  }
}
