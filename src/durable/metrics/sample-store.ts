/**
 * A metrics shard's part of the traffic sample (docs/advisor.md, "Sample"),
 * in its SQLite: the sends' rows of a domain are held in memory and written
 * as one table row at the shard's fold (one row written per fold and
 * domain, however many isolates sent), the oldest batches are dropped past
 * the shard's share of SAMPLE_MAX_ROWS, and batches older than the
 * retention go. The batches' sizes are kept in memory, so a send reads nothing.
 */
import { SAMPLE_TABLE } from "../../stored/sample-tables.ts";
import type { SampleRow, SampleSend } from "../../advisor/sample-row.ts";

/** Most characters of one batch's JSON (a SQLite row holds at most 2 MB; a character may take up to 3 bytes). */
export const MAX_BATCH_CHARS = 600_000;

interface Batch {
  readonly seq: number;
  readonly count: number;
  readonly tLast: number;
}

/**
 * @example
 * const store = new SampleStore(ctx.storage.sql);
 * store.add(send, 8); // with a metrics send
 * store.persist(); // at the fold
 * store.read("api", 0, Date.now(), 7 * 86_400_000); // rows of "api", oldest first
 */
export class SampleStore {
  private readonly sql: SqlStorage;
  /** Per domain, its batches oldest first. */
  private readonly batches = new Map<string, Batch[]>();
  private seq = 0;
  /** Rows of the sends since the last persist, per domain (at most the cap each), and the last send's terms. */
  private readonly held = new Map<string, SampleRow[]>();
  private terms?: { readonly cap: number; readonly oldestKept: number };

  constructor(sql: SqlStorage) {
    this.sql = sql;
    sql.exec(SAMPLE_TABLE);
    for (const row of sql.exec<{ seq: number; domain: string; count: number; t_last: number }>(
      "SELECT seq, domain, count, t_last FROM sample_batches ORDER BY seq",
    )) {
      this.listOf(row.domain).push({ seq: row.seq, count: row.count, tLast: row.t_last });
      this.seq = row.seq;
    }
  }

  /**
   * Hold `send`'s rows until `persist`: per domain at most `maxRows / shards`
   * (at least 1) in this shard, the oldest dropped first.
   */
  add(send: SampleSend, shards: number): void {
    const cap = send.maxRows <= 0 ? 0 : Math.max(1, Math.floor(send.maxRows / shards));
    this.terms = { cap, oldestKept: send.sentAt - send.retentionMs };
    for (const row of send.rows) {
      let rows = this.held.get(row.domain);
      if (rows === undefined) this.held.set(row.domain, (rows = []));
      rows.push(row);
      if (rows.length > cap) rows.splice(0, rows.length - cap);
    }
  }

  /** Write the held rows, one table row per domain, then drop what is past the cap or the retention. */
  persist(): void {
    const terms = this.terms;
    if (terms === undefined) return;
    this.terms = undefined;
    const { cap, oldestKept } = terms;
    const byDomain = new Map(this.held);
    this.held.clear();
    for (const [domain, all] of byDomain) {
      let rows = all.length > cap ? all.slice(all.length - cap) : all;
      let text = JSON.stringify(rows);
      // A SQLite row holds at most 2 MB: a batch of long values loses its oldest rows until it fits.
      while (text.length > MAX_BATCH_CHARS && rows.length > 0) {
        rows = rows.slice(Math.ceil(rows.length / 4));
        text = JSON.stringify(rows);
      }
      if (rows.length === 0) continue;
      this.seq += 1;
      const tLast = rows.reduce((most, row) => Math.max(most, row.t), -Infinity);
      const tFirst = rows.reduce((least, row) => Math.min(least, row.t), Infinity);
      this.sql.exec(
        "INSERT INTO sample_batches (seq, domain, t_first, t_last, count, rows) VALUES (?, ?, ?, ?, ?, ?)",
        this.seq,
        domain,
        tFirst,
        tLast,
        rows.length,
        text,
      );
      const list = this.listOf(domain);
      list.push({ seq: this.seq, count: rows.length, tLast });
      let total = list.reduce((sum, batch) => sum + batch.count, 0);
      while (total > cap) {
        const oldest = list.shift() as Batch;
        total -= oldest.count;
        this.drop(oldest);
      }
    }
    for (const list of this.batches.values()) {
      for (let i = list.length - 1; i >= 0; i--) {
        if (list[i].tLast >= oldestKept) continue;
        this.drop(list[i]);
        list.splice(i, 1);
      }
    }
  }

  /** `domain`'s rows with `t` at or after `since` and within the retention at `now`, oldest batch first. */
  read(domain: string, since: number, now: number, retentionMs: number): SampleRow[] {
    const from = Math.max(since, now - retentionMs);
    const out: SampleRow[] = [];
    const batches = this.sql.exec<{ rows: string }>("SELECT rows FROM sample_batches WHERE domain = ? AND t_last >= ? ORDER BY seq", domain, from);
    for (const batch of batches) {
      for (const row of JSON.parse(batch.rows) as SampleRow[]) if (row.t >= from) out.push(row);
    }
    return out;
  }

  private listOf(domain: string): Batch[] {
    let list = this.batches.get(domain);
    if (list === undefined) this.batches.set(domain, (list = []));
    return list;
  }

  private drop(batch: Batch): void {
    this.sql.exec("DELETE FROM sample_batches WHERE seq = ?", batch.seq);
  }
}
