import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { buildSync } from "esbuild";
import { defineConfig } from "vitest/config";
import { VITEST_TIERS } from "./scripts/tiers.mjs";
import { QUEUE_CONSUMERS, QUEUE_PRODUCERS, QUEUE_TEST_SECRET } from "./test/support/queue-bindings.ts";

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

// A test-only Worker that calls floodgate's RateLimiterBinding over real
// service bindings, as a user's Worker would (docs/from-cloudflare-binding.md):
// the test posts { binding, options } and gets limit()'s answer, or its error.
const bindingCaller = `
export default {
  async fetch(request, env) {
    const { binding, options } = await request.json();
    try {
      return Response.json(await env[binding].limit(options));
    } catch (error) {
      return Response.json({ error: String(error && error.message) }, { status: 500 });
    }
  },
};`;
// The calling Worker of docs/from-cloudflare-binding.md as that page shows it (Cloudflare's own example),
// its types left out: only its binding differs from Cloudflare's (test/dropins/binding.test.ts).
const readmeBindingCaller = `
export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    const { success } = await env.MY_RATE_LIMITER.limit({ key: pathname });
    if (!success) return new Response(\`429 Failure – rate limit exceeded for \${pathname}\`, { status: 429 });
    return new Response("Success!");
  },
};`;
// A user's Worker that binds CounterObject as LIMITS and not COUNTERS (test/durable/renamed-binding.test.ts),
// bundled as its own service: the runner's own CounterObject always has COUNTERS beside it.
const renamedBindingWorker = buildSync({
  entryPoints: ["./test/support/renamed-binding-worker.ts"],
  bundle: true,
  write: false,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  conditions: ["workerd", "worker", "browser"],
  mainFields: ["module", "main"],
  external: ["cloudflare:*"],
}).outputFiles[0].text;
const renamedBinding = {
  name: "renamed-binding",
  modules: [{ type: "ESModule" as const, path: "renamed-binding-worker.mjs", contents: renamedBindingWorker }],
  compatibilityDate: "2026-08-15",
  durableObjects: { LIMITS: { className: "CounterObject", useSQLite: true } },
};

// The workerd tiers' tests run inside workerd with the real bindings from wrangler.toml:
// real Durable Objects, real SQLite storage, real fetch. The default
// wrangler.toml binds no queues (on_limit "queue" is opt-in), so the queues
// its commented block would bind are added here: real (local) Queues. The
// global setup starts a real origin server on 127.0.0.1 for the forwarding tests.
// `project` is the vitest project's name: the Worker under test runs as the pool's runner, named after it.
const workerd = (project: string) => {
  const mainWorker = `vitest-plugin-runner-${project}`;
  const rateLimiter = (props: Record<string, unknown> | undefined) => ({ name: mainWorker, entrypoint: "RateLimiterBinding", props });
  return cloudflareTest(({ inject }) => ({
    wrangler: { configPath: "./wrangler.toml" },
    miniflare: {
      queueProducers: QUEUE_PRODUCERS,
      queueConsumers: QUEUE_CONSUMERS,
      serviceBindings: { BINDING_CALLER: "binding-caller", README_BINDING_CALLER: "readme-binding-caller", RENAMED_BINDING: "renamed-binding" },
      bindings: {
        TEST_ORIGIN_URL: inject<string>("originUrl"),
        // The queue consumer delivers only to ORIGIN_URL (docs/on-limit.md): the worker's own one is the
        // test origin. Gateways made by test/support/app.ts get it only when a test passes it.
        ORIGIN_URL: inject<string>("originUrl"),
        // METRICS_FLUSH_MS=0: metric counts are sent within each request's waitUntil,
        // so tests see them without waiting out the production flush interval.
        METRICS_FLUSH_MS: "0",
        // A small retry budget with 1 s, 2 s backoff, so dead-lettering is seen in seconds.
        QUEUE_MAX_ATTEMPTS: "3",
        QUEUE_RETRY_BASE_SECONDS: "1",
        // The queue consumer signs deliveries and opens kept credentials with it (test/security/queue.slow.test.ts).
        QUEUE_SECRET: QUEUE_TEST_SECRET,
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
          name: "binding-caller",
          modules: true,
          script: bindingCaller,
          compatibilityDate: "2026-08-15",
          serviceBindings: {
            // Cloudflare's shape, as in a [[services]] block's props.
            MY_RATE_LIMITER: rateLimiter({ namespace_id: "1001", simple: { limit: 3, period: 60 } }),
            // The same namespace, limit and period: the same counters.
            SAME_NAMESPACE: rateLimiter({ namespace_id: "1001", simple: { limit: 3, period: 60 } }),
            OTHER_NAMESPACE: rateLimiter({ namespace_id: "1002", limit: 3, period: 60 }),
            // A period Cloudflare's own binding does not offer.
            ONE_PER_HOUR: rateLimiter({ namespace_id: "hourly", limit: 1, period: 3600 }),
            NO_PROPS: rateLimiter(undefined),
            BAD_PERIOD: rateLimiter({ simple: { limit: 3, period: 1.5 } }),
            UNKNOWN_PROP: rateLimiter({ simple: { limit: 3, period: 60 }, algorithm: "gcra" }),
          },
        },
        renamedBinding,
        {
          name: "readme-binding-caller",
          modules: true,
          script: readmeBindingCaller,
          compatibilityDate: "2026-08-15",
          // The page's props: 100 per 60 s.
          serviceBindings: { MY_RATE_LIMITER: rateLimiter({ namespace_id: "1001", simple: { limit: 100, period: 60 } }) } as Record<
            string,
            ReturnType<typeof rateLimiter>
          >,
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
  }));
};

// The tiers (scripts/tiers.mjs, docs/testing.md "Tiers"): `npx vitest run test/<path>` runs a file in its own.
// `node`: pure code in plain Node. `workerd`: one workerd per worker, reused from file to file (`isolate: false`),
// so the files of a worker share its objects' storage and module state: each names its keys and objects for
// itself. `slow`: the long scenarios, a fresh workerd for each file (npm run test:slow).
export default defineConfig({
  test: {
    projects: [
      // One module graph per worker, as vitest.mutation.config.ts: no Node-tier file leans on fresh module state.
      { test: { name: "node", ...VITEST_TIERS.node, environment: "node", testTimeout: 30_000, isolate: false } },
      {
        plugins: [workerd("workerd")],
        test: {
          name: "workerd",
          ...VITEST_TIERS.workerd,
          globalSetup: ["test/support/global-setup.mjs"],
          setupFiles: ["test/support/each-file.ts"],
          testTimeout: 30_000,
          isolate: false,
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
      {
        plugins: [workerd("slow")],
        test: {
          name: "slow",
          ...VITEST_TIERS.slow,
          globalSetup: ["test/support/global-setup.mjs"],
          testTimeout: 60_000,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
