"""Benchmark of one Solver step's trainer work: ``python -m envforge_trainer.bench --model PATH``.

Training: builds ``--datums`` random datums of ``--tokens`` tokens each (the last
``--policy-tokens`` of each carry weight 1 and advantages, as a Solver episode's action
tokens would), then times ``forward_backward`` (PPO) + ``optim_step`` for ``--steps``
steps and prints seconds per step and training tokens per second.

``--off-policy`` times the update of off-policy datums (delayed Designer datums, or engine-sampled
ones): ``in-pass`` sends them once with ``loss_fn_config.importance_cap`` (the reference trainer's
extension), ``forward-first`` first runs a gradient-free ``forward`` for π_old, reweights the
advantages on the client and then runs ``forward_backward``, as a backend without the extension
needs. ``on-policy`` (the default) is the plain PPO step.

Sampling: times ``--samples`` calls of the sampler (through a published adapter, as the
Solver samples) on a random ``--sample-prompt-tokens``-token prompt with
``--sample-new-tokens`` new tokens (stop tokens ignored, so every call generates them all)
and prints generated tokens per second. ``--samples 0`` skips it.

The defaults are the quick-start Solver step: 12 episodes of about 800 tokens with 200
action tokens each, prompts of about 400 tokens and 48 new tokens per turn. Finally the
process's peak resident memory is printed.
"""

from __future__ import annotations

import argparse
import math
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
    parser.add_argument("--off-policy", choices=("on-policy", "in-pass", "forward-first"), default="on-policy")
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--sample-prompt-tokens", type=int, default=400)
    parser.add_argument("--sample-new-tokens", type=int, default=48)
    args = parser.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    print(f"torch threads: {torch.get_num_threads()}", flush=True)
    started = time.perf_counter()
    engine = Engine(load_base_model(args.model), Path(tempfile.mkdtemp()))
    engine.create_model("bench", args.rank, 0)
    print(f"load: {time.perf_counter() - started:.1f} s", flush=True)
    generator = torch.Generator().manual_seed(0)
    limit = min(engine.vocab_size, 20_000)
    if args.steps > 0:
        _bench_training(engine, args, generator, limit)
    if args.samples > 0:
        _bench_sampling(engine, args, generator, limit)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak:.0f} MiB")


def _bench_training(engine: Engine, args: argparse.Namespace, generator: torch.Generator, limit: int) -> None:
    data = []
    for _ in range(args.datums):
        tokens = torch.randint(3, limit, (args.tokens,), generator=generator).tolist()
        mask = [0.0] * (args.tokens - args.policy_tokens) + [1.0] * args.policy_tokens
        advantages = [value * (1 if index % 2 else -1) for index, value in enumerate(mask)]
        data.append(DatumInput(tokens, tokens[1:] + [2], [-5.0] * args.tokens, advantages, mask))
    total_tokens = args.datums * args.tokens
    clip = {"clip_low_threshold": 0.8, "clip_high_threshold": 1.28}
    for step in range(1, args.steps + 1):
        begin = time.perf_counter()
        if args.off_policy == "in-pass":
            result = engine.forward_backward("bench", data, "ppo", {**clip, "importance_cap": 2.0})
        elif args.off_policy == "forward-first":
            old = [output["logprobs"]["data"] for output in engine.forward("bench", data, "ppo", clip)["loss_fn_outputs"]]
            corrected = [
                DatumInput(datum.tokens, datum.target_tokens, [o if w else 0.0 for o, w in zip(olds, datum.weights)],
                           [a * min(math.exp(o - s), 2.0) for a, o, s in zip(datum.advantages, olds, datum.logprobs)], datum.weights)
                for datum, olds in zip(data, old)
            ]
            result = engine.forward_backward("bench", corrected, "ppo", clip)
        else:
            result = engine.forward_backward("bench", data, "ppo", clip)
        middle = time.perf_counter()
        engine.optim_step("bench", {"learning_rate": 1e-5, "beta1": 0.9, "beta2": 0.95, "eps": 1e-8, "weight_decay": 0.0})
        end = time.perf_counter()
        print(
            f"step {step} ({args.off_policy}): {end - begin:.1f} s (update passes {middle - begin:.1f} s, optim_step {end - middle:.2f} s), "
            f"{args.datums} datums x {args.tokens} tokens, {total_tokens / (end - begin):.0f} training tokens/s, "
            f"loss {result['metrics']['loss:sum']:.3f}",
            flush=True,
        )


def _bench_sampling(engine: Engine, args: argparse.Namespace, generator: torch.Generator, limit: int) -> None:
    begin = time.perf_counter()
    path = engine.save_weights_for_sampler("bench", "bench")["path"]
    print(f"publish weights: {time.perf_counter() - begin:.2f} s", flush=True)
    prompt = torch.randint(3, limit, (args.sample_prompt_tokens,), generator=generator).tolist()
    # a throughput figure needs full-length generations: the benchmark's engine stops at no token
    engine._eos_ids = lambda: []  # noqa: SLF001
    params = {"max_tokens": args.sample_new_tokens, "temperature": 1.0, "seed": 0}
    for call in range(1, args.samples + 1):
        begin = time.perf_counter()
        result = engine.sample(path, prompt, params, 1, False)
        elapsed = time.perf_counter() - begin
        generated = len(result["sequences"][0]["tokens"])
        print(
            f"sample {call}: {elapsed:.2f} s for a {len(prompt)}-token prompt and {generated} new tokens, "
            f"{generated / elapsed:.1f} sampled tokens/s",
            flush=True,
        )


if __name__ == "__main__":
    main()
