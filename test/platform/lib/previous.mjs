/**
 * The worker of the deploy before (docs/testing.md, "test:platform"): the
 * tree of an earlier commit (default: HEAD's first parent, the previous
 * main), laid out from git into a folder of its own beside the project's
 * node_modules, and built with wrangler as a deploy builds it, from its own
 * platform entry (test/platform/worker/entry.ts as it was then). A clone
 * without that commit (a shallow one) has no deploy before: `undefined`.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { buildWorkers } from "../../../bench/lib/build.mjs";

/**
 * The commit `rev` names in the repository at `root` (its short hash and
 * subject), or undefined when there is none.
 *
 * @example
 * resolveCommit(root, "HEAD^"); // { hash: "0a66405…", short: "0a66405", subject: "…" }
 */
export function resolveCommit(root, rev) {
  try {
    const [hash, short, subject] = execFileSync("git", ["log", "-1", "--format=%H%n%h%n%s", `${rev}^{commit}`, "--"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).split("\n");
    return hash ? { hash, short, subject } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Lay out `commit`'s tree in `dir` (with the project's node_modules linked
 * in) and build its platform worker into `dir/build`.
 *
 * @example
 * const previous = await buildPrevious(root, commit, join(work, "previous"));
 */
export async function buildPrevious(root, commit, dir) {
  const tree = join(dir, "tree");
  mkdirSync(tree, { recursive: true });
  const archive = execFileSync("git", ["archive", "--format=tar", commit.hash], { cwd: root, maxBuffer: 1 << 30 });
  execFileSync("tar", ["-x", "-C", tree], { input: archive });
  symlinkSync(join(root, "node_modules"), join(tree, "node_modules"), "dir");
  const { previous } = await buildWorkers(tree, join(dir, "build"), [{ name: "previous", config: "wrangler.toml", entry: "test/platform/worker/entry.ts" }]);
  return previous;
}
