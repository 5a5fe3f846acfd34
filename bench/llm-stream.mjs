/**
 * The streamed-answer row (docs/llm.md, bench/README.md "Streamed LLM
 * answers"): a streamed chat completion through floodgate with a token
 * budget (the model read from the body, `max_tokens` reserved, usage read
 * from the stream as it passes) against the bare pass-through worker, each
 * in a workerd of its own, and the same floodgate under a plain request
 * limit on the same key (the control: what the token budget adds), all in front of the mock OpenAI-compatible
 * origin of test/support/llm-origin.mjs (in this Node process). It reports
 * per side the time to the first byte of the answer's body (p50, p95) and
 * the CPU per request of its workerd process (process CPU over requests),
 * and floodgate's over the bare worker's. Hold the machine's heavy lock:
 *
 *   flock /tmp/floodgate-heavy.lock node bench/llm-stream.mjs [--requests 300] [--concurrency 4] [--no-build]
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { isLlmPath, serveLlm } from "../test/support/llm-origin.mjs";
import { buildWorkers, WORKERS } from "./lib/build.mjs";
import { cpuUsPerRequest, processCpuTicks } from "./lib/cpu.mjs";
import { freePorts, startWorkerd, writeConfig } from "./lib/workerd.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "300" },
    concurrency: { type: "string", default: "4" },
    "no-build": { type: "boolean", default: false },
  },
});
const REQUESTS = Number(values.requests);
const CONCURRENCY = Number(values.concurrency);
const TOKEN = "bench-llm-admin-token-0123456789abcdef";
const RULES = {
  domain: "llm",
  descriptors: [
    {
      key: "api_key",
      rate_limit: { name: "tokens-per-minute", unit: "minute", requests_per_unit: 4_000_000_000 },
      descriptors: [{ key: "model", rate_limit: { name: "model-tokens-per-minute", unit: "minute", requests_per_unit: 4_000_000_000 } }],
    },
  ],
  routes: [
    {
      match: { methods: ["POST"], path: "/llm/v1/*" },
      descriptors: [
        [{ key: "api_key", header: "authorization" }],
        [
          { key: "api_key", header: "authorization" },
          { key: "model", json_body: "model" },
        ],
      ],
      cost: { json_body: "max_tokens", default: 1024, max: 200000 },
      cost_from_response: { usage: "openai" },
    },
  ],
};
// The control: the same floodgate and stream under a plain request limit on the same key (no body read, no usage).
const PLAIN_RULES = {
  domain: "llm",
  descriptors: [{ key: "api_key", rate_limit: { name: "requests-per-minute", unit: "minute", requests_per_unit: 4_000_000_000 } }],
  routes: [{ match: { methods: ["POST"], path: "/llm/v1/*" }, descriptors: [[{ key: "api_key", header: "authorization" }]] }],
};
// A typical chat request: a system prompt and a question; 16 content events, then usage and [DONE].
const BODY = JSON.stringify({
  model: "gpt-4o-mini",
  max_tokens: 512,
  stream: true,
  stream_options: { include_usage: true },
  messages: [
    { role: "system", content: "You are a helpful assistant. ".repeat(40) },
    { role: "user", content: "Explain token budgets in two sentences." },
  ],
});
const PATH = "/llm/v1/chat/completions?in=180&out=64&chunks=16";

const work = join(root, "bench", ".work", "llm-stream");
mkdirSync(work, { recursive: true });
const builtFile = join(work, "built.json");
let built;
if (values["no-build"]) {
  built = JSON.parse(readFileSync(builtFile, "utf8"));
  for (const worker of Object.values(built)) worker.sqliteClasses = new Set(worker.sqliteClasses);
} else {
  built = await buildWorkers(
    root,
    join(work, "build"),
    WORKERS.filter((w) => w.name === "floodgate" || w.name === "bare"),
  );
  writeFileSync(
    builtFile,
    JSON.stringify(built, (_, v) => (v instanceof Set ? [...v] : v)),
  );
}

const origin = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://origin.test");
  if (isLlmPath(url.pathname)) return serveLlm(req, res, url);
  res.writeHead(200);
  res.end("ok");
});
await new Promise((resolve) => origin.listen(0, "127.0.0.1", resolve));
const originUrl = `http://127.0.0.1:${origin.address().port}`;

const storage = join(work, "storage");
rmSync(storage, { recursive: true, force: true });
const [floodgatePort, plainPort, barePort] = await freePorts(3);
const sides = {};
const floodgateVars = { ORIGIN_URL: originUrl, ADMIN_TOKEN: TOKEN, METRICS_FLUSH_MS: "5000" };
for (const [id, port, worker, vars] of [
  ["floodgate", floodgatePort, built.floodgate, floodgateVars],
  ["floodgate-plain", plainPort, built.floodgate, floodgateVars],
  ["bare", barePort, built.bare, { ORIGIN_URL: originUrl }],
]) {
  const { path, ports } = await writeConfig(join(work, id), { [id]: { worker, vars } }, join(storage, id), { ports: { [id]: port } });
  sides[id] = { port, server: await startWorkerd(path, ports, join(work, `workerd-${id}.log`)) };
}
for (const [port, rules] of [
  [floodgatePort, RULES],
  [plainPort, PLAIN_RULES],
]) {
  const put = await fetch(`http://127.0.0.1:${port}/__ratelimit/rules`, {
    method: "PUT",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(rules),
  });
  if (put.status !== 200) throw new Error(`PUT rules: ${put.status} ${await put.text()}`);
}

/** One streamed request: ms to the first body byte, and whether the answer was whole. */
async function one(port, key) {
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${port}${PATH}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: BODY,
  });
  const reader = response.body.getReader();
  const first = await reader.read();
  const ttfb = performance.now() - started;
  let text = new TextDecoder().decode(first.value);
  for (let next = await reader.read(); !next.done; next = await reader.read()) text += new TextDecoder().decode(next.value);
  if (response.status !== 200 || !text.includes("[DONE]")) throw new Error(`port ${port}: ${response.status} ${text.slice(0, 200)}`);
  return ttfb;
}

