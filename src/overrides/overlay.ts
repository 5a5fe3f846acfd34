/**
 * The overrides as LiveRules lays them over the rules (src/isolate/live-rules.ts,
 * RulesOverlay): the last version an isolate received, compiled once.
 */
import type { CompiledRules, RulesOverlay } from "../rules/types.ts";
import { withOverrides } from "./attach.ts";
import { compileOverrides } from "./compile.ts";
import type { OverridesRecord, OverrideTable } from "./types.ts";

/**
 * Overrides followed with the rules.
 *
 * @example
 * const live = new LiveRules(bundledRules, { overlay: new OverridesOverlay() });
 */
export class OverridesOverlay implements RulesOverlay {
  version = -1;
  private tables: ReadonlyMap<string, OverrideTable> = new Map();

  /**
   * Take an `OverridesRecord` of another version (the object sends one only when it differs); anything else is ignored.
   *
   * @example
   * overlay.take({ version: 3, rows }); // true
   */
  take(update: unknown): boolean {
    const record = update as Partial<OverridesRecord> | null;
    if (typeof record?.version !== "number" || !Array.isArray(record.rows) || record.version === this.version) return false;
    this.tables = compileOverrides(record.rows);
    this.version = record.version;
    return true;
  }

  /**
   * `rules` with the overrides laid over their domains.
   *
   * @example
   * overlay.over(rules).domains.get("api")?.overrides?.size; // 2
   */
  over(rules: CompiledRules): CompiledRules {
    return withOverrides(rules, this.tables);
  }
}
