"""Grid navigation with walls.

The agent stands on a small grid with walls and must walk to the goal cell using
the moves up, down, left and right (one cell per turn). Each observation shows
the map, the agent's position and the moves left. The move budget is the length
of the shortest route plus a small slack, so wandering fails. Reward 1.0 on
reaching the goal; the episode is truncated when the moves run out. Every grid
is checked with breadth-first search at generation time, so it is solvable.
"""

import random
import re
from collections import deque

SIZE = 8             # the grid is SIZE x SIZE
WALL_PROB = 0.28     # chance that a cell is a wall
MIN_DIST = 8         # shortest route length, in moves, lies in MIN_DIST..MAX_DIST
MAX_DIST = 16
SLACK = 4            # extra moves on top of the shortest route
MAX_TURNS = MAX_DIST + SLACK

MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
ALIASES = {"up": "up", "down": "down", "left": "left", "right": "right",
           "north": "up", "south": "down", "west": "left", "east": "right"}
MOVE_RE = re.compile(r"\b(up|down|left|right|north|south|east|west)\b", re.IGNORECASE)


def bfs_distances(walls, start):
    """Map each reachable cell to its distance (in moves) from start."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        for dr, dc in MOVES.values():
            nxt = (r + dr, c + dc)
            if 0 <= nxt[0] < SIZE and 0 <= nxt[1] < SIZE and nxt not in walls \
                    and nxt not in dist:
                dist[nxt] = dist[(r, c)] + 1
                queue.append(nxt)
    return dist


def make_grid(rng):
    """Return (walls, start, goal, distance) for a solvable instance."""
    cells = [(r, c) for r in range(SIZE) for c in range(SIZE)]
    while True:
        walls = {cell for cell in cells if rng.random() < WALL_PROB}
        open_cells = [cell for cell in cells if cell not in walls]
        if len(open_cells) < 2:
            continue
        start = rng.choice(open_cells)
        dist = bfs_distances(walls, start)
        goals = [cell for cell in open_cells if MIN_DIST <= dist.get(cell, -1) <= MAX_DIST]
        if goals:
            goal = rng.choice(goals)
            return walls, start, goal, dist[goal]


def parse_move(text):
    """The last direction word in the text, normalised to up/down/left/right."""
    if not isinstance(text, str):
        return None
    matches = MOVE_RE.findall(text)
    return ALIASES[matches[-1].lower()] if matches else None


class GridNavigationEnv:
    def __init__(self):
        self.walls = set()
        self.pos = (0, 0)
        self.goal = (0, 0)
        self.budget = 0
        self.turns = 0
        self.done = True

    def render(self):
        rows = []
        for r in range(SIZE):
            row = ""
            for c in range(SIZE):
                cell = (r, c)
                row += "A" if cell == self.pos else "G" if cell == self.goal \
                    else "#" if cell in self.walls else "."
            rows.append(row)
        return "\n".join(rows)

    def status(self):
        return (f"{self.render()}\nYou (A) are at row {self.pos[0]}, col {self.pos[1]}; "
                f"goal (G) at row {self.goal[0]}, col {self.goal[1]}. "
                f"Moves left: {self.budget - self.turns}.")

    def reset(self, seed: int) -> str:
        rng = random.Random(seed)
        self.walls, self.pos, self.goal, shortest = make_grid(rng)
        self.budget = shortest + SLACK
        self.turns = 0
        self.done = False
        return (
            f"Walk to the goal on this {SIZE}x{SIZE} map ('#' wall, '.' floor). Row 0 is the "
            "top, col 0 the left. Reply with one move per turn: up, down, left or right.\n"
            + self.status()
        )

    def step(self, action: str):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"episode_over": True}
        self.turns += 1
        move = parse_move(action)
        if move is None:
            note = "No move understood (use up, down, left or right)."
        else:
            dr, dc = MOVES[move]
            target = (self.pos[0] + dr, self.pos[1] + dc)
            inside = 0 <= target[0] < SIZE and 0 <= target[1] < SIZE
            if inside and target not in self.walls:
                self.pos = target
                note = f"You moved {move}."
            else:
                note = f"Blocked: cannot move {move}."
        info = {"moved": move, "row": self.pos[0], "col": self.pos[1], "turns": self.turns,
                "invalid_action": move is None}
        if self.pos == self.goal:
            self.done = True
            info["reached"] = True
            return f"{note} You reached the goal!", 1.0, True, False, info
        info["reached"] = False
        if self.turns >= self.budget:
            self.done = True
            return f"{note} Out of moves.\n{self.status()}", 0.0, False, True, info
        return f"{note}\n{self.status()}", 0.0, False, False, info
