/** Children accepted by {@link el}: nodes, or text (always set as text, never parsed as HTML). */
export type Child = Node | string | number | null | undefined | false;

/**
 * Creates an element. Text children become text nodes, so untrusted text (model output,
 * environment code, transcripts) can never turn into markup. There is no way to pass HTML.
 */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name.startsWith("on")) throw new Error(`el: event attributes are not allowed (${name})`);
    element.setAttribute(name, value);
  }
  append(element, ...children);
  return element;
}

/** Appends children to `parent`; strings and numbers as text nodes. */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }
}

/** A link to a dashboard route (`#/…`). */
export function link(route: string, ...children: Child[]): HTMLAnchorElement {
  return el("a", { href: `#${route}` }, ...children);
}

/** Preformatted untrusted text. */
export function pre(text: string, className = "text"): HTMLPreElement {
  const element = el("pre", { class: className });
  element.textContent = text;
  return element;
}

/** A table from a header row and body rows. */
export function table(headers: readonly string[], rows: readonly Child[][], attributes: Record<string, string> = {}): HTMLTableElement {
  return el(
    "table",
    attributes,
    el("thead", {}, el("tr", {}, ...headers.map((header) => el("th", {}, header)))),
    el("tbody", {}, ...rows.map((row) => el("tr", {}, ...row.map((cell) => el("td", {}, cell))))),
  );
}

/** A collapsible section; `key` lets a live re-render keep it open. */
export function details(key: string, summary: Child, ...children: Child[]): HTMLDetailsElement {
  return el("details", { "data-key": key }, el("summary", {}, summary), ...children);
}

/** A number with `digits` decimals, or "n/a". */
export function fixed(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined || Number.isNaN(value) ? "n/a" : value.toFixed(digits);
}

/** A fraction as a percentage, or "n/a". */
export function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? "n/a" : `${Math.round(value * 100)}%`;
}

/** Pretty JSON of a value, for `pre` (evidence, manifests). */
export function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? "undefined";
}
