// "Most restrictive", chosen in one place (src/limiter/restrictive.ts): a refusal before an admission, among
// refusals the longest wait, among admissions the least remaining, then the latest reset; the first among equals.
import { describe, expect, it } from "vitest";
import type { Decision } from "../../src/algorithms/types.ts";
import { moreRestrictive, mostRestrictive } from "../../src/limiter/restrictive.ts";

function allowed(remaining: number, resetAfterMs: number): Decision {
  return { allowed: true, limit: 10, remaining, resetAfterMs, retryAfterMs: 0, effectiveWindowMs: 60_000 };
}
function refused(retryAfterMs: number, remaining = 0): Decision {
  return { allowed: false, limit: 10, remaining, resetAfterMs: retryAfterMs, retryAfterMs, effectiveWindowMs: 60_000 };
}

// Break tried: `a.retryAfterMs >= b.retryAfterMs` (equal waits then more restrictive): "equal waits" failed; the
// admissions' `<` as `<=`: "equal remaining, equal reset" failed.
describe("moreRestrictive", () => {
  const cases: [string, Decision, Decision, boolean][] = [
    ["a refusal over an admission", refused(1), allowed(0, 60_000), true],
    ["an admission under a refusal", allowed(0, 60_000), refused(1), false],
    ["the longer wait", refused(5_000), refused(1_000), true],
    ["the shorter wait", refused(1_000), refused(5_000), false],
    ["equal waits", refused(3_000), refused(3_000), false],
    ["a refusal's remaining is not compared", refused(1_000, 0), refused(5_000, 9), false],
    ["less remaining", allowed(1, 1_000), allowed(2, 9_000), true],
    ["more remaining", allowed(2, 9_000), allowed(1, 1_000), false],
    ["equal remaining, later reset", allowed(3, 2_000), allowed(3, 1_000), true],
    ["equal remaining, earlier reset", allowed(3, 1_000), allowed(3, 2_000), false],
    ["equal remaining, equal reset", allowed(3, 1_000), allowed(3, 1_000), false],
    ["an admission's wait is not compared", allowed(3, 1_000), { ...allowed(3, 1_000), retryAfterMs: 9_000 }, false],
  ];
  for (const [what, a, b, expected] of cases) it(`${what}: ${expected}`, () => expect(moreRestrictive(a, b)).toBe(expected));
});

describe("mostRestrictive", () => {
  it("none: undefined", () => {
    expect(mostRestrictive<Decision>([], (d) => d)).toBeUndefined();
  });

  it("the longest refusal among admissions and refusals, in either order", () => {
    const items = [
      { name: "roomy", decision: allowed(9, 1_000) },
      { name: "short", decision: refused(1_000) },
      { name: "long", decision: refused(7_000) },
      { name: "tight", decision: allowed(0, 5_000) },
    ];
    expect(mostRestrictive(items, (i) => i.decision)?.name).toBe("long");
    expect(mostRestrictive([...items].reverse(), (i) => i.decision)?.name).toBe("long");
  });

  it("the least remaining among admissions, then the latest reset", () => {
    const items = [
      { name: "roomy", decision: allowed(9, 9_000) },
      { name: "tight-early", decision: allowed(1, 1_000) },
      { name: "tight-late", decision: allowed(1, 4_000) },
    ];
    expect(mostRestrictive(items, (i) => i.decision)?.name).toBe("tight-late");
    expect(mostRestrictive([...items].reverse(), (i) => i.decision)?.name).toBe("tight-late");
  });

  it("the first among equals", () => {
    const items = [
      { name: "first", decision: refused(2_000) },
      { name: "second", decision: refused(2_000) },
    ];
    expect(mostRestrictive(items, (i) => i.decision)?.name).toBe("first");
    expect(mostRestrictive(items.slice(1), (i) => i.decision)?.name).toBe("second");
  });
});
