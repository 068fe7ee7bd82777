"""Shortest path in a weighted undirected graph.

The agent is shown the edge list of a small connected graph whose edges carry
positive integer weights, plus a start node and an end node. It must reply with
the length (total weight) of the shortest path between them as one integer.
Reward 1.0 for the exact distance, 0.0 otherwise. The level (LEVELS) sets the
number of nodes, the edges added to the spanning tree, the largest weight and
the number of tries (at level 0 the end node is a neighbour of the start: the answer is one
edge's weight): at levels 0 and 1 a wrong answer is told so and the agent
may answer again (3 and 2 tries), from level 2 on there is one answer.
"""

import heapq
import random
import re

# One entry per level, easiest first: nodes are labelled A, B, C, ...; extra_edges
# are added on top of a random spanning tree; weights are drawn from 1..max_weight.
LEVELS = [
    {"nodes": 3, "extra_edges": 0, "max_weight": 9, "tries": 3, "adjacent": True},  # the end node is a neighbour of the start
    {"nodes": 4, "extra_edges": 3, "max_weight": 12, "tries": 2},
    {"nodes": 5, "extra_edges": 3, "max_weight": 15, "tries": 1},
    {"nodes": 6, "extra_edges": 4, "max_weight": 15, "tries": 1},
    {"nodes": 8, "extra_edges": 5, "max_weight": 20, "tries": 1},  # STATIC_LEVEL
    {"nodes": 10, "extra_edges": 8, "max_weight": 30, "tries": 1},
    {"nodes": 13, "extra_edges": 12, "max_weight": 40, "tries": 1},
    {"nodes": 16, "extra_edges": 16, "max_weight": 50, "tries": 1},
]
STATIC_LEVEL = 4     # the family's size before it had levels: 8 nodes, 5 extra edges
MAX_TURNS = max(row["tries"] for row in LEVELS)

LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
INT_RE = re.compile(r"(?<!\d)-?\d{1,9}(?!\d)")


def build_graph(rng, nodes, extra_edges, max_weight):
    """Return a list of (u, v, weight) edges forming a connected graph on nodes 0..nodes-1."""
    order = list(range(nodes))
    rng.shuffle(order)
    edges = {}
    for i in range(1, nodes):
        u, v = order[i], order[rng.randrange(i)]
        edges[(min(u, v), max(u, v))] = rng.randint(1, max_weight)
    free_pairs = [(u, v) for u in range(nodes) for v in range(u + 1, nodes)
                  if (u, v) not in edges]
    for pair in rng.sample(free_pairs, min(extra_edges, len(free_pairs))):
        edges[pair] = rng.randint(1, max_weight)
    edge_list = [(u, v, w) for (u, v), w in edges.items()]
    rng.shuffle(edge_list)
    return edge_list


def dijkstra(edges, source, nodes):
    """Distances from source to every node 0..nodes-1 (list indexed by node)."""
    adjacency = [[] for _ in range(nodes)]
    for u, v, w in edges:
        adjacency[u].append((v, w))
        adjacency[v].append((u, w))
    dist = [None] * nodes
    heap = [(0, source)]
    while heap:
        d, node = heapq.heappop(heap)
        if dist[node] is not None:
            continue
        dist[node] = d
        for nxt, w in adjacency[node]:
            if dist[nxt] is None:
                heapq.heappush(heap, (d + w, nxt))
    return dist


def parse_int(text):
    """Last integer (up to 9 digits) in the text, or None."""
    matches = INT_RE.findall(text if isinstance(text, str) else "")
    return int(matches[-1]) if matches else None


class ShortestPathEnv:
    def __init__(self):
        self.edges = []
        self.nodes = 0
        self.source = 0
        self.target = 0
        self.answer = 0
        self.turns = 0
        self.tries_left = 1
        self.done = True

    def reset(self, seed: int, level: int = 0) -> str:
        if not 0 <= level < len(LEVELS):
            raise ValueError(f"level must be in 0..{len(LEVELS) - 1}, got {level}")
        config = LEVELS[level]
        rng = random.Random(seed)
        self.nodes = config["nodes"]
        self.edges = build_graph(rng, self.nodes, config["extra_edges"], config["max_weight"])
        self.source = rng.randrange(self.nodes)
        dist = dijkstra(self.edges, self.source, self.nodes)
        # Ask for the farthest node so the answer is a sum of several weights.
        ends = range(self.nodes)
        if config.get("adjacent"):
            # level 0: one edge joins the two nodes (in a tree, that edge is the shortest path)
            ends = [v if u == self.source else u for u, v, _ in self.edges if self.source in (u, v)]
        self.target = max(ends, key=lambda n: (dist[n], n))
        self.answer = dist[self.target]
        self.turns = 0
        self.tries_left = config["tries"]
        self.done = False
        tries = f" You have {self.tries_left} tries." if self.tries_left > 1 else ""
        edge_text = "; ".join(f"{LABELS[u]}-{LABELS[v]} {w}" for u, v, w in self.edges)
        return (
            f"Undirected weighted graph with nodes {LABELS[0]}-{LABELS[self.nodes - 1]}. "
            f"Edges (node-node weight): {edge_text}.\n"
            f"What is the total weight of the shortest path from {LABELS[self.source]} "
            f"to {LABELS[self.target]}? Reply with one integer, in the form 'Answer: <number>'.{tries}"
        )

    def step(self, action: str):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"episode_over": True}
        self.turns += 1
        self.tries_left -= 1
        self.done = self.tries_left <= 0
        guess = parse_int(action)
        if guess == self.answer:
            self.done = True
            return f"Correct: the shortest distance is {self.answer}.", 1.0, True, False, {
                "correct": True, "guess": guess}
        shown = "nothing" if guess is None else str(guess)
        again = "" if self.done else f" Try again ({self.tries_left} left)."
        return f"Wrong: you answered {shown}.{again}", 0.0, self.done, False, {
            "correct": False, "guess": guess, "invalid_action": guess is None}
