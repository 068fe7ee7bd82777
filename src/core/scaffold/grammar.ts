/**
 * GBNF grammar (llama.cpp's grammar format) of a scaffolded design reply: one fenced python
 * block that starts with at most eight import lines (Qwen2.5-Coder-1.5B looped on imports there on
 * repair turns until the token bound) and the manifest constants `NAME` (a lowercase slug),
 * `TITLE`, `DESCRIPTION`, `HINT` (one-line strings) and `SKILLS` (one to five lowercase strings),
 * then defines `generate(rng)` (or `generate(rng, level)` in a levelled family, whose `LEVELS` and
 * `LEVEL_DESCRIPTION` are constants like any other), `render(instance)` and `solve(instance)` at module level, in that
 * order, with any helper functions, constants, imports, comments and blank lines between them;
 * the reply ends with the closing fence. Function bodies are free text indented by four spaces,
 * so the grammar fixes the fences, the manifest and the required definitions (what small models
 * break: a missing function, a renamed one, prose after the block) and leaves the code to the model.
 * Manifest strings hold no control characters and stay within the parser's lengths (title 200,
 * description and hint 600 characters); function bodies hold no backticks (a line starting with a
 * fence would end the block). Used when `designer.grammar` is on and the provider enforces
 * grammars (the embedded llama.cpp engine). Every reply it allows has the structure the parser
 * looks for; its values can still be rejected (e.g. `MAX_TURNS = 500`, an invalid manifest).
 */
export const SCAFFOLD_GRAMMAR = String.raw`root ::= "` + "```" + String.raw`python\n" header body "` + "```" + String.raw`"
header ::= importline{0,8} "NAME = \"" slug "\"\n" "TITLE = \"" char{1,200} "\"\n" "DESCRIPTION = \"" char{1,600} "\"\n" "HINT = \"" char{1,600} "\"\n" "SKILLS = [" skill (", " skill){0,4} "]\n"
slug ::= [a-z] [a-z0-9-]{1,39}
char ::= [^"\\\x00-\x1f\x7f\u2028\u2029]
skill ::= "\"" [a-z] [a-z0-9 _-]{0,29} "\""
body ::= part* "def generate(rng" ", level"? "):\n" block part* "def render(instance):\n" block part* "def solve(instance):\n" block part*
part ::= "\n" | comment | importline | constant | function
comment ::= "#" [^\n]* "\n"
importline ::= ("import " | "from ") [a-zA-Z_] [^\n]* "\n"
constant ::= [A-Z] [A-Z0-9_]* " = " [^\n]+ "\n"
function ::= "def " [a-z_] [a-zA-Z0-9_]* "(" [^\n]* "\n" block
block ::= line (line | "\n")*
line ::= "    " [^\n` + "`" + String.raw`]* "\n"
`;
