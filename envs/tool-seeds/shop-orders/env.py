"""A shop's order desk behind four tools: serve the waiting orders oldest first, ship or refund each, then state the refunds.

A tool environment: step(action) receives a parsed tool call, a dict {"name": ..., "arguments": {...}}, or
the agent's final message, a str. The orders' items show only in list_orders and the stock only in check_stock;
shipping takes stock away, so an order that the opening stock covers may be short by its turn. A shipment the
stock cannot cover is refused with an error observation (the order must then be refunded). Levels add orders,
items per order and, from level 2, an order that an older one leaves short.
"""

import random
import re

LEVELS = [
    # (orders, products, most lines per order, an older order must leave a later one short)
    (2, 2, 1, False),
    (3, 3, 2, False),
    (4, 3, 2, True),
    (5, 3, 3, True),
]
MAX_CALLS = 12
PRODUCTS = ["mug", "teapot", "scarf", "lamp", "notebook", "candle", "blanket", "vase"]
COLOURS = ["blue", "red", "green", "grey", "amber"]


class ShopOrders:
    def reset(self, seed, level=0):
        rng = random.Random(seed * 31 + level)
        count, products, most_lines, contended = LEVELS[level]
        self.prices = {f"{product}-{rng.choice(COLOURS)}": rng.randint(5, 60) for product in rng.sample(PRODUCTS, products)}
        skus = list(self.prices)
        ids = [f"O-{number}" for number in rng.sample(range(1000, 10000), count)]
        while True:  # until some orders ship and some are refunded (and, where asked, stock runs out on the way)
            self.orders = {}
            for order in ids:
                lines = rng.sample(skus, rng.randint(1, min(most_lines, products)))
                self.orders[order] = {sku: rng.randint(1, 3) for sku in lines}
            self.stock = {sku: rng.randint(0, 4) for sku in skus}
            self.outcome = self.serve()
            outcomes = set(self.outcome.values())
            if outcomes == {"shipped", "refunded"} and (not contended or self.runs_out()):
                break
        self.status = {order: "pending" for order in self.orders}
        self.calls = []  # every tool call so far, as received
        self.done = False
        self.turns = 0
        return (
            f"{count} orders are waiting. Serve them oldest first: ship each order whose items are all in stock when its turn comes "
            "(shipping takes the items out of stock), and refund the others. Use the tools list_orders, check_stock, ship_order and refund_order, "
            "then reply with a final message (no tool call) stating the total refunded in credits, e.g. 'Refunded: 120'."
        )

    def total(self, order):
        return sum(self.prices[sku] * quantity for sku, quantity in self.orders[order].items())

    def covered(self, order, stock):
        return all(stock[sku] >= quantity for sku, quantity in self.orders[order].items())

    def serve(self):
        """What serving the orders oldest first makes of each: 'shipped' or 'refunded'."""
        stock, outcome = dict(self.stock), {}
        for order, lines in self.orders.items():
            outcome[order] = "shipped" if self.covered(order, stock) else "refunded"
            if outcome[order] == "shipped":
                for sku, quantity in lines.items():
                    stock[sku] -= quantity
        return outcome

    def runs_out(self):
        """Whether some refunded order is one the opening stock would have covered."""
        return any(outcome == "refunded" and self.covered(order, self.stock) for order, outcome in self.outcome.items())

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
            return ("The final message states no total.", 0.0, True, False, {"invalid_action": True})
        refunded = sum(self.total(order) for order, outcome in self.outcome.items() if outcome == "refunded")
        if self.status == self.outcome and int(stated[-1]) == refunded:
            return (f"Done: every order served; {refunded} credits refunded.", 1.0, True, False, {})
        wrong = [order for order in self.orders if self.status[order] != self.outcome[order]]
        return (f"Not done: {len(wrong)} orders were not served as they should be; the refunds come to {refunded} credits.", 0.0, True, False, {})

    def call(self, name, arguments):
        if name == "list_orders":
            rows = [
                f"'{order}' ({self.status[order]}): " + ", ".join(f"{quantity} x '{sku}' at {self.prices[sku]}" for sku, quantity in lines.items()) + f", total {self.total(order)}"
                for order, lines in self.orders.items()
            ]
            return ("Orders, oldest first: " + "; ".join(rows), False)
        if name == "check_stock":
            sku = arguments["sku"].strip()
            if sku not in self.stock:
                return (f"Error: no product '{sku}'.", True)
            return (f"'{sku}': {self.stock[sku]} in stock.", False)
        if name in ("ship_order", "refund_order"):
            order = arguments["order_id"].strip()
            if order not in self.orders:
                return (f"Error: no order '{order}'.", True)
            if self.status[order] != "pending":
                return (f"Error: order '{order}' was already {self.status[order]}.", True)
            if name == "refund_order":
                self.status[order] = "refunded"
                return (f"Refunded order '{order}': {self.total(order)} credits.", False)
            short = [sku for sku, quantity in self.orders[order].items() if self.stock[sku] < quantity]
            if short:
                return (f"Error: order '{order}' needs {self.orders[order][short[0]]} x '{short[0]}' but only {self.stock[short[0]]} are in stock.", True)
            for sku, quantity in self.orders[order].items():
                self.stock[sku] -= quantity
            self.status[order] = "shipped"
            return (f"Shipped order '{order}'.", False)
        return (f"Error: no tool '{name}'.", True)
