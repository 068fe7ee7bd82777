"""Reference policy: always guess the first code consistent with all feedback so far.

This only uses the feedback the agent has been shown (env.history: the free
clue from the first observation plus every scored guess) and the level's code
shape (env.length, env.digits); it never reads the secret. Without a clue it
would open with 11, 112, 1122, ...

Codes are searched digit by digit in numeric order, and a prefix is dropped as
soon as some earlier guess can no longer get its exact count or its total
(exact + partial) count, so the largest levels stay fast.
"""


def act(env, observation: str) -> str:
    length, alphabet = env.length, "123456789"[:env.digits]
    if not env.history:
        return "Guess: " + "".join(str(1 + i // 2) for i in range(length))
    guesses = [(code, exact, exact + partial) for code, exact, partial in env.history]
    counts = [{d: code.count(d) for d in alphabet} for code, _, _ in guesses]
    prefix = []
    used = {d: 0 for d in alphabet}

    def search(position, exacts, commons):
        if position == length:
            return "".join(prefix)
        remaining = length - position - 1
        for digit in alphabet:
            new_exacts = []
            new_commons = []
            possible = True
            for index, (code, exact, common) in enumerate(guesses):
                e = exacts[index] + (code[position] == digit)
                c = commons[index] + (used[digit] < counts[index][digit])
                if e > exact or e + remaining < exact or c > common or c + remaining < common:
                    possible = False
                    break
                new_exacts.append(e)
                new_commons.append(c)
            if not possible:
                continue
            prefix.append(digit)
            used[digit] += 1
            found = search(position + 1, new_exacts, new_commons)
            used[digit] -= 1
            prefix.pop()
            if found is not None:
                return found
        return None

    found = search(0, [0] * len(guesses), [0] * len(guesses))
    return f"Guess: {found}" if found is not None else "Guess: " + "1" * length
