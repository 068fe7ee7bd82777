#!/usr/bin/env node
// Writes the parts of the docs that are generated from the code, so that they cannot drift:
//   docs/configuration.md  the configuration reference: every key's type, range or allowed values from
//                          z.toJSONSchema(ConfigSchema), its default from ConfigSchema.parse({}), its description from
//                          the key's TSDoc comment in src/config/schema.ts (read with the TypeScript compiler's parser);
//   docs/admission.md      the verdict table: every (gate, reason code) pair `reject` accepts, from VERDICT_REASONS.
// Each part sits between `<!-- generated:NAME start … -->` and `<!-- generated:NAME end -->`. Needs the build
// (`npm run build`: it imports dist/).
//   node scripts/generated-docs.mjs            rewrite the generated parts
//   node scripts/generated-docs.mjs --check    exit 1 when a part is out of date (a test runs this in CI)
//   --doc NAME=PATH                            read and write part NAME (config, verdicts) in another file (for tests)
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { z } from "zod";
import { ADMISSION_GATE_NAMES, ConfigSchema } from "../dist/config/index.js";
import { SHARED_REASONS, VERDICT_REASONS } from "../dist/spec/index.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const SCHEMA_SOURCE = "src/config/schema.ts";
const start = (name, from) => `<!-- generated:${name} start: written by scripts/generated-docs.mjs from ${from}; do not edit by hand -->`;
const end = (name) => `<!-- generated:${name} end -->`;

/**
 * Every key's TSDoc text by dotted path ("solver.maxTurns"), from the object literals of ConfigSchema
 * (src/config/schema.ts) and of the section schemas it composes by name (src/config/sections/*.ts).
 */
function descriptions() {
  const files = [SCHEMA_SOURCE, ...readdirSync(`${root}/src/config/sections`).filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts")).map((name) => `src/config/sections/${name}`)];
  const sources = files.map((file) => ts.createSourceFile(file, readFileSync(`${root}/${file}`, "utf8"), ts.ScriptTarget.Latest, true));
  // const NAME = <initializer>, in every file: a section schema used by name
  const declared = new Map();
  for (const source of sources) {
    ts.forEachChild(source, function visit(node) {
      if (ts.isVariableDeclaration(node) && node.initializer) declared.set(node.name.getText(source), node.initializer);
      ts.forEachChild(node, visit);
    });
  }
  const found = new Map();
  const isZodObject = (node) =>
    ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === "object" &&
    ts.isIdentifier(node.expression.expression) && node.expression.expression.text === "z" &&
    node.arguments.length > 0 && ts.isObjectLiteralExpression(node.arguments[0]);
  const walkObject = (literal, prefix) => {
    for (const property of literal.properties) {
      if (!ts.isPropertyAssignment(property)) continue;
      const key = property.name.getText().replace(/^["']|["']$/g, "");
      const path = prefix === "" ? key : `${prefix}.${key}`;
      const comment = leadingDoc(property);
      if (comment !== null) found.set(path, comment);
      findObjects(property.initializer, path);
    }
  };
  const findObjects = (node, prefix) => {
    if (isZodObject(node)) return walkObject(node.arguments[0], prefix);
    if (ts.isIdentifier(node) && declared.has(node.text)) return findObjects(declared.get(node.text), prefix);
    ts.forEachChild(node, (child) => findObjects(child, prefix));
  };
  const root_ = declared.get("ConfigSchema");
  if (root_ === undefined) throw new Error(`${SCHEMA_SOURCE} declares no ConfigSchema`);
  findObjects(root_, "");
  return found;
}

/** The text of the last `/** … *\/` comment before a node, without its `@default` tag, on one line. */
function leadingDoc(node) {
  const sourceText = node.getSourceFile().text;
  const ranges = ts.getLeadingCommentRanges(sourceText, node.getFullStart()) ?? [];
  const doc = ranges.map((range) => sourceText.slice(range.pos, range.end)).filter((text) => text.startsWith("/**")).at(-1);
  if (doc === undefined) return null;
  return doc
    .replace(/^\/\*\*|\*\/$/g, "")
    .split("\n")
    .map((line) => line.replace(/^\s*\* ?/, ""))
    .join(" ")
    .replace(/@deprecated\b/g, "Deprecated.")
    .replace(/@default\s+.*$/s, "")
    .replace(/\{@link\s+([^}|\s]+)[^}]*\}/g, "`$1`")
    .replace(/\s+/g, " ")
    .trim();
}

/** A JSON-schema node's type as a reader wants it: "integer, 1 to 200", "one of `a`, `b`", "string or null". */
function typeText(node) {
  if (node === undefined) return "any";
  const alternatives = node.anyOf ?? node.oneOf;
  if (alternatives) return alternatives.map(typeText).join(" or ");
  if (node.enum) return `one of ${node.enum.map((value) => `\`${JSON.stringify(value)}\``).join(", ")}`;
  if (node.const !== undefined) return `\`${JSON.stringify(node.const)}\``;
  if (node.type === "array") return `list of ${typeText(node.items)}`;
  const bounds = [];
  const safe = (bound) => Math.abs(bound) < Number.MAX_SAFE_INTEGER; // zod's int() bounds every integer by these
  if (node.minimum !== undefined && safe(node.minimum)) bounds.push(`≥ ${node.minimum}`);
  if (node.exclusiveMinimum !== undefined) bounds.push(`> ${node.exclusiveMinimum}`);
  if (node.maximum !== undefined && safe(node.maximum)) bounds.push(`≤ ${node.maximum}`);
  if (node.exclusiveMaximum !== undefined) bounds.push(`< ${node.exclusiveMaximum}`);
  if (node.minLength !== undefined && node.minLength > 0) bounds.push(`non-empty`);
  const type = Array.isArray(node.type) ? node.type.join(" or ") : (node.type ?? "any");
  return bounds.length > 0 ? `${type}, ${bounds.join(", ")}` : type;
}

