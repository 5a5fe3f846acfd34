/**
 * The compiled, immutable form of `rules.json`. Parsing and validation happen
 * once (`compileRules`); the request hot path only walks these structures.
 */
import type { PenaltySpec } from "../algorithms/penalty.ts";
import type { AlgorithmName, Decision, LimitSpec } from "../algorithms/types.ts";
import type { CidrTable } from "./match/cidr.ts";

/** Units allowed in `rate_limit.unit`, as in Envoy plus week/month/year. */
export type Unit = "second" | "minute" | "hour" | "day" | "week" | "month" | "year";

/** One validation problem, with the JSON path of the offending value. */
export interface RuleError {
  /** JSONPath-style location, e.g. `$[0].descriptors[2].rate_limit.unit`. */
  readonly path: string;
  /** What is wrong, in one sentence. */
  readonly message: string;
}

/** A compiled rate limit (one element of `rate_limit` / `rate_limits`). */
export interface CompiledLimit extends LimitSpec {
  /** Stable identity of this limit's configuration; counter state is keyed by it. */
  readonly id: string;
  /** Policy name for headers and metrics: the rule's `name`, or a derived one. */
  readonly name: string;
  /** Whether `name` was given explicitly (only explicit names take part in `replaces`). */
  readonly named: boolean;
  /** Names of limits this one replaces (Envoy `replaces`). */
  readonly replaces: readonly string[];
  readonly unit: Unit;
  readonly unitMultiplier: number;
  readonly requestsPerUnit: number;
  readonly algorithm: AlgorithmName;
  /** Edge pre-counting (docs/precount.md, "Pre-counting"), if enabled on this limit. */
  readonly precount?: { readonly syncMs: number };
  /** What happens to a request over this limit (docs/on-limit.md); the compiler always sets it, absent means `reject`. */
  readonly onLimit?: OnLimitAction;
  /** With `onLimit: "delay"`: the longest wait for a slot before answering 429. */
  readonly maxDelayMs?: number;
  /** Windows of 5 s or longer: the longest a change waits for its checkpoint (absent: the default, 1000). */
  readonly persistMs?: number;
  /** `durability: "strict"`: every change written before its answer leaves the object. */
  readonly strict?: boolean;
  /** `concurrency: N` (docs/concurrency.md): at most N requests in flight; the window fields then only shape headers. */
  readonly concurrency?: number;
  /** Charge only requests whose origin response matches (`count_when`, docs/response-limits.md). */
  readonly countWhen?: CountWhen;
  /** With `onLimit: "queue"` (docs/on-limit.md): a queued request older than this is dead-lettered. */
  readonly maxQueueAgeMs?: number;
  /** With `onLimit: "queue"`: requests of one counter key waiting at once; more get a 429. */
  readonly maxQueueBacklog?: number;
  /** With `onLimit: "queue"`: credential headers are kept, encrypted (`queue_credentials`). */
  readonly queueCredentials?: true;
  /** `scope: "region"` (docs/placement.md): each region counts on its own; absent means `global`. */
  readonly scope?: "region";
  /** `penalty` (docs/rules.md, "Penalty box"): after a refusal by this limit its key stays refused for a while. */
  readonly penalty?: PenaltySpec;
  /** What the engine keeps of this limit (src/rules/facts.ts); made by the compiler, absent on limits made by hand. */
  readonly kept?: LimitKept;
  /** `enforce_percent` below 100 (docs/rules.md, "Gradual and soft enforcement"): the share of keys whose refusals are enforced. */
  readonly enforcePercent?: number;
  /** `soft_percent`: the limit as written; `limit` and `burst` above are the ceiling the counter enforces. */
  readonly soft?: { readonly percent: number; readonly limit: number; readonly burst: number };
  /** `candidate`: a limit counted on the same key beside this one, never enforced. */
  readonly candidate?: CompiledLimit;
  /** On a candidate: the name of the live limit it stands beside. */
  readonly candidateOf?: string;
}

/** `count_when`: the response statuses charged, as inclusive ranges. */
export interface CountWhen {
  readonly status: readonly (readonly [number, number])[];
}

/** `on_limit` of a rate limit (docs/on-limit.md). */
export type OnLimitAction = "reject" | "delay" | "queue";

