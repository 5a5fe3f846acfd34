// The bench's cost arithmetic (bench/lib/prices.mjs, bench/lib/object-costs.mjs):
// dollars per million on Workers Paid and requests a day within Workers Free's
// quotas, from what the objects were counted doing. Pure functions, so plain
// Node (node:test):
//   ./node_modules/.bin/node --test test/cli/bench-cost.test.mjs
import assert from "node:assert/strict";
import { test } from "node:test";
import { costOfScenario, MONTH_S, SETTLE_MS, STORAGE_TAIL_S } from "../../bench/lib/object-costs.mjs";
import { freeRequestsPerDay, paidPerMillion, PRICES } from "../../bench/lib/prices.mjs";

const near = (actual, expected) => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} is not ${expected}`);

test("paidPerMillion prices each thing a request used at its published price past the included amounts", () => {
  near(paidPerMillion({ workerRequests: 1 }), 0.3);
  near(paidPerMillion({ workerRequests: 1, objectRequests: 2, rowsWritten: 0.5, cpuMs: 1 }), 0.3 + 2 * 0.15 + 0.5 * 1 + 0.02);
  near(paidPerMillion({ gbSeconds: 1 }), 12.5);
  near(paidPerMillion({}), 0);
});

test("freeRequestsPerDay names the daily quota that runs out first", () => {
  assert.deepEqual(freeRequestsPerDay({ workerRequests: 1, objectRequests: 2 }), { requests: 50_000, first: "objectRequests" });
  assert.deepEqual(freeRequestsPerDay({ workerRequests: 1, rowsWritten: 4 }), { requests: 25_000, first: "rowsWritten" });
  assert.deepEqual(freeRequestsPerDay({ workerRequests: 1 }), { requests: 100_000, first: "workerRequests" });
  assert.deepEqual(freeRequestsPerDay({ gbSeconds: 1 }), { requests: PRICES.free.perDay.gbSeconds, first: "gbSeconds" });
});

test("costOfScenario sums every class per request, alarms as requests and alarms set as rows written", () => {
  const cost = costOfScenario({
    requests: 1_000,
    cpuMs: 500,
    byClass: {
      CounterObject: { requests: 900, alarms: 100, rowsRead: 10, rowsWritten: 200, alarmSets: 50, activeMs: 1_000, instances: 4 },
      MetricsObject: { requests: 10, alarms: 0, rowsRead: 0, rowsWritten: 90, alarmSets: 0, activeMs: 0, instances: 1 },
    },
  });
  near(cost.perRequest.objectRequests, 1.01);
  near(cost.perRequest.rowsWritten, 0.34);
  near(cost.perRequest.cpuMs, 0.5);
  near(cost.perRequest.gbSeconds, (1 * PRICES.objectGb) / 1_000);
  near(cost.classes.CounterObject.requestsPer1000, 1_000);
  near(cost.classes.CounterObject.rowsWrittenPer1000, 200);
  near(cost.paidDollarsPerMillion, paidPerMillion(cost.perRequest));
  assert.equal(cost.free.first, "objectRequests");
});

// Break tried: storage priced as a month per request's bytes (as before): $ 1,000 × too high here.
test("costOfScenario prices stored bytes for as long as they are held (load, quiet wait, STORAGE_TAIL_S), per request", () => {
  const cost = costOfScenario({
    requests: 1_000,
    cpuMs: 0,
    loadSeconds: 10,
    byClass: {
      CounterObject: { requests: 1_000, alarms: 0, rowsRead: 0, rowsWritten: 0, alarmSets: 0, activeMs: 0, instances: 1, storedBytes: 1e9 },
    },
  });
  const heldS = 10 + SETTLE_MS / 1000 + STORAGE_TAIL_S;
  // 1 GB held heldS, over 1,000 requests: per million requests, 1,000 × that.
  near(cost.storageDollarsPerMillion, 1_000 * PRICES.paid.storageGbMonth * (heldS / MONTH_S));
  near(cost.paidDollarsPerMillion, paidPerMillion(cost.perRequest) + cost.storageDollarsPerMillion);
});
