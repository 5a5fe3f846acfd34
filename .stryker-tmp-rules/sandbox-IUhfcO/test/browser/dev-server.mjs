// @ts-nocheck
// `wrangler dev` for the browser test: a free port, fresh persisted state, the
// given vars, output to a log file; stopped with its whole process group.
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

/**
 * Start `wrangler dev` with `vars` and wait for its healthcheck.
 *
 * @example
 * const dev = await startDev({ ADMIN_TOKEN: "t" });
 * await fetch(`${dev.base}/__ratelimit/healthcheck`);
 * await dev.stop();
 */
export async function startDev(vars, timeoutMs = 90_000) {
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
      if ((await fetch(`${base}/__ratelimit/healthcheck`)).ok) return { base, log, stop };
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stop();
  throw new Error(`wrangler dev did not answer its healthcheck within ${timeoutMs} ms:\n${log()}`);
}
