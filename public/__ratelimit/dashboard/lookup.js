// Counter lookup and reset: the counters API (GET reads, DELETE resets).
import { api, counterQuery } from "./api.js";
import { el, num } from "./dom.js";

/** Read (or reset, then read) the counter in the form and show it. */
export async function lookUpCounter(reset) {
  const domain = document.getElementById("lookup-domain").value.trim();
  const descriptor = document.getElementById("lookup-descriptor").value.trim();
  const out = document.getElementById("lookup-result");
  if (domain === "" || descriptor === "") return out.replaceChildren(el("p", { class: "error" }, "Give a domain and a descriptor (key=value,key2=value2)."));
  try {
    const counter = await api(`counters?${counterQuery(domain, descriptor)}`, reset ? "DELETE" : "GET");
    out.replaceChildren(
      el("p", { class: reset ? "ok" : "muted" }, reset ? "Counter reset." : "Read without consuming."),
      counter.override
        ? el("p", { class: "override" }, `Override in force: ${counter.override.descriptor}${counter.override.note ? ` (${counter.override.note})` : ""}`)
        : null,
      el(
        "table",
        { class: "counter-table" },
        el("thead", {}, el("tr", {}, ...["Limit", "Algorithm", "Rate", "Remaining", "Resets in"].map((h) => el("th", {}, h)))),
        el(
          "tbody",
          {},
          ...counter.limits.map((l) =>
            el(
              "tr",
              {},
              el("td", {}, l.name),
              el("td", {}, l.algorithm),
              el("td", {}, `${num(l.requests_per_unit)} per ${l.unit_multiplier > 1 ? `${l.unit_multiplier} ` : ""}${l.unit}`),
              el("td", { class: "num remaining" }, num(l.remaining)),
              el("td", { class: "num" }, `${num(l.reset_after_seconds)} s`),
            ),
          ),
        ),
      ),
    );
  } catch (error) {
    out.replaceChildren(el("p", { class: "error" }, error.message));
  }
}
