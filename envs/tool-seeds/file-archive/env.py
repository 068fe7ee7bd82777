"""A small file system behind three tools: find the file that mentions an invoice, move it into /archive, say where.

A tool environment: step(action) receives a parsed tool call, a dict {"name": ..., "arguments": {...}}, or
the agent's final message, a str. The file is found only by reading contents (its name says nothing), so the
agent lists folders, reads files, and passes a path it has seen to move_file. Levels add files and a subfolder,
a decoy that carries the invoice's digits under another prefix, and a file of the same name already in /archive
(the move is refused; the file needs a new name there).
"""

import posixpath
import random
import re

LEVELS = [
    # (files in /inbox, files in its subfolder, files already in /archive, decoy with the same digits, name clash in /archive)
    (2, 0, 0, False, False),
    (4, 0, 1, False, False),
    (3, 2, 2, True, False),
    (3, 3, 2, True, True),
]
MAX_CALLS = 12
NAMES = ["memo.txt", "notes.txt", "scan.txt", "letter.txt", "draft.txt", "receipt.txt", "summary.txt", "todo.txt", "statement.txt", "minutes.txt"]
SUBFOLDERS = ["old", "pending", "misc", "2024"]
COMPANIES = ["Harbor Supplies", "Northwind Paper", "Alder & Sons", "Blue Fern Ltd", "Quarry Works", "Tidewater Co"]
FILLERS = [
    "Team lunch moved to Thursday.",
    "Call the landlord about the heating.",
    "Draft agenda: budget, hiring, office move.",
    "Remember to renew the parking permit.",
    "Printer toner is running low.",
]


class FileArchive:
    def reset(self, seed, level=0):
        rng = random.Random(seed * 31 + level)
        in_inbox, in_subfolder, in_archive, decoy, clash = LEVELS[level]
        self.folders = {"/", "/inbox", "/archive"}
        subfolder = "/inbox/" + rng.choice(SUBFOLDERS)
        if in_subfolder:
            self.folders.add(subfolder)
        places = ["/inbox"] * in_inbox + [subfolder] * in_subfolder
        names = rng.sample(NAMES, len(places))
        numbers = rng.sample(range(1000, 10000), len(places))
        self.invoice = numbers[0]
        contents = [f"Invoice INV-{self.invoice} from {rng.choice(COMPANIES)}: {rng.randint(40, 900)} credits, due day {rng.randint(1, 28)}."]
        for index, number in enumerate(numbers[1:], start=1):
            if decoy and index == 1:  # the invoice's digits, as a purchase order
                contents.append(f"Purchase order PO-{self.invoice} to {rng.choice(COMPANIES)}: {rng.randint(40, 900)} credits.")
            elif index % 2:
                contents.append(f"Invoice INV-{number} from {rng.choice(COMPANIES)}: {rng.randint(40, 900)} credits, due day {rng.randint(1, 28)}.")
            else:
                contents.append(f"{rng.choice(FILLERS)} (ref {number})")
        self.target = contents[0]
        rng.shuffle(contents)  # which place and name the invoice gets
        self.files = {posixpath.join(place, name): content for place, name, content in zip(places, names, contents)}
        target_name = posixpath.basename(self.location())
        kept = rng.sample([name for name in NAMES if name != target_name], in_archive - int(clash))
        for name in kept + ([target_name] if clash else []):
            self.files["/archive/" + name] = f"Archived {rng.choice(COMPANIES)} statement, {rng.randint(2019, 2023)}."
        self.archived = {path for path in self.files if path.startswith("/archive/")}
        self.calls = []  # every tool call so far, as received
        self.done = False
        self.turns = 0
        return (
            f"One of the {len(places)} files under /inbox (subfolders included) mentions invoice INV-{self.invoice}. "
            "Move that file into /archive, keeping its name unless /archive already holds a file of that name (then give it a new name in /archive). "
            "Use the tools list_dir, read_file and move_file, then reply with a final message (no tool call) stating the file's new path, e.g. 'Moved to /archive/name.txt'."
        )

    def location(self):
        """The path the invoice file is at now."""
        return next(path for path, content in self.files.items() if content == self.target)

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
        stated = re.findall(r"/[\w./-]+", action)
        if not stated:
            return ("The final message states no path.", 0.0, True, False, {"invalid_action": True})
        where = self.location()
        archive = {path for path in self.files if posixpath.dirname(path) == "/archive"}
        if posixpath.dirname(where) == "/archive" and archive == self.archived | {where} and normalise(stated[-1].rstrip(".")) == where:
            return (f"Done: the invoice is at {where}.", 1.0, True, False, {})
        return (f"Not done: the invoice file is at {where}; /archive holds {len(archive)} files.", 0.0, True, False, {})

    def call(self, name, arguments):
        if name == "list_dir":
            folder = normalise(arguments["path"])
            if folder not in self.folders:
                return (f"Error: no folder '{folder}'.", True)
            entries = sorted(posixpath.basename(path) + "/" for path in self.folders if path != "/" and posixpath.dirname(path) == folder)
            entries += sorted(posixpath.basename(path) for path in self.files if posixpath.dirname(path) == folder)
            return (f"{folder}: " + (", ".join(f"'{entry}'" for entry in entries) or "empty"), False)
        if name == "read_file":
            path = normalise(arguments["path"])
            if path not in self.files:
                return (f"Error: no file '{path}'" + (" (it is a folder)." if path in self.folders else "."), True)
            return (f"{path}: {self.files[path]}", False)
        if name == "move_file":
            source, destination = normalise(arguments["source"]), normalise(arguments["destination"])
            if source not in self.files:
                return (f"Error: no file '{source}'" + (" (folders cannot be moved)." if source in self.folders else "."), True)
            if destination in self.folders:
                destination = posixpath.join(destination, posixpath.basename(source))
            if posixpath.dirname(destination) not in self.folders:
                return (f"Error: no folder '{posixpath.dirname(destination)}'.", True)
            if destination in self.files:
                return (f"Error: '{destination}' already exists.", True)
            self.files[destination] = self.files.pop(source)
            return (f"Moved '{source}' to '{destination}'.", False)
        return (f"Error: no tool '{name}'.", True)


def normalise(path):
    """An absolute path without a trailing slash: 'inbox/old/' is '/inbox/old'."""
    return posixpath.normpath("/" + path.strip()).replace("//", "/")
