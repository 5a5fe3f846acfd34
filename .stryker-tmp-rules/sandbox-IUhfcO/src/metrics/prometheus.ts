/**
 * Samples into the Prometheus text exposition format (version 0.0.4).
 */
// @ts-nocheck

import { HELP } from "./names.ts";
import type { Sample } from "./samples.ts";

/** Content-Type of the exposition format. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

// Label values escape backslash, double quote and line feed; HELP text only backslash and line feed.
const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

/**
 * Render samples grouped by metric name, each group with its HELP and TYPE
 * lines, series sorted so the output is stable from one scrape to the next.
 *
 * @example
 * renderPrometheus([{ name: "ratelimit_service_rate_limit_total_hits", labels: [["domain", "api"]], value: 3 }]);
 * // "# HELP ratelimit_service_rate_limit_total_hits Hits counted against a rate limit.\n# TYPE ... counter\n...{domain=\"api\"} 3\n"
 */
export function renderPrometheus(samples: readonly Sample[]): string {
  const byName = new Map<string, string[]>();
  for (const sample of samples) {
    const labels = sample.labels.length === 0 ? "" : `{${sample.labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`;
    const lines = byName.get(sample.name) ?? [];
    lines.push(`${sample.name}${labels} ${sample.value}`);
    byName.set(sample.name, lines);
  }
  let text = "";
  for (const [name, lines] of [...byName].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const help = (HELP[name] ?? name).replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
    text += `# HELP ${name} ${help}\n# TYPE ${name} counter\n`;
    for (const line of lines.sort()) text += `${line}\n`;
  }
  return text;
}
