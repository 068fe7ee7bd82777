import { describe, expect, it } from "vitest";
import type { Provenance, RejectVerdict } from "../../spec/index.js";
import { seededRandom } from "../rollout/index.js";
import { SECRET_42 } from "../../testing/scripted-model.js";
import { extractCodeBlocks, parseDesign, toKebabCase, type ParsedDesign } from "./parse-design.js";

const provenance: Provenance = {
  origin: "designer",
  parentId: "env-0123456789abcdef",
  generation: 2,
  designerModel: "scripted-fake",
  promptHash: "prompt-sha",
  corpusDocumentIds: ["doc-a", "doc-b"],
  createdAt: "2026-11-29T12:00:00.000Z",
};

const environmentSource = SECRET_42.env;
const oracleSource = SECRET_42.oracle;

function fence(language: string, body: string): string {
  return `\`\`\`${language}\n${body}\n\`\`\``;
}

/** A completion in the layout the Designer prompt asks for, with manifest overrides. */
function completion(manifest: Record<string, unknown> = {}, environment: string = environmentSource, oracle: string = oracleSource): string {
  return [
    "Here is my environment.",
    fence("json", JSON.stringify({ ...SECRET_42.manifest, ...manifest })),
    fence("python", `# env.py\n${environment}`),
    fence("python", `# oracle.py\n${oracle}`),
  ].join("\n");
}

/** `length` characters drawn from `alphabet` by a seeded generator. */
function randomText(length: number, alphabet: string, seed: number): string {
  const random = seededRandom(seed);
  return Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
}

function rejected(result: ParsedDesign): RejectVerdict {
  if (result.ok) throw new Error(`expected a reject verdict, got package ${result.package.manifest.name}`);
  return result.verdict;
}

function accepted(result: ParsedDesign) {
  if (!result.ok) throw new Error(`expected a package, got ${result.verdict.reason}: ${result.verdict.message}`);
  return result.package;
}