/** A node of the descriptor tree. */
export interface CompiledNode {
  readonly key: string;
  /** The exact or wildcard value, or undefined for a key-only node. */
  readonly value?: string;
  /** Limits applying at this node; empty with `unlimited` false means "whitelist". */
  readonly limits: readonly CompiledLimit[];
  /** What `limits` imply whatever the request (src/rules/facts.ts); absent on nodes made by hand. */
  readonly facts?: LimitFacts;
  readonly unlimited: boolean;
  /**
   * Names an `unlimited` rate limit at this node replaces (Envoy counts those
   * too); limited nodes carry `replaces` on each CompiledLimit instead.
   */
  readonly unlimitedReplaces?: readonly string[];
  readonly shadowMode: boolean;
  readonly detailedMetric: boolean;
  /** Envoy `quota_mode` (docs/rules.md): over this node's limits, a request is refused only when every quota descriptor is over. */
  readonly quotaMode?: boolean;
  /** Envoy `share_threshold` (docs/rules.md): every value this wildcard or range node matches counts in one counter. */
  readonly shareThreshold?: boolean;
  /**
   * Envoy's stat key of this node below the domain: `key` or `key_value` per
   * level, joined with `.` (e.g. `message_type_marketing.to_number`); the
   * metrics endpoint labels series with it.
   */
  readonly statKey: string;
  /** Child level (nested `descriptors`). */
  readonly children: DescriptorLevel;
}

/** One level of the tree, indexed for O(1) exact lookups. */
export interface DescriptorLevel {
  /** Exact `key` + `value` nodes, keyed by `key + "\u0000" + value`. */
  readonly exact: ReadonlyMap<string, CompiledNode>;
  /** Wildcard-valued nodes per key, in file order, with their matchers. */
  readonly wildcards: ReadonlyMap<string, readonly { readonly matches: (value: string) => boolean; readonly node: CompiledNode }[]>;
  /** Key-only nodes, keyed by `key`. */
  readonly keyOnly: ReadonlyMap<string, CompiledNode>;
  /** `remote_address` nodes whose value is an address or CIDR range, by longest prefix (absent when there are none). */
  readonly ranges?: CidrTable<CompiledNode>;
}

/** Where a route entry takes its value from. */
export type EntrySource =
  | { readonly kind: "value"; readonly value: string }
  | { readonly kind: "header"; readonly name: string }
  | { readonly kind: "query"; readonly name: string }
  | { readonly kind: "cookie"; readonly name: string }
  /** A claim of the request's verified token (the domain's `jwt`, docs/rules.md, "Verified identity (jwt)"). */
  | { readonly kind: "jwt_claim"; readonly name: string }
  /** A string or number at a dotted path of the request's JSON body (docs/llm.md). */
  | { readonly kind: "json_body"; readonly path: JsonPath }
  | { readonly kind: "remote_address" | "path" | "method" | "host" };

/** One entry of a route descriptor: the descriptor key and its value source. */
export interface RouteEntry {
  readonly key: string;
  readonly source: EntrySource;
}

/** A compiled route: a matcher plus the descriptors it produces. */
export interface CompiledRoute {
  readonly methods?: ReadonlySet<string>;
  /** Path matcher (exact or `*` glob) of a canonical path, case-folded unless the domain keeps case. */
  readonly path?: (path: string) => boolean;
  /** `match.path` as written: the traffic sample keeps a path's segments raw only when a route names them (docs/advisor.md, "Sample"). */
  readonly pathPattern?: string;
  /** Host matcher (exact or `*` glob, case-insensitive). */
  readonly host?: (host: string) => boolean;
  readonly descriptors: readonly (readonly RouteEntry[])[];
  /** Hits each descriptor charges (`cost`; absent: 1). */
  readonly cost?: RouteCost;
  /** What the origin reports it cost, charged after it answered (`cost_from_response`). */
  readonly costFromResponse?: ResponseCost;
  /** Every dotted path of the request's JSON body the route reads (entries and `cost`); absent: it reads none. */
  readonly jsonPaths?: readonly JsonPath[];
}

/** A dotted path into a JSON document, split into member names (`"usage.total_tokens"` → `["usage", "total_tokens"]`). */
export type JsonPath = readonly string[];

/**
 * Where a route's `cost_from_response` reads what the origin spent
 * (docs/response-limits.md, docs/llm.md): a response header's whole number,
 * a usage report of a known API (`usage`, the `tokens` it charges), or a
 * number at a dotted path of the response's JSON (or of its streamed events).
 */
