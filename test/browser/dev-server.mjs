// `wrangler dev` for the dev tier's tests (docs/testing.md, "Tiers"): a free port, fresh persisted state, the
// given vars, output to a log file; stopped with its whole process group. `npm run test:slow` starts one
// server with `{ ADMIN_TOKEN: DEV_TOKEN }` for the whole tier (FLOODGATE_DEV_SERVER): a test asking for exactly
// those vars gets that one, a test asking for others starts its own.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A port nothing listens on right now. */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The admin token of the dev tier's shared server (at least 32 characters, as ADMIN_TOKEN must be). */
export const DEV_TOKEN = "dev-tier-token-of-at-least-32-characters";

/** The shared server of FLOODGATE_DEV_SERVER (`{ base, logFile, vars }`) when it was started with `vars`. */
function sharedDev(vars) {
  if (!process.env.FLOODGATE_DEV_SERVER) return undefined;
  const shared = JSON.parse(process.env.FLOODGATE_DEV_SERVER);
  const same = (a, b) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
  if (!same(shared.vars, vars)) return undefined;
  // Its owner stops it, after the whole tier.
  return { base: shared.base, log: () => readFileSync(shared.logFile, "utf8"), stop: async () => {} };
}

/**
 * Start `wrangler dev` with `vars` and wait for its healthcheck (or hand out the tier's shared server, if it
 * has exactly these vars).
 *
 * @example
 * const dev = await startDev({ ADMIN_TOKEN: "a-token-of-at-least-32-characters" });
 * await fetch(`${dev.base}/__ratelimit/healthcheck`);
 * await dev.stop();
 */
export async function startDev(vars, timeoutMs = 90_000) {
  const shared = sharedDev(vars);
  if (shared) return shared;
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "floodgate-browser-"));
  const logFile = join(dir, "wrangler.log");
  const out = openSync(logFile, "w");
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", join(dir, "state"), "--show-interactive-dev-session=false"];
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  const child = spawn(join("node_modules", ".bin", "wrangler"), args, {
    detached: true,
    stdio: ["ignore", out, out],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  const base = `http://127.0.0.1:${port}`;
  const log = () => readFileSync(logFile, "utf8");
  const stop = async () => {
    if (child.exitCode === null) {
      process.kill(-child.pid, "SIGTERM");
      await new Promise((resolve) => {
        const force = setTimeout(() => {
          if (child.exitCode === null) process.kill(-child.pid, "SIGKILL");
          resolve();
        }, 5_000);
        child.once("exit", () => {
          clearTimeout(force);
          resolve();
        });
      });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early:\n${log()}`);
    try {
      if ((await fetch(`${base}/__ratelimit/healthcheck`)).ok) return { base, log, logFile, vars, stop };
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stop();
  throw new Error(`wrangler dev did not answer its healthcheck within ${timeoutMs} ms:\n${log()}`);
}

/**
 * Upload `rules` (an object, or JSON text as it is) to the server at `dev.base` with the admin `token`; fails the
 * test unless it is answered 200.
 *
 * @example
 * await putRules(dev, TOKEN, { domain: "api", descriptors: [...], routes: [...] });
 */
export async function putRules(dev, token, rules) {
  const put = await fetch(`${dev.base}/__ratelimit/rules`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: typeof rules === "string" ? rules : JSON.stringify(rules),
  });
  assert.equal(put.status, 200, await put.text());
}
