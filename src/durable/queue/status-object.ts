/**
 * QueueStatusObject: one object per queued request (named by its id), the
 * durable answer to `GET /__ratelimit/queued/<id>`. The queue consumer
 * records each delivery attempt here; the count it keeps is the retry
 * budget, so a request re-queued for pacing keeps its failures.
 */
import { DurableObject } from "cloudflare:workers";
import { STATUS_TABLE } from "../../stored/queue-tables.ts";
import { claimIn, releaseIn } from "./backlog-store.ts";

/** Where a queued request stands. */
export type QueuedState = "queued" | "delivered" | "dead_lettered";

/** The stored status of one queued request. */
export interface QueuedStatus {
  readonly id: string;
  readonly state: QueuedState;
  readonly method: string;
  /** Path (without query) the client asked for; the owner check maps it again. */
  readonly path: string;
  /** SHA-256 (hex) of each counter key that queued it: the owner's descriptor values. */
  readonly owner: readonly string[];
  readonly queuedAt: number;
  /** Delivery attempts so far (each one reached, or tried to reach, the origin). */
  readonly attempts: number;
  /** Status of the last origin answer. */
  readonly originStatus?: number;
  /** Why the last attempt failed (network error, or a 5xx). */
  readonly lastError?: string;
  readonly deliveredAt?: number;
  readonly deadLetteredAt?: number;
}

/** The outcome of one delivery attempt. */
export interface AttemptOutcome {
  /** True when the origin answered with something other than a 5xx. */
  readonly delivered: boolean;
  readonly status?: number;
  readonly error?: string;
}

/** How long a finished status stays readable. */
export const FINISHED_RETENTION_MS = 7 * 86_400_000;
/** How long an unfinished one is kept: past Cloudflare Queues' longest retention (14 days). */
export const QUEUED_RETENTION_MS = 15 * 86_400_000;

/**
 * The status of one queued request.
 *
 * @example
 * const status = env.QUEUED.getByName(id);
 * await status.create({ id, state: "queued", method: "POST", path: "/hook", owner: [hash], queuedAt: Date.now(), attempts: 0 });
 * (await status.read())?.state; // "queued"
 */
export class QueueStatusObject extends DurableObject {
  /**
   * Store the status of a request being queued (kept if one exists already).
   *
   * @example
   * await stub.create(record);
   */
  async create(record: QueuedStatus): Promise<void> {
    if (this.load() !== undefined) return;
    this.save(record);
    await this.ctx.storage.setAlarm(record.queuedAt + QUEUED_RETENTION_MS);
  }

  /**
   * The status, or null when there is none (never queued, or expired).
   *
   * @example
   * const status = await stub.read();
   */
  read(): QueuedStatus | null {
    return this.load() ?? null;
  }

  /**
   * Record one delivery attempt and answer the status after it.
   *
   * @example
   * const after = await stub.attempted({ delivered: false, status: 500 });
   * if (after.attempts >= maxAttempts) { ... dead-letter it ... }
   */
  async attempted(outcome: AttemptOutcome): Promise<QueuedStatus | null> {
    const current = this.load();
    if (current === undefined) return null;
    const now = Date.now();
    const next: QueuedStatus = {
      ...current,
      attempts: current.attempts + 1,
      ...(outcome.status !== undefined ? { originStatus: outcome.status } : {}),
      ...(outcome.error !== undefined ? { lastError: outcome.error } : {}),
      ...(outcome.delivered ? { state: "delivered", deliveredAt: now } : {}),
    };
    this.save(next);
    if (outcome.delivered) await this.ctx.storage.setAlarm(now + FINISHED_RETENTION_MS);
    return next;
  }

  /**
   * Mark the request dead-lettered (after it was sent to the dead-letter queue).
   *
   * @example
   * await stub.deadLettered();
   */
  async deadLettered(): Promise<void> {
    const current = this.load();
    if (current === undefined || current.state !== "queued") return;
    const now = Date.now();
    this.save({ ...current, state: "dead_lettered", deadLetteredAt: now });
    await this.ctx.storage.setAlarm(now + FINISHED_RETENTION_MS);
  }

  /**
   * Forget the status (the request could not be queued after all).
   *
   * @example
   * await stub.discard();
   */
  async discard(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }

  /**
   * A backlog object (backlog.ts): hold a place for `id` unless `cap` are held; the object is dropped after its last place expires.
   *
   * @example
   * if (!(await env.QUEUED.getByName(name).claimPlace(id, 100, expiresAt))) return refusal(result);
   */
  async claimPlace(id: string, cap: number, expiresAt: number): Promise<boolean> {
    const held = claimIn(this.ctx.storage.sql, id, cap, expiresAt, Date.now());
    const alarm = await this.ctx.storage.getAlarm();
    if (held && (alarm === null || alarm < expiresAt)) await this.ctx.storage.setAlarm(expiresAt);
    return held;
  }

  /**
   * A backlog object: free `id`'s place.
   *
   * @example
   * await env.QUEUED.getByName(name).releasePlace(id);
   */
  releasePlace(id: string): void {
    releaseIn(this.ctx.storage.sql, id);
  }

  /** Retention is over (for a backlog object: its last place expired): drop everything, so the object costs nothing more. */
  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }

  private load(): QueuedStatus | undefined {
    // Created on use, not in the constructor: deleteAll() drops the table with the data.
    this.ctx.storage.sql.exec(STATUS_TABLE);
    const rows = this.ctx.storage.sql.exec<{ record: string }>("SELECT record FROM status LIMIT 1").toArray();
    return rows.length === 0 ? undefined : (JSON.parse(rows[0].record) as QueuedStatus);
  }

  private save(record: QueuedStatus): void {
    this.ctx.storage.sql.exec(STATUS_TABLE);
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO status (id, record) VALUES (?, ?)", record.id, JSON.stringify(record));
  }
}
