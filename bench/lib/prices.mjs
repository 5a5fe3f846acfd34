/**
 * Cloudflare's published prices and Free quotas, in one place: every cost
 * figure of the bench (lib/cost.mjs, lib/object-costs.mjs) and of
 * docs/operations.md ("What a deployment costs, on Free and on Paid") is
 * computed from these. Read on 2026-11-27 from:
 *
 * - developers.cloudflare.com/durable-objects/platform/pricing ("Compute
 *   billing", "Storage billing": SQLite-backed objects are on Workers Free
 *   too; over a Free quota, "further operations of that type will fail with
 *   an error"; daily quotas reset at 00:00 UTC; duration is billed while an
 *   object runs or is idle but cannot hibernate, at 128 MB per object);
 * - developers.cloudflare.com/workers/platform/pricing and
 *   developers.cloudflare.com/workers/platform/limits (Standard usage model;
 *   Free: 100,000 requests a day, 10 ms CPU per invocation);
 * - developers.cloudflare.com/queues/platform/pricing (an operation is a
 *   write, read or delete of up to 64 KB: a delivered message is about 3;
 *   Free: 10,000 a day).
 *
 * USD. `paid` prices are past the included monthly amounts (`included`);
 * Workers Paid is at least $5 a month.
 */
export const PRICES = {
  readOn: "2026-11-27",
  pages: [
    "https://developers.cloudflare.com/durable-objects/platform/pricing",
    "https://developers.cloudflare.com/workers/platform/pricing",
    "https://developers.cloudflare.com/workers/platform/limits",
    "https://developers.cloudflare.com/queues/platform/pricing",
  ],
  objectGb: 0.128,
  paid: {
    monthlyMinimum: 5,
    perMillion: {
      workerRequests: 0.3,
      cpuMs: 0.02,
      objectRequests: 0.15,
      gbSeconds: 12.5,
      rowsRead: 0.001,
      rowsWritten: 1.0,
      queueOperations: 0.4,
    },
    storageGbMonth: 0.2,
    included: {
      workerRequests: 10_000_000,
      cpuMs: 30_000_000,
      objectRequests: 1_000_000,
      gbSeconds: 400_000,
      rowsRead: 25_000_000_000,
      rowsWritten: 50_000_000,
      queueOperations: 1_000_000,
      storageGb: 5,
    },
  },
  free: {
    perDay: {
      workerRequests: 100_000,
      objectRequests: 100_000,
      gbSeconds: 13_000,
      rowsRead: 5_000_000,
      rowsWritten: 100_000,
      queueOperations: 10_000,
    },
    cpuMsPerInvocation: 10,
    storageGb: 5,
  },
};

/**
 * Dollars per million gateway requests on Workers Paid, past the included
 * amounts, from what one request used on average (`perRequest`: worker
 * requests, CPU ms, object requests, GB-s, rows read and written, queue
 * operations).
 *
 * @example
 * paidPerMillion({ workerRequests: 1, cpuMs: 0.5, objectRequests: 1, gbSeconds: 0, rowsRead: 0, rowsWritten: 0.01, queueOperations: 0 }); // 0.47
 */
export function paidPerMillion(perRequest) {
  return Object.entries(PRICES.paid.perMillion).reduce((sum, [what, price]) => sum + (perRequest[what] ?? 0) * price, 0);
}

/**
 * On Workers Free: how many gateway requests a day fit in every daily quota
 * at `perRequest`'s use, and which quota runs out first.
 *
 * @example
 * freeRequestsPerDay({ workerRequests: 1, objectRequests: 1.02, rowsWritten: 0.1 }); // { requests: 98039, first: "objectRequests" }
 */
export function freeRequestsPerDay(perRequest) {
  let best = { requests: Infinity, first: "none" };
  for (const [what, quota] of Object.entries(PRICES.free.perDay)) {
    const use = perRequest[what] ?? 0;
    if (use > 0 && quota / use < best.requests) best = { requests: Math.floor(quota / use), first: what };
  }
  return best;
}
