/**
 * A SampleSource over the sample's export, `GET /__ratelimit/sample`
 * (docs/advisor.md, "Sample"): the Worker's replay endpoint reads its own
 * export through it, so it needs nothing of the store behind it. Until a
 * Worker has that endpoint (a 404), the sample is empty.
 */
import { parseSample } from "./sample-row.ts";
import type { SampleSource } from "./sample-source.ts";

/** Answers one request of the export (a path and query under `/__ratelimit`). */
export type SampleGet = (pathAndQuery: string) => Promise<Response>;

/** The export's answer could not be read as a sample. */
export class SampleUnreadableError extends Error {}

/**
 * A source reading `GET /sample?domain=D` through `get`.
 *
 * @example
 * const source = httpSample((path) => admin.request(`http://self${path}`, { headers }, env, ctx));
 */
export function httpSample(get: SampleGet): SampleSource {
  return {
    async rows(domain) {
      const response = await get(`/sample?domain=${encodeURIComponent(domain)}`);
      if (response.status === 404) {
        await response.body?.cancel();
        return [];
      }
      const text = await response.text();
      if (!response.ok) throw new SampleUnreadableError(`the sample of domain "${domain}" could not be read (HTTP ${response.status})`);
      const sample = parseSample(text);
      if (!sample.ok) throw new SampleUnreadableError(`the sample of domain "${domain}" has a bad row at line ${sample.line}: ${sample.message}`);
      return sample.rows;
    },
  };
}
