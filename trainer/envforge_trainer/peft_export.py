"""Exporting the live LoRA adapter in peft's own format, for inference servers that load LoRA at runtime.

vLLM (``POST /v1/load_lora_adapter``, server started with ``VLLM_ALLOW_RUNTIME_LORA_UPDATING=True``
and ``--enable-lora``) and SGLang (``POST /load_lora_adapter``, ``--enable-lora``) load a folder
that holds what ``PeftModel.save_pretrained`` writes: ``adapter_config.json`` (peft's
``LoraConfig``: ``peft_type``, ``r``, ``lora_alpha``, ``target_modules``, ...) and
``adapter_model.safetensors`` (the LoRA matrices under peft's keys,
``base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight``). This module calls
``save_pretrained`` itself, so the folder is exactly peft's, in a hidden folder next to the
destination that is then renamed into place: a server never reads a half-written adapter.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .engine import UserError

CONFIG_FILE = "adapter_config.json"
WEIGHTS_FILE = "adapter_model.safetensors"


class PeftExportError(UserError):
    """An adapter cannot be exported in peft format; ``code`` says why (a stable string for clients)."""

    code = "peft_export_failed"


class UnwritableFolderError(PeftExportError):
    """The destination is not an absolute folder path whose parent exists and can be written."""

    code = "path_not_writable"


@dataclass(frozen=True)
class PeftLoraExport:
    """What an export wrote: the folder, the adapter's rank, alpha, adapted modules, tensor count and file sizes in bytes."""

    path: Path
    rank: int
    alpha: float
    target_modules: list[str]
    tensors: int
    files: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "rank": self.rank,
            "alpha": self.alpha,
            "target_modules": self.target_modules,
            "tensors": self.tensors,
            "files": self.files,
            "bytes": sum(self.files.values()),
        }


def export_peft_adapter(engine: Any, path: Path | str, model_id: str) -> PeftLoraExport:
    """Writes the live adapter of ``model_id`` as a peft adapter folder at ``path`` (absolute), atomically.

    An existing folder at ``path`` is replaced (moved aside, the new one renamed in, the old one
    deleted), so a reader sees the old adapter or the new one, never a mixture. Call it on the
    engine's worker thread (it reads the adapter while no step runs).

    Raises UserError for an unknown model id, and UnwritableFolderError when ``path`` is relative,
    its parent folder does not exist, it names a file, or the folder cannot be written.
    """
    destination = Path(path)
    if not destination.is_absolute():
        raise UnwritableFolderError(f"path must be an absolute folder path, got {str(path)!r}")
    if not destination.parent.is_dir():
        raise UnwritableFolderError(f"folder {destination.parent} does not exist")
    if destination.exists() and not destination.is_dir():
        raise UnwritableFolderError(f"{destination} is a file, not a folder")
    weights, rank = engine.adapter_weights(model_id=model_id)  # raises UserError for an unknown model id
    partial = destination.with_name(f".{destination.name}.partial-{os.getpid()}")
    retired = destination.with_name(f".{destination.name}.retired-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.rmtree(retired, ignore_errors=True)
    try:
        # save_pretrained writes a non-default adapter into <folder>/<adapter name>/; embeddings are never
        # adapted here ("all-linear" skips them), so no embedding layers are saved (and no hub lookup made)
        engine.peft.save_pretrained(str(partial), selected_adapters=[model_id], safe_serialization=True, save_embedding_layers=False)
        written = partial / model_id
        if not (written / CONFIG_FILE).is_file() or not (written / WEIGHTS_FILE).is_file():
            raise PeftExportError(f"peft wrote no {CONFIG_FILE} and {WEIGHTS_FILE} for {model_id}")
        _shorten_target_modules(engine.peft, model_id, written / CONFIG_FILE)
        if destination.exists():
            destination.rename(retired)
        written.rename(destination)
    except OSError as error:
        raise UnwritableFolderError(f"cannot write {destination}: {error.strerror or error}") from error
    finally:
        shutil.rmtree(partial, ignore_errors=True)
        shutil.rmtree(retired, ignore_errors=True)
    config = json.loads((destination / CONFIG_FILE).read_text())
    files = {name: (destination / name).stat().st_size for name in (CONFIG_FILE, WEIGHTS_FILE)}
    return PeftLoraExport(destination, int(rank), float(config["lora_alpha"]), sorted(config["target_modules"]), len(weights), files)


def _shorten_target_modules(peft: Any, model_id: str, config_path: Path) -> None:
    """Rewrites ``target_modules`` from the full module paths peft resolves ``"all-linear"`` to
    (``model.layers.0.self_attn.q_proj``) to their last names (``q_proj``), as adapters on the Hub
    carry them, when those names select exactly the adapted modules (peft matches a listed name
    against the end of a module path). SGLang maps each listed name to its fused module by that
    last name; some of its versions take the listed names as they are and would not know the paths."""
    adapted = {name for name, module in peft.named_modules() if hasattr(module, "lora_A") and model_id in getattr(module, "lora_A", {})}
    leaves = {name.rsplit(".", 1)[-1] for name in adapted}
    selected = {name for name, _module in peft.named_modules() if name.rsplit(".", 1)[-1] in leaves}
    if not adapted or selected != adapted:
        return
    config = json.loads(config_path.read_text())
    config["target_modules"] = sorted(leaves)
    config_path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
