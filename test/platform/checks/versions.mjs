/**
 * (g) Mixed versions during a rollout (docs/reliability.md, "Bounds and the
 * tests that hold them"; docs/stored-formats.md): old and new isolates call
 * the same objects while a deploy rolls out (worker/wire-versions.ts).
 * - `wire-old` speaks as an isolate of a deploy before wire versions (no
 *   version passed), beside `wire-new` (today's): one fresh key of limit 50,
 *   300 requests over both, from three regions: 50 allowed, every answer the
 *   objects' (the objects read the older wire), no 5xx;
 * - `wire-next` speaks a version past the newest the objects read (a newer
 *   isolate beside objects of the deploy before, as in a rollback): every
 *   batch is refused, so its failure mode decides: at most 50 of 300, no
 *   5xx;
 * - with the worker of the deploy before built too (lib/previous.mjs, when
 *   the clone has that commit): `prev-edge`, an isolate of that build,
 *   beside `wire-new` on today's objects (45–50 of 300, all the objects'),
 *   and `new-on-prev`, today's isolate, beside `prev-home` on that build's
 *   objects (45–50 of 300 if they read today's wire; if they refuse it,
 *   today's isolate decides alone: at most 50 per isolate); no 5xx.
 */
import { arrival, freshKey, send, THREE_REGIONS } from "../lib/traffic.mjs";
import { decisions } from "./faults.mjs";

const PATH = "/limit-50";
const LIMIT = 50;

/** The services (id → vars). */
export const VERSION_SERVICES = { "wire-old": { PLATFORM_WIRE: "unversioned" }, "wire-new": {}, "wire-next": { PLATFORM_WIRE: "next" } };

/** With the deploy before built (`previous`): the services (id → vars) and how each is built (lib/config.mjs, `builds`). */
export const previousServices = (previous) => ({
  services: { "prev-edge": {}, "prev-home": {}, "new-on-prev": {} },
  builds: { "prev-edge": { worker: previous }, "prev-home": { worker: previous, objectsFrom: null }, "new-on-prev": { objectsFrom: "prev-home" } },
});

const byObjects = (counts) => (counts.decisions["status 200"] ?? 0) + (counts.decisions["status 429"] ?? 0);

/**
 * Rows of the mixed-version checks.
 *
 * @example
 * const rows = await versionChecks({ ports, commit }); // commit: the deploy before's (lib/previous.mjs), or undefined
 */
export async function versionChecks({ ports, commit, log = () => {} }) {
  const mixed = await send({ ports: [ports["wire-old"], ports["wire-new"]], path: PATH, key: freshKey("wire-mixed"), requests: 300, inFlight: 10 });
  log(`versions: an unversioned isolate beside today's: ${mixed.allowed} of 300 allowed (${decisions(mixed)})`);
  const newer = await send({ ports: [ports["wire-next"]], path: PATH, key: freshKey("wire-next"), requests: 300, inFlight: 10 });
  log(`versions: an isolate of a newer wire than the objects read: ${newer.allowed} of 300 allowed (${decisions(newer)})`);
  const rows = [];
  if (commit !== undefined) {
    const built = `${commit.short}, the commit before`;
    const oldEdge = await send({ ports: [ports["prev-edge"], ports["wire-new"]], path: PATH, key: freshKey("prev-edge"), requests: 300, inFlight: 10 });
    const oldObjects = await send({
      ports: [ports["new-on-prev"], ports["prev-home"]],
      path: PATH,
      key: freshKey("prev-objects"),
      requests: 300,
      inFlight: 10,
    });
    const refused = (oldObjects.decisions.local ?? 0) > 0;
    log(`versions: an isolate built from ${built} beside today's: ${oldEdge.allowed} of 300 allowed (${decisions(oldEdge)})`);
    log(`versions: today's isolate beside objects built from ${built}: ${oldObjects.allowed} of 300 allowed (${decisions(oldObjects)})`);
    rows.push(
      {
        check: `versions: an isolate built from ${built} beside today's, on today's objects, one key, limit 50, 300 requests, ${arrival(THREE_REGIONS)}`,
        measured: `${oldEdge.allowed} allowed, ${oldEdge.requests - byObjects(oldEdge)} not decided by the objects, ${oldEdge.errors} 5xx`,
        bound: "45–50 allowed, all decided by the objects, no 5xx",
        pass: oldEdge.allowed >= LIMIT - 5 && oldEdge.allowed <= LIMIT && byObjects(oldEdge) === oldEdge.requests && oldEdge.errors === 0,
      },
      {
        check: `versions: today's isolate beside one built from ${built}, on that build's objects, one key, limit 50, 300 requests, ${arrival(THREE_REGIONS)}`,
        measured: `${oldObjects.allowed} allowed (${decisions(oldObjects)}), ${oldObjects.errors} 5xx`,
        bound: refused ? "today's wire refused: ≤ 50 per isolate (100), no 5xx" : "45–50 allowed, no 5xx",
        pass: oldObjects.errors === 0 && (refused ? oldObjects.allowed <= 2 * LIMIT : oldObjects.allowed >= LIMIT - 5 && oldObjects.allowed <= LIMIT),
      },
    );
  }
  return [
    ...rows,
    {
      check: `versions: an isolate of the deploy before wire versions beside today's, one key, limit 50, 300 requests, ${arrival(THREE_REGIONS)}`,
      measured: `${mixed.allowed} allowed, ${mixed.requests - byObjects(mixed)} not decided by the objects, ${mixed.errors} 5xx`,
      bound: "45–50 allowed, all decided by the objects, no 5xx",
      pass: mixed.allowed >= LIMIT - 5 && mixed.allowed <= LIMIT && byObjects(mixed) === mixed.requests && mixed.errors === 0,
    },
    {
      check: `versions: an isolate newer than the objects (its wire version refused), limit 50, 300 requests, ${arrival(THREE_REGIONS)}`,
      measured: `${newer.allowed} allowed (${decisions(newer)}), ${newer.errors} 5xx`,
      bound: "≤ 50 allowed, all 300 by its failure mode (local), no 5xx",
      pass: newer.allowed <= LIMIT && newer.decisions.local === newer.requests && newer.errors === 0,
    },
  ];
}
