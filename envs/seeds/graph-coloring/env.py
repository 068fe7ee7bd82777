"""Graph colouring with k colours.

The agent sees a small undirected graph (nodes A, B, C, ...) and must give every
node a colour from 1..k so that no edge joins two nodes of the same colour.
A valid colouring is planted when the graph is built (edges only join nodes of
different planted colours), and the graph is kept non-bipartite so two colours
never suffice. Single turn: reward 1.0 for a complete, valid colouring.
Answer format: 'A=1,B=2,C=3,...'.
"""

import random
import re

NODES = 8
COLORS = 3
EDGE_PROB = 0.6      # chance of an edge between two differently planted nodes
MAX_TURNS = 1

LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
ASSIGN_RE = re.compile(r"(?<![A-Za-z])([A-Za-z])\s*[=:]\s*(\d{1,3})(?!\d)")


def is_bipartite(edges):
    """Two-colour the graph by search; True if that succeeds."""
    side = [None] * NODES
    neighbours = [[] for _ in range(NODES)]
    for u, v in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)
    for start in range(NODES):
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


def make_graph(rng):
    """Return a list of edges (u, v) with u < v that admits the planted colouring."""
    while True:
        planted = [i % COLORS + 1 for i in range(NODES)]
        rng.shuffle(planted)
        edges = [(u, v) for u in range(NODES) for v in range(u + 1, NODES)
                 if planted[u] != planted[v] and rng.random() < EDGE_PROB]
        if not is_bipartite(edges):
            rng.shuffle(edges)
            return edges


def parse_coloring(text):
    """Map node index -> colour from 'X=c' pairs; the last pair for a node wins."""
    coloring = {}
    if not isinstance(text, str):
        return coloring
    for letter, colour in ASSIGN_RE.findall(text):
        index = LABELS.find(letter.upper())
        if 0 <= index < NODES:
            coloring[index] = int(colour)
    return coloring


class GraphColoringEnv:
    def __init__(self):
        self.edges = []
        self.done = True

    def reset(self, seed: int) -> str:
        rng = random.Random(seed)
        self.edges = make_graph(rng)
        self.done = False
        edge_text = ", ".join(f"{LABELS[u]}-{LABELS[v]}" for u, v in self.edges)
        return (
            f"Graph with nodes {LABELS[0]}-{LABELS[NODES - 1]} and edges: {edge_text}.\n"
            f"Give each node a colour from 1 to {COLORS} so that the two ends of every edge "
            "have different colours. Reply with every node on one line, e.g. "
            "'A=1,B=2,C=3,...'."
        )

    def malformed(self, coloring):
        """Why the reply is not a colouring of every node with 1..COLORS, or None."""
        missing = [LABELS[i] for i in range(NODES) if i not in coloring]
        if missing:
            return "no colour for " + ",".join(missing)
        bad = [LABELS[i] for i in range(NODES) if not 1 <= coloring[i] <= COLORS]
        if bad:
            return f"colours must be 1..{COLORS} (check {','.join(bad)})"
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
        self.done = True
        coloring = parse_coloring(action)
        error = self.problems(coloring)
        if error is None:
            return "Correct: every edge joins different colours.", 1.0, True, False, {
                "correct": True}
        return f"Wrong: {error}.", 0.0, True, False, {"correct": False, "error": error[:120],
                                                      "invalid_action": self.malformed(coloring) is not None}
