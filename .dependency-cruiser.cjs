/**
 * floodgate's import rules (`npm run deps`, run by `npm test`). Folders are
 * layers along a request's path; a folder may import only from the layers
 * below it, so no two folders can depend on each other. See
 * docs/architecture.md for the picture and the reasons.
 */
const LAYERS = [
  ["hono", "dropins", "durable/metrics"], // the public middleware (reuses the gateway's admit()); the faces of other libraries (Upstash's Ratelimit, Cloudflare's binding); the MetricsObject and the stores that run inside it
  ["gateway"], // the Worker's own app: admit, forward, echo
  ["admin", "queue"], // admin API; on_limit "queue" (producer, consumer, status)
  ["envoy"], // the decision API (/json, RPC) in Envoy's shapes
  ["admission"], // the one admission pipeline: decide, failure policy, metrics, answers; the per-isolate context (isolate-context.ts)
  ["metrics"], // the isolate's recorder, Prometheus text, metric names and shards
  ["advisor"], // the rule advisor: the traffic sample's rows and digests; its replay through compiled rules and the algorithms (docs/advisor.md)
  ["limiter"], // plan, fold, summarize; the result as HTTP
  ["request", "isolate", "identity"], // request → descriptors; the isolate's side of the counters and its live rules; verified tokens' claims
  ["durable/counters", "durable/rules", "durable/queue"], // Durable Objects and what runs inside them: CounterObject, RulesObject (rules and overrides), the queue's status object
  ["overrides"], // per-descriptor limits set at runtime, laid over the rules
  ["rules"], // the rules compiler and validator; runtime matching (rules/match/); the Envoy YAML import (rules/envoy-import/)
  ["stored"], // every name and shape that outlives a deploy (docs/stored-formats.md)
  ["algorithms"], // pure algorithms
];
// Leaves anyone may use: they import nothing of ours (config.ts imports the others only as types, for Env).
const LEAVES = ["http", "client"];

const folder = (name) => `^src/${name}/`;
const below = (index) => LAYERS.slice(index + 1).flat();

const layerRules = LAYERS.flatMap((layer, index) =>
  layer.map((name) => ({
    name: `layer-${name}`,
    comment: `src/${name}/ may import only from ${below(index).join(", ") || "nothing"} (and http/, config.ts)`,
    severity: "error",
    from: { path: folder(name) },
    to: {
      path: "^src/",
      pathNot: [folder(name), ...below(index).map(folder), ...LEAVES.map(folder), "^src/config\\.ts$"],
    },
  })),
);

// The faces of the admission pipeline (docs/architecture.md, "The admission pipeline"): each turns its input into
// descriptors and the pipeline's one result into its own output, so none may reach the decision, the failure
// policy, the metrics recorder or the refusals' rendering except through the pipeline's public entry.
const FACES = [
  "^src/gateway/",
  "^src/hono/",
  "^src/dropins/",
  "^src/envoy/",
  "^src/admin/(json|auth-throttle|auth)\\.ts$",
  "^src/queue/(status-limit|enqueue)\\.ts$",
];
const PIPELINE_INSIDES = [
  "^src/limiter/(decide|plan|fold|summarize|timeout|calls|respond|reconcile)\\.ts$",
  "^src/limiter/headers/",
  "^src/metrics/recorder\\.ts$",
  "^src/admission/(?!(index|isolate-context)\\.ts$)",
];

// The Node tier (docs/testing.md, "Tiers"): its tests run in plain Node, so nothing they run may be a cloudflare:*
// module. What runs is the graph without type-only imports (config.ts names every object class in Env, as a type):
// .dependency-cruiser-node-tier.cjs checks this rule on that graph, as the second pass of `npm run deps`.
const NODE_TIER_RULE = {
  name: "node-tier-needs-no-workerd",
  comment:
    "A test of the Node tier (test/**/*.node.test.ts, scripts/tiers.mjs) runs in plain Node: nothing it imports, directly or through what that imports, is a cloudflare:* module. A test that needs one is a workerd test: name it *.test.ts",
  severity: "error",
  from: { path: "^test/.+\\.node\\.test\\.ts$" },
  to: { path: "^cloudflare:", reachable: true },
};

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "faces-use-the-pipeline",
      comment:
        "A face (gateway, Hono middlewares, drop-ins, /json and RPC, the queued-status limit, the admin throttle) reaches the decision engine, the failure policy, the metrics recorder and the refusals (every 429 and 503) only through src/admission/index.ts",
      severity: "error",
      from: { path: FACES },
      to: { path: PIPELINE_INSIDES },
    },
    {
      name: "one-refusal-renderer",
      comment:
        'Every 429 and 503 is rendered by src/admission/refusal.ts (docs/architecture.md, "The admission pipeline"); the quota-exceeded 429 it builds on is imported by nothing else',
      severity: "error",
      from: { path: "^src/", pathNot: "^src/admission/refusal\\.ts$" },
      to: { path: "^src/admission/quota-exceeded\\.ts$" },
    },
    {
      name: "leaves-import-nothing-of-ours",
      comment: "src/http/ and src/client/ are leaf utilities: they import nothing else of ours",
      severity: "error",
      from: { path: "^src/(http|client)/" },
      to: { path: "^src/", pathNot: "^src/(http|client)/" },
    },
    {
      name: "config-imports-only-types",
      comment:
        "config.ts is imported by every layer; it may name their classes in Env, as types only (values only from src/http/, a leaf that imports nothing)",
      severity: "error",
      from: { path: "^src/config\\.ts$" },
      to: { path: "^src/", pathNot: "^src/http/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "nothing-imports-the-entry",
      comment: "src/worker.ts and the package's entry points (src/package/) are wiring only; nothing imports them",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/worker\\.ts$", "^src/package/"] },
      to: { path: "^src/(worker\\.ts$|package/)" },
    },
    {
      name: "src-stands-alone",
      comment: "Nothing in src/ imports bench/, tools/, test/ or scripts/",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(bench|tools|test|scripts)/" },
    },
    {
      name: "tools-use-rules-only",
      comment: "The Node command-line tools (rules:check, rules:import, rules:replay) use the rules compiler, the replay and nothing of the request path",
      severity: "error",
      from: { path: "^tools/" },
      to: { path: "^src/", pathNot: "^src/(rules|algorithms|advisor)/" },
    },
    {
      name: "no-circular",
      comment: "No module cycles (type-only cycles through config.ts's Env included)",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "not-to-unresolvable",
      comment: "Every import resolves",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, pathNot: ["^cloudflare:", "^vite/client$"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "default"] },
  },
};
// For .dependency-cruiser-node-tier.cjs (not enumerable: a configuration holds only the keys dependency-cruiser reads).
Object.defineProperty(module.exports, "nodeTierRule", { value: NODE_TIER_RULE });
