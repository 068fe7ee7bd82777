"""Plays one OpenEnv environment package for envforge, inside the terminal jail.

Started by envforge's OpenEnv session in a jailed Debian root, with the package copied to
/envforge/package/<python package> and OpenEnv's modules (openenv 0.10 and its dependencies)
bound read-only on PYTHONPATH. It reads one request per line on stdin (base64 of a JSON object)
and answers one JSON object per line on stdout:

- {"op": "load"}: imports the package's server app (server/app.py, as openenv.yaml's `app` says)
  and makes the environment; answers {"ok": true, "format": how to reply, "oracle": bool} or
  {"ok": false, "stage", "error"} (the stage names what failed: "server", "environment", "oracle").
- {"op": "reset", "seed": N}: answers {"ok": true, "observation": text, "done", "reward"}; the
  first observation ends with the line saying how to reply (from the Action's fields).
- {"op": "step", "action": text}: the text becomes the package's Action (a JSON object of its
  fields, or the text itself when the Action has exactly one required text field); an action that
  does not validate is answered {"ok": true, "invalid": true, "observation": why} without a step.
- {"op": "oracle", "observation": text}: the package's optional oracle.py `act(env, observation)`.

Everything the package raises is answered {"ok": false, "error"} (with the exception's last
line); the driver itself never exits before its input ends.
"""

import base64
import importlib
import json
import sys
import traceback


# the jail returns at most 16,000 bytes of a command's output: an answer stays under this, its
# observation cut in the middle (with the cut said) when it would not
MAX_ANSWER_BYTES = 15000


def answer(value):
    line = json.dumps(value, default=str)
    text = value.get("observation") if isinstance(value, dict) else None
    keep = len(text) if isinstance(text, str) else 0
    while len(line) > MAX_ANSWER_BYTES and keep > 0:
        keep = keep * 2 // 3
        cut = len(text) - keep
        value = dict(value, observation=text[: keep // 2] + f"\n[... {cut} characters cut from this observation ...]\n" + text[len(text) - keep // 2:])
        line = json.dumps(value, default=str)
    if len(line) > MAX_ANSWER_BYTES:
        line = json.dumps({"ok": False, "error": f"the answer is over {MAX_ANSWER_BYTES} bytes"})
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def last_line(error):
    lines = traceback.format_exception_only(type(error), error)
    return lines[-1].strip()[:2000] if lines else repr(error)[:2000]


class Driver:
    def __init__(self, package, module, class_name):
        self.package = package
        self.module = module
        self.class_name = class_name
        self.env = None
        self.action_class = None
        self.oracle = None

    def load(self):
        try:
            importlib.import_module(f"{self.package}.server.app")
        except BaseException as error:  # noqa: BLE001 - the package's failure is the answer
            return {"ok": False, "stage": "server", "error": f"server/app.py does not import: {last_line(error)}"}
        try:
            environment_module = importlib.import_module(f"{self.package}.{self.module}")
            environment_class = getattr(environment_module, self.class_name)
            self.env = environment_class()
            self.action_class = self.find_action_class(environment_class)
        except BaseException as error:  # noqa: BLE001
            return {"ok": False, "stage": "environment", "error": f"{self.class_name}() fails: {last_line(error)}"}
        try:
            self.oracle = importlib.import_module(f"{self.package}.oracle")
        except ModuleNotFoundError as error:
            if error.name != f"{self.package}.oracle":
                return {"ok": False, "stage": "oracle", "error": f"oracle.py does not import: {last_line(error)}"}
        except BaseException as error:  # noqa: BLE001
            return {"ok": False, "stage": "oracle", "error": f"oracle.py does not import: {last_line(error)}"}
        return {"ok": True, "format": self.action_format(), "oracle": self.oracle is not None}

    def action_format(self):
        """One line telling the agent how to reply, from the Action model's fields."""
        field = self.text_field()
        fields = {name: f for name, f in self.action_class.model_fields.items() if name != "metadata"}
        if field is not None and len(fields) == 1:
            described = fields[field].description
            return f"Reply with the {field}" + (f" ({described})" if described else "") + "."
        schema = {name: (f.description or str(f.annotation)) for name, f in fields.items()}
        return "Reply with one JSON object of the action's fields: " + json.dumps(schema, sort_keys=True)

    def find_action_class(self, environment_class):
        from openenv.core.env_server.types import Action

        models = importlib.import_module(f"{self.package}.models")
        candidates = [value for value in vars(models).values() if isinstance(value, type) and issubclass(value, Action) and value is not Action]
        if len(candidates) != 1:
            raise TypeError(f"models.py must define exactly one Action subclass, found {len(candidates)}")
        return candidates[0]

    def text_field(self):
        required = [name for name, field in self.action_class.model_fields.items() if name != "metadata" and field.is_required()]
        if len(required) == 1 and self.action_class.model_fields[required[0]].annotation is str:
            return required[0]
        return None

    def action(self, text):
        field = self.text_field()
        stripped = text.strip()
        if stripped.startswith("{"):
            try:
                data = json.loads(stripped)
            except ValueError:
                data = None
            if isinstance(data, dict):
                return self.action_class.model_validate(data)
        if field is None:
            raise ValueError(f"reply with a JSON object of the action's fields: {', '.join(n for n in self.action_class.model_fields if n != 'metadata')}")
        return self.action_class.model_validate({field: text})

    @staticmethod
    def render(observation):
        data = observation.model_dump(exclude={"reward", "done", "metadata"})
        if len(data) == 1:
            (value,) = data.values()
            if isinstance(value, str):
                return value
        return json.dumps(data, sort_keys=True, default=str)

    def observed(self, observation, **extra):
        reward = observation.reward
        metadata = observation.metadata if isinstance(observation.metadata, dict) else {}
        # an environment that refuses a move says so in its metadata, as envforge's info does
        return {"ok": True, "observation": self.render(observation), "done": bool(observation.done),
                "reward": 0.0 if reward is None else float(reward), "invalid": metadata.get("invalid_action") is True, **extra}

    def handle(self, request):
        op = request.get("op")
        if op == "load":
            return self.load()
        if self.env is None:
            return {"ok": False, "error": "the environment is not loaded"}
        try:
            if op == "reset":
                observed = self.observed(self.env.reset(seed=int(request["seed"])))
                if self.text_field() is None:
                    # an action of several fields: say which (a text action is the reply itself)
                    observed["observation"] += "\n\n" + self.action_format()
                return observed
            if op == "step":
                try:
                    action = self.action(str(request["action"]))
                except (ValueError, TypeError) as error:
                    return {"ok": True, "invalid": True, "observation": f"invalid action: {last_line(error)}", "done": False, "reward": 0.0}
                return self.observed(self.env.step(action))
            if op == "oracle":
                if self.oracle is None:
                    return {"ok": False, "error": "the package has no oracle.py (act(env, observation))"}
                reply = self.oracle.act(self.env, request.get("observation", ""))
                return {"ok": True, "action": reply if isinstance(reply, str) else json.dumps(reply)}
        except BaseException as error:  # noqa: BLE001
            return {"ok": False, "error": f"{op}: {last_line(error)}"}
        return {"ok": False, "error": f"unknown request {op!r}"}


def main():
    package, module, class_name = sys.argv[1:4]
    driver = Driver(package, module, class_name)
    for line in sys.stdin:
        try:
            request = json.loads(base64.b64decode(line.strip()).decode("utf-8"))
        except ValueError as error:
            answer({"ok": False, "error": f"unreadable request: {error}"})
            continue
        answer(driver.handle(request))


if __name__ == "__main__":
    main()