describe("parseDesign: bad input gives a parse verdict, never an exception", () => {
  it("rejects an empty completion as unparseable", () => {
    expect(parseDesign("", provenance)).toEqual({
      ok: false,
      verdict: { status: "reject", gate: "parse", reason: "unparseable", message: "the completion holds no fenced code block (```python ... ```)", evidence: { excerpt: "" } },
    });
  });

  it("rejects prose without code blocks as unparseable and keeps the first 300 characters as evidence", () => {
    const prose = "I would rather write a poem about environments. ".repeat(20);
    const verdict = rejected(parseDesign(prose, provenance));
    expect(verdict).toMatchObject({ status: "reject", gate: "parse", reason: "unparseable" });
    expect(verdict.evidence).toEqual({ excerpt: prose.slice(0, 300) });
  });

  it("treats fences with only whitespace inside as no code block", () => {
    expect(rejected(parseDesign("```python\n   \n\n```\n```\n```", provenance)).reason).toBe("unparseable");
  });

  it("rejects 200 KB of garbage without fences as unparseable with a bounded excerpt", () => {
    const garbage = randomText(200 * 1024, "abcdefghijklmnopqrstuvwxyz{}[]\":,0123456789 \n\t#'éü€", 2026);
    const verdict = rejected(parseDesign(garbage, provenance));
    expect(verdict).toMatchObject({ gate: "parse", reason: "unparseable" });
    expect(verdict.evidence).toEqual({ excerpt: garbage.slice(0, 300) });
  });

  it("rejects 200 KB of garbage full of backticks without blowing up", () => {
    const garbage = randomText(200 * 1024, "abc{}[]\":,01 \n#`", 2026);
    expect(rejected(parseDesign(garbage, provenance)).gate).toBe("parse");
    // fences count only at the start of a line
    const lines = garbage.split("\n").filter((line) => line.trimStart().startsWith("```")).length;
    expect(extractCodeBlocks(garbage).length).toBeLessThanOrEqual(Math.ceil(lines / 2));
  });

  it("rejects 200 000 backticks, and an unterminated fence of 200 000 characters, as unparseable", () => {
    expect(rejected(parseDesign("`".repeat(200_000), provenance))).toMatchObject({ gate: "parse", reason: "unparseable" });
    expect(rejected(parseDesign(`\`\`\`${"a".repeat(200_000)}`, provenance)).gate).toBe("parse");
  });

  it("rejects 200 KB of garbage inside one fence as a missing environment", () => {
    const garbage = randomText(200 * 1024, "abcdefghijklmnopqrstuvwxyz {}()[]:=.\n", 7);
    expect(rejected(parseDesign(fence("python", garbage), provenance))).toMatchObject({ gate: "parse", reason: "missing_environment" });
  });

  it("rejects a lone unterminated fence whose class never reaches step() as a missing environment", () => {
    const text = "```python\nclass Half:\n    def reset(self, seed):\n        return 'start'\n";
    expect(rejected(parseDesign(text, provenance))).toMatchObject({ gate: "parse", reason: "missing_environment" });
  });

  it("rejects a design whose only JSON block is an array", () => {
    const text = [fence("json", JSON.stringify([SECRET_42.manifest])), fence("python", environmentSource), fence("python", oracleSource)].join("\n");
    const verdict = rejected(parseDesign(text, provenance));
    expect(verdict).toMatchObject({ gate: "parse", reason: "invalid_manifest", message: "no JSON block with the environment's fields" });
  });

  it("rejects a design whose JSON block does not parse", () => {
    const text = [fence("json", '{"title": "Broken", "hint": "h",}'), fence("python", environmentSource), fence("python", oracleSource)].join("\n");
    expect(rejected(parseDesign(text, provenance))).toMatchObject({ gate: "parse", reason: "invalid_manifest", message: "no JSON block with the environment's fields" });
  });

  it("rejects a JSON null, string or number as the manifest", () => {
    for (const value of ["null", '"a string"', "42"]) {
      const text = [fence("json", value), fence("python", environmentSource), fence("python", oracleSource)].join("\n");
      expect(rejected(parseDesign(text, provenance)).reason).toBe("invalid_manifest");
    }
  });

  it.each(["title", "hint", "description"])("rejects a manifest without %s and names the field", (field) => {
    const manifest: Record<string, unknown> = { ...SECRET_42.manifest };
    delete manifest[field];
    const text = [fence("json", JSON.stringify(manifest)), fence("python", environmentSource), fence("python", oracleSource)].join("\n");
    const verdict = rejected(parseDesign(text, provenance));
    expect(verdict).toMatchObject({ gate: "parse", reason: "invalid_manifest" });
    expect(verdict.message).toMatch(new RegExp(`^manifest fields invalid: .*\\b${field}:`));
  });

  it("rejects an empty hint or title", () => {
    expect(rejected(parseDesign(completion({ hint: "" }), provenance)).message).toContain("hint:");
    expect(rejected(parseDesign(completion({ title: "" }), provenance)).message).toContain("title:");
  });

  it.each([["abc"], [0], [999], [201], [-3], [2.5], [null]])("rejects maxTurns %j", (maxTurns) => {
    const verdict = rejected(parseDesign(completion({ maxTurns }), provenance));
    expect(verdict).toMatchObject({ gate: "parse", reason: "invalid_manifest" });
    expect(verdict.message).toContain("maxTurns:");
  });

  it("rejects a non-string name or a difficulty knob that is an object", () => {
    expect(rejected(parseDesign(completion({ name: 12 }), provenance)).message).toContain("name:");
    expect(rejected(parseDesign(completion({ difficulty: { size: { rows: 3 } } }), provenance)).message).toContain("difficulty");
  });

  it("rejects an environment block without step() as a missing environment", () => {
    const withoutStep = "class Lazy:\n    def reset(self, seed):\n        return 'start'\n";
    const verdict = rejected(parseDesign(completion({}, withoutStep), provenance));
    expect(verdict).toEqual({ status: "reject", gate: "parse", reason: "missing_environment", message: "no code block defines a class with reset() and step(), or generate(), render() and solve()" });
  });

  it("rejects reset() and step() defined as functions outside a class as a missing environment", () => {
    const functions = "def reset(seed):\n    return 'start'\n\ndef step(action):\n    return ('x', 0.0, True, False, {})\n";
    expect(rejected(parseDesign(completion({}, functions), provenance)).reason).toBe("missing_environment");
  });

  it("checks the environment before the manifest: no class and no JSON is a missing environment", () => {
    expect(rejected(parseDesign(fence("python", "print('hello')"), provenance)).reason).toBe("missing_environment");
  });

  it("rejects a design without act() as a missing oracle", () => {
    const verdict = rejected(parseDesign(completion({}, environmentSource, "def policy(env, observation):\n    return '42'\n"), provenance));
    expect(verdict).toEqual({ status: "reject", gate: "parse", reason: "missing_oracle", message: "no code block defines act(env, observation)" });
  });

  it("does not take an act() method indented inside a class as the oracle", () => {
    const indented = "class Oracle:\n    def act(self, env, observation):\n        return '42'\n";
    expect(rejected(parseDesign(completion({}, environmentSource, indented), provenance)).reason).toBe("missing_oracle");
  });

  it("rejects a rewardRange that does not contain passThreshold", () => {
    const outside = rejected(parseDesign(completion({ rewardRange: [0, 0.5] }), provenance));
    expect(outside).toMatchObject({ gate: "parse", reason: "invalid_manifest" });
    expect(outside.message).toContain("passThreshold: passThreshold must lie in (rewardRange[0], rewardRange[1]]");
    // the lower bound is excluded: a return of 0 must not count as a win
    expect(rejected(parseDesign(completion({ rewardRange: [0, 1], passThreshold: 0 }), provenance)).message).toContain("passThreshold");
    expect(rejected(parseDesign(completion({ rewardRange: [0, 1], passThreshold: 1.5 }), provenance)).reason).toBe("invalid_manifest");
  });

  it("rejects a reversed or malformed rewardRange", () => {
    expect(rejected(parseDesign(completion({ rewardRange: [1, 0], passThreshold: 0.5 }), provenance)).message).toContain("rewardRange");
    expect(rejected(parseDesign(completion({ rewardRange: [0, 1, 2] }), provenance)).message).toContain("rewardRange");
    expect(rejected(parseDesign(completion({ rewardRange: "0-1" }), provenance)).message).toContain("rewardRange");
  });

  it("never throws on completions stitched together from random fragments", () => {
    const fragments = ["```", "```json\n", "```python\n", "\n", "{", "}", "[", "]", '"title": "t"', "class A:", "    def reset(self, seed):", "    def step(self, a):", "def act(env, o):", "# env.py", "null", ","];
    const random = seededRandom(99);
    for (let trial = 0; trial < 500; trial += 1) {
      const text = Array.from({ length: 1 + Math.floor(random() * 30) }, () => fragments[Math.floor(random() * fragments.length)]).join("");
      const result = parseDesign(text, provenance);
      if (!result.ok) {
        expect(result.verdict.gate).toBe("parse");
        expect(["unparseable", "missing_environment", "missing_oracle", "invalid_manifest"]).toContain(result.verdict.reason);
      }
    }
  });
});

