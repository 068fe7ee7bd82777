/**
 * The part of a Dockerfile a terminal task's root honours. Docker has no engine here, so the root
 * is a Debian `minbase` built by `mmdebstrap` and prepared in the jail:
 *
 * - `FROM debian:bookworm` (also `-slim`, `debian:12`, `debian:stable`) and `FROM python:3.11*`
 *   (Debian bookworm's python3 is 3.11; mapped to it with python3-pip and python3-venv);
 * - `RUN apt-get install [-y] [--no-install-recommends] PKG…` (the packages go into the image;
 *   `apt-get update`, `apt-get clean` and `rm -rf /var/lib/apt/lists/*` are dropped);
 * - any other `RUN`: run in the jail, without network, in order, as a set-up step;
 * - `COPY` / `ADD` of files inside `environment/` (no URLs, archives are not unpacked, no `--from`);
 * - `WORKDIR`, `ENV`;
 * - `CMD`, `ENTRYPOINT`, `EXPOSE`, `LABEL`, `MAINTAINER`: ignored (an episode runs commands, not a service).
 *
 * Everything else (`USER`, `ARG`, `VOLUME`, `HEALTHCHECK`, `SHELL`, `ONBUILD`, `STOPSIGNAL`, other
 * base images, `pip install` and other network fetches in RUN) is refused with the line named.
 * @module
 */

/** What a Dockerfile asks for, in the form the terminal root uses. */
export interface DockerfilePlan {
  readonly suite: string;
  readonly packages: readonly string[];
  /** `copy` sources are relative to `environment/`. */
  readonly steps: readonly ({ readonly kind: "copy"; readonly from: string; readonly to: string } | { readonly kind: "run"; readonly command: string; readonly workdir: string })[];
  readonly workdir: string;
  readonly env: Readonly<Record<string, string>>;
}

/** Why a Dockerfile cannot be honoured: the 1-based line and what is wrong with it. */
export interface DockerfileRefusal {
  readonly line: number;
  readonly message: string;
}

