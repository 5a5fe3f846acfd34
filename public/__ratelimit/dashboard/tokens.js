// The "Token budgets" panel (docs/dashboard.md, "Token budgets"): each budget
// counted in tokens (docs/llm.md), with the tokens its requests were charged
// once their answers settled, and the tokens of the reservations it refused,
// from the traffic JSON's policies marked `unit: "tokens"`.
import { num, policyLabel } from "./dom.js";
import { renderTablePanel } from "./table-panel.js";

/** Tokens of column `column` in the rows of the last `seconds` of the view. */
function tokensSince(view, rows, column, seconds) {
  const from = view.to - seconds;
  return rows.reduce((sum, row) => (row[0] > from ? sum + row[column] : sum), 0);
}

/** One row per token budget; the panel hides itself when no budget counted tokens in the hour. */
export function renderTokens(root, view, seconds) {
  const minutes = seconds / 60;
  renderTablePanel(
    root,
    view.policies.filter((p) => p.unit === "tokens"),
    [
      { head: "Budget", cell: policyLabel },
      { head: "Tokens spent", num: true, cell: (p) => num(p.totals.allowed) },
      { head: "Tokens refused", num: true, cell: (p) => num(p.totals.limited) },
      { head: `Spent per minute (last ${num(minutes)} min)`, num: true, cell: (p) => num(tokensSince(view, p.series, 1, seconds) / minutes) },
    ],
    { class: "token-budget" },
  );
}
