#!/usr/bin/env node
// `npm run test:mutation`: mutation testing with StrykerJS (docs/testing.md, "Mutation testing").
//   npm run test:mutation                      every scope (stryker.config.mjs), one report
//   npm run test:mutation -- --scope edge      one folder (algorithms, rules, edge, limiter, durable; several: edge,limiter)
//   npm run test:mutation -- --quick           src/algorithms only, incremental, fails below 90 % (.ci/run)
//   npm run test:mutation -- --quick --force   the quick run, every mutant again (rewrites its baseline)
// Reports go to reports/mutation/ (git-ignored). Exits with Stryker's status.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { quick: { type: "boolean", default: false }, force: { type: "boolean", default: false }, scope: { type: "string" } },
});
if (values.quick && values.scope !== undefined) {
  console.error("test:mutation: --quick runs src/algorithms only; leave out --scope");
  process.exit(2);
}
const config = values.quick ? "stryker.quick.config.mjs" : "stryker.config.mjs";
const args = ["run", config, ...(values.force ? ["--force"] : [])];
const env = { ...process.env, WRANGLER_SEND_METRICS: "false", ...(values.scope === undefined ? {} : { MUTATION_SCOPE: values.scope }) };
const result = spawnSync(join("node_modules", ".bin", "stryker"), args, { stdio: "inherit", env });
process.exit(result.status ?? 1);
