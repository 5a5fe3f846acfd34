/**
 * State shared while one domain document is compiled: its errors, the limit
 * names it defines and the `replaces` references to check against them once
 * the whole domain has been read (a limit may replace one defined later).
 */
import { IPV6_PREFIX } from "./keys.ts";
import type { Diagnostics } from "./reader.ts";

export interface DomainContext {
  readonly d: Diagnostics;
  /** Explicit rate limit names defined anywhere in the domain. */
  readonly names: Set<string>;
  /** Every `replaces` name with the path it was written at. */
  readonly replacesRefs: { readonly name: string; readonly path: string }[];
  /** Tree nodes and compiled limits, for the summary line. */
  readonly counts: { descriptors: number; limits: number };
  /** The domain's `ipv6_prefix`: an IPv6 range longer than it could never match a client. */
  readonly ipv6Prefix: number;
}

/**
 * A fresh context for one domain document.
 *
 * @example
 * const ctx = domainContext(new Diagnostics());
 */
export function domainContext(d: Diagnostics, ipv6Prefix: number = IPV6_PREFIX.default): DomainContext {
  return { d, names: new Set(), replacesRefs: [], counts: { descriptors: 0, limits: 0 }, ipv6Prefix };
}
