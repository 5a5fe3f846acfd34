/**
 * The rules deployed with the worker (`rules.json`), compiled once per
 * isolate. `npm run dev` and `npm run deploy` run `rules:check` first, so an
 * invalid file is stopped before it ships; if one slips through anyway, the
 * error names every problem.
 */
// @ts-nocheck

import rulesJson from "../../rules.json";
import { compileOnce } from "./compile.ts";

/**
 * The compiled bundled rules.
 *
 * @example
 * bundledRules().domains.get("api");
 */
export const bundledRules = compileOnce(rulesJson, "rules.json");
