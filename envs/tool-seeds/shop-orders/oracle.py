"""Reference policy: list the orders, check the stock of every product they need, then ship or refund them oldest first, and state the refunds."""


def act(env, observation):
    called = {call["name"] for call in env.calls}
    if "list_orders" not in called:
        return {"name": "list_orders", "arguments": {}}
    checked = {call["arguments"]["sku"] for call in env.calls if call["name"] == "check_stock"}
    for lines in env.orders.values():
        for sku in lines:
            if sku not in checked:
                return {"name": "check_stock", "arguments": {"sku": sku}}
    for order, status in env.status.items():
        if status == "pending":
            tool = "ship_order" if env.outcome[order] == "shipped" else "refund_order"
            return {"name": tool, "arguments": {"order_id": order}}
    refunded = sum(env.total(order) for order, status in env.status.items() if status == "refunded")
    return f"Refunded: {refunded}"
