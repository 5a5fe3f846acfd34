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
 * A `startServer` that starts one workerd on its first call and hands the
 * same one to every later scenario (whose `stop` leaves it running); `stop`
 * on the result stops it for good.
 *
 * @example
 * const shared = oneProcess(startServer);
 * try { await runLoads(scenarios, shared.start, client, meta, { mixed: true }); } finally { await shared.stop(); }
 */
export function oneProcess(startServer) {
  let server;
  return {
    start: async () => {
      server ??= await startServer({ id: "mixed" });
      return { pid: server.pid, ports: server.ports, stop: async () => {} };
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

/**
 * One row per scenario (and per extra baseline, e.g. strong mode beside
 * pre-counting; and the no-limit route's probe where loaded): floodgate's
 * throughput over its reference alone and mixed, each taken in its own
 * process's rounds.
 *
 * @example
 * sideBySide(results.scenarios, results.mixed.scenarios);
 * // [{ id: "blocked", title: "…", against: "bare-429", alone: 0.69, mixed: 0.52 }, …]
 */
export function sideBySide(alone, mixed) {
  const rows = [];
  for (const m of mixed) {
    const a = alone.find((s) => s.id === m.id);
    const against = limitOf(m);
    rows.push({ id: m.id, title: m.title, against, alone: a ? ratioTo(a, against) : undefined, mixed: ratioTo(m, against) });
    for (const b of m.baselines ?? []) {
      if (b.id === against) continue;
      rows.push({ id: `${m.id}/${b.id}`, title: `↳ over ${b.title}`, against: b.id, alone: a ? ratioTo(a, b.id) : undefined, mixed: ratioTo(m, b.id) });
    }
    const probe = "floodgate-no-counter";
    if (m.targets[probe])
      rows.push({ id: probe, title: "route with no limit (probe)", against: "bare", alone: a?.targets[probe]?.toBare, mixed: m.targets[probe].toBare });
  }
  return rows;
}

const ratio = (n) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : "—");

/**
 * The side-by-side table in Markdown.
 *
 * @example
 * console.log(printMixed(results.mixed));
 */
export function printMixed(mixed) {
  const lines = [
    "Alone (a fresh workerd per scenario) and mixed (one workerd serving every scenario in turn); floodgate over its physical limit in the same process:",
    "",
    "| scenario | against | alone | mixed | mixed ÷ alone |",
    "| --- | --- | --- | --- | --- |",
    ...mixed.sideBySide.map((r) => `| ${r.title} | ${r.against} | ${ratio(r.alone)} | ${ratio(r.mixed)} | ${ratio(r.mixed / r.alone)} |`),
  ];
  return lines.join("\n");
}
