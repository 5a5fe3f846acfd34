/**
 * The bench's output: Markdown tables on stdout (pasteable into
 * bench/README.md as they are) and a hand-drawn SVG bar chart of throughput as a share of
 * the bare worker.
 */
import { FLOODGATE_VARIANTS } from "../scenarios.ts";

const int = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "—");
const ms = (n) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(1) : Math.round(n).toString()) : "—");
const ratio = (n) => (Number.isFinite(n) ? (n >= 10 ? `${n.toFixed(0)}×` : n >= 1 ? `${n.toFixed(1)}×` : `${n.toFixed(2)}×`) : "—");
const pct = (n, digits = 2) => (Number.isFinite(n) ? `${n.toFixed(digits)} %` : "—");
/**
 * CPU µs per request as "median (min–max)" over rounds.
 *
 * @example
 * cpuCell({ cpuUsPerRequest: 412.3, cpuUsPerRequestMin: 380, cpuUsPerRequestMax: 451.2 }); // "412 (380–451)"
 */
export const cpuCell = (t) =>
  t && Number.isFinite(t.cpuUsPerRequest)
    ? t.cpuUsPerRequestMin === t.cpuUsPerRequestMax
      ? int(t.cpuUsPerRequest)
      : `${int(t.cpuUsPerRequest)} (${int(t.cpuUsPerRequestMin)}–${int(t.cpuUsPerRequestMax)})`
    : "—";

/**
 * A CPU ratio as "median× (min–max)" over rounds, from `t[name]`, `t[name + "Min"]` and `t[name + "Max"]`.
 *
 * @example
 * cpuRatioCell({ cpuToBare: 1.52, cpuToBareMin: 1.4, cpuToBareMax: 1.61 }, "cpuToBare"); // "1.52× (1.40–1.61)"
 */
export const cpuRatioCell = (t, name) => {
  const [m, lo, hi] = [t?.[name], t?.[`${name}Min`], t?.[`${name}Max`]];
  if (!Number.isFinite(m)) return "—";
  return lo === hi ? `${m.toFixed(2)}×` : `${m.toFixed(2)}× (${lo.toFixed(2)}–${hi.toFixed(2)})`;
};

const bytes = (n) => (n >= 10_000 ? `${(n / 1024).toFixed(0)} KiB` : `${Math.round(n)} B`);

/**
 * A Markdown table from a header row and data rows.
 *
 * @example
 * markdownTable(["a", "b"], [[1, 2]]); // "| a | b |\n|---|---|\n| 1 | 2 |"
 */
