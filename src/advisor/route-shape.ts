/**
 * The `route` a sample row keeps (docs/advisor.md, "What a row holds"): the
 * method and the canonical path the rules matched, with every path segment
 * that no route pattern of the domain names literally replaced by its
 * digest (`~` and 16 hex digits, no prefix shown). A path may carry a
 * secret (`/reset-password/tok_…`); a segment written in the rules
 * (`reset-password`) is no client's secret, so it stays readable.
 */
import { foldPathCase } from "../http/canonical-path.ts";
import type { CompiledDomain } from "../rules/types.ts";
import { digestValue } from "./digest.ts";

/** Per compiled domain: the segments its route patterns name literally (no glob), case-folded unless the domain keeps case. */
const literals = new WeakMap<CompiledDomain, ReadonlySet<string>>();

/** A route held until its row is sent: the method and each segment, with whether it may be shown raw. */
export interface HeldRoute {
  readonly method: string;
  readonly segments: readonly { readonly text: string; readonly shown: boolean }[];
}

/**
 * Split `route` (`METHOD /canonical/path`) into what may be shown of it
 * under `domain`'s routes; nothing is hashed yet (see `sentRoute`).
 *
 * @example
 * heldRoute(domain, "GET /reset-password/tok_secret"); // segments: reset-password shown, tok_secret not
 */
export function heldRoute(domain: CompiledDomain, route: string): HeldRoute {
  let named = literals.get(domain);
  if (named === undefined) literals.set(domain, (named = literalSegments(domain)));
  const space = route.indexOf(" ");
  const method = space < 0 ? "" : route.slice(0, space);
  const path = space < 0 ? route : route.slice(space + 1);
  const known = named;
  return { method, segments: path.split("/").map((text) => ({ text, shown: text === "" || known.has(text) })) };
}

/**
 * The route as a row stores it: segments not shown replaced by their digest.
 *
 * @example
 * await sentRoute(heldRoute(domain, "GET /reset-password/tok_secret")); // "GET /reset-password/~3b1f…"
 */
export async function sentRoute(route: HeldRoute, digest: (value: string) => Promise<string> = digestValue): Promise<string> {
  const segments = await Promise.all(route.segments.map(async (s) => (s.shown ? s.text : `~${(await digest(s.text)).split("~").pop()}`)));
  return `${route.method} ${segments.join("/")}`;
}

function literalSegments(domain: CompiledDomain): ReadonlySet<string> {
  const named = new Set<string>();
  const fold = !domain.paths.caseSensitive;
  for (const route of domain.routes) {
    for (const segment of route.pathPattern?.split("/") ?? []) {
      if (segment === "" || segment.includes("*")) continue;
      named.add(fold ? foldPathCase(segment) : segment);
    }
  }
  return named;
}
