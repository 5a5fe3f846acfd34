/**
 * The cost model: what floodgate's counter objects did per request in a
 * scenario (counted by the bench build's tally, bench/workers/usage.ts), and
 * what a million such requests cost at Cloudflare's published prices.
 *
 * Prices: Workers Paid past the included amounts, from lib/prices.mjs
 * (where they are written once, with the pages and the date read).
 */
import { PRICES as PUBLISHED } from "./prices.mjs";

export const PRICES = {
  asOf: PUBLISHED.readOn,
  workerRequestPerM: PUBLISHED.paid.perMillion.workerRequests,
  objectRequestPerM: PUBLISHED.paid.perMillion.objectRequests,
  rowsReadPerM: PUBLISHED.paid.perMillion.rowsRead,
  rowsWrittenPerM: PUBLISHED.paid.perMillion.rowsWritten,
  gbSecondPerM: PUBLISHED.paid.perMillion.gbSeconds,
  objectGb: PUBLISHED.objectGb,
};

/**
 * Usage between two tallies.
 *
 * @example
 * usageDelta({ calls: 1 }, { calls: 5 }); // { calls: 4, ... }
 */
export function usageDelta(before, after) {
  return Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - (before[k] ?? 0)]));
}

/**
 * Per-request figures and dollars per million requests for one target's
 * measured runs (each with `requests`, `usage` and its load seconds).
 * Duration is an upper bound: every object started in the run, billed
 * for the whole run.
 *
 * @example
 * costOf([{ requests: 1000, seconds: 1, usage: { calls: 1000, alarms: 2, rowsRead: 0, rowsWritten: 3, objects: 1 } }]);
 */
export function costOf(runs, settled) {
  const counted = runs.filter((r) => r.usage);
  if (counted.length === 0) return undefined;
  const sum = (f) => counted.reduce((n, r) => n + f(r), 0);
  const requests = sum((r) => r.requests);
  const per = (key) => sum((r) => r.usage[key]) / requests;
  const gbSeconds = sum((r) => r.usage.objects * r.seconds * PRICES.objectGb);
  const callsPerRequest = per("calls");
  const alarmsPerRequest = per("alarms");
  const rowsWrittenPerRequest = per("rowsWritten");
  const rowsReadPerRequest = per("rowsRead");
  const dollarsPerM =
    PRICES.workerRequestPerM +
    (callsPerRequest + alarmsPerRequest) * PRICES.objectRequestPerM +
    rowsReadPerRequest * PRICES.rowsReadPerM +
    rowsWrittenPerRequest * PRICES.rowsWrittenPerM +
    (gbSeconds / requests) * PRICES.gbSecondPerM;
  return {
    requests,
    callsPerRequest,
    alarmsPer1000: alarmsPerRequest * 1000,
    rowsWrittenPer1000: rowsWrittenPerRequest * 1000,
    rowsReadPer1000: rowsReadPerRequest * 1000,
    objects: Math.max(...counted.map((r) => r.usage.objects)),
    dollarsPerMillion: dollarsPerM,
    ...(settled ? settledCost(settled, requests, rowsWrittenPerRequest, dollarsPerM) : {}),
  };
}

/** Rows written per 1,000 requests once settled, and the dollars per million with them instead of the rows counted in the runs. */
function settledCost(settled, requests, rowsWrittenPerRequest, dollarsPerM) {
  const perRequest = settled.rowsWritten / requests;
  return {
    settledRowsWrittenPer1000: perRequest * 1000,
    settledDollarsPerMillion: dollarsPerM + (perRequest - rowsWrittenPerRequest) * PRICES.rowsWrittenPerM,
  };
}

/**
 * How long after a key scan's last run the bench waits before reading the
 * rows written: past the counter objects' QUIET_WRITE_MS (5 s,
 * src/durable/counters/counter-object.ts), when a quiet object spills the small
 * counters its checkpoints left unwritten.
 */
export const SETTLE_MS = 11_500;

/**
 * Whether a scenario's rows written are also read once settled: a key scan
 * on checkpointed windows (5 s or longer), whose counters of one hit
 * are written only by paging out or once the object goes quiet, and may be
 * between the measured runs, where no run's tally sees them.
 *
 * @example
 * settles({ keys: { kind: "scan" }, limit: { windowMs: 60_000 } }); // true
 */
export function settles(scenario) {
  return scenario.keys.kind === "scan" && scenario.limit.windowMs >= 60_000;
}

