import type { ExportFormat, ExportedEnvironment } from "../../spec/index.js";
import { shellWord } from "../../support/shell-word.js";
import { packageReadme, pascalName, pyproject, pythonName, RUNTIME_FILE, LOCAL_PROGRAM_NOTE, writePythonPackage } from "./python-package.js";

/** OpenEnv's names for an environment (its discovery infers them): env key, module, distribution and class stem. */
export function openEnvNames(name: string): { key: string; module: string; distribution: string; stem: string } {
  const key = pythonName(name);
  return { key, module: `${key}_env`, distribution: `openenv-${key}_env`, stem: pascalName(name) };
}

/**
 * OpenEnv 0.10 (`openenv` on PyPI): a package laid out as `openenv init` makes one —
 * `openenv.yaml`, `models.py` (`<Stem>Action {message}`, `<Stem>Observation {text}`), `client.py`
 * (`<Stem>Env`, an `EnvClient`), `server/<module>_environment.py` (an `Environment`),
 * `server/app.py` (`create_app`, `python -m <module>.server.app --port N`), `server/Dockerfile`
 * and `pyproject.toml` named `openenv-<module>`, so OpenEnv's discovery (`AutoEnv`) finds it once
 * installed. Reset takes `seed`, `episode_id` and `level`; the observation's metadata carries
 * `terminated`, `truncated`, `info`, and at the end `return` and `won`, as `envforge serve` does.
 * `openenv.yaml` declares the reward range and the skills as tags. Checked by `openenv validate`
 * (the package, and the running server with `--url`) and OpenEnv's discovery in the test suite.
 */
export const openEnvFormat: ExportFormat = {
  name: "openenv",
  description: "an OpenEnv 0.10 environment package openenv-<name>_env (openenv.yaml, models, client, FastAPI server)",
  note: LOCAL_PROGRAM_NOTE,
  write(environment, outDir, stamp, replace) {
    const { key, module, distribution, stem } = openEnvNames(environment.exportName);
    const runtime = RUNTIME_FILE.replace(/\.py$/, "");
    const usage = [
      `# serve it: python -m ${module}.server.app --port 8000   (the client needs the same package: pip install openenv==0.10.0 ./${distribution})`,
      "from openenv import AutoEnv",
      `from ${module} import ${stem}Action`,
      "",
      `${stem}Env = AutoEnv.get_env_class(${JSON.stringify(key)})`,
      `with ${stem}Env(base_url="http://127.0.0.1:8000").sync() as env:`,
      "    result = env.reset(seed=3, level=0)",
      `    result = env.step(${stem}Action(message="..."))`,
    ].join("\n");
    const files = {
      "openenv.yaml": openEnvYaml(environment, module),
      "pyproject.toml": pyproject(distribution, `${environment.package.manifest.title}: an envforge environment for OpenEnv`, ["openenv>=0.10"], {
        [module]: ".",
        [`${module}.server`]: "server",
        [`${module}.program`]: "program",
      }, `\n[project.scripts]\n${JSON.stringify(`${module}-server`)} = ${JSON.stringify(`${module}.server.app:main`)}\n`),
      "README.md": packageReadme(environment, "OpenEnv", `pip install ./${distribution}`, usage, [
        "program, oracle, manifest, hint: `program/` as admitted; the hint in `openenv.yaml`'s description",
        "levels: reset data `level` (0 = easiest); the state's `level`",
        "reward range: `openenv.yaml` `validation.reward.range`; maxTurns and pass threshold enforced by the runtime",
        "terminated / truncated / info / return / won: the observation's `metadata` (OpenEnv's `done` is their disjunction)",
        "oracle: not over the wire (it reads the live instance); `program/oracle.py` locally, and `oracle.py` (`act(env, observation)`) for `envforge admit` when the package is imported back",
        "scores, lineage, verdicts: `program/provenance.json`",
      ]),
      "__init__.py": `"""${environment.package.manifest.title} (envforge ${environment.id}) as an OpenEnv environment."""\n\nfrom .client import ${stem}Env\nfrom .models import ${stem}Action, ${stem}Observation\n\n__all__ = [${JSON.stringify(`${stem}Action`)}, ${JSON.stringify(`${stem}Observation`)}, ${JSON.stringify(`${stem}Env`)}]\n`,
      "models.py": [
        `"""Action and observation of ${environment.package.manifest.name}: the agent's text reply, the environment's text."""`,
        "",
        "from openenv.core.env_server.types import Action, Observation",
        "from pydantic import Field",
        "",
        "",
        `class ${stem}Action(Action):`,
        '    message: str = Field(..., description="the agent\'s reply, passed to the environment\'s step(action)")',
        "",
        "",
        `class ${stem}Observation(Observation):`,
        '    text: str = Field(default="", description="the environment\'s observation text")',
        "",
      ].join("\n"),
      "client.py": clientSource(stem),
      // envforge's optional reference policy of an OpenEnv package: `envforge admit` reads it when the package comes back
      "oracle.py": [
        `"""envforge's oracle for ${environment.package.manifest.name}: the program's own oracle.py on the live instance (read by envforge admit when this package is imported)."""`,
        "",
        "",
        "def act(env, observation):",
        "    return env._episode.oracle_action(observation)",
        "",
      ].join("\n"),
      "server/__init__.py": `from .${module}_environment import ${stem}Environment\n\n__all__ = [${JSON.stringify(`${stem}Environment`)}]\n`,
      [`server/${module}_environment.py`]: environmentSource(stem, runtime),
      "server/app.py": appSource(stem, module),
      "server/Dockerfile": [
        "FROM python:3.11-slim",
        "WORKDIR /env",
        "COPY . /env",
        "RUN pip install --no-cache-dir /env",
        "EXPOSE 8000",
        `CMD ["python", "-m", "${module}.server.app", "--host", "0.0.0.0", "--port", "8000"]`,
        "",
      ].join("\n"),
    };
    const written = writePythonPackage(environment, outDir, stamp, { distribution, moduleDir: ".", files }, replace);
    return { ...written, distribution, module, usage: `pip install ${shellWord(written.folder)}; python -m ${module}.server.app --port 8000; AutoEnv.get_env_class(${JSON.stringify(key)})` };
  },
};

