/**
 * STORED FORMAT (docs/stored-formats.md): the SQLite tables of the queue's
 * objects (QueueStatusObject, as a status record or a backlog). Changed
 * only as docs/stored-formats.md says: statements stay `IF NOT EXISTS`, and
 * both deploys read the rows.
 */

/** Version of the tables below: raised with any change of their statements or of what their rows hold. */
export const QUEUE_TABLES_VERSION = 1;

/** A backlog object's places: one row per queued id holding one, with when it lapses on its own. */
export const BACKLOG_TABLE = "CREATE TABLE IF NOT EXISTS backlog (id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)";

/** A queued request's status (`record`: the QueuedStatus as JSON). */
export const STATUS_TABLE = "CREATE TABLE IF NOT EXISTS status (id TEXT PRIMARY KEY, record TEXT NOT NULL)";
