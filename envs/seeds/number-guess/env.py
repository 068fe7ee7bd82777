"""Guess the secret number with higher/lower feedback.

The range size N is drawn from the level's min_n..max_n (LEVELS) and a secret
integer from 1..N. Each turn the agent guesses one integer and is told whether
the secret is higher or lower. Reward 1.0 when the guess equals the secret; the
episode is truncated when the guesses run out. The budget, ceil(log2 N) + slack,
is never less than binary search needs: slack 1 leaves no spare guess when N is a
power of two, slack 2 one spare, and so on; level 0 is generous.
"""

import math
import random
import re

# One entry per level, easiest first: N is drawn from min_n..max_n, the budget is
# ceil(log2 N) + slack, and example is the guess the first observation shows.
LEVELS = [
    {"min_n": 6, "max_n": 10, "slack": 6, "example": 2},
    {"min_n": 16, "max_n": 32, "slack": 3, "example": 5},
    {"min_n": 50, "max_n": 100, "slack": 2, "example": 20},
    {"min_n": 150, "max_n": 300, "slack": 2, "example": 60},
    {"min_n": 500, "max_n": 1000, "slack": 2, "example": 250},  # STATIC_LEVEL
    {"min_n": 2000, "max_n": 4000, "slack": 2, "example": 1000},
    {"min_n": 8000, "max_n": 16000, "slack": 1, "example": 3000},
    {"min_n": 30000, "max_n": 60000, "slack": 1, "example": 10000},
]
STATIC_LEVEL = 4     # the family's size before it had levels: N in 500..1000


def guess_budget(n, slack=2):
    """ceil(log2 n) + slack guesses; binary search needs at most ceil(log2 n) + 1."""
    return math.ceil(math.log2(n)) + slack


MAX_TURNS = max(guess_budget(level["max_n"], level["slack"]) for level in LEVELS)

INT_RE = re.compile(r"(?<!\d)-?\d{1,9}(?!\d)")


def parse_int(text):
    matches = INT_RE.findall(text if isinstance(text, str) else "")
    return int(matches[-1]) if matches else None


class NumberGuessEnv:
    def __init__(self):
        self.n = 1000      # the secret lies in 1..n (public: stated in the first observation)
        self.budget = 0
        self.secret = 0
        self.turns = 0
        self.done = True
        self.history = []  # (guess, feedback word) pairs the agent has been told

    def reset(self, seed: int, level: int = 0) -> str:
        if not 0 <= level < len(LEVELS):
            raise ValueError(f"level must be in 0..{len(LEVELS) - 1}, got {level}")
        config = LEVELS[level]
        rng = random.Random(seed)
        self.n = rng.randint(config["min_n"], config["max_n"])
        self.secret = rng.randint(1, self.n)
        self.budget = guess_budget(self.n, config["slack"])
        self.turns = 0
        self.done = False
        self.history = []
        return (
            f"I picked a secret whole number from 1 to {self.n}. Guess it: after each guess I "
            f"will say 'higher' or 'lower'. You have {self.budget} guesses. "
            f"Reply with one integer per turn, e.g. 'Guess: {config['example']}'."
        )

    def step(self, action: str):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"episode_over": True}
        self.turns += 1
        left = self.budget - self.turns
        guess = parse_int(action)
        if guess == self.secret:
            self.done = True
            self.history.append((guess, "correct"))
            return f"Correct! The secret was {self.secret}.", 1.0, True, False, {
                "correct": True, "turns": self.turns}
        if guess is None:
            feedback = f"I could not find an integer in your reply. Guesses left: {left}."
            self.history.append((None, "invalid"))
        elif guess < self.secret:
            feedback = f"{guess} is too low: the secret is higher. Guesses left: {left}."
            self.history.append((guess, "higher"))
        else:
            feedback = f"{guess} is too high: the secret is lower. Guesses left: {left}."
            self.history.append((guess, "lower"))
        info = {"correct": False, "turns": self.turns, "invalid_action": guess is None}
        if left <= 0:
            self.done = True
            feedback += f" Out of guesses; the secret was {self.secret}."
            return feedback, 0.0, False, True, info
        return feedback, 0.0, False, False, info
