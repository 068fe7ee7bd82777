"""BFCL v4 multi-turn bridge: BFCL's multi-turn entries as tool-use episodes, scored by BFCL's own checker.

Run as ``.venv-bfcl/bin/python src/adapters/suites/bfcl/bfcl_bridge.py``. JSON lines over stdin/stdout: each
request is one JSON object on one line ``{"id": N, "op": ..., ...}``, each answer is one line, in request order,
``{"id": N, "ok": true, ...}`` (the fields below). A failed request answers
``{"id": N, "ok": false, "error": {"code", "message"}}`` and the bridge goes on. Error codes: ``bad_request``, ``unknown_category``,
``unknown_entry``, ``no_episode``, ``checker_crashed``, ``internal_error``.

ops:
  version                            -> {"bfcl_eval", "categories": {name: count}}
  list   {categories?, limit?, offset?} -> {"entries": [{"id", "category", "turns", "tools"}]}
                                        (limit and offset apply per category; tools: those offered at turn 0)
  reset  {entry, step_limit?}        -> {"observation", "turns", "tools", "info": {"id", "category"}}
                                        (step_limit: steps per user turn before the force-quit, 1 to BFCL's 20; default 20)
  step   {action: {"name", "arguments"}}       one call, one BFCL step
  step   {action: [{"name", "arguments"}, ...]} parallel calls, one BFCL step (as one model response)
         -> {"observation", "reward": 0, "terminated": false, "truncated": false, "info": {"results"?}}
  step   {action: "text"}            the assistant ends the turn without a call
         -> next user turn: {"observation", "reward": 0, "terminated": false, "truncated": false,
                             "info": {"turn", "new_tools"?}}
         -> after the last turn: {"observation": summary, "reward": 1.0 | 0.0, "terminated": true,
                             "truncated": false, "info": {"valid", "error_type", "details", "model_result"}}

Fidelity to BFCL's own runner (``BaseHandler.inference_multi_turn_FC`` and ``eval_runner``):
- entries, tools and ground truth come from BFCL's loaders (``load_dataset_entry``, ``load_ground_truth_entry``);
- calls run through BFCL's executor (``execute_multi_turn_func_call``) against instances that it builds from
  ``initial_config`` (long-context scenarios for ``multi_turn_long_context``), and a call is written as BFCL's FC
  handlers write one (``convert_to_function_call``: ``name(k=repr(v),...)``);
- miss_func: at a hold-out turn the held-out function docs join the tools and the user message is BFCL's
  ``DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC``;
- step limit: a turn whose step count exceeds ``MAXIMUM_STEP_LIMIT`` (20) after a step ends the whole entry, as
  BFCL's force-quit does; then the entry fails as ``multi_turn:force_terminated`` unless that turn was the last,
  where BFCL checks it as usual. The answer is ``truncated: true``;
- scoring is ``multi_turn_checker`` on the recorded per-turn steps (turn -> step -> call strings).
Differences: a call whose name is not a public method of the entry's instances is not evaluated (BFCL would
``eval`` it, reaching Python builtins); it answers BFCL's NameError text and is not recorded. A call whose
arguments would not parse as one plain call answers a syntax error and is not recorded either.

Anything BFCL prints goes to stderr; only answers reach stdout. BFCL writes lock files and empty result/score
folders under ``BFCL_PROJECT_ROOT``; unless the caller sets it, that is a temporary folder removed at exit.
"""

import ast
import atexit
import copy
import importlib.metadata
import inspect
import json
import os
import shutil
import sys
import tempfile
import traceback

# the shared protocol (one folder up): -I leaves the script's folder off sys.path
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bridge_protocol import BridgeError, claim_stdout, serve  # noqa: E402

# the protocol owns the real stdout; everything else (BFCL's prints) goes to stderr
_protocol = claim_stdout()

if "BFCL_PROJECT_ROOT" not in os.environ:
    _project_root = tempfile.mkdtemp(prefix="envforge-bfcl-")
    os.environ["BFCL_PROJECT_ROOT"] = _project_root
    atexit.register(shutil.rmtree, _project_root, True)

from bfcl_eval.constants.category_mapping import MULTI_TURN_CATEGORY  # noqa: E402
from bfcl_eval.constants.default_prompts import (  # noqa: E402
    DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC,
    MAXIMUM_STEP_LIMIT,
)
from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils  # noqa: E402
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker  # noqa: E402
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import execute_multi_turn_func_call  # noqa: E402
from bfcl_eval.utils import load_dataset_entry, load_ground_truth_entry  # noqa: E402

BFCL_VERSION = importlib.metadata.version("bfcl_eval")

