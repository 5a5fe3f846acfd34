/**
 * Reading `remote_address` values that are addresses or CIDR ranges
 * (docs/rules.md, "Address ranges") into a level's CidrTable.
 */
import { type CidrTable, formatPrefix, hostBitsSet, parsePrefix } from "./cidr.ts";
import { isGlob } from "./glob.ts";
import type { Diagnostics } from "../reader.ts";
import type { CompiledNode } from "../types.ts";

/** The descriptor key whose values may be address ranges. */
export const RANGE_KEY = "remote_address";

/**
 * Whether a node's value is matched as an address range: a `remote_address`
 * value that is an address or contains `/` (an invalid range is an error,
 * never a literal). Other values (`unknown`, globs) match as text.
 *
 * @example
 * isRangeValue("remote_address", "10.0.0.0/8"); // true
 * isRangeValue("remote_address", "unknown");    // false
 * isRangeValue("path", "10.0.0.0/8");           // false
 */
export function isRangeValue(key: string, value: string): boolean {
  return key === RANGE_KEY && !isGlob(value) && (value.includes("/") || parsePrefix(value) !== undefined);
}

/**
 * Add a node whose value passed `isRangeValue` to `table`, or record why it
 * cannot be one: not a range, host bits set, an IPv6 range longer than the
 * domain's `ipv6_prefix` (client addresses are reduced to it, so it could
 * never match), or the same range twice.
 *
 * @example
 * addRange(d, table, node, "$.descriptors[0].value", 56); // node.value "10.0.0.0/8"
 */
export function addRange(d: Diagnostics, table: CidrTable<CompiledNode>, node: CompiledNode, at: string, ipv6Prefix: number): void {
  const value = node.value as string;
  const prefix = parsePrefix(value);
  if (prefix === undefined) {
    d.add(at, `${JSON.stringify(value)} is not an IP address or CIDR range (like "203.0.113.0/24" or "2001:db8::/32")`);
    return;
  }
  if (hostBitsSet(prefix)) {
    d.add(at, `${JSON.stringify(value)} has bits set past its /${prefix.length} prefix; write the range as "${formatPrefix(prefix)}"`);
    return;
  }
  if (prefix.family === 6 && prefix.length > ipv6Prefix) {
    d.add(
      at,
      `${JSON.stringify(value)} is longer than /${ipv6Prefix}: this domain identifies IPv6 clients by their /${ipv6Prefix} ("ipv6_prefix"), so it could never match; use a /${ipv6Prefix} or shorter range, or raise "ipv6_prefix" (at most /64)`,
    );
    return;
  }
  const twin = table.add(prefix, node);
  if (twin !== undefined) d.add(at, `the range ${formatPrefix(prefix)} is already given as ${JSON.stringify(twin.value)} at this level`);
}
