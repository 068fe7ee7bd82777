"""Vault unlock: a small text escape room with state-gated commands.

The agent is in a study with several hiding spots, a locked container and a
vault with a keypad. A key is hidden in one spot; it unlocks the container,
which holds a note with the vault code. The chain is: examine spots -> take
key -> use key on the container -> open it -> take note -> read note -> enter
the code -> open vault. Which spots exist, where the key is, what the container
is and the code digits all vary with the seed. Reward 1.0 when the vault opens;
the episode is truncated after max_turns commands. The level (LEVELS) sets the
number of hiding spots and decoys, the code length, the turn budget, whether
the container is locked at all (at level 1 it is not, so no key is needed) and,
at level 0 only, a short cut: the agent starts holding the note, the room
description shows what it says, and the vault opens as soon as the code is
entered (one command: enter code).
"""

import random
import re

SPOT_NAMES = ["rug", "plant", "painting", "bookshelf", "clock", "sofa", "lamp", "vase",
              "desk", "curtain", "fireplace", "armchair"]
SPOT_PHRASES = {"rug": "Under the rug", "plant": "In the plant pot",
                "painting": "Behind the painting", "bookshelf": "On the bookshelf",
                "clock": "Inside the clock", "sofa": "Under the sofa cushions",
                "lamp": "Beneath the lamp", "vase": "Inside the vase",
                "desk": "Under the desk", "curtain": "Behind the curtain",
                "fireplace": "In the fireplace", "armchair": "Under the armchair"}
CONTAINERS = ["drawer", "cabinet", "chest", "lockbox"]
DECOY_ITEMS = ["coin", "marble", "button", "pencil", "ribbon", "stamp"]
# One entry per level, easiest first: hiding_spots spots (drawn from the first
# spot_pool names of SPOT_NAMES) are in the room, decoys of them hold a useless item,
# the code has code_digits digits, the episode has max_turns turns, and locked says
# whether the container is locked (a key hidden in one spot opens it) or not (no key).
# holding_note: the agent starts with the note in hand (its text in the room description)
# and a right code opens the vault.
LEVELS = [
    {"hiding_spots": 2, "spot_pool": 8, "decoys": 0, "code_digits": 2, "max_turns": 6, "locked": False,
     "holding_note": True},
    {"hiding_spots": 2, "spot_pool": 8, "decoys": 0, "code_digits": 2, "max_turns": 12, "locked": False},
    {"hiding_spots": 2, "spot_pool": 8, "decoys": 0, "code_digits": 3, "max_turns": 14, "locked": True},
    {"hiding_spots": 3, "spot_pool": 8, "decoys": 1, "code_digits": 3, "max_turns": 16, "locked": True},
    {"hiding_spots": 4, "spot_pool": 8, "decoys": 1, "code_digits": 4, "max_turns": 18, "locked": True},
    {"hiding_spots": 5, "spot_pool": 8, "decoys": 2, "code_digits": 4, "max_turns": 20, "locked": True},  # STATIC_LEVEL
    {"hiding_spots": 7, "spot_pool": 8, "decoys": 3, "code_digits": 5, "max_turns": 20, "locked": True},
    {"hiding_spots": 9, "spot_pool": 10, "decoys": 4, "code_digits": 6, "max_turns": 22, "locked": True},
    {"hiding_spots": 12, "spot_pool": 12, "decoys": 6, "code_digits": 8, "max_turns": 24, "locked": True},
]
STATIC_LEVEL = 5     # the family's size before it had levels: five spots, two decoys, four digits
MAX_TURNS = max(level["max_turns"] for level in LEVELS)
MAX_ACTION_CHARS = 2000  # longer replies are cut before parsing

VERBS = {"look": "look", "examine": "examine", "search": "examine", "inspect": "examine",
         "check": "examine", "take": "take", "get": "take", "grab": "take", "pick": "take",
         "use": "use", "unlock": "unlock", "open": "open", "read": "read",
         "enter": "enter", "type": "enter", "input": "enter",
         "inventory": "inventory", "inv": "inventory"}
