/**
 * Invalid rules, one problem each, with the exact errors the compiler must
 * report. `schema` says whether rules.schema.json can also see the problem
 * (duplicates, replaces targets and arithmetic bounds are beyond JSON Schema).
 */

export interface InvalidFixture {
  readonly name: string;
  readonly input: unknown;
  readonly errors: readonly { readonly path: string; readonly message: string }[];
  readonly schema: boolean;
}

const doc = (descriptors: unknown[], extra: Record<string, unknown> = {}) => ({ domain: "t", descriptors, ...extra });
const limited = (rateLimit: Record<string, unknown>, node: Record<string, unknown> = {}) => doc([{ key: "k", rate_limit: rateLimit, ...node }]);
const ok = { unit: "second", requests_per_unit: 1 };
const route = (r: unknown) => ({ domain: "t", routes: [r] });
const entry = (e: unknown) => route({ match: {}, descriptors: [[e]] });
const RL = "$.descriptors[0].rate_limit";
const E = "$.routes[0].descriptors[0][0]";

function deep(levels: number): unknown {
  let node: Record<string, unknown> = { key: "leaf" };
  for (let i = 1; i < levels; i++) node = { key: `k${i}`, descriptors: [node] };
  return doc([node]);
}
const deepPath = `$${".descriptors[0]".repeat(32)}.descriptors`;

const inexact = (algorithm: string) =>
  `too large for exact integer arithmetic in ${algorithm}: burst × window ÷ gcd(requests_per_unit, window) ` +
  "must stay below 2^52; lower burst or requests_per_unit, or pick a rounder requests_per_unit";

const fx = (name: string, input: unknown, path: string, message: string, schema = true): InvalidFixture => ({
  name,
  input,
  errors: [{ path, message }],
  schema,
});

