/**
 * The `descriptors` tree into indexed, frozen DescriptorLevels.
 */
import { limitFacts } from "./facts.ts";
import { addRange, isRangeValue } from "./match/cidr-values.ts";
import { CidrTable } from "./match/cidr.ts";
import type { DomainContext } from "./context.ts";
import { readBool, readString, requireKey } from "./fields.ts";
import { readEnvoyModes } from "./envoy-modes.ts";
import { compileGlob, isGlob } from "./match/glob.ts";
import { isLongValue, MAX_VALUE_BYTES } from "./match/long-values.ts";
import { BOUNDS } from "./keys.ts";
import { readRateLimit } from "./limit.ts";
import { checkConcurrencyMix } from "./concurrency.ts";
import { checkScopeMix } from "./scope.ts";
import { descriptorLabel } from "./names.ts";
import { asArray, asObject, checkKeys, indexPath, type JsonObject, keyPath } from "./reader.ts";
import type { CompiledLimit, CompiledNode, DescriptorLevel } from "./types.ts";

type Wildcard = { readonly matches: (value: string) => boolean; readonly node: CompiledNode };

/** The level of a node without nested `descriptors`; shared, never mutated. */
export const EMPTY_LEVEL: DescriptorLevel = Object.freeze({ exact: new Map(), wildcards: new Map(), keyOnly: new Map() });

/**
 * Read one `descriptors` array at `path` (`depth` 1 is the domain's top level;
 * `parentStat` is the parent node's Envoy stat key, "" at the top).
 * Invalid nodes are left out of the result; their errors are recorded.
 *
 * @example
 * const root = readLevel(ctx, [{ key: "remote_address", rate_limit: { unit: "second", requests_per_unit: 5 } }], "$.descriptors", "", 1);
 * root.keyOnly.get("remote_address")?.limits[0].limit; // 5
 */
export function readLevel(ctx: DomainContext, value: unknown, path: string, parentLabel: string, depth: number, parentStat = ""): DescriptorLevel {
  const list = asArray(ctx.d, value, path);
  if (list === undefined || list.length === 0) return EMPTY_LEVEL;
  const exact = new Map<string, CompiledNode>();
  const wildcards = new Map<string, Wildcard[]>();
  const keyOnly = new Map<string, CompiledNode>();
  let ranges: CidrTable<CompiledNode> | undefined;
  const seen = new Map<string, string>();
  // Claims a key/value slot at this level; false (with an error) when already taken.
  const claim = (key: string, val: string | undefined, at: string): boolean => {
    const slot = val === undefined ? key : `${key}\u0000${val}`;
    const first = seen.get(slot);
    if (first === undefined) {
      seen.set(slot, at);
      return true;
    }
    const what = val === undefined ? `key "${key}" without a value` : `key "${key}" with value ${JSON.stringify(val)}`;
    ctx.d.add(at, `duplicate descriptor: ${what} is already defined at ${first}`);
    return false;
  };
  list.forEach((item, i) => {
    const node = readNode(ctx, item, indexPath(path, i), { label: parentLabel, stat: parentStat }, depth, claim);
    if (node === undefined) return;
    if (node.value === undefined) {
      keyOnly.set(node.key, node);
    } else if (isRangeValue(node.key, node.value)) {
      addRange(ctx.d, (ranges ??= new CidrTable()), node, keyPath(indexPath(path, i), "value"), ctx.ipv6Prefix);
    } else if (isGlob(node.value)) {
      const entries = wildcards.get(node.key) ?? [];
      entries.push(Object.freeze({ matches: compileGlob(node.value), node }));
      wildcards.set(node.key, entries);
    } else {
      exact.set(`${node.key}\u0000${node.value}`, node);
    }
  });
  return Object.freeze(ranges === undefined ? { exact, wildcards, keyOnly } : { exact, wildcards, keyOnly, ranges });
}

