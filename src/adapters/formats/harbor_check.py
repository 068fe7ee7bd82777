"""Checks exported Harbor tasks with Harbor's own task model and a trial played without Docker (test helper).

stdin: {"tasks": [{"folder": ..., "actions": [...]}]}. For each task folder: Harbor 0.25's `TaskConfig` parses
task.toml and `TaskPaths` finds instruction.md, environment/, the test script and the solve script (Harbor's
`Task` class needs Python 3.12, which this machine lacks; these two load on 3.11). Then four trials, each on a
fresh copy of environment/app standing in for the container's /app: the solution (solution/solve.sh) then the
verifier (tests/test.sh); the given actions played through the agent's command, with the observations it
printed; no reply at all; and a tampered /app (its program rewards every reply) with one wrong reply.
stdout: one JSON report.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from harbor.models.task.config import TaskConfig
from harbor.models.task.paths import TaskPaths


def trial(task: Path, work: Path, name: str, play) -> dict:
    app = work / name / "app"
    logs = work / name / "logs"
    shutil.copytree(task / "environment" / "app", app)
    env = {**os.environ, "ENVFORGE_APP_DIR": str(app), "ENVFORGE_VERIFIER_LOGS": str(logs)}
    played = play(app, env)
    verified = subprocess.run(["bash", str(task / "tests" / "test.sh")], env=env, capture_output=True, text=True, timeout=120)
    reward = (logs / "reward.txt").read_text().strip() if (logs / "reward.txt").exists() else None
    episode = json.loads((logs / "episode.json").read_text()) if (logs / "episode.json").exists() else None
    return {"played": played, "verifier_exit": verified.returncode, "reward": reward, "episode": episode}


def check(folder: str, actions: list) -> dict:
    task = Path(folder)
    config = TaskConfig.model_validate_toml((task / "task.toml").read_text())
    paths = TaskPaths(task)
    report = {
        "name": config.task.name if config.task else None,
        "difficulty": str(config.metadata.get("difficulty")) if isinstance(config.metadata, dict) else None,
        "instruction": paths.instruction_path.is_file(),
        "dockerfile": (paths.environment_dir / "Dockerfile").is_file(),
        "test": str(paths.discovered_test_path.relative_to(task)) if paths.discovered_test_path else None,
        "solve": str(paths.discovered_solve_path.relative_to(task)) if paths.discovered_solve_path else None,
        "oracle_in_environment": any(path.name == "oracle.py" for path in paths.environment_dir.rglob("*")),
        "hint_in_environment": "hint" in json.loads((paths.environment_dir / "app" / "program" / "env.json").read_text()),
        "hint_for_verifier": "hint" in json.loads((task / "tests" / "program" / "env.json").read_text()),
        # envforge plays programs with PYTHONHASHSEED=0; the container, the verifier and the solution must too
        "hash_seed": [
            "ENV PYTHONHASHSEED=0" in (paths.environment_dir / "Dockerfile").read_text(),
            "export PYTHONHASHSEED=0" in (task / "tests" / "test.sh").read_text(),
            "export PYTHONHASHSEED=0" in (task / "solution" / "solve.sh").read_text(),
        ],
    }
    work = Path(tempfile.mkdtemp(prefix="harbor-trial-"))
    try:
        report["solution"] = trial(task, work, "solution", lambda app, env: subprocess.run(
            ["bash", str(task / "solution" / "solve.sh")], env=env, capture_output=True, text=True, timeout=120).returncode)

        def replay(app, env):
            outputs = []
            for action in actions:
                done = subprocess.run([sys.executable, str(app / "envforge_task.py"), "act", action], env=env, capture_output=True, text=True, timeout=60)
                outputs.append(done.stdout.rsplit("\n[reward", 1)[0])
            return outputs

        report["actions"] = trial(task, work, "actions", replay)
        report["no_reply"] = trial(task, work, "no_reply", lambda app, env: None)

        def tampered(app, env):
            # the agent rewrites its copy of the program to reward anything, then replies wrongly
            program = app / "program" / "env.py"
            program.write_text(program.read_text() + "\n\n_original_step = [c for c in list(globals().values()) if isinstance(c, type) and hasattr(c, 'step')][0].step\n"
                               "def _always_win(self, action):\n    return 'won', 1.0, True, False, {}\n"
                               "[c for c in list(globals().values()) if isinstance(c, type) and hasattr(c, 'step')][0].step = _always_win\n")
            return subprocess.run([sys.executable, str(app / "envforge_task.py"), "act", "definitely not the answer"], env=env, capture_output=True, text=True, timeout=60).stdout

        report["tampered"] = trial(task, work, "tampered", tampered)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report


def main() -> None:
    request = json.load(sys.stdin)
    print(json.dumps({"tasks": [check(item["folder"], item["actions"]) for item in request["tasks"]]}))


if __name__ == "__main__":
    main()