# BFCL's doc types -> JSON Schema types. BFCL's own GORILLA_TO_OPENAPI maps "any" to "string"; here "any" has no type.
_JSON_SCHEMA_TYPE = {
    "dict": "object",
    "object": "object",
    "float": "number",
    "number": "number",
    "double": "number",
    "integer": "integer",
    "int": "integer",
    "long": "integer",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "tuple": "array",
    "string": "string",
    "str": "string",
    "any": None,
}

_SUMMARY_LIMIT = 600


_entries = {}  # category -> (entries, ground truths), loaded once
_episode = None
_episode_counter = 0


def _category_data(category):
    if category not in MULTI_TURN_CATEGORY:
        raise BridgeError("unknown_category", f"not a BFCL multi-turn category: {category!r} (known: {', '.join(MULTI_TURN_CATEGORY)})")
    if category not in _entries:
        entries = load_dataset_entry(category)
        ground_truths = load_ground_truth_entry(category)
        if [entry["id"] for entry in entries] != [truth["id"] for truth in ground_truths]:
            raise BridgeError("internal_error", f"{category}: entries and possible answers are not aligned")
        _entries[category] = (entries, ground_truths)
    return _entries[category]


def _category_of(entry_id):
    return entry_id.rsplit("_", 1)[0]


# ---- tools ----


def _json_schema(doc_schema, is_parameters=False):
    """One BFCL parameter schema as JSON Schema (recursively). Mirrors BFCL's ``_cast_to_openai_type``: a float
    parameter's description gains " This is a float type value.", a property without a type becomes a string."""
    schema = {}
    doc_type = doc_schema.get("type")
    if doc_type is None:
        json_type = "object" if is_parameters else "string"
    else:
        json_type = _JSON_SCHEMA_TYPE.get(doc_type, "string")
    if is_parameters:
        json_type = "object"
    if json_type is not None:
        schema["type"] = json_type
    if "description" in doc_schema:
        schema["description"] = str(doc_schema["description"])
    if doc_type == "float" and not is_parameters:
        schema["description"] = schema.get("description", "") + " This is a float type value."
    if "properties" in doc_schema:
        schema["properties"] = {name: _json_schema(value) for name, value in doc_schema["properties"].items()}
    elif is_parameters:
        schema["properties"] = {}
    if isinstance(doc_schema.get("items"), dict):
        schema["items"] = _json_schema(doc_schema["items"])
    for key in ("required", "default", "enum", "minimum", "maximum", "minItems", "maxItems"):
        if key in doc_schema:
            schema[key] = doc_schema[key]
    return schema


def _tool(function_doc):
    """One BFCL function doc as an OpenAI-style function definition (BFCL's names need no mapping)."""
    return {
        "name": function_doc["name"],
        "description": function_doc["description"],
        "parameters": _json_schema(function_doc["parameters"], is_parameters=True),
    }


def _turn_text(messages):
    return "\n\n".join(str(message.get("content", "")) for message in messages)


# ---- episode ----


def _release_instances(prefix):
    """BFCL's executor keeps instances in its module's globals, keyed by model name and entry id, and reuses them
    on the next call with the same key: drop the ones of an episode once it is over."""
    namespace = vars(multi_turn_utils)
    for name in [name for name in namespace if name.startswith(prefix)]:
        del namespace[name]


def _end_episode():
    global _episode
    if _episode is not None:
        _release_instances(_episode["model_name"] + "_")
    _episode = None


def _execute(call_strings):
    episode = _episode
    return execute_multi_turn_func_call(
        call_strings,
        episode["entry"]["initial_config"],
        episode["entry"]["involved_classes"],
        episode["model_name"],
        episode["entry"]["id"],
        long_context=("long_context" in episode["category"] or "composite" in episode["category"]),
        is_evaL_run=False,
    )


