/**
 * What every Durable Object of the bench build did, by class, as Cloudflare
 * bills it (bench/README.md, "What a deployment costs"): requests (every
 * RPC call, fetch and alarm that reaches the object from outside it), SQLite
 * rows read and written (`rowsRead`/`rowsWritten` of every
 * `ctx.storage.sql.exec` cursor, plus one row written per key `put` or
 * `delete`), alarms set or deleted (stored in the object's storage too),
 * and active time (the wall time
 * with at least one event of the object in progress: what duration is
 * billed for, since an idle object that may hibernate is not). Counted from
 * outside: each class is wrapped in a subclass, so production code carries
 * no hooks. Objects and the gateway share one isolate in workerd, so the
 * tally is plain module state, read at `GET /__bench/objects`. It also
 * keeps the most requests any one object took in a second (`peakPerSecond`,
 * against the platform's soft limit of about 1,000) and the bytes the
 * objects store (`storedBytes`: `ctx.storage.sql.databaseSize`, which
 * storage is billed by).
 */

type Tally = {
  requests: number;
  alarms: number;
  rowsRead: number;
  rowsWritten: number;
  alarmSets: number;
  activeMs: number;
  instances: number;
  /** Most requests (alarms included) one object of the class took in one wall-clock second. */
  peakPerSecond: number;
  /** Bytes of SQLite storage the class's objects hold (`ctx.storage.sql.databaseSize`, read at each tally). */
  storedBytes: number;
};

const tallies = new Map<string, Tally>();
const tallyOf = (name: string): Tally => {
  let tally = tallies.get(name);
  if (tally === undefined)
    tallies.set(
      name,
      (tally = { requests: 0, alarms: 0, rowsRead: 0, rowsWritten: 0, alarmSets: 0, activeMs: 0, instances: 0, peakPerSecond: 0, storedBytes: 0 }),
    );
  return tally;
};

/** Per object (by id): its class's tally, its storage, the last size read, and its requests in the current second. */
const objects = new Map<string, { tally: Tally; sql: { databaseSize: number }; bytes: number; second: number; inSecond: number }>();

function countSecond(id: string): void {
  const object = objects.get(id);
  if (object === undefined) return;
  const second = Math.floor(Date.now() / 1000);
  if (object.second !== second) {
    object.second = second;
    object.inSecond = 0;
  }
  object.inSecond += 1;
  if (object.inSecond > object.tally.peakPerSecond) object.tally.peakPerSecond = object.inSecond;
}

/** Read an object's database size at the end of one of its events (only its own events may touch its storage). */
function readSize(id: string): void {
  const object = objects.get(id);
  if (object === undefined) return;
  try {
    object.bytes = object.sql.databaseSize;
  } catch {
    // Storage no longer usable (an instance being torn down): keep the last size read (its file stays on disk).
  }
}

/** Every object's database size as last read, summed per class. */
function readStoredBytes(): void {
  for (const tally of tallies.values()) tally.storedBytes = 0;
  for (const object of objects.values()) object.tally.storedBytes += object.bytes;
}

/** Cursors not yet added to a tally: their rows grow while they are read, so they are added once their event is over. */
const pending: { cursor: { rowsRead: number; rowsWritten: number }; tally: Tally }[] = [];
const addPending = () => {
  for (const { cursor, tally } of pending.splice(0)) {
    tally.rowsRead += cursor.rowsRead;
    tally.rowsWritten += cursor.rowsWritten;
  }
};

/** Which tally a storage (SQL or key-value) belongs to. */
const owners = new WeakMap<object, Tally>();
let patched = false;