export const INVALID: readonly InvalidFixture[] = [
  // unknown keys
  fx("misspelled key", doc([{ key: "k", rate_limt: ok }]), "$.descriptors[0].rate_limt", 'unknown key "rate_limt" (did you mean "rate_limit"?)'),
  {
    name: "misspelled count key",
    input: limited({ unit: "day", requestsperunit: 5 }),
    schema: true,
    errors: [
      { path: `${RL}.requestsperunit`, message: 'unknown key "requestsperunit" (did you mean "requests_per_unit"?)' },
      { path: RL, message: 'missing required key "requests_per_unit"' },
    ],
  },
  fx("rate limit key on the node", doc([{ key: "k", unit: "second" }]), "$.descriptors[0].unit", 'unknown key "unit" here (it belongs inside "rate_limit")'),
  fx(
    "name on the node (Envoy has it in rate_limit)",
    doc([{ key: "k", name: "n", rate_limit: ok }]),
    "$.descriptors[0].name",
    'unknown key "name" here (it belongs inside "rate_limit")',
  ),
  fx(
    "Envoy-only key",
    doc([{ key: "k", value: "v*", value_to_metric: true }]),
    "$.descriptors[0].value_to_metric",
    'unknown key "value_to_metric" (an Envoy option floodgate does not support)',
  ),
  fx(
    "unknown key without suggestion",
    { domain: "t", colour: "red" },
    "$.colour",
    'unknown key "colour" (expected one of: $schema, domain, descriptors, routes, placement, shards, paths, duplicate_values, ipv6_prefix, jwt)',
  ),
  fx("misspelled match key", route({ match: { paths: "/x" }, descriptors: [] }), "$.routes[0].match.paths", 'unknown key "paths" (did you mean "path"?)'),
  {
    name: "misspelled precount key",
    input: limited({ ...ok, precount: { syncMs: 5 } }),
    schema: true,
    errors: [
      { path: `${RL}.precount.syncMs`, message: 'unknown key "syncMs" (did you mean "sync_ms"?)' },
      { path: `${RL}.precount`, message: 'missing required key "sync_ms"' },
    ],
  },
  // domain and key
  fx("missing domain", { descriptors: [] }, "$", 'missing required key "domain"'),
  fx("empty domain", { domain: "" }, "$.domain", "must be a non-empty string"),
  fx("domain not a string", { domain: 5 }, "$.domain", "expected a string, got number"),
  fx("missing key", doc([{ value: "v" }]), "$.descriptors[0]", 'missing required key "key"'),
  fx("empty key", doc([{ key: "" }]), "$.descriptors[0].key", "must be a non-empty string"),
  fx("NUL in key", doc([{ key: "a\u0000b" }]), "$.descriptors[0].key", "must not contain the NUL character"),
  fx("empty value", doc([{ key: "k", value: "" }]), "$.descriptors[0].value", 'must be a non-empty string (omit "value" to match any value)'),
  fx("$schema not a string", { $schema: 1, domain: "t" }, "$.$schema", "expected a string, got number"),
  // units
  fx(
    "unknown unit",
    limited({ unit: "fortnight", requests_per_unit: 1 }),
    `${RL}.unit`,
    'unknown unit "fortnight" (expected one of: second, minute, hour, day, week, month, year)',
  ),
  fx("upper-case unit", limited({ unit: "MINUTE", requests_per_unit: 1 }), `${RL}.unit`, 'unknown unit "MINUTE" (did you mean "minute"?)'),
  fx("plural unit", limited({ unit: "minutes", requests_per_unit: 1 }), `${RL}.unit`, 'unknown unit "minutes" (did you mean "minute"?)'),
  fx("missing unit", limited({ requests_per_unit: 1 }), RL, 'missing required key "unit"'),
  fx("missing requests_per_unit", limited({ unit: "second" }), RL, 'missing required key "requests_per_unit"'),
  // counts
  fx("fractional count", limited({ unit: "second", requests_per_unit: 1.5 }), `${RL}.requests_per_unit`, "expected an integer, got 1.5"),
  fx("negative count", limited({ unit: "second", requests_per_unit: -1 }), `${RL}.requests_per_unit`, "must be at least 0, got -1"),
  fx("count as string", limited({ unit: "second", requests_per_unit: "60" }), `${RL}.requests_per_unit`, "expected an integer, got string"),
  fx("count above uint32", limited({ unit: "second", requests_per_unit: 4294967296 }), `${RL}.requests_per_unit`, "must be at most 4294967295, got 4294967296"),
  fx("unit_multiplier 0", limited({ ...ok, unit_multiplier: 0 }), `${RL}.unit_multiplier`, "must be at least 1, got 0"),
  fx("burst 0", limited({ ...ok, algorithm: "token_bucket", burst: 0 }), `${RL}.burst`, "must be at least 1, got 0"),
  fx("fractional burst", limited({ ...ok, algorithm: "gcra", burst: 2.5 }), `${RL}.burst`, "expected an integer, got 2.5"),
  fx("shards 0", { domain: "t", shards: 0 }, "$.shards", "must be at least 1, got 0"),
  fx("shards above max", { domain: "t", shards: 5000 }, "$.shards", "must be at most 1024, got 5000"),
  fx("precount sync_ms 0", limited({ ...ok, precount: { sync_ms: 0 } }), `${RL}.precount.sync_ms`, "must be at least 1, got 0"),
  fx(
    "precount sync_ms above the lease's lifetime",
    limited({ ...ok, precount: { sync_ms: 4_501 } }),
    `${RL}.precount.sync_ms`,
    "must be at most 4500 (a lease lasts 2 × sync_ms + 1 s, at most 10 s), got 4501",
  ),
  fx(
    "precount sync_ms at 2^31",
    limited({ ...ok, precount: { sync_ms: 2_147_483_647 } }),
    `${RL}.precount.sync_ms`,
    "must be at most 4500 (a lease lasts 2 × sync_ms + 1 s, at most 10 s), got 2147483647",
  ),
  fx("precount without sync_ms", limited({ ...ok, precount: {} }), `${RL}.precount`, 'missing required key "sync_ms"'),
  // unlimited
  fx("unlimited with unit", limited({ unlimited: true, unit: "day" }), `${RL}.unit`, '"unit" must not be set when "unlimited" is true'),
  fx(
    "unlimited with count",
    limited({ unlimited: true, requests_per_unit: 5 }),
    `${RL}.requests_per_unit`,
    '"requests_per_unit" must not be set when "unlimited" is true',
  ),
  fx(
    "unlimited in rate_limits",
    doc([{ key: "k", rate_limits: [{ unlimited: true }] }]),
    "$.descriptors[0].rate_limits[0].unlimited",
    '"unlimited" is not allowed in "rate_limits" (use "rate_limit": { "unlimited": true })',
  ),
  // duplicates
  fx(
    "duplicate key/value",
    doc([
      { key: "a", value: "1" },
      { key: "a", value: "1" },
    ]),
    "$.descriptors[1]",
    'duplicate descriptor: key "a" with value "1" is already defined at $.descriptors[0]',
    false,
  ),
  fx(
    "duplicate key only",
    doc([{ key: "a" }, { key: "b" }, { key: "a" }]),
    "$.descriptors[2]",
    'duplicate descriptor: key "a" without a value is already defined at $.descriptors[0]',
    false,
  ),
  fx(
    "duplicate wildcard",
    doc([
      { key: "a", value: "x*" },
      { key: "a", value: "x*" },
    ]),
    "$.descriptors[1]",
    'duplicate descriptor: key "a" with value "x*" is already defined at $.descriptors[0]',
    false,
  ),
  fx(
    "duplicate nested",
    doc([{ key: "a", descriptors: [{ key: "b" }, { key: "b" }] }]),
    "$.descriptors[0].descriptors[1]",
    'duplicate descriptor: key "b" without a value is already defined at $.descriptors[0].descriptors[0]',
    false,
  ),
  // replaces
  fx("replaces itself", limited({ ...ok, name: "x", replaces: [{ name: "x" }] }), `${RL}.replaces[0].name`, 'a rate limit cannot replace itself ("x")', false),
  fx("replaces nothing", limited({ ...ok, replaces: [{ name: "ghost" }] }), `${RL}.replaces[0].name`, 'no rate limit in domain "t" is named "ghost"', false),
  fx("replaces empty name", limited({ ...ok, replaces: [{ name: "" }] }), `${RL}.replaces[0].name`, "must be a non-empty string"),
  fx("replaces as strings", limited({ ...ok, replaces: ["x"] }), `${RL}.replaces[0]`, "expected an object, got string"),
  // wrong types and non-objects
  fx("descriptors not an array", { domain: "t", descriptors: {} }, "$.descriptors", "expected an array, got object"),
  fx("shadow_mode not a boolean", doc([{ key: "k", shadow_mode: "yes" }]), "$.descriptors[0].shadow_mode", "expected a boolean, got string"),
  fx("value not a string", doc([{ key: "k", value: 5 }]), "$.descriptors[0].value", "expected a string, got number"),
  fx("top level a string", "rules", "$", "expected a domain document (an object) or an array of them, got string"),
  fx("top level empty array", [], "$", "expected at least one domain document"),
  fx("descriptor entry not an object", doc(["k"]), "$.descriptors[0]", "expected an object, got string"),
  fx("document entry not an object", ["t"], "$[0]", "expected an object, got string"),
  fx("rate_limit not an object", doc([{ key: "k", rate_limit: 5 }]), RL, "expected an object, got number"),
  fx("routes not an array", { domain: "t", routes: {} }, "$.routes", "expected an array, got object"),
  fx("route not an object", { domain: "t", routes: [null] }, "$.routes[0]", "expected an object, got null"),
  // algorithms
  fx(
    "misspelled algorithm",
    limited({ ...ok, algorithm: "token-bucket" }),
    `${RL}.algorithm`,
    'unknown algorithm "token-bucket" (did you mean "token_bucket"?)',
  ),
  fx(
    "unknown algorithm",
    limited({ ...ok, algorithm: "magic" }),
    `${RL}.algorithm`,
    'unknown algorithm "magic" (expected one of: token_bucket, leaky_bucket, fixed_window, sliding_window_log, sliding_window_counter, gcra)',
  ),
  fx(
    "burst on fixed_window",
    limited({ ...ok, algorithm: "fixed_window", burst: 5 }),
    `${RL}.burst`,
    '"burst" does not apply to algorithm "fixed_window"; only token_bucket, leaky_bucket, gcra have a burst',
  ),
  fx(
    "burst on sliding_window_log",
    limited({ ...ok, algorithm: "sliding_window_log", burst: 5 }),
    `${RL}.burst`,
    '"burst" does not apply to algorithm "sliding_window_log"; only token_bucket, leaky_bucket, gcra have a burst',
  ),
  fx(
    "burst on the default algorithm",
    limited({ ...ok, burst: 5 }),
    `${RL}.burst`,
    '"burst" does not apply to algorithm "sliding_window_counter" (the default); only token_bucket, leaky_bucket, gcra have a burst',
  ),
  fx(
    "sliding log limit too large",
    limited({ unit: "hour", requests_per_unit: 10_001, algorithm: "sliding_window_log" }),
    `${RL}.requests_per_unit`,
    "sliding_window_log keeps one entry per request, so requests_per_unit must be at most 10000 (got 10001); use sliding_window_counter for larger limits",
    false,
  ),
  fx(
    "count too large for exact arithmetic",
    limited({ unit: "year", unit_multiplier: 7, requests_per_unit: 999_999_937, algorithm: "token_bucket" }),
    `${RL}.requests_per_unit`,
    inexact("token_bucket"),
    false,
  ),
  fx(
    "burst too large for exact arithmetic",
    limited({ unit: "year", requests_per_unit: 1, algorithm: "gcra", burst: 200_000 }),
    `${RL}.burst`,
    inexact("gcra"),
    false,
  ),
  fx(
    "window too long",
    limited({ unit: "year", requests_per_unit: 1, unit_multiplier: 4294967295 }),
    `${RL}.unit_multiplier`,
    'window too long: with unit "year", unit_multiplier must be at most 35702',
    false,
  ),
  // nodes with limits
  fx(
    "rate_limit and rate_limits",
    doc([{ key: "k", rate_limit: ok, rate_limits: [ok] }]),
    "$.descriptors[0]",
    'set either "rate_limit" or "rate_limits", not both',
  ),
  fx(
    "empty rate_limits",
    doc([{ key: "k", rate_limits: [] }]),
    "$.descriptors[0].rate_limits",
    'must not be empty (omit "rate_limits" for a node without limits)',
  ),
  fx(
    "identical limits in rate_limits",
    doc([{ key: "k", rate_limits: [ok, { ...ok, name: "b" }] }]),
    "$.descriptors[0].rate_limits[1]",
    "counts exactly like rate_limits[0] (same algorithm, requests_per_unit, window and burst)",
    false,
  ),
  fx(
    "name unsafe in a header",
    limited({ ...ok, name: 'a"b' }),
    `${RL}.name`,
    'must be printable ASCII without " or \\ (it is sent in the RateLimit-Policy header)',
  ),
  fx("nesting too deep", deep(34), deepPath, "descriptors may be nested at most 32 levels deep", false),
  // on_limit
  fx("unknown on_limit", limited({ ...ok, on_limit: "drop" }), `${RL}.on_limit`, 'unknown on_limit action "drop" (expected one of: reject, delay, queue)'),
  fx(
    "delay with a window algorithm",
    limited({ ...ok, algorithm: "fixed_window", on_limit: "delay", max_delay_ms: 100 }),
    `${RL}.on_limit`,
    'on_limit "delay" needs an algorithm with future slots (token_bucket, leaky_bucket, gcra); algorithm "fixed_window" has none — pick one of those, or use on_limit "queue"',
  ),
  fx(
    "delay with the default algorithm",
    limited({ ...ok, on_limit: "delay", max_delay_ms: 100 }),
    `${RL}.on_limit`,
    'on_limit "delay" needs an algorithm with future slots (token_bucket, leaky_bucket, gcra); algorithm "sliding_window_counter" (the default) has none — pick one of those, or use on_limit "queue"',
  ),
  fx(
    "delay without max_delay_ms",
    limited({ ...ok, algorithm: "gcra", on_limit: "delay" }),
    RL,
    'missing required key "max_delay_ms" (required when "on_limit" is "delay")',
  ),
  fx(
    "max_delay_ms too long",
    limited({ ...ok, algorithm: "gcra", on_limit: "delay", max_delay_ms: 60_001 }),
    `${RL}.max_delay_ms`,
    "must be at most 60000, got 60001",
  ),
  fx(
    "delay with precount",
    limited({ ...ok, algorithm: "gcra", on_limit: "delay", max_delay_ms: 100, precount: { sync_ms: 10 } }),
    `${RL}.precount`,
    '"precount" cannot be combined with on_limit "delay": a delayed request takes its slot from the counter itself, never from the edge\'s estimate',
  ),
  fx(
    "queue with precount",
    limited({ ...ok, on_limit: "queue", precount: { sync_ms: 10 } }),
    `${RL}.precount`,
    '"precount" cannot be combined with on_limit "queue": a queued request takes its slot from the counter itself, never from the edge\'s estimate',
  ),
  fx("max_delay_ms without delay", limited({ ...ok, max_delay_ms: 10 }), `${RL}.max_delay_ms`, '"max_delay_ms" is only used when "on_limit" is "delay"'),
  // domains and placement
  fx("duplicate domain", [{ domain: "a" }, { domain: "b" }, { domain: "a" }], "$[2].domain", 'duplicate domain "a" (already defined at $[0])', false),
  fx("unknown placement", { domain: "t", placement: "shard" }, "$.placement", 'unknown placement "shard" (did you mean "sharded"?)'),
  fx("shards with per_key", { domain: "t", placement: "per_key", shards: 8 }, "$.shards", '"shards" only applies to placement "sharded"'),
  // paths (docs/rules.md, "Canonical paths")
  fx("paths not an object", { domain: "t", paths: "canonical" }, "$.paths", "expected an object, got string"),
  fx("case_sensitive not a boolean", { domain: "t", paths: { case_sensitive: "yes" } }, "$.paths.case_sensitive", "expected a boolean, got string"),
  fx("unknown paths.forward", { domain: "t", paths: { forward: "canon" } }, "$.paths.forward", 'unknown paths.forward "canon" (did you mean "canonical"?)'),
  fx(
    "misspelled paths key",
    { domain: "t", paths: { case_insensitive: true } },
    "$.paths.case_insensitive",
    'unknown key "case_insensitive" (did you mean "case_sensitive"?)',
  ),
  fx("unknown duplicate_values", { domain: "t", duplicate_values: "lst" }, "$.duplicate_values", 'unknown duplicate_values "lst" (did you mean "last"?)'),
  fx("ipv6_prefix past /64", { domain: "t", ipv6_prefix: 128 }, "$.ipv6_prefix", "must be at most 64, got 128"),
  // routes
  fx(
    "route entry without source",
    entry({ key: "user" }),
    E,
    'entry "user" has no value source; set one of "value", "header", "query", "cookie", "jwt_claim", "json_body" (only the built-in keys remote_address, path, method, host need none)',
  ),
  fx("route entry with two sources", entry({ key: "a", header: "x", query: "y" }), E, 'entry has 2 value sources ("header", "query"); set exactly one'),
  fx("built-in key with two sources", entry({ key: "path", value: "/", cookie: "c" }), E, 'entry has 2 value sources ("value", "cookie"); set exactly one'),
  fx("route entry not an object", entry("remote_address"), E, "expected an object, got string"),
  fx(
    "route descriptor not a list",
    route({ match: {}, descriptors: [{ key: "remote_address" }] }),
    "$.routes[0].descriptors[0]",
    "expected a descriptor (an array of entries), got object",
  ),
  fx("empty route descriptor", route({ match: {}, descriptors: [[]] }), "$.routes[0].descriptors[0]", "a descriptor needs at least one entry"),
  fx("invalid header name", entry({ key: "k", header: "x api key" }), `${E}.header`, '"x api key" is not a valid header name'),
  fx("empty query name", entry({ key: "k", query: "" }), `${E}.query`, "must be a non-empty string"),
  fx(
    "empty methods",
    route({ match: { methods: [] }, descriptors: [] }),
    "$.routes[0].match.methods",
    'must not be empty (omit "methods" to match every method)',
  ),
  fx("invalid method", route({ match: { methods: ["GET POST"] }, descriptors: [] }), "$.routes[0].match.methods[0]", '"GET POST" is not a valid HTTP method'),
  fx("route without match", { domain: "t", routes: [{ descriptors: [] }] }, "$.routes[0]", 'missing required key "match"'),
  fx("route without descriptors", { domain: "t", routes: [{ match: {} }] }, "$.routes[0]", 'missing required key "descriptors"'),
  fx("path not a string", route({ match: { path: 1 }, descriptors: [] }), "$.routes[0].match.path", "expected a string, got number"),
];

