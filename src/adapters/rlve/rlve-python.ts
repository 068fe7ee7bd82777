/**
 * The Python texts of the RLVE importer: the catalogue reader (run once per import with the
 * `.venv-rlve` interpreter; it parses RLVE's sources with `ast` and never imports RLVE), and the
 * parts every generated `env.py` and `oracle.py` is assembled from (standard-library base
 * classes in place of RLVE's `Gym/environment.py` and `Gym/parameter_controller.py`, and the
 * envforge wrapper class with `reset(seed, level)` and `step(action)`).
 */

/**
 * Reads the installed `Gym` package (rlve-gym) without executing it: the identifier maps of
 * `Gym/environments/__init__.py` and `Gym/parameter_controllers/__init__.py`, and per identifier
 * the module sources of its environment and controller classes, the third-party modules they
 * import anywhere (not in `sys.stdlib_module_names`), and the names they import from `Gym`.
 * Its one argument is a JSON list of the identifiers to read the modules of, or `null` for all.
 * Prints one JSON document: `{ version, gymPath, registered: [identifier...], environments: [...] }`
 * (environments in registry order), or `{ error }`.
 */
export const CATALOGUE_PROGRAM = String.raw`
import ast, importlib.metadata, importlib.util, json, os, sys

def fail(message):
    print(json.dumps({"error": message}))
    sys.exit(0)

spec = importlib.util.find_spec("Gym")
if spec is None or not spec.submodule_search_locations:
    fail("the Gym package (rlve-gym) is not installed in " + sys.prefix)
gym = list(spec.submodule_search_locations)[0]
try:
    version = importlib.metadata.version("rlve-gym")
except importlib.metadata.PackageNotFoundError:
    version = None
STDLIB = set(sys.stdlib_module_names)

def registry(kind):
    """identifier -> (module, class name) from the dict literal and the imports of Gym/<kind>/__init__.py"""
    path = os.path.join(gym, kind, "__init__.py")
    tree = ast.parse(open(path, encoding="utf-8").read())
    modules, mapping = {}, None
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                modules[alias.asname or alias.name] = node.module
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            mapping = {}
            for key, value in zip(node.value.keys, node.value.values):
                if isinstance(key, ast.Constant) and isinstance(value, ast.Name):
                    mapping[key.value] = (modules.get(value.id), value.id)
    if mapping is None:
        fail(path + " holds no identifier dictionary")
    return mapping

def module_file(module, default_file):
    """Gym.environments.x (a package whose __init__ re-exports) or Gym.environments.x.environment -> file path"""
    parts = (module or "").split(".")
    if len(parts) < 3 or parts[0] != "Gym":
        return None
    folder = os.path.join(gym, *parts[1:])
    if os.path.isdir(folder):
        return os.path.join(folder, default_file)
    return folder + ".py"

def inspect(path, class_name):
    if path is None or not os.path.isfile(path):
        return {"missing": True, "path": path}
    source = open(path, encoding="utf-8").read()
    tree = ast.parse(source)
    third_party, from_gym, gym_lines = set(), [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top == "Gym":
                    from_gym.append(alias.name)
                    gym_lines.append([node.lineno, node.end_lineno])
                elif top not in STDLIB:
                    third_party.add(top)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            top = node.module.split(".")[0]
            if top == "Gym":
                from_gym.extend(node.module + "." + alias.name for alias in node.names)
                gym_lines.append([node.lineno, node.end_lineno])
            elif top not in STDLIB:
                third_party.add(top)
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            from_gym.append("." * node.level + (node.module or ""))
            gym_lines.append([node.lineno, node.end_lineno])
    classes = [node.name for node in tree.body if isinstance(node, ast.ClassDef)]
    return {
        "missing": False,
        "path": os.path.relpath(path, os.path.dirname(gym)),
        "source": source,
        "definesClass": class_name in classes,
        "thirdParty": sorted(third_party),
        "fromGym": from_gym,
        "gymImportLines": gym_lines,
    }

environments = registry("environments")
controllers = registry("parameter_controllers")
wanted = json.loads(sys.argv[1]) if len(sys.argv) > 1 else None
wanted = None if wanted is None else set(wanted)
out = []
for identifier, (module, class_name) in environments.items():
    if wanted is not None and identifier not in wanted:
        continue
    controller_module, controller_class = controllers.get(identifier, (None, None))
    out.append({
        "identifier": identifier,
        "environmentClass": class_name,
        "controllerClass": controller_class,
        "environment": inspect(module_file(module, "environment.py"), class_name),
        "controller": inspect(module_file(controller_module, "parameter_controller.py"), controller_class) if controller_class else {"missing": True, "path": None},
    })
print(json.dumps({"version": version, "gymPath": gym, "registered": list(environments), "environments": out}))
`;