export type ResponseCost =
  | { readonly kind: "header"; readonly name: string }
  | { readonly kind: "usage"; readonly preset: "openai" | "anthropic"; readonly tokens: "total" | "input" | "output" }
  | { readonly kind: "json"; readonly path: JsonPath };

/**
 * Where a route's `cost` comes from (docs/response-limits.md). A declared
 * cost (header, body) of 0 is charged as 1 unless `allowZero` (`allow_zero`).
 */
export type RouteCost =
  | { readonly kind: "literal"; readonly value: number }
  | { readonly kind: "header"; readonly name: string; readonly allowZero?: boolean }
  | { readonly kind: "body_bytes"; readonly allowZero?: boolean }
  /** The whole number at `path` of the request's JSON body (else `fallback`), at most `max` (docs/llm.md). */
  | { readonly kind: "json_body"; readonly path: JsonPath; readonly fallback: number; readonly max: number; readonly allowZero?: boolean };

export type Placement = "sharded" | "per_key";

/** One compiled domain document. */
export interface CompiledDomain {
  readonly domain: string;
  readonly placement: Placement;
  /** Shard count for `sharded` placement. */
  readonly shards: number;
  readonly root: DescriptorLevel;
  readonly routes: readonly CompiledRoute[];
  /** `paths`: how route paths and the `path` key read a request's path (docs/rules.md, "Canonical paths"). */
  readonly paths: PathOptions;
  /** `duplicate_values`: a repeated query parameter or cookie with different values refused (`reject`) or read first or last. */
  readonly duplicateValues: DuplicateValues;
  /** `ipv6_prefix`: the bits of an IPv6 client address its `remote_address` keeps (default 56). */
  readonly ipv6Prefix: number;
  /** `jwt`: how a token is found and verified, set when the domain has one (docs/rules.md, "Verified identity (jwt)"). */
  readonly jwt?: JwtOptions;
  /** Some route reads the request's JSON body (`json_body`): only then is a matched route asked whether to read it. */
  readonly readsJsonBody?: true;
  /** Some route reads a `jwt_claim`: only then is a token verified. */
  readonly readsClaims?: true;
  /** Overrides laid over the domain at runtime (src/overrides/), absent when it has none. */
  readonly overrides?: DomainOverrides;
}

/** A domain's overrides as the rules see them: opaque (src/overrides/types.ts, OverrideTable). */
export interface DomainOverrides {
  /** How many overrides the domain has. */
  readonly size: number;
}

/** Which override a match came from (docs/admin-api.md, "Overrides"). */
export interface OverrideInfo {
  /** Its descriptor, canonical `k=v,k2=v2*` text. */
  readonly descriptor: string;
  readonly expires_at: string | null;
  readonly note: string | null;
}

/** A token algorithm `jwt` accepts. */
export type JwtAlgorithm = "HS256" | "RS256" | "ES256";

/** A public key of `jwt.jwks` as the validator left it: RSA or EC P-256 members only. */
export type PublicJwk = Readonly<Record<string, string>>;

/** A domain's compiled `jwt` (docs/rules.md, "Verified identity (jwt)"). */
export interface JwtOptions {
  /** Where the token is: a header (`authorization` wants the Bearer scheme) or a cookie. */
  readonly token: { readonly kind: "header"; readonly name: string } | { readonly kind: "cookie"; readonly name: string };
  /** The Worker secret or var holding the HS256 secret. */
  readonly secret?: string;
  /** Inline public keys. */
  readonly jwks?: readonly PublicJwk[];
  /** Where public keys are fetched from (cached). */
  readonly jwksUrl?: string;
  readonly issuer?: string;
  /** A token's `aud` must name one of these. */
  readonly audience?: readonly string[];
  /** Algorithms accepted (default: those the keys given allow). */
  readonly algorithms: readonly JwtAlgorithm[];
  /** What src/identity/ keeps of this verifier (imported keys, the fetched JWKS), gone with the rules. */
  readonly kept: JwtKept;
}

/** Members declared where they are made (src/identity/kept.ts). */
// biome-ignore lint/suspicious/noEmptyInterface: its members are declared where they are made (src/identity/kept.ts).
export interface JwtKept {}

/** A domain's `paths` options, defaults filled in. */
export interface PathOptions {
  /** `case_sensitive` (default false): letter case is folded before matching unless set. */
  readonly caseSensitive: boolean;
  /** `forward` (default `as_sent`): the path a matched request goes to the origin with. */
  readonly forward: "as_sent" | "canonical";
}

