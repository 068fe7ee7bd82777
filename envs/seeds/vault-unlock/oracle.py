"""Reference policy: work through the escape room using only what has been revealed.

It searches the hiding spots one by one (it does not peek at where the key is),
then follows the key -> container -> note -> keypad -> vault chain. The code is
read from the observation after reading the note.
"""

import re


def act(env, observation: str) -> str:
    shown = re.search(r"Vault code (\d+)", observation)
    if env.code_accepted:
        return "open vault"
    if shown:
        return f"enter {shown.group(1)}"
    if env.note_read:
        return "read note"  # re-read to see the code again
    if "note" in env.inventory:
        return "read note"
    if env.opened:
        return "take note"
    if env.unlocked:
        return f"open {env.container}"
    if "key" in env.inventory:
        return f"use key on {env.container}"
    if "key" in env.revealed:
        return "take key"
    for spot in env.spots:
        if spot not in env.examined:
            return f"examine {spot}"
    return "look"