const DEBIAN_BASES = /^debian:(bookworm|bookworm-slim|12|12-slim|stable|stable-slim)(@sha256:[0-9a-f]+)?$/;
const PYTHON_BASES = /^python:3\.11([.\d]*)(-slim)?(-bookworm)?(@sha256:[0-9a-f]+)?$/;
const PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]+$/;
const IGNORED = new Set(["CMD", "ENTRYPOINT", "EXPOSE", "LABEL", "MAINTAINER"]);
/** A command (at the start of a simple command of a RUN part) that fetches from the network. */
const NETWORK_FETCH = /(^|[;&|(]\s*)(sudo\s+)?(pip3?|curl|wget|npm|npx|apt|apt-get|gem|cargo|uv|conda|git\s+clone|go\s+(get|install)|python3?\s+-m\s+pip)\b/;

/** Joins continuation lines; returns each instruction with the line it starts on. */
function instructions(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let current: { line: number; text: string } | null = null;
  text.split(/\r?\n/).forEach((raw, index) => {
    const trimmed = raw.trim();
    if (current === null && (trimmed === "" || trimmed.startsWith("#"))) return;
    if (current !== null && trimmed.startsWith("#")) return;
    const continued = /\\\s*$/.test(raw);
    const body = continued ? raw.replace(/\\\s*$/, "") : raw;
    if (current === null) current = { line: index + 1, text: body.trim() };
    else current.text += ` ${body.trim()}`;
    if (!continued) {
      out.push(current);
      current = null;
    }
  });
  if (current !== null) out.push(current);
  return out;
}

/** The shell words of a JSON exec form (`["a", "b"]`), or the text itself (shell form). */
function shellForm(argument: string): string {
  if (!argument.startsWith("[")) return argument;
  try {
    const words = JSON.parse(argument) as unknown;
    if (Array.isArray(words) && words.every((word) => typeof word === "string")) return words.map((word) => (/^[\w./=:-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`)).join(" ");
  } catch {
    // not JSON: Docker runs it with the shell too
  }
  return argument;
}

function resolvePath(base: string, path: string): string {
  const joined = path.startsWith("/") ? path : `${base.replace(/\/$/, "")}/${path}`;
  const parts: string[] = [];
  for (const part of joined.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

/** Splits `a=b c=d` or `a b` (ENV's two forms) into pairs. */
function envPairs(argument: string): [string, string][] | null {
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(argument)) {
    const pairs: [string, string][] = [];
    const pattern = /([A-Za-z_][A-Za-z0-9_]*)=("((?:[^"\\]|\\.)*)"|'([^']*)'|(\S*))/g;
    let rest = argument;
    for (const match of argument.matchAll(pattern)) {
      pairs.push([match[1] as string, match[3] ?? match[4] ?? match[5] ?? ""]);
      rest = rest.replace(match[0], "");
    }
    return rest.trim() === "" ? pairs : null;
  }
  const match = /^([A-Za-z_][A-Za-z0-9_]*)\s+(.*)$/.exec(argument);
  return match ? [[match[1] as string, match[2] as string]] : null;
}

/** The packages of one `apt-get install` part, or null when it is not one. */
function aptInstall(part: string): string[] | null {
  const words = part.trim().split(/\s+/);
  if (!/^(apt-get|apt)$/.test(words[0] ?? "") || words[1] !== "install") return null;
  return words.slice(2).filter((word) => !word.startsWith("-"));
}

/**
 * Reads a Dockerfile into a {@link DockerfilePlan}, or the first line that cannot be honoured.
 * Never throws.
 */
export function parseDockerfile(text: string): DockerfilePlan | DockerfileRefusal {
  let suite: string | null = null;
  const packages = new Set<string>();
  const steps: DockerfilePlan["steps"][number][] = [];
  let workdir = "/";
  let workdirSet = false;
  const env: Record<string, string> = {};
  for (const { line, text: instruction } of instructions(text)) {
    const match = /^(\w+)\s*(.*)$/.exec(instruction);
    if (match === null) return { line, message: `cannot read the instruction ${JSON.stringify(instruction.slice(0, 80))}` };
    const keyword = (match[1] as string).toUpperCase();
    const argument = (match[2] as string).trim();
    if (suite === null && keyword !== "FROM") return { line, message: `the first instruction must be FROM (got ${keyword})` };
    if (keyword === "FROM") {
      if (suite !== null) return { line, message: "multi-stage builds (a second FROM) are not supported" };
      const image = argument.split(/\s+/)[0] ?? "";
      if (DEBIAN_BASES.test(image)) suite = "bookworm";
      else if (PYTHON_BASES.test(image)) {
        suite = "bookworm";
        for (const name of ["python3", "python3-pip", "python3-venv"]) packages.add(name);
      } else return { line, message: `base image ${image} is not supported: terminal roots are Debian bookworm (FROM debian:bookworm, debian:bookworm-slim or python:3.11)` };
    } else if (keyword === "RUN") {
      const command = shellForm(argument);
      if (/^--\w/.test(command)) return { line, message: "RUN flags (--mount, --network) are not supported" };
      const kept: string[] = [];
      for (const part of command.split(/\s*&&\s*/)) {
        const installed = aptInstall(part);
        if (installed !== null) {
          for (const name of installed) {
            const bare = name.replace(/=.*$/, "");
            if (!PACKAGE_NAME.test(bare)) return { line, message: `cannot install ${JSON.stringify(name)}: not a Debian package name` };
            packages.add(bare);
          }
        } else if (/^(apt-get|apt)\s+(update|clean|autoclean)\b/.test(part.trim()) || /^rm\s+-rf\s+\/var\/lib\/apt\/lists\/\*?$/.test(part.trim())) {
          continue;
        } else if (NETWORK_FETCH.test(part.trim())) {
          return { line, message: `RUN ${JSON.stringify(part.trim().slice(0, 80))} needs the network or a package manager: set-up runs without network; install Debian packages with apt-get install instead` };
        } else kept.push(part.trim());
      }
      if (kept.length > 0) steps.push({ kind: "run", command: kept.join(" && "), workdir });
    } else if (keyword === "COPY" || keyword === "ADD") {
      const words = shellForm(argument).split(/\s+/).filter((word) => !/^--(chown|chmod)=/.test(word));
      if (words.some((word) => word.startsWith("--"))) return { line, message: `${keyword} flags other than --chown/--chmod (e.g. --from) are not supported` };
      if (words.length < 2) return { line, message: `${keyword} needs a source and a destination` };
      const destination = words[words.length - 1] as string;
      for (const source of words.slice(0, -1)) {
        if (/^[a-z]+:\/\//i.test(source)) return { line, message: `${keyword} of a URL is not supported (no network at set-up)` };
        if (source.split("/").includes("..") || source.startsWith("/")) return { line, message: `${keyword} source ${source} is outside environment/` };
        if (/[*?[]/.test(source)) return { line, message: `${keyword} with a wildcard (${source}) is not supported; name the files` };
        const target = destination.endsWith("/") || words.length > 2 ? `${resolvePath(workdir, destination)}/${source.replace(/\/$/, "").split("/").pop() ?? ""}` : resolvePath(workdir, destination);
        const sourceIsFolderContents = source === "." || source === "./";
        steps.push({ kind: "copy", from: source, to: sourceIsFolderContents ? resolvePath(workdir, destination) : target });
      }
    } else if (keyword === "WORKDIR") {
      workdir = resolvePath(workdir, argument);
      workdirSet = true;
    } else if (keyword === "ENV") {
      const pairs = envPairs(argument);
      if (pairs === null) return { line, message: `cannot read ENV ${JSON.stringify(argument.slice(0, 80))}` };
      for (const [key, value] of pairs) env[key] = value;
    } else if (!IGNORED.has(keyword)) {
      return { line, message: `${keyword} is not supported in a terminal root (supported: FROM, RUN, COPY, ADD, WORKDIR, ENV; ignored: ${[...IGNORED].join(", ")})` };
    }
  }
  if (suite === null) return { line: 1, message: "the Dockerfile has no FROM" };
  return { suite, packages: [...packages].sort(), steps, workdir: workdirSet ? workdir : "/root", env };
}

/** Whether a {@link parseDockerfile} result is a refusal. */
export function isRefusal(value: DockerfilePlan | DockerfileRefusal): value is DockerfileRefusal {
  return "message" in value;
}
