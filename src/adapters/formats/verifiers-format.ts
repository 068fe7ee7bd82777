import type { ExportFormat } from "../../spec/index.js";
import { shellWord } from "../../support/shell-word.js";
import { packageReadme, pyproject, pythonName, RUNTIME_FILE, LOCAL_PROGRAM_NOTE, writePythonPackage } from "./python-package.js";

/** The verifiers taskset id of an export (`envforge-vf-<name>`; verifiers imports it as `envforge_vf_<name>`). */
export function verifiersTasksetId(name: string): string {
  return `envforge-vf-${name}`;
}

/**
 * verifiers 0.4 (`verifiers.v1`): a package `envforge-vf-<name>` whose module exports, in
 * `__all__`, one `Taskset` (tasks are (seed, level) pairs, the prompt is the instance's first
 * observation; config `seeds`, `levels`) and one multi-turn `Env` (each reply is a step, the next
 * observation the environment's message; the rubric is the episode return, `won` a metric), which
 * is how verifiers 0.4 finds an environment by taskset id (`vf-eval envforge-vf-<name>`,
 * `vf.load_environment(vf.resolve_env_config({"taskset": {"id": ...}}))`); `load_environment(**kwargs)`
 * is there too for code that calls it. The player is verifiers' tool-less chat harness (`null`) in a
 * local subprocess runtime. Checked in the test suite by loading it by id and a rollout through
 * verifiers' own API.
 */
export const verifiersFormat: ExportFormat = {
  name: "verifiers",
  description: "a verifiers 0.4 environment package envforge-vf-<name> (a Taskset of seeds x levels and a multi-turn Env)",
  note: LOCAL_PROGRAM_NOTE,
  write(environment, outDir, stamp, replace) {
    const name = environment.exportName;
    const module = `envforge_vf_${pythonName(name)}`;
    const distribution = verifiersTasksetId(name);
    const manifest = environment.package.manifest;
    const usage = [
      "# evaluate: vf-eval " + distribution + " -m <model> --client.base-url <OpenAI-compatible URL> -n 8 --no-push --env.taskset.levels '[0, 1]'",
      "import verifiers.v1 as vf",
      "",
      `env = vf.load_environment(vf.resolve_env_config({"taskset": {"id": ${JSON.stringify(distribution)}, "seeds": [0, 1, 2], "levels": [0]}}))`,
    ].join("\n");
    const files = {
      "pyproject.toml": pyproject(distribution, `${manifest.title}: an envforge environment for verifiers`, ["verifiers>=0.4,<0.5"], { [module]: module, [`${module}.program`]: `${module}/program` }),
      "README.md": packageReadme(environment, "verifiers", `pip install ./${distribution}`, usage, [
        "program, oracle, manifest, hint: `program/` as admitted (the hint is not shown to the player)",
        "levels: taskset config `levels` (default [0]); each task is one (seed, level)",
        "maxTurns, reward range, pass threshold: enforced by the runtime; the reward is the clipped episode return, `won` a metric",
        "steps: every (action, observation, reward, terminated, truncated) in the trace's `info.steps`",
        "oracle: not used by verifiers; `program/oracle.py` locally",
        "scores, lineage, verdicts: `program/provenance.json`",
      ]),
      [`${module}/__init__.py`]: verifiersSource(distribution, manifest.title, RUNTIME_FILE.replace(/\.py$/, "")),
    };
    const written = writePythonPackage(environment, outDir, stamp, { distribution, moduleDir: module, files }, replace);
    return { ...written, distribution, module, usage: `pip install ${shellWord(written.folder)}; vf-eval ${distribution} -m <model> --client.base-url <url> --no-push` };
  },
};

function verifiersSource(tasksetId: string, title: string, runtime: string): string {
  return `"""${title} as a verifiers 0.4 environment (taskset id ${JSON.stringify(tasksetId)}).

verifiers imports this module for the taskset id and takes the Taskset and Env exported in __all__.
Episodes run through ${runtime}.py: in this process, unsandboxed, unless ENVFORGE_SERVER_URL names an envforge serve.
"""

from typing import Any, Dict, List

import verifiers.v1 as vf

from .${runtime} import open_episode

TASKSET_ID = ${JSON.stringify(tasksetId)}
SYSTEM_PROMPT = ${JSON.stringify(`${title}. Reply to each observation with your next action.`)}


class EpisodeData(vf.TaskData):
    """One instance: the seed and level its first observation (the prompt) was built from."""

    seed: int
    level: int = 0


class EpisodeTask(vf.Task[EpisodeData]):
    @vf.reward(weight=1.0)
    async def episode_return(self, trace: vf.Trace) -> float:
        """The episode's return: the sum of its rewards clipped to the reward range (written by EpisodeEnv.run)."""
        return float(trace.info.get("episode_return", 0.0))

    @vf.metric
    async def won(self, trace: vf.Trace) -> float:
        return 1.0 if trace.info.get("won") else 0.0


class EpisodeTasksetConfig(vf.TasksetConfig):
    seeds: List[int] = list(range(64))
    levels: List[int] = [0]


class EpisodeTaskset(vf.Taskset[EpisodeTask, EpisodeTasksetConfig]):
    def load(self):
        for level in self.config.levels:
            for seed in self.config.seeds:
                prompt = open_episode().reset(seed, level)
                data = EpisodeData(name=f"seed{seed}-level{level}", prompt=prompt, system_prompt=SYSTEM_PROMPT, seed=seed, level=level)
                yield EpisodeTask(data, self.config.task)


class EpisodeEnvConfig(vf.EnvConfig):
    # verifiers' tool-less chat harness, run locally (its default runtime is a remote sandbox)
    player: vf.AgentConfig = vf.AgentConfig(harness={"id": "null"}, runtime={"type": "subprocess"})


class EpisodeEnv(vf.Env[EpisodeEnvConfig]):
    """Each model reply is one step; the next observation is the environment's reply; ends as envforge's episodes do."""

    async def run(self, task: EpisodeTask, agents: vf.Agents) -> None:
        episode = open_episode()
        episode.reset(task.data.seed, task.data.level)
        steps: List[Dict[str, Any]] = []
        async with agents.player.interaction(task) as chat:
            segment = await chat.turn()
            while not segment.terminated:
                observation, reward, terminated, truncated, info = episode.step(segment.last_reply)
                steps.append({"action": segment.last_reply, "observation": observation, "reward": reward, "terminated": terminated, "truncated": truncated, "info": info})
                if terminated or truncated:
                    break
                segment = await chat.turn(observation)
            chat.trace.info["episode_return"] = episode.episode_return()
            chat.trace.info["won"] = bool(steps) and episode.won()
            chat.trace.info["steps"] = steps
            chat.trace.info["level"] = task.data.level


def load_environment(**kwargs: Any) -> vf.Env:
    """The environment, for code that calls load_environment(**kwargs): kwargs are taskset config (seeds, levels)."""
    return vf.load_environment(vf.resolve_env_config({"taskset": {"id": TASKSET_ID, **kwargs}}))


__all__ = ["EpisodeData", "EpisodeEnv", "EpisodeEnvConfig", "EpisodeTask", "EpisodeTaskset", "EpisodeTasksetConfig", "load_environment"]
`;
}
