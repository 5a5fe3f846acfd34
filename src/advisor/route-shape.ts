/**
 * The paths a sample row keeps (docs/advisor.md, "What a row holds"): its
 * `route` (the method and the canonical path the rules matched) and the
 * value of every `path` entry, with each path segment that the domain's
 * rules do not name literally replaced by its digest (`~` and 16 hex
 * digits, no prefix shown). A path may carry a secret
 * (`/reset-password/tok_…`); a segment written in the rules (a route's
 * `match.path`, or a `path` value of the descriptors, its globbed segments
 * left out) is no client's
 * secret, so it stays readable.
 */
import { foldPathCase } from "../http/canonical-path.ts";
import type { ShardKey } from "../stored/shard-hash.ts";
import type { CompiledDomain, DescriptorLevel } from "../rules/types.ts";
import { digestValue } from "./digest.ts";

/** Per compiled domain: the segments its rules name literally (no glob), case-folded unless the domain keeps case. */
const literals = new WeakMap<CompiledDomain, ReadonlySet<string>>();

/** A path held until its row is sent: each segment, with whether it may be shown raw. */
export type HeldPath = readonly { readonly text: string; readonly shown: boolean }[];

/** A route held until its row is sent: the method and its path's segments. */
export interface HeldRoute {
  readonly method: string;
  readonly segments: HeldPath;
}

/**
 * Split `path` (a canonical path) into what may be shown of it under
 * `domain`'s rules; nothing is hashed yet (see `sentPath`).
 *
 * @example
 * heldPath(domain, "/reset-password/tok_secret"); // reset-password shown, tok_secret not
 */
export function heldPath(domain: CompiledDomain, path: string): HeldPath {
  let named = literals.get(domain);
  if (named === undefined) literals.set(domain, (named = literalSegments(domain)));
  const known = named;
  return path.split("/").map((text) => ({ text, shown: text === "" || known.has(text) }));
}

/**
 * Split `route` (`METHOD /canonical/path`) into what may be shown of it
 * under `domain`'s rules; nothing is hashed yet (see `sentRoute`).
 *
 * @example
 * heldRoute(domain, "GET /reset-password/tok_secret"); // segments: reset-password shown, tok_secret not
 */
export function heldRoute(domain: CompiledDomain, route: string): HeldRoute {
  const space = route.indexOf(" ");
  return { method: space < 0 ? "" : route.slice(0, space), segments: heldPath(domain, space < 0 ? route : route.slice(space + 1)) };
}

/** Digests a value as the sample does (digest.ts), under the deployment's key. */
export type Digester = (value: string) => Promise<string>;

/**
 * The path as a row stores it: segments not shown replaced by `~` and the
 * hex of their digest.
 *
 * @example
 * await sentPath(heldPath(domain, "/reset-password/tok_secret"), (v) => digestValue(v, edge.shardKey)); // "/reset-password/~3b1f…"
 */
export async function sentPath(path: HeldPath, digest: Digester): Promise<string> {
  const segments = await Promise.all(path.map(async (s) => (s.shown ? s.text : segmentDigest(await digest(s.text)))));
  return segments.join("/");
}

/**
 * The route as a row stores it (see `sentPath`).
 *
 * @example
 * await sentRoute(heldRoute(domain, "GET /reset-password/tok_secret"), (v) => digestValue(v, edge.shardKey)); // "GET /reset-password/~3b1f…"
 */
export async function sentRoute(route: HeldRoute, digest: Digester): Promise<string> {
  return `${route.method} ${await sentPath(route.segments, digest)}`;
}

/**
 * A segment's form in a stored path: its digest without the prefix.
 *
 * @example
 * await pathSegmentDigest("tok_secret", edge.shardKey); // "~3b1f…" (16 hex digits)
 */
export async function pathSegmentDigest(segment: string, shardKey: ShardKey): Promise<string> {
  return segmentDigest(await digestValue(segment, shardKey));
}

function segmentDigest(digest: string): string {
  return `~${digest.slice(digest.lastIndexOf("~") + 1)}`;
}

function literalSegments(domain: CompiledDomain): ReadonlySet<string> {
  const named = new Set<string>();
  const fold = !domain.paths.caseSensitive;
  const add = (path: string) => {
    for (const segment of path.split("/")) {
      if (segment === "" || segment.includes("*")) continue;
      named.add(fold ? foldPathCase(segment) : segment);
    }
  };
  for (const route of domain.routes) if (route.pathPattern !== undefined) add(route.pathPattern);
  // Exact `path` values of the descriptors are the rules' own text too.
  const walk = (level: DescriptorLevel): void => {
    for (const node of level.exact.values()) {
      if (node.key === "path" && node.value !== undefined) add(node.value);
      walk(node.children);
    }
    for (const list of level.wildcards.values())
      for (const { node } of list) {
        if (node.key === "path" && node.value !== undefined) add(node.value);
        walk(node.children);
      }
    for (const node of level.keyOnly.values()) walk(node.children);
    for (const node of level.ranges?.values() ?? []) walk(node.children);
  };
  walk(domain.root);
  return named;
}
