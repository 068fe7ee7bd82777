"""One episode of an envforge environment as a Harbor task (`envforge export env --format harbor`).

Standard library only. Beside this file: `envforge_episode.py` (envforge's episode rules), `program/` (the
environment program and manifest as envforge admitted them) and `task.json` (this task's seed and level). The
same file serves the three parties of a Harbor trial:

- the agent, in the container: `python3 /app/envforge_task.py` shows the current observation and
  `python3 /app/envforge_task.py act "TEXT"` sends one reply; replies are logged in `episode/actions.json`;
- the verifier (`tests/test.sh`): `python3 /tests/envforge_task.py verify ACTIONS_FILE LOG_DIR` replays the
  logged replies against its own copy of the program, seed and level (the agent's copies may have been
  edited), and writes the reward to `LOG_DIR/reward.txt` (1 when the episode is won, else 0) and the replay
  to `LOG_DIR/episode.json`;
- the oracle (`solution/solve.sh`): `python3 /app/envforge_task.py solve ORACLE_FILE` plays the reference
  policy's replies through the same `act` path.

An episode's state is its replies: every call replays them from `reset(seed, level)`, which gives the same
instance because envforge admits only programs that are deterministic per (seed, level).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

from envforge_episode import LocalEpisode, load_module

HERE = Path(__file__).resolve().parent
TASK = json.loads((HERE / "task.json").read_text(encoding="utf-8"))
ACTIONS = HERE / "episode" / "actions.json"
MAX_ACTION_CHARS = 2000


def replay(actions: List[str]) -> Tuple[LocalEpisode, str, List[Dict[str, Any]]]:
    """The episode after `actions`, its latest observation and one record per step."""
    episode = LocalEpisode()
    observation = episode.reset(int(TASK["seed"]), TASK.get("level"))
    steps: List[Dict[str, Any]] = []
    for action in actions:
        if episode.done:
            break
        observation, reward, terminated, truncated, _ = episode.step(action)
        steps.append({"action": action, "observation": observation, "reward": reward, "terminated": terminated, "truncated": truncated})
    return episode, observation, steps


def read_actions(path: Path) -> List[str]:
    """The logged replies; a missing log is no reply; a log that is not a list of strings is an error."""
    if not path.exists():
        return []
    try:
        actions = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ValueError(f"{path} cannot be read: {error}") from error
    if not isinstance(actions, list) or not all(isinstance(action, str) for action in actions):
        raise ValueError(f"{path} must hold a JSON list of strings")
    return actions


def status(episode: LocalEpisode, turns: int) -> str:
    limit = int(episode.manifest["maxTurns"])
    if episode.done:
        return f"[the episode is over after {turns} replies: return {episode.episode_return()}, {'won' if episode.won() else 'not won'}]"
    return f"[reply {turns + 1} of at most {limit}: python3 {shlex.quote(str(HERE / 'envforge_task.py'))} act \"YOUR REPLY\"]"


def act(text: str) -> int:
    actions = read_actions(ACTIONS)
    episode, _, _ = replay(actions)
    if episode.done:
        print(status(episode, len(actions)))
        return 1
    action = text[:MAX_ACTION_CHARS]
    observation, reward, _, _, _ = episode.step(action)
    actions.append(action)
    ACTIONS.parent.mkdir(parents=True, exist_ok=True)
    ACTIONS.write_text(json.dumps(actions), encoding="utf-8")
    print(observation)
    print(f"[reward {reward}] {status(episode, len(actions))}")
    return 0


def verify(actions_file: str, log_dir: str) -> int:
    logs = Path(log_dir)
    logs.mkdir(parents=True, exist_ok=True)
    try:
        actions = read_actions(Path(actions_file))
    except (ValueError, json.JSONDecodeError) as error:
        (logs / "reward.txt").write_text("0\n", encoding="utf-8")
        (logs / "episode.json").write_text(json.dumps({"error": str(error)}), encoding="utf-8")
        return 0
    try:
        episode, _, steps = replay([action[:MAX_ACTION_CHARS] for action in actions])
    except Exception as error:  # the program failed on a logged reply: no reward, and say why
        (logs / "reward.txt").write_text("0\n", encoding="utf-8")
        (logs / "episode.json").write_text(json.dumps({"error": f"{type(error).__name__}: {error}"}), encoding="utf-8")
        return 0
    won = episode.done and episode.won()
    record = {"seed": TASK["seed"], "level": TASK.get("level"), "steps": steps, "return": episode.episode_return(), "won": won, "finished": episode.done}
    (logs / "episode.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    (logs / "reward.txt").write_text("1\n" if won else "0\n", encoding="utf-8")
    print(f"replayed {len(steps)} replies: return {record['return']}, {'won' if won else 'not won'}")
    return 0


def solve(oracle_file: str) -> int:
    oracle = load_module(Path(oracle_file), "envforge_oracle")
    while True:
        actions = read_actions(ACTIONS)
        episode, observation, _ = replay(actions)
        if episode.done:
            print(status(episode, len(actions)))
            return 0
        act(str(oracle.act(episode._env, observation)))  # noqa: SLF001 (the oracle reads the live instance)


def main(argv: List[str]) -> int:
    if not argv or argv == ["show"]:
        actions = read_actions(ACTIONS)
        episode, observation, _ = replay(actions)
        print(observation)
        print(status(episode, len(actions)))
        return 0
    if argv[0] == "act" and len(argv) >= 2:
        return act(" ".join(argv[1:]))
    if argv[0] == "verify" and len(argv) == 3:
        return verify(argv[1], argv[2])
    if argv[0] == "solve" and len(argv) == 2:
        return solve(argv[1])
    print('usage: envforge_task.py [show] | act "TEXT" | verify ACTIONS_FILE LOG_DIR | solve ORACLE_FILE', file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