/** Count through the storage classes' prototypes once: `ctx.storage.sql` may be a new wrapper per read. */
function patchStorage(storage: DurableObjectStorage): void {
  if (patched) return;
  patched = true;
  const sqlProto = Object.getPrototypeOf(storage.sql) as { exec: (...args: unknown[]) => { rowsRead: number; rowsWritten: number } };
  const exec = sqlProto.exec;
  sqlProto.exec = function (this: object, ...args: unknown[]) {
    const cursor = exec.apply(this, args);
    const tally = owners.get(this) ?? tallyOf("(unattributed)");
    pending.push({ cursor, tally });
    return cursor;
  };
  const kvProto = Object.getPrototypeOf(storage) as Record<string, (...args: unknown[]) => unknown>;
  const writes = (name: string, rows: (args: unknown[]) => number, field: "rowsWritten" | "alarmSets" = "rowsWritten") => {
    const original = kvProto[name];
    kvProto[name] = function (this: object, ...args: unknown[]) {
      (owners.get(this) ?? tallyOf("(unattributed)"))[field] += rows(args);
      return original.apply(this, args);
    };
  };
  const keys = (args: unknown[]) =>
    Array.isArray(args[0]) ? args[0].length : typeof args[0] === "object" && args[0] !== null ? Object.keys(args[0]).length : 1;
  writes("put", keys);
  writes("delete", keys);
  writes("setAlarm", () => 1, "alarmSets");
  writes("deleteAlarm", () => 1, "alarmSets");
}

/**
 * Whether the wrapped method was called by the runtime (an RPC, fetch or
 * alarm reaching the object): then no JavaScript frame is under the
 * wrapper's own. A call from the object's own code, even in a later turn
 * (a private helper called after an await), has its caller's frame there.
 */
function fromOutside(): boolean {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 3;
  const frames = (new Error().stack ?? "").split("\n").length - 1;
  Error.stackTraceLimit = limit;
  // This function's frame and the wrapper's.
  return frames <= 2;
}

type ObjectClass = abstract new (ctx: DurableObjectState, env: never) => object;

/**
 * `Base`, counted under `classify(ctx)` (e.g. regional counter objects apart
 * from home ones). Every method of its prototype chain is wrapped: a call
 * from outside counts one request (a call an object makes to itself, as
 * `decideText` to `decide`, is not one: `fromOutside`), and its time from
 * start to settling is active time.
 *
 * @example
 * export const RulesObject = counted(Rules, () => "RulesObject");
 */
export function counted<C extends ObjectClass>(Base: C, classify: (ctx: DurableObjectState) => string): C {
  // biome-ignore lint/suspicious/noExplicitAny: a mixin over any object class
  const Counted = class extends (Base as any) {
    tally: Tally;
    objectId = "";
    inside = false;
    busy = 0;
    busySince = 0;
    constructor(ctx: DurableObjectState, env: never) {
      patchStorage(ctx.storage);
      const tally = tallyOf(classify(ctx));
      owners.set(ctx.storage, tally);
      owners.set(ctx.storage.sql, tally);
      super(ctx, env);
      this.tally = tally;
      this.objectId = ctx.id.toString();
      objects.set(this.objectId, { tally, sql: ctx.storage.sql, bytes: objects.get(this.objectId)?.bytes ?? 0, second: 0, inSecond: 0 });
      tally.instances += 1;
    }
  };
  const seen = new Set<string>(["constructor"]);
  for (let proto = Base.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      if (seen.has(name) || typeof descriptor?.value !== "function") continue;
      seen.add(name);
      const original = descriptor.value as (...args: unknown[]) => unknown;
      Object.defineProperty(Counted.prototype, name, {
        configurable: true,
        writable: true,
        value: function (this: InstanceType<typeof Counted>, ...args: unknown[]) {
          // A call the object makes to itself (at once or in a later turn), or one its base class's constructor makes
          // (before this class's fields exist): not a request.
          if (this.inside || this.tally === undefined || !fromOutside()) return original.apply(this, args);
          if (name === "alarm") this.tally.alarms += 1;
          else this.tally.requests += 1;
          countSecond(this.objectId);
          if (this.busy++ === 0) this.busySince = Date.now();
          const done = () => {
            addPending();
            readSize(this.objectId);
            if (--this.busy === 0) this.tally.activeMs += Date.now() - this.busySince;
          };
          this.inside = true;
          let result: unknown;
          try {
            result = original.apply(this, args);
          } catch (error) {
            done();
            throw error;
          } finally {
            this.inside = false;
          }
          if (result instanceof Promise) return result.finally(done);
          done();
          return result;
        },
      });
    }
  }
  return Counted as unknown as C;
}

/**
 * The tally as JSON: per class, requests, alarms, rows read and written, active ms, instances started.
 *
 * @example
 * if (url.pathname === "/__bench/objects") return objectTally();
 */
export function objectTally(): Response {
  addPending();
  readStoredBytes();
  return Response.json(Object.fromEntries(tallies));
}
