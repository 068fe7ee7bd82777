"""A bank ledger behind three tools: bring one account to an exact balance with transfers, then say so.

A tool environment: step(action) receives a parsed tool call, a dict {"name": ..., "arguments": {...}}, or
the agent's final message, a str. Levels add accounts and make the goal need more than one transfer.
"""

import random
import re

LEVELS = [
    # (accounts, transfers the goal needs at least)
    (2, 1),
    (3, 1),
    (4, 2),
    (5, 2),
]


class BankLedger:
    def reset(self, seed, level=0):
        rng = random.Random(seed * 31 + level)
        count, needed = LEVELS[level]
        names = rng.sample(["alder", "birch", "cedar", "dogwood", "elm", "fir", "hazel", "larch"], count)
        self.accounts = {name: rng.randint(20, 90) for name in names}
        self.target = names[0]
        donors = names[1:]
        # the goal takes money from `needed` donors: no single donor holds enough
        amount = sum(self.accounts[donor] for donor in donors[:needed]) - rng.randint(1, 9) if needed > 1 else rng.randint(5, self.accounts[donors[0]] - 1)
        self.goal = self.accounts[self.target] + amount
        self.done = False
        self.turns = 0
        return (
            f"Account '{self.target}' must hold exactly {self.goal} credits. "
            "Use the tools list_accounts, get_balance and transfer to move money between accounts, "
            "then reply with a final message (no tool call) stating its balance, e.g. 'Balance: 57', once it holds exactly that amount."
        )

    def step(self, action):
        if self.done:
            return ("The episode is over.", 0.0, True, False, {})
        self.turns += 1
        if isinstance(action, dict):
            observation, invalid = self.call(action["name"], action["arguments"])
            truncated = self.turns >= 12
            self.done = truncated
            return (observation, 0.0, False, truncated, {"invalid_action": invalid})
        self.done = True
        held = self.accounts[self.target]
        stated = re.findall(r"-?\d+", action)
        if not stated:
            return ("The final message states no balance.", 0.0, True, False, {"invalid_action": True})
        if held == self.goal and int(stated[-1]) == held:
            return (f"Done: '{self.target}' holds {held} credits.", 1.0, True, False, {})
        return (f"Not done: '{self.target}' holds {held} credits; the goal was {self.goal}.", 0.0, True, False, {})

    def call(self, name, arguments):
        if name == "list_accounts":
            return ("Accounts: " + ", ".join(sorted(self.accounts)), False)
        if name == "get_balance":
            account = arguments["account"]
            if account not in self.accounts:
                return (f"Error: no account '{account}'.", True)
            return (f"'{account}' holds {self.accounts[account]} credits.", False)
        if name == "transfer":
            source, destination, amount = arguments["from_account"], arguments["to_account"], arguments["amount"]
            for account in (source, destination):
                if account not in self.accounts:
                    return (f"Error: no account '{account}'.", True)
            if source == destination:
                return ("Error: an account cannot pay itself.", True)
            if amount > self.accounts[source]:
                return (f"Error: '{source}' holds only {self.accounts[source]} credits.", True)
            self.accounts[source] -= amount
            self.accounts[destination] += amount
            return (f"Moved {amount} credits from '{source}' to '{destination}'.", False)
        return (f"Error: no tool '{name}'.", True)
