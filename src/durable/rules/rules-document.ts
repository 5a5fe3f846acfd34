/**
 * RulesObject: the rules uploaded with `PUT /__ratelimit/rules`, stored in
 * SQLite with a version that only goes up. Every isolate polls it
 * (`live.ts`); it validates again before storing, so nothing but
 * valid rules is ever kept, whoever calls it.
 */
import { DurableObject } from "cloudflare:workers";
import type { OverridesRecord } from "../../stored/override-tables.ts";
import { RULES_CHUNK, RULES_TABLES } from "../../stored/rules-tables.ts";
import { compileRulesText } from "../../rules/index.ts";
import type { RuleError } from "../../rules/types.ts";

/** What is in force: uploaded rules, or the ones bundled with the worker. */
export interface RulesRecord {
  /** 0 before any upload; +1 per accepted upload or revert. */
  readonly version: number;
  readonly source: "stored" | "bundled";
  /** The uploaded text (source `stored`). */
  readonly text?: string;
  /** ISO time of the upload or revert (absent for version 0). */
  readonly updatedAt?: string;
  /** The overrides (src/overrides/), when the check asked for them and they changed. */
  readonly overrides?: OverridesRecord;
}

export type PutResult =
  | { readonly ok: true; readonly version: number; readonly summary: string }
  | { readonly ok: false; readonly errors: readonly RuleError[] };

// The tables and the chunk size are a stored format (docs/stored-formats.md).
const CHUNK = RULES_CHUNK;

/**
 * The store of uploaded rules (one object per deployment, named "global").
 *
 * @example
 * const result = await env.RULES.getByName("global").put(text);
 * if (!result.ok) result.errors; // [{ path, message }, ...]
 */
export class RulesDocumentObject extends DurableObject {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.sql = ctx.storage.sql;
    for (const statement of RULES_TABLES) this.sql.exec(statement);
  }

  /**
   * The rules in force, or null when `knownVersion` is already current (so
   * a poll that finds nothing new moves no rules text).
   *
   * @example
   * const update = await stub.since(3); // null, or { version: 4, source: "stored", text }
   */
  since(knownVersion: number): RulesRecord | null {
    const head = this.head();
    if (head.version === knownVersion) return null;
    if (head.source === "bundled") return head;
    const text = this.sql
      .exec<{ text: string }>("SELECT text FROM chunks ORDER BY seq")
      .toArray()
      .map((r) => r.text)
      .join("");
    return { ...head, text };
  }

  /**
   * Validate and store `text`. Invalid rules change nothing and come back
   * with every error; valid ones become the next version.
   *
   * @example
   * await stub.put('{"domain":"api","descriptors":[]}'); // { ok: true, version: 1, summary: "rules: 1 domain, ..." }
   */
  put(text: string): PutResult {
    const result = compileRulesText(text, { source: "rules" });
    if (!result.ok) return { ok: false, errors: result.errors };
    const version = this.head().version + 1;
    this.sql.exec("DELETE FROM chunks");
    for (let seq = 0, at = 0; at < text.length; seq += 1, at += CHUNK) {
      this.sql.exec("INSERT INTO chunks (seq, text) VALUES (?, ?)", seq, text.slice(at, at + CHUNK));
    }
    this.writeHead(version, "stored");
    return { ok: true, version, summary: result.summary };
  }

  /**
   * Go back to the bundled rules, as a new version.
   *
   * @example
   * await stub.revert(); // 5
   */
  revert(): number {
    const version = this.head().version + 1;
    this.sql.exec("DELETE FROM chunks");
    this.writeHead(version, "bundled");
    return version;
  }

  protected head(): RulesRecord {
    const row = this.sql.exec<{ version: number; source: string; updated_at: string }>("SELECT version, source, updated_at FROM head").toArray()[0];
    if (row === undefined) return { version: 0, source: "bundled" };
    return { version: row.version, source: row.source === "stored" ? "stored" : "bundled", updatedAt: row.updated_at };
  }

  private writeHead(version: number, source: "stored" | "bundled"): void {
    this.sql.exec("INSERT OR REPLACE INTO head (id, version, source, updated_at) VALUES (0, ?, ?, ?)", version, source, new Date().toISOString());
  }
}
