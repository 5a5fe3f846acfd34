// The "Candidate limits" panel (docs/dashboard.md, "Candidate limits"): each
// candidate of the rules in force beside its live limit, with the hour's
// refusals of both, from the traffic JSON's `candidates`.
import { num } from "./dom.js";
import { renderTablePanel } from "./table-panel.js";

/** One row per candidate; the panel hides itself when the rules have none. */
export function renderCandidates(root, view) {
  renderTablePanel(root, view.candidates ?? [], [
    { head: "Live limit", cell: (c) => `${c.domain} · ${c.descriptor} · ${c.limit} (${num(c.window_seconds)} s)` },
    { head: "Hits", num: true, cell: (c) => num(c.live_hits) },
    { head: "Limited", num: true, cell: (c) => num(c.live_limited) },
    { head: "Candidate", cell: (c) => `${c.candidate} (${num(c.candidate_window_seconds)} s)` },
    { head: "Would limit", num: true, cell: (c) => num(c.candidate_would_limit) },
  ]);
}
