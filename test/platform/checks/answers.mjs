/**
 * (i) Answers that go wrong after the object applied the call
 * (docs/reliability.md, "Bounds and the tests that hold them";
 * worker/faults.ts):
 * - `lost-30`: 30 % of the batches carrying a refund (or a debt payment)
 *   are applied, then their answer is lost as a reset (`retryable`), so
 *   the edge sends them again. A key of `/refund-50` (`count_when` 401, a
 *   limit of 50) gets requests whose origin answers 401 (charged) and 200
 *   (each given back by a refund, in the background) in turn, one at a
 *   time, 300 in all: at most 50 of the 401s may reach the origin. A refund
 *   applied twice gives back a hit a 401 holds.
 * - `late-30`: 30 % of `decideText` calls are applied only after the
 *   caller's DECISION_TIMEOUT_MS (the default, 1 s; 60 ms past it, while the
 *   caller is still kept alive to hear the answer), the rest at once; a
 *   fresh key of limit 50 gets 300 requests: 45–50 allowed; then, once the
 *   late calls have landed, 100 more through `home`: none allowed.
 * Both need the object to apply a call once whatever reaches it twice, and
 * a late answer to reconcile with the local decision made meanwhile.
 */
import { createServer } from "node:http";
import { arrival, freshKey, get, platformJson, send, sleep, THREE_REGIONS } from "../lib/traffic.mjs";
import { decisions } from "./faults.mjs";

const LIMIT = 50;
/** The late calls land 1.06 s after they were made (worker/entry.ts); then slack. */
const LATE_LANDED_MS = 3_000;

/**
 * An origin on 127.0.0.1 answering each request with the status its
 * `x-origin-status` header names (default 200); `close()` stops it.
 *
 * @example
 * const origin = await startOrigin(); // { url: "http://127.0.0.1:41234", close }
 */
export async function startOrigin() {
  const server = createServer((request, response) => {
    response.writeHead(Number(request.headers["x-origin-status"]) || 200, { "content-type": "text/plain" });
    response.end("origin");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  };
}

/** The services (id → vars); `originUrl` is startOrigin's. */
export const answerServices = (originUrl) => ({
  "lost-30": { PLATFORM_FAULTS: "0.3:lost", ORIGIN_URL: originUrl },
  "late-30": { PLATFORM_FAULTS: "0.3:late" },
});

/**
 * Rows of the lost- and late-answer checks.
 *
 * @example
 * const rows = await answerChecks({ ports });
 */
export async function answerChecks({ ports, log = () => {} }) {
  const key = freshKey("refund");
  const lost = { charged: 0, refunded: 0, refused: 0, errors: 0 };
  for (let i = 0; i < 300; i++) {
    const status = i % 2 === 0 ? "401" : "200";
    const answer = await get(ports["lost-30"], "/refund-50", key, { cf: THREE_REGIONS[i % 3], headers: { "x-origin-status": status } });
    if (answer.status === 401) lost.charged += 1;
    else if (answer.status === 200) lost.refunded += 1;
    else if (answer.status === 429) lost.refused += 1;
    if (answer.status >= 500) lost.errors += 1;
  }
  const lostTally = await platformJson(ports["lost-30"], "/__platform/faults");
  log(
    `lost-30: ${lost.charged} of 150 charged requests reached the origin, ${lost.refunded} refunded ones, ${lost.refused} refused; ${lostTally.failed.lost} of ${lostTally.calls} answers lost`,
  );

  const lateKey = freshKey("late");
  const late = await send({ ports: [ports["late-30"]], path: "/limit-50", key: lateKey, requests: 300, inFlight: 10 });
  const tally = await platformJson(ports["late-30"], "/__platform/faults");
  await sleep(LATE_LANDED_MS);
  const afterLate = await send({ ports: [ports.home], path: "/limit-50", key: lateKey, requests: 100, inFlight: 10 });
  log(
    `late-30: ${late.allowed} of 300 allowed (${decisions(late)}); ${tally.failed.late} of ${tally.calls} calls late; then ${afterLate.allowed} of 100 through home`,
  );
  return [
    {
      check: `answers: 30 % of refunds' answers lost after the object applied them (retried); count_when 401, limit 50, 401s and 200s in turn, 300, ${arrival(THREE_REGIONS)}`,
      measured: `${lost.charged} charged requests reached the origin, ${lost.errors} 5xx (${lostTally.failed.lost} of ${lostTally.calls} answers lost)`,
      bound: "≤ 50, no 5xx (each refund applied once)",
      pass: lostTally.failed.lost >= 1 && lost.charged <= LIMIT && lost.errors === 0,
    },
    {
      check: `answers: 30 % of calls applied after DECISION_TIMEOUT_MS (1 s), limit 50, 300 requests, then 100 more elsewhere, ${arrival(THREE_REGIONS)}`,
      measured: `${late.allowed} + ${afterLate.allowed} allowed, ${late.errors} 5xx (${tally.failed.late} of ${tally.calls} calls late)`,
      bound: "45–50, then 0; no 5xx",
      pass: tally.failed.late >= 1 && late.allowed >= LIMIT - 5 && late.allowed <= LIMIT && afterLate.allowed === 0 && late.errors === 0,
    },
  ];
}