describe("parseDesign: valid designs", () => {
  it("builds the package of a well-formed completion and passes provenance through", () => {
    const pkg = accepted(parseDesign(completion(), provenance));
    expect(pkg.manifest).toEqual({
      schemaVersion: 1,
      name: "secret-number",
      title: "Say the secret number",
      description: "Reply with the secret number; reward 1 when it is right.",
      interaction: "single-turn",
      maxTurns: 1,
      rewardRange: [0, 1],
      passThreshold: 1,
      hint: "The secret is six times seven.",
      skills: ["arithmetic"],
      scenario: "quiz",
      difficulty: {},
      provenance,
    });
    expect(pkg.envSource).toBe(`${environmentSource}\n`);
    expect(pkg.oracleSource).toBe(oracleSource);
  });

  it("strips the `# env.py` and `# oracle.py` header comments but no other first-line comment", () => {
    const pkg = accepted(parseDesign(completion(), provenance));
    expect(pkg.envSource.startsWith("import random\n")).toBe(true);
    expect(pkg.oracleSource.startsWith("def act(")).toBe(true);
    const other = accepted(parseDesign(completion({}, `# the secret environment\n${environmentSource}`), provenance));
    expect(other.envSource.startsWith("# the secret environment\nimport random\n")).toBe(true);
  });

  it("derives the interaction from maxTurns and coerces numeric strings", () => {
    expect(accepted(parseDesign(completion({ maxTurns: 1 }), provenance)).manifest).toMatchObject({ maxTurns: 1, interaction: "single-turn" });
    expect(accepted(parseDesign(completion({ maxTurns: 2 }), provenance)).manifest).toMatchObject({ maxTurns: 2, interaction: "multi-turn" });
    expect(accepted(parseDesign(completion({ maxTurns: 200 }), provenance)).manifest).toMatchObject({ maxTurns: 200, interaction: "multi-turn" });
    expect(accepted(parseDesign(completion({ maxTurns: "5" }), provenance)).manifest).toMatchObject({ maxTurns: 5, interaction: "multi-turn" });
    const { maxTurns: _maxTurns, ...withoutMaxTurns } = SECRET_42.manifest;
    const text = [fence("json", JSON.stringify(withoutMaxTurns)), fence("python", environmentSource), fence("python", oracleSource)].join("\n");
    expect(accepted(parseDesign(text, provenance)).manifest).toMatchObject({ maxTurns: 1, interaction: "single-turn" });
  });

  it("accepts skills given as one string, defaults an empty list and keeps at most eight", () => {
    expect(accepted(parseDesign(completion({ skills: "graph search" }), provenance)).manifest.skills).toEqual(["graph search"]);
    expect(accepted(parseDesign(completion({ skills: [] }), provenance)).manifest.skills).toEqual(["general"]);
    const many = Array.from({ length: 12 }, (_, index) => `skill ${index}`);
    expect(accepted(parseDesign(completion({ skills: many }), provenance)).manifest.skills).toEqual(many.slice(0, 8));
  });

  it("rejects an empty skill tag", () => {
    expect(rejected(parseDesign(completion({ skills: "" }), provenance)).message).toContain("skills");
  });

  it("turns names with spaces, uppercase and unicode into kebab-case", () => {
    expect(accepted(parseDesign(completion({ name: "Shortest Path Finder" }), provenance)).manifest.name).toBe("shortest-path-finder");
    expect(accepted(parseDesign(completion({ name: "  MAZE_runner v2!! " }), provenance)).manifest.name).toBe("maze-runner-v2");
    expect(accepted(parseDesign(completion({ name: "Café Rätsel 3" }), provenance)).manifest.name).toBe("caf-r-tsel-3");
    expect(accepted(parseDesign(completion({ name: "迷路" }), provenance)).manifest.name).toBe("design");
  });

  it("names the environment after the title when the name is missing", () => {
    const { name: _name, ...withoutName } = SECRET_42.manifest;
    const text = [fence("json", JSON.stringify(withoutName)), fence("python", environmentSource), fence("python", oracleSource)].join("\n");
    expect(accepted(parseDesign(text, provenance)).manifest.name).toBe("say-the-secret-number");
  });

  it("accepts the oracle defined in the same block as the environment class", () => {
    const together = `# env.py\n${environmentSource}\n\n${oracleSource}`;
    const text = [fence("json", JSON.stringify(SECRET_42.manifest)), fence("python", together)].join("\n");
    const pkg = accepted(parseDesign(text, provenance));
    expect(pkg.envSource).toBe(`${environmentSource}\n\n${oracleSource}`);
    expect(pkg.oracleSource).toBe(pkg.envSource);
  });

  it("prefers a separate oracle block over an act() inside the environment block", () => {
    const environmentWithAct = `${environmentSource}\n\ndef act(env, observation):\n    return 'from env block'\n`;
    const pkg = accepted(parseDesign(completion({}, environmentWithAct), provenance));
    expect(pkg.oracleSource).toBe(oracleSource);
  });

  it("finds the blocks in any order and builds the same package", () => {
    const reordered = [
      "Oracle first this time.",
      fence("python", `# oracle.py\n${oracleSource}`),
      "Then the environment.",
      fence("python", `# env.py\n${environmentSource}`),
      "And the manifest last.",
      fence("json", JSON.stringify(SECRET_42.manifest)),
    ].join("\n");
    expect(accepted(parseDesign(reordered, provenance))).toEqual(accepted(parseDesign(completion(), provenance)));
  });

  it("takes the first JSON block that is an object, skipping arrays and broken JSON", () => {
    const text = [
      fence("json", "[1, 2, 3]"),
      fence("json", "{not json"),
      fence("json", JSON.stringify({ ...SECRET_42.manifest, name: "first-object" })),
      fence("json", JSON.stringify({ ...SECRET_42.manifest, name: "second-object" })),
      fence("python", environmentSource),
      fence("python", oracleSource),
    ].join("\n");
    expect(accepted(parseDesign(text, provenance)).manifest.name).toBe("first-object");
  });

  it("accepts an unterminated last fence, which runs to the end of the completion", () => {
    const text = [fence("json", JSON.stringify(SECRET_42.manifest)), fence("python", environmentSource), `\`\`\`python\n${oracleSource}`].join("\n");
    expect(accepted(parseDesign(text, provenance)).oracleSource).toBe(oracleSource);
  });

  it("accepts a rewardRange that contains passThreshold and ignores unknown manifest fields", () => {
    const manifest = accepted(parseDesign(completion({ rewardRange: [-1, 10], passThreshold: 10, author: "me", difficulty: { size: 5, mode: "hard", walls: true } }), provenance)).manifest;
    expect(manifest).toMatchObject({ rewardRange: [-1, 10], passThreshold: 10, difficulty: { size: 5, mode: "hard", walls: true } });
    expect(manifest).not.toHaveProperty("author");
  });

  it("reads completions with Windows line endings", () => {
    const pkg = accepted(parseDesign(completion().replace(/\n/g, "\r\n"), provenance));
    expect(pkg.manifest.name).toBe("secret-number");
    expect(pkg.envSource.startsWith("import random")).toBe(true);
  });
});

