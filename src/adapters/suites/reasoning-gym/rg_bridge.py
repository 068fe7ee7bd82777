"""Reasoning Gym bridge of `envforge eval`: JSON lines over stdin/stdout.

Each request is one JSON object on one line, ``{"id": N, "op": ..., ...}``; each answer is one
line ``{"id": N, "ok": true, ...}`` or ``{"id": N, "ok": false, "error": {"code", "message"}}``.

ops:
  info      -> {"version", "systemPrompt", "tasks": [{"name", "category"}]}
  generate  {task, config, seed, size}            -> {"items": [{"index", "question", "answer"}]}
  score     {task, config, seed, size, index, answer} -> {"score"}

Items are regenerated from (task, config, seed, size), so a scorer needs no state from an earlier
process (a resumed evaluation scores with a fresh bridge). Error codes: ``unknown_task``,
``invalid_config``, ``generation_failed``, ``scorer_crashed``, ``scorer_invalid``, ``bad_request``.
Anything a task prints goes to stderr; only answers reach stdout.
"""

import json
import os
import sys
import traceback
import warnings

warnings.simplefilter("ignore")

# the shared protocol (one folder up): -I leaves the script's folder off sys.path
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bridge_protocol import BridgeError, claim_stdout, serve  # noqa: E402

# the protocol owns the real stdout; everything else (library prints, C-level writes) goes to stderr
_protocol = claim_stdout()

import importlib.metadata  # noqa: E402

import reasoning_gym  # noqa: E402
from reasoning_gym.factory import DATASETS  # noqa: E402
from reasoning_gym.utils import SYSTEM_PROMPTS  # noqa: E402

_datasets = {}


def _category(name):
    """Reasoning Gym's own category of a task: the package folder its dataset class lives in."""
    module = DATASETS[name][0].__module__.split(".")
    return module[1] if len(module) > 2 else "unknown"


def _dataset(request):
    task = request.get("task")
    if not isinstance(task, str) or task not in DATASETS:
        raise BridgeError("unknown_task", f"Reasoning Gym has no task {task!r}")
    config = request.get("config") or {}
    seed = request.get("seed")
    size = request.get("size")
    if not isinstance(config, dict) or not isinstance(seed, int) or not isinstance(size, int) or size < 1:
        raise BridgeError("bad_request", "generate and score need config (object), seed (integer) and size (integer >= 1)")
    key = json.dumps([task, config, seed, size], sort_keys=True)
    if key not in _datasets:
        try:
            _datasets[key] = reasoning_gym.create_dataset(task, seed=seed, size=size, **config)
        except (TypeError, ValueError, AssertionError, KeyError) as error:
            raise BridgeError("invalid_config", f"{task}: {type(error).__name__}: {error}") from error
        except Exception as error:  # a generator that fails for other reasons
            raise BridgeError("generation_failed", f"{task}: {type(error).__name__}: {error}") from error
        if len(_datasets) > 64:
            _datasets.pop(next(iter(_datasets)))
    return _datasets[key]


def _entry(dataset, task, index):
    if not isinstance(index, int) or not 0 <= index < len(dataset):
        raise BridgeError("bad_request", f"item index {index!r} outside 0..{len(dataset) - 1}")
    try:
        return dataset[index]
    except Exception as error:
        raise BridgeError("generation_failed", f"{task} item {index}: {type(error).__name__}: {error}") from error


def _handle(request):
    op = request.get("op")
    if op == "info":
        return {
            "version": importlib.metadata.version("reasoning_gym"),
            "systemPrompt": SYSTEM_PROMPTS["default"],
            "tasks": [{"name": name, "category": _category(name)} for name in sorted(DATASETS)],
        }
    if op == "generate":
        dataset = _dataset(request)
        items = []
        for index in range(len(dataset)):
            entry = _entry(dataset, request["task"], index)
            items.append({"index": index, "question": str(entry["question"]), "answer": None if entry.get("answer") is None else str(entry["answer"])})
        return {"items": items}
    if op == "score":
        dataset = _dataset(request)
        entry = _entry(dataset, request["task"], request.get("index"))
        answer = request.get("answer")
        if answer is not None and not isinstance(answer, str):
            raise BridgeError("bad_request", "answer must be a string or null")
        try:
            score = dataset.score_answer(answer=answer, entry=entry)
        except Exception as error:
            frame = traceback.extract_tb(error.__traceback__)[-1]
            raise BridgeError("scorer_crashed", f"{request['task']}.score_answer raised {type(error).__name__}: {error} ({os.path.basename(frame.filename)}:{frame.lineno})") from error
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0.0 <= float(score) <= 1.0:
            raise BridgeError("scorer_invalid", f"{request['task']}.score_answer returned {score!r}, not a number in [0, 1]")
        return {"score": float(score)}
    raise BridgeError("bad_request", f"unknown op {op!r}")


def main():
    serve(_handle, _protocol)


if __name__ == "__main__":
    main()
