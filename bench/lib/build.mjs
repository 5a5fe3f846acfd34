/**
 * Builds the three bench workers with `wrangler deploy --dry-run`, the same
 * bundler and settings a deploy uses, and reads each one's wrangler config
 * (vars, Durable Object bindings, migrations, compatibility date) so the
 * workerd config can mirror it.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

/**
 * What to build: floodgate is the project's own wrangler.toml with only the
 * entry swapped for the bench one (so the real app and object over the bench
 * rules); the bare worker and the peer have small configs of their own.
 */
export const WORKERS = [
  { name: "floodgate", config: "wrangler.toml", entry: "bench/workers/floodgate-entry.ts" },
  { name: "origin", config: "bench/workers/wrangler.origin.toml" },
  { name: "bare", config: "bench/workers/wrangler.bare.toml" },
  { name: "peer", config: "bench/workers/wrangler.peer.toml" },
  { name: "probe", config: "bench/workers/wrangler.probe.toml" },
];

/**
 * Run wrangler's CLI on the project's Node, with metrics off.
 *
 * @example
 * await wrangler(["deploy", "--dry-run", "--outdir", "/tmp/out"]);
 */
function wrangler(args, cwd) {
  const bin = join(dirname(require.resolve("wrangler/package.json")), "bin", "wrangler.js");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(output) : reject(new Error(`wrangler ${args.join(" ")} failed (${code}):\n${output}`))));
  });
}

/**
 * Build every worker into `outDir/<name>/` and return, per worker, its
 * modules (main first) and its normalized wrangler config.
 *
 * @example
 * const built = await buildWorkers("/work/main", "/work/main/bench/.work/build");
 * built.floodgate.modules[0]; // "floodgate-entry.js"
 */
export async function buildWorkers(root, outDir, workers = WORKERS) {
  const { unstable_readConfig } = await import("wrangler");
  const built = {};
  // One at a time: each build already uses both cores, and all four take ~6 s.
  for (const worker of workers) {
    const dir = join(outDir, worker.name);
    const args = ["deploy", ...(worker.entry ? [worker.entry] : []), "--config", worker.config, "--dry-run", "--outdir", dir];
    await wrangler(args, root);
    const config = unstable_readConfig({ config: join(root, worker.config) });
    const modules = readdirSync(dir).filter((f) => /\.(m?js)$/.test(f));
    const main = worker.entry ? worker.entry.split("/").pop().replace(/\.ts$/, ".js") : config.main.split("/").pop().replace(/\.ts$/, ".js");
    if (!modules.includes(main)) throw new Error(`wrangler produced no ${main} in ${dir} (found ${modules.join(", ")})`);
    built[worker.name] = {
      dir,
      modules: [main, ...modules.filter((m) => m !== main)],
      compatibilityDate: config.compatibility_date,
      compatibilityFlags: config.compatibility_flags ?? [],
      vars: config.vars ?? {},
      durableObjects: (config.durable_objects?.bindings ?? []).map((b) => ({ binding: b.name, className: b.class_name })),
      sqliteClasses: new Set((config.migrations ?? []).flatMap((m) => m.new_sqlite_classes ?? [])),
    };
  }
  return built;
}

/**
 * The workers of WORKERS named in `names`, built into `workDir/build/`, their
 * description (`buildWorkers`'s result) kept in `workDir/built.json`; with
 * `reuse` (a bench's --no-build), that last description read back instead.
 *
 * @example
 * const built = await builtWorkers(root, join(root, "bench", ".work", "llm-stream"), ["floodgate", "bare"], values["no-build"]);
 */
export async function builtWorkers(root, workDir, names, reuse = false) {
  const file = join(workDir, "built.json");
  if (reuse) {
    const built = JSON.parse(readFileSync(file, "utf8"));
    for (const worker of Object.values(built)) worker.sqliteClasses = new Set(worker.sqliteClasses);
    return built;
  }
  mkdirSync(workDir, { recursive: true });
  const built = await buildWorkers(
    root,
    join(workDir, "build"),
    WORKERS.filter((w) => names.includes(w.name)),
  );
  writeFileSync(
    file,
    JSON.stringify(built, (_, v) => (v instanceof Set ? [...v] : v)),
  );
  return built;
}
