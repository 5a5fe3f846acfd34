/**
 * Dotted paths into a JSON document (docs/llm.md): `json_body` of a route
 * entry or a route's `cost`, `json` of `cost_from_response`. A path names
 * object members only, one per dot-separated segment.
 */
import { readString } from "./fields.ts";
import { JSON_PATH_BOUNDS } from "./keys.ts";
import { type Diagnostics, type JsonObject, keyPath } from "./reader.ts";
import type { JsonPath } from "./types.ts";

/**
 * Read the dotted path at `obj[key]` (undefined: absent or invalid, with the error recorded).
 *
 * @example
 * readJsonPath(d, { json_body: "metadata.user_id" }, "json_body", "$.routes[0].descriptors[0][0]"); // ["metadata", "user_id"]
 * readJsonPath(d, { json_body: "a..b" }, "json_body", "$"); // undefined; error at $.json_body
 */
export function readJsonPath(d: Diagnostics, obj: JsonObject, key: string, path: string): JsonPath | undefined {
  const text = readString(d, obj, key, path);
  if (text === undefined) return undefined;
  const at = keyPath(path, key);
  if (text.length > JSON_PATH_BOUNDS.maxChars) {
    d.add(at, `must be at most ${JSON_PATH_BOUNDS.maxChars} characters, got ${text.length}`);
    return undefined;
  }
  const segments = text.split(".");
  if (segments.some((segment) => segment === "")) {
    d.add(at, `${JSON.stringify(text)} is not a dotted path: member names separated by single dots, e.g. "usage.total_tokens"`);
    return undefined;
  }
  if (segments.length > JSON_PATH_BOUNDS.maxSegments) {
    d.add(at, `must have at most ${JSON_PATH_BOUNDS.maxSegments} segments, got ${segments.length}`);
    return undefined;
  }
  return Object.freeze(segments);
}
