"""envforge environment runner.

Runs inside the sandbox jail as `python3 -S -s -B runner.py`. It loads one
environment program (env.py) and optionally its oracle (oracle.py), then serves
requests from the supervisor over length-prefixed JSON frames: a 4-byte
big-endian length followed by that many bytes of UTF-8 JSON. Requests arrive on
stdin; replies leave on a private duplicate of the original stdout, while the
program's own prints are redirected to stderr, which the supervisor caps.

Requests:  {"op": "load", "env": str, "oracle": str | null}
           {"op": "reset", "seed": int}
           {"op": "step", "action": str}
           {"op": "oracle", "observation": str}
Replies:   {"ok": true, ...} or {"ok": false, "kind": str, "message": str, "detail": str}
"""

import json
import math
import os
import random
import resource
import struct
import sys
import traceback
import types

PROTOCOL_OUT = os.dup(1)
os.dup2(2, 1)
MAX_REQUEST_BYTES = 16 * 1024 * 1024


def apply_limits(limits):
    """Applies rlimits from the supervisor before any environment code runs."""
    memory = limits.get("memoryBytes")
    if memory:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = limits.get("cpuSeconds")
    if cpu:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    file_bytes = limits.get("fileBytes")
    if file_bytes:
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def read_exact(count):
    chunks = []
    while count > 0:
        chunk = os.read(0, count)
        if not chunk:
            return None
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


def read_request():
    header = read_exact(4)
    if header is None:
        return None
    (length,) = struct.unpack(">I", header)
    if length > MAX_REQUEST_BYTES:
        raise SystemExit(3)
    payload = read_exact(length)
    if payload is None:
        return None
    return json.loads(payload.decode("utf-8"))


def write_reply(reply):
    payload = json.dumps(reply, allow_nan=False, default=repr).encode("utf-8")
    data = struct.pack(">I", len(payload)) + payload
    while data:
        written = os.write(PROTOCOL_OUT, data)
        data = data[written:]


def failure(kind, message, detail=""):
    return {"ok": False, "kind": kind, "message": message, "detail": detail[-8000:]}


def exception_failure(error):
    detail = traceback.format_exc()
    if isinstance(error, MemoryError):
        return failure("memory_limit", "environment ran out of memory", detail)
    return failure("crash", f"{type(error).__name__}: {error}"[:2000], detail)


def load_module(name, source):
    module = types.ModuleType(name)
    module.__file__ = f"<{name}.py>"
    sys.modules[name] = module
    exec(compile(source, f"{name}.py", "exec"), module.__dict__)
    return module


def find_environment_class(module):
    candidates = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and value.__module__ == module.__name__
        and callable(getattr(value, "reset", None))
        and callable(getattr(value, "step", None))
    ]
    if len(candidates) != 1:
        names = [c.__name__ for c in candidates]
        raise LookupError(f"env.py must define exactly one class with reset() and step(); found {names}")
    return candidates[0]


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_step_result(result):
    if not isinstance(result, tuple) or len(result) != 5:
        return None, "step() must return a 5-tuple (observation, reward, terminated, truncated, info)"
    observation, reward, terminated, truncated, info = result
    if not isinstance(observation, str):
        return None, f"observation must be str, got {type(observation).__name__}"
    if not is_number(reward) or not math.isfinite(float(reward)):
        return None, f"reward must be a finite number, got {reward!r:.100}"
    if not isinstance(terminated, bool) or not isinstance(truncated, bool):
        return None, "terminated and truncated must be bool"
    if info is None:
        info = {}
    if not isinstance(info, dict):
        return None, f"info must be a dict, got {type(info).__name__}"
    try:
        info = json.loads(json.dumps(info, allow_nan=False, default=repr))
    except (ValueError, TypeError, RecursionError) as error:
        return None, f"info is not serialisable: {error}"
    return {
        "ok": True,
        "observation": observation,
        "reward": float(reward),
        "terminated": terminated,
        "truncated": truncated,
        "info": info,
    }, None


class Runner:
    def __init__(self):
        self.environment_class = None
        self.oracle = None
        self.environment = None

    def load(self, request):
        apply_limits(request.get("limits") or {})
        module = load_module("env", request["env"])
        self.environment_class = find_environment_class(module)
        oracle_source = request.get("oracle")
        if oracle_source is not None:
            oracle = load_module("oracle", oracle_source)
            if not callable(getattr(oracle, "act", None)):
                raise LookupError("oracle.py must define a function act(env, observation) -> str")
            self.oracle = oracle
        return {"ok": True}

    def reset(self, request):
        seed = int(request["seed"])
        random.seed(seed)
        self.environment = self.environment_class()
        observation = self.environment.reset(seed)
        if not isinstance(observation, str):
            return failure("protocol_violation", f"reset() must return str, got {type(observation).__name__}")
        return {"ok": True, "observation": observation}

    def step(self, request):
        if self.environment is None:
            return failure("protocol_violation", "step() before reset()")
        reply, problem = check_step_result(self.environment.step(str(request["action"])))
        if problem is not None:
            return failure("protocol_violation", problem)
        return reply

    def oracle_action(self, request):
        if self.oracle is None or self.environment is None:
            return failure("protocol_violation", "oracle requested before load with oracle and reset()")
        action = self.oracle.act(self.environment, str(request["observation"]))
        if not isinstance(action, str):
            return failure("protocol_violation", f"oracle act() must return str, got {type(action).__name__}")
        return {"ok": True, "action": action}

    def handle(self, request):
        handlers = {"load": self.load, "reset": self.reset, "step": self.step, "oracle": self.oracle_action}
        handler = handlers.get(request.get("op"))
        if handler is None:
            return failure("protocol_violation", f"unknown op {request.get('op')!r}")
        try:
            return handler(request)
        except BaseException as error:  # environment code is untrusted; report every failure
            return exception_failure(error)


def main():
    runner = Runner()
    while True:
        request = read_request()
        if request is None or request.get("op") == "close":
            return
        try:
            write_reply(runner.handle(request))
        except (ValueError, TypeError) as error:
            write_reply(failure("protocol_violation", f"reply not serialisable: {error}"))


if __name__ == "__main__":
    main()
