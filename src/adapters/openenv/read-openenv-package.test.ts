import { cpSync, linkSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageId, type OpenEnvTask } from "../../spec/index.js";
import { openEnvPackage, OPENENV_NO_HINT } from "./openenv-package.js";
import { OPENENV_LIMITS, readOpenEnvPackage, readOpenEnvPackageFolders } from "./read-openenv-package.js";

const GOOD = "fixtures/openenv-packages/lights_out";
const BROKEN = "fixtures/broken-openenv-packages";
const scratch = mkdtempSync(join(tmpdir(), "envforge-openenv-reader-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the good package under `name`, to break by hand. */
function copy(name: string): string {
  const folder = join(mkdtempSync(join(scratch, "case-")), name);
  cpSync(GOOD, folder, { recursive: true });
  return folder;
}

describe("readOpenEnvPackage (nothing runs)", () => {
  it("reads the layout openenv init makes: the environment class, the reward range, resources, tags and envforge's oracle", () => {
    const task = readOpenEnvPackage(GOOD) as OpenEnvTask;
    expect(task).toMatchObject({
      name: "lights_out",
      folder: resolve(GOOD),
      pythonPackage: "lights_out",
      environmentModule: "server.lights_out_environment",
      environmentClass: "LightsOutEnvironment",
      rewardRange: [0, 1],
      resources: { memoryMb: 512, diskMb: 64, cpus: 1, episodeTimeoutSec: 120 },
      hasOracle: true,
      tags: ["puzzle", "parity"],
    });
    expect(task.description).toMatch(/^A row of eight lights/);
    expect(task.source).toContain("class LightsOutEnvironment(Environment):");
  });

  it("makes a multi-turn package with no hint whose content id covers every file of the folder", () => {
    const pkg = openEnvPackage(readOpenEnvPackage(GOOD) as OpenEnvTask, 12);
    expect(pkg.manifest).toMatchObject({ name: "lights-out", interaction: "multi-turn", maxTurns: 12, rewardRange: [0, 1], passThreshold: 1, hint: OPENENV_NO_HINT, skills: ["puzzle", "parity"] });
    const edited = copy("lights_out");
    writeFileSync(join(edited, "README.md"), "changed\n");
    expect(packageId(openEnvPackage(readOpenEnvPackage(edited) as OpenEnvTask, 12))).not.toBe(packageId(pkg));
  });

  it("imports an openenv-NAME folder (a pip distribution's layout) as the Python package NAME", () => {
    expect(readOpenEnvPackage(copy("openenv-lights_out"))).toMatchObject({ pythonPackage: "lights_out" });
    expect(readOpenEnvPackage(copy("lights-out"))).toMatchObject({ status: "reject", reason: "invalid_package_name", message: expect.stringContaining("not a Python identifier") });
  });

  it.each([
    ["no_models", "missing_file", "models.py is missing"],
    ["yaml_not_yaml", "invalid_openenv_yaml", "openenv.yaml is not YAML"],
    ["yaml_wrong_spec_version", "invalid_openenv_yaml", "spec_version must be 1"],
    ["no_environment_class", "missing_environment_class", "no module in server/ defines a subclass of OpenEnv's Environment"],
  ])("gives %s the static verdict %s", (fixture, reason, message) => {
    expect(readOpenEnvPackage(join(BROKEN, fixture))).toMatchObject({ status: "reject", gate: "static", reason, message: expect.stringContaining(message) });
  });

  it("refuses a symbolic link, a file over 256 KiB, a missing server/app.py and two Environment classes", () => {
    const linked = copy("lights_out");
    symlinkSync("/etc/passwd", join(linked, "server", "notes.txt"));
    expect(readOpenEnvPackage(linked)).toMatchObject({ reason: "unsafe_file", evidence: { file: "server/notes.txt" } });
    const large = copy("lights_out");
    writeFileSync(join(large, "models.py"), "#".repeat(300 * 1024));
    expect(readOpenEnvPackage(large)).toMatchObject({ reason: "too_large" });
    const noApp = copy("lights_out");
    rmSync(join(noApp, "server", "app.py"));
    expect(readOpenEnvPackage(noApp)).toMatchObject({ reason: "missing_file", evidence: { file: "server/app.py" } });
    const two = copy("lights_out");
    writeFileSync(join(two, "server", "second.py"), "from openenv.core.env_server.interfaces import Environment\nclass Second(Environment):\n    pass\n");
    expect(readOpenEnvPackage(two)).toMatchObject({ reason: "missing_environment_class", message: expect.stringContaining("several modules") });
    expect(readOpenEnvPackage(join(scratch, "nowhere"))).toMatchObject({ reason: "missing_file" });
  });

  it("caps the resources openenv.yaml asks for, and leaves out server files Python cannot import by name", () => {
    const greedy = copy("lights_out");
    const yamlPath = join(greedy, "openenv.yaml");
    writeFileSync(yamlPath, readFileSync(yamlPath, "utf8").replace("memory_mb: 512", "memory_mb: 16384").replace("disk_mb: 64", "disk_mb: 16384").replace("cpu: 1.0", "cpu: 16").replace("episode_timeout_s: 120.0", "episode_timeout_s: 7000"));
    expect((readOpenEnvPackage(greedy) as OpenEnvTask).resources).toEqual({ memoryMb: OPENENV_LIMITS.memoryMb, diskMb: OPENENV_LIMITS.diskMb, cpus: OPENENV_LIMITS.cpus, episodeTimeoutSec: OPENENV_LIMITS.episodeTimeoutSec });
    const odd = copy("lights_out");
    renameSync(join(odd, "server", "lights_out_environment.py"), join(odd, "server", "x' ; echo INJECTED ; '.py"));
    expect(readOpenEnvPackage(odd)).toMatchObject({ reason: "missing_environment_class" });
  });

  it("refuses a hard link (it could be a host file linked in), and counts dot-files in the content id", () => {
    const linked = copy("lights_out");
    linkSync(join(linked, "README.md"), join(linked, "server", "readme-again.md"));
    expect(readOpenEnvPackage(linked)).toMatchObject({ reason: "unsafe_file" });
    const dotted = copy("lights_out");
    const before = (readOpenEnvPackage(dotted) as OpenEnvTask).filesDigest;
    writeFileSync(join(dotted, ".payload.py"), "print('runs when imported')\n");
    expect((readOpenEnvPackage(dotted) as OpenEnvTask).filesDigest).not.toBe(before);
  });

  it("lists the package folders of a folder in path order, and a package folder as itself", () => {
    const all = readOpenEnvPackageFolders(BROKEN);
    expect(all).toHaveLength(11);
    expect(all.filter((entry) => !("status" in entry))).toHaveLength(7);
    expect(readOpenEnvPackageFolders(GOOD)).toHaveLength(1);
    expect(readOpenEnvPackageFolders("envs/seeds")).toEqual([]);
  });
});
