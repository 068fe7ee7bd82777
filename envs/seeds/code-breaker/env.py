"""Code breaker (Mastermind-style).

A secret code of CODE_LENGTH digits, each from 1..DIGITS (repeats allowed), is
hidden. Each turn the agent guesses a code and is told how many digits are
exact (right digit, right place) and how many are partial (right digit, wrong
place). To vary the start, the first observation also shows one free clue: a
random non-secret code with its feedback. Reward 1.0 when a guess matches the
code; the episode is truncated after MAX_TURNS guesses. Always guessing the
first code (in numeric order) consistent with all feedback so far solves every
secret/clue pair within 8 guesses (checked exhaustively).
"""

import random
import re

CODE_LENGTH = 4
DIGITS = 6
MAX_TURNS = 10

GUESS_RE = re.compile(
    r"(?<!\d)[1-%d](?:[\s,\-]*[1-%d]){%d}(?!\d)" % (DIGITS, DIGITS, CODE_LENGTH - 1))


def score(guess, secret):
    """Return (exact, partial) counts for two equal-length digit strings."""
    exact = sum(1 for g, s in zip(guess, secret) if g == s)
    common = sum(min(guess.count(d), secret.count(d)) for d in "123456789"[:DIGITS])
    return exact, common - exact


def random_code(rng):
    return "".join(str(rng.randint(1, DIGITS)) for _ in range(CODE_LENGTH))


def parse_guess(text):
    """The last code-shaped group of digits in the text (separators allowed), or None."""
    if not isinstance(text, str):
        return None
    matches = GUESS_RE.findall(text)
    if not matches:
        return None
    return "".join(ch for ch in matches[-1] if ch.isdigit())


class CodeBreakerEnv:
    def __init__(self):
        self.secret = ""
        self.turns = 0
        self.done = True
        self.history = []  # (code, exact, partial): the free clue, then every valid guess

    def reset(self, seed: int) -> str:
        rng = random.Random(seed)
        self.secret = random_code(rng)
        clue = random_code(rng)
        while clue == self.secret:
            clue = random_code(rng)
        exact, partial = score(clue, self.secret)
        self.turns = 0
        self.done = False
        self.history = [(clue, exact, partial)]
        return (
            f"Break the secret code: {CODE_LENGTH} digits, each from 1 to {DIGITS}, repeats "
            f"allowed. After each guess you get 'exact' (right digit, right place) and "
            f"'partial' (right digit, wrong place) counts. Free clue: {clue} scores "
            f"exact {exact}, partial {partial}. You have {MAX_TURNS} guesses. "
            "Reply with one code per turn, e.g. 'Guess: 1122'."
        )

    def step(self, action: str):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"episode_over": True}
        self.turns += 1
        left = MAX_TURNS - self.turns
        guess = parse_guess(action)
        if guess is None:
            feedback = (f"Invalid guess: write {CODE_LENGTH} digits from 1 to {DIGITS}, "
                        f"e.g. 'Guess: 1122'. Guesses left: {left}.")
            info = {"correct": False, "valid": False, "invalid_action": True, "turns": self.turns}
        else:
            exact, partial = score(guess, self.secret)
            self.history.append((guess, exact, partial))
            if exact == CODE_LENGTH:
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
