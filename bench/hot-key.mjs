/**
 * One hot key in 64 isolates, no `precount` on its rule (docs/precount.md,
 * "Hot keys lease on their own"; bench/README.md, "Hot key in many
 * isolates"): builds floodgate, runs bench/lib/hot-key.mjs, prints its
 * table and writes the raw result to bench/.work/hot-key/result.json.
 * Hold the machine's bench lock around it (`flock /work/bench.lock …` on a
 * shared machine).
 *
 *   node bench/hot-key.mjs                      # 64 isolates, 2 in flight each, 10 s per phase
 *   node bench/hot-key.mjs --edges 16 --seconds 5 --in-flight 4 --no-build
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { builtWorkers } from "./lib/build.mjs";
import { measureHotKey, printHotKey } from "./lib/hot-key.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

const { values } = parseArgs({
  options: {
    edges: { type: "string", default: "64" },
    "in-flight": { type: "string", default: "2" },
    seconds: { type: "string", default: "10" },
    "no-build": { type: "boolean", default: false },
    // Another path for the first phase (e.g. /sharded/precount-hot, the same key with precount on its rule).
    "open-path": { type: "string" },
    // Coalescing off in every isolate (BENCH_COALESCING=off, bench/workers/floodgate-entry.ts).
    "no-coalesce": { type: "boolean", default: false },
  },
});
const work = join(root, "bench", ".work", "hot-key");
let { floodgate } = await builtWorkers(root, work, ["floodgate"], values["no-build"]);
if (values["no-coalesce"]) floodgate = { ...floodgate, vars: { ...floodgate.vars, BENCH_COALESCING: "off" } };
const result = await measureHotKey({
  floodgate,
  workDir: work,
  edges: Number(values.edges),
  inFlight: Number(values["in-flight"]),
  seconds: Number(values.seconds),
  ...(values["open-path"] ? { openPath: values["open-path"] } : {}),
  log: (line) => console.error(line),
});
writeFileSync(join(work, "result.json"), `${JSON.stringify(result, null, 2)}\n`);
console.log(printHotKey(result));