/** `duplicate_values` of a domain (docs/rules.md). */
export type DuplicateValues = "reject" | "first" | "last";

/** A whole compiled rules file. */
export interface CompiledRules {
  /** Domains by name, in file order. */
  readonly domains: ReadonlyMap<string, CompiledDomain>;
}

/** One descriptor entry as a request presents it. */
export interface DescriptorEntry {
  readonly key: string;
  readonly value: string;
}

/** The outcome of looking a request descriptor up in a domain's tree. */
export interface DescriptorMatch {
  /** The node that matched (at the same depth as the descriptor). */
  readonly node: CompiledNode;
  /** Limits to enforce (empty: whitelisted or unlimited). */
  readonly limits: readonly CompiledLimit[];
  readonly unlimited: boolean;
  readonly shadowMode: boolean;
  /** The node's `quota_mode`, when set. */
  readonly quotaMode?: boolean;
  /**
   * The entries that name the counter when a `share_threshold` node matched
   * on the way: the request's entries with each shared value replaced by the
   * node's pattern (absent: the request's own entries).
   */
  readonly counterEntries?: readonly DescriptorEntry[];
  /** The override that replaced the rules' limits of this descriptor, when one did (src/overrides/). */
  readonly override?: OverrideInfo;
}

/** Result of `compileRules`: either the compiled tree or every error found. */
export type CompileResult =
  | { readonly ok: true; readonly rules: CompiledRules; readonly summary: string }
  | { readonly ok: false; readonly errors: readonly RuleError[] };

/** Descriptors of one request for one domain. */
export interface DomainDescriptors {
  readonly domain: CompiledDomain;
  readonly descriptors: readonly (readonly DescriptorEntry[])[];
  /**
   * Hits per descriptor (Envoy's per-descriptor `hits_addend`), parallel to
   * `descriptors`; an absent entry takes the decision's default cost. A parallel
   * array keeps the HTTP path, which never sets it, allocation-free.
   */
  readonly costs?: readonly (number | undefined)[];
  /** Matches decided by the caller instead of the tree (Envoy's per-descriptor `limit` override). */
  readonly overrides?: readonly (DescriptorMatch | undefined)[];
  /** The unit of `costs`, when not requests (a `body_bytes` cost). */
  readonly quotaUnit?: "content-bytes" | "tokens";
  /** What the origin reports it cost, charged after it answered (`cost_from_response`). */
  readonly costFromResponse?: ResponseCost;
}

/** A verdict no counter state can change: what the object would answer, without asking it. */
export interface FixedVerdict {
  readonly allowed: false;
  readonly decisions: readonly Decision[];
}

/** What one list of limits (a node's) implies. */
export interface LimitFacts {
  /** Every limit is 0 (none a concurrency limit): nothing ever fits, so this is the answer, and it consumes nothing. */
  readonly refusal?: FixedVerdict;
  /** Some limit delays or queues a request over it (`on_limit`), when the caller honours it. */
  readonly acts: boolean;
  /** Some limit counts only some responses (`count_when`): its hits may be given back. */
  readonly refundable: boolean;
  /** Every limit is pre-counted: the smallest `sync_ms`. */
  readonly precountSyncMs?: number;
  /** A region's copy of the home object may decide them (no strict, concurrency, pre-counted or penalty limit). */
  readonly relayable: boolean;
  /** Some limit is a concurrency limit: a slot is taken. */
  readonly slotted: boolean;
  /** Some limit has a `penalty`: its blocks are kept by the home object, so no isolate may lease its quota. */
  readonly penalized?: true;
}

/**
 * What the engine keeps of one compiled limit, made with it by the
 * compiler (src/rules/facts.ts) and filled by src/limiter/ (its call as the objects take it, its
 * 429's parts): kept with the rules it belongs to, never in a module, and
 * gone with them. src/limiter/kept.ts declares its members.
 */
// biome-ignore lint/suspicious/noEmptyInterface: its members are declared where they are made (src/limiter/kept.ts).
export interface LimitKept {}

/**
 * Something laid over the rules at runtime with a version of its own, sent
 * with every version check and answered in the same record (the overrides,
 * src/overrides/overlay.ts).
 */
export interface RulesOverlay {
  /** The version this isolate holds (-1: none yet). */
  readonly version: number;
  /** Take what a check brought (a record's `overrides`); false when it was not newer. */
  take(update: unknown): boolean;
  /** `rules` with the overlay laid over them. */
  over(rules: CompiledRules): CompiledRules;
}
