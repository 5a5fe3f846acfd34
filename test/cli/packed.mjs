// The package as a user's Worker installs it (test/cli/package.slow.test.mjs, package-dropins.slow.test.mjs): the
// repository packed with `npm pack` and unpacked into a scratch project's node_modules/floodgate.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

/**
 * Pack `root` and install the tarball into `scratch/node_modules/floodgate`, with the package's peer (hono)
 * and the Workers types linked from `root`, as the user's own install would provide them (no network here).
 */
export function installPacked(root, scratch) {
  const packed = spawnSync("npm", ["pack", "--silent", "--pack-destination", scratch], { cwd: root, encoding: "utf8" });
  assert.equal(packed.status, 0, `npm pack failed:\n${packed.stderr}`);
  const tarball = join(scratch, packed.stdout.trim().split("\n").pop());
  const installed = join(scratch, "node_modules", "floodgate");
  mkdirSync(installed, { recursive: true });
  const untar = spawnSync("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"], { encoding: "utf8" });
  assert.equal(untar.status, 0, untar.stderr);
  symlinkSync(join(root, "node_modules", "hono"), join(scratch, "node_modules", "hono"));
  mkdirSync(join(scratch, "node_modules", "@cloudflare"));
  symlinkSync(join(root, "node_modules", "@cloudflare", "workers-types"), join(scratch, "node_modules", "@cloudflare", "workers-types"));
}

/** A port on 127.0.0.1 that was free a moment ago, for a `wrangler dev` of the scratch Worker. */
export function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.on("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}
