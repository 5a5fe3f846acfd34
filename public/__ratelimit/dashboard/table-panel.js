// The panels that are one table, a row per item (candidates.js, tokens.js):
// the table built from its columns, and the panel's section hidden while
// there is no row to show.
import { el } from "./dom.js";

/**
 * Fill `root` with a table of `items`, one row each (with `rowProps`), a
 * cell per column: `{ head, cell(item), num }`, `num` for a right-aligned
 * number. Hides the section around `root` when `items` is empty.
 *
 * @example
 * renderTablePanel(root, budgets, [{ head: "Budget", cell: policyLabel }, { head: "Tokens spent", num: true, cell: (p) => num(p.totals.allowed) }]);
 */
export function renderTablePanel(root, items, columns, rowProps = {}) {
  root.closest("section").hidden = items.length === 0;
  const props = (column) => (column.num ? { class: "num" } : {});
  root.replaceChildren(
    el(
      "table",
      { class: "top-table" },
      el("thead", {}, el("tr", {}, ...columns.map((column) => el("th", props(column), column.head)))),
      el("tbody", {}, ...items.map((item) => el("tr", rowProps, ...columns.map((column) => el("td", props(column), column.cell(item)))))),
    ),
  );
}
