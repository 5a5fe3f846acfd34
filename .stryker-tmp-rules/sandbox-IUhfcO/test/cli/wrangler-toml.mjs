// @ts-nocheck
// The default wrangler.toml with its on_limit "queue" block uncommented, as
// its heading tells a user to do it: remove one "# " from each line between
// the blank comment line under the heading and the end marker.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const repo = fileURLToPath(new URL("../..", import.meta.url));
export const defaultToml = readFileSync(new URL("wrangler.toml", new URL("../../", import.meta.url)), "utf8");

/**
 * `text` with the queue block enabled; throws when the block's markers are missing.
 *
 * @example
 * writeFileSync(join(dir, "wrangler.toml"), enableQueues(defaultToml));
 */
export function enableQueues(text) {
  const lines = text.split("\n");
  const heading = lines.findIndex((l) => l.startsWith("# ── Enabling on_limit"));
  const end = lines.findIndex((l) => l.startsWith("# ── end of the on_limit"));
  const first = lines.indexOf("#", heading);
  if (heading < 0 || end < 0 || first < 0 || first > end) throw new Error('wrangler.toml has no on_limit "queue" block to enable');
  for (let i = first + 1; i < end; i++) lines[i] = lines[i] === "#" ? "" : lines[i].replace(/^# /, "");
  return lines.join("\n");
}
