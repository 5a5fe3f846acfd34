/**
 * Helpers for the traffic sample's tests (docs/advisor.md, "Sample"): a
 * gateway with an ADMIN_TOKEN over test rules, the sample's export as rows,
 * and the METRICS namespace seen through a wrapper that counts its sends.
 */
import type { SampleRow, SampleSend } from "../../src/advisor/sample-row.ts";
import { TrafficSampler } from "../../src/advisor/sampler.ts";
import type { Env } from "../../src/config.ts";
import type { IsolateOptions } from "../../src/admission/isolate-context.ts";
import type { RateLimitResult } from "../../src/limiter/types.ts";
import type { CompiledDomain, DescriptorEntry } from "../../src/rules/types.ts";
import { compiled, testEnv } from "../support/app.ts";
import { envoyApi } from "../support/envoy.ts";

/** A gateway over `rules` (token set) and `exportSample`: GET /__ratelimit/sample as parsed rows. */
export function sampledGateway(rules: unknown, vars: Partial<Env> = {}, options: IsolateOptions = {}) {
  const api = envoyApi(rules, vars, options);
  async function exportText(query: string): Promise<Response> {
    return api.admin(`/__ratelimit/sample?${query}`);
  }
  async function exportSample(query: string): Promise<SampleRow[]> {
    const res = await exportText(query);
    if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
    const text = await bodyText(res);
    return text === ""
      ? []
      : text
          .trimEnd()
          .split("\n")
          .map((line) => JSON.parse(line) as SampleRow);
  }
  return { ...api, exportText, exportSample };
}

/** A response's body as UTF-8 text (workerd warns on `.text()` of a type it does not know for text, such as NDJSON). */
export async function bodyText(res: Response): Promise<string> {
  return new TextDecoder().decode(await res.arrayBuffer());
}

/**
 * The test runtime's real METRICS namespace, through a wrapper that records
 * every `add` (a metrics send) with the sample rows it carried.
 *
 * @example
 * const { sends, metrics } = countingMetrics();
 * const call = gateway(rules, { METRICS: metrics });
 */
export function countingMetrics() {
  const sends: { shard: string; sample?: SampleSend }[] = [];
  const real = testEnv.METRICS;
  const metrics = {
    getByName(name: string) {
      const stub = real.getByName(name);
      return {
        add: (...args: Parameters<typeof stub.add>) => {
          sends.push({ shard: name, sample: args[3] as SampleSend | undefined });
          return stub.add(...args);
        },
        read: () => stub.read(),
        trafficState: (now?: number) => stub.trafficState(now),
        sampleRows: (domain: string, since: number, now: number, retentionMs: number) => stub.sampleRows(domain, since, now, retentionMs),
      };
    },
    idFromName: (name: string) => real.idFromName(name),
  } as unknown as Env["METRICS"];
  return { sends, metrics };
}

/**
 * The one domain of `rules`, compiled.
 *
 * @example
 * const domain = compiledDomain({ domain: "api", descriptors: [...], routes: [...] });
 */
export function compiledDomain(rules: { readonly domain: string; readonly [field: string]: unknown }): CompiledDomain {
  const domain = compiled(rules).domains.get(rules.domain);
  if (domain === undefined) throw new Error("no domain");
  return domain;
}

/** A sampler that keeps every key (up to 100 rows, for an hour), at time 1,000. */
export const everyKeySampler = () => new TrafficSampler({ keyRate: 1, maxRows: 100, retentionMs: 3_600_000 }, () => 1_000, { k0: 1, k1: 2 });

/**
 * What the decision engine answers for a request no limit counted: allowed,
 * with its one descriptor of `domain` (what the sampler records).
 *
 * @example
 * sampler.record(noLimitResult("api", [{ key: "api_key", value: "k" }]), source);
 */
export function noLimitResult(domain: string, descriptor: readonly DescriptorEntry[]): RateLimitResult {
  return {
    allowed: true,
    reason: "no_limit",
    limit: 0,
    remaining: 0,
    resetAfterMs: 0,
    retryAfterMs: 0,
    policies: [],
    descriptors: [{ domain, descriptor, cost: 1, policies: [] }],
  };
}
