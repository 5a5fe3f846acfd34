// @ts-check
// The folders whose mutation scores .ci/run gates (docs/testing.md, "Mutation testing"):
// what each mutates, its least score, and the committed baseline the gate run starts from.

/**
 * One gated folder: the globs Stryker mutates and the score under which the gate fails.
 * @typedef {{ name: string, mutate: string[], least: number }} Gate
 */

/**
 * Every gate but algorithms (90 %) holds 85 %. On 2026-12-02 four of them had stood lower for a day (limiter 78,
 * relay and leases 75, http and request 84): the token budgets, the relay's renew-on-ask leases and sub-leases and
 * the settings/refusal moves brought code held only by workerd tests, which the Node mutation run does not load.
 * Plain tests of that code, in vitest.mutation.config.ts, raised them to limiter 87.78, relay and leases 92.72 (with
 * relay-sublease.ts now gated), http 86.49 and request 88.20 (docs/testing.md, "Mutation testing").
 * @type {readonly Gate[]}
 */
export const GATES = [
  { name: "algorithms", mutate: ["src/algorithms/**/*.ts"], least: 90 },
  // The 429 a result becomes, and every other refusal, moved from limiter/respond.ts to admission/: gated with it still.
  { name: "limiter", mutate: ["src/limiter/**/*.ts", "src/admission/quota-exceeded.ts", "src/admission/refusal.ts"], least: 85 },
  {
    name: "relay and leases",
    mutate: [
      "src/durable/counters/leases/lease-holder.ts",
      "src/durable/counters/leases/leases.ts",
      "src/durable/counters/leases/lease-verdict.ts",
      "src/durable/counters/leases/relay-lease.ts",
      "src/durable/counters/leases/relay-sublease.ts",
      "src/durable/counters/leases/precount-sync.ts",
    ],
    least: 85,
  },
  { name: "http", mutate: ["src/http/**/*.ts"], least: 85 },
  { name: "request", mutate: ["src/request/**/*.ts"], least: 85 },
  { name: "drop-ins", mutate: ["src/dropins/**/*.ts", "src/hono/compat*.ts"], least: 85 },
  { name: "queue policy", mutate: ["src/queue/policy.ts"], least: 85 },
  { name: "shard hash", mutate: ["src/stored/shard-hash.ts"], least: 85 },
];

/** The gate run's incremental baseline: committed, so a clean clone re-tests only mutants whose code or tests changed. */
export const GATE_BASELINE = "test/mutation/gate-baseline.json";

/** Where the gate run's JSON report goes (git-ignored), read back for the per-folder scores. */
export const GATE_REPORT = "reports/mutation/gate.json";
