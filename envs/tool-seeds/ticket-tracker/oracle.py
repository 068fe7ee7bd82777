"""Reference policy: read the goal and every ticket that still blocks it, then move them to closed, deepest blockers first, and count them."""


def act(env, observation):
    seen = {call["arguments"]["ticket_id"] for call in env.calls if call["name"] == "get_ticket"}
    # the tickets to close, found as an agent finds them: the goal, then the unclosed blockers of each ticket read
    order, queue = [], [env.goal]
    while queue:
        ticket = queue.pop(0)
        if ticket in order:
            continue
        if ticket not in seen:
            return {"name": "get_ticket", "arguments": {"ticket_id": ticket}}
        order.append(ticket)
        queue += [blocker for blocker in env.tickets[ticket]["blocked_by"] if env.initial[blocker] != "closed"]
    for ticket in reversed(order):  # deepest first: the first ticket that can take a step
        record = env.tickets[ticket]
        if record["status"] == "open":
            return {"name": "set_status", "arguments": {"ticket_id": ticket, "status": "in_review"}}
        if record["status"] == "in_review" and all(env.tickets[blocker]["status"] == "closed" for blocker in record["blocked_by"]):
            return {"name": "set_status", "arguments": {"ticket_id": ticket, "status": "closed"}}
    return f"Closed: {len(order)}"
