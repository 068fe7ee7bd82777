"""Guess the secret number with higher/lower feedback.

The range size N is drawn from MIN_N..MAX_N and a secret integer from 1..N.
Each turn the agent guesses one integer and is told whether the secret is higher
or lower. Reward 1.0 when the guess equals the secret; the episode is truncated
when the guesses run out. The budget, ceil(log2 N) + 2, is more than binary
search ever needs plus one spare guess.
"""

import math
import random
import re

MIN_N = 500
MAX_N = 1000


def guess_budget(n):
    """ceil(log2 n) + 1 guesses (more than binary search ever needs) plus one spare."""
    return math.ceil(math.log2(n)) + 2


MAX_TURNS = guess_budget(MAX_N)

INT_RE = re.compile(r"(?<!\d)-?\d{1,9}(?!\d)")


def parse_int(text):
    matches = INT_RE.findall(text if isinstance(text, str) else "")
    return int(matches[-1]) if matches else None


class NumberGuessEnv:
    def __init__(self):
        self.n = MAX_N     # the secret lies in 1..n (public: stated in the first observation)
        self.budget = 0
        self.secret = 0
        self.turns = 0
        self.done = True
        self.history = []  # (guess, feedback word) pairs the agent has been told

    def reset(self, seed: int) -> str:
        rng = random.Random(seed)
        self.n = rng.randint(MIN_N, MAX_N)
        self.secret = rng.randint(1, self.n)
        self.budget = guess_budget(self.n)
        self.turns = 0
        self.done = False
        self.history = []
        return (
            f"I picked a secret whole number from 1 to {self.n}. Guess it: after each guess I "
            f"will say 'higher' or 'lower'. You have {self.budget} guesses. "
            "Reply with one integer per turn, e.g. 'Guess: 250'."
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
