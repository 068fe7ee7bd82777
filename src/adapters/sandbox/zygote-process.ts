import type { SandboxFailureKind } from "../../spec/index.js";

/**
 * The shapes the jail, its lanes and its cgroup share (kept apart so none of
 * them imports another for a type): how a zygote starts, and how one of its
 * children failed.
 * @module
 */

/** How to start a zygote (backend-specific argv and environment). */
export interface ZygoteCommand {
  readonly command: string;
  readonly args: readonly string[];
  /** The complete environment of the started process. */
  readonly env: Readonly<Record<string, string>>;
}

/** A typed failure of one child, as the session reports it. */
export interface ChildFailure {
  readonly kind: SandboxFailureKind;
  readonly message: string;
  readonly detail?: string;
}
