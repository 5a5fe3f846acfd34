/**
 * The request's JSON body, for routes whose descriptors or cost read it
 * (docs/llm.md): read once, up to MAX_JSON_BODY_BYTES, parsed, and handed
 * back with a request that carries the same bytes to the origin. A body
 * that is not JSON by its Content-Type is not read (its entries have no
 * value); one over the cap is a 413 and a malformed one a 400, never a 500.
 */
import { BodyTooLargeError, readBodyBytes } from "../http/body.ts";
import type { JsonPath } from "../rules/types.ts";
import { duplicateOnPaths } from "./json-duplicates.ts";
import { jsonSyntaxError } from "./json-syntax-error.ts";

/** A body a JSON-reading route cannot take: `status` 413 (over the cap) or 400 (not JSON, a duplicate member). */
export class JsonBodyError extends Error {
  readonly status: 400 | 413;
  constructor(status: 400 | 413, message: string) {
    super(message);
    this.status = status;
  }
}

/** What was read: the parsed document, and the request to send on (the same bytes, its body unread). */
export interface JsonBody {
  readonly document: unknown;
  readonly request: Request;
}

// application/json, and the structured-syntax suffix (application/vnd.x+json), any case, parameters aside.
const JSON_TYPE = /^application\/(?:[!#$%&'*.^_`|~0-9a-z-]+\+)?json$/;

/**
 * Whether a body with this `Content-Type` is read as JSON: a JSON media
 * type, or none at all, which FastAPI, Go's decoders and many other
 * origins parse as JSON too (a client that left it out must not escape a
 * per-model limit that way). Any other type is not JSON to floodgate.
 *
 * @example
 * readsAsJson("Application/JSON; charset=utf-8"); // true
 * readsAsJson(null); // true
 * readsAsJson("text/plain"); // false
 */
export function readsAsJson(contentType: string | null): boolean {
  if (contentType === null) return true;
  const semicolon = contentType.indexOf(";");
  const type = (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return JSON_TYPE.test(type);
}

/**
 * Read `request`'s body as JSON, bounded by `maxBytes`; undefined when it
 * has none to read (no body, an empty one, another Content-Type). Member
 * names along `paths` may appear once per object (a duplicate is a 400).
 *
 * @example
 * const body = await readJsonBody(request, 1_048_576, [["model"]]);
 * body?.document; // { model: "gpt-4o", … }
 * await fetch(origin, body?.request ?? request); // the bytes the client sent
 */
export async function readJsonBody(request: Request, maxBytes: number, paths: readonly JsonPath[]): Promise<JsonBody | undefined> {
  if (request.body === null || !readsAsJson(request.headers.get("content-type"))) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = await readBodyBytes(request, maxBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      throw new JsonBodyError(
        413,
        `The request body is larger than MAX_JSON_BODY_BYTES (${maxBytes} bytes), the most this route reads to find its limits' values.`,
      );
    // The upload broke off (the client went away, a bad chunked encoding): the client's, not a 500.
    throw new JsonBodyError(400, "The request body could not be read to its end.");
  }
  // The same bytes go on: a Request made from them sends them with their Content-Length.
  const forwarded = new Request(request, { body: bytes });
  if (bytes.byteLength === 0) return { document: undefined, request: forwarded };
  return { document: parse(bytes, paths), request: forwarded };
}

function parse(bytes: Uint8Array, paths: readonly JsonPath[]): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new JsonBodyError(400, "The request body is not valid UTF-8, which JSON must be.");
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    const where = jsonSyntaxError(text);
    const position = where === undefined ? "" : ` at line ${where.line}, column ${where.column} (character ${where.offset}): expected ${where.expected}`;
    throw new JsonBodyError(400, `The request body is not valid JSON${position}.`);
  }
  const duplicate = duplicateOnPaths(text, paths);
  if (duplicate !== undefined)
    throw new JsonBodyError(400, `The request body has the member "${duplicate}" more than once; send it once (origins differ on which copy they read).`);
  return document;
}

/**
 * The descriptor value at `path` of a parsed body: a string as it is, a
 * number in JavaScript's shortest form (`1.0` is "1"); anything else
 * (absent, null, a boolean, an object, an array) is no value.
 *
 * @example
 * scalarAt({ model: "gpt-4o" }, ["model"]); // "gpt-4o"
 * scalarAt({ n: 2.50 }, ["n"]); // "2.5"
 * scalarAt({ model: ["a"] }, ["model"]); // undefined
 */
export function scalarAt(document: unknown, path: JsonPath): string | undefined {
  const value = memberAt(document, path);
  if (typeof value === "string") return value;
  return typeof value === "number" && Number.isFinite(value) ? String(value) : undefined;
}

/**
 * The member at `path` of `document`, own members only (`__proto__` names
 * only what the body itself holds).
 *
 * @example
 * memberAt({ a: { b: 1 } }, ["a", "b"]); // 1
 */
export function memberAt(document: unknown, path: JsonPath): unknown {
  let at = document;
  for (const segment of path) {
    if (typeof at !== "object" || at === null || Array.isArray(at) || !Object.hasOwn(at, segment)) return undefined;
    at = (at as Record<string, unknown>)[segment];
  }
  return at;
}
