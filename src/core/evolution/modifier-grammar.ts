/**
 * GBNF grammar (llama.cpp's grammar format) of a Modifier reply in the `search-replace` form: one
 * to six search/replace blocks, each `<<<<<<< SEARCH env.py` (or `oracle.py`), 1 to 12 lines
 * copied from the file, `=======`, 0 to 60 new lines, `>>>>>>> REPLACE`; then, optionally, one
 * fenced JSON object with the manifest changes. Qwen2.5-Coder-1.5B, asked for blocks without it,
 * answered with the manifest JSON alone (`no_change_found`) or rewrote the whole env.py until the
 * token bound (a syntax error at the cut); the grammar leaves it no room for either, and its short
 * SEARCH sections must be copied, not remembered. Lines inside a block cannot start with `<`, `=`
 * or `>` (the markers), which no line of a Python environment needs. Used when
 * `evolution.modifierGrammar` is on, the form is `search-replace` and the provider enforces
 * grammars (the embedded llama.cpp engine, vLLM, SGLang); others ignore it, and every reply is
 * parsed the same way either way ({@link buildChild}).
 */
export const MODIFIER_GRAMMAR = String.raw`root ::= block ("\n" block){0,5} manifest?
block ::= "<<<<<<< SEARCH " file "\n" line{1,12} "=======\n" line{0,60} ">>>>>>> REPLACE\n"
file ::= "env.py" | "oracle.py"
line ::= [^\n<=>] [^\n]* "\n" | "\n"
manifest ::= "\n` + "```" + String.raw`json\n{" [^` + "`" + String.raw`]* "}\n` + "```" + String.raw`\n"
`;
