"""Loading the base causal LM: a GGUF file, a Hugging Face folder, or a tiny random model.

GGUF files are dequantised by transformers with the ``gguf`` package. The first load
converts the file into a float32 Hugging Face folder next to it (``<file>.hf/``), so
later loads take seconds instead of a minute.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel

TINY_RANDOM = "tiny-random"


@dataclass
class BaseModel:
    """A loaded base model, its tokenizer (None for the tiny random model) and its name."""

    name: str
    model: PreTrainedModel
    tokenizer: Any


def load_base_model(spec: str, seed: int = 0) -> BaseModel:
    """Loads ``spec``: ``tiny-random``, a ``.gguf`` file, or a Hugging Face model folder.

    Raises FileNotFoundError when the path does not exist.
    """
    if spec == TINY_RANDOM:
        return _tiny_random(seed)
    path = Path(spec).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"model not found: {path}")
    if path.is_file() and path.suffix == ".gguf":
        return BaseModel(path.name, *_load_gguf(path))
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    return BaseModel(path.name, model, tokenizer)


def _load_gguf(path: Path) -> tuple[PreTrainedModel, Any]:
    converted = path.with_name(path.name + ".hf")
    if (converted / "model.safetensors").exists():
        return (
            AutoModelForCausalLM.from_pretrained(converted, dtype=torch.float32),
            AutoTokenizer.from_pretrained(converted),
        )
    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32)
    # The dequantised weights are plain float32; drop the GGUF quantiser so they can be saved.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    partial = path.with_name(f"{path.name}.hf.partial-{os.getpid()}")
    try:
        model.save_pretrained(partial)
        tokenizer.save_pretrained(partial)
        partial.rename(converted)
    except OSError:
        shutil.rmtree(partial, ignore_errors=True)
    return model, tokenizer


def _tiny_random(seed: int) -> BaseModel:
    """A two-layer Llama-shaped model with random weights: for fast tests of the loss maths."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=64,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=0,
    )
    return BaseModel(TINY_RANDOM, LlamaForCausalLM(config), None)
