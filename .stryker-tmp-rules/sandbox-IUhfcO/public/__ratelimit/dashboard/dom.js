// @ts-nocheck
// Element building for the dashboard. Text always goes in as text nodes:
// keys and rule names come from clients and rules, never parsed as HTML.

/**
 * A new element with properties, listeners (`onclick`...) and children (nodes or text).
 *
 * @example
 * el("td", { class: "key" }, "user=alice");
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children) if (child !== undefined && child !== null) node.append(child instanceof Node ? child : String(child));
  return node;
}

/** A number for people: 1234567 → "1,234,567", fractions kept to 2 digits. */
export function num(value) {
  return Number(value).toLocaleString("en-US", { maximumFractionDigits: 2 });
}

/** A policy's label: domain · descriptor · limit (window). */
export function policyLabel(p) {
  return `${p.domain} · ${p.descriptor} · ${p.limit} (${num(p.window_seconds)} s window)${p.shadow ? " · shadow" : ""}`;
}
