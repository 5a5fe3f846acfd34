/**
 * The committed `bench/results.json`: what bench/README.md's tables and
 * `bench/results.svg` need from a run, without the per-run traces (every
 * target's `runs`). Numbers keep 4 decimals; each innermost object sits on
 * one line, so a new run's diff reads row by row. The full raw document of
 * every run goes to the git-ignored `bench/runs/`.
 */
// @ts-nocheck


/**
 * Copy `results` without per-run data, numbers rounded.
 *
 * @example
 * summarize({ scenarios: [{ targets: { bare: { rps: 3981.4739, runs: [] } } }] });
 * // → { scenarios: [{ targets: { bare: { rps: 3981.4739 } } }] }
 */
export function summarize(results) {
  return JSON.parse(
    JSON.stringify(results, (key, value) => {
      if (key === "runs") return undefined;
      if (typeof value === "number" && !Number.isInteger(value)) return Math.round(value * 1e4) / 1e4;
      return value;
    }),
  );
}

/**
 * JSON with two-space indents whose innermost objects and arrays (holding
 * only numbers, strings and arrays of those) stay on one line.
 *
 * @example
 * formatSummary({ a: { b: 1, c: [1, 2] } }); // '{\n  "a": { "b": 1, "c": [1, 2] }\n}\n'
 */
export function formatSummary(value) {
  const leaf = (x) => x === null || typeof x !== "object";
  const flat = (v) => Object.values(v).every((x) => leaf(x) || (Array.isArray(x) && x.every(leaf)));
  const one = (v) =>
    Array.isArray(v)
      ? `[${v.map(one).join(", ")}]`
      : leaf(v)
        ? JSON.stringify(v)
        : `{ ${Object.entries(v)
            .map(([k, x]) => `${JSON.stringify(k)}: ${one(x)}`)
            .join(", ")} }`;
  const walk = (v, indent) => {
    if (v === null || typeof v !== "object") return JSON.stringify(v);
    if (flat(v)) return one(v);
    const pad = `${indent}  `;
    const items = Array.isArray(v) ? v.map((x) => pad + walk(x, pad)) : Object.entries(v).map(([k, x]) => `${pad}${JSON.stringify(k)}: ${walk(x, pad)}`);
    return Array.isArray(v) ? `[\n${items.join(",\n")}\n${indent}]` : `{\n${items.join(",\n")}\n${indent}}`;
  };
  return `${walk(value, "")}\n`;
}