/** Valid documents exercising every feature; the compiler and the schema must accept them. */
export const VALID: readonly { readonly name: string; readonly input: unknown }[] = [
  { name: "minimal", input: { domain: "t" } },
  { name: "array of domains", input: [{ domain: "a" }, { domain: "b", placement: "per_key" }] },
  { name: "input options", input: { domain: "t", duplicate_values: "last", ipv6_prefix: 48 } },
  {
    name: "kitchen sink",
    input: {
      $schema: "./rules.schema.json",
      domain: "t",
      placement: "sharded",
      shards: 1024,
      paths: { case_sensitive: true, forward: "canonical" },
      descriptors: [
        { key: "a", rate_limit: { name: "base", unit: "minute", requests_per_unit: 0 }, shadow_mode: true, detailed_metric: true },
        {
          key: "a",
          value: "x*y",
          rate_limit: {
            name: "wild",
            replaces: [{ name: "base" }],
            unit: "week",
            unit_multiplier: 2,
            requests_per_unit: 5,
            algorithm: "leaky_bucket",
            burst: 2,
            precount: { sync_ms: 50 },
            on_limit: "reject",
          },
        },
        { key: "slow", rate_limit: { unit: "second", requests_per_unit: 5, algorithm: "gcra", burst: 1, on_limit: "delay", max_delay_ms: 60_000 } },
        { key: "shaped", rate_limit: { unit: "minute", requests_per_unit: 5, algorithm: "token_bucket", on_limit: "delay", max_delay_ms: 0 } },
        { key: "later", rate_limit: { unit: "minute", requests_per_unit: 5, on_limit: "queue" } },
        { key: "a", value: "free", rate_limit: { unlimited: true, name: "free", replaces: [{ name: "wild" }] } },
        { key: "a", value: "white" },
        {
          key: "b",
          rate_limits: [
            { unit: "second", requests_per_unit: 1, algorithm: "gcra" },
            { unit: "month", requests_per_unit: 3_000_000, algorithm: "fixed_window", unlimited: false },
            { unit: "year", requests_per_unit: 10_000, algorithm: "sliding_window_log" },
            { unit: "year", unit_multiplier: 7, requests_per_unit: 999_999_937, algorithm: "fixed_window" },
            { unit: "year", requests_per_unit: 1_000_000_000, algorithm: "gcra" },
            { unit: "year", unit_multiplier: 35702, requests_per_unit: 4294967295 },
          ],
          descriptors: [{ key: "c", value: "d", rate_limit: { unit: "hour", requests_per_unit: 7, algorithm: "token_bucket" } }],
        },
      ],
      routes: [
        {
          match: { methods: ["get", "POST"], path: "/v1/*", host: "*.Example.com" },
          descriptors: [
            [{ key: "remote_address" }, { key: "path" }, { key: "method" }, { key: "host" }],
            [
              { key: "a", header: "X-Api-Key" },
              { key: "q", query: "page" },
              { key: "s", cookie: "session" },
              { key: "v", value: "lit" },
            ],
          ],
        },
        { match: {}, descriptors: [] },
      ],
    },
  },
];
