/**
 * The RulesObject with the overrides beside the rules (one object, so one
 * version check brings both): the Worker exports this class as
 * `RulesObject`. It validates again before it stores, whoever calls it.
 */
import { RulesDocumentObject, type RulesRecord } from "./rules-document.ts";
import type { RuleError } from "../../rules/types.ts";
import { OVERRIDE_TABLES } from "../../stored/override-tables.ts";
import { parsePattern, patternText } from "../../overrides/descriptor.ts";
import {
  listOverrides,
  MAX_OVERRIDES_BYTES,
  MAX_OVERRIDES_PER_DOMAIN,
  MAX_OVERRIDES_TOTAL,
  overrideBytes,
  overrideCounts,
  overridesSince,
  removeOverride,
  writeOverride,
} from "./override-store.ts";
import type { StoredOverride } from "../../overrides/types.ts";
import { checkOverride } from "../../overrides/validate.ts";

export type PutOverrideResult =
  | { readonly ok: true; readonly version: number; readonly override: StoredOverride }
  /** 400: the body is invalid (every error); 409: a bound on the count is reached. */
  | { readonly ok: false; readonly status: 400 | 409; readonly errors: readonly RuleError[] };

export type DeleteOverrideResult =
  | { readonly ok: true; readonly version: number }
  | { readonly ok: false; readonly status: 400 | 404; readonly message: string };

/**
 * Rules and overrides (docs/admin-api.md, "Overrides").
 *
 * @example
 * const stub = env.RULES.getByName("global");
 * await stub.putOverride({ domain: "api", descriptor: "user=acme", rate_limit: { unlimited: true } }, Date.now());
 */
export class RulesObject extends RulesDocumentObject {
  private readonly overridesSql: SqlStorage;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    this.overridesSql = ctx.storage.sql;
    for (const statement of OVERRIDE_TABLES) this.overridesSql.exec(statement);
  }

  /**
   * The rules as `RulesObject.since` answers, and with `knownOverrides`
   * (the overrides' version an isolate holds) every override when they
   * changed: then the head comes even when the rules did not, without
   * their text.
   *
   * @example
   * await stub.since(4, 2); // null, or { version: 4, source: "stored", overrides: { version: 3, rows } }
   */
  override since(knownVersion: number, knownOverrides?: number): RulesRecord | null {
    const rules = super.since(knownVersion);
    const overrides = knownOverrides === undefined ? undefined : overridesSince(this.overridesSql, knownOverrides);
    if (overrides === undefined) return rules;
    return { ...(rules ?? this.head()), overrides };
  }

  /**
   * Validate and store one override as of `now`; invalid input changes nothing.
   *
   * @example
   * await stub.putOverride(body, Date.now()); // { ok: true, version: 3, override: { ... } }
   */
  putOverride(body: unknown, now: number): PutOverrideResult {
    const checked = checkOverride(body, now);
    if (!checked.ok) return { ok: false, status: 400, errors: checked.errors };
    const { domain, descriptor } = checked.row;
    const counts = overrideCounts(this.overridesSql, domain, descriptor);
    if (counts.domain >= MAX_OVERRIDES_PER_DOMAIN) {
      return {
        ok: false,
        status: 409,
        errors: [{ path: "$.domain", message: `domain "${domain}" has ${counts.domain} overrides, the most it may have; delete some first` }],
      };
    }
    if (counts.total >= MAX_OVERRIDES_TOTAL) {
      return { ok: false, status: 409, errors: [{ path: "$", message: `there are ${counts.total} overrides, the most there may be; delete some first` }] };
    }
    const override: StoredOverride = { ...checked.row, updated_at: new Date(now).toISOString() };
    const bytes = overrideBytes(override);
    if (counts.bytes + bytes > MAX_OVERRIDES_BYTES) {
      const message = `the overrides hold ${counts.bytes} bytes and this one ${bytes}, past the ${MAX_OVERRIDES_BYTES} every poll may carry; delete some first`;
      return { ok: false, status: 409, errors: [{ path: "$", message }] };
    }
    const version = writeOverride(this.overridesSql, override, override.updated_at);
    return { ok: true, version, override };
  }

  /**
   * Remove the override of `descriptor` (in the `k=v,k2=v2*` form) in `domain`.
   *
   * @example
   * await stub.deleteOverride("api", "user=acme"); // { ok: true, version: 4 }
   */
  deleteOverride(domain: string, descriptor: string): DeleteOverrideResult {
    const parsed = parsePattern(descriptor);
    if (!parsed.ok) return { ok: false, status: 400, message: `descriptor ${parsed.message}` };
    const canonical = patternText(parsed.pattern);
    const version = removeOverride(this.overridesSql, domain, canonical);
    if (version === undefined) return { ok: false, status: 404, message: `No override of ${canonical} in domain "${domain}".` };
    return { ok: true, version };
  }

  /**
   * One domain's overrides, expired ones included until the next write drops them.
   *
   * @example
   * await stub.listOverrides("api"); // [{ domain: "api", descriptor: "user=acme", ... }]
   */
  listOverrides(domain: string): StoredOverride[] {
    return listOverrides(this.overridesSql, domain);
  }
}
