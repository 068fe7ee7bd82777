"""Episodes of an environment exported by envforge (`envforge export env`), outside envforge.

Standard library only. The package's `program/` folder holds the environment exactly as envforge admitted it:
`env.py` (one class with `reset(seed[, level])` and `step(action)`), `oracle.py` (`act(env, observation)`),
`env.json` (the manifest: levels, maxTurns, reward range, pass threshold, hint) and `provenance.json`.

Two ways to play it, one interface (`reset`, `step`, `oracle_action`, `episode_return`):
- `LocalEpisode` runs the program IN THIS PROCESS, WITHOUT envforge's sandbox: no jail, no seccomp filter, no
  time or memory limits. Do this only with programs you trust (a seed, or one you have read).
- `RemoteEpisode` plays the same environment in a running `envforge serve` (episodes run in its jails), over
  its HTTP episode routes. `open_episode()` picks it when `ENVFORGE_SERVER_URL` is set (and sends
  `ENVFORGE_SERVE_TOKEN` as the bearer token when set).

The rules are envforge's: a levelled family is reset as `reset(seed, level)` (level 0 to count - 1; default 0),
a family of one level as `reset(seed)`; an episode ends when the environment terminates or truncates, or after
`maxTurns` steps (truncated); the return is the sum of the rewards clipped to the reward range; the episode is
won when the return reaches the pass threshold.
"""

from __future__ import annotations

import json
import os
import types
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

PROGRAM = Path(__file__).resolve().parent / "program"

StepResult = Tuple[str, float, bool, bool, Dict[str, Any]]


def manifest() -> Dict[str, Any]:
    """The environment's manifest (`program/env.json`)."""
    return json.loads((PROGRAM / "env.json").read_text(encoding="utf-8"))


def provenance() -> Dict[str, Any]:
    """Where the environment came from: envforge's id, the sha256 of each program file, admission verdicts, lineage."""
    return json.loads((PROGRAM / "provenance.json").read_text(encoding="utf-8"))


def level_count() -> int:
    """How many levels the family has (1 for a family of one level)."""
    levels = manifest().get("levels")
    return int(levels["count"]) if levels else 1


class EpisodeError(RuntimeError):
    """A call the episode cannot take: a level outside the family's levels, a step before reset or after the end."""


def _load(name: str) -> types.ModuleType:
    return load_module(PROGRAM / f"{name}.py", f"envforge_program_{name}")


def load_module(path: Path, name: str) -> types.ModuleType:
    """Runs the Python file `path` as a module named `name` (not added to sys.modules)."""
    module = types.ModuleType(name)
    module.__file__ = str(path)
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)
    return module


def _environment_class(module: types.ModuleType) -> type:
    candidates = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and value.__module__ == module.__name__
        and callable(getattr(value, "reset", None))
        and callable(getattr(value, "step", None))
    ]
    if len(candidates) != 1:
        raise LookupError(f"env.py must define exactly one class with reset() and step(); found {[c.__name__ for c in candidates]}")
    return candidates[0]


class _Rules:
    """What both episode kinds share: the manifest's levels, turn limit, reward range and threshold."""

    def __init__(self) -> None:
        self.manifest = manifest()
        self.levelled = self.manifest.get("levels") is not None
        self.rewards: List[float] = []
        self.done = True

    def check_level(self, level: Optional[int]) -> Optional[int]:
        if not self.levelled:
            if level not in (None, 0):
                raise EpisodeError(f"level {level} is outside {self.manifest['name']}'s levels: it has one level (0)")
            return None
        chosen = 0 if level is None else int(level)
        count = int(self.manifest["levels"]["count"])
        if not 0 <= chosen < count:
            raise EpisodeError(f"level {chosen} is outside {self.manifest['name']}'s levels: 0..{count - 1}")
        return chosen

    def record(self, reward: float, terminated: bool, truncated: bool) -> Tuple[bool, bool]:
        self.rewards.append(float(reward))
        truncated = truncated or (not terminated and len(self.rewards) >= int(self.manifest["maxTurns"]))
        self.done = terminated or truncated
        return terminated, truncated

    def episode_return(self) -> float:
        """The sum of the episode's rewards clipped to the manifest's reward range."""
        low, high = self.manifest["rewardRange"]
        return min(high, max(low, sum(self.rewards)))

    def won(self) -> bool:
        """Whether the return reached the pass threshold."""
        return self.episode_return() >= self.manifest["passThreshold"]


