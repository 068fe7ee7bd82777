"""Exporting a peft LoRA adapter as a llama.cpp GGUF LoRA adapter.

The file follows the conventions of llama.cpp's ``convert_lora_to_gguf.py`` and what
``llama-adapter.cpp`` checks when it loads one:

* metadata ``general.architecture`` (must equal the base GGUF's, e.g. ``gemma3``),
  ``general.type = "adapter"``, ``adapter.type = "lora"`` and ``adapter.lora.alpha``;
* one pair of tensors per adapted linear layer, named after the base GGUF's weight with
  ``.lora_a`` / ``.lora_b`` appended (``blk.0.attn_q.weight.lora_a``); the base names come
  from the ``gguf`` package's tensor name map, not from a table kept here;
* shapes: peft's ``lora_A`` is ``(rank, in)`` and ``lora_B`` is ``(out, rank)`` in torch order;
  GGUF stores dimensions reversed, so llama.cpp sees ``a.ne = [in, rank]`` and
  ``b.ne = [rank, out]``, and it requires ``a.ne[0]`` and ``b.ne[1]`` to equal the base
  weight's ``ne[0]`` (in) and ``ne[1]`` (out), and ``a.ne[1] == b.ne[0]``;
* scaling: llama.cpp multiplies ``B·A`` by ``scale · alpha / rank`` (rank read from ``a``),
  peft by its ``scaling`` (``lora_alpha / r``, or ``lora_alpha / sqrt(r)`` with rsLoRA); the
  exported alpha is ``scaling · rank``, so a context scale of 1 reproduces peft exactly;
* rotary layout: for ``llama`` the GGUF converter permutes the rows of ``q_proj`` and
  ``k_proj`` (Hugging Face's half-split rotary layout to GGML's interleaved one), so the
  rows of their ``lora_B`` are permuted the same way. ``gemma3`` and ``qwen2`` use GGML's
  NEOX rotary mode, whose weights are stored unpermuted; their tensors are written as they are.

Tensors are float32. The file is written next to its destination and renamed into place,
so a reader never sees a half-written adapter.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gguf
import numpy as np
import torch

from .engine import LORA_ALPHA, UserError

PEFT_PREFIX = "base_model.model."

#: Hugging Face ``config.model_type`` -> GGUF architecture. gemma3 is checked numerically
#: against llama.cpp (src/adapters/weight-sync/llamacpp-lora-sync.test.ts); qwen2 uses the same
#: name map and NEOX rotary mode but no qwen2 adapter has been loaded into llama.cpp yet; llama adds
#: the q/k row permutation above, checked against the converter's layout in the pytest only.
ARCHITECTURES: dict[str, gguf.MODEL_ARCH] = {
    "gemma3": gguf.MODEL_ARCH.GEMMA3,
    "gemma3_text": gguf.MODEL_ARCH.GEMMA3,
    "qwen2": gguf.MODEL_ARCH.QWEN2,
    "llama": gguf.MODEL_ARCH.LLAMA,
}

_PERMUTED_ARCHITECTURES = {gguf.MODEL_ARCH.LLAMA}


class GgufLoraExportError(UserError):
    """An adapter cannot be exported; ``code`` says why (a stable string for clients)."""

    code = "gguf_lora_export_failed"


class UnsupportedArchitectureError(GgufLoraExportError):
    """The base model's architecture (or one of its adapted layers) has no GGUF LoRA mapping here."""

    code = "unsupported_architecture"


class UnwritablePathError(GgufLoraExportError):
    """The destination is not an absolute ``.gguf`` path in an existing, writable folder."""

    code = "path_not_writable"


@dataclass(frozen=True)
class GgufLoraExport:
    """What an export wrote: the file, its architecture, rank, alpha, tensor count and size in bytes."""

    path: Path
    architecture: str
    rank: int
    alpha: float
    tensors: int
    bytes: int

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "architecture": self.architecture,
            "rank": self.rank,
            "alpha": self.alpha,
            "tensors": self.tensors,
            "bytes": self.bytes,
        }


def gguf_architecture(config: Any) -> gguf.MODEL_ARCH:
    """The GGUF architecture of a Hugging Face model config.

    Raises UnsupportedArchitectureError for a ``model_type`` not in :data:`ARCHITECTURES`.
    """
    model_type = getattr(config, "model_type", None)
    architecture = ARCHITECTURES.get(str(model_type))
    if architecture is None:
        supported = ", ".join(sorted(ARCHITECTURES))
        raise UnsupportedArchitectureError(f"cannot export a GGUF LoRA adapter for model_type {model_type!r}; supported: {supported}")
    return architecture


def gguf_lora_tensors(state: dict[str, torch.Tensor], config: Any) -> list[tuple[str, np.ndarray]]:
    """The GGUF tensors of a peft LoRA state dict, as ``(name, float32 array)`` in torch order.

    ``state`` is what ``get_peft_model_state_dict`` returns for one adapter (keys like
    ``base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight``).

    Raises UnsupportedArchitectureError for an unsupported architecture, a LoRA on a
    layer without a GGUF name (e.g. an embedding), or a key that is not a LoRA matrix.
    """
    architecture = gguf_architecture(config)
    name_map = gguf.get_tensor_name_map(architecture, int(config.num_hidden_layers))
    pairs: dict[str, dict[str, torch.Tensor]] = {}
    for key, value in state.items():
        module, kind = _split_key(key)
        pairs.setdefault(module, {})[kind] = value
    tensors: list[tuple[str, np.ndarray]] = []
    for module in sorted(pairs, key=_layer_order):
        pair = pairs[module]
        if set(pair) != {"lora_A", "lora_B"}:
            raise UnsupportedArchitectureError(f"layer {module} has {sorted(pair)}, expected lora_A and lora_B")
        base = name_map.get_name(f"{module}.weight", try_suffixes=(".weight",))
        if base is None:
            raise UnsupportedArchitectureError(f"layer {module} has no tensor in the {gguf.MODEL_ARCH_NAMES[architecture]} GGUF layout")
        a = pair["lora_A"].detach().to(torch.float32)
        b = pair["lora_B"].detach().to(torch.float32)
        if a.ndim != 2 or b.ndim != 2 or a.shape[0] != b.shape[1]:
            raise UnsupportedArchitectureError(f"layer {module}: lora_A {tuple(a.shape)} and lora_B {tuple(b.shape)} are not a LoRA pair")
        if architecture in _PERMUTED_ARCHITECTURES:
            b = _permute_rotary_rows(b, module, config)
        tensors.append((f"{base}.lora_a", a.contiguous().numpy()))
        tensors.append((f"{base}.lora_b", b.contiguous().numpy()))
    if not tensors:
        raise UnsupportedArchitectureError("the adapter has no LoRA matrices")
    return tensors


