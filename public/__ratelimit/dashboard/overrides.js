// Overrides panel: the overrides of one domain (GET /__ratelimit/overrides),
// listed on demand (docs/dashboard.md, "Overrides"). Its own module, so
// other panels are untouched.
import { api } from "./api.js";
import { el } from "./dom.js";

const $ = (id) => document.getElementById(id);

/** The rate an override's `rate_limit` sets, for people. */
function rateText(limit) {
  if (limit.unlimited === true) return "unlimited";
  if (limit.concurrency !== undefined) return `${limit.concurrency} at once`;
  const per = limit.unit_multiplier > 1 ? `${limit.unit_multiplier} ${limit.unit}s` : limit.unit;
  return `${limit.requests_per_unit} per ${per}${limit.algorithm ? ` (${limit.algorithm})` : ""}`;
}

/** List the overrides of the domain in the form. */
export async function listOverrides() {
  const domain = $("overrides-domain").value.trim();
  const out = $("overrides-result");
  if (domain === "") return out.replaceChildren(el("p", { class: "error" }, "Give a domain."));
  try {
    const { overrides } = await api(`overrides?domain=${encodeURIComponent(domain)}`);
    if (overrides.length === 0) return out.replaceChildren(el("p", { class: "muted" }, `No overrides in ${domain}.`));
    out.replaceChildren(
      el(
        "table",
        { class: "overrides-table" },
        el("thead", {}, el("tr", {}, ...["Descriptor", "Limit", "Expires", "Note"].map((h) => el("th", {}, h)))),
        el(
          "tbody",
          {},
          ...overrides.map((o) =>
            el(
              "tr",
              o.expired ? { class: "expired" } : {},
              el("td", { class: "key" }, o.descriptor),
              el("td", {}, rateText(o.rate_limit)),
              el("td", {}, o.expires_at === null ? "never" : `${o.expires_at}${o.expired ? " (expired)" : ""}`),
              el("td", {}, o.note ?? ""),
            ),
          ),
        ),
      ),
    );
  } catch (error) {
    out.replaceChildren(el("p", { class: "error" }, error.message));
  }
}

$("overrides-form").addEventListener("submit", (event) => {
  event.preventDefault();
  listOverrides();
});
