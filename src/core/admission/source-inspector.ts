/** Outline of one Python source as its parser sees it; nothing is executed. */
export interface SourceOutline {
  /** The first syntax error, or null when the source parses. */
  readonly syntaxError: { readonly line: number; readonly message: string } | null;
  /** Top-level classes with their methods' positional arity (including `self`). */
  readonly classes: readonly { readonly name: string; readonly methods: Readonly<Record<string, Arity>> }[];
  /** Top-level functions with their positional arity. */
  readonly functions: Readonly<Record<string, Arity>>;
}

/** Positional parameters a callable accepts: at least `min`, at most `max` (null = unbounded, `*args`). */
export interface Arity {
  readonly min: number;
  readonly max: number | null;
}

/**
 * Parses Python sources without running them (the static gate's view of
 * `env.py` and `oracle.py`). Implementation: `PythonInspector` in
 * `adapters/python-inspector` (CPython's `ast`, in a resource-limited process).
 */
export interface SourceInspector {
  /**
   * @returns one outline per source, in order
   * @throws SandboxUnavailableError when the parser cannot run at all
   */
  outline(sources: readonly string[]): Promise<SourceOutline[]>;
}

/** Whether a callable of `arity` can be called with `count` positional arguments. */
export function accepts(arity: Arity, count: number): boolean {
  return arity.min <= count && (arity.max === null || count <= arity.max);
}
