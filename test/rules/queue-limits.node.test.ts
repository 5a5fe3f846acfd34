/**
 * queueLimitPaths: every `on_limit: "queue"` of a rules file, by JSON path,
 * in file order, against an oracle that records each path as it builds the file.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileRules } from "../../src/rules/index.ts";
import { queueLimitPaths } from "../../src/rules/queue-limits.ts";

type Shape = { value?: string; limits: (string | undefined)[] | string | undefined | null; children: Shape[] };

const action = fc.constantFrom(undefined, "reject", "queue", "delay");
// null: no limit; a string or undefined: one `rate_limit`; an array: `rate_limits`.
const limits = fc.oneof(fc.constant(null), action, fc.array(action, { maxLength: 3 }));
function shapeOf(depth: number): fc.Arbitrary<Shape> {
  return fc.record({
    // "queue" as a descriptor value is not an on_limit.
    value: fc.option(fc.constantFrom("queue", "a", "b"), { nil: undefined }),
    limits,
    children: depth === 0 ? fc.constant([]) : fc.array(shapeOf(depth - 1), { maxLength: 2 }),
  });
}
const shape = shapeOf(2);

function limit(onLimit: string | undefined) {
  const base = { unit: "second", requests_per_unit: 5, algorithm: "gcra" };
  return onLimit === undefined ? base : { ...base, on_limit: onLimit, ...(onLimit === "delay" ? { max_delay_ms: 100 } : {}) };
}

/** The descriptor for `node` at `path`, with the path of each queue limit pushed to `expected` in file order. */
function build(node: Shape, key: string, path: string, expected: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { key, ...(node.value !== undefined ? { value: node.value } : {}) };
  if (Array.isArray(node.limits)) {
    out.rate_limits = node.limits.map((a, i) => {
      if (a === "queue") expected.push(`${path}.rate_limits[${i}].on_limit`);
      return limit(a);
    });
  } else if (node.limits !== null) {
    if (node.limits === "queue") expected.push(`${path}.rate_limit.on_limit`);
    out.rate_limit = limit(node.limits);
  }
  if (node.children.length > 0) out.descriptors = node.children.map((c, i) => build(c, `${key}${i}`, `${path}.descriptors[${i}]`, expected));
  return out;
}

describe("queueLimitPaths", () => {
  it("finds exactly the queue limits, in file order, in one domain or an array of them", () => {
    fc.assert(
      fc.property(fc.array(fc.array(shape, { maxLength: 3 }), { minLength: 1, maxLength: 3 }), fc.boolean(), (domains, asArray) => {
        const expected: string[] = [];
        const docs = (asArray ? domains : domains.slice(0, 1)).map((nodes, d) => {
          const root = asArray ? `$[${d}]` : "$";
          return { domain: `d${d}`, descriptors: nodes.map((n, i) => build(n, `k${i}`, `${root}.descriptors[${i}]`, expected)) };
        });
        const rules = asArray ? docs : docs[0];
        expect(queueLimitPaths(rules)).toEqual(expected);
      }),
    );
  });

  it("reads the paths the compiler uses, on a file the compiler accepts", () => {
    const rules = {
      domain: "api",
      descriptors: [
        { key: "path", value: "/hooks", descriptors: [{ key: "remote_address", rate_limits: [limit("reject"), { ...limit("queue"), unit: "minute" }] }] },
        { key: "remote_address", rate_limit: limit(undefined) },
      ],
    };
    expect(compileRules(rules)).toMatchObject({ ok: true });
    expect(queueLimitPaths(rules)).toEqual(["$.descriptors[0].descriptors[0].rate_limits[1].on_limit"]);
    expect(queueLimitPaths({ domain: "api" })).toEqual([]);
  });
});
