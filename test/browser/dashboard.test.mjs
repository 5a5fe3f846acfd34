// The dashboard in a real browser: headless Chromium (Debian's package) driven
// by puppeteer-core against `wrangler dev` with the bundled rules.json. Enters
// the token, generates allowed and limited traffic, waits for the charts and
// the top table, sees more traffic arrive while the page is open, looks the
// limited key up and resets it, and fails on any
// console error. Then: a refused token brings the form back, "Forget token"
// forgets it, a hostile key is shown as text (no script runs), and the page
// is served with its Content-Security-Policy. Writes a screenshot to the temporary folder (to docs/dashboard.png,
// the README's, with UPDATE_SCREENSHOT=1). Run by scripts/test.mjs when
// Chromium is installed (CHROMIUM_PATH, or `chromium` on PATH).
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { shardKeyOfSecret } from "../../src/advisor/digest.ts";
import { labelKey, shownValue } from "../../src/metrics/labels.ts";
import { descriptorText } from "../../src/metrics/traffic-shape.ts";
import { browserSession } from "./chromium.mjs";

// At least 32 characters, as ADMIN_TOKEN must be.
const TOKEN = "browser-test-token-0123456789abcdef";
// The deployment's secret: the dashboard shows limited values hashed with a key derived from it (docs/metrics.md).
const SHARD_KEY = "browser-test-shard-key";
const IP = "192.0.2.44";
const OTHER_IP = "192.0.2.45";

const session = browserSession({ ADMIN_TOKEN: TOKEN, SHARD_KEY });

/** Traffic against rules.json: `GET /` is limited to 10 a minute per address ("demo"); "trial-*" keys are a shadow limit. */
async function generateTraffic() {
  const statuses = [];
  for (let i = 0; i < 14; i++) statuses.push((await fetch(`${session.dev.base}/`, { headers: { "cf-connecting-ip": IP } })).status);
  for (let i = 0; i < 15; i++) await fetch(`${session.dev.base}/search`, { headers: { "cf-connecting-ip": "198.51.100.9", "x-api-key": "trial-42" } });
  return statuses;
}

