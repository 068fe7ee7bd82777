"""Reference policy: read the map from the observation and follow a BFS shortest path."""

from collections import deque

STEPS = [("up", -1, 0), ("down", 1, 0), ("left", 0, -1), ("right", 0, 1)]


def act(env, observation: str) -> str:
    rows = [line for line in observation.split("\n")
            if line and set(line) <= set(".#AG")]
    start = goal = None
    for r, line in enumerate(rows):
        for c, ch in enumerate(line):
            if ch == "A":
                start = (r, c)
            elif ch == "G":
                goal = (r, c)
    if start is None or goal is None:
        return "up"
    # BFS backwards from the goal, then step to any neighbour that is one closer.
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        r, c = queue.popleft()
        for _, dr, dc in STEPS:
            nr, nc = r + dr, c + dc
            if 0 <= nr < len(rows) and 0 <= nc < len(rows[nr]) and rows[nr][nc] != "#" \
                    and (nr, nc) not in dist:
                dist[(nr, nc)] = dist[(r, c)] + 1
                queue.append((nr, nc))
    here = dist.get(start)
    for name, dr, dc in STEPS:
        if here is not None and dist.get((start[0] + dr, start[1] + dc)) == here - 1:
            return name
    return "up"
