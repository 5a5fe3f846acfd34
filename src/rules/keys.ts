/**
 * The vocabulary of `rules.json`: every key, enum value and bound the
 * validator enforces. `rules.schema.json` and the tests are checked against
 * these lists, so the validator, the schema and the docs cannot drift apart.
 */
import { BUCKET_ALGORITHMS, RESERVABLE } from "../algorithms/index.ts";
import type { AlgorithmName } from "../algorithms/types.ts";
import type { Placement, Unit } from "./types.ts";

/** Allowed keys per object kind, in the order the docs present them. */
export const RULE_KEYS = {
  document: ["$schema", "domain", "descriptors", "routes", "placement", "shards", "paths", "duplicate_values", "ipv6_prefix", "jwt"],
  descriptor: ["key", "value", "rate_limit", "rate_limits", "descriptors", "shadow_mode", "detailed_metric", "quota_mode", "share_threshold"],
  rateLimit: [
    "name",
    "replaces",
    "unit",
    "requests_per_unit",
    "unlimited",
    "unit_multiplier",
    "algorithm",
    "burst",
    "persist_ms",
    "durability",
    "precount",
    "on_limit",
    "max_delay_ms",
    "concurrency",
    "count_when",
    "max_queue_age_s",
    "max_queue_backlog",
    "queue_credentials",
    "scope",
    "penalty",
    "enforce_percent",
    "soft_percent",
    "candidate",
  ],
  countWhen: ["status"],
  replaces: ["name"],
  precount: ["sync_ms"],
  penalty: ["block_s", "escalate", "max_block_s"],
  route: ["match", "descriptors", "cost", "cost_from_response"],
  cost: ["header", "body_bytes", "json_body", "default", "max", "allow_zero"],
  costFromResponse: ["header", "usage", "json", "tokens"],
  match: ["methods", "path", "host"],
  routeEntry: ["key", "value", "header", "query", "cookie", "jwt_claim", "json_body"],
  jwt: ["header", "cookie", "secret", "jwks", "jwks_url", "issuer", "audience", "algorithms"],
  jwks: ["keys"],
  jwk: ["kty", "kid", "alg", "use", "key_ops", "n", "e", "crv", "x", "y", "x5c", "x5t", "x5t#S256", "x5u"],
  paths: ["case_sensitive", "forward"],
} as const satisfies Record<string, readonly string[]>;

/** The object kinds of `RULE_KEYS`. */
export type RuleObjectKind = keyof typeof RULE_KEYS;

/**
 * Keys Envoy's rate limit service knows but floodgate does not implement.
 * Accepting them silently would change what a migrated config means, so they
 * get a dedicated error instead of a "did you mean".
 */
export const ENVOY_ONLY_KEYS: readonly string[] = ["value_to_metric", "metadata"];

/** Window length of one unit, in milliseconds (month = 30 days, year = 365 days). */
export const UNIT_MS: Readonly<Record<Unit, number>> = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
  month: 2_592_000_000,
  year: 31_536_000_000,
};

export const UNITS = Object.keys(UNIT_MS) as readonly Unit[];

export const ALGORITHMS: readonly AlgorithmName[] = ["token_bucket", "leaky_bucket", "fixed_window", "sliding_window_log", "sliding_window_counter", "gcra"];

/** Algorithms with a capacity separate from the per-window rate. */
export const BURST_ALGORITHMS: readonly AlgorithmName[] = BUCKET_ALGORITHMS;

export const DEFAULT_ALGORITHM: AlgorithmName = "sliding_window_counter";

export const PLACEMENTS: readonly Placement[] = ["sharded", "per_key"];

/** `paths.forward` (docs/rules.md, "Canonical paths"): the path the origin gets, as the client sent it (default) or canonical. */
export const PATH_FORWARDS = ["as_sent", "canonical"] as const;

/** `scope` of a rate limit (docs/placement.md): one counter for the planet (the default), or one per region. */
export const SCOPES = ["global", "region"] as const;

/** `on_limit` actions (docs/on-limit.md): answer 429, wait for a reserved slot, or queue for later delivery. */
export const ON_LIMIT_ACTIONS = ["reject", "delay", "queue"] as const;

/**
 * Algorithms that define a future slot, so `on_limit: "delay"` can reserve
 * one (their state only moves forward; see `src/algorithms/reserve.ts`).
 */
export const DELAY_ALGORITHMS: readonly AlgorithmName[] = [...RESERVABLE];

/**
 * `duplicate_values` of a domain (docs/rules.md, "Routes"): what a query
 * parameter or cookie a descriptor reads means when the request carries it
 * more than once with different values. `reject` (the default) answers 400;
 * `first` and `last` read the one the origin is known to read.
 */
