/**
 * The client address used for `remote_address` descriptors (docs/rules.md,
 * "Routes"): an IPv4 address as is, an IPv6 address as its network of the
 * domain's `ipv6_prefix` (default /56), IPv4-mapped IPv6 in any spelling as IPv4.
 */
import { DEFAULT_SETTINGS, type Settings } from "../config.ts";
import { IPV6_PREFIX } from "../rules/keys.ts";

/** The header a proxy of yours writes the client address into (`TRUSTED_PROXY_HEADER`, docs/operations.md). */
export type TrustedProxyHeader = Settings["trustedProxyHeader"];

/** Key used for requests that carry no client IP, so they share one bucket instead of going unlimited. */
export const UNKNOWN_CLIENT = "unknown";

/** The request's client IP is present but not an IP address. */
export class InvalidClientIpError extends Error {}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** A client address read once per request: IPv4 text, or the eight groups of an IPv6 address. */
export type ClientIp = string | readonly number[];

/**
 * The client IP for rate limiting. By default only `CF-Connecting-IP` (set by
 * Cloudflare's edge, which overwrites anything a client sends) is trusted;
 * `X-Forwarded-For` and `X-Real-IP` are client-controlled and ignored.
 * With `trustedProxyHops` N > 0 (the `TRUSTED_PROXY_HOPS` var: N proxies of
 * yours sit in front of Cloudflare, each appending the address it was
 * reached from), the client is the Nth `X-Forwarded-For` entry from the
 * right — entries further left were written by the client and are ignored.
 * Only the one header `proxyHeader` (`TRUSTED_PROXY_HEADER`) names is read:
 * with `x-real-ip` (a proxy that overwrites `X-Real-IP`) that header, and
 * `X-Forwarded-For` is ignored; with `x-forwarded-for` (the default),
 * `X-Real-IP` is ignored. Either way the other header is client-written.
 *
 * IPv6 addresses are reduced to their network of `ipv6Prefix` bits (default
 * /56, a common delegation to one customer, who could otherwise rotate
 * through its /64s freely); IPv4-mapped IPv6 is read as IPv4. No address at
 * all yields `UNKNOWN_CLIENT` (one shared bucket, not unlimited); a
 * malformed one throws InvalidClientIpError (the gateway answers 400).
 *
 * @example
 * clientAddress(new Headers({ "cf-connecting-ip": "2001:db8:1:2:3:4:5:6" })); // "2001:db8:1:0::/56"
 * clientAddress(new Headers({ "cf-connecting-ip": "2001:db8:1:2:3:4:5:6" }), 0, "x-forwarded-for", 64); // "2001:db8:1:2::/64"
 * clientAddress(new Headers({ "cf-connecting-ip": "::ffff:cb00:714d" }));  // "203.0.113.77"
 * clientAddress(new Headers({ "x-forwarded-for": "1.1.1.1, 198.51.100.9", "cf-connecting-ip": "192.0.2.1" }), 1); // "198.51.100.9"
 * clientAddress(new Headers({ "x-forwarded-for": "1.1.1.1", "x-real-ip": "198.51.100.9" }), 1, "x-real-ip"); // "198.51.100.9"
 */
export function clientAddress(
  headers: Headers,
  trustedProxyHops = DEFAULT_SETTINGS.trustedProxyHops,
  proxyHeader: TrustedProxyHeader = DEFAULT_SETTINGS.trustedProxyHeader,
  ipv6Prefix: number = IPV6_PREFIX.default,
): string {
  return clientKey(clientIp(headers, trustedProxyHops, proxyHeader), ipv6Prefix);
}

/**
 * The request's client address, parsed once; `clientKey` names it for a
 * domain. Throws InvalidClientIpError when the address is malformed.
 *
 * @example
 * clientKey(clientIp(request.headers), 56); // "2001:db8:1:0::/56"
 */
export function clientIp(
  headers: Headers,
  trustedProxyHops = DEFAULT_SETTINGS.trustedProxyHops,
  proxyHeader: TrustedProxyHeader = DEFAULT_SETTINGS.trustedProxyHeader,
): ClientIp {
  const [raw, source] = rawClientIp(headers, trustedProxyHops, proxyHeader);
  if (raw === undefined) return UNKNOWN_CLIENT;
  const address = parseIp(raw);
  if (address === undefined) throw new InvalidClientIpError(`${source} is not an IP address: ${JSON.stringify(raw.slice(0, 64))}`);
  return address;
}

/**
 * The descriptor value of a client: IPv4 text as is, IPv6 as its network of
 * `ipv6Prefix` bits, written as four groups and the prefix.
 *
 * @example
 * clientKey([0x2001, 0xdb8, 1, 0x2ff, 0, 0, 0, 1], 56); // "2001:db8:1:200::/56"
 */
