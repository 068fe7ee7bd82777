/**
 * GBNF grammars (llama.cpp's grammar format) of the evolution roles' replies, used when
 * `evolution.grammar` is on and the provider enforces grammars (the embedded llama.cpp engine,
 * vLLM, SGLang); other providers ignore them, and every reply is parsed the same way either way.
 * @module
 */

/**
 * GBNF grammar (llama.cpp's grammar format) of a Modifier reply in the `search-replace` form: one
 * to six search/replace blocks, each `<<<<<<< SEARCH env.py` (or `oracle.py`), 1 to 12 lines
 * copied from the file, `=======`, 0 to 60 new lines, `>>>>>>> REPLACE`; then, optionally, one
 * fenced JSON object with the manifest changes. Qwen2.5-Coder-1.5B, asked for blocks without it,
 * answered with the manifest JSON alone (`no_change_found`) or rewrote the whole env.py until the
 * token bound (a syntax error at the cut); the grammar leaves it no room for either, and its short
 * SEARCH sections must be copied, not remembered. Lines inside a block cannot start with `<`, `=`
 * or `>` (the markers), which no line of a Python environment needs. Used when
 * `evolution.grammar` is on, the form is `search-replace` and the provider enforces
 * grammars (the embedded llama.cpp engine, vLLM, SGLang); others ignore it, and every reply is
 * parsed the same way either way ({@link buildChild}).
 */
export const MODIFIER_GRAMMAR = String.raw`root ::= block ("\n" block){0,5} manifest?
block ::= "<<<<<<< SEARCH " file "\n" line{1,12} "=======\n" line{0,60} ">>>>>>> REPLACE\n"
file ::= "env.py" | "oracle.py"
line ::= [^\n<=>] [^\n]* "\n" | "\n"
manifest ::= "\n` + "```" + String.raw`json\n{" [^` + "`" + String.raw`]* "}\n` + "```" + String.raw`\n"
`;

/**
 * GBNF grammar of a Proposer plan: exactly the JSON object {@link parsePlan} reads, `{"summary":
 * "…", "steps": [{"scenario": "…", "skill": "…"}, …]}` with a summary of 1–600 characters, 1–16
 * steps and labels of 1–80 characters (`MAX_LABEL_CHARS`) without `|`, strings without control
 * characters or escapes. Qwen2.5-Coder-1.5B's plans without it: 1 of 20 rounds `plan_unparseable`, and
 * steps whose scenario held "… | skill: …" copied from the prompt's listing
 * (docs/benchmarks.md, "Evolution with Qwen2.5-Coder-1.5B").
 */
export const PLAN_GRAMMAR = String.raw`root ::= "{\"summary\": \"" char{1,600} "\", \"steps\": [" step (", " step){0,15} "]}"
step ::= "{\"scenario\": \"" label "\", \"skill\": \"" label "\"}"
label ::= [^"\\|\x00-\x1f\x7f\u2028\u2029]{1,80}
char ::= [^"\\\x00-\x1f\x7f\u2028\u2029]
`;