test("token entry, live charts with data, the limited key in the top table, reset, no console errors", async (t) => {
  try {
    const statuses = await generateTraffic();
    assert.deepEqual(statuses, [...Array(10).fill(200), ...Array(4).fill(429)], "the demo limit allows 10 then limits");

    const page = await session.browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const errors = [];
    page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
    page.on("pageerror", (error) => errors.push(String(error)));
    page.on("requestfailed", (request) => errors.push(`${request.url()}: ${request.failure()?.errorText}`));
    const cdp = await page.createCDPSession();
    await cdp.send("Network.enable");
    let transferred = 0;
    cdp.on("Network.loadingFinished", (event) => (transferred += event.encodedDataLength));

    const url = `${session.dev.base}/__ratelimit/dashboard`;
    const response = await page.goto(url, { waitUntil: "networkidle0" });
    assert.equal(response.status(), 200);
    t.diagnostic(`page transfer before the token (HTML, CSS, JS, uPlot, headers included; gzip as wrangler dev serves it): ${transferred} bytes`);

    await page.type("#token", TOKEN);
    await page.click("#token-form button[type=submit]");
    const key = `path=/,remote_address=${IP}`;
    await page.waitForFunction((k) => [...document.querySelectorAll("#top-keys td.key")].some((td) => td.textContent === k), { timeout: 20_000 }, key);
    await page.waitForSelector("#traffic .uplot canvas");

    // The token lives in this tab's session storage only: not in the URL, not in a cookie.
    assert.equal(await page.evaluate(() => sessionStorage.getItem("floodgate.adminToken")), TOKEN);
    assert.equal(page.url(), url);
    assert.equal(await page.evaluate(() => document.cookie), "");

    const demo = await page.evaluate(() => {
      const card = [...document.querySelectorAll("#traffic .policy")].find((c) =>
        c.querySelector("h3").textContent.startsWith("api · path_/.remote_address · demo"),
      );
      const canvas = card.querySelector("canvas");
      const { data } = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
      let red = 0; // the "limited/s" line (#f04438)
      for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 0 && data[i] > 200 && data[i + 1] < 120 && data[i + 2] < 110) red += 1;
      return { totals: card.querySelector("p").textContent, red };
    });
    assert.match(demo.totals, /allowed 10 · limited 4 /);
    assert.ok(demo.red > 0, "the limited series is drawn");
    const top = await page.evaluate(
      (k) => [...document.querySelectorAll("#top-keys tr.key-row")].find((row) => row.querySelector("td.key").textContent === k).children[1].textContent,
      key,
    );
    assert.equal(top, "4");
    const health = await page.$eval("#health", (node) => node.textContent);
    assert.match(health, /Shadow rules that would have limited \(1\)/);
    assert.match(health, /api · api_key_trial-\* · trial/);

    // Live: traffic from a second address in the next 10-second bucket reaches the open page without a reload.
    await new Promise((resolve) => setTimeout(resolve, 10_000 - (Date.now() % 10_000) + 200));
    for (let i = 0; i < 12; i++) await fetch(`${session.dev.base}/`, { headers: { "cf-connecting-ip": OTHER_IP } });
    await page.waitForFunction(() => [...document.querySelectorAll("#traffic .policy p")].some((p) => p.textContent.startsWith("allowed 20 · limited 6 ")), {
      timeout: 15_000,
    });

    // Look the key up from the top table, then reset it. The page shows what the counters API says: the key's
    // sliding window frees a request now and then once a minute boundary has passed (this test waits on the clock
    // above), so the shown value lies between two API reads made before and after it, never above the limit's 10.
    const remainingNow = async () =>
      (
        await (
          await fetch(`${session.dev.base}/__ratelimit/counters?domain=api&descriptor=path=/,remote_address=${IP}`, {
            headers: { authorization: `Bearer ${TOKEN}` },
          })
        ).json()
      ).limits[0].remaining;
    const before = await remainingNow();
    await page.evaluate((k) => {
      const row = [...document.querySelectorAll("#top-keys tr.key-row")].find((r) => r.querySelector("td.key").textContent === k);
      row.querySelector("button").click();
    }, key);
    await page.waitForSelector("#lookup-result td.remaining");
    const shown = Number(await page.$eval("#lookup-result td.remaining", (td) => td.textContent));
    const after = await remainingNow();
    assert.ok(before <= shown && shown <= after && after < 10, `shown ${shown}, the API said ${before} before and ${after} after`);
    await page.click("#lookup-reset");
    await page.waitForFunction(() => document.querySelector("#lookup-result p")?.textContent === "Counter reset.");
    assert.equal(await page.$eval("#lookup-result td.remaining", (td) => td.textContent), "10");
    const counter = await fetch(`${session.dev.base}/__ratelimit/counters?domain=api&descriptor=path=/,remote_address=${IP}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal((await counter.json()).limits[0].remaining, 10);
    assert.equal((await fetch(`${session.dev.base}/`, { headers: { "cf-connecting-ip": IP } })).status, 200, "the key is allowed again after the reset");

    // The screenshot zoomed on the last 5 minutes, where the bursts are.
    await page.select("#range", "300");
    await page.waitForNetworkIdle({ idleTime: 500 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: process.env.UPDATE_SCREENSHOT === "1" ? "docs/dashboard.png" : join(tmpdir(), "floodgate-dashboard.png"), fullPage: true });
    assert.deepEqual(errors, [], "no console errors");
  } catch (error) {
    t.diagnostic(`wrangler dev log:\n${session.dev.log()}`);
    throw error;
  }
});

/** A fresh page on the dashboard, collecting console errors. */
async function openDashboard() {
  const page = await session.browser.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  const response = await page.goto(`${session.dev.base}/__ratelimit/dashboard`, { waitUntil: "networkidle0" });
  return { page, response, errors };
}

const visible = (page, id) => page.$eval(`#${id}`, (node) => !node.hidden);

test("a refused token brings the token form back, with the reason, and keeps nothing", async () => {
  const { page } = await openDashboard();
  await page.type("#token", `${TOKEN}-wrong`);
  await page.click("#token-form button[type=submit]");
  await page.waitForFunction(() => document.querySelector("#token-error").textContent !== "");
  assert.equal(await page.$eval("#token-error", (node) => node.textContent), "The admin token was refused.");
  assert.equal(await visible(page, "token-form"), true);
  assert.equal(await visible(page, "dashboard"), false);
  assert.equal(await page.evaluate(() => sessionStorage.getItem("floodgate.adminToken")), null);
  await page.close();
});

test("Forget token hides the dashboard, brings the form back and clears the token", async () => {
  const { page } = await openDashboard();
  await page.type("#token", TOKEN);
  await page.click("#token-form button[type=submit]");
  await page.waitForFunction(() => !document.querySelector("#dashboard").hidden);
  assert.equal(await visible(page, "signout"), true);
  await page.click("#signout");
  assert.equal(await visible(page, "token-form"), true);
  assert.equal(await visible(page, "dashboard"), false);
  assert.equal(await visible(page, "signout"), false);
  assert.equal(await page.evaluate(() => sessionStorage.getItem("floodgate.adminToken")), null);
  // A reload does not bring the dashboard back: the token is gone.
  await page.reload({ waitUntil: "networkidle0" });
  assert.equal(await visible(page, "dashboard"), false);
  await page.close();
});

test("a hostile key in the top table is shown as text, and only as its short prefix and hash: no element, no script", async () => {
  // Over the shadow "trial-*" limit (a burst of 10), so the key is among the keys most limited.
  const hostile = `trial-<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>`;
  for (let i = 0; i < 14; i++) await fetch(`${session.dev.base}/search`, { headers: { "cf-connecting-ip": "198.51.100.10", "x-api-key": hostile } });
  const { page, errors } = await openDashboard();
  await page.type("#token", TOKEN);
  await page.click("#token-form button[type=submit]");
  // The table keeps a limited value as its first characters and a hash (docs/metrics.md), never the value.
  const expected = descriptorText([{ key: "api_key", value: shownValue("api_key", hostile, labelKey(shardKeyOfSecret(SHARD_KEY))) }]);
  await page.waitForFunction((k) => [...document.querySelectorAll("#top-keys td.key")].some((td) => td.textContent === k), { timeout: 20_000 }, expected);
  const shown = await page.evaluate(() => ({
    text: document.querySelector("#top-keys").textContent,
    elements: document.querySelectorAll("#top-keys img, #top-keys script").length,
    pwned: window.__pwned,
  }));
  assert.ok(!shown.text.includes("<img"), shown.text);
  assert.equal(shown.elements, 0);
  assert.equal(shown.pwned, undefined);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the page is served with its Content-Security-Policy: scripts from its own origin only, no framing", async () => {
  const { page, response } = await openDashboard();
  const csp = response.headers()["content-security-policy"] ?? "";
  const directives = Object.fromEntries(
    csp
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name, values.join(" ")]),
  );
  assert.equal(directives["default-src"], "'none'");
  assert.equal(directives["script-src"], "'self'");
  assert.equal(directives["frame-ancestors"], "'none'");
  assert.equal(directives["base-uri"], "'none'");
  // And the browser enforces it: an inline script is refused.
  const ran = await page.evaluate(() => {
    const script = document.createElement("script");
    script.textContent = "window.__inline = 1";
    document.body.append(script);
    return window.__inline;
  });
  assert.equal(ran, undefined);
  await page.close();
});

test("the overrides panel lists a domain's overrides, and a counter lookup names the one that applies", async () => {
  const put = await fetch(`${session.dev.base}/__ratelimit/overrides`, {
    method: "PUT",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ domain: "api", descriptor: "api_key=panel-*", rate_limit: { unit: "hour", requests_per_unit: 42 }, note: "<b>not bold</b>" }),
  });
  assert.equal(put.status, 200);
  const { page, errors } = await openDashboard();
  await page.type("#token", TOKEN);
  await page.click("#token-form button[type=submit]");
  await page.waitForFunction(() => !document.querySelector("#dashboard").hidden);
  await page.type("#overrides-domain", "api");
  await page.click("#overrides-list");
  await page.waitForSelector(".overrides-table tbody tr");
  const rows = await page.$$eval(".overrides-table tbody tr", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.deepEqual(rows, [["api_key=panel-*", "42 per hour", "never", "<b>not bold</b>"]]);
  assert.equal(await page.$(".overrides-table b"), null, "the note is text, not markup");
  await page.$eval("#lookup-domain", (node) => (node.value = "api"));
  await page.$eval("#lookup-descriptor", (node) => (node.value = "api_key=panel-7"));
  await page.click("#lookup-read");
  await page.waitForSelector("#lookup-result .override");
  assert.equal(await page.$eval("#lookup-result .override", (node) => node.textContent), "Override in force: api_key=panel-* (<b>not bold</b>)");
  assert.deepEqual(errors, []);
  await page.close();
});
