"""OpenEnv's own server (openenv-core's create_app under uvicorn) hosting one envforge environment package.

The baseline of `envforge bench serve`: the same env.py, played the way OpenEnv plays environments
(in the server's process, one thread per session, no sandbox), so the two servers are compared on
the same environment. Not for untrusted code: nothing here isolates the environment.

Usage: .venv-openenv/bin/python scripts/openenv-baseline-server.py PACKAGE_DIR PORT MAX_SESSIONS
Prints "ready" on stdout once it listens on 127.0.0.1:PORT.
"""

import os
import sys
import types
from typing import Any, Dict, Optional

import uvicorn
from openenv.core.env_server import Environment, create_app
from openenv.core.env_server.types import Action, Observation, State

PACKAGE_DIR, PORT, MAX_SESSIONS = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

with open(os.path.join(PACKAGE_DIR, "env.py"), encoding="utf-8") as source_file:
    SOURCE = source_file.read()
MODULE = types.ModuleType("envforge_env")
exec(compile(SOURCE, "env.py", "exec"), MODULE.__dict__)  # noqa: S102 - the baseline runs trusted seed code unsandboxed
ENV_CLASS = next(
    value
    for value in vars(MODULE).values()
    if isinstance(value, type) and value.__module__ == "envforge_env" and callable(getattr(value, "reset", None)) and callable(getattr(value, "step", None))
)


class TextAction(Action):
    """The agent's reply (the same action shape envforge serves)."""

    message: str


class TextObservation(Observation):
    """The environment's text; Gymnasium's flags and info in metadata."""

    text: str = ""


class PackageEnvironment(Environment):
    """One envforge environment instance per OpenEnv session."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self) -> None:
        super().__init__()
        self.inner = ENV_CLASS()
        self._state = State(episode_id=None, step_count=0)

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **kwargs: Any) -> TextObservation:
        text = self.inner.reset(0 if seed is None else seed)
        self._state = State(episode_id=episode_id, step_count=0)
        return TextObservation(text=text, done=False, reward=0.0)

    def step(self, action: TextAction, timeout_s: Optional[float] = None, **kwargs: Any) -> TextObservation:
        observation, reward, terminated, truncated, info = self.inner.step(action.message)
        self._state.step_count += 1
        metadata: Dict[str, Any] = {"terminated": bool(terminated), "truncated": bool(truncated), "info": info}
        return TextObservation(text=observation, done=bool(terminated or truncated), reward=float(reward), metadata=metadata)

    @property
    def state(self) -> State:
        return self._state


app = create_app(PackageEnvironment, TextAction, TextObservation, max_concurrent_envs=MAX_SESSIONS)


class ReadyServer(uvicorn.Server):
    """Says "ready" once the socket listens, so the benchmark knows when to start."""

    async def startup(self, sockets=None) -> None:  # type: ignore[override]
        await super().startup(sockets=sockets)
        print("ready", flush=True)


ReadyServer(uvicorn.Config(app, host="127.0.0.1", port=PORT, log_level="warning", backlog=4096, ws_max_size=16 * 1024 * 1024)).run()
