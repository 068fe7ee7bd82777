import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Doc examples that rot are defects (issue 34): every envforge command line quoted in the README and the
// docs (fenced blocks and inline code) must name a command the CLI has, with flags that command takes.
// The CLI's own --help output is the reference. docs/benchmarks.md and docs/results.md are left out: their
// commands are records of what ran at a commit, some with flags that have changed since.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "envforge.js");
const PAGES = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((name) => name.endsWith(".md") && name !== "benchmarks.md" && name !== "results.md").map((name) => join("docs", name))];

interface HelpPage {
  readonly options: ReadonlySet<string>;
  readonly commands: ReadonlySet<string>;
}

const helpCache = new Map<string, HelpPage>();

/** The flags and subcommands `envforge PATH --help` lists. */
function help(path: readonly string[]): HelpPage {
  const key = path.join(" ");
  const cached = helpCache.get(key);
  if (cached !== undefined) return cached;
  const text = execFileSync(process.execPath, [BIN, ...path, "--help"], { encoding: "utf8" });
  const section = (title: string) => {
    const start = text.indexOf(`\n${title}:\n`);
    if (start < 0) return [];
    const rest = text.slice(start + title.length + 3);
    const end = rest.search(/\n\S/);
    return (end < 0 ? rest : rest.slice(0, end)).split("\n");
  };
  const options = new Set(section("Options").flatMap((line) => line.match(/--[a-z][a-z0-9-]*/g) ?? []));
  const commands = new Set(section("Commands").map((line) => line.trim().split(/[\s|]/)[0] ?? "").filter((name) => /^[a-z]/.test(name) && name !== "help"));
  const page = { options, commands };
  helpCache.set(key, page);
  return page;
}

/** Every envforge command line in a Markdown text's code: fenced blocks and inline spans. */
function commandLines(markdown: string): string[] {
  const code = [...markdown.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
  const withoutFences = markdown.replace(/```[\s\S]*?```/g, "");
  code.push(...[...withoutFences.matchAll(/`([^`\n]+)`/g)].map((match) => match[1] ?? ""));
  const lines: string[] = [];
  for (const block of code) {
    for (const raw of block.split("\n")) {
      // comments are prose ("# ---- envforge scaffold: …"), not commands
      const line = raw.replace(/(^|\s)#.*$/, "");
      // a command ends at ; & ) or a shell pipe (" | "); "up|down|status" names several subcommands
      for (const match of line.matchAll(/(?:^|[\s;&|(])(?:\.\/bin\/envforge\.js|envforge)\s+([a-z][^;&)]*)/g)) lines.push((match[1] ?? "").split(/\s\|(?:\s|$)/)[0]!.trim());
    }
  }
  return lines;
}

/** The problem with one quoted command line, or null when the CLI takes it. */
function problemOf(line: string): string | null {
  const words = line.split(/\s+/);
  const top = help([]);
  const first = words[0] ?? "";
  if (!top.commands.has(first)) return `unknown command "${first}"`;
  let path = [first];
  const second = words[1] ?? "";
  const sub = help(path);
  if (sub.commands.size > 0) {
    // `trainer up|down|status` names several subcommands at once
    const named = second.split("|").filter((name) => sub.commands.has(name));
    if (named.length === 0) return `"${first}" has no subcommand "${second}" (it has ${[...sub.commands].join(", ")})`;
    path = [first, named[0] as string];
    for (const name of named.slice(1)) help([first, name]);
  }
  const flags = line.match(/(?<![\w-])--[a-z][a-z0-9-]*/g) ?? [];
  const taken = help(path).options;
  const unknown = flags.filter((flag) => !taken.has(flag));
  return unknown.length === 0 ? null : `"envforge ${path.join(" ")}" takes no ${unknown.join(", ")}`;
}

describe("commands quoted in the README and the docs", () => {
  it("name commands the CLI has, with flags they take", () => {
    const problems: string[] = [];
    let checked = 0;
    for (const page of PAGES) {
      for (const line of commandLines(readFileSync(join(ROOT, page), "utf8"))) {
        checked += 1;
        const problem = problemOf(line);
        if (problem !== null) problems.push(`${page}: envforge ${line.slice(0, 120)}: ${problem}`);
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(problems).toEqual([]);
  }, 300_000);

  it("catches a flag the command does not take and a command that does not exist", () => {
    expect(problemOf("run --rounds 2 --bogus-flag")).toBe('"envforge run" takes no --bogus-flag');
    expect(problemOf("frobnicate --json")).toBe('unknown command "frobnicate"');
    expect(problemOf("bench nothing")).toMatch(/^"bench" has no subcommand "nothing"/);
    expect(problemOf("export tensorboard --out runs/demo --to ~/tb")).toBeNull();
  }, 120_000);
});

// A command's exit codes, as its --help states them, are on its topic page too (issue 34: serve's exit code 2 was undocumented).
const EXIT_CODE_PAGES: Readonly<Record<string, string>> = { serve: "docs/serving.md" };

describe("exit codes in the docs", () => {
  it.each(Object.entries(EXIT_CODE_PAGES))("%s: its topic page states the exit codes its --help gives", (command, page) => {
    const text = execFileSync(process.execPath, [BIN, command, "--help"], { encoding: "utf8" }).replace(/\s+/g, " ");
    const codes = /Exit codes: [^.]*\./.exec(text)?.[0];
    expect(codes).toBeDefined();
    expect(readFileSync(join(ROOT, page), "utf8").replace(/\s+/g, " ")).toContain(codes);
  }, 60_000);
});

describe("exit codes in --help", () => {
  it("every command's --help lists its exit codes, as the README says (a group's points to its subcommands)", () => {
    const missing: string[] = [];
    const visit = (path: string[]): void => {
      const text = execFileSync(process.execPath, [BIN, ...path, "--help"], { encoding: "utf8" });
      if (path.length > 0 && !/Exit codes:/.test(text)) missing.push(path.join(" "));
      // subcommands are the lines of the Commands section that start at its indent (the others wrap a description)
      const section = text.split("\nCommands:\n")[1] ?? "";
      const names = [...section.split(/\n\S/)[0]!.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((match) => match[1] as string).filter((name) => name !== "help");
      for (const name of names) visit([...path, name]);
    };
    visit([]);
    expect(missing).toEqual([]);
  }, 300_000);
});
