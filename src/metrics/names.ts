/**
 * Metric names. The per-limit and service counters carry the names
 * envoyproxy/ratelimit's Prometheus mapping gives its statsd stats, so
 * dashboards built for Envoy's service read floodgate unchanged; the
 * failure-mode counter is floodgate's own.
 */
import type { LimitStat } from "./stats.ts";

/**
 * Prometheus name of a per-limit stat.
 *
 * @example
 * limitMetric("over_limit"); // "ratelimit_service_rate_limit_over_limit"
 */
export function limitMetric(stat: LimitStat): string {
  return `ratelimit_service_rate_limit_${stat}`;
}

/** Decisions for a domain the rules do not define (Envoy's `domain_not_found`), labelled by domain. */
export const DOMAIN_NOT_FOUND = "ratelimit_service_rate_limit_domain_not_found";

/** Requests SHADOW_MODE let through although a limit was exceeded (Envoy's `global_shadow_mode`). */
export const GLOBAL_SHADOW_MODE = "ratelimit_service_global_shadow_mode";

/** Rules accepted by `PUT /__ratelimit/rules` (Envoy's `config_load_success`). */
export const CONFIG_LOAD_SUCCESS = "ratelimit_service_config_load_success";

/** Rules rejected by `PUT /__ratelimit/rules` (Envoy's `config_load_error`). */
export const CONFIG_LOAD_ERROR = "ratelimit_service_config_load_error";

/** Decisions FAILURE_MODE made because counters could not be reached, labelled `mode="local"|"open"|"closed"`. */
export const FAILURE_MODE_DECISIONS = "floodgate_failure_mode_decisions_total";

/** Requests a limit's `enforce_percent` or `soft_percent` forwarded, labelled `domain`, `descriptor`, `limit`, `decision="not-enforced"|"soft"`. */
export const ENFORCEMENT_DECISIONS = "floodgate_enforcement_decisions_total";

/** Requests a `candidate` limit would have refused, labelled `domain`, `descriptor`, `limit` (the live one) and `candidate`. */
export const CANDIDATE_REFUSALS = "floodgate_candidate_refusals_total";

/** One-line help per metric name, for the `# HELP` lines. */
export const HELP: Readonly<Record<string, string>> = {
  [limitMetric("total_hits")]: "Hits counted against a rate limit.",
  [limitMetric("over_limit")]: "Hits over a rate limit.",
  [limitMetric("near_limit")]: "Hits within a rate limit but past 80 % of it.",
  [limitMetric("within_limit")]: "Hits within a rate limit.",
  [limitMetric("shadow_mode")]: "Hits over a shadow_mode rate limit, let through.",
  [DOMAIN_NOT_FOUND]: "Descriptors sent for a domain the rules do not define.",
  [GLOBAL_SHADOW_MODE]: "Requests over a limit that SHADOW_MODE let through.",
  [CONFIG_LOAD_SUCCESS]: "Rules accepted by PUT /__ratelimit/rules.",
  [CONFIG_LOAD_ERROR]: "Rules rejected by PUT /__ratelimit/rules.",
  [FAILURE_MODE_DECISIONS]: "Decisions made by FAILURE_MODE because counters could not be reached in time.",
  [ENFORCEMENT_DECISIONS]: "Requests forwarded by enforce_percent (not-enforced) or soft_percent (soft).",
  [CANDIDATE_REFUSALS]: "Requests a candidate limit would have refused, beside the live limit that decided.",
};
