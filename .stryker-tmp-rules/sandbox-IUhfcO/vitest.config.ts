// @ts-nocheck
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { QUEUE_CONSUMERS, QUEUE_PRODUCERS } from "./test/support/queue-bindings.ts";

// A test-only worker that consumes the dead-letter queue and hands each dead
// letter to the test origin (tag "dead-letters"), so the queue tests can see
// what really arrived on the dead-letter queue.
const deadLetterProbe = `
export default {
  async queue(batch, env) {
    for (const message of batch.messages) {
      await fetch(env.ORIGIN + "/dead-letter", {
        method: "POST",
        headers: { "x-test-tag": "dead-letters", "content-type": "application/json" },
        body: JSON.stringify(message.body),
      });
      message.ack();
    }
  },
};`;

// Every test runs inside workerd with the real bindings from wrangler.toml:
// real Durable Objects, real SQLite storage, real fetch. The default
// wrangler.toml binds no queues (on_limit "queue" is opt-in), so the queues
// its commented block would bind are added here: real (local) Queues. The
// global setup starts a real origin server on 127.0.0.1 for the forwarding tests.
export default defineConfig({
  plugins: [
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        queueProducers: QUEUE_PRODUCERS,
        queueConsumers: QUEUE_CONSUMERS,
        bindings: {
          TEST_ORIGIN_URL: inject<string>("originUrl"),
          // METRICS_FLUSH_MS=0: metric counts are sent within each request's waitUntil,
          // so tests see them without waiting out the production flush interval.
          METRICS_FLUSH_MS: "0",
          // A small retry budget with 1 s, 2 s backoff, so dead-lettering is seen in seconds.
          QUEUE_MAX_ATTEMPTS: "3",
          QUEUE_RETRY_BASE_SECONDS: "1",
        },
        // Real objects that fail (test/support/failing-objects.mjs), for the failure-mode tests.
        durableObjects: {
          THROWING_OBJECTS: { className: "ThrowingObject", scriptName: "failing-objects" },
          HANGING_OBJECTS: { className: "HangingObject", scriptName: "failing-objects" },
        },
        workers: [
          {
            name: "dead-letter-probe",
            modules: true,
            script: deadLetterProbe,
            compatibilityDate: "2026-08-15",
            bindings: { ORIGIN: inject<string>("originUrl") },
            queueConsumers: { "floodgate-dead-letters": { maxBatchTimeout: 1 } },
          },
          {
            name: "failing-objects",
            modules: true,
            scriptPath: "./test/support/failing-objects.mjs",
            compatibilityDate: "2026-08-15",
            durableObjects: {
              THROWING_OBJECTS: "ThrowingObject",
              HANGING_OBJECTS: "HangingObject",
            },
          },
        ],
      },
    })),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.mjs"],
    testTimeout: 30_000,
  },
});
