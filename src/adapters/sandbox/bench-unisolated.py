"""Benchmark baseline: environment programs run unisolated in one plain Python
process (what exec-in-a-thread peers get), driven over the same length-prefixed
JSON frames as the sandbox, without fork, limits, audit hook or validation.

Requests: {"op": "load", "env": str} -> {"ok": true, "id": int}
          {"op": "reset", "id": int, "seed": int} -> {"ok": true, "observation": str}
          {"op": "step", "action": str} -> {"ok": true, "observation", "reward", "terminated", "truncated", "inProcessNs": int}
"""

import json
import os
import struct
import sys
import time
import types


def read_exact(count):
    data = b""
    while len(data) < count:
        chunk = os.read(0, count - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def main():
    classes = []
    environment = None
    while True:
        header = read_exact(4)
        if header is None:
            return
        request = json.loads(read_exact(struct.unpack(">I", header)[0]))
        if request["op"] == "load":
            module = types.ModuleType(f"env{len(classes)}")
            exec(compile(request["env"], "env.py", "exec"), module.__dict__)
            found = [v for v in vars(module).values() if isinstance(v, type) and v.__module__ == module.__name__ and hasattr(v, "step")]
            classes.append(found[0])
            reply = {"ok": True, "id": len(classes) - 1}
        elif request["op"] == "reset":
            environment = classes[request["id"]]()
            reply = {"ok": True, "observation": environment.reset(request["seed"])}
        else:
            start = time.perf_counter_ns()
            observation, reward, terminated, truncated, _ = environment.step(request["action"])
            elapsed = time.perf_counter_ns() - start
            reply = {"ok": True, "observation": observation, "reward": reward, "terminated": terminated, "truncated": truncated, "inProcessNs": elapsed}
        payload = json.dumps(reply).encode()
        os.write(1, struct.pack(">I", len(payload)) + payload)


if __name__ == "__main__":
    main()
