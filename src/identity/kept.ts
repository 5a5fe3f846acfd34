/**
 * What src/identity/ keeps of one domain's `jwt`, in the holder the compiler
 * made with it (src/rules/types.ts, JwtKept): no module here keeps anything
 * between requests, so a replaced rules set takes its keys and its fetched
 * JWKS with it.
 */
import type { JwtKept, JwtOptions } from "../rules/types.ts";
import type { ImportedKey } from "./jwk-import.ts";
import type { JwksState } from "./jwks-cache.ts";

declare module "../rules/types.ts" {
  interface JwtKept {
    /** The HS256 key made of the secret's text (made again if the text differs). */
    hmac?: { readonly text: string; readonly key: CryptoKey };
    /** Said once: the named secret is missing or too short. */
    secretWarned?: true;
    /** The inline `jwks`, imported. */
    inline?: readonly ImportedKey[];
    /** The `jwks_url` keys and their refresh state. */
    jwks?: JwksState;
    /** Each request's claims, verified at most once. */
    byRequest?: WeakMap<Request, Promise<ReadonlyMap<string, string> | undefined>>;
  }
}

/**
 * The holder of `options` (an empty one for options made by hand).
 *
 * @example
 * const kept = keptOf(domain.jwt);
 * kept.inline ??= await importJwks(domain.jwt.jwks);
 */
export function keptOf(options: JwtOptions): JwtKept {
  return (options as { kept?: JwtKept }).kept ?? {};
}