describe("extractCodeBlocks", () => {
  it("returns every fenced block with its lowercased language, ignoring the rest of the info line", () => {
    const text = "prose\n```Python title=env.py\nx = 1\n```\nmore prose\n```\nplain\n```\n```JSON\n{}\n```";
    expect(extractCodeBlocks(text)).toEqual([
      { language: "python", body: "x = 1\n" },
      { language: "", body: "plain\n" },
      { language: "json", body: "{}\n" },
    ]);
  });

  it("drops empty blocks and ends every body with exactly one newline", () => {
    expect(extractCodeBlocks("```\n\n```\n```py\nprint(1)   \n\n\n```")).toEqual([{ language: "py", body: "print(1)\n" }]);
  });

  it("keeps leading indentation of the body", () => {
    expect(extractCodeBlocks("```python\n    indented\n```")).toEqual([{ language: "python", body: "    indented\n" }]);
  });

  it("runs an unterminated last block to the end of the text", () => {
    expect(extractCodeBlocks("```json\n{}\n```\n```python\ndef act(env, observation):\n    return '1'")).toEqual([
      { language: "json", body: "{}\n" },
      { language: "python", body: "def act(env, observation):\n    return '1'\n" },
    ]);
  });

  it("finds nothing in text without fences", () => {
    expect(extractCodeBlocks("")).toEqual([]);
    expect(extractCodeBlocks("no code, only `inline` code")).toEqual([]);
  });
});

