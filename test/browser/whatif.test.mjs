// The dashboard's rule advisor in a real browser (headless Chromium, as
// dashboard.test.mjs): the advice per policy loads with the dashboard, pasted
// rules show the replay report, and bad rules show rules:check's errors.
// The sample is the Worker's own (GET /__ratelimit/sample): where the Worker
// has it, traffic sent first must show up in the report with its suggestion.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { browserSession, signedInDashboard } from "./chromium.mjs";

const TOKEN = "browser-test-token-0123456789abcdef";
const bundled = JSON.parse(readFileSync("rules.json", "utf8"));

const session = browserSession({ ADMIN_TOKEN: TOKEN });

const signedIn = () => signedInDashboard(session.browser, session.dev.base, TOKEN);

async function paste(page, text) {
  await page.$eval("#whatif-rules", (node, value) => (node.value = value), text);
  await page.click("#whatif-run");
}

test("advice per policy, and pasted rules show the replay report beside the rules in force", async () => {
  // "demo": GET / is 10 a minute per address; 14 requests, 4 refused.
  for (let i = 0; i < 14; i++) await (await fetch(`${session.dev.base}/`, { headers: { "cf-connecting-ip": "192.0.2.77" } })).body?.cancel();
  const sample = await fetch(`${session.dev.base}/__ratelimit/sample?domain=api`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const sampled = sample.ok && (await sample.text()).trim() !== "";
  const { page, errors } = await signedIn();

  await page.waitForSelector("#advice .advice-list li");
  const advice = await page.$$eval("#advice li", (nodes) => nodes.map((n) => n.textContent));
  assert.ok(
    advice.some((line) => line.startsWith("api · per-ip: ")),
    advice.join("\n"),
  );

  // The proposed rules: "demo" down to 5 a minute.
  const proposed = structuredClone(bundled);
  proposed.descriptors[2].descriptors[0].rate_limit.requests_per_unit = 5;
  await paste(page, JSON.stringify(proposed, null, 2));
  await page.waitForSelector("#whatif-result .whatif-table");
  const rows = await page.$$eval("#whatif-result .whatif-row", (nodes) => nodes.map((n) => [...n.children].map((c) => c.textContent)));
  const demo = rows.find((cells) => cells[0].startsWith("api · demo"));
  assert.ok(demo, rows.map((r) => r[0]).join("\n"));
  assert.match(demo[0], /sliding_window_counter 5\/1m|fixed_window 5\/1m|token_bucket 5\/1m|gcra 5\/1m|leaky_bucket 5\/1m|sliding_window_log 5\/1m/);
  assert.match(await page.$eval(".whatif-summary", (n) => n.textContent), /The rules in force reproduce \d+ of \d+ live decisions/);
  if (sampled) {
    // With the Worker's sample: 14 requests of one address, 9 refused at 5 a minute against 4 in force; peak 14, shown with its percentile.
    assert.equal(demo[1], "14");
    assert.match(demo[2], /^9 /);
    assert.match(demo[4], /^4 /);
    assert.match(demo[7], /suggested 14\/1m \(p99 of per-key peak, 1 keys\)/);
  } else {
    assert.equal(demo[7], "no sampled request met it");
  }
  await page.screenshot({ path: `${process.env.TMPDIR ?? "/tmp"}/floodgate-whatif.png`, fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test("bad rules show every error at its path, as rules:check prints them", async () => {
  const { page, errors } = await signedIn();
  await paste(page, JSON.stringify({ domain: "api", descriptors: [{ key: "k", rate_limit: { unit: "eon", requests_per_unit: 1 } }] }));
  await page.waitForSelector("#whatif-result .whatif-errors li");
  const shown = await page.$$eval("#whatif-result .whatif-errors li", (nodes) => nodes.map((n) => n.textContent));
  assert.deepEqual(shown, ['$.descriptors[0].rate_limit.unit: unknown unit "eon" (expected one of: second, minute, hour, day, week, month, year)']);
  await paste(page, '{"domain": ');
  await page.waitForFunction(() => document.querySelector("#whatif-result .whatif-errors li")?.textContent.startsWith("$: invalid JSON"));
  assert.equal(await page.$$eval("#whatif-result .whatif-table", (n) => n.length), 0);
  // The 400 is the answer the page expects: the only console errors allowed are the browser's own notes of it.
  assert.deepEqual(
    errors.filter((e) => !e.includes("400")),
    [],
  );
  await page.close();
});