/**
 * Standard-library stand-ins for RLVE's `Gym/environment.py` and `Gym/parameter_controller.py`,
 * written for envforge (no RLVE code): the same interface (`generator`, `prompt_generator`,
 * `processor`, `scorer`, `verifier`, `get_config`, `set_config`; `update`,
 * `get_parameter_list`), seeding only Python's `random` (RLVE's `manual_seed` also seeds numpy
 * and torch, which no importable environment uses), and no thread-based timeout (the sandbox
 * bounds every call; `timeout(seconds)` runs the function as it is).
 */
export const BASE_CLASSES = String.raw`
import copy as _copy
import random as _random
import re as _re
from abc import ABC as _ABC, abstractmethod as _abstractmethod


class TimeoutException(Exception):
    """Raised by RLVE code that guards itself with timeout(); here the sandbox's call timeout bounds time."""


def timeout(seconds):
    """RLVE's decorator runs the function on a worker thread with a deadline; threads are not allowed
    in the sandbox, whose own call timeout ends a call that runs too long, so the function runs as it is."""
    def decorator(function):
        return function
    return decorator


def manual_seed(seed, fix_cudnn=False):
    """Seeds Python's random module (the only generator an importable RLVE environment draws from)."""
    _random.seed(seed)


class VerifiableEnvironment(_ABC):
    """RLVE's environment interface: generator(seed, parameter) draws a problem into self.parameter,
    prompt_generator() renders it, scorer(output) scores a reply (in [-1, 1]), read from the last
    answer between the answer markers by processor(output)."""

    def __init__(self, answer_markers=None):
        self.seed = None
        self.parameter = None
        if answer_markers is None:
            answer_markers = ("<answer>", "</answer>")
        if len(answer_markers) != 2 or not all(isinstance(marker, str) for marker in answer_markers):
            raise ValueError("answer_markers must be two strings")
        self.answer_markers = tuple(answer_markers)
        self.passing_reward_threshold = 1.0

    def generator(self, seed, parameter=None, timeout_second=10):
        """Draws a problem for seed from parameter (deep-copied into self.parameter); False when the
        environment's _generate raised (as in RLVE, where the caller then tries another seed)."""
        self.seed = seed
        self.parameter = _copy.deepcopy(parameter) if parameter is not None else {}
        manual_seed(seed)
        try:
            self._generate()
        except Exception:
            return False
        return self.parameter is not None

    @_abstractmethod
    def _generate(self):
        pass

    def prompt_generator(self):
        if self.seed is None or self.parameter is None:
            raise RuntimeError("generator() must be called before prompt_generator()")
        return self._prompt_generate()

    @_abstractmethod
    def _prompt_generate(self):
        pass

    def processor(self, output):
        """The environment's reading (_process) of the last answer between the markers, after any chat
        prefix ending in 'Assistant:' or '<|im_start|>assistant'; _process(None) when there is none."""
        if "Assistant:" in output:
            output = output.split("Assistant:", 1)[1]
        elif "<|im_start|>assistant" in output:
            output = output.split("<|im_start|>assistant", 1)[1]
        pattern = _re.escape(self.answer_markers[0]) + r"(.*?)" + _re.escape(self.answer_markers[1])
        matches = list(_re.finditer(pattern, output, _re.DOTALL))
        return self._process(matches[-1].group(1) if matches else None)

    @_abstractmethod
    def _process(self, answer):
        pass

    @_abstractmethod
    def scorer(self, output):
        pass

    def verifier(self, output):
        """RLVE's verdict: the score (−1 when the scorer raises), accuracy (score at the passing
        threshold) and format score (score above −1)."""
        try:
            score = self.scorer(output)
        except Exception:
            score = -1.0
        eps = 1e-6
        return {
            "reward": score,
            "accuracy": int(score >= self.passing_reward_threshold - eps),
            "format_score": int(score >= -1.0 + eps),
        }

    def get_config(self):
        return {"seed": self.seed, "parameter": self.parameter, "passing_reward_threshold": self.passing_reward_threshold}

    def set_config(self, config):
        self.seed = config["seed"]
        self.parameter = config["parameter"]
        self.passing_reward_threshold = config.get("passing_reward_threshold", 1.0)


class ParameterController(_ABC):
    """RLVE's difficulty controller: update() moves to the next, harder parameter sets;
    get_parameter_list() returns the current ones."""

    def __init__(self):
        pass

    @_abstractmethod
    def update(self):
        pass

    @_abstractmethod
    def get_parameter_list(self):
        pass
`;

