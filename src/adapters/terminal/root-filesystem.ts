import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { EnvforgeError, SandboxUnavailableError, type TerminalImage } from "../../spec/index.js";

/** Options of {@link ensureRoot}. */
export interface RootFilesystemOptions {
  /** Where built roots are kept. @default $ENVFORGE_TERMINAL_ROOTS or ~/.cache/envforge/terminal-roots */
  readonly cacheDir?: string;
  /** Debian archive the roots are built from. @default http://deb.debian.org/debian */
  readonly mirror?: string;
  /** Told once when a root has to be built (minutes at most), with the packages. */
  readonly onBuild?: (image: TerminalImage) => void;
}

/** Default folder of built roots. */
export function defaultRootCache(): string {
  return process.env.ENVFORGE_TERMINAL_ROOTS ?? join(homedir(), ".cache", "envforge", "terminal-roots");
}

/** The cache key of an image: its release, packages and archive. */
export function imageKey(image: TerminalImage, mirror: string): string {
  return createHash("sha256").update(JSON.stringify({ suite: image.suite, packages: [...image.packages].sort(), mirror, variant: "minbase" })).digest("hex").slice(0, 16);
}

/** A root that does not build (a package the archive lacks, an unreachable archive): the task's image, not the machine. */
export class ImageBuildError extends EnvforgeError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("image_build_failed", message, options);
  }
}

const building = new Map<string, Promise<string>>();

function run(command: string, args: readonly string[], timeoutMs: number): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolvePromise, rejectPromise) => {
    execFile(command, [...args], { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) rejectPromise(Object.assign(error, { stderr }));
      else resolvePromise({ stdout, stderr });
    });
  });
}

/**
 * The folder of a built root for `image`: a Debian `minbase` of `image.suite` with
 * `image.packages`, built by `mmdebstrap` the first time (about 20 s plus the packages' download)
 * and reused after (`<cache>/<key>/root`, with `image.json` beside it). Builds of one image in
 * one process are shared; a build killed half-way leaves no root behind (it is renamed into place
 * when complete). Roots are built as root (`--mode=root`); without root, `--mode=unshare`
 * (needs subordinate uids in /etc/subuid).
 *
 * @throws SandboxUnavailableError when mmdebstrap is missing (the machine's problem)
 * @throws ImageBuildError when the build fails (the message holds mmdebstrap's last output)
 */
export function ensureRoot(image: TerminalImage, options: RootFilesystemOptions = {}): Promise<string> {
  const mirror = options.mirror ?? "http://deb.debian.org/debian";
  const folder = join(options.cacheDir ?? defaultRootCache(), imageKey(image, mirror));
  const root = join(folder, "root");
  if (existsSync(join(folder, "image.json"))) return Promise.resolve(root);
  const pending = building.get(folder);
  if (pending !== undefined) return pending;
  const build = (async () => {
    options.onBuild?.(image);
    mkdirSync(folder, { recursive: true });
    const partial = join(folder, `root.partial-${process.pid}`);
    rmSync(partial, { recursive: true, force: true });
    const mode = process.getuid?.() === 0 ? "root" : "unshare";
    const include = image.packages.length > 0 ? [`--include=${image.packages.join(",")}`] : [];
    try {
      await run("mmdebstrap", ["--variant=minbase", `--mode=${mode}`, "--quiet", ...include, image.suite, partial, mirror], 30 * 60_000);
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      const stderr = String((error as { stderr?: string }).stderr ?? "").trim().split("\n").slice(-5).join("\n");
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        throw new SandboxUnavailableError("mmdebstrap is not installed; terminal roots are built with it: apt-get install -y mmdebstrap", { cause: error });
      }
      throw new ImageBuildError(`building the terminal root (${image.suite}${image.packages.length > 0 ? ` with ${image.packages.join(", ")}` : ""}) failed: ${stderr || (error as Error).message}`, { cause: error });
    }
    if (existsSync(join(folder, "image.json"))) {
      rmSync(partial, { recursive: true, force: true }); // another process finished first
      return root;
    }
    rmSync(root, { recursive: true, force: true });
    renameSync(partial, root);
    writeFileSync(join(folder, "image.json"), `${JSON.stringify({ ...image, mirror, builtAt: new Date().toISOString() }, null, 2)}\n`);
    return root;
  })();
  building.set(folder, build);
  build.catch(() => building.delete(folder));
  return build;
}
