/**
 * The streamed-answer row (docs/llm.md, bench/README.md "Streamed LLM
 * answers"): a streamed chat completion through floodgate with a token
 * budget (the model read from the body, `max_tokens` reserved, usage read
 * from the stream as it passes) against the bare pass-through worker, each
 * in a workerd of its own, and the same floodgate under a plain request
 * limit on the same key (the control: what the token budget adds), all in
 * front of the mock OpenAI-compatible origin of test/support/llm-origin.mjs
 * (in this Node process). Per side: the time to the first byte of the
 * answer's body (p50, p95) and the CPU per request of its workerd process
 * (process CPU over requests), and floodgate's over the bare worker's;
 * for the two floodgate sides, the counter objects' calls and SQLite rows
 * written per request (bench/workers/object-tally.ts: counts, which the
 * machine's load does not move). Run
 * by `npm run bench` (`--llm` alone, `--skip-llm` without it) and by
 * bench/llm-stream.mjs.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { isLlmPath, serveLlm } from "../../test/support/llm-origin.mjs";
import { cpuUsPerRequest, processCpuTicks } from "./cpu.mjs";
import { profileDuring, summarizeBySource } from "./profile.mjs";
import { freePorts, startWorkerd, writeConfig } from "./workerd.mjs";

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

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

/**
 * Measure the three sides; `built` holds the floodgate and bare workers (bench/lib/build.mjs).
 *
 * @example
 * const row = await measureLlmStream({ built, workDir: "bench/.work/llm-stream", requests: 300, concurrency: 4 });
 * console.log(printLlmStream(row));
 */
export async function measureLlmStream({ built, workDir, requests = 300, concurrency = 4, profile = false, log = () => {}, noteStopped = () => {} }) {
  const origin = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://origin.test");
    if (isLlmPath(url.pathname)) return serveLlm(req, res, url);
    res.writeHead(200);
    res.end("ok");
  });
  await new Promise((resolve) => origin.listen(0, "127.0.0.1", resolve));
  const originUrl = `http://127.0.0.1:${origin.address().port}`;
  const storage = join(workDir, "storage");
  rmSync(storage, { recursive: true, force: true });
  const [floodgatePort, plainPort, barePort, inspectorPort] = await freePorts(4);
  const sides = {};
  const floodgateVars = { ORIGIN_URL: originUrl, ADMIN_TOKEN: TOKEN, METRICS_FLUSH_MS: "5000" };
  try {
    for (const [id, port, worker, vars] of [
      ["floodgate", floodgatePort, built.floodgate, floodgateVars],
      ["floodgate-plain", plainPort, built.floodgate, floodgateVars],
      ["bare", barePort, built.bare, { ORIGIN_URL: originUrl }],
    ]) {
      const { path, ports } = await writeConfig(join(workDir, id), { [id]: { worker, vars } }, join(storage, id), { ports: { [id]: port } });
      const inspect = profile && id === "floodgate" ? { inspectorPort: String(inspectorPort) } : {};
      sides[id] = { port, server: await startWorkerd(path, ports, join(workDir, `workerd-${id}.log`), inspect) };
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

    // The counter objects' work per request (bench/workers/object-tally.ts): counts, which the machine's load does not move.
    const counterTally = async (side) => {
      if (side === "bare") return { requests: 0, rowsWritten: 0 };
      const tally = await (await fetch(`http://127.0.0.1:${sides[side].port}/__bench/objects`)).json();
      return tally.CounterObject ?? { requests: 0, rowsWritten: 0 };
    };
    const load = async (side, count) => {
      const { port, server } = sides[side];
      const before = processCpuTicks(server.pid);
      const ttfbs = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async (_, worker) => {
          while (next < count) {
            next += 1;
            ttfbs.push(await one(port, `key-${worker}`));
          }
        }),
      );
      return { ttfbs, cpuUs: cpuUsPerRequest(processCpuTicks(server.pid) - before, count) };
    };

    // Warm each (compile, objects), then alternate rounds so no side always runs first.
    const SIDES = ["floodgate", "floodgate-plain", "bare"];
    log(`streamed LLM answers: ${requests} per side, ${concurrency} at once, after 30 to warm each`);
    for (const side of SIDES) await load(side, 30);
    const rounds = Object.fromEntries(SIDES.map((side) => [side, []]));
    const tallied = Object.fromEntries(SIDES.map((side) => [side, { calls: 0, rows: 0 }]));
    for (let round = 0; round < 3; round++)
      for (let i = 0; i < SIDES.length; i++) {
        const side = SIDES[(i + round) % SIDES.length];
        const before = await counterTally(side);
        rounds[side].push(await load(side, Math.ceil(requests / 3)));
        // Settlements sent alone leave up to REFUND_CARRY_MS after the last answer: counted once they have.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const after = await counterTally(side);
        tallied[side].calls += after.requests - before.requests;
        tallied[side].rows += after.rowsWritten - before.rowsWritten;
      }
    const summary = { requests, concurrency, load: Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]) };
    for (const side of SIDES) {
      const ttfbs = rounds[side].flatMap((r) => r.ttfbs);
      const cpu = rounds[side].map((r) => r.cpuUs).sort((a, b) => a - b);
      const served = 3 * Math.ceil(requests / 3);
      summary[side] = {
        p50: quantile(ttfbs, 0.5),
        p95: quantile(ttfbs, 0.95),
        cpuUs: cpu[1],
        cpuMin: cpu[0],
        cpuMax: cpu[2],
        counterCalls: tallied[side].calls / served,
        rowsWritten: tallied[side].rows / served,
      };
    }
    writeFileSync(join(workDir, "result.json"), JSON.stringify(summary, null, 2));
    if (profile) {
      const { profile: cpu } = await profileDuring(inspectorPort, "floodgate", () => load("floodgate", Math.ceil(requests / 3)));
      writeFileSync(join(workDir, "profile.cpuprofile"), JSON.stringify(cpu));
      const map = JSON.parse(readFileSync(join(built.floodgate.dir, `${built.floodgate.modules[0]}.map`), "utf8"));
      summary.profile = summarizeBySource(cpu, map, built.floodgate.modules[0]).slice(0, 30);
    }
    return summary;
  } finally {
    for (const [id, side] of Object.entries(sides)) {
      const warnings = await side.server.stop();
      noteStopped(`llm-stream-${id}`, warnings);
      if (warnings.total > 0) console.error(`runtime warnings: ${warnings.total} in ${warnings.log}`);
    }
    await new Promise((resolve) => origin.close(resolve));
  }
}

