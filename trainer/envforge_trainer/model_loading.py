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


class TinyByteTokenizer:
    """A lossy byte tokenizer for the tiny random model, so control-flow tests can run
    whole self-play rounds on it: byte ``b`` becomes token ``3 + b % 61`` (ids 0-2 are
    pad, bos and eos), and token ``t >= 3`` decodes to the letter ``chr(97 + (t - 3) % 26)``.
    It has no chat template (the Gemma turn format applies) and means nothing."""

    bos_token = ""
    chat_template = None

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        tokens = [3 + byte % 61 for byte in text.encode("utf-8")]
        return ([1] if add_special_tokens else []) + tokens

    def decode(self, tokens: list[int], skip_special_tokens: bool = True) -> str:
        return "".join(chr(97 + (token - 3) % 26) for token in tokens if token >= 3 or not skip_special_tokens)


@dataclass
class BaseModel:
    """A loaded base model, its tokenizer and its name."""

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
    return BaseModel(TINY_RANDOM, LlamaForCausalLM(config), TinyByteTokenizer())
