
import math
import random
import re

LOW_BOUND = 2000
HIGH_BOUND = 5000

def allowance(n):
    """ceil(log2 n) + 1 guesses (more than binary search ever needs) plus one spare."""
    return math.ceil(math.log2(n)) + 2

TURN_CAP = allowance(HIGH_BOUND)

NUMBER_PATTERN = re.compile(r"(?<!\d)-?\d{1,9}(?!\d)")

def read_number(text):
    found = NUMBER_PATTERN.findall(text if isinstance(text, str) else "")
    return int(found[-1]) if found else None

class HiddenValueGame:
    def __init__(self):
        self.n = HIGH_BOUND     # the secret lies in 1..n (public: stated in the first observation)
        self.allowed = 0
        self.secret = 0
        self.tries = 0
        self.done = True
        self.log = []  # (guess, reply verdict) pairs the agent has been told

    def reset(self, seed: int) -> str:
        generator = random.Random(seed)
        self.n = generator.randint(LOW_BOUND, HIGH_BOUND)
        self.secret = generator.randint(1, self.n)
        self.allowed = allowance(self.n)
        self.tries = 0
        self.done = False
        self.log = []
        return (
            f"I picked a secret whole number from 1 to {self.n}. Guess it: after each guess I "
            f"will say 'higher' or 'lower'. You have {self.allowed} guesses. "
            "Reply with one integer per turn, e.g. 'Guess: 250'."
        )

    def step(self, action: str):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"episode_over": True}
        self.tries += 1
        left = self.allowed - self.tries
        guess = read_number(action)
        if guess == self.secret:
            self.done = True
            self.log.append((guess, "correct"))
            return f"Correct! The secret was {self.secret}.", 1.0, True, False, {
                "correct": True, "tries": self.tries}
        if guess is None:
            reply = f"I could not find an integer in your reply. Guesses left: {left}."
            self.log.append((None, "invalid"))
        elif guess < self.secret:
            reply = f"{guess} is too low: the secret is higher. Guesses left: {left}."
            self.log.append((guess, "higher"))
        else:
            reply = f"{guess} is too high: the secret is lower. Guesses left: {left}."
            self.log.append((guess, "lower"))
        info = {"correct": False, "tries": self.tries, "invalid_action": guess is None}
        if left <= 0:
            self.done = True
            reply += f" Out of guesses; the secret was {self.secret}."
            return reply, 0.0, False, True, info
        return reply, 0.0, False, False, info
