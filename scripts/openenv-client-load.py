"""Load from OpenEnv's own Python client: SESSIONS concurrent GenericEnvClient sessions play number-guess by binary
search for SECONDS seconds against BASE_URL (envforge serve or OpenEnv's server); prints {"steps", "seconds", "p50Ms",
"p99Ms", "errors", "client"} as JSON.

Usage: python openenv-client-load.py BASE_URL SESSIONS SECONDS
Run by `envforge bench serve --clients` with .venv-openenv's (openenv-core 0.3.0) and .venv-openenv10's (openenv 0.10.0) interpreters.
"""

import asyncio
import importlib.metadata
import json
import re
import sys
import time

from openenv.core import GenericEnvClient

BASE_URL, SESSIONS, SECONDS = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
RANGE = re.compile(r"from 1 to (\d+)")


async def session(index: int, deadline: float, latencies: list, errors: list) -> int:
    steps = 0
    try:
        async with GenericEnvClient(base_url=BASE_URL, message_timeout_s=120.0) as env:
            episode = 0
            while time.monotonic() < deadline:
                result = await env.reset(seed=index * 1000 + episode)
                episode += 1
                match = RANGE.search(result.observation["text"])
                low, high = 1, int(match.group(1)) if match else 1000
                while not result.done and time.monotonic() < deadline:
                    guess = (low + high) // 2
                    started = time.perf_counter()
                    result = await env.step({"message": f"Guess: {guess}"})
                    latencies.append((time.perf_counter() - started) * 1000)
                    steps += 1
                    text = result.observation["text"]
                    if "higher" in text:
                        low = guess + 1
                    elif "lower" in text:
                        high = guess - 1
    except Exception as error:  # counted, not fatal: the figure says how many sessions failed
        errors.append(f"{type(error).__name__}: {error}")
    return steps


async def main() -> None:
    latencies: list = []
    errors: list = []
    started = time.monotonic()
    counts = await asyncio.gather(*(session(index, started + SECONDS, latencies, errors) for index in range(SESSIONS)))
    elapsed = time.monotonic() - started
    latencies.sort()
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] if latencies else 0.0
    name = "openenv" if any(d.metadata["Name"] == "openenv" for d in importlib.metadata.distributions()) else "openenv-core"
    client = f"{name} {importlib.metadata.version(name)}"
    print(json.dumps({"client": client, "steps": sum(counts), "seconds": elapsed, "p50Ms": pick(0.5), "p99Ms": pick(0.99), "errors": len(errors), "firstError": errors[0] if errors else None}))


asyncio.run(main())
