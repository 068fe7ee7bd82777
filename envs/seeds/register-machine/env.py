"""Register machine: reach a target value with a few operations.

A single register holds a start value. Each turn the agent applies one
operation: 'add k' or 'sub k' (k from 1 to MAX_K) or 'double'. The register must
stay within 0..MAX_VALUE. The move budget is the fewest operations that reach
the target plus SLACK. Reward 1.0 when the register equals the target; the
episode is truncated when the budget runs out.
"""

import random
import re
from collections import deque

MAX_K = 3
MAX_VALUE = 999
START_RANGE = (1, 15)
TARGET_RANGE = (40, 300)
MIN_STEPS = 5        # fewest operations needed lies in MIN_STEPS..MAX_STEPS
MAX_STEPS = 9
SLACK = 2
MAX_TURNS = MAX_STEPS + SLACK

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


def fewest_steps(start):
    """BFS over register values: distance from start to every reachable value."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        value = queue.popleft()
        for _, fn in operations():
            nxt = fn(value)
            if 0 <= nxt <= MAX_VALUE and nxt not in dist:
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
        self.budget = 0
        self.turns = 0
        self.done = True

    def status(self):
        return (f"Register = {self.value}. Target = {self.target}. "
                f"Moves left: {self.budget - self.turns}.")

    def reset(self, seed: int) -> str:
        rng = random.Random(seed)
        while True:
            start = rng.randint(*START_RANGE)
            target = rng.randint(*TARGET_RANGE)
            steps = fewest_steps(start).get(target)
            if steps is not None and MIN_STEPS <= steps <= MAX_STEPS:
                break
        self.value, self.target = start, target
        self.budget = steps + SLACK
        self.turns = 0
        self.done = False
        return (
            "Bring the register to the target value. Operations (one per turn): "
            f"'add k' or 'sub k' with k from 1 to {MAX_K}, or 'double'. The value must stay "
            f"between 0 and {MAX_VALUE}. Reply with one operation, e.g. 'add 2'.\n" + self.status()
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
            if 0 <= new <= MAX_VALUE:
                self.value = new
                refused = False
                note = f"Applied {label}."
            else:
                note = f"Invalid: {label} would leave 0..{MAX_VALUE}."
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