export const DUPLICATE_VALUES = ["reject", "first", "last"] as const;

/**
 * `ipv6_prefix` of a domain: the bits of an IPv6 client address that name
 * the client. /56 is a common delegation to one customer; /64 the smallest
 * one; /32 a whole provider's.
 */
export const IPV6_PREFIX = { default: 56, min: 32, max: 64 } as const;

/** Route entry keys that take their value from the request without a source. */
export const BUILTIN_KEYS = ["remote_address", "path", "method", "host"] as const;

/** Route entry value sources; an entry names exactly one (or is a built-in key). */
export const VALUE_SOURCES = ["value", "header", "query", "cookie", "jwt_claim", "json_body"] as const;

/**
 * `cost_from_response.usage` (docs/llm.md): whose usage report a response
 * carries, OpenAI's (`usage.prompt_tokens` …) or Anthropic's (`usage.input_tokens` …).
 */
export const USAGE_PRESETS = ["openai", "anthropic"] as const;

/** `cost_from_response.tokens` (docs/llm.md): which tokens of a usage report are charged (default `total`). */
export const USAGE_TOKENS = ["total", "input", "output"] as const;

/** Bounds of a `json_body` path (docs/llm.md): dot-separated member names, at most this many. */
export const JSON_PATH_BOUNDS = { maxSegments: 16, maxChars: 256 } as const;

/** Numeric bounds shared by the validator and the schema. */
export const BOUNDS = {
  /** Envoy's `requests_per_unit` is a uint32. */
  maxCount: 4_294_967_295,
  /** Largest `requests_per_unit` for sliding_window_log, whose state holds an entry per request. */
  maxLogLimit: 10_000,
  defaultShards: 64,
  maxShards: 1024,
  /** Largest delay a timer can express (setTimeout's signed 32-bit limit). */
  maxMs: 2_147_483_647,
  /**
   * Largest `precount.sync_ms`: a lease lasts 2 × sync_ms + 1 s, and the
   * counter object holds one at most 10 s (`MAX_LEASE_TTL_MS`, the quota a
   * vanished isolate can keep from the others); a longer sync period would
   * let leases expire between syncs (docs/precount.md, "Giving back").
   */
  maxSyncMs: 4_500,
  /**
   * Longest `max_delay_ms`: a request held at the edge longer than a minute
   * meets client and proxy timeouts; slower traffic belongs in a queue.
   */
  maxDelayMs: 60_000,
  /** Longest `penalty.block_s` and `max_block_s`: a year. */
  maxBlockS: 31_536_000,
  /** Largest `penalty.escalate`. */
  maxEscalate: 1000,
  /** Default `penalty.max_block_s` (or `block_s` when longer): a day. */
  defaultMaxBlockS: 86_400,
  /** Nesting of `descriptors`; deeper trees are almost certainly a generated mistake. */
  maxDepth: 32,
  /** Cap on reported errors so a pathological file cannot produce a huge report. */
  maxErrors: 1000,
} as const;

/** `durability` of a rate limit: checkpointed every `persist_ms` (the default), or written before each answer. */
export const DURABILITIES = ["checkpoint", "strict"] as const;

/**
 * Default and largest `persist_ms`: a checkpoint at most this long after a
 * change while calls keep coming. An object that goes quiet writes sooner,
 * QUIET_WRITE_MS after its last call, so a long `persist_ms` never leaves
 * anything unsaved for an idle eviction (docs/reliability.md, "Durability").
 */
export const PERSIST_MS = { default: 1_000, max: 60_000 } as const;

/**
 * Windows this long or longer are kept in storage; shorter ones live in
 * memory only. The platform evicts an object idle for about 10 s, so any
 * longer window could outlive its object's memory; a window under 5 s
 * refills within about the time an evicted object takes to come back
 * (docs/reliability.md, "Short windows").
 */
export const DURABLE_WINDOW_MS = 5_000;

/**
 * Token algorithms a `jwt` verifier accepts (docs/rules.md, "Verified identity (jwt)"):
 * HS256 with a secret; RS256 and ES256 (P-256) with public keys. `none` is never one.
 */
export const JWT_ALGORITHMS = ["HS256", "RS256", "ES256"] as const;

/** Bounds of a `jwt` verifier (docs/rules.md, "Verified identity (jwt)"). */
export const JWT_BOUNDS = {
  /** Keys in an inline `jwks` or a fetched one. */
  maxKeys: 32,
  /** Longest token read; a longer one is no token. */
  maxTokenChars: 8_192,
  /** Seconds of clock difference `exp` and `nbf` allow. */
  leewaySeconds: 30,
} as const;
