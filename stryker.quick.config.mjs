// @ts-check
// The short mutation run of .ci/run (`npm run test:mutation -- --quick`,
// docs/testing.md, "Mutation testing"): src/algorithms against the algorithm
// tests (and the draft-11 field oracles), failing below 90 %. Incremental: mutants whose code and covering
// tests did not change since the committed baseline keep their result, so a
// run re-tests only what changed; `-- --quick --force` re-tests every mutant
// and rewrites the baseline (commit it).
import full from "./stryker.config.mjs";

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  ...full,
  mutate: ["src/algorithms/**/*.ts"],
  // draft11-fields holds every algorithm's effective window to exact oracles (the draft-11 `t` parameter).
  testFiles: ["test/algorithms/*.test.ts", "test/limiter/draft11-fields.node.test.ts"],
  incremental: true,
  incrementalFile: "test/mutation/algorithms-baseline.json",
  reporters: ["clear-text", "progress-append-only", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/quick.html" },
  jsonReporter: { fileName: "reports/mutation/quick.json" },
  thresholds: { high: 95, low: 90, break: 90 },
};
