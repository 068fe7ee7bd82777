"""Grid navigation with walls, a levelled family.

The agent stands on a small grid with walls and must walk to the goal cell using
the moves up, down, left and right (one cell per turn). Each observation shows
the map, the agent's position and the moves left. The move budget is the length
of the shortest route plus a small slack, so wandering fails. Reward 1.0 on
reaching the goal; the episode is truncated when the moves run out. Every grid
is checked with breadth-first search at generation time, so it is solvable.

The level sets the grid size, the wall density and the range of shortest-route
lengths (LEVELS below); level 0 also says where the goal lies from the agent ('1 down
and 1 right'); level 5 is the family's size before levels (8x8).
"""

import random
import re
from collections import deque

# One row per level: the grid is size x size, each cell is a wall with chance wallProb,
# the shortest route (in moves) lies in minDist..maxDist, and the budget adds slack moves.
LEVELS = [
    {"size": 3, "wallProb": 0.15, "minDist": 1, "maxDist": 2, "slack": 1, "offset": True},  # 1-2 moves and 1 spare, the goal's offset said: level 0 fits the quick start's 3-turn cap and the random control still loses
    {"size": 4, "wallProb": 0.2, "minDist": 4, "maxDist": 6, "slack": 4},
    {"size": 5, "wallProb": 0.22, "minDist": 5, "maxDist": 8, "slack": 4},
    {"size": 6, "wallProb": 0.25, "minDist": 6, "maxDist": 11, "slack": 4},
    {"size": 7, "wallProb": 0.27, "minDist": 7, "maxDist": 13, "slack": 4},
    {"size": 8, "wallProb": 0.28, "minDist": 8, "maxDist": 16, "slack": 4},   # the size before levels
    {"size": 9, "wallProb": 0.3, "minDist": 10, "maxDist": 20, "slack": 4},
    {"size": 10, "wallProb": 0.3, "minDist": 12, "maxDist": 24, "slack": 4},
]
MAX_TURNS = max(row["maxDist"] + row["slack"] for row in LEVELS)

MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
ALIASES = {"up": "up", "down": "down", "left": "left", "right": "right",
           "north": "up", "south": "down", "west": "left", "east": "right"}
MOVE_RE = re.compile(r"\b(up|down|left|right|north|south|east|west)\b", re.IGNORECASE)


def bfs_distances(walls, start, size):
    """Map each reachable cell to its distance (in moves) from start."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        for dr, dc in MOVES.values():
            nxt = (r + dr, c + dc)
            if 0 <= nxt[0] < size and 0 <= nxt[1] < size and nxt not in walls \
                    and nxt not in dist:
                dist[nxt] = dist[(r, c)] + 1
                queue.append(nxt)
    return dist


def make_grid(rng, row):
    """Return (walls, start, goal, distance) for a solvable instance of level row `row`."""
    size = row["size"]
    cells = [(r, c) for r in range(size) for c in range(size)]
    while True:
        walls = {cell for cell in cells if rng.random() < row["wallProb"]}
        open_cells = [cell for cell in cells if cell not in walls]
        if len(open_cells) < 2:
            continue
        start = rng.choice(open_cells)
        dist = bfs_distances(walls, start, size)
        goals = [cell for cell in open_cells
                 if row["minDist"] <= dist.get(cell, -1) <= row["maxDist"]]
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
        self.level = 0
        self.size = LEVELS[0]["size"]
        self.offset = False
        self.walls = set()
        self.pos = (0, 0)
        self.goal = (0, 0)
        self.budget = 0
        self.turns = 0
        self.done = True

    def render(self):
        rows = []
        for r in range(self.size):
            row = ""
            for c in range(self.size):
                cell = (r, c)
                row += "A" if cell == self.pos else "G" if cell == self.goal \
                    else "#" if cell in self.walls else "."
            rows.append(row)
        return "\n".join(rows)

    def offset_text(self):
        """Where the goal lies from the agent, in moves ('1 down and 2 right'), for levels that say it."""
        rows, cols = self.goal[0] - self.pos[0], self.goal[1] - self.pos[1]
        parts = ([f"{abs(rows)} {'down' if rows > 0 else 'up'}"] if rows else []) + \
            ([f"{abs(cols)} {'right' if cols > 0 else 'left'}"] if cols else [])
        return f" The goal is {' and '.join(parts)} from you." if parts else ""

    def status(self):
        return (f"{self.render()}\nYou (A) are at row {self.pos[0]}, col {self.pos[1]}; "
                f"goal (G) at row {self.goal[0]}, col {self.goal[1]}."
                f"{self.offset_text() if self.offset else ''} Moves left: {self.budget - self.turns}.")

    def reset(self, seed: int, level: int = 0) -> str:
        if not 0 <= level < len(LEVELS):
            raise ValueError(f"level must be 0..{len(LEVELS) - 1}, got {level}")
        row = LEVELS[level]
        self.level, self.size, self.offset = level, row["size"], row.get("offset", False)
        rng = random.Random(seed)
        self.walls, self.pos, self.goal, shortest = make_grid(rng, row)
        self.budget = shortest + row["slack"]
        self.turns = 0
        self.done = False
        return (
            f"Walk to the goal on this {self.size}x{self.size} map ('#' wall, '.' floor). "
            "Row 0 is the top, col 0 the left. Reply with one move per turn: up, down, left "
            "or right.\n"
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
            inside = 0 <= target[0] < self.size and 0 <= target[1] < self.size
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
