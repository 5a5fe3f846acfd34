/**
 * The request as the origin will read it (docs/rules.md, "The origin's
 * view"): the method a framework runs, the path a proxy routes after
 * decoding slashes, the host without case or trailing dot, cookie values
 * unquoted and decoded, header names with `_` read as `-`, and the
 * credential scheme of `Authorization` without case. Routes and keys read
 * these forms, so a spelling the origin treats as the same request is the
 * same request to its limit.
 */
import { decodedSlashes } from "../http/canonical-path.ts";
import { type EncodedSlashes, METHOD_OVERRIDE_HEADERS, type MethodOverride } from "../http/origin-settings.ts";

export type { EncodedSlashes, MethodOverride } from "../http/origin-settings.ts";

/**
 * A query parameter, cookie or header sent more than once with different
 * values (under `duplicate_values: "reject"` for parameters and cookies):
 * the gateway answers 400.
 *
 * @example
 * new DuplicateValueError('query parameter "api_key"').message; // 'The query parameter "api_key" is sent more than once with different values; …'
 */
export class DuplicateValueError extends Error {
  constructor(what: string, message = `The ${what} is sent more than once with different values; send it once.`) {
    super(message);
  }
}

/**
 * A request the origin would read two ways (an encoded slash under
 * `ENCODED_SLASHES=reject`, override headers naming two methods): answered
 * 400 like a duplicate value, which it is a kind of.
 *
 * @example
 * new AmbiguousRequestError("The path holds an encoded slash …").message;
 */
export class AmbiguousRequestError extends DuplicateValueError {
  constructor(message: string) {
    super("", message);
  }
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The method routes match, upper case: under `count` a POST as the method
 * its override header names. (HEAD is matched and keyed as GET where a GET
 * route exists: matchRoute, and `methodKey`.) Throws AmbiguousRequestError
 * when override headers disagree or name no method.
 *
 * @example
 * originMethod("head", new Headers(), "strip"); // "HEAD"
 * originMethod("POST", new Headers({ "x-http-method-override": "delete" }), "count"); // "DELETE"
 * originMethod("POST", new Headers({ "x-http-method-override": "delete" }), "strip"); // "POST": the header never reaches the origin
 */
export function originMethod(method: string, headers: Headers, mode: MethodOverride): string {
  const upper = method.toUpperCase();
  if (mode !== "count" || upper !== "POST") return upper;
  let named: string | undefined;
  for (const name of METHOD_OVERRIDE_HEADERS) {
    const value = headers.get(name) ?? headers.get(name.replaceAll("-", "_"));
    if (value === null) continue;
    const text = value.trim().toUpperCase();
    if (!TOKEN.test(text) || (named !== undefined && named !== text))
      throw new AmbiguousRequestError(`The method override "${value.slice(0, 32)}" is not one method; send one.`);
    named = text;
  }
  return named ?? upper;
}

/**
 * The `method` descriptor value: HEAD keys as GET, since Express, Go's mux,
 * Flask and Rails answer HEAD with the GET handler.
 *
 * @example
 * methodKey("HEAD"); // "GET"
 */
export function methodKey(method: string): string {
  return method === "HEAD" ? "GET" : method;
}

/**
 * The canonical path as an origin routes it under `mode`: with `decode`,
 * `%2F` and `%5C` are slashes (nginx, Apache and most frameworks decode
 * them before routing; IIS reads `\` as `/`), so the path is made canonical
 * again; with `reject`, a path holding one throws AmbiguousRequestError.
 *
 * @example
 * originPath("/api%2Flogin", "decode"); // "/api/login"
 * originPath("/api%2Flogin", "keep");   // "/api%2Flogin"
 */
export function originPath(canonical: string, mode: EncodedSlashes): string {
  if (mode === "keep" || canonical.indexOf("%") < 0) return canonical;
  if (!/%(2F|5C)/.test(canonical)) return canonical;
  if (mode === "reject")
    throw new AmbiguousRequestError("The path holds an encoded slash (%2F or %5C), which origins read two ways; send the path with plain slashes.");
  return decodedSlashes(canonical);
}

/**
 * A host name as origins compare it: lower case, no trailing dot (port already gone).
 *
 * @example
 * originHost("API.example.com."); // "api.example.com"
 */
export function originHost(host: string): string {
  let end = host.length;
  // charCodeAt(-1) is NaN: the loop stops at the start.
  while (host.charCodeAt(end - 1) === 46 /* . */) end--;
  return host.slice(0, end).toLowerCase();
}

/**
 * A cookie value as Express, Hono, Rack and Python read it: surrounding
 * double quotes stripped, percent-escapes decoded (left as sent when they
 * do not decode).
 *
 * @example
 * cookieValue('"X"');  // "X"
 * cookieValue("%58"); // "X"
 */
export function cookieValue(raw: string): string {
  let value = raw;
  if (value.length >= 2 && value.charCodeAt(0) === 34 && value.charCodeAt(value.length - 1) === 34) value = value.slice(1, -1);
  if (value.indexOf("%") < 0) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const AUTHORIZATION_HEADERS = new Set(["authorization", "proxy-authorization"]);

/**
 * A header value as origins compare it: for `Authorization` and
 * `Proxy-Authorization`, the scheme (case-insensitive, RFC 9110 section
 * 11.1) written as `Bearer`/`Basic`…, one space before the credentials.
 *
 * @example
 * headerValue("authorization", "bearer   T"); // "Bearer T"
 */
export function headerValue(name: string, value: string): string {
  if (!AUTHORIZATION_HEADERS.has(name)) return value;
  const match = /^[ \t]*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:[ \t]+(.*?))?[ \t]*$/.exec(value);
  if (match === null) return value;
  const scheme = match[1][0].toUpperCase() + match[1].slice(1).toLowerCase();
  return match[2] === undefined ? scheme : `${scheme} ${match[2]}`;
}

/**
 * A header name with `_` read as `-`, as CGI-style origins (PHP-FPM, WSGI,
 * Puma, Rack) do: `X_Api_Key` is `x-api-key`.
 *
 * @example
 * hyphenName("X_Api_Key"); // "x-api-key"
 */
export function hyphenName(name: string): string {
  return name.toLowerCase().replaceAll("_", "-");
}

/**
 * Every header sent under an underscore spelling, by its hyphen name, with
 * the values in the order sent; empty when there is none (nearly always).
 *
 * @example
 * underscoreHeaders(new Headers({ x_api_key: "k" })).get("x-api-key"); // ["k"]
 */
export function underscoreHeaders(headers: Headers): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const [name, value] of headers) {
    if (name.indexOf("_") < 0) continue;
    const hyphen = hyphenName(name);
    const values = found.get(hyphen);
    if (values === undefined) found.set(hyphen, [value]);
    else values.push(value);
  }
  return found;
}
