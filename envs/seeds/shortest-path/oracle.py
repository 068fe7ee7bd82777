"""Reference policy: parse the edge list from the observation and run Dijkstra."""

import heapq
import re


def act(env, observation: str) -> str:
    edges = re.findall(r"([A-Z])-([A-Z]) (\d+)", observation)
    ends = re.search(r"from ([A-Z]) to ([A-Z])", observation)
    if not edges or not ends:
        return "0"
    adjacency = {}
    for u, v, w in edges:
        adjacency.setdefault(u, []).append((v, int(w)))
        adjacency.setdefault(v, []).append((u, int(w)))
    source, target = ends.group(1), ends.group(2)
    best = {}
    heap = [(0, source)]
    while heap:
        d, node = heapq.heappop(heap)
        if node in best:
            continue
        best[node] = d
        for nxt, w in adjacency.get(node, []):
            if nxt not in best:
                heapq.heappush(heap, (d + w, nxt))
    return f"Answer: {best.get(target, 0)}"
