"""Planted subset sum.

The agent sees a numbered list of positive integers and a target. It must reply
with the indices (1-based, comma-separated) of a subset whose numbers add up to
the target exactly. A subset with the target sum is planted when the instance is
generated, but any subset with the right sum wins. Single turn: reward 1.0 for a
valid subset, 0.0 otherwise.
"""

import random
import re

COUNT = 10           # how many numbers are listed
MIN_VALUE = 10       # numbers are drawn from MIN_VALUE..MAX_VALUE
MAX_VALUE = 99
MIN_SUBSET = 3       # size of the planted subset
MAX_SUBSET = 5
MAX_TURNS = 1

LIST_RE = re.compile(r"(?<!\d)\d{1,3}(?:\s*,\s*\d{1,3})+(?!\d)")
INT_RE = re.compile(r"(?<!\d)\d{1,3}(?!\d)")


def make_instance(rng):
    """Return (numbers, planted index list, target) with the target not in numbers."""
    while True:
        numbers = [rng.randint(MIN_VALUE, MAX_VALUE) for _ in range(COUNT)]
        size = rng.randint(MIN_SUBSET, MAX_SUBSET)
        planted = sorted(rng.sample(range(COUNT), size))
        target = sum(numbers[i] for i in planted)
        if target not in numbers:
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
        self.done = True

    def reset(self, seed: int) -> str:
        rng = random.Random(seed)
        self.numbers, self.planted, self.target = make_instance(rng)
        self.done = False
        listing = ", ".join(f"#{i + 1}: {n}" for i, n in enumerate(self.numbers))
        return (
            f"Numbers: {listing}.\n"
            f"Target: {self.target}.\n"
            "Choose some of the numbers (each at most once) whose sum is exactly the target. "
            "Reply with their indices, comma-separated, in the form 'Indices: i,j,k' "
            "(as many as needed)."
        )

    def malformed(self, indices):
        """Why the indices do not name a subset of the numbers at all, or None."""
        if not indices:
            return "no indices found"
        if len(set(indices)) != len(indices):
            return "an index is repeated"
        if any(i < 1 or i > COUNT for i in indices):
            return f"indices must be between 1 and {COUNT}"
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
        self.done = True
        indices = parse_indices(action)
        error = self.check(indices)
        if error is None:
            return "Correct: the subset hits the target.", 1.0, True, False, {
                "correct": True, "indices": indices}
        return f"Wrong: {error}.", 0.0, True, False, {
            "correct": False, "indices": indices[:COUNT + 1], "invalid_action": self.malformed(indices) is not None}
