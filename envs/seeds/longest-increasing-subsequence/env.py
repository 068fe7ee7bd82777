"""Length of the longest strictly increasing subsequence, a levelled family.

The agent sees a sequence of distinct two-digit numbers and must reply with the
length of its longest strictly increasing subsequence (elements kept in their
original order, not necessarily adjacent) as one integer. Reward 1.0 for the
exact length, 0.0 otherwise.

The level sets the length of the sequence and the number of tries (LEVELS
below): at levels 0 and 1 a wrong answer is told so and the agent may answer
again (3 and 2 tries), from level 2 on there is one answer. Level 4 is the
family's size before levels (15 numbers, one try).
"""

import bisect
import random
import re

# One row per level: how many numbers are in the sequence, and how many answers may be given.
LEVELS = [
    {"length": 4, "tries": 3},
    {"length": 7, "tries": 2},
    {"length": 9, "tries": 1},
    {"length": 12, "tries": 1},
    {"length": 15, "tries": 1},   # the size before levels
    {"length": 20, "tries": 1},
    {"length": 25, "tries": 1},
    {"length": 30, "tries": 1},
]
MIN_VALUE = 10       # values are distinct and drawn from MIN_VALUE..MAX_VALUE
MAX_VALUE = 99
MAX_TURNS = max(row["tries"] for row in LEVELS)

INT_RE = re.compile(r"(?<!\d)-?\d{1,9}(?!\d)")


def lis_length(sequence):
    """Patience sorting: tails[k] is the smallest tail of an increasing run of length k+1."""
    tails = []
    for x in sequence:
        position = bisect.bisect_left(tails, x)
        if position == len(tails):
            tails.append(x)
        else:
            tails[position] = x
    return len(tails)


def parse_int(text):
    matches = INT_RE.findall(text if isinstance(text, str) else "")
    return int(matches[-1]) if matches else None


class LongestIncreasingSubsequenceEnv:
    def __init__(self):
        self.level = 0
        self.sequence = []
        self.answer = 0
        self.tries_left = 1
        self.done = True

    def reset(self, seed: int, level: int = 0) -> str:
        if not 0 <= level < len(LEVELS):
            raise ValueError(f"level must be 0..{len(LEVELS) - 1}, got {level}")
        self.level = level
        rng = random.Random(seed)
        self.sequence = rng.sample(range(MIN_VALUE, MAX_VALUE + 1), LEVELS[level]["length"])
        self.answer = lis_length(self.sequence)
        self.tries_left = LEVELS[level]["tries"]
        self.done = False
        numbers = " ".join(str(x) for x in self.sequence)
        tries = f" You have {self.tries_left} tries." if self.tries_left > 1 else ""
        return (
            f"Sequence: {numbers}\n"
            "Find the length of the longest strictly increasing subsequence (keep the "
            "original order; the chosen elements need not be adjacent). Reply with one "
            f"integer, in the form 'Answer: <number>'.{tries}"
        )

    def step(self, action: str):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"episode_over": True}
        self.tries_left -= 1
        self.done = self.tries_left <= 0
        guess = parse_int(action)
        if guess == self.answer:
            self.done = True
            return f"Correct: the longest increasing subsequence has length {self.answer}.", \
                1.0, True, False, {"correct": True, "guess": guess}
        shown = "nothing" if guess is None else str(guess)
        again = "" if self.done else f" Try again ({self.tries_left} left)."
        return f"Wrong: you answered {shown}.{again}", 0.0, self.done, False, {
            "correct": False, "guess": guess, "invalid_action": guess is None}
