import { defineConfig } from "vitest/config";

// Mutation testing (docs/testing.md, "Mutation testing"): Stryker's vitest runner
// replaces the test pool with Node worker threads, so it cannot run the workerd
// pool of vitest.config.ts. This config runs, in plain Node, the test files that
// need no bindings: the pure core and the decision logic. Files that import
// cloudflare:* (real objects, storage, fetch) stay in the workerd suite only.
export const MUTATION_TESTS = [
  "test/algorithms/*.test.ts",
  "test/rules/*.test.ts",
  "test/edge/coalescer.test.ts",
  "test/edge/coalescer-bounds.test.ts",
  "test/edge/block-cache-exact.test.ts",
  "test/edge/precount-lease-size.test.ts",
  "test/edge/precount-view.test.ts",
  "test/edge/route.test.ts",
  "test/edge/precount-table.test.ts",
  "test/edge/precount-chain-plain.test.ts",
  "test/edge/object-pace.test.ts",
  "test/limiter/concurrency-plan.test.ts",
  "test/limiter/dialects.test.ts",
  "test/limiter/draft11-fields.test.ts",
  "test/limiter/retry-after.test.ts",
  "test/limiter/reconcile.test.ts",
  "test/limiter/decide-plain.test.ts",
  "test/limiter/policy-order.test.ts",
  "test/limiter/timeout.test.ts",
  "test/limiter/plan-fields.test.ts",
  "test/limiter/identifier.test.ts",
  "test/limiter/reconcile-bounds.test.ts",
  "test/limiter/respond-actions.test.ts",
  "test/limiter/summarize-order.test.ts",
  "test/limiter/quota-body.test.ts",
  "test/limiter/restrictive.test.ts",
  "test/limiter/enforcement-plain.test.ts",
  "test/durable/lease-book.test.ts",
  "test/durable/precount-sync.test.ts",
  "test/durable/counter-cache.test.ts",
  "test/durable/counter-core.test.ts",
  "test/durable/shard-hash-plain.test.ts",
  "test/queue/policy-plain.test.ts",
  "test/durable/lease-holder.test.ts",
  "test/durable/lease-holder-exact.test.ts",
  "test/durable/lease-book-bytes.test.ts",
  "test/stored/formats.test.ts",
  "test/http/*.test.ts",
  "test/request/client-ip.test.ts",
  "test/request/client-ip-exact.test.ts",
  "test/request/descriptors.test.ts",
  "test/request/descriptors-plain.test.ts",
  "test/request/cost-forward-plain.test.ts",
  "test/request/location.test.ts",
  "test/origin/origin-view.test.ts",
  "test/origin/origin-view-exact.test.ts",
  "test/ratelimit/dropins-plain.test.ts",
  "test/hono/compat-plain.test.ts",
];

export default defineConfig({
  test: {
    include: MUTATION_TESTS,
    // A test/rules file that needs real objects (the rules and metrics objects at a distance).
    exclude: ["test/rules/distant-stores.test.ts"],
    environment: "node",
    // One module graph for all files: Stryker runs a mutant's covering tests in one worker, and re-importing
    // the instrumented sources for each test file cost more than the tests (a whole run three times longer).
    // Safe for these files: none leans on fresh module state (they pass in any order, sharing it).
    isolate: false,
    // Instrumented code runs many times slower than plain (every branch counts its hits), on a busy machine slower still.
    testTimeout: 120_000,
  },
});
