#!/usr/bin/env node
// `npm test`: type-check, import rules, lint and format, docs links, the package
// build, the tier check, then the quick tiers (docs/testing.md, "Tiers"): the Node
// tier (vitest in plain Node), the workerd tier (vitest + the Workers plugin, workers
// reused) and the quick command-line tests; one line per tier, then one closing line
// `Tests: N passed, M failed`. Exits non-zero if anything failed.
//   node scripts/test.mjs                 the checks and the quick tiers (npm test)
//   node scripts/test.mjs --slow          the slow tiers only: long workerd scenarios, wrangler dev and the browser (npm run test:slow)
//   node scripts/test.mjs --all           the checks and every tier (.ci/run)
//   node scripts/test.mjs test/gateway    the checks, then vitest over the given files in their tiers (any other vitest arguments too)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { DEV_TOKEN, startDev } from "../test/browser/dev-server.mjs";
import { ALL_TIERS, QUICK_TIERS, VITEST_TIERS, filesOf, tierCheck, tierOf } from "./tiers.mjs";

process.env.WRANGLER_SEND_METRICS = "false";
const bin = (name) => join("node_modules", ".bin", name);
const run = (cmd, args) => spawnSync(cmd, args, { stdio: ["ignore", "inherit", "inherit"], env: process.env });

const args = process.argv.slice(2);
const slowOnly = args.includes("--slow");
const tiers = args.includes("--all") ? ALL_TIERS : slowOnly ? ["slow", "dev"] : QUICK_TIERS;
const extra = args.filter((arg) => arg !== "--slow" && arg !== "--all");

let passed = 0;
let failed = 0;
/** Each tier's counts and wall time, printed before the total. */
const tierLines = [];
/** Each failed test's name and first message line, repeated at the end so a log's tail names what failed. */
const failures = [];
function count(tier, tierPassed, tierFailed, started) {
  passed += tierPassed;
  failed += tierFailed;
  tierLines.push(`${tier}: ${tierPassed} passed, ${tierFailed} failed (${Math.round((Date.now() - started) / 1000)} s)`);
}

// Every test file in exactly one tier (scripts/tiers.mjs): a file in none would never run, one in two would run twice.
function checkTiers() {
  const misplaced = tierCheck();
  for (const { path, tiers } of misplaced)
    console.error(`${path}: ${tiers.length === 0 ? "in no tier" : `in ${tiers.join(" and ")}`} (docs/testing.md, "Tiers")`);
  return { status: misplaced.length === 0 ? 0 : 1 };
}

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
  // The Node tier's rule on the graph of what runs (type-only imports erased): no cloudflare:* module reached.
  ["import rules, Node tier (dependency-cruiser)", bin("depcruise"), ["test", "--config", ".dependency-cruiser-node-tier.cjs"]],
  ["lint and format (biome)", bin("biome"), ["check", "."]],
  // Offline (.remarkrc.mjs): every relative link and heading anchor in the docs resolves.
  ["docs links (remark-validate-links)", bin("remark"), ["README.md", "docs", "bench/README.md", "--frail", "--quiet", "--no-stdout"]],
];
checks.push(["every test file in one tier (scripts/tiers.mjs)", checkTiers, []]);
const checksStarted = Date.now();
let checksPassed = 0;
for (const [name, command, commandArgs] of slowOnly ? [] : checks) {
  console.log(`> ${name} (node ${process.version})`);
  const status = (typeof command === "function" ? command() : run(command, commandArgs)).status;
  if (status === 0) checksPassed += 1;
  console.log(`${name}: ${status === 0 ? "ok" : "FAILED"}`);
}
if (!slowOnly) count("whole-tree checks", checksPassed, checks.length - checksPassed, checksStarted);
rmSync(packDir, { recursive: true, force: true });

