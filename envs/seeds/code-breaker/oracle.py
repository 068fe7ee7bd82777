"""Reference policy: always guess the first code consistent with all feedback so far.

This only uses the feedback the agent has been shown (env.history: the free
clue from the first observation plus every scored guess); it never reads the
secret. Without a clue it would open with 1122.
"""

import itertools


def _score(guess, secret):
    exact = sum(1 for g, s in zip(guess, secret) if g == s)
    common = sum(min(guess.count(d), secret.count(d)) for d in "123456")
    return exact, common - exact


def act(env, observation: str) -> str:
    if not env.history:
        return "Guess: 1122"
    for digits in itertools.product("123456", repeat=4):
        code = "".join(digits)
        if all(_score(g, code) == (e, p) for g, e, p in env.history):
            return f"Guess: {code}"
    return "Guess: 1111"
