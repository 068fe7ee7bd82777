"""Shortest path in a weighted undirected graph.

The agent is shown the edge list of a small connected graph whose edges carry
positive integer weights, plus a start node and an end node. It must reply with
the length (total weight) of the shortest path between them as one integer.
Single turn: reward 1.0 for the exact distance, 0.0 otherwise.
"""

import heapq
import random
import re

NODES = 8            # nodes are labelled A, B, C, ...
EXTRA_EDGES = 5      # edges added on top of a random spanning tree
MAX_WEIGHT = 20      # edge weights are drawn from 1..MAX_WEIGHT
MAX_TURNS = 1

LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
INT_RE = re.compile(r"(?<!\d)-?\d{1,9}(?!\d)")


def build_graph(rng):
    """Return a list of (u, v, weight) edges forming a connected graph."""
    order = list(range(NODES))
    rng.shuffle(order)
    edges = {}
    for i in range(1, NODES):
        u, v = order[i], order[rng.randrange(i)]
        edges[(min(u, v), max(u, v))] = rng.randint(1, MAX_WEIGHT)
    free_pairs = [(u, v) for u in range(NODES) for v in range(u + 1, NODES)
                  if (u, v) not in edges]
    for pair in rng.sample(free_pairs, min(EXTRA_EDGES, len(free_pairs))):
        edges[pair] = rng.randint(1, MAX_WEIGHT)
    edge_list = [(u, v, w) for (u, v), w in edges.items()]
    rng.shuffle(edge_list)
    return edge_list


def dijkstra(edges, source):
    """Distances from source to every node (list indexed by node)."""
    adjacency = [[] for _ in range(NODES)]
    for u, v, w in edges:
        adjacency[u].append((v, w))
        adjacency[v].append((u, w))
    dist = [None] * NODES
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
        self.source = 0
        self.target = 0
        self.answer = 0
        self.turns = 0
        self.done = True

    def reset(self, seed: int) -> str:
        rng = random.Random(seed)
        self.edges = build_graph(rng)
        self.source = rng.randrange(NODES)
        dist = dijkstra(self.edges, self.source)
        # Ask for the farthest node so the answer is a sum of several weights.
        self.target = max(range(NODES), key=lambda n: (dist[n], n))
        self.answer = dist[self.target]
        self.turns = 0
        self.done = False
        edge_text = "; ".join(f"{LABELS[u]}-{LABELS[v]} {w}" for u, v, w in self.edges)
        return (
            f"Undirected weighted graph with nodes {LABELS[0]}-{LABELS[NODES - 1]}. "
            f"Edges (node-node weight): {edge_text}.\n"
            f"What is the total weight of the shortest path from {LABELS[self.source]} "
            f"to {LABELS[self.target]}? Reply with one integer, in the form 'Answer: <number>'."
        )

    def step(self, action: str):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"episode_over": True}
        self.turns += 1
        self.done = True
        guess = parse_int(action)
        if guess == self.answer:
            return f"Correct: the shortest distance is {self.answer}.", 1.0, True, False, {
                "correct": True, "guess": guess}
        shown = "nothing" if guess is None else str(guess)
        return f"Wrong: you answered {shown}.", 0.0, True, False, {
            "correct": False, "guess": guess, "invalid_action": guess is None}
