"""Reference policy: BFS over register values from the current value to the target.

It reads the value ceiling of the episode's level from env.max_value.
"""

import re
from collections import deque

MAX_K = 3


def act(env, observation: str) -> str:
    found = re.search(r"Register = (\d+)\. Target = (\d+)", observation)
    if not found:
        return "double"
    value, target = int(found.group(1)), int(found.group(2))
    max_value = env.max_value
    ops = [("double", lambda x: 2 * x)]
    ops += [(f"add {k}", lambda x, k=k: x + k) for k in range(MAX_K, 0, -1)]
    ops += [(f"sub {k}", lambda x, k=k: x - k) for k in range(MAX_K, 0, -1)]
    first_move = {value: None}
    queue = deque([value])
    while queue:
        current = queue.popleft()
        if current == target:
            return first_move[current] or "double"
        for label, fn in ops:
            nxt = fn(current)
            if 0 <= nxt <= max_value and nxt not in first_move:
                first_move[nxt] = first_move[current] or label
                queue.append(nxt)
    return "double"