function openEnvYaml(environment: ExportedEnvironment, module: string): string {
  const manifest = environment.package.manifest;
  const [low, high] = manifest.rewardRange;
  const description = `${manifest.title}. ${manifest.description} Hint: ${manifest.hint}`;
  return [
    "spec_version: 1",
    `name: ${module}`,
    "version: 1.0.0",
    `description: ${JSON.stringify(description)}`,
    "type: space",
    "runtime: fastapi",
    "app: server.app:app",
    "port: 8000",
    "validation:",
    "  reward:",
    `    range: [${low.toFixed(1)}, ${high.toFixed(1)}]`,
    "    oracle_tolerance: 0.0",
    "    floor_margin: 0.1",
    "  resources:",
    "    cpu: 1.0",
    "    memory_mb: 1024",
    "    disk_mb: 512",
    "    episode_timeout_s: 600.0",
    "  capabilities:",
    "    verifier:",
    "      kind: reward_channel",
    "  types:",
    `    tags: [${manifest.skills.map((skill) => JSON.stringify(skill)).join(", ")}]`,
    "",
  ].join("\n");
}

function clientSource(stem: string): string {
  return `"""The OpenEnv client of this environment (one WebSocket session per client)."""

from typing import Any, Dict

from openenv.core import EnvClient
from openenv.core.client_types import StepResult
from openenv.core.env_server.types import State

from .models import ${stem}Action, ${stem}Observation


class ${stem}Env(EnvClient[${stem}Action, ${stem}Observation, State]):
    """reset(seed=, level=) and step(${stem}Action(message=...)); the observation's metadata carries terminated, truncated, info, return, won."""

    def _step_payload(self, action: ${stem}Action) -> Dict[str, Any]:
        return {"message": action.message}

    def _parse_result(self, payload: Dict[str, Any]) -> StepResult[${stem}Observation]:
        data = payload.get("observation", {})
        observation = ${stem}Observation(
            text=data.get("text", ""),
            done=payload.get("done", False),
            reward=payload.get("reward"),
            metadata=data.get("metadata", {}),
        )
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: Dict[str, Any]) -> State:
        return State(**payload)
`;
}

function environmentSource(stem: string, runtime: string): string {
  return `"""The OpenEnv environment: envforge's program through ${runtime}.py (unsandboxed unless ENVFORGE_SERVER_URL names an envforge serve)."""

import random
from typing import Any, Optional
from uuid import uuid4

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import State

try:
    from ..${runtime} import open_episode, provenance
    from ..models import ${stem}Action, ${stem}Observation
except ImportError:  # run from the package folder (uvicorn server.app:app, as openenv.yaml says)
    from ${runtime} import open_episode, provenance
    from models import ${stem}Action, ${stem}Observation


class ${stem}Environment(Environment):
    SUPPORTS_CONCURRENT_SESSIONS: bool = True

    def __init__(self) -> None:
        super().__init__()
        self._episode = open_episode()
        self._env_id = provenance()["id"]
        self._state = State(episode_id=str(uuid4()), step_count=0)

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, level: Optional[int] = None, **kwargs: Any) -> ${stem}Observation:
        chosen_seed = int(seed) if seed is not None else random.randrange(2**31 - 1)
        text = self._episode.reset(chosen_seed, level)
        chosen_level = 0 if level is None else int(level)
        self._state = State(episode_id=episode_id or str(uuid4()), step_count=0, seed=chosen_seed, level=chosen_level, env_id=self._env_id)
        return ${stem}Observation(text=text, done=False, reward=0.0, metadata={"env_id": self._env_id, "seed": chosen_seed, "level": chosen_level, "step": 0})

    def step(self, action: ${stem}Action, timeout_s: Optional[float] = None, **kwargs: Any) -> ${stem}Observation:
        text, reward, terminated, truncated, info = self._episode.step(action.message)
        self._state.step_count += 1
        metadata = {"env_id": self._env_id, "step": self._state.step_count, "terminated": terminated, "truncated": truncated, "info": info}
        if terminated or truncated:
            metadata.update({"return": self._episode.episode_return(), "won": self._episode.won()})
        return ${stem}Observation(text=text, done=terminated or truncated, reward=reward, metadata=metadata)

    @property
    def state(self) -> State:
        return self._state
`;
}

function appSource(stem: string, module: string): string {
  return `"""The FastAPI app of this environment (OpenEnv's create_app): python -m ${module}.server.app --port 8000."""

from openenv.core.env_server.http_server import create_app

try:
    from ..models import ${stem}Action, ${stem}Observation
    from .${module}_environment import ${stem}Environment
except ImportError:  # run from the package folder (uvicorn server.app:app, as openenv.yaml says)
    from models import ${stem}Action, ${stem}Observation
    from server.${module}_environment import ${stem}Environment

app = create_app(${stem}Environment, ${stem}Action, ${stem}Observation, env_name=${JSON.stringify(module)}, max_concurrent_envs=64)


def main() -> None:
    import argparse

    import uvicorn

    parser = argparse.ArgumentParser(description="Serve this OpenEnv environment")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    uvicorn.run(app, host=args.host, port=args.port)


if __name__ == "__main__":
    main()
`;
}
