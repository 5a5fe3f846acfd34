import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Every test runs inside workerd with the real bindings from wrangler.toml:
// real Durable Objects, real SQLite storage, real fetch. The global setup
// starts a real origin server on 127.0.0.1 for the forwarding tests.
export default defineConfig({
  plugins: [
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: "./wrangler.toml" },
      // METRICS_FLUSH_MS=0: metric counts are sent within each request's waitUntil,
      // so tests see them without waiting out the production flush interval.
      miniflare: { bindings: { TEST_ORIGIN_URL: inject<string>("originUrl"), METRICS_FLUSH_MS: "0" } },
    })),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.mjs"],
    testTimeout: 30_000,
  },
});
