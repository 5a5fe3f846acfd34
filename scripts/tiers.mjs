/**
 * The test tiers (docs/testing.md, "Tiers"): which test file runs where, by its name alone, so no list is kept
 * by hand and a new file lands in a tier by default.
 *
 * | tier      | files                                        | runs in                          | run by          |
 * |-----------|----------------------------------------------|----------------------------------|-----------------|
 * | `node`    | `test/**\/*.node.test.ts`                    | vitest, plain Node               | `npm test`      |
 * | `workerd` | every other `test/**\/*.test.ts`             | vitest, workerd, workers reused  | `npm test`      |
 * | `cli`     | `test/cli/*.test.mjs`                        | `node --test`                    | `npm test`      |
 * | `slow`    | `test/**\/*.slow.test.ts`                    | vitest, workerd, a file a worker | `npm run test:slow` |
 * | `dev`     | `test/cli/*.slow.test.mjs`, `test/browser/*.test.mjs` | `node --test`, one file at a time | `npm run test:slow` |
 *
 * A Node-tier file reaches no `cloudflare:*` module (the import rule `node-tier-needs-no-workerd`,
 * .dependency-cruiser.cjs). `.ci/run` runs every tier (`node scripts/test.mjs --all`); `tierCheck()` (a check of
 * `npm test`) fails when a test file is in no tier or in two.
 *
 * @example
 * tierOf("test/rules/glob.node.test.ts"); // "node"
 * tierOf("test/gateway/forward.test.ts"); // "workerd"
 */
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** The vitest tiers' globs (vitest.config.ts projects of the same names). */
export const VITEST_TIERS = {
  node: { include: ["test/**/*.node.test.ts"], exclude: [] },
  workerd: { include: ["test/**/*.test.ts"], exclude: ["test/**/*.node.test.ts", "test/**/*.slow.test.ts"] },
  slow: { include: ["test/**/*.slow.test.ts"], exclude: [] },
};

/** The `node --test` tiers: each a predicate on a path relative to the repository. */
export const NODE_TEST_TIERS = {
  cli: (path) => /^test\/cli\/[^/]+\.test\.mjs$/.test(path) && !path.endsWith(".slow.test.mjs"),
  dev: (path) => /^test\/cli\/[^/]+\.slow\.test\.mjs$/.test(path) || /^test\/browser\/[^/]+\.test\.mjs$/.test(path),
};

/** What `npm test` runs; the others (`slow`, `dev`) are `npm run test:slow`'s. */
export const QUICK_TIERS = ["node", "workerd", "cli"];
export const ALL_TIERS = ["node", "workerd", "cli", "slow", "dev"];

/** A glob of `VITEST_TIERS` as a RegExp (`**\/` any folders, `*` within one name). */
function globRegExp(glob) {
  const body = glob
    .split(/(\*\*\/|\*)/)
    .map((part) => (part === "**/" ? "(?:.*/)?" : part === "*" ? "[^/]*" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`);
}
const matches = (globs, path) => globs.some((glob) => globRegExp(glob).test(path));

/** Every tier `path` belongs to (exactly one, for a test file of the repository). */
export function tiersOf(path) {
  const vitest = Object.entries(VITEST_TIERS)
    .filter(([, { include, exclude }]) => matches(include, path) && !matches(exclude, path))
    .map(([name]) => name);
  const nodeTest = Object.entries(NODE_TEST_TIERS)
    .filter(([, inTier]) => inTier(path))
    .map(([name]) => name);
  return [...vitest, ...nodeTest];
}

/** The one tier of `path`, or undefined when it has none or several. */
export function tierOf(path) {
  const tiers = tiersOf(path);
  return tiers.length === 1 ? tiers[0] : undefined;
}

/** Every file under `dir` (relative paths, `/`-separated), fixtures and dependencies left out. */
function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "fixtures" ? [] : walk(path);
    return [path];
  });
}

/** Every test file: a name with `.test.` or `.spec.` in it, under test/. */
export function testFiles(root = ".") {
  return walk(join(root, "test"))
    .map((path) => relative(root, path).split(sep).join("/"))
    .filter((path) => /\.(test|spec)\.[cm]?[jt]sx?$/.test(path))
    .sort();
}

/** The files of `tier`, from `files`. */
export function filesOf(tier, files = testFiles()) {
  return files.filter((path) => tierOf(path) === tier);
}

/**
 * The test files in no tier or in more than one: each would be skipped, or run twice.
 *
 * @example
 * tierCheck(["test/a/x.test.ts", "test/a/y.spec.ts"]); // [{ path: "test/a/y.spec.ts", tiers: [] }]
 */
export function tierCheck(files = testFiles()) {
  return files.map((path) => ({ path, tiers: tiersOf(path) })).filter(({ tiers }) => tiers.length !== 1);
}
