"""Reference policy: parse the numbers and target, then search subsets with a DP table."""

import re


def act(env, observation: str) -> str:
    numbers = [int(n) for n in re.findall(r"#\d+: (\d+)", observation)]
    found = re.search(r"Target: (\d+)", observation)
    if not numbers or not found:
        return "1"
    target = int(found.group(1))
    # reach[s] = list of indices (0-based) of one subset summing to s
    reach = {0: []}
    for i, n in enumerate(numbers):
        for s, chosen in list(reach.items()):
            t = s + n
            if t <= target and t not in reach:
                reach[t] = chosen + [i]
    chosen = reach.get(target, [0])
    return "Indices: " + ",".join(str(i + 1) for i in chosen)