describe("toKebabCase", () => {
  it("lowercases and joins runs of other characters with one hyphen", () => {
    expect(toKebabCase("Shortest Path")).toBe("shortest-path");
    expect(toKebabCase("--Hello__World--")).toBe("hello-world");
    expect(toKebabCase("Tower of Hanoi (3 discs)")).toBe("tower-of-hanoi-3-discs");
  });

  it("falls back to `design` when no ASCII letter or digit is left", () => {
    expect(toKebabCase("")).toBe("design");
    expect(toKebabCase("!!! ???")).toBe("design");
    expect(toKebabCase("迷路")).toBe("design");
  });

  it("cuts to 64 characters without leaving a trailing hyphen", () => {
    expect(toKebabCase("a".repeat(100))).toBe("a".repeat(64));
    expect(toKebabCase(`${"a".repeat(63)} bcd`)).toBe("a".repeat(63));
  });

  it("always returns a name the manifest schema accepts", () => {
    const random = seededRandom(5);
    for (let trial = 0; trial < 200; trial += 1) {
      const text = Array.from({ length: Math.floor(random() * 120) }, () => String.fromCharCode(Math.floor(random() * 0x3000))).join("");
      expect(toKebabCase(text)).toMatch(/^[a-z0-9][a-z0-9-]{0,63}$/);
    }
  });
});

