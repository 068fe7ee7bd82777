"""Drives an `envforge serve` server with openenv-core's own clients and prints what they saw as JSON.

Usage: python openenv_client_drive.py BASE_URL [TOKEN]
Run by src/server/openenv-client.test.ts with .venv-openenv's interpreter (scripts/setup.sh installs it).
"""

import asyncio
import json
import sys
from typing import Any, Dict
from urllib.parse import urlsplit, urlunsplit

from openenv.core import EnvClient, GenericEnvClient
from openenv.core.client_types import StepResult

BASE_URL = sys.argv[1]
TOKEN = sys.argv[2] if len(sys.argv) > 2 else None


class EnvforgeEnv(EnvClient[Dict[str, Any], Dict[str, Any], Dict[str, Any]]):
    """A typed EnvClient for envforge environments: actions are text replies, observations text plus metadata."""

    def _step_payload(self, action: Dict[str, Any]) -> Dict[str, Any]:
        return {"message": action["message"]}

    def _parse_result(self, payload: Dict[str, Any]) -> StepResult[Dict[str, Any]]:
        observation = payload["observation"]
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: Dict[str, Any]) -> Dict[str, Any]:
        return payload


def with_token(url: str, token: str) -> str:
    """The URL with the token as the password of its user info: OpenEnv's client then sends HTTP Basic auth."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, f"trainer:{token}@{parts.netloc}", parts.path, parts.query, parts.fragment))


def error_text(call) -> str:
    try:
        call()
    except Exception as error:  # the client raises RuntimeError("Server error: ... (code: ...)")
        return f"{type(error).__name__}: {error}"
    return "no error"


def main() -> None:
    url = with_token(BASE_URL, TOKEN) if TOKEN else BASE_URL
    report: Dict[str, Any] = {}

    # GenericEnvClient through its sync wrapper: a whole number-guess episode by binary search
    with GenericEnvClient(base_url=url).sync() as env:
        result = env.reset(env="number-guess", seed=3)
        report["reset"] = {"observation": result.observation, "reward": result.reward, "done": result.done}
        high = int(result.observation["text"].split("from 1 to ")[1].split(".")[0])
        low, steps = 1, []
        while not result.done:
            guess = (low + high) // 2
            result = env.step({"message": f"Guess: {guess}"})
            steps.append({"text": result.observation["text"], "reward": result.reward, "done": result.done})
            if "higher" in result.observation["text"]:
                low = guess + 1
            elif "lower" in result.observation["text"]:
                high = guess - 1
        report["steps"] = steps
        report["last_metadata"] = result.observation["metadata"]
        report["state"] = env.state()
        report["step_after_done"] = error_text(lambda: env.step({"message": "Guess: 1"}))
        report["unknown_env"] = error_text(lambda: env.reset(env="no-such-env"))
        report["bad_action"] = error_text(lambda: (env.reset(env="echo", seed=1), env.step({"text": "wrong key"})))
        report["after_errors"] = env.step({"message": "win"}).reward
        # levels: reset data {"level": n} builds that level's instance; one outside the range is a validation error
        levelled = env.reset(env="level-sum", seed=3, level=2)
        report["levelled"] = {"text": levelled.observation["text"], "level": levelled.observation["metadata"].get("level"), "state_level": env.state().get("level")}
        report["level_out_of_range"] = error_text(lambda: env.reset(env="level-sum", seed=3, level=99))

    # a typed EnvClient subclass, async
    async def typed() -> Dict[str, Any]:
        async with EnvforgeEnv(base_url=url) as env:
            first = await env.reset(env="echo", seed=9)
            second = await env.step({"message": "hi"})
            return {"first": first.observation["text"], "second": second.observation["text"], "turn": second.observation["metadata"]["info"]["turn"]}

    report["typed"] = asyncio.run(typed())

    # determinism: the same seed twice gives the same first observation; and 64 sessions at once, each its own episode
    async def concurrent() -> Dict[str, Any]:
        async def one(index: int) -> str:
            async with GenericEnvClient(base_url=url) as env:
                await env.reset(env="echo", seed=index)
                result = await env.step({"message": f"from {index}"})
                return result.observation["text"]

        texts = await asyncio.gather(*(one(index) for index in range(64)))
        return {"texts": texts}

    with GenericEnvClient(base_url=url).sync() as env:
        report["same_seed"] = [env.reset(env="subset-sum", seed=11).observation["text"] for _ in range(2)]
    report["concurrent"] = asyncio.run(concurrent())
    print(json.dumps(report))


if __name__ == "__main__":
    main()