def _reset(request):
    global _episode, _episode_counter
    entry_id = request.get("entry")
    if not isinstance(entry_id, str):
        raise BridgeError("bad_request", "reset needs entry (a string such as \"multi_turn_base_0\")")
    step_limit = request.get("step_limit", MAXIMUM_STEP_LIMIT)
    if isinstance(step_limit, bool) or not isinstance(step_limit, int) or not 1 <= step_limit <= MAXIMUM_STEP_LIMIT:
        raise BridgeError("bad_request", f"step_limit must be an integer from 1 to BFCL's {MAXIMUM_STEP_LIMIT}")
    category = _category_of(entry_id)
    entries, ground_truths = _category_data(category)
    index = next((i for i, entry in enumerate(entries) if entry["id"] == entry_id), None)
    if index is None:
        raise BridgeError("unknown_entry", f"{category} has no entry {entry_id!r}")
    _end_episode()
    _episode_counter += 1
    entry = copy.deepcopy(entries[index])
    _episode = {
        "entry": entry,
        "category": category,
        "ground_truth": ground_truths[index]["ground_truth"],
        "model_name": f"envforge_bfcl_{os.getpid()}_{_episode_counter}",
        "turn": 0,
        "steps_in_turn": 0,
        "step_limit": step_limit,
        "model_result": [[]],
        "holdout": entry.get("missed_function", {}),
        "methods": set(),
    }
    # as BFCL's runner does before turn 0: build the instances from initial_config
    _, instances = _execute([])
    _episode["methods"] = {
        name
        for instance in instances.values()
        for name, _ in inspect.getmembers(instance, predicate=inspect.ismethod)
        if not name.startswith("_")
    }
    messages = entry["question"][0]
    if "0" in _episode["holdout"]:  # no entry holds out at turn 0; handled as BFCL would
        entry["function"].extend(_episode["holdout"]["0"])
        messages = [{"role": "user", "content": DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC}]
    return {
        "observation": _turn_text(messages),
        "turns": len(entry["question"]),
        "tools": [_tool(doc) for doc in entry["function"]],
        "info": {"id": entry_id, "category": category},
    }


def _call_string(call):
    """One tool call as BFCL's FC handlers write it (``convert_to_function_call``), or an error text when it could
    not run as one plain call. Returns (call string or None, error text or None)."""
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        raise BridgeError("bad_request", "a call is {\"name\": string, \"arguments\": object}")
    name = call["name"]
    arguments = call.get("arguments", {})
    if isinstance(arguments, str):  # arguments as a JSON string, as OpenAI's API gives them
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as error:
            return None, f"Error during execution: arguments are not JSON: {error}"
    if not isinstance(arguments, dict):
        raise BridgeError("bad_request", "a call's arguments must be a JSON object")
    if name not in _episode["methods"]:
        return None, f"Error during execution: name '{name}' is not defined"
    if _has_huge_int(arguments):
        # BFCL would run it (power(10, 10**15)) and hold the bridge for minutes: refused, not recorded
        return None, "Error during execution: an integer argument beyond ±10**9 is not accepted"
    call_string = f"{name}({','.join([f'{key}={repr(value)}' for key, value in arguments.items()])})"
    try:
        tree = ast.parse(call_string, filename="<string>", mode="eval")
    except SyntaxError as error:
        return None, f"Error during execution: {error}"
    body = tree.body
    if (
        not isinstance(body, ast.Call)
        or not isinstance(body.func, ast.Name)
        or body.func.id != name
        or body.args
        or [keyword.arg for keyword in body.keywords] != list(arguments)
    ):
        return None, "Error during execution: invalid syntax"
    return call_string, None


def _has_huge_int(value, depth=0):
    """Whether a JSON value holds an integer beyond ±10**9 (nesting past 100 levels counts as one). BFCL's ground
    truth has none above six digits; larger ones only make its functions slow (power(10, 10**12))."""
    if depth > 100:
        return True
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) > 10**9
    if isinstance(value, dict):
        return any(_has_huge_int(item, depth + 1) for item in value.values())
    if isinstance(value, list):
        return any(_has_huge_int(item, depth + 1) for item in value)
    return False


def _finish(force_terminated):
    """Score the recorded turns as BFCL's eval runner does, end the episode, and build the final answer."""
    episode = _episode
    model_result = episode["model_result"]
    ground_truth = episode["ground_truth"]
    entry = episode["entry"]
    if len(model_result) != len(ground_truth):
        verdict = {
            "valid": False,
            "error_type": "multi_turn:force_terminated",
            "error_message": f"Model was force-terminated during inference phase. The length of the model result turns ({len(model_result)}) does not match the length of the ground truth turns ({len(ground_truth)}).",
        }
    else:
        try:
            verdict = multi_turn_checker(model_result, ground_truth, entry, episode["category"], episode["model_name"])
        except Exception as error:
            frame = traceback.extract_tb(error.__traceback__)[-1]
            _end_episode()
            raise BridgeError("checker_crashed", f"multi_turn_checker raised {type(error).__name__}: {error} ({os.path.basename(frame.filename)}:{frame.lineno})") from error
    valid = bool(verdict.get("valid"))
    error_type = verdict.get("error_type")
    details = _details(verdict)
    calls = sum(len(step) for turn in model_result for step in turn)
    if valid:
        summary = f"BFCL multi_turn_checker: valid ({len(model_result)} turns, {calls} calls)."
    else:
        summary = f"BFCL multi_turn_checker: invalid ({error_type}): {details}"
    answer = {
        "observation": summary[:_SUMMARY_LIMIT],
        "reward": 1.0 if valid else 0.0,
        "terminated": not force_terminated,
        "truncated": force_terminated,
        "info": {"valid": valid, "error_type": error_type, "details": details, "model_result": model_result},
    }
    _end_episode()
    return answer


