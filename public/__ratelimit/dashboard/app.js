// The dashboard page: asks for the admin token, then refreshes every panel
// from the admin API's JSON every few seconds (docs/dashboard.md).
import { Unauthorized, api, token } from "./api.js";
import { renderCandidates } from "./candidates.js";
import { fitCharts } from "./charts.js";
import { lookUpCounter } from "./lookup.js";
import { allCharts, renderHealth, renderTopKeys, renderTraffic } from "./panels.js";
import { renderTokens } from "./tokens.js";

const REFRESH_MS = 5000;
const $ = (id) => document.getElementById(id);
let timer;

function showDashboard(on) {
  $("token-form").hidden = on;
  $("dashboard").hidden = !on;
  $("signout").hidden = !on;
}

function signOut(message) {
  clearTimeout(timer);
  token.clear();
  showDashboard(false);
  $("status").textContent = "Not connected";
  $("token-error").textContent = message ?? "";
}

async function refresh() {
  clearTimeout(timer);
  // A hidden tab reads nothing; showing it again refreshes at once.
  if (document.hidden) return;
  try {
    const share = Number($("limited-share").value) / 100;
    const minHits = Number($("min-hits").value);
    const [view, health] = await Promise.all([api("traffic"), api(`health?limited_share=${share}&min_hits=${minHits}`)]);
    showDashboard(true);
    const seconds = Number($("range").value);
    renderTraffic($("traffic"), view, $("filter").value, seconds);
    renderTokens($("tokens"), view, seconds);
    renderTopKeys($("top-keys"), view, lookUp);
    renderHealth($("health"), health, view, seconds);
    renderCandidates($("candidates"), view);
    $("status").textContent = `Live · updated ${new Date().toLocaleTimeString()} · refreshes every ${REFRESH_MS / 1000} s`;
  } catch (error) {
    if (error instanceof Unauthorized) return signOut(error.message);
    $("status").textContent = `Refresh failed: ${error.message} (retrying)`;
  }
  timer = setTimeout(refresh, REFRESH_MS);
}

function lookUp(domain, key) {
  $("lookup-domain").value = domain;
  $("lookup-descriptor").value = key;
  // At once, not smoothly: a smooth scroll of the tall page slides the Reset button under the pointer for a
  // second or more (longer on a slow device), so a click made meanwhile lands elsewhere.
  $("lookup-panel").scrollIntoView({ behavior: "instant", block: "start" });
  lookUpCounter(false);
}

$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  token.set($("token").value);
  $("token").value = "";
  $("token-error").textContent = "";
  refresh();
});
$("signout").addEventListener("click", () => signOut());
$("health-form").addEventListener("change", refresh);
$("filter").addEventListener("input", refresh);
$("range").addEventListener("change", refresh);
$("lookup-form").addEventListener("submit", (event) => {
  event.preventDefault();
  lookUpCounter(false);
});
$("lookup-reset").addEventListener("click", () => lookUpCounter(true));
window.addEventListener("resize", () => fitCharts(allCharts()));
document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && token.get() && refresh());

if (token.get()) refresh();
