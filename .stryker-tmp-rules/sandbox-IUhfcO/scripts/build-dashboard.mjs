#!/usr/bin/env node
// @ts-nocheck
// Copies uPlot (the dashboard's charting library) from node_modules into the
// static assets, next to the page: public/__ratelimit/dashboard/vendor/.
// Run by wrangler's [build] command (wrangler dev and deploy) and by the
// browser test. The copy is gitignored: package-lock.json pins the version,
// `npm update uplot` moves it, and no minified file sits in the history.
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const uplot = dirname(createRequire(join(root, "package.json")).resolve("uplot/package.json"));
const vendor = join(root, "public", "__ratelimit", "dashboard", "vendor");
mkdirSync(vendor, { recursive: true });
for (const [from, to] of [
  ["dist/uPlot.iife.min.js", "uPlot.iife.min.js"],
  ["dist/uPlot.min.css", "uPlot.min.css"],
  ["LICENSE", "uPlot.LICENSE.txt"],
]) {
  copyFileSync(join(uplot, from), join(vendor, to));
}