export function clientKey(ip: ClientIp, ipv6Prefix: number): string {
  if (typeof ip === "string") return ip;
  // Prefixes run from /32 to /64: the network lies in the first four groups.
  const groups: string[] = [];
  for (let i = 0; i < 4; i++) {
    const kept = Math.min(16, Math.max(0, ipv6Prefix - 16 * i));
    const mask = (0xffff << (16 - kept)) & 0xffff; // kept 0: the ones shift out of the low 16 bits
    groups.push((ip[i] & mask).toString(16));
  }
  return `${groups.join(":")}::/${ipv6Prefix}`;
}

function rawClientIp(headers: Headers, hops: number, proxyHeader: TrustedProxyHeader): [string | undefined, string] {
  if (hops > 0 && proxyHeader === "x-real-ip") {
    // The proxy overwrites X-Real-IP; an X-Forwarded-For beside it is whatever the client wrote.
    const real = headers.get("x-real-ip")?.trim();
    if (real) return [real, "X-Real-IP"];
  } else if (hops > 0) {
    const forwarded = headers.get("x-forwarded-for");
    if (forwarded !== null) {
      const hopsSeen = forwarded.split(",").map((part) => part.trim());
      // Fewer entries than trusted proxies: the chain is not what was declared, so fall back to the edge's view.
      if (hopsSeen.length >= hops) return [hopsSeen[hopsSeen.length - hops] || undefined, "X-Forwarded-For"];
    }
    // No X-Real-IP fallback: a proxy that appends to X-Forwarded-For always sends one, so an X-Real-IP here is the client's.
  }
  return [headers.get("cf-connecting-ip")?.trim() || undefined, "CF-Connecting-IP"];
}

/**
 * An IPv4 address as is, an IPv6 address as its network of `ipv6Prefix`
 * bits (IPv4-mapped IPv6 in any spelling as IPv4), or undefined when the
 * text is neither.
 *
 * @example
 * normalizeIp("::ffff:203.0.113.7");     // "203.0.113.7"
 * normalizeIp("0:0:0:0:0:FFFF:CB00:714D"); // "203.0.113.77"
 * normalizeIp("2001:DB8::1");            // "2001:db8:0:0::/56"
 */
export function normalizeIp(text: string, ipv6Prefix: number = IPV6_PREFIX.default): string | undefined {
  const ip = parseIp(text);
  return ip === undefined ? undefined : clientKey(ip, ipv6Prefix);
}

// IPv4 text, or IPv6 groups; an address in ::ffff:0:0/96 is the IPv4 address it maps, however it is written.
function parseIp(text: string): ClientIp | undefined {
  if (IPV4.test(text)) return text;
  const groups = ipv6Groups(text);
  if (groups === undefined) return undefined;
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff) {
    return `${groups[6] >> 8}.${groups[6] & 0xff}.${groups[7] >> 8}.${groups[7] & 0xff}`;
  }
  return groups;
}

/**
 * The eight 16-bit groups of an IPv6 address in any RFC 4291 text form
 * (`::` compression, upper or lower case, leading zeros, a dotted IPv4
 * tail), or undefined when the text is not one.
 *
 * @example
 * ipv6Groups("::ffff:203.0.113.77"); // [0, 0, 0, 0, 0, 65535, 52992, 29005]
 */
export function ipv6Groups(text: string): number[] | undefined {
  // Stryker disable next-line all: a quick refusal of what the groups below refuse anyway (45 characters is the longest address).
  if (text.length > 45 || !/^[0-9a-fA-F:.]+$/.test(text)) return undefined;
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const head = groupsOf(halves[0], halves.length === 1);
  const tail = halves.length === 2 ? groupsOf(halves[1], true) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  return [...head, ...Array<number>(missing).fill(0), ...tail];
}

// `last`: the part ends the address, the only place a dotted IPv4 tail may stand.
function groupsOf(part: string, last: boolean): number[] | undefined {
  if (part === "") return [];
  const items = part.split(":");
  const out: number[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (last && i === items.length - 1 && item.includes(".")) {
      // A dotted IPv4 tail stands for the last two groups.
      if (!IPV4.test(item)) return undefined;
      const [a, b, c, d] = item.split(".").map(Number);
      out.push((a << 8) | b, (c << 8) | d);
    } else if (/^[0-9a-fA-F]{1,4}$/.test(item)) {
      out.push(parseInt(item, 16));
    } else {
      return undefined;
    }
  }
  return out;
}