/**
 * The row as a table (markdown), floodgate beside its control and the bare worker.
 *
 * @example
 * console.log(printLlmStream(results.llmStream));
 */
export function printLlmStream(summary) {
  const f = summary.floodgate;
  const p = summary["floodgate-plain"];
  const b = summary.bare;
  const ms = (v) => v.toFixed(2);
  const cpu = (s) => `${Math.round(s.cpuUs)} (${Math.round(s.cpuMin)}–${Math.round(s.cpuMax)})`;
  const objects = (s) => (s.counterCalls === undefined ? "–" : `${s.counterCalls.toFixed(2)} / ${s.rowsWritten.toFixed(2)}`);
  const lines = [
    `Streamed LLM answer (SSE, ${summary.requests} requests per side, ${summary.concurrency} at once; load ${summary.load}): time to the first byte of the body, CPU of the workerd process per request`,
    "",
    "| side | first byte p50 ms | p95 ms | CPU µs/request (median of 3 rounds, min–max) | counter object calls / rows written per request |",
    "|---|---|---|---|---|",
    `| floodgate (json_body model, max_tokens reserved, usage read from the stream) | ${ms(f.p50)} | ${ms(f.p95)} | ${cpu(f)} | ${objects(f)} |`,
    `| floodgate, a plain request limit on the same key (control) | ${ms(p.p50)} | ${ms(p.p95)} | ${cpu(p)} | ${objects(p)} |`,
    `| bare pass-through worker | ${ms(b.p50)} | ${ms(b.p95)} | ${cpu(b)} | – |`,
    `| floodgate − bare | ${ms(f.p50 - b.p50)} | ${ms(f.p95 - b.p95)} | ${Math.round(f.cpuUs - b.cpuUs)} |`,
    `| floodgate ÷ bare | ${(f.p50 / b.p50).toFixed(2)}× | ${(f.p95 / b.p95).toFixed(2)}× | ${(f.cpuUs / b.cpuUs).toFixed(2)}× |`,
    `| floodgate ÷ its plain control | ${(f.p50 / p.p50).toFixed(2)}× | ${(f.p95 / p.p95).toFixed(2)}× | ${(f.cpuUs / p.cpuUs).toFixed(2)}× |`,
  ];
  if (summary.profile) {
    lines.push("", "The token-budget side under the profiler: self time by source");
    for (const row of summary.profile) lines.push(`${(row.share * 100).toFixed(1).padStart(6)} %  ${row.source}`);
  }
  return lines.join("\n");
}