class LocalEpisode(_Rules):
    """Plays the program in this process, WITHOUT a sandbox (see the module's docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self._class = _environment_class(_load("env"))
        self._oracle = None
        self._env: Any = None

    def reset(self, seed: int, level: Optional[int] = None) -> str:
        chosen = self.check_level(level)
        self._env = self._class()
        observation = self._env.reset(int(seed)) if chosen is None else self._env.reset(int(seed), chosen)
        if not isinstance(observation, str):
            raise TypeError(f"reset() must return str, got {type(observation).__name__}")
        self.rewards, self.done = [], False
        return observation

    def step(self, action: str) -> StepResult:
        if self._env is None:
            raise EpisodeError("step before reset: call reset(seed, level) first")
        if self.done:
            raise EpisodeError("the episode is over: call reset to start the next one")
        result = self._env.step(str(action))
        if not (isinstance(result, tuple) and len(result) == 5):
            raise TypeError("step() must return a 5-tuple (observation, reward, terminated, truncated, info)")
        observation, reward, terminated, truncated, info = result
        terminated, truncated = self.record(float(reward), bool(terminated), bool(truncated))
        return str(observation), float(reward), terminated, truncated, dict(info or {})

    def oracle_action(self, observation: str) -> str:
        """The reference policy's action (`oracle.py`'s `act(env, observation)`), which reads the live instance."""
        if self._env is None:
            raise EpisodeError("oracle before reset: call reset(seed, level) first")
        if self._oracle is None:
            self._oracle = _load("oracle")
        return str(self._oracle.act(self._env, observation))


class RemoteEpisode(_Rules):
    """Plays the environment in a running `envforge serve` (jailed there), by its content id, over HTTP."""

    def __init__(self, server_url: str, token: Optional[str] = None, timeout_s: float = 60.0) -> None:
        super().__init__()
        self.server_url = server_url.rstrip("/")
        self.token = token
        self.timeout_s = timeout_s
        self.env_id = provenance()["id"]
        self._episode_id: Optional[str] = None

    def _post(self, path: str, body: Dict[str, Any]) -> Dict[str, Any]:
        headers = {"content-type": "application/json"}
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.server_url + path, data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            detail = json.loads(error.read() or b"{}").get("detail", error.reason)
            raise EpisodeError(f"{self.server_url}{path}: {error.code}: {detail}") from None

    def reset(self, seed: int, level: Optional[int] = None) -> str:
        chosen = self.check_level(level)
        payload = self._post("/reset", {"env": self.env_id, "seed": int(seed), **({} if chosen is None else {"level": chosen})})
        self._episode_id = payload["observation"]["metadata"]["episode_id"]
        self.rewards, self.done = [], False
        return payload["observation"]["text"]

    def step(self, action: str) -> StepResult:
        if self._episode_id is None:
            raise EpisodeError("step before reset: call reset(seed, level) first")
        payload = self._post("/step", {"action": {"message": str(action)}, "episode_id": self._episode_id})
        metadata = payload["observation"]["metadata"]
        terminated, truncated = self.record(float(payload["reward"]), bool(metadata["terminated"]), bool(metadata["truncated"]))
        info = dict(metadata.get("info", {}))
        if "failure" in metadata:
            info["failure"] = metadata["failure"]
        return payload["observation"]["text"], float(payload["reward"]), terminated, truncated or (payload["done"] and not terminated), info

    def oracle_action(self, observation: str) -> str:
        raise EpisodeError("the oracle reads the live instance, which runs on the server: play the oracle locally (LocalEpisode) or not at all")


def open_episode(server_url: Optional[str] = None, token: Optional[str] = None):
    """A `RemoteEpisode` when a server is named (here or in `ENVFORGE_SERVER_URL`), else a `LocalEpisode` (unsandboxed)."""
    url = server_url or os.environ.get("ENVFORGE_SERVER_URL")
    if url:
        return RemoteEpisode(url, token or os.environ.get("ENVFORGE_SERVE_TOKEN"))
    return LocalEpisode()
