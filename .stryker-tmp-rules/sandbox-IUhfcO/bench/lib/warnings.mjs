/**
 * Runtime warnings in workerd's logs. workerd goes on serving after most of
 * them, so a run can look healthy while the runtime cancels continuations
 * (a promise settled from another request's context), drops queued
 * cross-context actions, or an exception goes uncaught: every workerd the
 * bench or the soak stops has its log counted here, line by line.
 */
// @ts-nocheck


/**
 * The kinds, in order: a line counts once, under the first kind it
 * matches. Only the first line of a warning counts, not the stack trace
 * under it.
 *
 * @example
 * WARNING_KINDS.map((k) => k.kind); // ["cross-request promise", "uncaught", "workerd warning", "workerd error"]
 */
export const WARNING_KINDS = [
  // A promise settled by another request than the one that made it: workerd cancels the continuations of the one that made it.
  { kind: "cross-request promise", matches: (line) => line.includes("A promise was resolved or rejected from a different request context") },
  { kind: "uncaught", matches: (line) => line.includes("Uncaught") },
  // workerd's own C++ logging, e.g. "workerd/io/io-own.c++:175: warning: NOSENTRY IoContext dropped queued cross-context actions …".
  { kind: "workerd warning", matches: (line) => line.includes("warning:") },
  { kind: "workerd error", matches: (line) => /\.c\+\+:\d+: error: /.test(line) },
];

const noWarnings = () => Object.fromEntries(WARNING_KINDS.map((k) => [k.kind, 0]));

/**
 * Count the runtime warnings in one workerd log: the total, per kind
 * (every kind, 0 included) and the distinct lines with their counts, most
 * frequent first.
 *
 * @example
 * runtimeWarnings("workerd/io/io-own.c++:175: warning: NOSENTRY IoContext dropped queued cross-context actions when destroyed; droppedActions = 1\n");
 * // { total: 1, byKind: { "cross-request promise": 0, uncaught: 0, "workerd warning": 1, "workerd error": 0 }, lines: [{ kind: "workerd warning", line: "…", count: 1 }] }
 */
export function runtimeWarnings(logText) {
  const byKind = noWarnings();
  const distinct = new Map();
  for (const line of logText.split("\n")) {
    const kind = WARNING_KINDS.find((k) => k.matches(line))?.kind;
    if (kind === undefined) continue;
    byKind[kind] += 1;
    const seen = distinct.get(line) ?? { kind, line: line.trim(), count: 0 };
    seen.count += 1;
    distinct.set(line, seen);
  }
  const total = Object.values(byKind).reduce((a, b) => a + b, 0);
  return { total, byKind, lines: [...distinct.values()].sort((a, b) => b.count - a.count) };
}

/** Distinct lines kept per log in a tally: enough to tell what happened, few enough for results.json. */
const LINES_KEPT = 5;

/**
 * The whole run's warnings from each stopped workerd's (`{ workerd, ...runtimeWarnings, log }`):
 * totals per kind, how many logs were read, and the logs with warnings
 * (their most frequent lines).
 *
 * @example
 * tallyWarnings([{ workerd: "blocked", log: "bench/.work/workerd-blocked.log", ...runtimeWarnings(text) }]);
 * // { total: 0, byKind: { … }, workerds: 1, withWarnings: [] }
 */
export function tallyWarnings(stopped) {
  const byKind = noWarnings();
  for (const s of stopped) for (const [kind, n] of Object.entries(s.byKind)) byKind[kind] += n;
  return {
    total: Object.values(byKind).reduce((a, b) => a + b, 0),
    byKind,
    workerds: stopped.length,
    withWarnings: stopped
      .filter((s) => s.total > 0)
      .map((s) => ({ workerd: s.workerd, log: s.log, total: s.total, byKind: s.byKind, lines: s.lines.slice(0, LINES_KEPT) })),
  };
}

/**
 * "N (kind n, kind n)" for the kinds present, or "0".
 *
 * @example
 * warningCounts({ total: 3, byKind: { uncaught: 1, "workerd warning": 2 } }); // "3 (uncaught 1, workerd warning 2)"
 */
export function warningCounts({ total, byKind }) {
  const present = Object.entries(byKind).filter(([, n]) => n > 0);
  return present.length === 0 ? String(total) : `${total} (${present.map(([kind, n]) => `${kind} ${n}`).join(", ")})`;
}

/**
 * The distinct warning lines of one log or tally, grouped by kind, each
 * with its count, for a terminal.
 *
 * @example
 * console.log(warningLines(runtimeWarnings(text)).join("\n"));
 * // "  workerd warning (1):"
 * // "    1 × workerd/io/io-own.c++:175: warning: NOSENTRY IoContext dropped queued cross-context actions when destroyed; droppedActions = 1"
 */
export function warningLines({ byKind, lines }, indent = "  ") {
  const out = [];
  for (const { kind } of WARNING_KINDS) {
    if (!(byKind[kind] > 0)) continue;
    out.push(`${indent}${kind} (${byKind[kind]}):`);
    for (const l of lines.filter((x) => x.kind === kind)) out.push(`${indent}  ${l.count} × ${l.line}`);
  }
  return out;
}

/**
 * The run's tally for the end of its output: one line `runtime warnings: N`,
 * then, when there are any, every log that had some, its kinds and lines.
 *
 * @example
 * console.log(printWarnings(results.runtimeWarnings)); // "runtime warnings: 0 (in 9 workerd logs)"
 */
export function printWarnings(tally) {
  const lines = [`runtime warnings: ${warningCounts(tally)} (in ${tally.workerds} workerd log${tally.workerds === 1 ? "" : "s"})`];
  for (const w of tally.withWarnings) {
    lines.push(`WARNING: workerd of ${w.workerd} logged ${warningCounts(w)} (${w.log}); most frequent lines:`);
    lines.push(...warningLines(w, "  "));
  }
  return lines.join("\n");
}
