"""Checks exported Gymnasium packages with Gymnasium's own tools and replays episodes; prints a JSON report.

Usage: python gymnasium_check.py < request.json, where request = {"packages": [[module, env_id], ...],
"episodes": [{"id", "seed", "level", "actions": [...]}, ...], "check"?: false (skip check_env), "oracle"?: false
(skip the oracle replay)}. Run by src/adapters/formats/export-formats.test.ts
in a fresh virtualenv holding gymnasium and the exported packages.
"""

import importlib
import json
import sys
import warnings

import gymnasium
from gymnasium.utils.env_checker import check_env

request = json.load(sys.stdin)
report = {"gymnasium": gymnasium.__version__, "warnings": {}, "episodes": []}
for module, env_id in request["packages"]:
    importlib.import_module(module)
    if not request.get("check", True):
        continue
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gymnasium.make(env_id).unwrapped)
    report["warnings"][env_id] = [str(warning.message) for warning in caught]

for episode in request["episodes"]:
    env = gymnasium.make(episode["id"])
    observation, info = env.reset(seed=episode["seed"], options={"level": episode["level"]})
    steps = []
    for action in episode["actions"]:
        observation_after, reward, terminated, truncated, step_info = env.step(action)
        steps.append({"observation": observation_after, "reward": reward, "terminated": terminated, "truncated": truncated})
        if terminated or truncated:
            break
    if not request.get("oracle", True):  # remote episodes (ENVFORGE_SERVER_URL): the oracle runs on no side
        report["episodes"].append({"initial": observation, "info": info, "steps": steps, "last_info": step_info, "kind": type(env.unwrapped._episode).__name__})
        continue
    oracle_env = gymnasium.make(episode["id"])
    oracle_observation, _ = oracle_env.reset(seed=episode["seed"], options={"level": episode["level"]})
    oracle_actions = []
    done = False
    while not done:
        action = oracle_env.unwrapped.oracle_action(oracle_observation)
        oracle_actions.append(action)
        oracle_observation, _, terminated, truncated, oracle_info = oracle_env.step(action)
        done = terminated or truncated
    report["episodes"].append({"initial": observation, "info": info, "steps": steps, "last_info": step_info, "oracle_actions": oracle_actions, "oracle_won": oracle_info["won"]})
print(json.dumps(report))