export function markdownTable(header, rows) {
  const line = (cells) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

const variantTitle = (id) => FLOODGATE_VARIANTS.find((v) => v.id === id)?.title ?? id;

/** Notes for one floodgate row: hot-key exactness, floodgate over a variant or baseline, failures. */
function notes(scenario, id) {
  const t = scenario.targets[id];
  const out = [];
  const exact = scenario.exactness?.[id];
  if (exact) out.push(`${exact.verdict} (allowed ${exact.allowed.join(", ")} of ${exact.limit}; peer: ${scenario.exactness.peer.verdict})`);
  if (Number.isFinite(t.floodgateOverThis))
    out.push(`floodgate ${t.floodgateOverThis.toFixed(2)}× this (rounds ${t.floodgateOverThisRounds.map((r) => r.toFixed(2)).join(", ")})`);
  if (Number.isFinite(t.floodgateCpuOverThis)) out.push(`floodgate's CPU per request ${cpuRatioCell(t, "floodgateCpuOverThis")} this`);
  if (t.failOpen > 0) out.push(`${t.failOpen} failed open`);
  if (t.errors > 0) out.push(`${t.errors} errors`);
  return out.join("; ") || "";
}

/**
 * The throughput table: one row per scenario (and per floodgate variant),
 * with each side's CPU per request (its own workerd's) and the row's CPU
 * over bare's and the peer's.
 *
 * @example
 * console.log(throughputTable(results.scenarios));
 */
export function throughputTable(scenarios) {
  const rows = [];
  for (const s of scenarios) {
    const baselines = s.baselines ?? [];
    const ids = Object.keys(s.targets).filter((id) => id === "floodgate" || FLOODGATE_VARIANTS.some((v) => v.id === id) || baselines.some((b) => b.id === id));
    for (const id of ids) {
      const t = s.targets[id];
      const baseline = baselines.find((b) => b.id === id);
      rows.push([
        id === "floodgate" ? s.title : `↳ ${baseline ? `${baseline.title} (${baseline.path})` : variantTitle(id)}`,
        int(t.rps),
        ms(t.p50Ms),
        ms(t.p99Ms),
        ratio(t.toBare),
        ratio(t.toPeer),
        cpuCell(t),
        cpuRatioCell(t, "cpuToBare"),
        cpuRatioCell(t, "cpuToPeer"),
        int(s.targets.bare.rps),
        cpuCell(s.targets.bare),
        int(s.targets.peer.rps),
        ms(s.targets.peer.p99Ms),
        cpuCell(s.targets.peer),
        pct(t.limitedPercent, 0),
        notes(s, id),
      ]);
    }
  }
  return markdownTable(
    [
      "scenario",
      "floodgate req/s",
      "p50 ms",
      "p99 ms",
      "× bare",
      "× peer",
      "CPU µs/req",
      "CPU ÷ bare",
      "CPU ÷ peer",
      "bare req/s",
      "bare CPU µs/req",
      "peer req/s",
      "peer p99 ms",
      "peer CPU µs/req",
      "429s",
      "notes",
    ],
    rows,
  );
}

/** How far away a target's counter objects are, each way, in ms: a `floodgate-rtt-*` variant's BENCH_RTT_MS, 0 for floodgate. */
function objectsAwayMs(id) {
  if (id === "floodgate") return 0;
  const ms = Number(FLOODGATE_VARIANTS.find((v) => v.id === id)?.vars.BENCH_RTT_MS);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * The round trip, from the scenarios that load the `floodgate-rtt-*`
 * variants (those with a `roundTrip` label: strong mode and pre-counting on
 * one hot key): per scenario, the bare pass-through and floodgate with its
 * objects 0, 25 and 100 ms away each way, as measured in its rounds.
 *
 * @example
 * roundTrip(results.scenarios);
 * // [{ scenario: "hot-key-open", mode: "strong mode", bare: { rps: 2982, p50Ms: 16, p99Ms: 80, toBare: 1 },
 * //    away: [{ ms: 0, target: "floodgate", rps: 2508, p50Ms: 19, p99Ms: 90, toBare: 0.75 }, { ms: 25, … }, { ms: 100, … }] }, …]
 */
export function roundTrip(scenarios) {
  const figures = (t) => ({ rps: t.rps, p50Ms: t.p50Ms, p99Ms: t.p99Ms, toBare: t.toBare, realizedRoundTripMs: t.realizedRoundTripMs });
  return scenarios
    .filter((s) => s.roundTrip)
    .map((s) => ({
      scenario: s.id,
      mode: s.roundTrip,
      bare: figures(s.targets.bare),
      away: Object.keys(s.targets)
        .filter((id) => objectsAwayMs(id) !== undefined)
        .map((id) => ({ ms: objectsAwayMs(id), target: id, ...figures(s.targets[id]) }))
        .sort((a, b) => a.ms - b.ms),
    }));
}

/**
 * The "Round trip" table: one row per distance to the objects (and one for
 * the bare pass-through), one group of columns per scenario, side by side.
 *
 * @example
 * console.log(roundTripTable(results.roundTrip));
 */
export function roundTripTable(trips) {
  // p50 over the bare worker's plus one round trip: the nominal one (2 × each way) and the one the calls really waited.
  const over = (f, bare, tripMs) => (f && bare && tripMs !== undefined && f.ms > 0 ? ms(f.p50Ms - bare.p50Ms - tripMs) : "—");
  const cells = (f, bare) =>
    f
      ? [
          int(f.rps),
          ms(f.p50Ms),
          ms(f.p99Ms),
          ratio(f.toBare),
          f.realizedRoundTripMs !== undefined && f.ms > 0 ? ms(f.realizedRoundTripMs) : "—",
          over(f, bare, f.ms === undefined ? undefined : 2 * f.ms),
          over(f, bare, f.realizedRoundTripMs),
        ]
      : ["—", "—", "—", "—", "—", "—", "—"];
  const distances = [...new Set(trips.flatMap((t) => t.away.map((a) => a.ms)))].sort((a, b) => a - b);
  const rows = [
    ["bare pass-through (no objects)", ...trips.flatMap((t) => cells(t.bare))],
    ...distances.map((d) => [
      `objects ${d} ms away`,
      ...trips.flatMap((t) =>
        cells(
          t.away.find((a) => a.ms === d),
          t.bare,
        ),
      ),
    ]),
  ];
  const header = [
    "each way",
    ...trips.flatMap((t) => [
      `${t.mode}: req/s`,
      "p50 ms",
      "p99 ms",
      "× bare",
      "realized round trip ms",
      "p50 over bare + 2 × each way",
      "p50 over bare + realized",
    ]),
  ];
  const where = trips.map((t) => `${t.mode}: ${t.scenario}`).join("; ");
  return `Round trip: one hot key, every request allowed, counter objects delayed by BENCH_RTT_MS each way (bench/workers/round-trip.ts); each column group in its own scenario's rounds (${where}):\n\n${markdownTable(header, rows)}`;
}

/**
 * The decomposition table: the probes next to bare and floodgate, same keys, same rounds.
 *
 * @example
 * console.log(probeTable(results));
 */
export function probeTable(results) {
  const host = results.scenarios.find((s) => results.probes.some((p) => s.targets[p.id]));
  if (!host) return "";
  const row = (title, t) => [title, int(t.rps), ms(t.p50Ms), ms(t.p99Ms), ratio(t.toBare), cpuCell(t), cpuRatioCell(t, "cpuToBare")];
  const rows = [row("bare pass-through worker (forwards to the origin)", host.targets.bare)];
  for (const p of results.probes) if (host.targets[p.id]) rows.push(row(p.title, host.targets[p.id]));
  rows.push(row(`floodgate, ${host.title}`, host.targets.floodgate));
  const minute = results.scenarios.find((s) => s.id === host.id.replace(/-1s$/, "-1m"));
  if (minute) rows.push(row(`floodgate, ${minute.title} (its own rounds)`, minute.targets.floodgate));
  return `Where the time goes (${host.title}):\n\n${markdownTable(["configuration", "req/s", "p50 ms", "p99 ms", "× bare", "CPU µs/req", "CPU ÷ bare"], rows)}`;
}

/**
 * One accuracy table per trace.
 *
 * @example
 * console.log(accuracyTables(results.accuracy));
 */
export function accuracyTables(accuracy) {
  return accuracy
    .map((a) => {
      const t = a.trace;
      const head =
        `Accuracy, trace "${a.name}" (${a.description}): ${int(t.requests)} requests over ${int(t.keys)} keys in ${t.durationMs / 60_000} min, seed ${t.seed}; ` +
        `limit ${a.limit} per ${a.windowMs / 1000} s (burst ${a.burst}); the exact oracle rejects ${pct(100 - t.oracleAllowedPercent, 1)} of requests.`;
      const rows = a.rows.map((r) => [
        r.algorithm,
        pct(r.falseAllowsPercent, 3),
        pct(r.falseDeniesPercent, 3),
        pct(r.wrongPercent, 3),
        pct(r.wrongOwnHistoryPercent, 3),
        r.worstOvershoot === 0 ? "0" : `+${r.worstOvershoot} (${pct(r.worstOvershootPercentOfLimit, 0)})`,
      ]);
      const swc = a.rows.find((r) => r.algorithm === "sliding_window_counter");
      const tail = `sliding_window_counter: ${pct(swc.wrongPercent, 3)} of requests decided differently from the oracle here; Cloudflare reported ${a.cloudflareWrongPercent} % on 400 M real requests.`;
      return `${head}\n\n${markdownTable(["algorithm", "false allows", "false denies", "wrong (total)", "wrong given its own history", "worst window vs limit"], rows)}\n\n${tail}`;
    })
    .join("\n\n");
}

/**
 * The memory tables: per algorithm at a limit of 100, and growth with the limit.
 *
 * @example
 * console.log(memoryTables(results.memory));
 */
export function memoryTables(memory) {
  const per = markdownTable(
    ["algorithm", "state JSON", "heap per state", "heap per tracked key", "SQLite per stored counter"],
    memory.perAlgorithm.map((r) => [r.algorithm, bytes(r.json), bytes(r.heapState), bytes(r.heapPerKey), bytes(r.sqlitePerCounter)]),
  );
  const limits = [...new Set(memory.growth.map((g) => g.limit))];
  const names = [...new Set(memory.growth.map((g) => g.algorithm))];
  const growth = markdownTable(
    ["algorithm", ...limits.map((l) => `limit ${int(l)}: JSON / heap / SQLite`)],
    names.map((name) => [
      name,
      ...limits.map((l) => {
        const g = memory.growth.find((x) => x.algorithm === name && x.limit === l);
        return `${bytes(g.json)} / ${bytes(g.heapState)} / ${bytes(g.sqlitePerCounter)}`;
      }),
    ]),
  );
  const first = memory.perAlgorithm[0];
  return (
    `Memory per key (limit ${first.limit} per ${memory.windowMs / 1000} s, ${first.hits} hits in the window, ${int(memory.keys)} keys measured):\n\n${per}\n\n` +
    `Growth with the limit (a full window: limit hits at distinct ms):\n\n${growth}`
  );
}

/**
 * Everything, to stdout.
 *
 * @example
 * printReport(results);
 */
export function printReport(results) {
  const e = results.environment;
  const s = results.settings;
  console.log(
    `\nfloodgate bench — ${e.cpu}, ${e.cores} cores, ${e.memoryGiB} GiB, ${e.os}; node ${e.node}, workerd ${e.workerd}, ${e.loadClient}; commit ${e.commit}${e.dirtyTree ? " + uncommitted changes" : ""}`,
  );
  if (results.scenarios) {
    console.log(`${s.rounds} round(s) × ${s.seconds} s per target, ${s.connections} connections; medians; ratios taken round by round.`);
    console.log(
      "CPU µs/req: the CPU (user + system) of the target's own workerd from its load's start until idle again, over the requests served; median (min–max) over rounds; CPU ÷ bare and ÷ peer: this target's over theirs, round by round.",
    );
    const b = results.background;
    if (b) {
      console.log(
        `Other processes used a median ${b.medianPercent.toFixed(1)} % (max ${b.maxPercent.toFixed(0)} %) of the CPU during the loads; ${b.repeatedRuns} run(s) repeated for exceeding ${b.thresholdPercent} %.`,
      );
      if (b.serverBusyWaitSeconds !== undefined)
        console.log(
          `Runs started only with workerd idle (< ${b.serverIdleCpuMaxPercent} % of a core with no load): ${b.serverBusyWaitSeconds} s spent waiting for earlier runs' deferred work (alarms)${b.patienceLeftSeconds === 0 ? "; patience ran out, so some runs started anyway" : ""}.`,
        );
      if (b.runsOverThreshold > 0)
        console.log(
          `WARNING: ${b.runsOverThreshold} run(s) still shared the machine with other work (> ${b.thresholdPercent} %): their absolute figures are low; ratios suffer less.`,
        );
    }
    console.log("");
    console.log(throughputTable(results.scenarios));
    if (results.roundTrip?.length) console.log(`\n${roundTripTable(results.roundTrip)}`);
    const probes = probeTable(results);
    if (probes) console.log(`\n${probes}`);
  }
  if (results.accuracy) console.log(`\n${accuracyTables(results.accuracy)}`);
  if (results.memory) console.log(`\n${memoryTables(results.memory)}`);
  console.log("");
}

const escapeXml = (text) => String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * A horizontal bar chart of throughput as a share of the bare worker, per
 * scenario: floodgate (and variants) and the peer, with the 0.3× target.
 *
 * @example
 * writeFileSync("bench/results.svg", renderSvg(results));
 */
export function renderSvg(results) {
  const series = [
    { id: "floodgate", label: "floodgate", color: "#2563eb" },
    ...FLOODGATE_VARIANTS.map((v, i) => ({ id: v.id, label: v.title, color: ["#7c3aed", "#0891b2", "#65a30d"][i % 3] })),
    { id: "peer", label: "hono-rate-limiter + DurableObjectStore", color: "#f97316" },
  ];
  const label = 330;
  const plot = 520;
  const bar = 13;
  const gap = 12;
  const top = 74;
  const groups = results.scenarios.map((s) => ({ s, bars: series.filter((x) => s.targets[x.id]) }));
  const height = top + groups.reduce((h, g) => h + g.bars.length * bar + gap, 0) + 46;
  const width = label + plot + 110;
  const max = Math.max(1, ...groups.flatMap((g) => g.bars.map((b) => g.s.targets[b.id].toBare)));
  const x = (v) => label + (plot * v) / max;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="600">Throughput as a share of a bare pass-through worker (1× = bare; same workerd, same origin, same load, same run)</text>`,
    `<text x="12" y="40" fill="#555">${escapeXml(`${results.environment.cpu}, ${results.environment.cores} cores; workerd ${results.environment.workerd}; ${results.settings.connections} connections; median of ${results.settings.rounds} round(s)`)}</text>`,
  ];
  // Legend entries side by side, each as wide as its label (about 6.5 px a character at 12 px).
  let legendX = 12;
  for (const entry of series) {
    out.push(`<rect x="${legendX}" y="50" width="10" height="10" fill="${entry.color}"/><text x="${legendX + 14}" y="59">${escapeXml(entry.label)}</text>`);
    legendX += 14 + entry.label.length * 6.5 + 18;
  }
  for (const tick of [0, 0.25, 0.5, 0.75, 1].filter((t) => t <= max)) {
    out.push(`<line x1="${x(tick)}" y1="${top - 6}" x2="${x(tick)}" y2="${height - 30}" stroke="#e5e7eb"/>`);
    out.push(`<text x="${x(tick)}" y="${height - 16}" text-anchor="middle" fill="#555">${tick}×</text>`);
  }
  out.push(`<line x1="${x(0.3)}" y1="${top - 6}" x2="${x(0.3)}" y2="${height - 30}" stroke="#dc2626" stroke-dasharray="4 3"/>`);
  out.push(`<text x="${x(0.3)}" y="${height - 4}" text-anchor="middle" fill="#dc2626">target 0.3×</text>`);
  let y = top;
  for (const g of groups) {
    out.push(`<text x="${label - 8}" y="${y + (g.bars.length * bar) / 2 + 4}" text-anchor="end">${escapeXml(g.s.title)}</text>`);
    for (const b of g.bars) {
      const t = g.s.targets[b.id];
      out.push(`<rect x="${label}" y="${y}" width="${Math.max(1, x(t.toBare) - label)}" height="${bar - 2}" fill="${b.color}"/>`);
      out.push(`<text x="${x(t.toBare) + 4}" y="${y + bar - 3}" fill="#333">${escapeXml(`${ratio(t.toBare)} (${int(t.rps)}/s)`)}</text>`);
      y += bar;
    }
    y += gap;
  }
  out.push(`</svg>`);
  return `${out.join("\n")}\n`;
}
