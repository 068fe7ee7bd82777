import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readHarborTask } from "./harbor-task.js";

const SEED = "envs/terminal-seeds/config-file";
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function copy(edit: (dir: string) => void): string {
  const parent = mkdtempSync(join(tmpdir(), "envforge-harbor-"));
  folders.push(parent);
  const dir = join(parent, "task");
  cpSync(SEED, dir, { recursive: true });
  edit(dir);
  return dir;
}

describe("readHarborTask: bad folders get a static verdict naming the problem", () => {
  it.each([
    ["no folder at all", () => "/nonexistent/task", "missing_file", /task.toml is missing/],
    ["no instruction", (dir: string) => rmSync(join(dir, "instruction.md")), "missing_file", /instruction.md is missing/],
    ["an empty instruction", (dir: string) => writeFileSync(join(dir, "instruction.md"), "  \n"), "missing_file", /instruction.md/],
    ["no Dockerfile", (dir: string) => rmSync(join(dir, "environment/Dockerfile")), "missing_file", /environment\/Dockerfile is missing/],
    ["a COPY of a file that is not there", (dir: string) => rmSync(join(dir, "environment/README")), "missing_file", /environment\/README is missing/],
    ["a timeout that is a string", (dir: string) => writeFileSync(join(dir, "task.toml"), '[agent]\ntimeout_sec = "long"\n'), "invalid_task_toml", /agent.timeout_sec/],
    ["GPUs", (dir: string) => writeFileSync(join(dir, "task.toml"), "[environment]\ngpus = 1\n"), "unsupported_task", /GPUs/],
    ["a Windows task", (dir: string) => writeFileSync(join(dir, "task.toml"), '[environment]\nos = "windows"\n'), "unsupported_task", /environment.os/],
    ["a Dockerfile line it cannot honour", (dir: string) => writeFileSync(join(dir, "environment/Dockerfile"), "FROM alpine:3\n"), "dockerfile_unsupported", /line 1: base image alpine:3/],
    ["a data file that is a link to a host file", (dir: string) => { rmSync(join(dir, "environment/README")); symlinkSync("/etc/passwd", join(dir, "environment/README")); }, "unsafe_file", /environment\/README is a symbolic link/],
    ["an instruction that is a link", (dir: string) => { rmSync(join(dir, "instruction.md")); symlinkSync("/etc/hostname", join(dir, "instruction.md")); }, "unsafe_file", /instruction.md/],
    ["a tests folder that is a link", (dir: string) => { rmSync(join(dir, "tests"), { recursive: true }); symlinkSync("/etc", join(dir, "tests")); }, "unsafe_file", /tests/],
    ["a FIFO in environment/", (dir: string) => execFileSync("mkfifo", [join(dir, "environment/pipe")]), "unsafe_file", /environment\/pipe/],
    ["an instruction of 300 KB", (dir: string) => writeFileSync(join(dir, "instruction.md"), "x".repeat(300_000)), "too_large", /over 262144 bytes/],
    ["an environment variable name with a space", (dir: string) => writeFileSync(join(dir, "task.toml"), '[environment.env]\n"MY VAR" = "1"\n'), "invalid_task_toml", /environment.env/],
    ["a working directory that climbs out", (dir: string) => writeFileSync(join(dir, "task.toml"), '[environment]\nworkdir = "/../../tmp/x"\n'), "invalid_task_toml", /no \.\./],
  ])("%s", (_label, edit, reason, message) => {
    const folder = _label === "no folder at all" ? (edit as () => string)() : copy(edit as (dir: string) => void);
    const result = readHarborTask(folder);
    expect("status" in result && result.status).toBe("reject");
    if (!("status" in result)) return;
    expect(result.gate).toBe("static");
    expect(result.reason).toBe(reason);
    expect(result.message).toMatch(message);
  });
});

describe("readHarborTask: the seed", () => {
  it("reads task.toml, the Dockerfile plan and the folders", () => {
    const task = readHarborTask(SEED);
    if ("status" in task) throw new Error(task.message);
    expect(task.name).toBe("envforge/config-file");
    expect(task.workdir).toBe("/app");
    expect(task.network).toBe(false);
    expect(task.storageMb).toBe(64);
    expect(task.image).toEqual({ suite: "bookworm", packages: [] });
    expect(task.setup.map((step) => step.kind)).toEqual(["copy", "run"]);
    expect(task.solutionDir).toMatch(/solution$/);
    expect(task.metadata.hint).toMatch(/here-document/);
  });
});
