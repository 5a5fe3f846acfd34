// @ts-nocheck
// `npm run deploy` from a fresh clone: the default wrangler.toml builds
// (`wrangler deploy --dry-run`, offline) with the Durable Objects and no
// queue, so nothing has to be created in the account first; and its
// commented on_limit "queue" block, once uncommented as its heading says,
// builds too and binds exactly the queues the test pool runs the queue tests with.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { QUEUE_CONSUMERS, QUEUE_PRODUCERS } from "../support/queue-bindings.ts";
import { defaultToml, enableQueues, repo } from "./wrangler-toml.mjs";

const require = createRequire(import.meta.url);
const wranglerBin = join(dirname(require.resolve("wrangler/package.json")), "bin", "wrangler.js");
const dir = mkdtempSync(join(tmpdir(), "deploy-dry-run-"));

function dryRun(args) {
  const outdir = mkdtempSync(join(dir, "out-"));
  const run = spawnSync(process.execPath, [wranglerBin, "deploy", "--dry-run", "--outdir", outdir, ...args], {
    cwd: repo,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
  });
  return { code: run.status, output: `${run.stdout}\n${run.stderr}` };
}

/** The binding table's rows: "env.NAME (resource) Kind". */
const bindings = (output) => output.split("\n").filter((line) => /^env\.\w+/.test(line.trim()));

test("wrangler deploy --dry-run with the default wrangler.toml: exit 0, the four Durable Objects, no queue", () => {
  const { code, output } = dryRun([]);
  assert.equal(code, 0, output);
  const rows = bindings(output);
  for (const name of ["COUNTERS", "RULES", "METRICS", "QUEUED"]) {
    assert.ok(
      rows.some((row) => row.includes(`env.${name} `) && row.includes("Durable Object")),
      `${name} in:\n${output}`,
    );
  }
  assert.deepEqual(
    rows.filter((row) => /\bQueue\b/.test(row)),
    [],
    output,
  );
  assert.doesNotMatch(output, /floodgate-queued|floodgate-dead-letters|env\.QUEUE\b|env\.DEAD_LETTERS\b/);
});

test('the on_limit "queue" block, uncommented: builds, binds both queues, and is what the test pool binds', async () => {
  // The copy lives elsewhere: its paths (entry, assets, build) point back into the repository.
  const enabled = enableQueues(defaultToml)
    .replace(/^main = "src\/worker\.ts"$/m, `main = ${JSON.stringify(join(repo, "src/worker.ts"))}`)
    .replace(/^directory = "\.\/public"$/m, `directory = ${JSON.stringify(join(repo, "public"))}`)
    .replace(/^\[build\]$/m, `[build]\ncwd = ${JSON.stringify(repo)}`);
  const config = join(dir, "wrangler.toml");
  writeFileSync(config, enabled);
  const { code, output } = dryRun(["--config", config]);
  assert.equal(code, 0, output);
  const rows = bindings(output);
  assert.ok(
    rows.some((row) => row.includes("env.QUEUE (floodgate-queued)") && row.includes("Queue")),
    output,
  );
  assert.ok(
    rows.some((row) => row.includes("env.DEAD_LETTERS (floodgate-dead-letters)") && row.includes("Queue")),
    output,
  );

  const { experimental_readRawConfig } = await import("wrangler");
  const { queues } = experimental_readRawConfig({ config }).rawConfig;
  assert.deepEqual(Object.fromEntries(queues.producers.map((p) => [p.binding, p.queue])), QUEUE_PRODUCERS);
  assert.deepEqual(
    Object.fromEntries(
      queues.consumers.map((c) => [
        c.queue,
        { maxBatchSize: c.max_batch_size, maxBatchTimeout: c.max_batch_timeout, maxRetries: c.max_retries, deadLetterQueue: c.dead_letter_queue },
      ]),
    ),
    QUEUE_CONSUMERS,
  );
});
