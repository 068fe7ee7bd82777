"""Small 0/1 knapsack, a levelled family.

The agent sees a handful of items, each with a weight and a value, and a
knapsack capacity. It must reply with the maximum total value of a set of items
(each used at most once) whose total weight fits the capacity, as one integer.
Reward 1.0 for the exact optimum, 0.0 otherwise. From level 2 on,
instances are chosen so that the greedy value-per-weight heuristic is not
optimal when such an instance is found within a few tries.

The level sets the number of items (level 0: one item, which fits) and the number of tries (LEVELS below): at
levels 0 and 1 a wrong answer is told so and the agent may answer again (3 and
2 tries), from level 2 on there is one answer. Level 4 is the family's size
before levels (7 items, one try).
"""

import random
import re

# One row per level: items, weights 1..maxItemWeight, values 1..maxItemValue, and how many
# random instances are tried in search of one where greedy fails (1: take the first).
LEVELS = [
    {"items": 1, "maxItemWeight": 12, "maxItemValue": 40, "greedyTries": 1, "tries": 3},    # one item, and it fits
    {"items": 3, "maxItemWeight": 12, "maxItemValue": 40, "greedyTries": 1, "tries": 2},
    {"items": 5, "maxItemWeight": 12, "maxItemValue": 40, "greedyTries": 30, "tries": 1},
    {"items": 6, "maxItemWeight": 12, "maxItemValue": 40, "greedyTries": 30, "tries": 1},
    {"items": 7, "maxItemWeight": 12, "maxItemValue": 40, "greedyTries": 30, "tries": 1},   # the size before levels
    {"items": 9, "maxItemWeight": 12, "maxItemValue": 40, "greedyTries": 30, "tries": 1},
    {"items": 11, "maxItemWeight": 12, "maxItemValue": 40, "greedyTries": 30, "tries": 1},
    {"items": 13, "maxItemWeight": 12, "maxItemValue": 40, "greedyTries": 30, "tries": 1},
]
CAPACITY_FRACTION = 0.5  # capacity is about this share of the total weight
MAX_TURNS = max(row["tries"] for row in LEVELS)

INT_RE = re.compile(r"(?<!\d)-?\d{1,9}(?!\d)")


def best_value(weights, values, capacity):
    """Classic DP over capacities."""
    table = [0] * (capacity + 1)
    for w, v in zip(weights, values):
        for c in range(capacity, w - 1, -1):
            table[c] = max(table[c], table[c - w] + v)
    return table[capacity]


def greedy_value(weights, values, capacity):
    """Value obtained by taking items in order of value per weight."""
    order = sorted(range(len(weights)), key=lambda i: (-values[i] / weights[i], i))
    room, total = capacity, 0
    for i in order:
        if weights[i] <= room:
            room -= weights[i]
            total += values[i]
    return total


def make_instance(rng, row):
    candidate = None
    for _ in range(row["greedyTries"]):
        weights = [rng.randint(1, row["maxItemWeight"]) for _ in range(row["items"])]
        values = [rng.randint(1, row["maxItemValue"]) for _ in range(row["items"])]
        capacity = max(max(weights), int(sum(weights) * CAPACITY_FRACTION))
        candidate = (weights, values, capacity)
        if greedy_value(weights, values, capacity) != best_value(weights, values, capacity):
            break
    return candidate


def parse_int(text):
    matches = INT_RE.findall(text if isinstance(text, str) else "")
    return int(matches[-1]) if matches else None


class KnapsackEnv:
    def __init__(self):
        self.level = 0
        self.weights = []
        self.values = []
        self.capacity = 0
        self.answer = 0
        self.tries_left = 1
        self.done = True

    def reset(self, seed: int, level: int = 0) -> str:
        if not 0 <= level < len(LEVELS):
            raise ValueError(f"level must be 0..{len(LEVELS) - 1}, got {level}")
        self.level = level
        rng = random.Random(seed)
        self.weights, self.values, self.capacity = make_instance(rng, LEVELS[level])
        self.answer = best_value(self.weights, self.values, self.capacity)
        self.tries_left = LEVELS[level]["tries"]
        self.done = False
        tries = f" You have {self.tries_left} tries." if self.tries_left > 1 else ""
        items = "; ".join(f"item {i + 1}: weight {w}, value {v}"
                          for i, (w, v) in enumerate(zip(self.weights, self.values)))
        return (
            f"Knapsack capacity: {self.capacity}.\n"
            f"Items: {items}.\n"
            "Each item can be packed at most once and the total weight must not exceed the "
            "capacity. What is the maximum total value? Reply with one integer, in the "
            f"form 'Answer: <number>'.{tries}"
        )

    def step(self, action: str):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"episode_over": True}
        self.tries_left -= 1
        self.done = self.tries_left <= 0
        guess = parse_int(action)
        if guess == self.answer:
            self.done = True
            return f"Correct: the best value is {self.answer}.", 1.0, True, False, {
                "correct": True, "guess": guess}
        shown = "nothing" if guess is None else str(guess)
        again = "" if self.done else f" Try again ({self.tries_left} left)."
        return f"Wrong: you answered {shown}.{again}", 0.0, self.done, False, {
            "correct": False, "guess": guess, "invalid_action": guess is None}
