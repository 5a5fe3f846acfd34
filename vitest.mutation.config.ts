import { defineConfig } from "vitest/config";

// Mutation testing (docs/testing.md, "Mutation testing"): Stryker's vitest runner
// replaces the test pool with Node worker threads, so it cannot run the workerd
// pool of vitest.config.ts. This config runs, in plain Node, the test files that
// need no bindings: the pure core and the decision logic. Files that import
// cloudflare:* (real objects, storage, fetch) stay in the workerd suite only.
export const MUTATION_TESTS = [
  "test/algorithms/*.test.ts",
  "test/rules/*.test.ts",
  "test/isolate/coalescer.node.test.ts",
  "test/isolate/coalescer-bounds.node.test.ts",
  "test/isolate/block-cache-exact.node.test.ts",
  "test/isolate/precount-lease-size.node.test.ts",
  "test/isolate/precount-view.node.test.ts",
  "test/isolate/route.node.test.ts",
  "test/isolate/precount-table.node.test.ts",
  "test/isolate/precount-chain-plain.node.test.ts",
  "test/isolate/object-pace.node.test.ts",
  "test/limiter/concurrency-plan.node.test.ts",
  "test/limiter/dialects.node.test.ts",
  "test/limiter/draft11-fields.node.test.ts",
  "test/limiter/retry-after.node.test.ts",
  "test/limiter/reconcile.node.test.ts",
  "test/limiter/decide-plain.node.test.ts",
  "test/limiter/policy-order.node.test.ts",
  "test/limiter/timeout.node.test.ts",
  "test/limiter/plan-fields.node.test.ts",
  "test/limiter/identifier.node.test.ts",
  "test/limiter/reconcile-bounds.node.test.ts",
  "test/limiter/respond-actions.node.test.ts",
  "test/limiter/summarize-order.node.test.ts",
  "test/limiter/quota-body.node.test.ts",
  "test/limiter/restrictive.node.test.ts",
  "test/limiter/enforcement-plain.node.test.ts",
  "test/limiter/usage.node.test.ts",
  "test/limiter/usage-stream.node.test.ts",
  "test/limiter/owed-home.node.test.ts",
  "test/admission/refusal-exact.node.test.ts",
  "test/durable/lease-book.node.test.ts",
  "test/durable/precount-sync.node.test.ts",
  "test/durable/precount-spent.node.test.ts",
  "test/durable/counter-cache.node.test.ts",
  "test/durable/counter-core.node.test.ts",
  "test/durable/shard-hash-plain.node.test.ts",
  "test/queue/policy-plain.node.test.ts",
  "test/durable/lease-holder.node.test.ts",
  "test/durable/lease-holder-exact.node.test.ts",
  "test/durable/lease-holder-spent.node.test.ts",
  "test/durable/relay-sublease.node.test.ts",
  "test/durable/lease-from-lease.node.test.ts",
  "test/durable/lease-book-bytes.node.test.ts",
  "test/stored/formats.node.test.ts",
  "test/http/*.test.ts",
  "test/request/client-ip.node.test.ts",
  "test/request/client-ip-exact.node.test.ts",
  "test/request/descriptors.node.test.ts",
  "test/request/descriptors-plain.node.test.ts",
  "test/request/cost-forward-plain.node.test.ts",
  "test/request/json-body.node.test.ts",
  "test/request/json-body-read.node.test.ts",
  "test/request/location.node.test.ts",
  "test/origin/origin-view.node.test.ts",
  "test/origin/origin-view-exact.node.test.ts",
  "test/dropins/dropins-plain.node.test.ts",
  "test/hono/compat-plain.node.test.ts",
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
