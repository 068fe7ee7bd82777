"""Reference policy: parse items and capacity, solve with dynamic programming."""

import re


def act(env, observation: str) -> str:
    cap = re.search(r"capacity: (\d+)", observation)
    items = re.findall(r"weight (\d+), value (\d+)", observation)
    if not cap or not items:
        return "0"
    capacity = int(cap.group(1))
    table = [0] * (capacity + 1)
    for w_text, v_text in items:
        w, v = int(w_text), int(v_text)
        for c in range(capacity, w - 1, -1):
            table[c] = max(table[c], table[c - w] + v)
    return f"Answer: {table[capacity]}"
