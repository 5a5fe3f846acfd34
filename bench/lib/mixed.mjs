/**
 * The mixed run (bench/README.md, "Alone and mixed"): every scenario loaded
 * again, one after another, in one long-lived workerd, as production runs
 * one isolate for every kind of request, so a path that is fast alone but
 * slows once key scans and hot keys have passed through shows. Each
 * scenario's ratio to its physical limit (a bare worker forwarding, or
 * answering the same 429 at once) is taken in the same process, round by
 * round, alone and mixed, and printed side by side.
 */

/**
 * A `startServer` that starts its processes (`start()`: one long-lived
 * floodgate for every floodgate target, and one per baseline, lib/sides.mjs)
 * on its first call and hands the same ones to every later scenario (whose
 * `stop` leaves them running); `stop` on the result stops them for good.
 *
 * @example
 * const shared = oneProcess(() => startServer({ id: "mixed" }, everyTarget, { mixed: true }));
 * try { await runLoads(scenarios, shared.start, client, meta, { mixed: true }); } finally { await shared.stop(); }
 */
export function oneProcess(start) {
  let server;
  return {
    start: async () => {
      server ??= await start();
      return { ...server, stop: async () => {} };
    },
    stop: async () => {
      const last = server;
      server = undefined;
      await last?.stop();
    },
  };
}

/**
 * Which targets a scenario loads in the mixed process: floodgate on the one
 * floodgate worker (per-key scenarios too: production has no isolate of
 * their own), its baselines and the probes; the peer too unless `quick`
 * (keeping the quick run short). Variants are other workers, so they are
 * left to the alone runs.
 *
 * @example
 * mixedTargets(targetsOf(scenario), scenario, false);
 */
export function mixedTargets(targets, scenario, quick) {
  const variants = new Set(scenario.variants ?? []);
  return targets.filter((t) => !variants.has(t.id) && !(quick && t.id === "peer")).map((t) => (t.id === "floodgate" ? { ...t, service: "floodgate" } : t));
}

/** The physical limit a scenario is read against: the bare 429 if it loads one, else bare forwarding. */
const limitOf = (scenario) => (scenario.targets["bare-429"] ? "bare-429" : "bare");
const ratioTo = (scenario, against) => (against === "bare" ? scenario.targets.floodgate?.toBare : scenario.targets[against]?.floodgateOverThis);
/** floodgate's CPU per request over its reference's, round by round: median, min and max. */
const cpuRatioTo = (scenario, against) => {
  if (!scenario) return undefined;
  const t = against === "bare" ? scenario.targets.floodgate : scenario.targets[against];
  const name = against === "bare" ? "cpuToBare" : "floodgateCpuOverThis";
  return t && Number.isFinite(t[name]) ? { median: t[name], min: t[`${name}Min`], max: t[`${name}Max`] } : undefined;
};
/** A target's CPU per request: median, min and max over rounds. */
const cpuOf = (t) =>
  t && Number.isFinite(t.cpuUsPerRequest) ? { median: t.cpuUsPerRequest, min: t.cpuUsPerRequestMin, max: t.cpuUsPerRequestMax } : undefined;

/**
 * One row per scenario (and per extra baseline, e.g. strong mode beside
 * pre-counting; and the no-limit route's probe where loaded): floodgate's
 * throughput over its reference alone and mixed, each taken in its own
 * process's rounds; and floodgate's CPU per request alone and mixed
 * (`cpuAlone`, `cpuMixed`) with its ratio to the reference's (`cpuToAlone`,
 * `cpuToMixed`), each { median, min, max } over rounds.
 *
 * @example
 * sideBySide(results.scenarios, results.mixed.scenarios);
 * // [{ id: "blocked", title: "…", against: "bare-429", alone: 0.69, mixed: 0.52,
 * //    cpuAlone: { median: 210, min: 190, max: 260 }, cpuMixed: { … }, cpuToAlone: { median: 1.3, … }, cpuToMixed: { … } }, …]
 */
