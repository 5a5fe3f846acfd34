/**
 * Who may read a queued request's status: the client that queued it, i.e.
 * a request with the same descriptor values, or an admin. The status keeps
 * only a hash of each counter key (domain and descriptor values), so it
 * stores no client IPs or API keys in the clear.
 */
import { bearerToken, tokensEqual } from "../http/bearer.ts";
import { counterKey } from "../durable/counters/placement.ts";
import { boundedEntries } from "../rules/index.ts";
import type { DomainDescriptors } from "../rules/types.ts";

/**
 * SHA-256 (hex) of a counter key.
 *
 * @example
 * await ownerHash('["api",["remote_address","203.0.113.7"]]'); // "5d0c…" (64 hex digits)
 */
export async function ownerHash(key: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Whether a reader's descriptors (mapped as if it sent the queued request)
 * include every descriptor that queued it.
 *
 * @example
 * await sameOwner(requestDescriptors(rules, asIfQueued), status.owner); // true for the same client
 */
export async function sameOwner(reader: readonly DomainDescriptors[], owner: readonly string[]): Promise<boolean> {
  const mine = new Set<string>();
  for (const { domain, descriptors } of reader) {
    // Long values as a decision keys them (docs/rules.md), so the owner's own request matches.
    for (const entries of descriptors) mine.add(await ownerHash(counterKey(domain.domain, await boundedEntries(entries))));
  }
  return owner.length > 0 && owner.every((hash) => mine.has(hash));
}

/**
 * Whether the request carries `Authorization: Bearer $ADMIN_TOKEN` (compared in constant time).
 *
 * @example
 * if (await isAdmin(c.req.raw, settings.adminToken)) return full(status);
 */
export async function isAdmin(request: Request, adminToken: string | undefined): Promise<boolean> {
  const given = bearerToken(request.headers.get("authorization"));
  return adminToken !== undefined && given !== undefined && (await tokensEqual(given, adminToken));
}
