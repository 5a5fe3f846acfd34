/**
 * `npm run rules:replay -- PROPOSED.json [--sample FILE [--current RULES] | --url URL --token T] [--shard-key KEY] [--json]`:
 * replay a traffic sample through proposed rules and print, per limit,
 * what they would have done beside the rules in force (docs/advisor.md,
 * "Replay"). The sample comes from a file exported with
 * `GET /__ratelimit/sample` or from a running deployment; the rules in
 * force from `--current` (default `rules.json`) or that deployment's
 * `GET /__ratelimit/rules`. The sample's digests are keyed with the
 * deployment's `SHARD_KEY` (docs/advisor.md, "Values are digests"): given by
 * `--shard-key` or the environment's `SHARD_KEY`, and required when the
 * rules name exact values of a key the sample holds digested. Invalid
 * proposed rules: rules:check's errors, exit 1. Bad arguments: the usage, exit 2.
 *
 * Node runs this file directly (type stripping), so it uses only erasable
 * TypeScript, as tools/rules-check.ts.
 */
import { reportText } from "../src/advisor/report-text.ts";
import { shardKeyOfSecret } from "../src/advisor/digest.ts";
import { digestsToMatch } from "../src/advisor/digest-match.ts";
import { parseSample, type SampleRow } from "../src/advisor/sample-row.ts";
import { whatIf } from "../src/advisor/what-if.ts";
import { compileRules } from "../src/rules/compile.ts";
import { parseRulesText } from "../src/rules/text.ts";
import type { CompiledRules } from "../src/rules/types.ts";
import { nodeProcess, readFileSync, type Writer } from "./node-io.ts";
import { checkFile } from "./rules-check.ts";

const USAGE =
  "usage: npm run rules:replay -- PROPOSED.json (--sample FILE [--current RULES.json] | --url URL --token TOKEN) [--json]\n" +
  "  --sample FILE     a sample exported with GET /__ratelimit/sample (NDJSON)\n" +
  "  --current FILE    the rules in force to compare with (default rules.json; with --url, the deployment's)\n" +
  "  --url, --token    read the sample and the rules in force from a running deployment\n" +
  "  --shard-key KEY   the deployment's SHARD_KEY, which the sample's digests are keyed with (default: $SHARD_KEY)\n" +
  "  --json            print the report as JSON";

interface Args {
  proposed: string;
  sample?: string;
  current?: string;
  url?: string;
  token?: string;
  shardKey?: string;
  json: boolean;
}

class Failure extends Error {}

/**
 * The command line; returns the exit code.
 *
 * @example
 * await main(["proposed.json", "--sample", "sample.ndjson", "--json"]); // 0
 */
export async function main(
  argv: readonly string[],
  out: Writer = nodeProcess.stdout,
  err: Writer = nodeProcess.stderr,
  env: Readonly<Record<string, string | undefined>> = nodeProcess.env,
): Promise<number> {
  const args = readArgs(argv);
  if (typeof args === "string") {
    if (args === "help") {
      out.write(`${USAGE}\n`);
      return 0;
    }
    err.write(`rules:replay: ${args}\n${USAGE}\n`);
    return 2;
  }
  // The proposed rules are checked exactly as rules:check checks them, with its errors.
  if ((await checkFile(args.proposed, { out: { write: () => true }, err })) !== 0) return 1;
  try {
    const proposed = compiledFile(args.proposed);
    const { rows, inForce } = args.url !== undefined ? await fromDeployment(args.url, args.token ?? "", proposed) : fromFiles(args);
    const report = await whatIf(proposed, inForce, rows, shardKeyFor(args.shardKey ?? env.SHARD_KEY, rows, [proposed, inForce]));
    out.write(args.json ? `${JSON.stringify(report, null, 2)}\n` : reportText(report));
    return 0;
  } catch (error) {
    if (!(error instanceof Failure)) throw error;
    err.write(`rules:replay: ${error.message}\n`);
    return 1;
  }
}

function readArgs(argv: readonly string[]): Args | string {
  const files: string[] = [];
  const opts: Partial<Args> = { json: false };
  const valued: Record<string, "sample" | "current" | "url" | "token" | "shardKey"> = {
    "--sample": "sample",
    "--current": "current",
    "--url": "url",
    "--token": "token",
    "--shard-key": "shardKey",
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "-h" || arg === "--help") return "help";
    if (arg === "--json") opts.json = true;
    else if (Object.hasOwn(valued, arg)) {
      const value = argv[++i];
      if (value === undefined || value === "") return `${arg} needs a value`;
      opts[valued[arg]] = value;
    } else if (arg.startsWith("-")) return `unknown option ${arg}`;
    else files.push(arg);
  }
  if (files.length !== 1) return files.length === 0 ? "the proposed rules file is missing" : "one proposed rules file at most";
  if ((opts.sample === undefined) === (opts.url === undefined)) return "give either --sample FILE or --url URL --token TOKEN";
  if (opts.url !== undefined && opts.token === undefined) return "--url needs --token";
  if (opts.url !== undefined && opts.current !== undefined) return "--current is for --sample (with --url the deployment's rules are in force)";
  return { ...opts, proposed: files[0] } as Args;
}

