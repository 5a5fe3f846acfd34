/**
 * Reading what a rate-limited server says about waiting: `Retry-After`
 * (RFC 9110: seconds or an HTTP date), the IETF fields in each of
 * floodgate's dialects (docs/headers.md): draft-11's list
 * `"name";r=0;t=45, …`, draft-7's `limit=10, remaining=0, reset=45`,
 * draft-6's `RateLimit-Remaining` and `RateLimit-Reset`; and the
 * `X-RateLimit-*` family. Plain web APIs only, so this runs in browsers,
 * Node and Workers alike.
 */
// @ts-nocheck


/** What a response says about the quota behind it. */
export interface QuotaHint {
  /** Requests left (the most restrictive policy's). */
  readonly remaining: number;
  /**
   * Milliseconds those requests have to last: draft-11's effective window
   * `t` (after it, at least one more request fits), or the reset of the
   * older fields (when all of the quota is back).
   */
  readonly resetMs: number;
}

/**
 * Milliseconds to wait per `Retry-After` (delta seconds or an HTTP date),
 * or undefined when absent or unreadable. A date in the past is 0.
 *
 * @example
 * retryAfterMs("7", 0);                                  // 7000
 * retryAfterMs("Wed, 21 Oct 2015 07:28:00 GMT", Date.parse("Wed, 21 Oct 2015 07:27:58 GMT")); // 2000
 * retryAfterMs("soon", 0);                               // undefined
 */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined; // a bare "-1" or "1.5" is no date either
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Members of a structured-field list (RFC 8941), split on commas outside quoted strings. */
function listMembers(text: string): string[] {
  const members: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === "\\") {
      current += c + (text[i + 1] ?? "");
      i += 1;
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === "," && !quoted) {
      members.push(current.trim());
      current = "";
    } else {
      current += c;
    }
  }
  if (current.trim() !== "") members.push(current.trim());
  return members;
}

/** A list member's parameters: the text after its item, an sf-string that may itself hold `;`. */
function paramsText(member: string): string | undefined {
  let i = 0;
  if (member.startsWith('"')) {
    for (i = 1; i < member.length && member[i] !== '"'; i++) if (member[i] === "\\") i++;
  }
  const at = member.indexOf(";", i);
  return at < 0 ? undefined : member.slice(at + 1);
}

/** `key=value` integer parameters of a member (after its `;`), or of an old-draft dictionary. */
function intParams(text: string, separator: string): Map<string, number> {
  const params = new Map<string, number>();
  for (const part of text.split(separator)) {
    const match = /^\s*([a-z][a-z0-9_-]*)\s*=\s*(\d+)\s*$/i.exec(part);
    if (match) params.set(match[1].toLowerCase(), Number(match[2]));
  }
  return params;
}

/**
 * The quota a response reports: from `RateLimit` (the policy with the least
 * remaining, the longest window among equals), else draft-6's
 * `RateLimit-Remaining` and `RateLimit-Reset`, else `X-RateLimit-Remaining`
 * and `X-RateLimit-Reset` (seconds from now, or an epoch second as some APIs
 * send). Undefined when the response says nothing usable.
 *
 * @example
 * quotaHint(new Headers({ RateLimit: '"demo";r=0;t=45' }), 0);                        // { remaining: 0, resetMs: 45000 }
 * quotaHint(new Headers({ "X-RateLimit-Remaining": "3", "X-RateLimit-Reset": "9" }), 0); // { remaining: 3, resetMs: 9000 }
 */
export function quotaHint(headers: Headers, now: number): QuotaHint | undefined {
  return listedQuota(headers.get("ratelimit")) ?? splitQuota(headers, "ratelimit-", now) ?? splitQuota(headers, "x-ratelimit-", now);
}

/** draft-11's list, or draft-7's dictionary, in a `RateLimit` field. */
function listedQuota(header: string | null): QuotaHint | undefined {
  if (header === null) return undefined;
  let best: QuotaHint | undefined;
  const consider = (remaining: number | undefined, reset: number | undefined) => {
    if (remaining === undefined || reset === undefined) return;
    const hint = { remaining, resetMs: reset * 1000 };
    if (!best || hint.remaining < best.remaining || (hint.remaining === best.remaining && hint.resetMs > best.resetMs)) best = hint;
  };
  if (/(^|,)\s*remaining\s*=/i.test(header)) {
    const old = intParams(header, ",");
    consider(old.get("remaining"), old.get("reset"));
  } else {
    for (const member of listMembers(header)) {
      const text = paramsText(member);
      if (text === undefined) continue;
      const params = intParams(text, ";");
      consider(params.get("r"), params.get("t"));
    }
  }
  return best;
}

/** `<prefix>remaining` and `<prefix>reset` fields (draft-6's, or the X- family). */
function splitQuota(headers: Headers, prefix: string, now: number): QuotaHint | undefined {
  const remaining = headers.get(`${prefix}remaining`);
  const reset = headers.get(`${prefix}reset`);
  if (remaining === null || reset === null || !/^\d+$/.test(remaining.trim()) || !/^\d+$/.test(reset.trim())) return undefined;
  const seconds = Number(reset.trim());
  // Past ~2001 in epoch seconds, nobody means a delta.
  const resetMs = seconds > 1_000_000_000 ? Math.max(0, seconds * 1000 - now) : seconds * 1000;
  return { remaining: Number(remaining.trim()), resetMs };
}

/**
 * The server's wait for a refused response: `Retry-After`, else
 * `X-RateLimit-Retry-After` (seconds), else the reset of a spent quota.
 *
 * @example
 * serverWaitMs(new Headers({ "Retry-After": "3" }), 0); // 3000
 */
export function serverWaitMs(headers: Headers, now: number): number | undefined {
  const retry = retryAfterMs(headers.get("retry-after"), now) ?? retryAfterMs(headers.get("x-ratelimit-retry-after"), now);
  if (retry !== undefined) return retry;
  const hint = quotaHint(headers, now);
  return hint !== undefined && hint.remaining === 0 ? hint.resetMs : undefined;
}
