/**
 * A small JSON Schema (2020-12) checker covering exactly the keywords
 * rules.schema.json uses, so the tests can run the shipped schema without a
 * validator dependency. It throws on any keyword it does not know, so the
 * schema cannot quietly grow beyond what is tested.
 */
// @ts-nocheck

type Schema = boolean | { readonly [keyword: string]: unknown };

const KNOWN = new Set([
  "$schema",
  "$ref",
  "$defs",
  "title",
  "description",
  "default",
  "type",
  "enum",
  "const",
  "minLength",
  "pattern",
  "minimum",
  "maximum",
  "minItems",
  "items",
  "properties",
  "required",
  "additionalProperties",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
]);

const typeOf = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" && Number.isInteger(v) ? "integer" : typeof v);

/** Whether `value` is valid against `schema`, resolving `#/$defs/...` refs in `root`. */
export function validates(root: Schema, value: unknown, schema: Schema = root): boolean {
  if (typeof schema === "boolean") return schema;
  for (const keyword of Object.keys(schema)) {
    if (!KNOWN.has(keyword)) throw new Error(`mini-schema does not know keyword ${keyword}`);
  }
  const s = schema as Record<string, any>;
  const sub = (v: unknown, sch: Schema) => validates(root, v, sch);
  if (s.$ref !== undefined) {
    const name = String(s.$ref).replace(/^#\/\$defs\//, "");
    if (!sub(value, (root as Record<string, any>).$defs[name])) return false;
  }
  const t = typeOf(value);
  if (s.type !== undefined && !(s.type === t || (s.type === "number" && t === "integer"))) return false;
  if (s.enum !== undefined && !s.enum.includes(value)) return false;
  if (s.const !== undefined && s.const !== value) return false;
  if (typeof value === "string") {
    if (s.minLength !== undefined && value.length < s.minLength) return false;
    if (s.pattern !== undefined && !new RegExp(s.pattern, "u").test(value)) return false;
  }
  if (typeof value === "number") {
    if (s.minimum !== undefined && value < s.minimum) return false;
    if (s.maximum !== undefined && value > s.maximum) return false;
  }
  if (Array.isArray(value)) {
    if (s.minItems !== undefined && value.length < s.minItems) return false;
    if (s.items !== undefined && !value.every((v) => sub(v, s.items))) return false;
  }
  if (t === "object") {
    const obj = value as Record<string, unknown>;
    if (s.required !== undefined && !s.required.every((k: string) => Object.hasOwn(obj, k))) return false;
    for (const [k, v] of Object.entries(obj)) {
      if (s.properties !== undefined && Object.hasOwn(s.properties, k)) {
        if (!sub(v, s.properties[k])) return false;
      } else if (s.additionalProperties !== undefined && !sub(v, s.additionalProperties)) {
        return false;
      }
    }
  }
  if (s.allOf !== undefined && !s.allOf.every((x: Schema) => sub(value, x))) return false;
  if (s.anyOf !== undefined && !s.anyOf.some((x: Schema) => sub(value, x))) return false;
  if (s.oneOf !== undefined && s.oneOf.filter((x: Schema) => sub(value, x)).length !== 1) return false;
  if (s.not !== undefined && sub(value, s.not)) return false;
  if (s.if !== undefined) {
    const branch = sub(value, s.if) ? s.then : s.else;
    if (branch !== undefined && !sub(value, branch)) return false;
  }
  return true;
}
