/**
 * Envoy's `quota_mode` and `share_threshold` on a descriptor node
 * (docs/rules.md, "quota_mode" and "share_threshold").
 */
import { parsePrefix } from "./match/cidr.ts";
import { isRangeValue } from "./match/cidr-values.ts";
import { readBool } from "./fields.ts";
import { isGlob } from "./match/glob.ts";
import { type Diagnostics, type JsonObject, keyPath } from "./reader.ts";

/**
 * A node's Envoy `quota_mode` and `share_threshold` (docs/rules.md). As in
 * envoyproxy/ratelimit, `share_threshold` needs a value that matches many
 * (a wildcard; here an address range too), or there is nothing to share.
 *
 * @example
 * readEnvoyModes(d, { value: "files/*", share_threshold: true }, "$.descriptors[0]", "files", "files/*"); // { quotaMode: false, shareThreshold: true }
 */
export function readEnvoyModes(
  d: Diagnostics,
  obj: JsonObject,
  path: string,
  key: string | undefined,
  value: string | undefined,
): { quotaMode: boolean; shareThreshold: boolean } {
  const quotaMode = readBool(d, obj, "quota_mode", path) ?? false;
  const shareThreshold = readBool(d, obj, "share_threshold", path) ?? false;
  const many = value !== undefined && (isGlob(value) || (key !== undefined && isRangeValue(key, value) && !isSingleAddress(value)));
  if (shareThreshold && value !== undefined && !many) {
    d.add(
      keyPath(path, "share_threshold"),
      `only applies to a wildcard value (containing "*") or an address range; ${JSON.stringify(value)} matches one value`,
    );
  } else if (shareThreshold && value === undefined) {
    d.add(keyPath(path, "share_threshold"), 'only applies to a wildcard value (containing "*") or an address range; this node has no "value"');
  }
  return { quotaMode, shareThreshold: shareThreshold && many };
}

function isSingleAddress(value: string): boolean {
  const prefix = parsePrefix(value);
  return prefix !== undefined && prefix.length === (prefix.family === 4 ? 32 : 128);
}
