// @ts-check
// Mutation testing (docs/testing.md, "Mutation testing"): `npm run test:mutation`.
// Stryker's vitest runner runs tests in Node worker threads, not in workerd, so
// the tests here are the ones that need no bindings (vitest.mutation.config.ts).
// MUTATION_SCOPE=<folder>[,<folder>…] (algorithms, rules, edge, limiter, durable, http, request, dropins, leases, small)
// mutates those folders only, with the report under reports/mutation/<scope>.{html,json}.

/** What each scope mutates: the pure core, the decision logic, and the lease and checkpoint code of src/durable. */
export const SCOPES = {
  algorithms: ["src/algorithms/**/*.ts"],
  rules: ["src/rules/**/*.ts", "!src/durable/rules/rules-document.ts"],
  edge: ["src/isolate/**/*.ts"],
  limiter: ["src/limiter/**/*.ts"],
  http: ["src/http/**/*.ts"],
  request: ["src/request/**/*.ts"],
  dropins: ["src/dropins/**/*.ts", "src/hono/compat*.ts"],
  durable: [
    "src/durable/counters/leases/leases.ts",
    "src/durable/counters/leases/precount-sync.ts",
    "src/durable/counters/counter-cache.ts",
    "src/durable/counters/leases/lease-holder.ts",
  ],
  // Exactly the gated folder "relay and leases" (test/mutation/gates.mjs).
  leases: [
    "src/durable/counters/leases/lease-holder.ts",
    "src/durable/counters/leases/leases.ts",
    "src/durable/counters/leases/lease-verdict.ts",
    "src/durable/counters/leases/relay-lease.ts",
    "src/durable/counters/leases/precount-sync.ts",
  ],
  // The small gated folders: the shard hash and the queue policy.
  small: ["src/stored/shard-hash.ts", "src/queue/policy.ts"],
};

const scope = process.env.MUTATION_SCOPE ?? "all";
const scopes = scope === "all" ? Object.keys(SCOPES) : scope.split(",");
for (const name of scopes) if (!(name in SCOPES)) throw new Error(`MUTATION_SCOPE: "${name}" is none of all, ${Object.keys(SCOPES).join(", ")}`);
const mutate = scopes.flatMap((name) => SCOPES[/** @type {keyof typeof SCOPES} */ (name)]);

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts", related: false },
  mutate,
  coverageAnalysis: "perTest",
  concurrency: 2,
  // Module-level constants would need a fresh module graph per mutant; their values are pinned by name in the tests.
  ignoreStatic: true,
  // A loaded machine (other work on the same cores) slows a run down: a mutant times out only well past its normal time.
  timeoutMS: 10_000,
  reporters: ["clear-text", "progress-append-only", "html", "json"],
  htmlReporter: { fileName: `reports/mutation/${scopes.join("+")}.html` },
  jsonReporter: { fileName: `reports/mutation/${scopes.join("+")}.json` },
  thresholds: { high: 90, low: 80, break: null },
  // Incremental: a mutant whose code and covering tests did not change since this scope's last run keeps its
  // result, so a run after a new test re-tests only what changed (`-- --force`: every mutant again).
  incremental: true,
  incrementalFile: `reports/mutation/${scopes.join("+")}-incremental.json`,
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
