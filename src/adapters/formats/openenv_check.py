"""Plays an exported OpenEnv package through OpenEnv's own discovery and client; prints a JSON report.

Usage: python openenv_check.py BASE_URL < request.json, where request = {"key", "module", "action",
"episodes": [{"seed", "level", "actions": [...]}, ...]} and BASE_URL is the package's running server.
Run by src/adapters/formats/export-formats.test.ts in a fresh virtualenv holding openenv and the package.
"""

import importlib
import json
import sys

from openenv import AutoEnv
from openenv.auto._discovery import get_discovery

request = json.load(sys.stdin)
discovered = get_discovery().discover(use_cache=False)
client_class = AutoEnv.get_env_class(request["key"])
action_class = getattr(importlib.import_module(request["module"]), request["action"])
report = {"discovered": sorted(discovered), "client": f"{client_class.__module__}.{client_class.__name__}", "episodes": []}
for episode in request["episodes"]:
    with client_class(base_url=sys.argv[1]).sync() as env:
        result = env.reset(seed=episode["seed"], level=episode["level"])
        initial = {"text": result.observation.text, "metadata": result.observation.metadata}
        steps = []
        for action in episode["actions"]:
            result = env.step(action_class(message=action))
            metadata = result.observation.metadata
            steps.append({"observation": result.observation.text, "reward": result.reward, "terminated": metadata["terminated"], "truncated": metadata["truncated"], "metadata": metadata})
            if result.done:
                break
        report["episodes"].append({"initial": initial, "steps": steps, "state": env.state().model_dump()})
print(json.dumps(report))
