/**
 * The two settings that say how the origin reads a request
 * (docs/operations.md, "Configuration"; docs/rules.md, "The origin's
 * view"): METHOD_OVERRIDE and ENCODED_SLASHES.
 */

/** `METHOD_OVERRIDE`: `strip` removes method-override headers before the origin; `count` keys a POST on the method they name. */
export type MethodOverride = "strip" | "count";

/** `ENCODED_SLASHES`: `%2F` and `%5C` read as `/` (`decode`), kept apart from it (`keep`), or refused with 400 (`reject`). */
export type EncodedSlashes = "decode" | "keep" | "reject";

/** Headers Rails, Laravel, Symfony, Express's method-override and ASP.NET read a method from. */
export const METHOD_OVERRIDE_HEADERS: readonly string[] = ["x-http-method-override", "x-http-method", "x-method-override"];

/**
 * The METHOD_OVERRIDE setting; `fail` makes the error thrown for a bad value.
 *
 * @example
 * readMethodOverride(undefined, (why) => new Error(why)); // "strip"
 */
export function readMethodOverride(given: string | undefined, fail: (why: string) => Error): MethodOverride {
  const text = (given ?? "").trim().toLowerCase();
  if (text === "" || text === "strip") return "strip";
  if (text === "count") return "count";
  throw fail(`METHOD_OVERRIDE must be "strip" or "count", got ${JSON.stringify(given)}`);
}

/**
 * The ENCODED_SLASHES setting; `fail` makes the error thrown for a bad value.
 *
 * @example
 * readEncodedSlashes("reject", (why) => new Error(why)); // "reject"
 */
export function readEncodedSlashes(given: string | undefined, fail: (why: string) => Error): EncodedSlashes {
  const text = (given ?? "").trim().toLowerCase();
  if (text === "" || text === "decode") return "decode";
  if (text === "keep" || text === "reject") return text;
  throw fail(`ENCODED_SLASHES must be "decode", "keep" or "reject", got ${JSON.stringify(given)}`);
}
