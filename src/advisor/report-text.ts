/**
 * The replay report as text for people (`npm run rules:replay`), one block
 * per limit (docs/advisor.md, "Replay").
 */
import type { LimitFigures, LimitReport, ReplayReport } from "./report.ts";

const UNITS: readonly [number, string][] = [
  [86_400_000, "d"],
  [3_600_000, "h"],
  [60_000, "m"],
  [1000, "s"],
];

/**
 * A window length the short way.
 *
 * @example
 * windowText(60_000); // "1m"
 * windowText(1500);   // "1500ms"
 */
export function windowText(ms: number): string {
  for (const [size, unit] of UNITS) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

/**
 * The report as lines of text.
 *
 * @example
 * out.write(reportText(report));
 */
export function reportText(report: ReplayReport): string {
  const lines: string[] = [];
  const undecidable = report.undecidable.reduce((n, u) => n + u.count, 0);
  lines.push(
    `replayed ${report.replayed} sampled descriptors (${report.not_sampled} not sampled, ${undecidable} undecidable, ${report.concurrency_skipped} concurrency limits left out)`,
  );
  lines.push(`rules in force reproduce ${report.reproduced.matching} of ${report.reproduced.of} live decisions`);
  lines.push(`proposed vs in force: ${report.newly_refused} newly refused, ${report.newly_allowed} newly allowed`);
  for (const u of report.undecidable) lines.push(`undecidable (${u.count}): ${u.reason}`);
  if (report.limits.length === 0) lines.push("no limit of the proposed rules met the sample");
  for (const limit of report.limits) lines.push("", ...limitLines(limit));
  for (const d of report.dropped) lines.push("", `${d.domain} / ${d.name}: in force, dropped by the proposed rules (it refused ${figures(d)})`);
  return `${lines.join("\n")}\n`;
}

function limitLines(l: LimitReport): string[] {
  const head = `${l.domain} / ${l.name}  ${l.algorithm} ${l.limit}/${windowText(l.window_ms)}${l.shadow ? "  (shadow)" : ""}`;
  const change = l.in_force === null ? "not in force" : `in force ${figures(l.in_force)}, change ${signed(l.refusals_change ?? 0)}`;
  const lines = [head, `  requests ${l.requests}  refused ${figures(l)}  ${change}`];
  if (l.candidate !== undefined) lines.push(`  candidate refused ${figures(l.candidate)}`);
  if (l.top_keys.length > 0) lines.push(`  top keys: ${l.top_keys.map((k) => `${k.key} (${k.requests} requests, ${k.refusals} refused)`).join("; ")}`);
  const a = l.advice;
  if (l.requests === 0) return [...lines, "  advice: no sampled request met it"];
  const flag = a.never_fires ? "NEVER FIRES; " : "";
  const suggestion =
    a.suggested_limit === null
      ? "no suggestion (no keys)"
      : `suggested limit ${a.suggested_limit.value}/${windowText(l.window_ms)} (p${a.suggested_limit.percentile} of per-key peak per window, ${a.suggested_limit.keys} keys)`;
  lines.push(
    `  advice: ${flag}${a.keys_hit_pct}% of ${a.keys} active keys hit it; refused keys: ${a.legitimate_refused} legitimate, ${a.abusive_refused} abusive; ${suggestion}`,
  );
  return lines;
}

function figures(f: LimitFigures): string {
  return `${f.refusals} (${f.refused_pct}%), ${f.keys_refused} keys`;
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}
