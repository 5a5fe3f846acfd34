/**
 * State shared while one domain document is compiled: its errors, the limit
 * names it defines and the `replaces` references to check against them once
 * the whole domain has been read (a limit may replace one defined later).
 */
// @ts-nocheck

import type { Diagnostics } from "./reader.ts";

export interface DomainContext {
  readonly d: Diagnostics;
  /** Explicit rate limit names defined anywhere in the domain. */
  readonly names: Set<string>;
  /** Every `replaces` name with the path it was written at. */
  readonly replacesRefs: { readonly name: string; readonly path: string }[];
  /** Tree nodes and compiled limits, for the summary line. */
  readonly counts: { descriptors: number; limits: number };
}

/**
 * A fresh context for one domain document.
 *
 * @example
 * const ctx = domainContext(new Diagnostics());
 */
export function domainContext(d: Diagnostics): DomainContext {
  return { d, names: new Set(), replacesRefs: [], counts: { descriptors: 0, limits: 0 } };
}
