// The "Token budgets" panel (docs/dashboard.md, "Token budgets"): each budget
// counted in tokens (docs/llm.md), with the tokens its requests were charged
// once their answers settled, and the tokens of the reservations it refused,
// from the traffic JSON's policies marked `unit: "tokens"`.
import { el, num, policyLabel } from "./dom.js";

/** Tokens of column `column` in the rows of the last `seconds` of the view. */
function tokensSince(view, rows, column, seconds) {
  const from = view.to - seconds;
  return rows.reduce((sum, row) => (row[0] > from ? sum + row[column] : sum), 0);
}

/** One row per token budget; the panel hides itself when no budget counted tokens in the hour. */
export function renderTokens(root, view, seconds) {
  const budgets = view.policies.filter((p) => p.unit === "tokens");
  root.closest("section").hidden = budgets.length === 0;
  const minutes = seconds / 60;
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
          el("th", {}, "Budget"),
          el("th", { class: "num" }, "Tokens spent"),
          el("th", { class: "num" }, "Tokens refused"),
          el("th", { class: "num" }, `Spent per minute (last ${num(minutes)} min)`),
        ),
      ),
      el(
        "tbody",
        {},
        ...budgets.map((p) =>
          el(
            "tr",
            { class: "token-budget" },
            el("td", {}, policyLabel(p)),
            el("td", { class: "num" }, num(p.totals.allowed)),
            el("td", { class: "num" }, num(p.totals.limited)),
            el("td", { class: "num" }, num(tokensSince(view, p.series, 1, seconds) / minutes)),
          ),
        ),
      ),
    ),
  );
}
