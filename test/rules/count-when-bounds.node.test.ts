/**
 * The bounds of `count_when` statuses (docs/response-limits.md: 100–599,
 * classes 1xx–5xx, ranges from a lower to a higher status): each edge
 * accepted, one past it refused with its message at its JSON path.
 * Breaks tried: `n >= STATUS.min` as `n > STATUS.min` and `lo <= hi` as
 * `lo < hi` each fail here.
 */
import { describe, expect, it } from "vitest";
import { domainOf, errorsOf } from "./helpers.ts";

const limited = (status: unknown[]) => ({
  domain: "t",
  descriptors: [{ key: "k", rate_limit: { unit: "minute", requests_per_unit: 5, count_when: { status } } }],
});
const compiled = (status: unknown[]) => domainOf(limited(status)).root.keyOnly.get("k")?.limits[0].countWhen?.status;
const AT = "$.descriptors[0].rate_limit.count_when.status";

describe("count_when bounds", () => {
  it("accepts 100 and 599, ranges at both ends and of one status, and classes in either case", () => {
    expect(compiled([100, 599, "100-599", "401-401", "1xx", "5XX"])).toEqual([
      [100, 100],
      [599, 599],
      [100, 599],
      [401, 401],
      [100, 199],
      [500, 599],
    ]);
  });

  it("refuses 99, 600, 401.5 and ranges past either end, each at its index", () => {
    expect(errorsOf(limited([99, 600, 401.5, "099-200", "500-600", "0xx", "6xx", "40x"]))).toEqual([
      { path: `${AT}[0]`, message: "status 99 is not an HTTP status (100–599)" },
      { path: `${AT}[1]`, message: "status 600 is not an HTTP status (100–599)" },
      { path: `${AT}[2]`, message: "status 401.5 is not an HTTP status (100–599)" },
      { path: `${AT}[3]`, message: 'range "099-200" must run from a lower to a higher status within 100–599' },
      { path: `${AT}[4]`, message: 'range "500-600" must run from a lower to a higher status within 100–599' },
      { path: `${AT}[5]`, message: '"0xx" is not a status (401), class ("4xx") or range ("500-599")' },
      { path: `${AT}[6]`, message: '"6xx" is not a status (401), class ("4xx") or range ("500-599")' },
      { path: `${AT}[7]`, message: '"40x" is not a status (401), class ("4xx") or range ("500-599")' },
    ]);
    expect(errorsOf(limited([401, " 5xx", "5xx "]))).toEqual([
      { path: `${AT}[1]`, message: '" 5xx" is not a status (401), class ("4xx") or range ("500-599")' },
      { path: `${AT}[2]`, message: '"5xx " is not a status (401), class ("4xx") or range ("500-599")' },
    ]);
  });
});
