// The "Candidate limits" panel (docs/dashboard.md, "Candidate limits"): each
// candidate of the rules in force beside its live limit, with the hour's
// refusals of both, from the traffic JSON's `candidates`.
import { el, num } from "./dom.js";

/** One row per candidate; the panel hides itself when the rules have none. */
export function renderCandidates(root, view) {
  const rows = view.candidates ?? [];
  root.closest("section").hidden = rows.length === 0;
  root.replaceChildren(
    el(
      "table",
      { class: "top-table" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", {}, "Live limit"),
          el("th", { class: "num" }, "Hits"),
          el("th", { class: "num" }, "Limited"),
          el("th", {}, "Candidate"),
          el("th", { class: "num" }, "Would limit"),
        ),
      ),
      el(
        "tbody",
        {},
        ...rows.map((c) =>
          el(
            "tr",
            {},
            el("td", {}, `${c.domain} · ${c.descriptor} · ${c.limit} (${num(c.window_seconds)} s)`),
            el("td", { class: "num" }, num(c.live_hits)),
            el("td", { class: "num" }, num(c.live_limited)),
            el("td", {}, `${c.candidate} (${num(c.candidate_window_seconds)} s)`),
            el("td", { class: "num" }, num(c.candidate_would_limit)),
          ),
        ),
      ),
    ),
  );
}