const cell = (text) => text.replace(/\|/g, "\\|");

/** The configuration reference: one table per section, the top-level keys first. */
function renderConfigReference() {
  const docs = descriptions();
  const json = z.toJSONSchema(ConfigSchema, { io: "input", unrepresentable: "any" });
  const defaults = ConfigSchema.parse({});
  const sections = [{ title: "Top level", path: "", rows: [] }];
  const addRows = (schema, value, path, section) => {
    for (const [key, node] of Object.entries(schema.properties ?? {})) {
      const keyPath = path === "" ? key : `${path}.${key}`;
      if (node.type === "object" && node.properties) {
        const nested = { title: `\`${keyPath}\``, path: keyPath, rows: [], about: docs.get(keyPath) ?? null };
        sections.push(nested);
        addRows(node, value?.[key], keyPath, nested);
      } else {
        section.rows.push({ key: keyPath, type: typeText(node), value: value?.[key], about: docs.get(keyPath) ?? "" });
      }
    }
  };
  addRows(json, defaults, "", sections[0]);
  const lines = [];
  for (const section of sections) {
    if (section.rows.length === 0) continue;
    lines.push(`### ${section.title}`, "");
    if (section.about) lines.push(section.about, "");
    lines.push("| key | type | default | what it does |", "| --- | --- | --- | --- |");
    for (const row of section.rows) {
      const shown = row.value === undefined ? "(none)" : `\`${JSON.stringify(row.value)}\``;
      lines.push(`| \`${row.key}\` | ${cell(row.type)} | ${cell(shown)} | ${cell(row.about)} |`);
    }
    lines.push("");
  }
  return lines.join("\n");
}

/** The verdict table: the Designer's parse, the admission gates in pipeline order, then the evolution loop's checks. */
function renderVerdictTable() {
  const before = ["parse", "model"];
  const evolution = Object.keys(VERDICT_REASONS).filter((gate) => !before.includes(gate) && !ADMISSION_GATE_NAMES.includes(gate));
  const order = [...before, ...ADMISSION_GATE_NAMES, ...evolution];
  const missing = Object.keys(VERDICT_REASONS).filter((gate) => !order.includes(gate));
  if (missing.length > 0) throw new Error(`gates without a place in the table: ${missing.join(", ")}`);
  const where = (gate) => (before.includes(gate) ? "before the gates" : ADMISSION_GATE_NAMES.includes(gate) ? "admission gate" : "evolution");
  const lines = ["| gate | where | reason | meaning |", "| --- | --- | --- | --- |"];
  for (const gate of order) {
    for (const [reason, meaning] of Object.entries(VERDICT_REASONS[gate] ?? {})) lines.push(`| \`${gate}\` | ${where(gate)} | \`${reason}\` | ${cell(meaning)} |`);
  }
  lines.push("", "Any gate may also give these:", "", "| reason | meaning |", "| --- | --- |");
  for (const [reason, meaning] of Object.entries(SHARED_REASONS)) lines.push(`| \`${reason}\` | ${cell(meaning)} |`);
  lines.push("");
  return lines.join("\n");
}

/** The generated parts: name, default document, what it is generated from, and its renderer. */
const PARTS = [
  { name: "config", doc: "docs/configuration.md", from: "src/config/schema.ts", render: renderConfigReference },
  { name: "verdicts", doc: "docs/admission.md", from: "src/spec/verdict-reasons.ts", render: renderVerdictTable },
];

/** The document with a part's generated text replaced; throws when the part's markers are missing. */
function withPart(document, part) {
  const open = start(part.name, part.from);
  const close = end(part.name);
  const from = document.indexOf(open);
  const to = document.indexOf(close);
  if (from < 0 || to < from) throw new Error(`${part.doc}: the markers of the generated part are missing: "${open}" … "${close}"`);
  return `${document.slice(0, from)}${open}\n\n${part.render()}${close}${document.slice(to + close.length)}`;
}

const args = process.argv.slice(2);
const paths = new Map(args.flatMap((arg, index) => (args[index - 1] === "--doc" ? [arg.split("=", 2)] : [])));
let stale = 0;
for (const part of PARTS) {
  const doc = paths.get(part.name) ?? `${root}/${part.doc}`;
  const current = readFileSync(doc, "utf8");
  const next = withPart(current, { ...part, doc });
  if (next === current) {
    console.error(`${doc}: the generated part "${part.name}" is current`);
  } else if (args.includes("--check")) {
    console.error(`${doc}: the generated part "${part.name}" is out of date with ${part.from}; run: node scripts/generated-docs.mjs`);
    stale += 1;
  } else {
    writeFileSync(doc, next);
    console.error(`${doc}: the generated part "${part.name}" rewritten`);
  }
}
process.exit(stale > 0 ? 1 : 0);
