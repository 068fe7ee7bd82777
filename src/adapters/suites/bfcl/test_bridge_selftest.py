"""Self-test of the BFCL multi-turn bridge, through its JSON-lines protocol.

Run as ``.venv-bfcl/bin/python src/adapters/suites/bfcl/test_bridge_selftest.py``. It plays entries with BFCL's
ground-truth calls (from ``possible_answer/``, one call per step, then a final text per turn) and expects reward
1.0 from BFCL's checker; plays entries without calls or past the step limit and expects 0.0. Ends with the line
``N passed, M failed`` and exits non-zero on a failure.
"""

import ast
import importlib
import inspect
import json
import os
import re
import subprocess
import sys
import traceback

import bfcl_eval
from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

# not bfcl_eval.constants.eval_config: importing it makes result/ and score/ folders beside the package
POSSIBLE_ANSWER_PATH = os.path.join(os.path.dirname(bfcl_eval.__file__), "data", "possible_answer")

BRIDGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bfcl_bridge.py")
TOOL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
JSON_SCHEMA_TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}


class Bridge:
    """The bridge as a subprocess: one request line in, one answer line out."""

    def __init__(self):
        self.process = subprocess.Popen([sys.executable, BRIDGE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def send_line(self, line, request_id=None):
        """The answer to one raw line, without its ``id`` and ``ok`` (checked here: the id echoed, ok iff no error)."""
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, "the bridge closed its stdout"
        parsed = json.loads(answer)
        assert parsed.pop("id") == request_id, parsed
        assert parsed.pop("ok") == ("error" not in parsed), parsed
        return parsed

    def request(self, **request):
        self.requests = getattr(self, "requests", 0) + 1
        return self.send_line(json.dumps({"id": self.requests, **request}), self.requests)

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


def ground_truth(entry_id):
    category = entry_id.rsplit("_", 1)[0]
    with open(os.path.join(POSSIBLE_ANSWER_PATH, f"BFCL_v4_{category}.json")) as file:
        for line in file:
            truth = json.loads(line)
            if truth["id"] == entry_id:
                return truth["ground_truth"]
    raise KeyError(entry_id)


def method_signatures():
    signatures = {}
    for class_name, module_name in CLASS_FILE_PATH_MAPPING.items():
        if class_name.startswith(("Memory", "WebSearch")):
            continue
        class_ = getattr(importlib.import_module(module_name), class_name)
        for name, method in inspect.getmembers(class_, predicate=inspect.isfunction):
            if not name.startswith("_"):
                signatures[name] = inspect.signature(method)
    return signatures


SIGNATURES = method_signatures()


def as_tool_call(call_string):
    """A ground-truth call string (``mv(source='a', destination='b')``, some with positional arguments) as a
    tool call ``{"name", "arguments"}``, positional arguments named by the method's signature."""
    call = ast.parse(call_string, mode="eval").body
    name = call.func.id
    args = [ast.literal_eval(argument) for argument in call.args]
    kwargs = {keyword.arg: ast.literal_eval(keyword.value) for keyword in call.keywords}
    bound = SIGNATURES[name].bind_partial(None, *args, **kwargs).arguments
    bound.pop(next(iter(bound)))  # self
    return {"name": name, "arguments": dict(bound)}


def play(bridge, entry_id, turn_calls, parallel=False):
    """Reset, play each turn's calls then a final text; return (answers of the final step, new tools seen)."""
    reset = bridge.request(op="reset", entry=entry_id)
    assert "error" not in reset, reset
    new_tools = []
    answer = None
    for turn in range(reset["turns"]):
        calls = turn_calls[turn] if turn < len(turn_calls) else []
        if parallel and calls:
            answer = bridge.request(op="step", action=[as_tool_call(call) for call in calls])
            assert answer["terminated"] is False and len(answer["info"]["results"]) == len(calls), answer
        else:
            for call in calls:
                answer = bridge.request(op="step", action=as_tool_call(call))
                assert answer.get("terminated") is False, answer
                assert isinstance(answer["observation"], str), answer
        answer = bridge.request(op="step", action="Done.")
        assert "error" not in answer, answer
        new_tools.extend(answer["info"].get("new_tools", []))
    assert answer["terminated"] is True, answer
    return answer, new_tools


def check_schema(schema, where):
    assert isinstance(schema, dict), where
    if "type" in schema:
        assert schema["type"] in JSON_SCHEMA_TYPES, f"{where}: type {schema['type']!r}"
    for name, value in schema.get("properties", {}).items():
        check_schema(value, f"{where}.{name}")
    if "items" in schema:
        check_schema(schema["items"], f"{where}[]")
    if "required" in schema:
        assert set(schema["required"]) <= set(schema.get("properties", {})), f"{where}: required names a missing property"


# ---- tests ----


def test_version(bridge):
    answer = bridge.request(op="version")
    assert answer["bfcl_eval"] == "2026.3.23", answer
    assert answer["categories"] == {"multi_turn_base": 200, "multi_turn_miss_func": 200, "multi_turn_miss_param": 200, "multi_turn_long_context": 200}, answer


def test_list_tools_are_json_schema(bridge):
    answer = bridge.request(op="list", categories=["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"])
    assert len(answer["entries"]) == 800, len(answer["entries"])
    for entry in answer["entries"]:
        for tool in entry["tools"]:
            assert set(tool) == {"name", "description", "parameters"}, tool
            assert TOOL_NAME.match(tool["name"]), tool["name"]
            assert tool["parameters"]["type"] == "object", tool
            check_schema(tool["parameters"], tool["name"])
    limited = bridge.request(op="list", categories=["multi_turn_base"], limit=2, offset=1)
    assert [entry["id"] for entry in limited["entries"]] == ["multi_turn_base_1", "multi_turn_base_2"], limited


def test_ground_truth_scores_one_on_three_base_entries(bridge):
    for entry_id in ("multi_turn_base_0", "multi_turn_base_1", "multi_turn_base_2"):
        answer, _ = play(bridge, entry_id, ground_truth(entry_id))
        print(f"  {entry_id}: reward {answer['reward']} ({answer['observation']})")
        assert answer["reward"] == 1.0 and answer["info"]["valid"] is True, answer


def test_no_calls_scores_zero(bridge):
    answer, _ = play(bridge, "multi_turn_base_3", [])
    print(f"  multi_turn_base_3 without calls: reward {answer['reward']} ({answer['info']['error_type']})")
    assert answer["reward"] == 0.0 and answer["info"]["valid"] is False, answer
    assert answer["info"]["error_type"] == "multi_turn:empty_turn_model_response", answer


def test_ground_truth_of_the_other_categories(bridge):
    # miss_func: the held-out functions arrive as new tools at their turn
    answer, new_tools = play(bridge, "multi_turn_miss_func_0", ground_truth("multi_turn_miss_func_0"))
    assert answer["reward"] == 1.0, answer
    assert [tool["name"] for tool in new_tools] == ["sort"], new_tools
    answer, _ = play(bridge, "multi_turn_miss_param_0", ground_truth("multi_turn_miss_param_0"))
    assert answer["reward"] == 1.0, answer
    # long_context_38 has a turn of 34 ground-truth calls: more than 20 steps one call each, so parallel steps
    answer, _ = play(bridge, "multi_turn_long_context_38", ground_truth("multi_turn_long_context_38"), parallel=True)
    assert answer["reward"] == 1.0, answer
    print("  miss_func_0, miss_param_0, long_context_38 (parallel steps): reward 1.0")


def test_same_entry_twice_in_one_bridge(bridge):
    # BFCL keeps instances in module globals keyed by model name and entry id: a replay must not see the last one's state
    play(bridge, "multi_turn_base_0", [["pwd()"]] * 4)
    answer, _ = play(bridge, "multi_turn_base_0", ground_truth("multi_turn_base_0"))
    assert answer["reward"] == 1.0, answer


def test_step_limit_force_terminates(bridge):
    reset = bridge.request(op="reset", entry="multi_turn_base_0")
    for step in range(20):
        answer = bridge.request(op="step", action={"name": "pwd", "arguments": {}})
        assert answer["terminated"] is False and answer["truncated"] is False, (step, answer)
    answer = bridge.request(op="step", action={"name": "pwd", "arguments": {}})
    print(f"  21st step of turn 0 of {reset['turns']}: truncated {answer['truncated']}, reward {answer['reward']} ({answer['info']['error_type']})")
    assert answer["truncated"] is True and answer["reward"] == 0.0, answer
    assert answer["info"]["error_type"] == "multi_turn:force_terminated", answer
    assert bridge.request(op="step", action="Done.")["error"]["code"] == "no_episode"


def test_errors_are_answers(bridge):
    assert bridge.send_line("not json")["error"]["code"] == "bad_request"
    assert bridge.request(op="nope")["error"]["code"] == "bad_request"
    assert bridge.request(op="reset", entry="multi_turn_base_9999")["error"]["code"] == "unknown_entry"
    assert bridge.request(op="list", categories=["simple_python"])["error"]["code"] == "unknown_category"
    bridge.request(op="reset", entry="multi_turn_base_0")
    assert bridge.request(op="step", action=42)["error"]["code"] == "bad_request"
    unknown = bridge.request(op="step", action={"name": "open", "arguments": {"file": "/etc/hostname"}})
    assert unknown["observation"] == "Error during execution: name 'open' is not defined", unknown
    wrong = bridge.request(op="step", action={"name": "cd", "arguments": {"nope": 1}})
    assert wrong["observation"].startswith("Error during execution: "), wrong
    # an integer that would make BFCL's functions run for minutes (power(10, 10**15)) is refused, not run
    huge = bridge.request(op="step", action={"name": "cd", "arguments": {"folder": "document", "depth": 10**15}})
    assert huge["observation"] == "Error during execution: an integer argument beyond \u00b110**9 is not accepted", huge
    # a line nested too deep for the JSON parser still gets an answer to its id
    bridge.requests += 1
    deep = '{"id": %d, "op": "step", "action": %s}' % (bridge.requests, "[" * 5000 + "]" * 5000)
    assert bridge.send_line(deep, bridge.requests)["error"]["code"] == "bad_request"
    assert bridge.request(op="step", action={"name": "pwd", "arguments": {}})["observation"].startswith("{"), "the bridge serves on"
    assert bridge.request(op="reset", entry="multi_turn_base_0", step_limit=0)["error"]["code"] == "bad_request"
    assert bridge.request(op="version")["bfcl_eval"] == "2026.3.23"


def test_recorded_exchange_replays(bridge):
    # bfcl_bridge_exchange.jsonl: a recorded real exchange (the TypeScript side's fixture); the bridge must still answer it
    with open(os.path.join(os.path.dirname(BRIDGE), "bfcl_bridge_exchange.jsonl")) as file:
        exchanges = [json.loads(line) for line in file]
    for index, exchange in enumerate(exchanges):
        answer = bridge.request(**exchange["request"])
        assert answer == exchange["answer"], f"exchange {index}: {json.dumps(exchange['request'])[:200]} answered differently"


def main():
    tests = [(name, test) for name, test in globals().items() if name.startswith("test_") and callable(test)]
    passed = failed = 0
    bridge = Bridge()
    try:
        for name, test in tests:
            try:
                test(bridge)
                passed += 1
                print(f"ok   {name}")
            except Exception:
                failed += 1
                print(f"FAIL {name}\n{traceback.format_exc()}")
    finally:
        bridge.close()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
