import type { ExportFormat } from "../../spec/index.js";
import { shellWord } from "../../support/shell-word.js";
import { packageReadme, pascalName, pyproject, pythonName, RUNTIME_FILE, LOCAL_PROGRAM_NOTE, writePythonPackage } from "./python-package.js";

/** The Gymnasium id an export registers: `envforge/<name>-v0`. */
export function gymnasiumId(name: string): string {
  return `envforge/${name}-v0`;
}

/**
 * Gymnasium 1.x (`gymnasium.Env`): a package `envforge-gym-<name>` whose import registers
 * `envforge/<name>-v0`. Observations and actions are text (a `Text` space that holds any string up
 * to its length: envforge's observations are free text); `reset(seed=, options={"level": n})`
 * builds the instance at a level (info says `seed`, `level`, `env_id`), `step(action)` gives
 * Gymnasium's 5-tuple with envforge's `maxTurns` truncation, and the last step's info the episode's
 * `return` and `won`. `env.unwrapped.oracle_action(observation)` is the reference policy. Checked by
 * Gymnasium's own `check_env` in the test suite.
 */
export const gymnasiumFormat: ExportFormat = {
  name: "gymnasium",
  description: "a pip package registering a Gymnasium 1.x environment envforge/<name>-v0 (text observations and actions)",
  note: LOCAL_PROGRAM_NOTE,
  write(environment, outDir, stamp, replace) {
    const name = environment.exportName;
    const module = `envforge_gym_${pythonName(name)}`;
    const distribution = `envforge-gym-${name}`;
    const className = `${pascalName(name)}Env`;
    const id = gymnasiumId(name);
    const usage = [
      "import gymnasium",
      `import ${module}  # registers ${id}`,
      "",
      `env = gymnasium.make(${JSON.stringify(id)})`,
      `observation, info = env.reset(seed=3, options={"level": 0})`,
      "observation, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action(observation))",
    ].join("\n");
    const files = {
      "pyproject.toml": pyproject(distribution, `${environment.package.manifest.title}: an envforge environment for Gymnasium`, ["gymnasium>=1.0,<2"], { [module]: module, [`${module}.program`]: `${module}/program` }),
      "README.md": packageReadme(environment, "Gymnasium", `pip install ./${distribution}`, usage, [
        "program, oracle, manifest, hint: `program/` as admitted; the hint also as `env.unwrapped.hint`",
        "levels: `reset(options={\"level\": n})`; `env.unwrapped.level_count`",
        "maxTurns, reward range, pass threshold: enforced by the runtime; `return` and `won` in the last step's info",
        "oracle: `env.unwrapped.oracle_action(observation)` (local episodes only)",
        "scores, lineage, verdicts: `program/provenance.json` (not part of Gymnasium's API)",
      ]),
      [`${module}/__init__.py`]: [
        `"""${environment.package.manifest.title} (envforge ${environment.id}) as a Gymnasium environment: gymnasium.make(${JSON.stringify(id)})."""`,
        "",
        "import gymnasium",
        "",
        `from .env import ${className}, TextSpace`,
        "",
        `ENV_ID = ${JSON.stringify(id)}`,
        "if ENV_ID not in gymnasium.registry:",
        `    gymnasium.register(id=ENV_ID, entry_point=${JSON.stringify(`${module}.env:${className}`)})`,
        "",
        `__all__ = ["ENV_ID", ${JSON.stringify(className)}, "TextSpace"]`,
        "",
      ].join("\n"),
      [`${module}/env.py`]: gymnasiumEnvSource(className, RUNTIME_FILE.replace(/\.py$/, "")),
    };
    const written = writePythonPackage(environment, outDir, stamp, { distribution, moduleDir: module, files }, replace);
    return { ...written, distribution, module, usage: `pip install ${shellWord(written.folder)}; import ${module}; gymnasium.make(${JSON.stringify(id)})` };
  },
};

function gymnasiumEnvSource(className: string, runtime: string): string {
  return `"""The Gymnasium environment of an envforge export (see ${runtime}.py for how episodes run)."""

from typing import Any, Dict, Optional, Tuple

import gymnasium
from gymnasium import spaces

from .${runtime} import level_count, manifest, open_episode, provenance


class TextSpace(spaces.Text):
    """Any string of min_length..max_length characters (Gymnasium's Text also limits the characters; envforge's text is free)."""

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length


class ${className}(gymnasium.Env):
    """One envforge environment. reset(seed=, options={"level": n}); step(text) -> (text, reward, terminated, truncated, info)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, render_mode: Optional[str] = None, server_url: Optional[str] = None, token: Optional[str] = None):
        self.render_mode = render_mode
        self.observation_space = TextSpace(max_length=1 << 20, min_length=0)
        self.action_space = TextSpace(max_length=256, min_length=0)
        self.level_count = level_count()
        self.hint = manifest()["hint"]
        self.env_id = provenance()["id"]
        self._episode = open_episode(server_url, token)
        self._observation = ""

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[str, Dict[str, Any]]:
        super().reset(seed=seed)
        episode_seed = int(seed) if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        level = (options or {}).get("level")
        self._observation = self._episode.reset(episode_seed, level)
        return self._observation, {"seed": episode_seed, "level": 0 if level is None else int(level), "env_id": self.env_id}

    def step(self, action: str) -> Tuple[str, float, bool, bool, Dict[str, Any]]:
        observation, reward, terminated, truncated, info = self._episode.step(action)
        if terminated or truncated:
            info = {**info, "return": self._episode.episode_return(), "won": self._episode.won()}
        self._observation = observation
        return observation, reward, terminated, truncated, info

    def oracle_action(self, observation: str) -> str:
        """The reference policy's action for the current instance (local episodes only)."""
        return self._episode.oracle_action(observation)

    def render(self) -> Optional[str]:
        return self._observation if self.render_mode == "ansi" else None
`;
}
