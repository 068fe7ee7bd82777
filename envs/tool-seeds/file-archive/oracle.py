"""Reference policy: list /inbox, read its files in order (then its subfolder's) until one mentions the invoice,
look into /archive, move the file there (under a new name when its name is taken), then say where it went."""

import posixpath


def act(env, observation):
    where = env.location()
    if posixpath.dirname(where) == "/archive":
        return f"Moved to {where}"
    listed = {call["arguments"]["path"] for call in env.calls if call["name"] == "list_dir"}
    read = {call["arguments"]["path"] for call in env.calls if call["name"] == "read_file"}
    if where not in read:
        folders = sorted(env.folders - {"/", "/archive"}, key=len)  # /inbox first, then its subfolder
        for path in sorted((path for path in env.files if not path.startswith("/archive/")), key=lambda path: (folders.index(posixpath.dirname(path)), path)):
            if posixpath.dirname(path) not in listed:
                return {"name": "list_dir", "arguments": {"path": posixpath.dirname(path)}}
            if path not in read:
                return {"name": "read_file", "arguments": {"path": path}}
    if "/archive" not in listed:
        return {"name": "list_dir", "arguments": {"path": "/archive"}}
    name = posixpath.basename(where)
    if "/archive/" + name in env.files:
        stem, extension = posixpath.splitext(name)
        return {"name": "move_file", "arguments": {"source": where, "destination": f"/archive/{stem}-{env.invoice}{extension}"}}
    return {"name": "move_file", "arguments": {"source": where, "destination": "/archive"}}