/**
 * The usage of floodgate's objects from the start of its first measured run
 * (`first`) to SETTLE_MS after the scenario's last run: with the writes that
 * fell between runs or came after the load stopped.
 *
 * @example
 * const settled = await settledUsage(firstUsage, () => usageOf(floodgateTarget), log);
 */
export async function settledUsage(first, read, log) {
  if (first === undefined) return undefined;
  log(`  waiting ${SETTLE_MS / 1000} s for the objects' writes after the load (quiet objects spill their unwritten counters)`);
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  return usageDelta(first, await read());
}

/**
 * The peer as its code works (bench/workers/peer-worker.ts): one object call
 * and one stored write per request, rejected ones included. Modeled, not
 * counted: its store uses the key-value API, whose rows the bench cannot see.
 */
export const PEER_COST = {
  callsPerRequest: 1,
  rowsWrittenPer1000: 1000,
  dollarsPerMillion: PRICES.workerRequestPerM + PRICES.objectRequestPerM + PRICES.rowsReadPerM + PRICES.rowsWrittenPerM,
};

const fmt = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : "–");

/**
 * The cost table in Markdown, and the capacity model under it.
 *
 * @example
 * console.log(printCost(results));
 */
export function printCost(results) {
  const rows = [];
  for (const s of results.scenarios ?? []) {
    for (const [id, t] of Object.entries(s.targets)) {
      if (!t.cost) continue;
      const title = id === "floodgate" ? s.title : `↳ ${id}`;
      rows.push(
        `| ${title} | ${fmt(t.cost.callsPerRequest, 3)} | ${fmt(t.cost.rowsWrittenPer1000, 1)} | ${fmt(t.cost.rowsReadPer1000, 1)} | ${fmt(t.cost.alarmsPer1000, 1)} | $${fmt(t.cost.dollarsPerMillion, 3)} | $${fmt(PEER_COST.dollarsPerMillion, 3)} |`,
      );
    }
  }
  if (rows.length === 0) return "";
  const lines = [
    `Cost per request (counted in this run; prices read ${PRICES.asOf}: bench/lib/prices.mjs):`,
    "",
    "| scenario | object calls / request | rows written / 1,000 req | rows read / 1,000 req | alarms / 1,000 req | $ per 1M requests | peer $ per 1M (1 call + 1 row per request) |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
  ];
  const settledRows = (results.scenarios ?? []).filter((s) => s.targets.floodgate?.cost?.settledRowsWrittenPer1000 !== undefined);
  if (settledRows.length > 0) {
    lines.push(
      "",
      `Key scans once settled: the rows written from floodgate's first measured run to ${SETTLE_MS / 1000} s after its last (writes between runs and after the load included), per 1,000 measured requests:`,
      "",
      "| scenario | rows written / 1,000 req, settled | $ per 1M requests, settled |",
      "| --- | --- | --- |",
      ...settledRows.map(
        (s) => `| ${s.title} | ${fmt(s.targets.floodgate.cost.settledRowsWrittenPer1000, 1)} | $${fmt(s.targets.floodgate.cost.settledDollarsPerMillion, 3)} |`,
      ),
    );
  }
  const hot = results.scenarios.find((s) => s.id === "hot-key-open")?.targets.floodgate;
  const recurring = results.scenarios.find((s) => s.id === "recurring-1m")?.targets.floodgate;
  if (hot?.cost) {
    lines.push(
      "",
      `Capacity: one counter object took ${Math.round(hot.rps)} decisions/s here (one hot key, all on one object) in ${Math.round(hot.rps * hot.cost.callsPerRequest)} calls/s.`,
    );
  }
  if (recurring?.cost) {
    const perRequest = recurring.cost.callsPerRequest;
    lines.push(
      `With ${fmt(perRequest, 3)} object calls per request (1,000 recurring keys, sharded) and Cloudflare's documented soft limit of about 1,000 requests/s per object, a domain needs shards ≥ rate × ${fmt(perRequest, 3)} / 1,000:`,
      "",
      "| requests/s | shards needed |",
      "| --- | --- |",
      ...[1_000, 10_000, 100_000, 1_000_000].map((rate) => `| ${rate.toLocaleString("en-US")} | ${Math.max(1, Math.ceil((rate * perRequest) / 1_000))} |`),
    );
  }
  return lines.join("\n");
}
