/**
 * The values of the two settings that say how the origin reads a request
 * (docs/rules.md, "The origin's view"): METHOD_OVERRIDE and
 * ENCODED_SLASHES. Their defaults and parsing are rows of the settings
 * table (src/config.ts, SETTINGS).
 */

/** `METHOD_OVERRIDE`: `strip` removes method-override headers before the origin; `count` keys a POST on the method they name. */
export type MethodOverride = "strip" | "count";

/** `ENCODED_SLASHES`: `%2F` and `%5C` read as `/` (`decode`), kept apart from it (`keep`), or refused with 400 (`reject`). */
export type EncodedSlashes = "decode" | "keep" | "reject";

/** Headers Rails, Laravel, Symfony, Express's method-override and ASP.NET read a method from. */
export const METHOD_OVERRIDE_HEADERS: readonly string[] = ["x-http-method-override", "x-http-method", "x-method-override"];