/**
 * The envforge wrapper appended to every generated `env.py`; `__ENVIRONMENT_CLASS__`,
 * `__CONTROLLER_CLASS__`, `__IDENTIFIER__` and `__GENERATION_ATTEMPTS__` are replaced by the importer. Level L builds the
 * controller, calls `update()` L times and takes one of its parameter sets, chosen by the seed;
 * RLVE's generator draws the problem from a seed derived from (seed, level, attempt) by sha256
 * (a fresh attempt, up to {@link GENERATION_ATTEMPTS}, when it reports a failure), so that one
 * seed at two levels does not replay the same random stream. One step scores the reply with RLVE's scorer.
 */
export const WRAPPER = String.raw`
import hashlib as _hashlib
import math as _math

_ENVIRONMENT_CLASS = __ENVIRONMENT_CLASS__
_CONTROLLER_CLASS = __CONTROLLER_CLASS__
_GENERATION_ATTEMPTS = __GENERATION_ATTEMPTS__
_EPSILON = 1e-6
_FORMAT = "\n\nGive your final answer between <answer> and </answer>, in the format asked for above."


def _derived_seed(seed, level, attempt):
    """RLVE's seed for episode seed, level and generation attempt: 63 bits of sha256 over the three, so that
    the same seed at two levels does not replay one random stream (Python's randint(2, 6) and randint(2, 7)
    read the same bits and mostly agree)."""
    digest = _hashlib.sha256(("%d:%d:%d" % (seed, level, attempt)).encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _scalars(parameter):
    """The level's parameter set as JSON-friendly scalars (lists and nested values left out)."""
    return {str(key): value for key, value in parameter.items() if isinstance(value, (bool, int, float, str)) and not (isinstance(value, float) and not _math.isfinite(value))}


class RlveEnvironment:
    """RLVE's __IDENTIFIER__ as an envforge single-turn family: reset(seed, level) draws one problem,
    step(action) scores the one reply with RLVE's scorer and ends the episode."""

    def __init__(self):
        self.environment = None
        self.parameter = None
        self.done = True

    def reset(self, seed, level=0):
        if isinstance(level, bool) or not isinstance(level, int) or level < 0:
            raise ValueError("level must be a non-negative integer")
        controller = _CONTROLLER_CLASS()
        for _ in range(level):
            controller.update()
        parameters = list(controller.get_parameter_list())
        if not parameters:
            raise RuntimeError("RLVE's parameter controller has no parameter set at level %d" % level)
        self.parameter = parameters[_random.Random(_derived_seed(seed, level, -1)).randrange(len(parameters))]
        for attempt in range(_GENERATION_ATTEMPTS):
            environment = _ENVIRONMENT_CLASS()
            if environment.generator(_derived_seed(seed, level, attempt), self.parameter):
                break
        else:
            raise RuntimeError("RLVE's generator failed for %d derived seeds at level %d" % (_GENERATION_ATTEMPTS, level))
        self.environment = environment
        self.done = False
        return environment.prompt_generator() + _FORMAT

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"episode_over": True}
        self.done = True
        environment = self.environment
        info = {"rlve_parameter": _scalars(self.parameter)}
        try:
            readable = environment.processor(action) is not None
            score = float(environment.scorer(action))
        except Exception as error:
            readable, score = False, -1.0
            info["scorer_error"] = type(error).__name__
        if not _math.isfinite(score):
            score = -1.0
        accurate = score >= environment.passing_reward_threshold - _EPSILON
        reward = 1.0 if accurate else max(-1.0, min(1.0, score))
        info["rlve_score"] = score
        info["accuracy"] = int(accurate)
        if not readable:
            info["invalid_action"] = True
            return "No answer could be read: the reply needs the final answer between <answer> and </answer>, in the format asked for.", reward, True, False, info
        return ("Correct." if accurate else "Scored %.4g; a win needs 1." % reward), reward, True, False, info
`;

/** Tries of the wrapper's generation before its `reset` fails (each a derived seed). */
export const GENERATION_ATTEMPTS = 5;

/**
 * The generated `oracle.py`: RLVE's stored reference answer (`parameter["reference_answer"]`,
 * kept by the environment's `_generate`) between the answer markers.
 */
export const ORACLE = String.raw`"""Reference policy: the reference answer RLVE's generator stored with the problem
(self.parameter["reference_answer"]), between the answer markers."""


def act(env, observation):
    environment = env.environment
    reference = environment.parameter.get("reference_answer") if environment is not None else None
    opening, closing = environment.answer_markers if environment is not None else ("<answer>", "</answer>")
    return opening + str(reference) + closing
`;
