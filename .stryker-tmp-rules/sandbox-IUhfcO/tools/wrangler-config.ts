/**
 * What `rules:check` needs to know of a wrangler configuration: the bindings
 * of its queue producers. Read with wrangler's own config reader (wrangler
 * is a dev dependency; it parses TOML and JSONC exactly as `wrangler deploy`
 * does), loaded only when a rules file has queue limits, since loading
 * wrangler takes about a second.
 */
// @ts-nocheck


import { readFileSync } from "./node-io.ts";

type ReadRawConfig = (args: { config: string }) => { rawConfig: { queues?: { producers?: { binding?: unknown }[] } } };

/** The producers' bindings, or why the file could not be read. */
export type ProducerBindings = { readonly ok: true; readonly bindings: string[] } | { readonly ok: false; readonly reason: string };

/**
 * The `[[queues.producers]]` bindings of the top-level environment of the
 * wrangler configuration at `path`.
 *
 * @example
 * await queueProducerBindings("wrangler.toml"); // { ok: true, bindings: [] } with the queue block commented out
 */
export async function queueProducerBindings(path: string): Promise<ProducerBindings> {
  try {
    // Read first for a plain reason: wrangler's reader looks elsewhere for a config when given a directory.
    readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    return { ok: false, reason: code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : String(error) };
  }
  // A non-literal specifier keeps the checker from type-checking wrangler's Node typings.
  const wrangler = (await import("wrangler" as string)) as { experimental_readRawConfig: ReadRawConfig };
  try {
    const { rawConfig } = wrangler.experimental_readRawConfig({ config: path });
    const producers = rawConfig.queues?.producers ?? [];
    return { ok: true, bindings: producers.map((p) => p.binding).filter((b): b is string => typeof b === "string") };
  } catch (error) {
    const { text, location } = error as { text?: string; location?: { line?: number; column?: number } };
    const at = location?.line !== undefined ? `line ${location.line}, column ${location.column ?? 0}: ` : "";
    return { ok: false, reason: `${at}${text ?? String(error)}` };
  }
}
