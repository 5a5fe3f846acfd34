#!/usr/bin/env node
// @ts-check
// Joins Stryker incremental reports into one (docs/testing.md, "Mutation testing", "The gate"):
//   node test/mutation/merge-baselines.mjs OUT IN1 IN2 …
// e.g. the per-scope reports of `--scope request,limiter` and `--scope http` with the quick run's
// baseline, into test/mutation/gate-baseline.json: the gate run then re-tests only what none of them
// tested. Tests are joined by file and name (each report numbers its tests itself); a later report's
// results for a file replace an earlier one's.
import { readFileSync, writeFileSync } from "node:fs";

const [out, ...inputs] = process.argv.slice(2);
if (out === undefined || inputs.length === 0) {
  console.error("usage: node test/mutation/merge-baselines.mjs OUT IN1 [IN2 …]");
  process.exit(2);
}

/** @type {any} */
let base;
/** @type {Record<string, any>} */
const files = {};
/** @type {Record<string, { source?: string, tests: any[] }>} */
const testFiles = {};
/** Test id in the merged report, by `file\nname`. */
const ids = new Map();

for (const input of inputs) {
  const report = JSON.parse(readFileSync(input, "utf8"));
  base ??= report;
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
    for (const mutant of file.mutants) {
      for (const field of ["coveredBy", "killedBy"]) {
        if (Array.isArray(mutant[field])) mutant[field] = mutant[field].filter((id) => local.has(id)).map((id) => local.get(id));
      }
    }
    files[name] = file;
  }
}
writeFileSync(out, JSON.stringify({ ...base, files, testFiles }));
const mutants = Object.values(files).reduce((n, file) => n + file.mutants.length, 0);
console.log(`${out}: ${Object.keys(files).length} files, ${mutants} mutants, ${ids.size} tests`);
