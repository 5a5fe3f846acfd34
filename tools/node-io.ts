/**
 * The little of Node the rules CLIs need (argv, exit code, output, reading a
 * file), typed here so the worker's type-check needs no Node typings.
 */

export interface Writer {
  write(text: string): unknown;
}

/** The parts of `process` the CLIs use. */
export interface NodeProcess {
  readonly argv: string[];
  exitCode?: number;
  readonly stdout: Writer;
  readonly stderr: Writer;
  readonly env: Readonly<Record<string, string | undefined>>;
}

type ReadFile = (path: string, encoding: "utf8") => string;

/**
 * Node's `process`.
 *
 * @example
 * nodeProcess.stdout.write("ok\n");
 */
export const nodeProcess = (globalThis as unknown as { process: NodeProcess }).process;

// A non-literal specifier keeps the checker from looking for Node's typings.
const fs = (await import("node:fs" as string)) as { readFileSync: ReadFile };

/**
 * Read a text file (Node's fs.readFileSync).
 *
 * @example
 * const text = readFileSync("rules.json", "utf8");
 */
export const readFileSync: ReadFile = fs.readFileSync;
