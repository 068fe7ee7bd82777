"""Command line: ``python -m envforge_trainer --model PATH [--host H] [--port P] ...``.

The model is loaded before the server listens, so ``/api/v1/healthz`` answers only
once the trainer is ready. The API key, if any, is read from the environment variable
named by ``--api-key-env`` (default ``ENVFORGE_TRAINER_API_KEY``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import torch
import uvicorn

from .app import create_app
from .engine import Engine
from .model_loading import load_base_model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="envforge_trainer", description="envforge reference trainer (Tinker API, CPU)")
    parser.add_argument("--model", required=True, help="a .gguf file, a Hugging Face model folder, or tiny-random")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--checkpoint-dir", default="trainer-checkpoints", help="where training and sampler weights are written")
    parser.add_argument("--threads", type=int, default=0, help="torch threads; 0 = one per core")
    parser.add_argument("--api-key-env", default="ENVFORGE_TRAINER_API_KEY")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    try:
        base = load_base_model(args.model, args.seed)
    except (FileNotFoundError, OSError, ValueError) as error:
        print(f"envforge_trainer: cannot load model {args.model}: {error}", file=sys.stderr)
        return 2
    engine = Engine(base, Path(args.checkpoint_dir))
    app = create_app(engine, api_key=os.environ.get(args.api_key_env) or None)
    print(f"envforge_trainer: serving {base.name} on http://{args.host}:{args.port}", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
