/**
 * "Did you mean" suggestions for misspelled keys and enum values.
 */
// @ts-nocheck


/**
 * Edit distance counting an adjacent swap as one edit, since swapped letters
 * (`rate_lmiit`) are the most common typo in hand-written config.
 *
 * @example
 * editDistance("rate_limt", "rate_limit"); // 1
 * editDistance("uint", "unit");            // 1 (swap)
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array(rows * cols);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[(i - 1) * cols + j] + 1, d[i * cols + j - 1] + 1, d[(i - 1) * cols + j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[(i - 2) * cols + j - 2] + 1);
      }
      d[i * cols + j] = best;
    }
  }
  return d[rows * cols - 1];
}

/**
 * The candidate closest to `input`, if it is close enough to be a plausible
 * typo (at most a third of the word's length, and at least one edit allowed).
 * Case differences alone always qualify, and so does a truncation of at
 * least three characters (`shard` for `sharded`).
 *
 * @example
 * closest("rate_limt", ["rate_limit", "rate_limits", "key"]); // "rate_limit"
 * closest("shard", ["sharded", "per_key"]);                  // "sharded"
 * closest("zzz", ["key", "value"]);                            // undefined
 */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  const lower = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate.toLowerCase() === lower) return candidate;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const allowed = Math.max(1, Math.floor(input.length / 3));
  if (bestDistance <= allowed) return best;
  return lower.length >= 3 ? candidates.find((c) => c.toLowerCase().startsWith(lower)) : undefined;
}
