// The traffic, top-keys and health panels, rebuilt from each refresh's JSON.
import { FAILURE_SERIES, TRAFFIC_SERIES, chartData, drawChart } from "./charts.js";
import { el, num, policyLabel } from "./dom.js";

const idOf = (p) => JSON.stringify([p.domain, p.descriptor, p.limit]);
const cards = new Map();
let failuresChart;

/** Every chart with its box, for resizing. */
export function allCharts() {
  const list = [...cards.values()].map((c) => [c.chart, c.box]);
  if (failuresChart !== undefined) list.push([failuresChart, document.getElementById("failures-chart")]);
  return list;
}

/** One card per policy with traffic in the hour: its totals and its chart. */
export function renderTraffic(root, view, filter, seconds) {
  const shown = view.policies.filter((p) => policyLabel(p).toLowerCase().includes(filter.toLowerCase()));
  if (shown.length === 0) root.replaceChildren(el("p", { class: "muted empty" }, "No traffic in the last hour."));
  else root.querySelector(".empty")?.remove();
  const keep = new Set(shown.map(idOf));
  for (const [id, card] of cards) {
    if (!keep.has(id)) {
      card.chart.destroy();
      card.node.remove();
      cards.delete(id);
    }
  }
  for (const p of shown) {
    const id = idOf(p);
    let card = cards.get(id);
    if (card === undefined) {
      const totals = el("p", { class: "muted" });
      const box = el("div", { class: "chart" });
      const node = el("div", { class: "policy" }, el("h3", {}, policyLabel(p)), totals, box);
      root.append(node);
      card = { node, totals, box, chart: undefined };
      cards.set(id, card);
    }
    const t = p.totals;
    // A token budget's hits are tokens, counted once each answer settled (docs/llm.md).
    const unit = p.unit === "tokens" ? "tokens" : "hits";
    card.totals.textContent = `allowed ${num(t.allowed)} · limited ${num(t.limited)} · near limit ${num(t.near_limit)} · shadow would limit ${num(t.shadow_would_limit)} ${unit}`;
    card.chart = drawChart(card.chart, card.box, TRAFFIC_SERIES, chartData(view, p.series, 4, seconds));
    root.append(card.node);
  }
}

/** Per policy with limited hits: the keys most limited right now and over the hour. */
export function renderTopKeys(root, view, lookUp) {
  const limited = view.policies.filter((p) => p.top_hour.total > 0);
  if (limited.length === 0) return root.replaceChildren(el("p", { class: "muted" }, "No key was limited in the last hour."));
  root.replaceChildren(
    ...limited.map((p) =>
      el(
        "div",
        { class: "policy" },
        el("h3", {}, policyLabel(p)),
        el("div", { class: "grid" }, topTable("Right now", p.top_now, p.domain, lookUp), topTable("Last hour", p.top_hour, p.domain, lookUp)),
      ),
    ),
  );
}

function topTable(title, top, domain, lookUp) {
  const bound = top.error > 0 ? ` (each count may be up to ${num(top.error)} low)` : "";
  const rows = top.keys.map((k) =>
    el(
      "tr",
      { class: "key-row" },
      el("td", { class: "key" }, k.key),
      el("td", { class: "num" }, k.max > k.count ? `${num(k.count)}–${num(k.max)}` : num(k.count)),
      el("td", {}, el("button", { class: "link", type: "button", onclick: () => lookUp(domain, k.key) }, "look up")),
    ),
  );
  if (rows.length === 0) rows.push(el("tr", {}, el("td", { colspan: "3", class: "muted" }, "none")));
  return el(
    "div",
    {},
    el("h4", {}, `${title}: ${num(top.total)} limited hits${bound}`),
    el(
      "table",
      { class: "top-table" },
      el("thead", {}, el("tr", {}, el("th", {}, "Key"), el("th", { class: "num" }, "Limited hits"), el("th", {}))),
      el("tbody", {}, ...rows),
    ),
  );
}

/** Rule health: the four lists and the failure-mode chart. */
export function renderHealth(root, health, view, seconds) {
  const f = health.failure_mode;
  const share = `${num(health.limited_share * 100)} %`;
  root.replaceChildren(
    healthList("Rules that matched nothing", health.unmatched, () => "no hits", "warn"),
    healthList(
      `Rules limiting more than ${share} of their hits (at least ${num(health.min_hits)} hits)`,
      health.limiting_too_much,
      (p) => `${num(p.share * 100)} % limited (${num(p.limited)} of ${num(p.hits)} hits)`,
    ),
    healthList(
      "Shadow rules that would have limited",
      health.shadow_would_limit,
      (p) => `${num(p.shadow_would_limit)} of ${num(p.hits)} hits would have been limited`,
    ),
    el("h3", {}, "Failure-mode decisions"),
    el(
      "p",
      { class: f.open + f.closed > 0 ? "error" : "ok" },
      `${num(f.open)} failure-open, ${num(f.closed)} failure-closed (counters could not be reached in time)`,
    ),
  );
  failuresChart = drawChart(failuresChart, document.getElementById("failures-chart"), FAILURE_SERIES, chartData(view, view.failures.series, 2, seconds));
}

function healthList(title, items, describe, level = "error") {
  const body =
    items.length === 0 ? el("p", { class: "ok" }, "None.") : el("ul", { class: level }, ...items.map((p) => el("li", {}, `${policyLabel(p)}: ${describe(p)}`)));
  return el("div", { class: "health-list" }, el("h3", {}, `${title} (${items.length})`), body);
}
