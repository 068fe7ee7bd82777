"""Reference policy: parse the sequence and run the O(n^2) LIS dynamic programme."""

import re


def act(env, observation: str) -> str:
    line = re.search(r"Sequence: ([\d ]+)", observation)
    if not line:
        return "0"
    sequence = [int(x) for x in line.group(1).split()]
    best = []  # best[i] = longest increasing subsequence ending at position i
    for i, x in enumerate(sequence):
        best.append(1 + max([best[j] for j in range(i) if sequence[j] < x], default=0))
    return f"Answer: {max(best, default=0)}"
