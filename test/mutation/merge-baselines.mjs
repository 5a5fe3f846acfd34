#!/usr/bin/env node
// @ts-check
// Joins Stryker incremental reports into one (docs/testing.md, "Mutation testing", "The gate"):
//   node test/mutation/merge-baselines.mjs OUT IN1 IN2 …
// e.g. the per-scope reports of `--scope request,limiter` and `--scope http` with the quick run's
// baseline, into test/mutation/gate-baseline.json: the gate run then re-tests only what none of them
// tested. Tests are joined by file and name (each report numbers its tests itself); a later report's
// results for a file replace an earlier one's.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

/**
 * One report holding every file and test of `reports`, tests numbered anew.
 *
 * @example
 * mergeReports([algorithms, requestAndLimiter]).files["src/request/cost.ts"].mutants[0].killedBy; // ["12"]
 * @param {any[]} reports Stryker incremental reports (mutation-testing-report-schema), each with `testFiles`
 */
export function mergeReports(reports) {
  /** @type {Record<string, any>} */
  const files = {};
  /** @type {Record<string, { source?: string, tests: any[] }>} */
  const testFiles = {};
  /** Test id in the merged report, by `file\nname`. */
  const ids = new Map();
  for (const report of reports) {
    /** This report's test id → the merged id. */
    const local = new Map();
    for (const [name, file] of Object.entries(report.testFiles ?? {})) {
      const merged = (testFiles[name] ??= { source: file.source, tests: [] });
      for (const test of file.tests ?? []) {
        const key = `${name}\n${test.name}`;
        if (!ids.has(key)) {
          ids.set(key, String(ids.size));
          merged.tests.push({ ...test, id: ids.get(key) });
        }
        local.set(test.id, ids.get(key));
      }
    }
    for (const [name, file] of Object.entries(report.files)) {
      const mutants = file.mutants.map((/** @type {any} */ mutant) => {
        const out = { ...mutant };
        for (const field of ["coveredBy", "killedBy"]) {
          if (Array.isArray(mutant[field]))
            out[field] = mutant[field].filter((/** @type {string} */ id) => local.has(id)).map((/** @type {string} */ id) => local.get(id));
        }
        return out;
      });
      files[name] = { ...file, mutants };
    }
  }
  return { ...reports[0], files, testFiles };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [out, ...inputs] = process.argv.slice(2);
  if (out === undefined || inputs.length === 0) {
    console.error("usage: node test/mutation/merge-baselines.mjs OUT IN1 [IN2 …]");
    process.exit(2);
  }
  const merged = mergeReports(inputs.map((input) => JSON.parse(readFileSync(input, "utf8"))));
  writeFileSync(out, JSON.stringify(merged));
  const mutants = Object.values(merged.files).reduce((n, file) => n + file.mutants.length, 0);
  const tests = Object.values(merged.testFiles).reduce((n, file) => n + file.tests.length, 0);
  console.log(`${out}: ${Object.keys(merged.files).length} files, ${mutants} mutants, ${tests} tests`);
}
