/**
 * `npm run rules:check [file] [--config <wrangler.toml>]`: validate a rules
 * file (default `rules.json`). Exit 0 with a one-line summary when valid
 * (and on stderr a `<path>: warning: <message>` line for each path written
 * in a form no request is matched in, each rule value written as a long
 * value's stored key, each client-chosen value under per-key placement, and
 * each `replaces` a client reaches by typing a value of a pattern); exit 1 with every error, one
 * `<path>: <message>` per line on stderr, when not. Rules with `on_limit:
 * "queue"` are also checked against the wrangler configuration (default
 * `./wrangler.toml`, skipped when there is none): it must bind the `QUEUE`
 * producer, which the default one leaves commented out.
 *
 * Node runs this file directly (type stripping), so it uses only erasable
 * TypeScript. The project type-checks against Workers types without
 * @types/node, so the few Node APIs used here are typed locally.
 */
import { compileRules } from "../src/rules/compile.ts";
import { pathWarnings } from "../src/rules/path-warnings.ts";
import { replacesWarnings } from "../src/rules/replaces-warnings.ts";
import { valueWarnings } from "../src/rules/value-warnings.ts";
import { missingQueueMessage, QUEUE_BINDING, queueLimitPaths } from "../src/rules/queue-limits.ts";
import { parseRulesText } from "../src/rules/text.ts";
import type { RuleError } from "../src/rules/types.ts";

import { nodeProcess, readFileSync, type Writer } from "./node-io.ts";
import { queueProducerBindings } from "./wrangler-config.ts";

const DEFAULT_CONFIG = "wrangler.toml";

export interface CheckOptions {
  /** The wrangler configuration the rules will run under; absent: `./wrangler.toml` if there is one. */
  readonly config?: string;
  readonly out?: Writer;
  readonly err?: Writer;
}

/**
 * Check one file, write the report, and return the exit code.
 *
 * @example
 * await checkFile("rules.json"); // 0, after printing "rules.json: 1 domain, 5 descriptors, 6 limits, 3 routes"
 */
export async function checkFile(file: string, options: CheckOptions = {}): Promise<number> {
  const { out = nodeProcess.stdout, err = nodeProcess.stderr } = options;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    err.write(`${file}: cannot read rules file (${readFailure(error)})\n`);
    return 1;
  }
  const parsed = parseRulesText(text);
  if (!parsed.ok) {
    err.write(`${file}:${parsed.line}:${parsed.column}: invalid JSON: ${parsed.reason}\n`);
    return 1;
  }
  const result = compileRules(parsed.value, { source: file });
  const errors = result.ok ? await bindingErrors(parsed.value, options.config, err) : result.errors;
  if (errors === undefined) return 1;
  if (result.ok && errors.length === 0) {
    out.write(`${result.summary}\n`);
    // Warnings do not fail the check: the rules work, though not as written (docs/rules.md, "Canonical paths").
    // And per-key placement on client-chosen values, rule values written as a long value's stored key, `replaces`
    // a client reaches by typing a value (docs/rules.md).
    for (const w of [...pathWarnings(parsed.value), ...valueWarnings(parsed.value), ...replacesWarnings(parsed.value)])
      err.write(`${w.path}: warning: ${w.message}\n`);
    return 0;
  }
  for (const e of errors) err.write(`${e.path}: ${e.message}\n`);
  const n = errors.length;
  err.write(`${file}: ${n} error${n === 1 ? "" : "s"}, rules rejected\n`);
  return 1;
}

/** One error per queue limit when the configuration lacks the QUEUE producer; undefined when it cannot be read. */
async function bindingErrors(rules: unknown, config: string | undefined, err: Writer): Promise<RuleError[] | undefined> {
  const paths = queueLimitPaths(rules);
  if (paths.length === 0) return [];
  const path = config ?? DEFAULT_CONFIG;
  const producers = await queueProducerBindings(path);
  if (!producers.ok) {
    // Rules checked away from any Worker project have no configuration to hold them to.
    if (config === undefined && producers.reason === "no such file") return [];
    err.write(`${path}: cannot read the wrangler configuration (${producers.reason})\n`);
    return undefined;
  }
  if (producers.bindings.includes(QUEUE_BINDING)) return [];
  return paths.map((at) => ({ path: at, message: missingQueueMessage(path) }));
}

function readFailure(error: unknown): string {
  const code = (error as { code?: string }).code;
  return code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : String(error);
}

const USAGE = "usage: npm run rules:check [file] [--config <wrangler.toml>]   (defaults: rules.json, ./wrangler.toml)";

/**
 * The command line: `[file] [--config <path>]`, or `--help`. Returns the exit code.
 *
 * @example
 * await main(["rules.json", "--config", "wrangler.toml"]); // 0 when valid
 */
export async function main(args: readonly string[]): Promise<number> {
  const files: string[] = [];
  let config: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "-h" || arg === "--help") {
      nodeProcess.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (arg === "--config" || arg === "-c") {
      config = args[++i];
      if (config === undefined || config === "") return usageError(`${arg} needs a path`);
    } else if (arg.startsWith("--config=")) {
      config = arg.slice("--config=".length);
      if (config === "") return usageError("--config needs a path");
    } else if (arg.startsWith("-") && arg !== "-") {
      return usageError(`unknown option ${arg}`);
    } else {
      files.push(arg);
    }
  }
  if (files.length > 1) return usageError("one rules file at most");
  return checkFile(files[0] ?? "rules.json", { config });
}

function usageError(why: string): number {
  nodeProcess.stderr.write(`rules:check: ${why}\n${USAGE}\n`);
  return 2;
}

// `import.meta.main` is missing before Node 22.18; fall back to the script path.
const isMain = (import.meta as { main?: boolean }).main ?? /[\\/]rules-check\.ts$/.test(nodeProcess.argv[1] ?? "");
if (isMain) nodeProcess.exitCode = await main(nodeProcess.argv.slice(2));
