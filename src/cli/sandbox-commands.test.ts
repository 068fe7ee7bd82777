import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CGROUP_HOW_TO_ENABLE, probeCgroups } from "../adapters/sandbox/cgroup.js";

const BIN = fileURLToPath(new URL("../../bin/envforge.js", import.meta.url));

describe("envforge sandbox doctor", () => {
  it("reports every protection active on this machine (cgroups where the machine lets it create them), with exit code 0", () => {
    const result = spawnSync("node", [BIN, "sandbox", "doctor", "--json"], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    const statuses = JSON.parse(result.stdout) as { name: string; active: boolean; howToEnable?: string }[];
    const cgroupsPossible = probeCgroups().active;
    expect(statuses.filter((status) => !status.active).map((status) => status.name)).toEqual(cgroupsPossible ? [] : ["cgroups (memory, pids, cpu)"]);
    const cgroups = statuses.find((status) => status.name === "cgroups (memory, pids, cpu)");
    expect(cgroups?.howToEnable).toBe(cgroupsPossible ? undefined : CGROUP_HOW_TO_ENABLE);
    expect(statuses.map((status) => status.name)).toContain("seccomp filter");
  });

  it("shows the process backend's missing isolation with how to enable it, and exits 1", () => {
    const result = spawnSync("node", [BIN, "sandbox", "doctor", "--backend", "process"], { encoding: "utf8" });
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/✘ namespaces \(bubblewrap jail\): the process backend has none\n {4}enable: apt-get install -y bubblewrap/);
    expect(result.stdout).toContain("✔ seccomp filter");
  });

  it("rejects an unknown backend with exit code 2", () => {
    expect(spawnSync("node", [BIN, "sandbox", "doctor", "--backend", "docker"], { encoding: "utf8" }).status).toBe(2);
  });
});

describe("envforge bench sandbox", () => {
  it("prints JSON figures for the seed environments with both ratios", () => {
    const result = spawnSync("node", [BIN, "bench", "sandbox", "--json", "--seconds", "1"], { encoding: "utf8", timeout: 300_000 });
    expect(result.status, result.stderr).toBe(0);
    const figures = JSON.parse(result.stdout) as Record<string, unknown> & {
      environments: string[];
      sandbox: { stepUs: { p50: number; samples: number } };
      throughput: { workers: number; stepsPerSecond: number }[];
    };
    expect(figures.environments).toHaveLength(10);
    expect(figures.sandbox.stepUs.samples).toBeGreaterThan(50);
    expect(figures.sandbox.stepUs.p50).toBeGreaterThan(0);
    expect(typeof figures.stepVsUnisolated).toBe("number");
    expect(typeof figures.episodeStartVsSpawn).toBe("number");
    expect(figures.throughput.map((rate) => rate.workers)).toEqual([1, 2]);
    expect(figures.throughput.every((rate) => rate.stepsPerSecond > 0)).toBe(true);
  });
});