// The deployment's key for the sample's digests; a clear failure when the rules need it and it is missing.
function shardKeyFor(secret: string | undefined, rows: readonly SampleRow[], rules: readonly CompiledRules[]): ReturnType<typeof shardKeyOfSecret> | undefined {
  if (secret !== undefined && secret !== "") return shardKeyOfSecret(secret);
  const needed = digestsToMatch(rows, rules);
  if (needed.length === 0) return undefined;
  throw new Failure(
    `the sample holds digests of ${needed.map((k) => JSON.stringify(k)).join(", ")} and the rules name exact values of ${needed.length === 1 ? "it" : "them"}: ` +
      "the digests are keyed with the deployment's SHARD_KEY, give it with --shard-key KEY or the environment's SHARD_KEY " +
      "(a deployment without SHARD_KEY keys them from its COUNTERS namespace, known only to it: replay there, with the dashboard's what-if panel or POST /__ratelimit/replay)",
  );
}

function compiledFile(file: string, what = "rules"): CompiledRules {
  const text = readText(file, what);
  const parsed = parseRulesText(text);
  if (!parsed.ok) throw new Failure(`${file}:${parsed.line}:${parsed.column}: invalid JSON: ${parsed.reason}`);
  return compiledValue(parsed.value, file);
}

function compiledValue(value: unknown, source: string): CompiledRules {
  const result = compileRules(value, { source });
  if (!result.ok) throw new Failure(`${source}: the rules in force are invalid (${result.errors.map((e) => `${e.path}: ${e.message}`).join("; ")})`);
  return result.rules;
}

function fromFiles(args: Args): { rows: SampleRow[]; inForce: CompiledRules } {
  const file = args.sample ?? "";
  const rows = sampleRows(readText(file, "sample"), file);
  return { rows, inForce: compiledFile(args.current ?? "rules.json", "rules in force") };
}

function sampleRows(text: string, where: string): SampleRow[] {
  const sample = parseSample(text);
  if (!sample.ok) throw new Failure(`${where}:${sample.line}: ${sample.message}`);
  return sample.rows;
}

async function fromDeployment(url: string, token: string, proposed: CompiledRules): Promise<{ rows: SampleRow[]; inForce: CompiledRules }> {
  const base = url.replace(/\/+$/, "");
  const headers = { authorization: `Bearer ${token}` };
  const rulesAnswer = await get(`${base}/__ratelimit/rules`, headers);
  const inForce = compiledValue((JSON.parse(rulesAnswer) as { rules?: unknown }).rules, `${base}/__ratelimit/rules`);
  const unknown = [...proposed.domains.keys()].filter((domain) => !inForce.domains.has(domain));
  if (unknown.length > 0) {
    const known = [...inForce.domains.keys()].map((d) => JSON.stringify(d)).join(", ") || "none";
    throw new Failure(
      `${base}: the proposed rules name domains not in force there, ${unknown.map((d) => JSON.stringify(d)).join(", ")}: no sample to replay (in force: ${known})`,
    );
  }
  const rows: SampleRow[] = [];
  for (const domain of proposed.domains.keys()) {
    const at = `${base}/__ratelimit/sample?domain=${encodeURIComponent(domain)}`;
    rows.push(...sampleRows(await get(at, headers), at));
  }
  return { rows: parseSampleOrder(rows), inForce };
}

// Rows of several domains, each in clock order, merged into one clock order.
function parseSampleOrder(rows: SampleRow[]): SampleRow[] {
  return rows
    .map((row, at) => ({ row, at }))
    .sort((a, b) => a.row.t - b.row.t || a.at - b.at)
    .map((x) => x.row);
}

async function get(url: string, headers: Record<string, string>): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { headers });
  } catch (error) {
    throw new Failure(`${url}: cannot connect (${error instanceof Error ? error.message : String(error)})`);
  }
  const body = await response.text();
  if (!response.ok) throw new Failure(`${url}: HTTP ${response.status} ${body.slice(0, 200)}`);
  return body;
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new Failure(`${file}: cannot read the ${what} (${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : String(error)})`);
  }
}

// `import.meta.main` is missing before Node 22.18; fall back to the script path.
const isMain = (import.meta as { main?: boolean }).main ?? /[\\/]rules-replay\.ts$/.test(nodeProcess.argv[1] ?? "");
if (isMain) nodeProcess.exitCode = await main(nodeProcess.argv.slice(2));
