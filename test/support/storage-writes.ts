/**
 * What a real object's storage writes while a test drives it inside the
 * object (`runInDurableObject`): rows as SQLite counts them (each
 * statement's `rowsWritten`) and `setAlarm` calls (each billed as a row,
 * docs/reliability.md, "What a request writes"), until `restore` puts the
 * storage back as it was.
 */

/** The counts so far, and a way to stop counting. */
export interface StorageWrites {
  /** Rows SQL statements wrote since the tap. */
  rows(): number;
  /** `setAlarm` calls since the tap. */
  alarms(): number;
  /** Put the storage's own `sql.exec` and `setAlarm` back. */
  restore(): void;
}

/**
 * Count the writes of `storage` from now on.
 *
 * @example
 * await runInDurableObject(stub, (instance: MetricsObject, state) => {
 *   const writes = tapWrites(state.storage);
 *   instance.add(samples, traffic, at);
 *   writes.restore();
 *   return writes.rows() + writes.alarms();
 * });
 */
export function tapWrites(storage: DurableObjectStorage): StorageWrites {
  const sql = storage.sql;
  const exec = sql.exec.bind(sql);
  const setAlarm = storage.setAlarm.bind(storage);
  let rows = 0;
  let alarms = 0;
  (sql as { exec: typeof sql.exec }).exec = ((query: string, ...bindings: unknown[]) => {
    const cursor = exec(query, ...bindings);
    // A cursor's rowsWritten is complete only once it has been read through.
    cursor.toArray();
    rows += cursor.rowsWritten;
    return cursor;
  }) as typeof sql.exec;
  storage.setAlarm = ((...args: Parameters<typeof setAlarm>) => {
    alarms += 1;
    return setAlarm(...args);
  }) as typeof setAlarm;
  return {
    rows: () => rows,
    alarms: () => alarms,
    restore: () => {
      (sql as { exec: typeof sql.exec }).exec = exec;
      storage.setAlarm = setAlarm;
    },
  };
}
