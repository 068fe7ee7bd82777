"""Register machine: reach a target value with a few operations.

A single register holds a start value. Each turn the agent applies one
operation: 'add k' or 'sub k' (k from 1 to MAX_K) or 'double'. The register must
stay within 0..max_value. The move budget is the fewest operations that reach
the target plus slack. Reward 1.0 when the register equals the target; the
episode is truncated when the budget runs out. The level (LEVELS) sets how many
operations the shortest program has, the target range, max_value and slack.
"""

import functools
import random
import re
from collections import deque

MAX_K = 3
MAX_VALUE = 999      # the value ceiling of levels 0-4
START_RANGE = (1, 15)
# One entry per level, easiest first: the target is drawn from target_range, the
# fewest operations that reach it from the start lie in min_steps..max_steps (the
# ranges do not overlap, so no two levels build the same instance from a seed), the
# register must stay within 0..max_value, and the budget is that fewest plus slack.
LEVELS = [
    {"target_range": (2, 40), "min_steps": 1, "max_steps": 1, "max_value": 999, "slack": 2},   # one operation away
    {"target_range": (5, 80), "min_steps": 3, "max_steps": 3, "max_value": 999, "slack": 2},
    {"target_range": (10, 150), "min_steps": 4, "max_steps": 4, "max_value": 999, "slack": 2},
    {"target_range": (40, 300), "min_steps": 5, "max_steps": 9, "max_value": 999, "slack": 2},  # STATIC_LEVEL
    {"target_range": (300, 999), "min_steps": 10, "max_steps": 11, "max_value": 999, "slack": 2},
    {"target_range": (1000, 4999), "min_steps": 12, "max_steps": 13, "max_value": 4999, "slack": 1},
    {"target_range": (2000, 9999), "min_steps": 14, "max_steps": 15, "max_value": 9999, "slack": 1},
]
STATIC_LEVEL = 3     # the family's size before it had levels: targets 40-300, 5-9 operations
MAX_TURNS = max(level["max_steps"] + level["slack"] for level in LEVELS)

OP_RE = re.compile(r"\b(add|plus|sub|subtract|minus|double)\b(?:\s*(\d{1,6})(?!\d))?",
                   re.IGNORECASE)


def operations():
    """All legal operations as (label, function) pairs, in a fixed order."""
    ops = [("double", lambda x: 2 * x)]
    for k in range(MAX_K, 0, -1):
        ops.append((f"add {k}", lambda x, k=k: x + k))
    for k in range(MAX_K, 0, -1):
        ops.append((f"sub {k}", lambda x, k=k: x - k))
    return ops


@functools.lru_cache(maxsize=None)
def fewest_steps(start, max_value=MAX_VALUE):
    """BFS over register values 0..max_value: distance from start to every reachable value.

    Cached (a pure function of its arguments); callers must not modify the result.
    """
    dist = {start: 0}
    queue = deque([start])
    steps = [fn for _, fn in operations()]
    while queue:
        value = queue.popleft()
        for fn in steps:
            nxt = fn(value)
            if 0 <= nxt <= max_value and nxt not in dist:
                dist[nxt] = dist[value] + 1
                queue.append(nxt)
    return dist


def parse_op(text):
    """Return (name, k) for the last operation in the text, or None."""
    if not isinstance(text, str):
        return None
    matches = OP_RE.findall(text)
    if not matches:
        return None
    word, number = matches[-1]
    word = word.lower()
    if word == "double":
        return ("double", 0)
    name = "add" if word in ("add", "plus") else "sub"
    return (name, int(number) if number else None)


class RegisterMachineEnv:
    def __init__(self):
        self.value = 0
        self.target = 0
        self.max_value = MAX_VALUE
        self.budget = 0
        self.turns = 0
        self.done = True

    def status(self):
        return (f"Register = {self.value}. Target = {self.target}. "
                f"Moves left: {self.budget - self.turns}.")

    def reset(self, seed: int, level: int = 0) -> str:
        if not 0 <= level < len(LEVELS):
            raise ValueError(f"level must be in 0..{len(LEVELS) - 1}, got {level}")
        config = LEVELS[level]
        rng = random.Random(seed)
        while True:
            start = rng.randint(*START_RANGE)
            target = rng.randint(*config["target_range"])
            steps = fewest_steps(start, config["max_value"]).get(target)
            if steps is not None and config["min_steps"] <= steps <= config["max_steps"]:
                break
        self.value, self.target = start, target
        self.max_value = config["max_value"]
        self.budget = steps + config["slack"]
        self.turns = 0
        self.done = False
        return (
            "Bring the register to the target value. Operations (one per turn): "
            f"'add k' or 'sub k' with k from 1 to {MAX_K}, or 'double'. The value must stay "
            f"between 0 and {self.max_value}. Reply with one operation, e.g. 'add 2'.\n" + self.status()
        )

    def step(self, action: str):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"episode_over": True}
        self.turns += 1
        op = parse_op(action)
        refused = True
        if op is None:
            note = "No operation understood (use 'add k', 'sub k' or 'double')."
        elif op[0] != "double" and (op[1] is None or not 1 <= op[1] <= MAX_K):
            note = f"Invalid: k must be a whole number from 1 to {MAX_K}."
        else:
            name, k = op
            new = 2 * self.value if name == "double" else \
                self.value + k if name == "add" else self.value - k
            label = "double" if name == "double" else f"{name} {k}"
            if 0 <= new <= self.max_value:
                self.value = new
                refused = False
                note = f"Applied {label}."
            else:
                note = f"Invalid: {label} would leave 0..{self.max_value}."
        info = {"value": self.value, "turns": self.turns, "invalid_action": refused}
        if self.value == self.target:
            self.done = True
            info["reached"] = True
            return f"{note} Register = {self.value}: target reached!", 1.0, True, False, info
        info["reached"] = False
        if self.turns >= self.budget:
            self.done = True
            return f"{note} Out of moves. {self.status()}", 0.0, False, True, info
        return f"{note} {self.status()}", 0.0, False, False, info
