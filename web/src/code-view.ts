import Prism from "prismjs";
import "prismjs/components/prism-python";
import "prismjs/components/prism-diff";
import "prismjs/components/prism-json";
import { el } from "./dom.js";

type TokenStream = string | Prism.Token | (string | Prism.Token)[];

function render(stream: TokenStream, parent: HTMLElement): void {
  if (typeof stream === "string") {
    parent.appendChild(document.createTextNode(stream));
    return;
  }
  if (Array.isArray(stream)) {
    for (const part of stream) render(part, parent);
    return;
  }
  const aliases = stream.alias === undefined ? [] : Array.isArray(stream.alias) ? stream.alias : [stream.alias];
  const span = el("span", { class: ["tok", stream.type, ...aliases].map((name, index) => (index === 0 ? name : `tok-${name}`)).join(" ") });
  render(stream.content as TokenStream, span);
  parent.appendChild(span);
}

/**
 * Code with syntax highlighting: Prism tokenises the text and each token becomes a `span` whose
 * text is set as a text node, so code is always escaped (no HTML string is ever produced).
 * @param language `python`, `diff` or `json`; anything else is shown plain
 */
export function codeBlock(source: string, language: "python" | "diff" | "json"): HTMLPreElement {
  const code = el("code", { class: `code code-${language}` });
  const grammar = Prism.languages[language];
  if (grammar === undefined) code.textContent = source;
  else render(Prism.tokenize(source, grammar), code);
  return el("pre", { class: "code-block" }, code);
}
