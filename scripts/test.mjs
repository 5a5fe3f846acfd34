#!/usr/bin/env node
// `npm test`: type-check, import rules, lint and format, docs links, the package
// build, the workerd test suite (vitest + the Workers plugin), the Node CLI
// tests and the dashboard's browser test, then one closing line
// `Tests: N passed, M failed`. Exits non-zero if anything failed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

process.env.WRANGLER_SEND_METRICS = "false";
const bin = (name) => join("node_modules", ".bin", name);
const run = (cmd, args) => spawnSync(cmd, args, { stdio: ["ignore", "inherit", "inherit"], env: process.env });

let passed = 0;
let failed = 0;

// The package as the ecosystem checks it: one tarball, packed from the build below, linted and its types resolved.
const packDir = mkdtempSync(join(tmpdir(), "floodgate-pack-"));
const { version } = JSON.parse(readFileSync("package.json", "utf8"));
const tarball = join(packDir, `floodgate-${version}.tgz`);

// Whole-tree checks, each counted as one test: types, import rules, lint and format, docs links.
const checks = [
  // First: the import rules and the CLI tests resolve `floodgate/client` to the package's built output (dist/).
  ["package build (npm run build)", "npm", ["run", "--silent", "build"]],
  ["package tarball (npm pack)", "npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", packDir]],
  ["package lint (publint --strict)", bin("publint"), ["run", tarball, "--strict"]],
  // An ESM-only package for Workers and bundlers: CommonJS and node10 resolution are out of scope.
  ["package types (arethetypeswrong --profile esm-only)", bin("attw"), [tarball, "--profile", "esm-only"]],
  // worker-configuration.d.ts (the Env bindings) is what `wrangler types` makes of wrangler.toml today.
  ["Env types current (wrangler types --check)", bin("wrangler"), ["types", "--include-runtime=false", "--check"]],
  ["type-check", bin("tsc"), ["--noEmit", "-p", "."]],
  ["import rules (dependency-cruiser)", bin("depcruise"), ["src", "tools", "test", "bench", "--config", ".dependency-cruiser.cjs"]],
  ["lint and format (biome)", bin("biome"), ["check", "."]],
  // Offline (.remarkrc.mjs): every relative link and heading anchor in the docs resolves.
  ["docs links (remark-validate-links)", bin("remark"), ["README.md", "docs", "bench/README.md", "--frail", "--quiet", "--no-stdout"]],
];
for (const [name, command, args] of checks) {
  console.log(`> ${name} (node ${process.version})`);
  const status = run(command, args).status;
  if (status === 0) passed += 1;
  else failed += 1;
  console.log(`${name}: ${status === 0 ? "ok" : "FAILED"}`);
}
rmSync(packDir, { recursive: true, force: true });

const report = ".test-results.json";
rmSync(report, { force: true });
const extra = process.argv.slice(2);
console.log("> vitest run (inside workerd)");
run(bin("vitest"), ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...extra]);
if (existsSync(report)) {
  const json = JSON.parse(readFileSync(report, "utf8"));
  passed += json.numPassedTests;
  failed += json.numFailedTests;
  // A file that fails to load has no tests to count; count it as a failure.
  for (const file of json.testResults) if (file.status === "failed" && file.assertionResults.length === 0) failed += 1;
} else {
  console.error("vitest wrote no report: counting the suite as failed");
  failed += 1;
}

// Node's test runner over `files`, its TAP counts added to the totals.
function nodeTests(files) {
  const node = spawnSync(process.execPath, ["--test", "--test-reporter=tap", ...files], { encoding: "utf8", env: process.env });
  process.stdout.write(node.stdout);
  process.stderr.write(node.stderr);
  const count = (label) => Number(new RegExp(`^# ${label} (\\d+)$`, "m").exec(node.stdout)?.[1] ?? 0);
  const filePassed = count("pass");
  const fileFailed = count("fail");
  passed += filePassed;
  failed += fileFailed + (node.status !== 0 && fileFailed === 0 ? 1 : 0);
}

const cliTests = "test/cli";
if (extra.length === 0 && existsSync(cliTests)) {
  console.log("> node --test test/cli (command-line tools)");
  nodeTests(
    readdirSync(cliTests)
      .filter((f) => f.endsWith(".test.mjs"))
      .map((f) => join(cliTests, f)),
  );
}

// The dashboard in headless Chromium against wrangler dev (docs/dashboard.md).
// Without Chromium it is skipped locally and counted as failed in CI (CI=true).
const browserTest = join("test", "browser", "dashboard.test.mjs");
if (extra.length === 0 && existsSync(browserTest)) {
  const found = spawnSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], { encoding: "utf8" }).stdout.trim();
  const chromium = process.env.CHROMIUM_PATH ?? found;
  if (chromium !== "") {
    console.log(`> node --test ${browserTest} (the dashboard in ${chromium})`);
    process.env.CHROMIUM_PATH = chromium;
    nodeTests([browserTest]);
    // The rule advisor's panels (docs/advisor.md), after: one wrangler dev at a time.
    nodeTests([join("test", "browser", "whatif.test.mjs")]);
  } else if (process.env.CI === "true") {
    console.error("dashboard browser test: FAILED, no Chromium (install it: apt-get install -y chromium, or set CHROMIUM_PATH)");
    failed += 1;
  } else {
    console.log("dashboard browser test: skipped, no Chromium found (apt-get install -y chromium, or set CHROMIUM_PATH); CI counts this as a failure");
  }
}

console.log(`Tests: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
