// @ts-check
// The gated mutation run of .ci/run (`npm run test:mutation -- --gate`, docs/testing.md,
// "Mutation testing"): every folder of test/mutation/gates.mjs in one run, incremental from the
// committed baseline, so a clean clone re-tests only the mutants whose code or covering tests
// changed; `-- --gate --force` re-tests every mutant and rewrites the baseline (commit it).
// scripts/mutation.mjs prints each folder's score and fails under its least.
import { GATE_BASELINE, GATE_REPORT, GATES } from "./test/mutation/gates.mjs";
import full from "./stryker.config.mjs";

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  ...full,
  mutate: GATES.flatMap((gate) => gate.mutate),
  incremental: true,
  incrementalFile: GATE_BASELINE,
  reporters: ["clear-text", "progress-append-only", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/gate.html" },
  jsonReporter: { fileName: GATE_REPORT },
  // Each folder is held to its own least score afterwards; Stryker's one threshold would mix them.
  thresholds: { high: 90, low: 85, break: null },
};
