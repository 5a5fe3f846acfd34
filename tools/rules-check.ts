/**
 * `npm run rules:check [file]`: validate a rules file (default `rules.json`).
 * Exit 0 with a one-line summary when valid; exit 1 with every error, one
 * `<path>: <message>` per line on stderr, when not.
 *
 * Node runs this file directly (type stripping), so it uses only erasable
 * TypeScript. The project type-checks against Workers types without
 * @types/node, so the few Node APIs used here are typed locally.
 */
import { compileRules } from "../src/rules/compile.ts";
import { parseRulesText } from "../src/rules/text.ts";

import { nodeProcess, readFileSync, type Writer } from "./node-io.ts";

/**
 * Check one file, write the report, and return the exit code.
 *
 * @example
 * checkFile("rules.json"); // 0, after printing "rules.json: 1 domain, 5 descriptors, 6 limits, 3 routes"
 */
export function checkFile(file: string, out: Writer = nodeProcess.stdout, err: Writer = nodeProcess.stderr): number {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : String(error);
    err.write(`${file}: cannot read rules file (${why})\n`);
    return 1;
  }
  const parsed = parseRulesText(text);
  if (!parsed.ok) {
    err.write(`${file}:${parsed.line}:${parsed.column}: invalid JSON: ${parsed.reason}\n`);
    return 1;
  }
  const result = compileRules(parsed.value, { source: file });
  if (result.ok) {
    out.write(`${result.summary}\n`);
    return 0;
  }
  for (const e of result.errors) err.write(`${e.path}: ${e.message}\n`);
  const n = result.errors.length;
  err.write(`${file}: ${n} error${n === 1 ? "" : "s"}, rules rejected\n`);
  return 1;
}

/**
 * The command line: `[file]`, or `--help`. Returns the exit code.
 *
 * @example
 * main(["rules.json"]); // 0 when valid
 */
export function main(args: readonly string[]): number {
  if (args[0] === "-h" || args[0] === "--help") {
    nodeProcess.stdout.write("usage: npm run rules:check [file]   (default: rules.json)\n");
    return 0;
  }
  if (args.length > 1) {
    nodeProcess.stderr.write("usage: npm run rules:check [file]   (one file at most)\n");
    return 2;
  }
  return checkFile(args[0] ?? "rules.json");
}

// `import.meta.main` is missing before Node 22.18; fall back to the script path.
const isMain = (import.meta as { main?: boolean }).main ?? /[\\/]cli\.ts$/.test(nodeProcess.argv[1] ?? "");
if (isMain) nodeProcess.exitCode = main(nodeProcess.argv.slice(2));
