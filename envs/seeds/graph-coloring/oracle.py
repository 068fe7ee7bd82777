"""Reference policy: parse the graph and colour it by backtracking search."""

import re


def act(env, observation: str) -> str:
    header = re.search(r"nodes ([A-Z])-([A-Z])", observation)
    colours = re.search(r"colour from 1 to (\d+)", observation)
    if not header or not colours:
        return ""
    nodes = [chr(c) for c in range(ord(header.group(1)), ord(header.group(2)) + 1)]
    k = int(colours.group(1))
    edge_part = observation.split("edges:", 1)[1].split("\n", 1)[0]
    neighbours = {n: [] for n in nodes}
    for u, v in re.findall(r"([A-Z])-([A-Z])", edge_part):
        neighbours[u].append(v)
        neighbours[v].append(u)
    # colour the most constrained (highest degree) nodes first
    order = sorted(nodes, key=lambda n: (-len(neighbours[n]), n))
    assignment = {}

    def solve(position):
        if position == len(order):
            return True
        node = order[position]
        for colour in range(1, k + 1):
            if all(assignment.get(m) != colour for m in neighbours[node]):
                assignment[node] = colour
                if solve(position + 1):
                    return True
                del assignment[node]
        return False

    solve(0)
    return ",".join(f"{n}={assignment.get(n, 1)}" for n in nodes)
