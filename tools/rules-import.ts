/**
 * `npm run rules:import envoy.yaml [more.yaml …] > rules.json`: convert
 * Envoy rate limit service configs (one domain per file, as Envoy loads
 * them) into one floodgate rules document, or an array of them. Exit 0 with
 * the JSON on stdout; exit 1 with every error (`file: path: message`) on
 * stderr and nothing on stdout. Warnings go to stderr either way.
 *
 * Runs on Node directly (type stripping), like `rules:check`.
 */
import { isScalar, parseDocument, visit } from "yaml";
import { compileRules } from "../src/rules/compile.ts";
import { fromEnvoy } from "../src/rules/envoy-import/envoy-yaml.ts";

import { nodeProcess, readFileSync, type Writer } from "./node-io.ts";

/** Keys whose values Envoy reads as strings: a YAML number or boolean there keeps its source text (`0.10` stays "0.10"). */
const STRING_KEYS = new Set(["domain", "key", "value", "name"]);

/**
 * Convert `files`, writing the rules JSON to `out` and problems to `err`.
 * Returns the exit code.
 *
 * @example
 * importFiles(["ratelimit.yaml"]); // 0, after printing the rules document
 */
export function importFiles(files: readonly string[], out: Writer = nodeProcess.stdout, err: Writer = nodeProcess.stderr): number {
  const documents: unknown[] = [];
  const seen = new Map<string, string>();
  let errors = 0;
  const report = (file: string, path: string, message: string) => {
    errors += 1;
    err.write(`${file}: ${path}: ${message}\n`);
  };
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      const code = (error as { code?: string }).code;
      report(file, "$", `cannot read file (${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : String(error)})`);
      continue;
    }
    const yaml = parseDocument(text, { uniqueKeys: true });
    if (yaml.errors.length > 0) {
      for (const e of yaml.errors) {
        const where = e.linePos ? ` at line ${e.linePos[0].line}, column ${e.linePos[0].col}` : "";
        report(file, "$", `invalid YAML${where}: ${e.message.split(" at line ")[0].split("\n")[0]}`);
      }
      continue;
    }
    visit(yaml, {
      Pair(_, pair) {
        const key = isScalar(pair.key) ? pair.key.value : undefined;
        if (typeof key === "string" && STRING_KEYS.has(key) && isScalar(pair.value) && typeof pair.value.value !== "string" && pair.value.value !== null) {
          pair.value.value = pair.value.source ?? String(pair.value.value);
        }
      },
    });
    const converted = fromEnvoy(yaml.toJS({ mapAsMap: true }));
    for (const e of converted.errors) report(file, e.path, e.message);
    const compiled = compileRules(converted.document, { source: file });
    if (!compiled.ok) for (const e of compiled.errors) report(file, e.path, e.message);
    // Warnings about a file that does not convert would only distract from its errors.
    if (converted.errors.length === 0 && compiled.ok) {
      for (const w of converted.warnings) err.write(`${file}: ${w.path}: warning: ${w.message}\n`);
    }
    const domain = (converted.document as { domain?: unknown } | null)?.domain;
    if (typeof domain === "string" && domain !== "") {
      const first = seen.get(domain);
      if (first !== undefined)
        report(
          file,
          "$.domain",
          `duplicate domain "${domain}" (already defined in ${first}); Envoy rejects it too unless MERGE_DOMAIN_CONFIG is set: merge the files by hand`,
        );
      else seen.set(domain, file);
    }
    documents.push(converted.document);
  }
  if (errors > 0) {
    err.write(`${errors} error${errors === 1 ? "" : "s"}, nothing written\n`);
    return 1;
  }
  out.write(`${JSON.stringify(documents.length === 1 ? documents[0] : documents, null, 2)}\n`);
  return 0;
}

/**
 * The command line: one or more YAML files, or `--help`. Returns the exit code.
 *
 * @example
 * main(["a.yaml", "b.yaml"]); // 0, printing an array of two domain documents
 */
export function main(args: readonly string[]): number {
  const usage = "usage: npm run rules:import envoy.yaml [more.yaml ...] > rules.json\n";
  if (args[0] === "-h" || args[0] === "--help") {
    nodeProcess.stdout.write(usage);
    return 0;
  }
  if (args.length === 0) {
    nodeProcess.stderr.write(usage);
    return 2;
  }
  return importFiles(args);
}

// `import.meta.main` is missing before Node 22.18; fall back to the script path.
const isMain = (import.meta as { main?: boolean }).main ?? /[\\/]import-cli\.ts$/.test(nodeProcess.argv[1] ?? "");
if (isMain) nodeProcess.exitCode = main(nodeProcess.argv.slice(2));