async function load(side, requests) {
  const { port, server } = sides[side];
  const before = processCpuTicks(server.pid);
  const ttfbs = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      while (next < requests) {
        next += 1;
        ttfbs.push(await one(port, `key-${worker}`));
      }
    }),
  );
  return { ttfbs, cpuUs: cpuUsPerRequest(processCpuTicks(server.pid) - before, requests) };
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

try {
  // Warm both (compile, objects), then alternate rounds so neither side always runs first.
  const SIDES = ["floodgate", "floodgate-plain", "bare"];
  for (const side of SIDES) await load(side, 30);
  const rounds = Object.fromEntries(SIDES.map((side) => [side, []]));
  for (let round = 0; round < 3; round++)
    for (let i = 0; i < SIDES.length; i++) {
      const side = SIDES[(i + round) % SIDES.length];
      rounds[side].push(await load(side, Math.ceil(REQUESTS / 3)));
    }
  const summary = {};
  for (const side of SIDES) {
    const ttfbs = rounds[side].flatMap((r) => r.ttfbs);
    const cpu = rounds[side].map((r) => r.cpuUs).sort((a, b) => a - b);
    summary[side] = { p50: quantile(ttfbs, 0.5), p95: quantile(ttfbs, 0.95), cpuUs: cpu[1], cpuMin: cpu[0], cpuMax: cpu[2] };
  }
  const f = summary.floodgate;
  const p = summary["floodgate-plain"];
  const b = summary.bare;
  const ms = (v) => v.toFixed(2);
  console.log(`Streamed LLM answer (SSE, ${REQUESTS} requests per side, ${CONCURRENCY} at once; load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]})`);
  console.log("| side | first byte p50 ms | p95 ms | CPU µs/request (median of 3 rounds, min–max) |");
  console.log("|---|---|---|---|");
  console.log(
    `| floodgate (json_body model, max_tokens reserved, usage read from the stream) | ${ms(f.p50)} | ${ms(f.p95)} | ${Math.round(f.cpuUs)} (${Math.round(f.cpuMin)}–${Math.round(f.cpuMax)}) |`,
  );
  console.log(
    `| floodgate, a plain request limit on the same key (control) | ${ms(p.p50)} | ${ms(p.p95)} | ${Math.round(p.cpuUs)} (${Math.round(p.cpuMin)}–${Math.round(p.cpuMax)}) |`,
  );
  console.log(`| bare pass-through worker | ${ms(b.p50)} | ${ms(b.p95)} | ${Math.round(b.cpuUs)} (${Math.round(b.cpuMin)}–${Math.round(b.cpuMax)}) |`);
  console.log(`| floodgate ÷ bare | ${(f.p50 / b.p50).toFixed(2)}× | ${(f.p95 / b.p95).toFixed(2)}× | ${(f.cpuUs / b.cpuUs).toFixed(2)}× |`);
  console.log(`| floodgate ÷ its plain control | ${(f.p50 / p.p50).toFixed(2)}× | ${(f.p95 / p.p95).toFixed(2)}× | ${(f.cpuUs / p.cpuUs).toFixed(2)}× |`);
  writeFileSync(join(work, "result.json"), JSON.stringify(summary, null, 2));
} finally {
  for (const side of Object.values(sides)) {
    const { total, log } = await side.server.stop();
    if (total > 0) console.error(`runtime warnings: ${total} in ${log}`);
  }
  await new Promise((resolve) => origin.close(resolve));
}