def write_gguf_lora(state: dict[str, torch.Tensor], config: Any, scaling: float, path: Path | str, name: str = "envforge LoRA") -> GgufLoraExport:
    """Writes ``state`` as a GGUF LoRA adapter at ``path`` (atomically: a partial file, then a rename).

    ``scaling`` is peft's factor on ``B·A`` (``lora_alpha / r`` for plain LoRA); the file's
    ``adapter.lora.alpha`` is ``scaling · rank``, so llama.cpp applies the same factor at scale 1.

    Raises UnwritablePathError when ``path`` is not an absolute ``.gguf`` path whose folder
    exists and can be written, and UnsupportedArchitectureError (see :func:`gguf_lora_tensors`).
    """
    destination = Path(path)
    if not destination.is_absolute() or destination.suffix != ".gguf":
        raise UnwritablePathError(f"path must be an absolute path ending in .gguf, got {str(path)!r}")
    if not destination.parent.is_dir():
        raise UnwritablePathError(f"folder {destination.parent} does not exist")
    if destination.is_dir():
        raise UnwritablePathError(f"{destination} is a folder")
    tensors = gguf_lora_tensors(state, config)
    ranks = {array.shape[0] for tensor_name, array in tensors if tensor_name.endswith(".lora_a")}
    if len(ranks) != 1:
        raise UnsupportedArchitectureError(f"the adapter mixes LoRA ranks {sorted(ranks)}; one alpha cannot scale them all")
    rank = ranks.pop()
    alpha = float(scaling) * rank
    architecture = gguf.MODEL_ARCH_NAMES[gguf_architecture(config)]
    partial = destination.with_name(f".{destination.name}.partial-{os.getpid()}")
    try:
        writer = gguf.GGUFWriter(partial, architecture)
        writer.add_type(gguf.GGUFType.ADAPTER)
        writer.add_name(name)
        writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
        writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, alpha)
        for tensor_name, array in tensors:
            writer.add_tensor(tensor_name, array)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        partial.replace(destination)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise UnwritablePathError(f"cannot write {destination}: {error.strerror or error}") from error
    return GgufLoraExport(destination, architecture, rank, alpha, len(tensors), destination.stat().st_size)


def peft_scaling(lora_alpha: float, rank: int, use_rslora: bool = False) -> float:
    """peft's factor on ``B·A``: ``lora_alpha / r``, or ``lora_alpha / sqrt(r)`` with rsLoRA."""
    return lora_alpha / math.sqrt(rank) if use_rslora else lora_alpha / rank


def _split_key(key: str) -> tuple[str, str]:
    """``base_model.model.X.lora_A.weight`` -> ``("X", "lora_A")``."""
    parts = key.removeprefix(PEFT_PREFIX).split(".")
    if len(parts) < 3 or parts[-1] != "weight" or parts[-2] not in ("lora_A", "lora_B"):
        raise UnsupportedArchitectureError(f"adapter entry {key!r} is not a LoRA matrix of a linear layer (embedding LoRA and DoRA are not exported)")
    return ".".join(parts[:-2]), parts[-2]


def _layer_order(module: str) -> tuple[int, str]:
    for part in module.split("."):
        if part.isdigit():
            return int(part), module
    return -1, module


def _permute_rotary_rows(b: torch.Tensor, module: str, config: Any) -> torch.Tensor:
    """Reorders the output rows of a llama ``q_proj`` / ``k_proj`` LoRA B as the GGUF converter
    reorders the base weight's rows: each head's two rotary halves become interleaved pairs."""
    leaf = module.rsplit(".", 1)[-1]
    if leaf == "q_proj":
        heads = int(config.num_attention_heads)
    elif leaf == "k_proj":
        heads = int(getattr(config, "num_key_value_heads", None) or config.num_attention_heads)
    else:
        return b
    rows, rank = b.shape
    return b.reshape(heads, 2, rows // heads // 2, rank).swapaxes(1, 2).reshape(rows, rank)


def export_engine_adapter(engine: Any, path: Path | str, model_id: str | None = None, sampler_path: str | None = None) -> GgufLoraExport:
    """Exports the engine's adapter for ``model_id`` (live weights) or a published ``sampler_path``
    as a GGUF LoRA adapter at ``path``, for the base GGUF the engine loaded.

    Call it on the engine's worker thread (it reads the adapter while no step runs).
    Raises UserError (unknown model id or checkpoint) and the errors of :func:`write_gguf_lora`.
    """
    state, rank = engine.adapter_weights(model_id=model_id, sampler_path=sampler_path)
    name = f"envforge LoRA {model_id or sampler_path} on {engine.base.name}"
    return write_gguf_lora(state, engine.base.model.config, peft_scaling(LORA_ALPHA, rank), path, name=name)