export function sideBySide(alone, mixed) {
  const rows = [];
  for (const m of mixed) {
    const a = alone.find((s) => s.id === m.id);
    const against = limitOf(m);
    const cpu = (id, ref) => ({
      cpuAlone: cpuOf(a?.targets[id]),
      cpuMixed: cpuOf(m.targets[id]),
      cpuToAlone: cpuRatioTo(a, ref),
      cpuToMixed: cpuRatioTo(m, ref),
    });
    rows.push({ id: m.id, title: m.title, against, alone: a ? ratioTo(a, against) : undefined, mixed: ratioTo(m, against), ...cpu("floodgate", against) });
    for (const b of m.baselines ?? []) {
      if (b.id === against) continue;
      rows.push({
        id: `${m.id}/${b.id}`,
        title: `↳ over ${b.title}`,
        against: b.id,
        alone: a ? ratioTo(a, b.id) : undefined,
        mixed: ratioTo(m, b.id),
        ...cpu("floodgate", b.id),
      });
    }
    const probe = "floodgate-no-counter";
    if (m.targets[probe]) {
      const ratioOf = (t) => (t && Number.isFinite(t.cpuToBare) ? { median: t.cpuToBare, min: t.cpuToBareMin, max: t.cpuToBareMax } : undefined);
      rows.push({
        id: probe,
        title: "route with no limit (probe)",
        against: "bare",
        alone: a?.targets[probe]?.toBare,
        mixed: m.targets[probe].toBare,
        cpuAlone: cpuOf(a?.targets[probe]),
        cpuMixed: cpuOf(m.targets[probe]),
        cpuToAlone: ratioOf(a?.targets[probe]),
        cpuToMixed: ratioOf(m.targets[probe]),
      });
    }
  }
  return rows;
}

const ratio = (n) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : "—");
const micros = (c) => (c ? (c.min === c.max ? `${Math.round(c.median)}` : `${Math.round(c.median)} (${Math.round(c.min)}–${Math.round(c.max)})`) : "—");
const times = (c) => (c ? (c.min === c.max ? ratio(c.median) : `${ratio(c.median)} (${c.min.toFixed(2)}–${c.max.toFixed(2)})`) : "—");

/**
 * The side-by-side table in Markdown, then each long-lived process's CPU
 * over every request it served in the mixed pass.
 *
 * @example
 * console.log(printMixed(results.mixed));
 */
export function printMixed(mixed) {
  const lines = [
    "Alone (fresh workerd processes per scenario) and mixed (one long-lived floodgate workerd serving every scenario in turn, each baseline in a long-lived workerd of its own); floodgate's throughput over its physical limit's, and its CPU per request (µs, median (min–max) over rounds) and over the limit's, round by round:",
    "",
    "| scenario | against | alone | mixed | mixed ÷ alone | CPU µs/req alone | CPU µs/req mixed | CPU ÷ against, alone | CPU ÷ against, mixed |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...mixed.sideBySide.map(
      (r) =>
        `| ${r.title} | ${r.against} | ${ratio(r.alone)} | ${ratio(r.mixed)} | ${ratio(r.mixed / r.alone)} | ${micros(r.cpuAlone)} | ${micros(r.cpuMixed)} | ${times(r.cpuToAlone)} | ${times(r.cpuToMixed)} |`,
    ),
  ];
  if (mixed.processes) {
    const whole = Object.entries(mixed.processes).map(
      ([id, p]) =>
        `${id} ${Number.isFinite(p.cpuUsPerRequest) ? Math.round(p.cpuUsPerRequest) : "—"} µs (${p.cpuSeconds.toFixed(1)} s over ${p.requests} requests)`,
    );
    lines.push("", `Whole mixed pass, each process's CPU over every request its load client got (warm-ups included): ${whole.join("; ")}.`);
  }
  return lines.join("\n");
}