COMMANDS = ("look | examine <thing> | take <item> | use <item> on <thing> | "
            "open <thing> | read <item> | enter <code> | inventory")


def parse_command(text):
    """Return (verb, words after the verb) from the last line that contains a verb."""
    if not isinstance(text, str):
        return None, []
    lines = text[:MAX_ACTION_CHARS].lower().split("\n")
    for line in reversed(lines):
        tokens = re.findall(r"[a-z]+|\d+", line)
        for i, token in enumerate(tokens):
            if token in VERBS:
                return VERBS[token], tokens[i + 1:]
    return None, []


class VaultUnlockEnv:
    def __init__(self):
        self.spots = []
        self.contents = {}
        self.container = "drawer"
        self.code = ""
        self.code_digits = 4
        self.max_turns = 20
        self.turns = 0
        self.done = True
        self.inventory = []
        self.revealed = []      # items the agent has seen and may take
        self.examined = []      # spots the agent has examined
        self.unlocked = False
        self.opened = False
        self.note_read = False
        self.code_accepted = False
        self.auto_open = False  # a right code opens the vault at once (level 0)

    def room(self):
        listing = ", ".join(f"a {s}" for s in self.spots)
        lock = "an open" if self.opened else "an unlocked" if self.unlocked else "a locked"
        held = ((f" You are holding a note that reads: 'Vault code {self.code}'." if self.auto_open else " You are holding a note.")
                if "note" in self.inventory else "")
        return (f"You are in a study. You see: {listing}, {lock} {self.container}, "
                f"and a vault with a {self.code_digits}-digit keypad.{held}")

    def reset(self, seed: int, level: int = 0) -> str:
        if not 0 <= level < len(LEVELS):
            raise ValueError(f"level must be in 0..{len(LEVELS) - 1}, got {level}")
        config = LEVELS[level]
        rng = random.Random(seed)
        self.spots = rng.sample(SPOT_NAMES[:config["spot_pool"]], config["hiding_spots"])
        self.contents = {s: None for s in self.spots}
        key_spot, *decoy_spots = rng.sample(self.spots, 1 + config["decoys"])
        if config["locked"]:  # an unlocked container needs no key: its spot stays empty
            self.contents[key_spot] = "key"
        for spot, item in zip(decoy_spots, rng.sample(DECOY_ITEMS, config["decoys"])):
            self.contents[spot] = item
        self.container = rng.choice(CONTAINERS)
        self.code_digits = config["code_digits"]
        self.code = "".join(str(rng.randint(0, 9)) for _ in range(self.code_digits))
        self.max_turns = config["max_turns"]
        self.turns = 0
        self.done = False
        self.inventory = ["note"] if config.get("holding_note") else []
        self.auto_open = bool(config.get("holding_note"))
        self.revealed = []
        self.examined = []
        self.opened = self.note_read = self.code_accepted = False
        self.unlocked = not config["locked"]
        return (f"Escape-room task: open the vault. Commands: {COMMANDS}. One command per "
                f"turn; you have {self.max_turns} turns.\n" + self.room())

    # --- command handlers; each returns (message, success) ---------------------------

    def do_examine(self, words):
        target = next((w for w in words if w in self.spots or w in
                       (self.container, "vault", "keypad", "note", "key")), None)
        if target is None:
            return "Examine what? " + self.room(), False
        if target in self.spots:
            if target not in self.examined:
                self.examined.append(target)
            item = self.contents[target]
            if item is None:
                return f"{SPOT_PHRASES[target]}: nothing but dust.", False
            if item not in self.revealed:
                self.revealed.append(item)
            return f"{SPOT_PHRASES[target]} you find a {item}.", False
        if target == self.container:
            state = "open" if self.opened else "unlocked" if self.unlocked else "locked"
            extra = " It has a keyhole." if not self.unlocked else ""
            return f"A wooden {self.container}. It is {state}.{extra}", False
        if target in ("vault", "keypad"):
            return (f"A steel vault with a {self.code_digits}-digit keypad. It is "
                    f"{'unlocked' if self.code_accepted else 'locked'}."), False
        if target == "note":
            return self.do_read(["note"])
        return ("A small key." if "key" in self.inventory + self.revealed
                else "You have not seen a key."), False

    def do_take(self, words):
        item = next((w for w in words if w in DECOY_ITEMS or w in ("key", "note")), None)
        if item is None:
            return "Take what?", False
        if item in self.inventory:
            return f"You already have the {item}.", False
        if item not in self.revealed:
            return f"You do not see a {item} here.", False
        self.revealed.remove(item)
        self.inventory.append(item)
        return f"You take the {item}.", False

    def do_use(self, words):
        item = next((w for w in words if w in DECOY_ITEMS or w in ("key", "note")), None)
        rest = words[words.index("on") + 1:] if "on" in words else words
        thing = next((w for w in rest if w in (self.container, "vault", "keypad")
                      or w in self.spots), None)
        if item is None or thing is None:
            return "Use what on what? Syntax: use <item> on <thing>.", False
        if item not in self.inventory:
            return f"You are not holding a {item}.", False
        if item == "key" and thing == self.container:
            if self.unlocked:
                return f"The {self.container} is already unlocked.", False
            self.unlocked = True
            return f"The key turns. The {self.container} is now unlocked.", False
        return "Nothing happens.", False

    def do_open(self, words):
        thing = next((w for w in words if w in (self.container, "vault")), None)
        if thing is None:
            return f"Open what? You can try the {self.container} or the vault.", False
        if thing == self.container:
            if not self.unlocked:
                return f"The {self.container} is locked.", False
            if self.opened:
                return f"The {self.container} is already open.", False
            self.opened = True
            if self.auto_open:  # level 0: the note is already in hand
                return f"You open the {self.container}. It is empty.", False
            self.revealed.append("note")
            return f"You open the {self.container}. Inside is a folded note.", False
        if not self.code_accepted:
            return "The vault is locked. Enter the code on the keypad first.", False
        return "The vault door swings open. You did it!", True

    def do_read(self, words):
        if "note" not in words:
            return "Read what?", False
        if "note" not in self.inventory:
            return "You are not holding a note.", False
        self.note_read = True
        return f"The note reads: 'Vault code {self.code}'.", False

    def do_enter(self, words):
        digits = "".join(w for w in words if w.isdigit())
        if len(digits) != self.code_digits:
            return (f"The keypad needs exactly {self.code_digits} digits, "
                    f"e.g. 'enter {'0' * self.code_digits}'."), False
        if digits != self.code:
            return "The keypad buzzes: wrong code.", False
        self.code_accepted = True
        if self.auto_open:
            return "The keypad beeps and the vault door swings open. You did it!", True
        return "The keypad beeps and the vault lock clicks.", False

    def step(self, action: str):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"episode_over": True}
        self.turns += 1
        verb, words = parse_command(action)
        if verb is None:
            message, success = f"Unknown command. Commands: {COMMANDS}.", False
        elif verb == "look":
            if "at" in words or "under" in words or "behind" in words or "in" in words:
                message, success = self.do_examine(words)
            else:
                message, success = self.room(), False
        elif verb == "inventory" or (verb == "examine" and "inventory" in words):
            held = ", ".join(self.inventory) or "nothing"
            message, success = f"You are holding: {held}.", False
        elif verb == "unlock":  # 'unlock <thing>' is short for 'use key on <thing>'
            message, success = self.do_use(["key", "on"] + words)
        else:
            handler = {"examine": self.do_examine, "take": self.do_take, "use": self.do_use,
                       "open": self.do_open, "read": self.do_read, "enter": self.do_enter}[verb]
            message, success = handler(words)
        info = {"verb": verb, "turns": self.turns, "vault_open": success,
                "invalid_action": verb is None}
        if success:
            self.done = True
            return message, 1.0, True, False, info
        left = self.max_turns - self.turns
        if left <= 0:
            self.done = True
            return message + " Out of turns.", 0.0, False, True, info
        return f"{message} (Turns left: {left})", 0.0, False, False, info