describe("parseDesign: the scaffolded format", () => {
  // hand-written scaffolded sources for the parser's cases (not model output; recorded completions are tested below)
  const scaffold = [
    'NAME = "count-vowels"',
    'TITLE = "Count the vowels"',
    'DESCRIPTION = "The agent counts the vowels in a word."',
    'HINT = "Go letter by letter and count a, e, i, o and u."',
    'SKILLS = ["counting", "strings"]',
    "",
    "def generate(rng):",
    '    return "".join(rng.choice("abcdefghij") for _ in range(12))',
    "",
    "def render(instance):",
    '    return f"How many vowels are in {instance}? Reply with one integer."',
    "",
    "def solve(instance):",
    '    return sum(letter in "aeiou" for letter in instance)',
  ].join("\n");

  it("reads the manifest from module constants and appends the template and oracle", () => {
    const pkg = accepted(parseDesign(`Here it is:\n${fence("python", scaffold)}`, provenance));
    expect(pkg.manifest).toMatchObject({ name: "count-vowels", title: "Count the vowels", hint: "Go letter by letter and count a, e, i, o and u.", skills: ["counting", "strings"], maxTurns: 1, interaction: "single-turn" });
    expect(pkg.envSource.startsWith(scaffold)).toBe(true);
    expect(pkg.envSource).toContain("class ScaffoldEnv:");
    expect(pkg.oracleSource).toContain("def act(env, observation):");
  });

  it("reads a scaffold whose function nests a class with reset and step as a scaffold, not as the class format", () => {
    const nested = scaffold.replace("def generate(rng):\n", "def generate(rng):\n    class Walker:\n        def reset(self, seed): pass\n        def step(self, action): pass\n");
    const pkg = accepted(parseDesign(fence("python", nested), provenance));
    expect(pkg.envSource).toContain("class ScaffoldEnv:");
  });

  it("takes a scaffold written without fences, and MAX_TURNS makes it multi-turn", () => {
    const pkg = accepted(parseDesign(`MAX_TURNS = 4\n${scaffold}`, provenance));
    expect(pkg.manifest).toMatchObject({ maxTurns: 4, interaction: "multi-turn" });
  });

  it("prefers a JSON manifest block when the completion has one", () => {
    const pkg = accepted(parseDesign(`${fence("json", JSON.stringify({ title: "From JSON", description: "d", hint: "h" }))}\n${fence("python", scaffold)}`, provenance));
    expect(pkg.manifest.title).toBe("From JSON");
  });

  it("names the missing functions, and a missing HINT, in the verdict (sent back on a repair turn)", () => {
    expect(rejected(parseDesign(fence("python", scaffold.replace(/def solve[\s\S]*$/, "")), provenance))).toMatchObject({
      reason: "missing_environment",
      message: "the python block does not define solve() at module level",
    });
    expect(rejected(parseDesign(fence("python", scaffold.replace(/^HINT = .*$/m, "")), provenance))).toMatchObject({ reason: "invalid_manifest", message: expect.stringContaining("hint") });
  });

  it("gives typed verdicts for nothing, 10 MB, and an answer in another language", () => {
    expect(rejected(parseDesign("", provenance)).reason).toBe("unparseable");
    const huge = fence("python", `${scaffold}\n${"# padding line\n".repeat(700_000)}`);
    expect(huge.length).toBeGreaterThan(10_000_000);
    const started = performance.now();
    const parsed = parseDesign(huge, provenance);
    expect(performance.now() - started).toBeLessThan(10_000);
    // the parser accepts it; the static gate's size limit rejects it
    expect(parsed.ok).toBe(true);
    expect(rejected(parseDesign("这是一个关于二分查找的任务。我无法写代码。", provenance)).reason).toBe("unparseable");
  });
});

describe("parseDesign: levelled families", () => {
  const levelled = [
    'NAME = "count-up"',
    'TITLE = "Count the items"',
    'DESCRIPTION = "The agent counts the items in a list."',
    'HINT = "Count one item at a time."',
    'SKILLS = ["counting"]',
    "LEVELS = 5",
    'LEVEL_DESCRIPTION = "level L lists L + 2 items"',
    "",
    "def generate(rng, level):",
    "    return [rng.randint(1, 9) for _ in range(level + 2)]",
    "",
    "def render(instance):",
    '    return "How many numbers: " + " ".join(map(str, instance)) + "? Reply with one integer."',
    "",
    "def solve(instance):",
    "    return len(instance)",
  ].join("\n");

  it("reads LEVELS and LEVEL_DESCRIPTION of a scaffolded design into the manifest's levels", () => {
    const parsed = parseDesign(fence("python", levelled), provenance);
    expect(parsed.ok && parsed.package.manifest.levels).toEqual({ count: 5, description: "level L lists L + 2 items" });
  });

  it("reads a JSON levels block of a class design, and leaves one-level designs without levels", () => {
    const parsed = parseDesign(completion({ levels: { count: 3, description: "more digits" } }), provenance);
    expect(parsed.ok && parsed.package.manifest.levels).toEqual({ count: 3, description: "more digits" });
    const plain = parseDesign(fence("python", levelled.replace("LEVELS = 5", "LEVELS = 1")), provenance);
    expect(plain.ok && plain.package.manifest.levels).toBeUndefined();
  });

  it("rejects a level count beyond the schema's bound as an invalid manifest", () => {
    const parsed = parseDesign(fence("python", levelled.replace("LEVELS = 5", "LEVELS = 500")), provenance);
    expect(parsed).toMatchObject({ ok: false, verdict: { reason: "invalid_manifest" } });
  });
});
