"""Code breaker (Mastermind-style), a levelled family.

A secret code of `length` digits, each from 1..`digits` (repeats allowed), is
hidden. Each turn the agent guesses a code and is told how many digits are
exact (right digit, right place) and how many are partial (right digit, wrong
place). To vary the start, the first observation also shows one free clue: a
random non-secret code with its feedback. Reward 1.0 when a guess matches the
code; the episode is truncated after `guesses` guesses.

The level sets the code length, the number of digits and the guess budget
(LEVELS below); level 3 is the family's size before levels (four digits from
1-6, ten guesses). Always guessing the first code (in numeric order) consistent
with all feedback so far solves every secret/clue pair within each level's
budget (checked exhaustively for levels 0-3, on seeds 0..4999 for levels 4-5).
"""

import random
import re

# One row per level: code length, digits 1..digits, guess budget (at least two more than
# the oracle needs: its worst case is 2, 4, 6 and 8 guesses at levels 0-3, checked
# exhaustively, and at most 8 and 10 guesses at levels 4-5 over seeds 0..4999).
LEVELS = [
    {"length": 2, "digits": 2, "guesses": 4},
    {"length": 2, "digits": 4, "guesses": 6},
    {"length": 3, "digits": 5, "guesses": 8},
    {"length": 4, "digits": 6, "guesses": 10},   # the size before levels
    {"length": 5, "digits": 7, "guesses": 12},
    {"length": 5, "digits": 9, "guesses": 14},
]
MAX_TURNS = max(row["guesses"] for row in LEVELS)


def score(guess, secret, digits):
    """Return (exact, partial) counts for two equal-length digit strings."""
    exact = sum(1 for g, s in zip(guess, secret) if g == s)
    common = sum(min(guess.count(d), secret.count(d)) for d in "123456789"[:digits])
    return exact, common - exact


def random_code(rng, length, digits):
    return "".join(str(rng.randint(1, digits)) for _ in range(length))


def example_code(length):
    """The example shown in the prompt: 11, 112, 1122, 11223, ..."""
    return "".join(str(1 + i // 2) for i in range(length))


def guess_pattern(length):
    """A group of `length` digits (separators allowed between them), any digit 0-9."""
    return re.compile(r"(?<!\d)\d(?:[\s,\-]*\d){%d}(?!\d)" % (length - 1))


def parse_guess(text, pattern, digits):
    """The last code-length group of digits in the text, or None when there is none or
    it holds a digit outside 1..digits (a list of candidate codes is read as its last)."""
    if not isinstance(text, str):
        return None
    matches = pattern.findall(text)
    if not matches:
        return None
    code = "".join(ch for ch in matches[-1] if ch.isdigit())
    return code if all("1" <= ch <= str(digits) for ch in code) else None


class CodeBreakerEnv:
    def __init__(self):
        self.level = 0
        self.length = LEVELS[0]["length"]
        self.digits = LEVELS[0]["digits"]
        self.guesses = LEVELS[0]["guesses"]
        self.pattern = guess_pattern(self.length)
        self.secret = ""
        self.turns = 0
        self.done = True
        self.history = []  # (code, exact, partial): the free clue, then every valid guess

    def reset(self, seed: int, level: int = 0) -> str:
        if not 0 <= level < len(LEVELS):
            raise ValueError(f"level must be 0..{len(LEVELS) - 1}, got {level}")
        row = LEVELS[level]
        self.level = level
        self.length, self.digits, self.guesses = row["length"], row["digits"], row["guesses"]
        self.pattern = guess_pattern(self.length)
        rng = random.Random(seed)
        self.secret = random_code(rng, self.length, self.digits)
        clue = random_code(rng, self.length, self.digits)
        while clue == self.secret:
            clue = random_code(rng, self.length, self.digits)
        exact, partial = score(clue, self.secret, self.digits)
        self.turns = 0
        self.done = False
        self.history = [(clue, exact, partial)]
        return (
            f"Break the secret code: {self.length} digits, each from 1 to {self.digits}, "
            f"repeats allowed. After each guess you get 'exact' (right digit, right place) "
            f"and 'partial' (right digit, wrong place) counts. Free clue: {clue} scores "
            f"exact {exact}, partial {partial}. You have {self.guesses} guesses. "
            f"Reply with one code per turn, e.g. 'Guess: {example_code(self.length)}'."
        )

    def step(self, action: str):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"episode_over": True}
        self.turns += 1
        left = self.guesses - self.turns
        guess = parse_guess(action, self.pattern, self.digits)
        if guess is None:
            feedback = (f"Invalid guess: write {self.length} digits from 1 to {self.digits}, "
                        f"e.g. 'Guess: {example_code(self.length)}'. Guesses left: {left}.")
            info = {"correct": False, "valid": False, "invalid_action": True, "turns": self.turns}
        else:
            exact, partial = score(guess, self.secret, self.digits)
            self.history.append((guess, exact, partial))
            if exact == self.length:
                self.done = True
                return f"Correct! The code was {self.secret}.", 1.0, True, False, {
                    "correct": True, "turns": self.turns}
            feedback = f"Guess {guess}: exact {exact}, partial {partial}. Guesses left: {left}."
            info = {"correct": False, "valid": True, "exact": exact, "partial": partial,
                    "turns": self.turns}
        if left <= 0:
            self.done = True
            feedback += f" Out of guesses; the code was {self.secret}."
            return feedback, 0.0, False, True, info
        return feedback, 0.0, False, False, info
