// @ts-check
// Per-folder mutation scores from a Stryker JSON report, as Stryker scores them: killed and timed-out
// mutants over all valid ones (survivors and uncovered included; compile errors and ignored ones left out).

/** @typedef {{ name: string, least: number, mutants: number, detected: number, survived: number, noCoverage: number, score: number }} FolderScore */

const DETECTED = new Set(["Killed", "Timeout"]);

/**
 * A glob of the gate table as a test on a relative path: `**` any folders, `*` within one name.
 * @param {string} glob
 */
export function globMatcher(glob) {
  let pattern = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (glob.startsWith("**/", i)) {
      pattern += "(?:.*/)?";
      i += 2;
    } else if (ch === "*") pattern += "[^/]*";
    else pattern += ch.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  const re = new RegExp(`^${pattern}$`);
  return (/** @type {string} */ path) => re.test(path);
}

/**
 * Scores per gate from a report's `files` (path → { mutants: [{ status }] }).
 * @param {Record<string, { mutants: { status: string }[] }>} files
 * @param {readonly { name: string, mutate: string[], least: number }[]} gates
 * @returns {FolderScore[]}
 */
export function folderScores(files, gates) {
  return gates.map(({ name, mutate, least }) => {
    const matchers = mutate.map(globMatcher);
    let detected = 0;
    let survived = 0;
    let noCoverage = 0;
    for (const [path, file] of Object.entries(files)) {
      if (!matchers.some((matches) => matches(path))) continue;
      for (const { status } of file.mutants) {
        if (DETECTED.has(status)) detected += 1;
        else if (status === "Survived") survived += 1;
        else if (status === "NoCoverage") noCoverage += 1;
      }
    }
    const mutants = detected + survived + noCoverage;
    const score = mutants === 0 ? 0 : (100 * detected) / mutants;
    return { name, least, mutants, detected, survived, noCoverage, score };
  });
}

/**
 * The table the gate prints, one line per folder, and whether every folder met its least score
 * (a folder with no mutants fails: its globs matched nothing).
 * @param {FolderScore[]} scores
 */
export function scoreTable(scores) {
  const lines = ["folder           mutants  killed  survived  no cover   score   least"];
  for (const s of scores) {
    const ok = s.mutants > 0 && s.score >= s.least;
    lines.push(
      `${s.name.padEnd(16)} ${String(s.mutants).padStart(7)} ${String(s.detected).padStart(7)} ${String(s.survived).padStart(9)} ${String(s.noCoverage).padStart(9)} ${s.score.toFixed(2).padStart(7)} % ${String(s.least).padStart(4)} % ${ok ? "ok" : "BELOW"}`,
    );
  }
  return { text: lines.join("\n"), passed: scores.every((s) => s.mutants > 0 && s.score >= s.least) };
}
