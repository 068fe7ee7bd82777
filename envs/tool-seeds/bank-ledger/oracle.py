"""Reference policy: look the balances up, move the missing credits from the donors in turn, then say done."""


def act(env, observation):
    missing = env.goal - env.accounts[env.target]
    if missing == 0:
        return f"Balance: {env.accounts[env.target]}"
    donor = max((name for name in env.accounts if name != env.target), key=lambda name: env.accounts[name])
    return {"name": "transfer", "arguments": {"from_account": donor, "to_account": env.target, "amount": min(missing, env.accounts[donor])}}
