/**
 * The part of a Dockerfile a terminal task's root honours. Docker has no engine here, so the root
 * is a Debian `minbase` built by `mmdebstrap` and prepared in the jail:
 *
 * - `FROM debian:bookworm` (also `-slim`, `debian:12`, `debian:stable`) and `FROM python:3.11*`
 *   (Debian bookworm's python3 is 3.11; mapped to it with python3-pip and python3-venv);
 * - `RUN apt-get install [-y] [--no-install-recommends] PKG…` (the packages go into the image;
 *   `apt-get update`, `apt-get clean` and `rm -rf /var/lib/apt/lists/*` are dropped);
 * - any other `RUN`: run in the jail, without network, in order, as a set-up step;
 * - `COPY` / `ADD` of files inside `environment/` (a folder's contents, as Docker copies them; JSON
 *   form for names with spaces; no URLs, archives are not unpacked, no `--from` or `--chmod`;
 *   `--chown` is ignored: every file belongs to root);
 * - `WORKDIR`, `ENV` (with `$VAR` and `${VAR}` expanded from the ENV before, PATH and HOME);
 * - `FROM --platform=…` (the flag is ignored: roots are the host's architecture);
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
  /**
   * Set-up steps in order. A `copy` source is relative to `environment/`; `to` is the destination,
   * and `intoFolder` says it names a folder the source goes into (a destination ending in `/`, or
   * several sources). A folder source copies its contents to `to`, as Docker does.
   */
  readonly steps: readonly ({ readonly kind: "copy"; readonly from: string; readonly to: string; readonly intoFolder: boolean } | { readonly kind: "run"; readonly command: string; readonly workdir: string })[];
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
    // Docker skips comment lines and empty lines inside a continued instruction
    if (current !== null && (trimmed.startsWith("#") || trimmed === "")) return;
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

/** A part without the variable assignments that lead it (`DEBIAN_FRONTEND=noninteractive apt-get …`). */
function withoutAssignments(part: string): string {
  return part.trim().replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|\S*)\s+)+/, "");
}

/** The packages of one `apt-get install` part (options anywhere, quotes stripped), or null when it is not one. */
function aptInstall(part: string): string[] | null {
  const words = withoutAssignments(part).split(/\s+/);
  if (!/^(apt-get|apt)$/.test(words[0] ?? "")) return null;
  const rest = words.slice(1).filter((word) => !word.startsWith("-"));
  if (rest[0] !== "install") return null;
  return rest.slice(1).map((word) => word.replace(/^["']|["']$/g, ""));
}

/** The default variables of a root, for `$VAR` in ENV, WORKDIR and COPY destinations. */
const BASE_ENV: Readonly<Record<string, string>> = { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", HOME: "/root" };

/** `$NAME` and `${NAME}` replaced from `env` (Docker's expansion in ENV, WORKDIR, COPY); unknown names become "". */
function expand(text: string, env: Readonly<Record<string, string>>): string {
  return text.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_, braced: string | undefined, bare: string | undefined) => env[braced ?? bare ?? ""] ?? BASE_ENV[braced ?? bare ?? ""] ?? "");
}

/** The words of a COPY/ADD argument: its JSON array (names may hold spaces), else whitespace-separated. */
function copyWords(argument: string): string[] {
  if (argument.startsWith("[")) {
    try {
      const words = JSON.parse(argument) as unknown;
      if (Array.isArray(words) && words.every((word) => typeof word === "string")) return words as string[];
    } catch {
      // not JSON: read as words
    }
  }
  return argument.split(/\s+/).filter((word) => word !== "");
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
      const image = argument.split(/\s+/).filter((word) => !/^--platform=/.test(word))[0] ?? "";
      if (DEBIAN_BASES.test(image)) suite = "bookworm";
      else if (PYTHON_BASES.test(image)) {
        suite = "bookworm";
        for (const name of ["python3", "python3-pip", "python3-venv"]) packages.add(name);
      } else return { line, message: `base image ${image} is not supported: terminal roots are Debian bookworm (FROM debian:bookworm, debian:bookworm-slim or python:3.11)` };
    } else if (keyword === "RUN") {
      const command = shellForm(argument);
      if (/^--\w/.test(command)) return { line, message: "RUN flags (--mount, --network) are not supported" };
      if (/^<<-?\s*["']?\w+/.test(command)) return { line, message: "RUN with a here-document is not supported: write the file with printf, or COPY it from environment/" };
      const kept: string[] = [];
      for (const part of command.split(/\s*&&\s*/)) {
        const installed = aptInstall(part);
        if (installed !== null) {
          for (const name of installed) {
            const bare = name.replace(/=.*$/, "");
            if (!PACKAGE_NAME.test(bare)) return { line, message: `cannot install ${JSON.stringify(name)}: not a Debian package name` };
            packages.add(bare);
          }
        } else if (/^(apt-get|apt)\s+(-\S+\s+)*(update|clean|autoclean)\b/.test(withoutAssignments(part)) || /^rm\s+-rf\s+\/var\/lib\/apt\/lists\/\*?$/.test(part.trim())) {
          continue;
        } else if (NETWORK_FETCH.test(withoutAssignments(part))) {
          return { line, message: `RUN ${JSON.stringify(part.trim().slice(0, 80))} needs the network or a package manager: set-up runs without network; install Debian packages with apt-get install instead` };
        } else kept.push(part.trim());
      }
      if (kept.length > 0) steps.push({ kind: "run", command: kept.join(" && "), workdir });
    } else if (keyword === "COPY" || keyword === "ADD") {
      const all = copyWords(argument);
      if (all.some((word) => word.startsWith("--chmod"))) return { line, message: `${keyword} --chmod is not supported: set modes with RUN chmod` };
      const words = all.filter((word) => !/^--chown=/.test(word));
      if (words.some((word) => word.startsWith("--"))) return { line, message: `${keyword} flags other than --chown (ignored: every file belongs to root) are not supported, e.g. --from` };
      if (words.length < 2) return { line, message: `${keyword} needs a source and a destination` };
      const rawDestination = expand(words[words.length - 1] as string, env);
      const sources = words.slice(0, -1);
      const destination = resolvePath(workdir, rawDestination);
      for (const source of sources) {
        if (/^[a-z]+:\/\//i.test(source)) return { line, message: `${keyword} of a URL is not supported (no network at set-up)` };
        if (source.split("/").includes("..") || source.startsWith("/")) return { line, message: `${keyword} source ${source} is outside environment/` };
        if (/[*?[]/.test(source)) return { line, message: `${keyword} with a wildcard (${source}) is not supported; name the files` };
        steps.push({ kind: "copy", from: source.replace(/\/+$/, "") || ".", to: destination, intoFolder: rawDestination.endsWith("/") || sources.length > 1 });
      }
    } else if (keyword === "WORKDIR") {
      workdir = resolvePath(workdir, expand(argument, env));
      workdirSet = true;
    } else if (keyword === "ENV") {
      const pairs = envPairs(argument);
      if (pairs === null) return { line, message: `cannot read ENV ${JSON.stringify(argument.slice(0, 80))}` };
      for (const [key, value] of pairs) env[key] = expand(value, env);
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
