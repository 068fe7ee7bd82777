"""Planted subset sum.

The agent sees a numbered list of positive integers and a target. It must reply
with the indices (1-based, comma-separated) of a subset whose numbers add up to
the target exactly. A subset with the target sum is planted when the instance is
generated, but any subset with the right sum wins. Reward 1.0 for a valid
subset, 0.0 otherwise. The level (LEVELS) sets how many numbers are listed, their
range, the size of the planted subset (one number at level 0: the target is in the list)
and the number of tries: at levels 0 and 1
a wrong answer is told what its numbers sum to and the agent may answer again (3
and 2 tries), from level 2 on there is one answer.
"""

import random
import re

# One entry per level, easiest first: count numbers are listed, drawn from
# min_value..max_value, and the planted subset has min_subset..max_subset of them.
LEVELS = [
    {"count": 3, "min_value": 1, "max_value": 20, "min_subset": 1, "max_subset": 1, "tries": 3},  # the target is one of the numbers
    {"count": 4, "min_value": 1, "max_value": 30, "min_subset": 2, "max_subset": 3, "tries": 2},
    {"count": 6, "min_value": 5, "max_value": 50, "min_subset": 2, "max_subset": 3, "tries": 1},
    {"count": 8, "min_value": 10, "max_value": 99, "min_subset": 3, "max_subset": 4, "tries": 1},
    {"count": 10, "min_value": 10, "max_value": 99, "min_subset": 3, "max_subset": 5, "tries": 1},  # STATIC_LEVEL
    {"count": 13, "min_value": 10, "max_value": 199, "min_subset": 4, "max_subset": 6, "tries": 1},
    {"count": 16, "min_value": 100, "max_value": 999, "min_subset": 5, "max_subset": 8, "tries": 1},
    {"count": 20, "min_value": 100, "max_value": 999, "min_subset": 6, "max_subset": 10, "tries": 1},
]
STATIC_LEVEL = 4     # the family's size before it had levels: ten numbers 10-99, 3-5 planted
MAX_TURNS = max(row["tries"] for row in LEVELS)

LIST_RE = re.compile(r"(?<!\d)\d{1,3}(?:\s*,\s*\d{1,3})+(?!\d)")
INT_RE = re.compile(r"(?<!\d)\d{1,3}(?!\d)")


def make_instance(rng, config):
    """Return (numbers, planted index list, target): with a planted subset of one, the target is one
    of the numbers and no other number equals it; otherwise the target is not among the numbers."""
    count = config["count"]
    while True:
        numbers = [rng.randint(config["min_value"], config["max_value"]) for _ in range(count)]
        size = rng.randint(config["min_subset"], config["max_subset"])
        planted = sorted(rng.sample(range(count), size))
        target = sum(numbers[i] for i in planted)
        if (numbers.count(target) == 1) if size == 1 else (target not in numbers):
            return numbers, planted, target


def parse_indices(text):
    """Indices from the last comma-separated list, else the last lone integer."""
    if not isinstance(text, str):
        return []
    lists = LIST_RE.findall(text)
    if lists:
        return [int(x) for x in re.findall(r"\d+", lists[-1])]
    singles = INT_RE.findall(text)
    return [int(singles[-1])] if singles else []


class SubsetSumEnv:
    def __init__(self):
        self.numbers = []
        self.planted = []
        self.target = 0
        self.count = 0
        self.tries_left = 1
        self.done = True

    def reset(self, seed: int, level: int = 0) -> str:
        if not 0 <= level < len(LEVELS):
            raise ValueError(f"level must be in 0..{len(LEVELS) - 1}, got {level}")
        config = LEVELS[level]
        rng = random.Random(seed)
        self.count = config["count"]
        self.numbers, self.planted, self.target = make_instance(rng, config)
        self.tries_left = config["tries"]
        self.done = False
        tries = f" You have {self.tries_left} tries." if self.tries_left > 1 else ""
        listing = ", ".join(f"#{i + 1}: {n}" for i, n in enumerate(self.numbers))
        return (
            f"Numbers: {listing}.\n"
            f"Target: {self.target}.\n"
            "Choose some of the numbers (each at most once) whose sum is exactly the target. "
            "Reply with their indices, comma-separated, in the form 'Indices: 1,3' "
            f"(as many as needed).{tries}"
        )

    def malformed(self, indices):
        """Why the indices do not name a subset of the numbers at all, or None."""
        if not indices:
            return "no indices found"
        if len(set(indices)) != len(indices):
            return "an index is repeated"
        if any(i < 1 or i > self.count for i in indices):
            return f"indices must be between 1 and {self.count}"
        return None

    def check(self, indices):
        """Return an error message, or None if the indices form a valid subset."""
        malformed = self.malformed(indices)
        if malformed is not None:
            return malformed
        total = sum(self.numbers[i - 1] for i in indices)
        if total != self.target:
            return f"those numbers sum to {total}, not {self.target}"
        return None

    def step(self, action: str):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"episode_over": True}
        self.tries_left -= 1
        self.done = self.tries_left <= 0
        indices = parse_indices(action)
        error = self.check(indices)
        if error is None:
            self.done = True
            return "Correct: the subset hits the target.", 1.0, True, False, {
                "correct": True, "indices": indices}
        again = "" if self.done else f" Try again ({self.tries_left} left)."
        return f"Wrong: {error}.{again}", 0.0, self.done, False, {
            "correct": False, "indices": indices[:self.count + 1], "invalid_action": self.malformed(indices) is not None}
