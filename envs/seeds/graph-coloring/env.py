"""Graph colouring with k colours, a levelled family.

The agent sees a small undirected graph (nodes A, B, C, ...) and must give every
node a colour from 1..k so that no edge joins two nodes of the same colour.
A valid colouring is planted when the graph is built (edges only join nodes of
different planted colours), and the graph is kept non-bipartite so two colours
never suffice. Reward 1.0 for a complete, valid colouring. Answer format:
'A=1,B=2,C=3,...'.

The level sets the number of nodes (LEVELS below; more nodes also means more
edges) and the number of tries: at levels 0 and 1 a wrong answer is told which
edges clash and the agent may answer again (3 and 2 tries), from level 2 on
there is one answer. Level 4 is the family's size before levels (8 nodes, one try).
"""

import random
import re

# One row per level: nodes, colours, chance of an edge between two differently planted nodes.
LEVELS = [
    {"nodes": 4, "colors": 3, "edgeProb": 0.6, "tries": 3},
    {"nodes": 5, "colors": 3, "edgeProb": 0.6, "tries": 2},
    {"nodes": 6, "colors": 3, "edgeProb": 0.6, "tries": 1},
    {"nodes": 7, "colors": 3, "edgeProb": 0.6, "tries": 1},
    {"nodes": 8, "colors": 3, "edgeProb": 0.6, "tries": 1},    # the size before levels
    {"nodes": 10, "colors": 3, "edgeProb": 0.6, "tries": 1},
    {"nodes": 12, "colors": 3, "edgeProb": 0.6, "tries": 1},
    {"nodes": 14, "colors": 3, "edgeProb": 0.6, "tries": 1},
]
MAX_TURNS = max(row["tries"] for row in LEVELS)

LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
ASSIGN_RE = re.compile(r"(?<![A-Za-z])([A-Za-z])\s*[=:]\s*(\d{1,3})(?!\d)")


def is_bipartite(edges, nodes):
    """Two-colour the graph by search; True if that succeeds."""
    side = [None] * nodes
    neighbours = [[] for _ in range(nodes)]
    for u, v in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)
    for start in range(nodes):
        if side[start] is not None:
            continue
        side[start] = 0
        stack = [start]
        while stack:
            node = stack.pop()
            for nxt in neighbours[node]:
                if side[nxt] is None:
                    side[nxt] = 1 - side[node]
                    stack.append(nxt)
                elif side[nxt] == side[node]:
                    return False
    return True


def make_graph(rng, nodes, colors, edge_prob):
    """Return a list of edges (u, v) with u < v that admits the planted colouring."""
    while True:
        planted = [i % colors + 1 for i in range(nodes)]
        rng.shuffle(planted)
        edges = [(u, v) for u in range(nodes) for v in range(u + 1, nodes)
                 if planted[u] != planted[v] and rng.random() < edge_prob]
        if not is_bipartite(edges, nodes):
            rng.shuffle(edges)
            return edges


def parse_coloring(text, nodes):
    """Map node index -> colour from 'X=c' pairs; the last pair for a node wins."""
    coloring = {}
    if not isinstance(text, str):
        return coloring
    for letter, colour in ASSIGN_RE.findall(text):
        index = LABELS.find(letter.upper())
        if 0 <= index < nodes:
            coloring[index] = int(colour)
    return coloring


class GraphColoringEnv:
    def __init__(self):
        self.level = 0
        self.nodes = LEVELS[0]["nodes"]
        self.colors = LEVELS[0]["colors"]
        self.edges = []
        self.tries_left = 1
        self.done = True

    def reset(self, seed: int, level: int = 0) -> str:
        if not 0 <= level < len(LEVELS):
            raise ValueError(f"level must be 0..{len(LEVELS) - 1}, got {level}")
        row = LEVELS[level]
        self.level, self.nodes, self.colors = level, row["nodes"], row["colors"]
        rng = random.Random(seed)
        self.edges = make_graph(rng, self.nodes, self.colors, row["edgeProb"])
        self.tries_left = row["tries"]
        self.done = False
        tries = f" You have {self.tries_left} tries." if self.tries_left > 1 else ""
        edge_text = ", ".join(f"{LABELS[u]}-{LABELS[v]}" for u, v in self.edges)
        # the form names this graph's nodes with a placeholder for each colour: a form with
        # sample colours ('A=1,B=1,...') was copied as the answer by small models (0 of 12 level-0
        # replies of Qwen2.5-Coder-0.5B valid at temperature 0, against 12 of 12 on a triangle
        # with placeholders), and a form with valid colours would be the answer itself
        form = ",".join(f"{LABELS[i]}=<colour>" for i in range(self.nodes))
        return (
            f"Graph with nodes {LABELS[0]}-{LABELS[self.nodes - 1]} and edges: {edge_text}.\n"
            f"Give each node a colour from 1 to {self.colors} so that the two ends of every edge "
            f"have different colours. Reply with every node on one line, in the form '{form}'.{tries}"
        )

    def malformed(self, coloring):
        """Why the reply is not a colouring of every node with 1..colors, or None."""
        missing = [LABELS[i] for i in range(self.nodes) if i not in coloring]
        if missing:
            return "no colour for " + ",".join(missing)
        bad = [LABELS[i] for i in range(self.nodes) if not 1 <= coloring[i] <= self.colors]
        if bad:
            return f"colours must be 1..{self.colors} (check {','.join(bad)})"
        return None

    def problems(self, coloring):
        """Return an error message, or None if the colouring is valid."""
        malformed = self.malformed(coloring)
        if malformed is not None:
            return malformed
        clashes = [f"{LABELS[u]}-{LABELS[v]}" for u, v in self.edges
                   if coloring[u] == coloring[v]]
        if clashes:
            return "same colour on edge " + ", ".join(clashes[:5])
        return None

    def step(self, action: str):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"episode_over": True}
        self.tries_left -= 1
        self.done = self.tries_left <= 0
        coloring = parse_coloring(action, self.nodes)
        error = self.problems(coloring)
        if error is None:
            self.done = True
            return "Correct: every edge joins different colours.", 1.0, True, False, {
                "correct": True}
        again = "" if self.done else f" Try again ({self.tries_left} left)."
        return f"Wrong: {error}.{again}", 0.0, self.done, False, {"correct": False, "error": error[:120],
                                                      "invalid_action": self.malformed(coloring) is not None}
