// @ts-nocheck
// `floodgate/client` in plain Node, imported by its package name (the
// "exports" map of package.json), against a Node HTTP server: proof that the
// client needs nothing from Workers. Node strips the TypeScript types itself.
//   ./node_modules/.bin/node --test test/cli/
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";
import { rateLimitedFetch, RateLimitError, Throttle } from "floodgate/client";

/** A server answering each request with the next of `answers`; records arrival times. */
async function serve(answers) {
  const arrivals = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      arrivals.push({ at: Date.now(), body });
      const [status, headers] = answers[Math.min(arrivals.length - 1, answers.length - 1)];
      res.writeHead(status, headers);
      res.end(status === 200 ? "ok" : "slow down");
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const close = () => new Promise((resolve) => server.close(resolve));
  return { url: `http://127.0.0.1:${server.address().port}/jobs`, arrivals, close };
}

test("waits out Retry-After (seconds) before sending again, body intact", async () => {
  const origin = await serve([
    [429, { "Retry-After": "1", RateLimit: '"jobs";r=0;t=1' }],
    [200, { RateLimit: '"jobs";r=4;t=1' }],
  ]);
  try {
    const response = await rateLimitedFetch(origin.url, { method: "POST", body: "job-1" }, { throttle: new Throttle() });
    assert.equal(response.status, 200);
    assert.equal(await response.text(), "ok");
    assert.equal(origin.arrivals.length, 2);
    assert.ok(origin.arrivals[1].at - origin.arrivals[0].at >= 1000, `resent after ${origin.arrivals[1].at - origin.arrivals[0].at} ms`);
    assert.deepEqual(
      origin.arrivals.map((a) => a.body),
      ["job-1", "job-1"],
    );
  } finally {
    await origin.close();
  }
});

test("an HTTP-date Retry-After is honoured too", async () => {
  const at = new Date(Date.now() + 2000).toUTCString(); // whole seconds: 1-2 s from now
  const origin = await serve([
    [503, { "Retry-After": at }],
    [200, {}],
  ]);
  try {
    const response = await rateLimitedFetch(origin.url, undefined, { throttle: new Throttle() });
    assert.equal(response.status, 200);
    assert.ok(origin.arrivals[1].at >= Date.parse(at), "sent before the date it was given");
  } finally {
    await origin.close();
  }
});

test("gives up after the retry budget with a RateLimitError", async () => {
  const origin = await serve([[429, { "Retry-After": "0" }]]);
  try {
    await assert.rejects(
      rateLimitedFetch(origin.url, undefined, { throttle: new Throttle(), maxRetries: 2, baseDelayMs: 10 }),
      (error) => error instanceof RateLimitError && error.attempts === 3 && error.response.status === 429,
    );
    assert.equal(origin.arrivals.length, 3);
  } finally {
    await origin.close();
  }
});
