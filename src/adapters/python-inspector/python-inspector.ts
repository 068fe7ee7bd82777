import { execFile } from "node:child_process";
import { SandboxUnavailableError } from "../../spec/index.js";
import type { SourceInspector, SourceOutline } from "../../core/admission/source-inspector.js";

/**
 * Python program that outlines sources read as a JSON list on stdin with
 * `ast.parse` (no code runs) under rlimits, and prints a JSON list of outlines.
 */
const OUTLINE_PROGRAM = String.raw`
import ast, json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (512 * 1024 * 1024, 512 * 1024 * 1024))
resource.setrlimit(resource.RLIMIT_CPU, (5, 6))
sys.setrecursionlimit(4000)

def arity(node):
    args = node.args
    positional = len(args.posonlyargs) + len(args.args)
    return {"min": positional - len(args.defaults), "max": None if args.vararg else positional}

def outline(source):
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return {"syntaxError": {"line": getattr(error, "lineno", None) or 0, "message": str(error)[:500]}, "classes": [], "functions": {}}
    classes, functions = [], {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            methods = {item.name: arity(item) for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
            classes.append({"name": node.name, "methods": methods})
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[node.name] = arity(node)
    return {"syntaxError": None, "classes": classes, "functions": functions}

print(json.dumps([outline(source) for source in json.load(sys.stdin)]))
`;

/** Options of {@link PythonInspector}. */
export interface PythonInspectorOptions {
  /** Interpreter. @default "/usr/bin/python3" */
  readonly python?: string;
  /** Wall-clock limit of one call, milliseconds. @default 10000 */
  readonly timeoutMs?: number;
}

/**
 * {@link SourceInspector} backed by CPython's `ast` module in a child process
 * (isolated mode, 512 MiB address space, 5 s CPU). Parsing never executes the
 * untrusted source; a source the parser cannot handle (too deep, too large) is
 * reported as a syntax error.
 */
export class PythonInspector implements SourceInspector {
  private readonly python: string;
  private readonly timeoutMs: number;

  constructor(options: PythonInspectorOptions = {}) {
    this.python = options.python ?? "/usr/bin/python3";
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** @throws SandboxUnavailableError when the interpreter cannot run or answers garbage */
  outline(sources: readonly string[]): Promise<SourceOutline[]> {
    return new Promise((resolve, reject) => {
      const child = execFile(
        this.python,
        ["-I", "-S", "-c", OUTLINE_PROGRAM],
        { timeout: this.timeoutMs, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout) => {
          if (error !== null) {
            // a source that exhausts the parser's limits kills the process: report it as unparseable
            if (error.killed || error.signal !== null || /MemoryError|RecursionError/.test(String(error.message))) {
              resolve(sources.map(() => ({ syntaxError: { line: 0, message: `the parser gave up: ${error.signal ?? "resource limit"}` }, classes: [], functions: {} })));
              return;
            }
            reject(new SandboxUnavailableError(`${this.python} could not outline sources: ${error.message}`, { cause: error }));
            return;
          }
          try {
            resolve(JSON.parse(stdout) as SourceOutline[]);
          } catch (parseError) {
            reject(new SandboxUnavailableError(`${this.python} printed no outline: ${(parseError as Error).message}`));
          }
        },
      );
      child.stdin?.end(JSON.stringify(sources));
    });
  }
}