def _details(verdict):
    """A short account of a checker verdict (its full details hold whole instance states)."""
    if verdict.get("valid"):
        return ""
    text = str(verdict.get("error_message", ""))
    details = verdict.get("details")
    if isinstance(details, dict):
        if isinstance(details.get("differences"), dict):
            text += " Differing attributes: " + ", ".join(sorted(details["differences"])) + "."
        if isinstance(details.get("missing_items"), list):
            missing = details["missing_items"]
            text += f" {len(missing)} ground-truth result(s) missing, first: {str(missing[0])[:200]!r}." if missing else ""
    return text[:_SUMMARY_LIMIT]


def _step(request):
    if _episode is None:
        raise BridgeError("no_episode", "no episode is running: reset first (an episode ends with its last turn)")
    action = request.get("action")
    if isinstance(action, str):
        return _end_turn()
    calls = action if isinstance(action, list) else [action]
    if not calls:
        return _end_turn()  # BFCL: an empty response ends the turn
    call_strings, results = [], []
    for call in calls:
        call_string, error_text = _call_string(call)
        if call_string is None:
            results.append(error_text)
        else:
            call_strings.append(call_string)
            results.append(None)
    if call_strings:
        executed, _ = _execute(call_strings)
        executed = iter(executed)
        results = [next(executed) if result is None else result for result in results]
        _episode["model_result"][_episode["turn"]].append(call_strings)
    _episode["steps_in_turn"] += 1
    limit = _episode["step_limit"]
    if _episode["steps_in_turn"] > limit:
        answer = _finish(force_terminated=True)
        answer["info"]["results"] = results
        answer["observation"] = f"Model has been forced to quit after {limit} steps. " + answer["observation"]
        return answer
    info = {"results": results} if isinstance(action, list) else {}
    observation = results[0] if not isinstance(action, list) else json.dumps(results)
    return {"observation": observation, "reward": 0, "terminated": False, "truncated": False, "info": info}


def _end_turn():
    episode = _episode
    entry = episode["entry"]
    if episode["turn"] + 1 >= len(entry["question"]):
        return _finish(force_terminated=False)
    episode["turn"] += 1
    episode["steps_in_turn"] = 0
    episode["model_result"].append([])
    turn = episode["turn"]
    messages = entry["question"][turn]
    info = {"turn": turn}
    if str(turn) in episode["holdout"]:
        held_out = episode["holdout"][str(turn)]
        entry["function"].extend(held_out)
        messages = [{"role": "user", "content": DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC}]
        info["new_tools"] = [_tool(doc) for doc in held_out]
    return {"observation": _turn_text(messages), "reward": 0, "terminated": False, "truncated": False, "info": info}


def _list(request):
    categories = request.get("categories", MULTI_TURN_CATEGORY)
    limit = request.get("limit")
    offset = request.get("offset", 0)
    if not isinstance(categories, list) or not all(isinstance(category, str) for category in categories):
        raise BridgeError("bad_request", "categories must be a list of strings")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        raise BridgeError("bad_request", "limit must be an integer >= 0")
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise BridgeError("bad_request", "offset must be an integer >= 0")
    listed = []
    for category in categories:
        entries, _ = _category_data(category)
        chosen = entries[offset:] if limit is None else entries[offset : offset + limit]
        for entry in chosen:
            listed.append({"id": entry["id"], "category": category, "turns": len(entry["question"]), "tools": [_tool(doc) for doc in entry["function"]]})
    return {"entries": listed}


def _handle(request):
    op = request.get("op")
    if op == "version":
        return {"bfcl_eval": BFCL_VERSION, "categories": {category: len(_category_data(category)[0]) for category in MULTI_TURN_CATEGORY}}
    if op == "list":
        return _list(request)
    if op == "reset":
        return _reset(request)
    if op == "step":
        return _step(request)
    raise BridgeError("bad_request", f"unknown op {op!r} (version, list, reset, step)")


def main():
    # a bug here or in BFCL is answered (internal_error) and the bridge goes on
    serve(_handle, _protocol, unexpected_errors=True)


if __name__ == "__main__":
    main()
