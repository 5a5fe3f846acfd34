#!/usr/bin/env node
// `npm run test:mutation`: mutation testing with StrykerJS (docs/testing.md, "Mutation testing").
//   npm run test:mutation                      every scope (stryker.config.mjs), one report
//   npm run test:mutation -- --scope edge      one folder (algorithms, rules, edge, limiter, durable; several: edge,limiter)
//   npm run test:mutation -- --gate            the gated folders (test/mutation/gates.mjs) in one incremental run
//                                              from the committed baseline; prints each folder's score and fails
//                                              if one is under its least (.ci/run)
//   npm run test:mutation -- --gate --force    the same, every mutant again (rewrites the baseline: commit it)
//   npm run test:mutation -- --quick           src/algorithms only, incremental, fails below 90 %
// Reports go to reports/mutation/ (git-ignored). Exits non-zero on Stryker's failure or a folder under its least.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { GATE_REPORT, GATES } from "../test/mutation/gates.mjs";
import { folderScores, scoreTable } from "../test/mutation/scores.mjs";

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    gate: { type: "boolean", default: false },
    force: { type: "boolean", default: false },
    scope: { type: "string" },
  },
});
if ((values.quick || values.gate) && values.scope !== undefined) {
  console.error("test:mutation: --quick and --gate choose their own folders; leave out --scope");
  process.exit(2);
}
if (values.quick && values.gate) {
  console.error("test:mutation: choose one of --quick and --gate");
  process.exit(2);
}
const config = values.gate ? "stryker.gate.config.mjs" : values.quick ? "stryker.quick.config.mjs" : "stryker.config.mjs";
const args = ["run", config, ...(values.force ? ["--force"] : [])];
const env = { ...process.env, WRANGLER_SEND_METRICS: "false", ...(values.scope === undefined ? {} : { MUTATION_SCOPE: values.scope }) };
const result = spawnSync(join("node_modules", ".bin", "stryker"), args, { stdio: "inherit", env });
if (result.status !== 0 || !values.gate) process.exit(result.status ?? 1);

const report = JSON.parse(readFileSync(GATE_REPORT, "utf8"));
const { text, passed } = scoreTable(folderScores(report.files, GATES));
console.log(`\nMutation scores per gated folder (${GATE_REPORT}):\n${text}`);
process.exit(passed ? 0 : 1);
