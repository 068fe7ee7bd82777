"""A ticket tracker behind two tools: close a ticket and everything that blocks it, in an order the workflow allows, then count them.

A tool environment: step(action) receives a parsed tool call, a dict {"name": ..., "arguments": {...}}, or
the agent's final message, a str. The blockers show only in get_ticket, one ticket at a time. The workflow
refuses, with an error observation, closing a ticket that is not in review or that a ticket still blocks, so
the blockers are closed first, deepest first. Levels deepen the blocker graph (a chain, then a blocker shared by
two tickets), add open tickets to move into review first, closed blockers to skip and related tickets to leave alone.
"""

import random
import re

LEVELS = [
    # (edges (blocker, blocked) among the tickets to close, 0 the goal, open ones, most closed blockers, related tickets)
    ([(1, 0)], 0, 1, 0),
    ([(1, 0), (2, 0)], 1, 1, 1),
    ([(1, 0), (2, 0), (3, 1)], 1, 1, 1),
    ([(1, 0), (2, 0), (3, 1), (3, 2)], 1, 2, 2),
]
MAX_CALLS = 12
TITLES = [
    "Checkout fails on Safari", "Login times out", "Search ignores accents", "Export drops the last row",
    "Dark mode contrast", "Upgrade the payment SDK", "Flaky upload test", "Migrate the user table",
    "Rate limit the API", "Broken link in the footer", "Cache invalidation on deploy", "Timezone bug in reports",
]
NEXT = {"open": "in_review", "in_review": "closed"}  # the workflow: each ticket moves one step at a time


class TicketTracker:
    def reset(self, seed, level=0):
        rng = random.Random(seed * 31 + level)
        edges, opens, most_closed, related = LEVELS[level]
        count = 1 + max(blocker for blocker, _ in edges)
        extra = rng.randint(0, most_closed)
        ids = [f"T-{number}" for number in rng.sample(range(100, 1000), count + extra + related)]
        titles = rng.sample(TITLES, len(ids))
        opened = set(rng.sample(range(count), opens))
        self.tickets = {ticket: {"title": title, "status": "in_review", "blocked_by": [], "related": []} for ticket, title in zip(ids, titles)}
        for index in range(count):
            self.tickets[ids[index]]["status"] = "open" if index in opened else "in_review"
        for blocker, blocked in edges:
            self.tickets[ids[blocked]]["blocked_by"].append(ids[blocker])
        for ticket in ids[count:count + extra]:  # already closed: nothing to do
            self.tickets[ticket]["status"] = "closed"
            self.tickets[ids[rng.randrange(count)]]["blocked_by"].append(ticket)
        for ticket in ids[count + extra:]:  # related, not blocking: to be left alone
            self.tickets[ticket]["status"] = rng.choice(["open", "in_review"])
            self.tickets[ids[rng.randrange(count)]]["related"].append(ticket)
        for ticket in self.tickets.values():
            rng.shuffle(ticket["blocked_by"])
        self.goal = ids[0]
        self.to_close = set(ids[:count])
        self.initial = {ticket: record["status"] for ticket, record in self.tickets.items()}
        self.calls = []  # every tool call so far, as received
        self.done = False
        self.turns = 0
        return (
            f"Ticket '{self.goal}' ('{self.tickets[self.goal]['title']}') blocks the release: close it, together with every ticket that blocks it directly or through other tickets, and change no other ticket. "
            "The workflow: a ticket moves open -> in_review -> closed, one step at a time, and closes only when every ticket blocking it is closed. "
            "Use the tools get_ticket and set_status, then reply with a final message (no tool call) stating how many tickets you closed, e.g. 'Closed: 7'."
        )

    def step(self, action):
        if self.done:
            return ("The episode is over.", 0.0, True, False, {})
        self.turns += 1
        if isinstance(action, dict):
            self.calls.append(action)
            observation, invalid = self.call(action["name"], action["arguments"])
            truncated = self.turns >= MAX_CALLS
            self.done = truncated
            return (observation, 0.0, False, truncated, {"invalid_action": invalid})
        self.done = True
        stated = re.findall(r"-?\d+", action)
        if not stated:
            return ("The final message states no count.", 0.0, True, False, {"invalid_action": True})
        closed = all(self.tickets[ticket]["status"] == "closed" for ticket in self.to_close)
        untouched = all(record["status"] == self.initial[ticket] for ticket, record in self.tickets.items() if ticket not in self.to_close)
        if closed and untouched and int(stated[-1]) == len(self.to_close):
            return (f"Done: '{self.goal}' and the {len(self.to_close) - 1} tickets that blocked it are closed.", 1.0, True, False, {})
        return (f"Not done: {len(self.to_close)} tickets had to be closed" + ("" if untouched else ", and a ticket that did not block the goal was changed") + ".", 0.0, True, False, {})

    def call(self, name, arguments):
        if name == "get_ticket":
            ticket = arguments["ticket_id"].strip()
            if ticket not in self.tickets:
                return (f"Error: no ticket '{ticket}'.", True)
            record = self.tickets[ticket]
            blockers = ", ".join(f"'{blocker}' ({self.tickets[blocker]['status']})" for blocker in record["blocked_by"]) or "none"
            related = ", ".join(f"'{other}'" for other in record["related"]) or "none"
            return (f"'{ticket}' '{record['title']}' is {record['status']}; blocked by: {blockers}; related: {related}.", False)
        if name == "set_status":
            ticket, status = arguments["ticket_id"].strip(), arguments["status"]
            if ticket not in self.tickets:
                return (f"Error: no ticket '{ticket}'.", True)
            record = self.tickets[ticket]
            if record["status"] == status:
                return (f"Error: '{ticket}' is already {status}.", True)
            if record["status"] == "closed":
                return (f"Error: '{ticket}' is closed; closed tickets stay closed.", True)
            if status == "closed" and record["status"] != "in_review":
                return (f"Error: '{ticket}' is {record['status']}; only a ticket in review can be closed.", True)
            waiting = [blocker for blocker in record["blocked_by"] if self.tickets[blocker]["status"] != "closed"]
            if status == "closed" and waiting:
                return (f"Error: '{ticket}' is still blocked by '{waiting[0]}', which is not closed.", True)
            record["status"] = status
            return (f"'{ticket}' is now {status}.", False)
        return (f"Error: no tool '{name}'.", True)
