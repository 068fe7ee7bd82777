"""Benchmark of one training step: ``python -m envforge_trainer.bench --model PATH``.

Builds ``--datums`` random datums of ``--tokens`` tokens each (the last ``--policy-tokens``
of each carry advantages, as a Solver episode's action tokens would), then times
``forward_backward`` (PPO) + ``optim_step`` for ``--steps`` steps and prints seconds per
step, tokens per second and the process's peak resident memory.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import torch

from .engine import DatumInput, Engine
from .model_loading import load_base_model


def main() -> None:
    parser = argparse.ArgumentParser(prog="envforge_trainer.bench")
    parser.add_argument("--model", required=True)
    parser.add_argument("--datums", type=int, default=12)
    parser.add_argument("--tokens", type=int, default=800)
    parser.add_argument("--policy-tokens", type=int, default=200)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--rank", type=int, default=8)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    started = time.perf_counter()
    engine = Engine(load_base_model(args.model), Path(tempfile.mkdtemp()))
    engine.create_model("bench", args.rank, 0)
    print(f"load: {time.perf_counter() - started:.1f} s", flush=True)
    generator = torch.Generator().manual_seed(0)
    limit = min(engine.vocab_size, 20_000)
    data = []
    for _ in range(args.datums):
        tokens = torch.randint(3, limit, (args.tokens,), generator=generator).tolist()
        mask = [0.0] * (args.tokens - args.policy_tokens) + [1.0] * args.policy_tokens
        advantages = [value * (1 if index % 2 else -1) for index, value in enumerate(mask)]
        data.append(DatumInput(tokens, tokens[1:] + [2], [-5.0] * args.tokens, advantages, mask))
    total_tokens = args.datums * args.tokens
    for step in range(1, args.steps + 1):
        begin = time.perf_counter()
        result = engine.forward_backward("bench", data, "ppo", {"clip_low_threshold": 0.8, "clip_high_threshold": 1.28})
        middle = time.perf_counter()
        engine.optim_step("bench", {"learning_rate": 1e-5, "beta1": 0.9, "beta2": 0.95, "eps": 1e-8, "weight_decay": 0.0})
        end = time.perf_counter()
        print(
            f"step {step}: {end - begin:.1f} s (forward_backward {middle - begin:.1f} s, optim_step {end - middle:.2f} s), "
            f"{total_tokens} tokens, {total_tokens / (end - begin):.0f} tokens/s, loss {result['metrics']['loss:sum']:.3f}",
            flush=True,
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak:.0f} MiB")


if __name__ == "__main__":
    main()
