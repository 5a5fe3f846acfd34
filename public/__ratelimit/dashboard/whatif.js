// The what-if panel and the advice per policy (docs/advisor.md, "What-if panel"):
// proposed rules posted to /__ratelimit/replay, the report shown as a table;
// invalid rules show every error at its path, as rules:check prints them.
import { token } from "./api.js";
import { el, num } from "./dom.js";

const $ = (id) => document.getElementById(id);

/** POST the rules text to /__ratelimit/replay: the report, or the problem answer's errors. */
async function replay(text) {
  const res = await fetch("/__ratelimit/replay", {
    method: "POST",
    headers: { authorization: `Bearer ${token.get()}`, "content-type": "application/json" },
    body: text,
    cache: "no-store",
  });
  const body = await res.json().catch(() => null);
  if (res.ok) return { report: body };
  return { errors: body?.errors ?? [], detail: body?.detail ?? `POST /__ratelimit/replay answered ${res.status}` };
}

function windowText(ms) {
  for (const [size, unit] of [
    [86_400_000, "d"],
    [3_600_000, "h"],
    [60_000, "m"],
    [1000, "s"],
  ])
    if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

/** One limit's advice in words; the suggestion always names its percentile. */
export function adviceText(l) {
  const a = l.advice;
  if (l.requests === 0) return "no sampled request met it";
  const parts = [];
  if (a.never_fires) parts.push("never fires");
  parts.push(`${num(a.keys_hit_pct)} % of ${num(a.keys)} active keys hit it`);
  if (a.legitimate_refused + a.abusive_refused > 0) parts.push(`refused keys: ${num(a.legitimate_refused)} look legitimate, ${num(a.abusive_refused)} abusive`);
  if (a.suggested_limit)
    parts.push(
      `suggested ${num(a.suggested_limit.value)}/${windowText(l.window_ms)} (p${a.suggested_limit.percentile} of per-key peak, ${num(a.suggested_limit.keys)} keys)`,
    );
  return parts.join("; ");
}

const figures = (f) => `${num(f.refusals)} (${num(f.refused_pct)} %)`;

/** The report as a summary and one table row per limit. */
export function reportView(report) {
  const undecidable = report.undecidable.reduce((n, u) => n + u.count, 0);
  const rows = report.limits.map((l) =>
    el(
      "tr",
      { class: "whatif-row" },
      el(
        "td",
        {},
        `${l.domain} · ${l.name}`,
        el("br"),
        el("small", {}, `${l.algorithm} ${num(l.limit)}/${windowText(l.window_ms)}${l.shadow ? " · shadow" : ""}`),
      ),
      el("td", { class: "num" }, num(l.requests)),
      el("td", { class: "num" }, figures(l)),
      el("td", { class: "num" }, num(l.keys_refused)),
      el("td", { class: "num" }, l.in_force ? figures(l.in_force) : "not in force"),
      el("td", { class: "num" }, l.refusals_change === null ? "" : l.refusals_change > 0 ? `+${num(l.refusals_change)}` : num(l.refusals_change)),
      // Candidate limits (a `candidate` beside a live limit) side by side, when the rules have them.
      el("td", { class: "num" }, l.candidate ? figures(l.candidate) : ""),
      el("td", { class: l.advice.never_fires ? "warn advice" : "advice" }, adviceText(l)),
    ),
  );
  return el(
    "div",
    {},
    el(
      "p",
      { class: "muted whatif-summary" },
      `${num(report.sample_rows ?? 0)} sampled requests; ${num(report.replayed)} descriptors replayed, ${num(report.not_sampled)} not sampled, ${num(undecidable)} undecidable. ` +
        `The rules in force reproduce ${num(report.reproduced.matching)} of ${num(report.reproduced.of)} live decisions. ` +
        `Proposed vs in force: ${num(report.newly_refused)} newly refused, ${num(report.newly_allowed)} newly allowed.`,
    ),
    el(
      "table",
      { class: "whatif-table" },
      el(
        "thead",
        {},
        el("tr", {}, ...["Limit", "Requests", "Refused", "Keys refused", "In force", "Change", "Candidate", "Advice"].map((h) => el("th", {}, h))),
      ),
      el("tbody", {}, ...rows),
    ),
    ...report.dropped.map((d) => el("p", { class: "warn" }, `${d.domain} · ${d.name}: in force, dropped by these rules (it refused ${figures(d)})`)),
  );
}

function errorsView(result) {
  return el(
    "div",
    { class: "whatif-errors" },
    el("p", { class: "error" }, result.detail),
    el("ul", { class: "error" }, ...result.errors.map((e) => el("li", {}, `${e.path}: ${e.message}`))),
  );
}

async function runWhatIf(event) {
  event.preventDefault();
  const out = $("whatif-result");
  out.replaceChildren(el("p", { class: "muted" }, "Replaying…"));
  try {
    const result = await replay($("whatif-rules").value);
    out.replaceChildren(result.report ? reportView(result.report) : errorsView(result));
  } catch (error) {
    out.replaceChildren(el("p", { class: "error" }, error.message));
  }
}

async function rulesInForce() {
  const res = await fetch("/__ratelimit/rules", { headers: { authorization: `Bearer ${token.get()}` }, cache: "no-store" });
  if (!res.ok) throw new Error(`GET /__ratelimit/rules answered ${res.status}`);
  return JSON.stringify((await res.json()).rules, null, 2);
}

/** Advice next to each policy: the rules in force replayed against the sample. */
async function loadAdvice() {
  const out = $("advice");
  try {
    const result = await replay(await rulesInForce());
    if (!result.report) return out.replaceChildren(errorsView(result));
    out.replaceChildren(
      el(
        "ul",
        { class: "advice-list" },
        ...result.report.limits.map((l) => el("li", { class: l.advice.never_fires ? "warn" : "" }, `${l.domain} · ${l.name}: ${adviceText(l)}`)),
      ),
    );
  } catch (error) {
    out.replaceChildren(el("p", { class: "error" }, error.message));
  }
}

$("whatif-form").addEventListener("submit", runWhatIf);
$("whatif-current").addEventListener("click", async () => {
  $("whatif-rules").value = await rulesInForce().catch((error) => error.message);
});
$("advice-refresh").addEventListener("click", loadAdvice);
// The advice loads when the dashboard opens (the token accepted), not on every refresh: a replay is heavier than a read.
new MutationObserver(() => {
  if (!$("dashboard").hidden) loadAdvice();
}).observe($("dashboard"), { attributes: true, attributeFilter: ["hidden"] });
