"""Shared test helper: give a fresh LoRA adapter non-zero weights."""

import torch

from envforge_trainer.engine import Engine


def randomize_adapter(engine: Engine, seed: int, scale: float) -> Engine:
    """Sets every matrix of adapter ``m`` to Gaussian noise times ``scale`` (seeded).

    A new LoRA adapter starts with B = 0: no effect on the output and no gradient for A,
    so tests of the adapter's effect or gradients need other values first."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in engine.peft.named_parameters():
            if ".m." in name:
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * scale)
    return engine
