"""Writes scalars to one TensorBoard event file with tensorboardX (pinned in trainer/requirements.txt).

Input on stdin, one JSON document:
  {"logdir": "<empty folder>", "points": [[tag, step, value, wall_time_seconds], ...]}
The event file (events.out.tfevents.<time>.<host>.envforge) is written into logdir; on success
the script prints {"points": N} and exits 0. Exit 3: tensorboardX cannot be imported (the
virtualenv predates it: run ./scripts/setup.sh). Exit 4: the input is not the document above.
Started by src/dashboard/tensorboard/event-file-writer.ts with trainer/.venv/bin/python.
"""
import json
import sys

# tensorboardX imports torch when it can (about 4 s on two cores) only to accept torch tensors;
# the scalars here are Python floats, and a None entry makes `import torch` raise ImportError,
# which tensorboardX handles as "no torch".
sys.modules.setdefault("torch", None)

try:
    from tensorboardX import SummaryWriter
except ImportError as error:  # the virtualenv was made before tensorboardX was pinned
    sys.stderr.write(f"tensorboardX is not importable: {error}\n")
    sys.exit(3)


def main() -> int:
    try:
        document = json.load(sys.stdin)
        logdir = document["logdir"]
        points = [(str(tag), int(step), float(value), float(wall)) for tag, step, value, wall in document["points"]]
    except (ValueError, KeyError, TypeError) as error:
        sys.stderr.write(f"bad input: {error}\n")
        return 4
    # flush_secs is long: everything is written at close(), no background flush mid-way
    writer = SummaryWriter(logdir=logdir, filename_suffix=".envforge", flush_secs=3600, max_queue=1000)
    try:
        for tag, step, value, wall in points:
            writer.add_scalar(tag, value, global_step=step, walltime=wall)
    finally:
        writer.close()
    sys.stdout.write(json.dumps({"points": len(points)}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
