/**
 * The Cloudflare Queues the test pool runs with: the `on_limit "queue"`
 * block that the default wrangler.toml keeps commented out, in miniflare's
 * terms. test/cli/deploy.test.mjs holds the two to the same queues, so the
 * queue tests exercise exactly what a user gets by uncommenting that block.
 */
// @ts-nocheck


/** `[[queues.producers]]`: binding → queue name. */
export const QUEUE_PRODUCERS: Record<string, string> = {
  QUEUE: "floodgate-queued",
  DEAD_LETTERS: "floodgate-dead-letters",
};

/** `[[queues.consumers]]` of this Worker: queue name → settings. */
export const QUEUE_CONSUMERS: Record<string, { maxBatchSize: number; maxBatchTimeout: number; maxRetries: number; deadLetterQueue: string }> = {
  "floodgate-queued": { maxBatchSize: 10, maxBatchTimeout: 1, maxRetries: 10, deadLetterQueue: "floodgate-dead-letters" },
};