function readNode(
  ctx: DomainContext,
  item: unknown,
  path: string,
  parent: { label: string; stat: string },
  depth: number,
  claim: (key: string, value: string | undefined, at: string) => boolean,
): CompiledNode | undefined {
  const { d } = ctx;
  const obj = asObject(d, item, path);
  if (obj === undefined) return undefined;
  checkKeys(d, obj, path, "descriptor");
  requireKey(d, obj, "key", path);
  let key = readString(d, obj, "key", path);
  if (key?.includes("\u0000")) {
    d.add(keyPath(path, "key"), "must not contain the NUL character");
    key = undefined;
  }
  let value = readString(d, obj, "value", path, 'must be a non-empty string (omit "value" to match any value)');
  if (value !== undefined && isLongValue(value)) {
    d.add(keyPath(path, "value"), longValueMessage(value));
    value = undefined;
  }
  const valueOk = value !== undefined || !Object.hasOwn(obj, "value");
  const unique = key !== undefined && valueOk && claim(key, value, path);
  const label = descriptorLabel(parent.label, key ?? "?", value);
  // Envoy's stat path: `key` or `key_value` per level, dot-joined.
  const ownStat = value === undefined ? (key ?? "?") : `${key ?? "?"}_${value}`;
  const statKey = parent.stat === "" ? ownStat : `${parent.stat}.${ownStat}`;

  const { limits, unlimited, unlimitedReplaces } = readLimits(ctx, obj, path, label);
  const shadowMode = readBool(d, obj, "shadow_mode", path) ?? false;
  const detailedMetric = readBool(d, obj, "detailed_metric", path) ?? false;
  const { quotaMode, shareThreshold } = readEnvoyModes(d, obj, path, key, value);
  let children = EMPTY_LEVEL;
  if (Object.hasOwn(obj, "descriptors")) {
    if (depth >= BOUNDS.maxDepth) {
      d.add(keyPath(path, "descriptors"), `descriptors may be nested at most ${BOUNDS.maxDepth} levels deep`);
    } else {
      children = readLevel(ctx, obj.descriptors, keyPath(path, "descriptors"), label, depth + 1, statKey);
    }
  }
  ctx.counts.descriptors += 1;
  if (key === undefined || !unique) return undefined;
  return Object.freeze({
    key,
    ...(value !== undefined ? { value } : {}),
    limits,
    facts: limitFacts(limits),
    unlimited,
    ...(unlimitedReplaces !== undefined ? { unlimitedReplaces } : {}),
    shadowMode,
    detailedMetric,
    ...(quotaMode ? { quotaMode } : {}),
    ...(shareThreshold ? { shareThreshold } : {}),
    statKey,
    children,
  });
}

interface NodeLimits {
  readonly limits: readonly CompiledLimit[];
  readonly unlimited: boolean;
  readonly unlimitedReplaces?: readonly string[];
}

function readLimits(ctx: DomainContext, obj: JsonObject, path: string, label: string): NodeLimits {
  const single = Object.hasOwn(obj, "rate_limit");
  const multiple = Object.hasOwn(obj, "rate_limits");
  if (single && multiple) ctx.d.add(path, 'set either "rate_limit" or "rate_limits", not both');
  if (single) {
    const result = readRateLimit(ctx, obj.rate_limit, keyPath(path, "rate_limit"), label, false);
    if (result?.kind === "unlimited") return { limits: [], unlimited: true, unlimitedReplaces: result.replaces };
    return { limits: Object.freeze(result ? [result.limit] : []), unlimited: false };
  }
  if (!multiple) return { limits: Object.freeze([]), unlimited: false };
  const at = keyPath(path, "rate_limits");
  const list = asArray(ctx.d, obj.rate_limits, at);
  if (list === undefined) return { limits: [], unlimited: false };
  if (list.length === 0) ctx.d.add(at, 'must not be empty (omit "rate_limits" for a node without limits)');
  const limits: CompiledLimit[] = [];
  const ids = new Map<string, number>();
  list.forEach((item, i) => {
    const result = readRateLimit(ctx, item, indexPath(at, i), label, true);
    if (result?.kind !== "limit") return;
    const twin = ids.get(result.limit.id);
    if (twin !== undefined) {
      ctx.d.add(indexPath(at, i), `counts exactly like rate_limits[${twin}] (same algorithm, requests_per_unit, window and burst)`);
      return;
    }
    ids.set(result.limit.id, i);
    limits.push(result.limit);
  });
  checkConcurrencyMix(ctx, limits, at);
  checkScopeMix(ctx.d, list, at);
  return { limits: Object.freeze(limits), unlimited: false };
}

// Rule values stay as short as stored keys; a wildcard is matched against a request's full value.
function longValueMessage(value: string): string {
  return (
    `is longer than ${MAX_VALUE_BYTES} bytes (${new TextEncoder().encode(value).length}): a rule value is at most ${MAX_VALUE_BYTES} bytes; ` +
    `match longer request values with a wildcard ("prefix*" or "*suffix"), which is matched against the full value`
  );
}
