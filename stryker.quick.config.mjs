// @ts-check
// The short mutation run for .ci/run (docs/testing.md, "Mutation testing"):
// src/algorithms only, against the algorithm tests, failing below 90 %.
/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts", related: false },
  mutate: ["src/algorithms/**/*.ts", "!src/algorithms/types.ts"],
  testFiles: ["test/algorithms/*.test.ts"],
  coverageAnalysis: "perTest",
  concurrency: 2,
  ignoreStatic: true,
  reporters: ["clear-text", "progress-append-only", "json"],
  jsonReporter: { fileName: "reports/mutation/quick.json" },
  thresholds: { high: 95, low: 90, break: 90 },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
