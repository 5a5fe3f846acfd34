/**
 * The streamed-answer row alone (bench/lib/llm-stream.mjs; `npm run bench`
 * runs it too, `npm run bench -- --llm` alone): floodgate with a token
 * budget, its plain control and the bare worker in front of the mock
 * OpenAI-compatible origin. Hold the machine's heavy lock:
 *
 *   flock /tmp/floodgate-heavy.lock node bench/llm-stream.mjs [--requests 300] [--concurrency 4] [--no-build] [--profile]
 *
 * `--profile`: a V8 CPU profile of the token-budget side's isolate (its objects included) over one more load,
 * written to bench/.work/llm-stream/profile.cpuprofile, its self time printed by source file.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { builtWorkers } from "./lib/build.mjs";
import { measureLlmStream, printLlmStream } from "./lib/llm-stream.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "300" },
    concurrency: { type: "string", default: "4" },
    "no-build": { type: "boolean", default: false },
    profile: { type: "boolean", default: false },
  },
});

const work = join(root, "bench", ".work", "llm-stream");
const built = await builtWorkers(root, work, ["floodgate", "bare"], values["no-build"]);
const summary = await measureLlmStream({
  built,
  workDir: work,
  requests: Number(values.requests),
  concurrency: Number(values.concurrency),
  profile: values.profile,
});
console.log(printLlmStream(summary));