// The vitest tiers in one run, a project each (vitest.config.ts); each file's tests counted in its tier.
const vitestTiers = tiers.filter((tier) => tier in VITEST_TIERS);
if (vitestTiers.length > 0) {
  const report = ".test-results.json";
  rmSync(report, { force: true });
  const started = Date.now();
  console.log(`> vitest run (${vitestTiers.join(", ")})`);
  const projects = vitestTiers.flatMap((tier) => ["--project", tier]);
  run(bin("vitest"), ["run", ...projects, "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...extra]);
  const counts = Object.fromEntries(vitestTiers.map((tier) => [tier, { passed: 0, failed: 0 }]));
  if (existsSync(report)) {
    const json = JSON.parse(readFileSync(report, "utf8"));
    for (const file of json.testResults) {
      const tier = counts[tierOf(relative(process.cwd(), file.name).split(sep).join("/"))] ?? counts[vitestTiers[0]];
      tier.passed += file.assertionResults.filter((test) => test.status === "passed").length;
      tier.failed += file.assertionResults.filter((test) => test.status === "failed").length;
      for (const test of file.assertionResults.filter((each) => each.status === "failed"))
        failures.push(
          `${relative(process.cwd(), file.name)} > ${test.fullName}: ${String(test.failureMessages?.[0] ?? "")
            .split("\n")[0]
            .slice(0, 300)}`,
        );
      if (file.status === "failed" && file.assertionResults.length === 0)
        failures.push(
          `${relative(process.cwd(), file.name)}: did not load: ${String(file.message ?? "")
            .split("\n")[0]
            .slice(0, 300)}`,
        );
      // A file that fails to load has no tests to count; count it as a failure.
      if (file.status === "failed" && file.assertionResults.length === 0) tier.failed += 1;
    }
  } else {
    console.error("vitest wrote no report: counting the run as failed");
    counts[vitestTiers[0]].failed += 1;
  }
  for (const tier of vitestTiers) count(tier, counts[tier].passed, counts[tier].failed, started);
}

// Node's test runner over `files` (`oneAtATime`: for wrangler dev and Chromium, heavy and on ports of their own); its TAP counts.
function nodeTests(files, oneAtATime = false) {
  const concurrency = oneAtATime ? ["--test-concurrency=1"] : [];
  const node = spawnSync(process.execPath, ["--test", ...concurrency, "--test-reporter=tap", ...files], { encoding: "utf8", env: process.env });
  process.stdout.write(node.stdout);
  process.stderr.write(node.stderr);
  const total = (label) => Number(new RegExp(`^# ${label} (\\d+)$`, "m").exec(node.stdout)?.[1] ?? 0);
  const filePassed = total("pass");
  const fileFailed = total("fail");
  for (const line of node.stdout.split("\n")) if (/^\s*not ok \d+ - /.test(line)) failures.push(`node --test: ${line.trim().slice(0, 300)}`);
  return { passed: filePassed, failed: fileFailed + (node.status !== 0 && fileFailed === 0 ? 1 : 0) };
}
const withFilter = extra.length > 0;

// The quick command-line tests: the tools as users run them, the docs, the bench's arithmetic.
if (tiers.includes("cli") && !withFilter) {
  const started = Date.now();
  console.log("> node --test (command-line tools: the cli tier)");
  const result = nodeTests(filesOf("cli"));
  count("cli", result.passed, result.failed, started);
}

// The dev tier: wrangler dev (test/cli/*.slow.test.mjs), then the dashboard in headless Chromium (docs/dashboard.md).
// Without Chromium the browser files are skipped locally and counted as failed in CI (CI=true).
if (tiers.includes("dev") && !withFilter) {
  const started = Date.now();
  const files = filesOf("dev");
  const browser = files.filter((path) => path.startsWith("test/browser/"));
  const found = spawnSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], { encoding: "utf8" }).stdout.trim();
  const chromium = process.env.CHROMIUM_PATH ?? found;
  let result = { passed: 0, failed: 0 };
  if (chromium !== "") process.env.CHROMIUM_PATH = chromium;
  else if (process.env.CI === "true") {
    console.error("browser tests: FAILED, no Chromium (install it: apt-get install -y chromium, or set CHROMIUM_PATH)");
    result.failed += 1;
  } else console.log("browser tests: skipped, no Chromium found (apt-get install -y chromium, or set CHROMIUM_PATH); CI counts this as a failure");
  const toRun = files.filter((path) => chromium !== "" || !browser.includes(path));
  console.log(`> node --test (the dev tier: wrangler dev${chromium !== "" ? `, the browser in ${chromium}` : ""})`);
  if (toRun.length > 0) {
    // One wrangler dev for the files that ask for `{ ADMIN_TOKEN: DEV_TOKEN }` (test/browser/dev-server.mjs).
    let shared;
    try {
      shared = await startDev({ ADMIN_TOKEN: DEV_TOKEN });
      process.env.FLOODGATE_DEV_SERVER = JSON.stringify({ base: shared.base, logFile: shared.logFile, vars: shared.vars });
    } catch (error) {
      console.error(`the dev tier's shared wrangler dev did not start; each file starts its own: ${error.message}`);
    }
    const { passed: p, failed: f } = nodeTests(toRun, true);
    result = { passed: result.passed + p, failed: result.failed + f };
    delete process.env.FLOODGATE_DEV_SERVER;
    await shared?.stop();
  }
  count("dev", result.passed, result.failed, started);
}

for (const line of failures) console.log(`failed: ${line}`);
for (const line of tierLines) console.log(line);
console.log(`Tests: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
