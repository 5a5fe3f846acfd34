// Headless Chromium for the dev tier's browser tests (docs/testing.md, "Tiers"): Debian's package (or
// CHROMIUM_PATH) driven by puppeteer-core, and the dashboard opened in it, signed in with a token.
import { execFileSync } from "node:child_process";
import { after, before } from "node:test";
import puppeteer from "puppeteer-core";
import { startDev } from "./dev-server.mjs";

/**
 * Build the dashboard (uPlot copied into vendor/, as wrangler's build command does) and start Chromium.
 *
 * @example
 * browser = await launchChromium(); // in `before`; `await browser.close()` in `after`
 */
export function launchChromium() {
  execFileSync(process.execPath, ["scripts/build-dashboard.mjs"]);
  const chromium = process.env.CHROMIUM_PATH ?? execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], { encoding: "utf8" }).trim();
  // Root in CI containers has no user namespaces for Chromium's sandbox.
  return puppeteer.launch({ executablePath: chromium, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
}

/**
 * A new page on the dashboard at `base`, signed in with `token` (the dashboard shown), and the page's errors and
 * console errors as they come.
 *
 * @example
 * const { page, errors } = await signedInDashboard(browser, dev.base, TOKEN);
 * assert.deepEqual(errors, []);
 */
export async function signedInDashboard(browser, base, token) {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(`${base}/__ratelimit/dashboard`, { waitUntil: "networkidle0" });
  await page.type("#token", token);
  await page.click("#token-form button[type=submit]");
  await page.waitForFunction(() => !document.querySelector("#dashboard").hidden);
  return { page, errors };
}

/**
 * Chromium and `wrangler dev` with `vars` for the tests of one file: started by a `before` hook (Chromium first, so
 * the dashboard is built before wrangler dev serves it), stopped by an `after` one. `browser` and `dev` are set on the
 * object returned once the hook has run.
 *
 * @example
 * const session = browserSession({ ADMIN_TOKEN: TOKEN });
 * test("…", async () => { const page = await session.browser.newPage(); await page.goto(`${session.dev.base}/`); });
 */
export function browserSession(vars) {
  const session = { browser: undefined, dev: undefined };
  before(async () => {
    session.browser = await launchChromium();
    session.dev = await startDev(vars);
  });
  after(async () => {
    await session.browser?.close();
    await session.dev?.stop();
  });
  return session;
}
