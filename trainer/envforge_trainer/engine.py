"""The training engine: LoRA adapters on one base model, Tinker-style operations.

Every operation runs on the single worker thread of :mod:`futures`, so no two touch
the model at once. Bad requests raise :class:`UserError` (reported with category
``user``, never retried); anything else is a server fault.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from peft import LoraConfig, PeftModel, get_peft_model, get_peft_model_state_dict, set_peft_model_state_dict

from .losses import LOSS_REDUCTION, MAX_IMPORTANCE_CAP, MIN_IMPORTANCE_CAP, SUPPORTED_LOSS_FNS, token_loss
from .model_loading import BaseModel
from .target_logprobs import LogprobHead

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,255}$")
SAMPLER_ADAPTER = "sampler"
LORA_ALPHA = 32.0


class UserError(ValueError):
    """The request is malformed or names something that does not exist."""


@dataclass
class TrainingState:
    rank: int
    optimizer: torch.optim.Optimizer
    steps: int = 0


@dataclass(frozen=True)
class DatumInput:
    tokens: list[int]
    target_tokens: list[int]
    logprobs: list[float] | None
    advantages: list[float] | None
    weights: list[float] | None


class Engine:
    """LoRA training and sampling on one base model (CPU)."""

    def __init__(self, base: BaseModel, checkpoint_dir: Path) -> None:
        self.base = base
        self.checkpoint_dir = checkpoint_dir
        self.peft: PeftModel | None = None
        self.models: dict[str, TrainingState] = {}
        self.sampler_loaded: str | None = None
        self.vocab_size = int(base.model.get_input_embeddings().weight.shape[0])
        self.head = LogprobHead.for_model(base.model)

    # ---- models -------------------------------------------------------------------

    def create_model(self, model_id: str, rank: int, seed: int | None) -> dict[str, Any]:
        if rank < 1 or rank > 256:
            raise UserError(f"lora_config.rank must be in 1..256, got {rank}")
        self._add_adapter(model_id, rank, seed)
        parameters = [p for name, p in self.peft.named_parameters() if f".{model_id}." in name]
        self.models[model_id] = TrainingState(rank, torch.optim.AdamW(parameters, lr=1e-4, weight_decay=0.0))
        return {"model_id": model_id, "base_model": self.base.name, "lora_config": {"rank": rank}}

    def _add_adapter(self, name: str, rank: int, seed: int | None) -> None:
        if seed is not None:
            torch.manual_seed(seed)
        config = LoraConfig(r=rank, lora_alpha=LORA_ALPHA, target_modules="all-linear", lora_dropout=0.0)
        if self.peft is None:
            self.peft = get_peft_model(self.base.model, config, adapter_name=name)
        else:
            self.peft.add_adapter(name, config)

    def _state(self, model_id: str) -> TrainingState:
        state = self.models.get(model_id)
        if state is None:
            raise UserError(f"unknown model_id {model_id!r}")
        return state

    # ---- forward / backward ---------------------------------------------------------

    def forward(self, model_id: str, data: list[DatumInput], loss_fn: str, config: dict[str, float] | None) -> dict[str, Any]:
        return self._run(model_id, data, loss_fn, config, backward=False)

    def forward_backward(self, model_id: str, data: list[DatumInput], loss_fn: str, config: dict[str, float] | None) -> dict[str, Any]:
        return self._run(model_id, data, loss_fn, config, backward=True)

    def _run(self, model_id: str, data: list[DatumInput], loss_fn: str, config: dict[str, float] | None, backward: bool) -> dict[str, Any]:
        self._state(model_id)
        if loss_fn not in SUPPORTED_LOSS_FNS:
            raise UserError(f"unsupported loss_fn {loss_fn!r}; supported: {', '.join(SUPPORTED_LOSS_FNS)}")
        if not data:
            raise UserError("forward_backward_input.data is empty")
        cap = (config or {}).get("importance_cap")
        if cap is not None and not (isinstance(cap, (int, float)) and not isinstance(cap, bool) and math.isfinite(cap) and MIN_IMPORTANCE_CAP <= cap <= MAX_IMPORTANCE_CAP):
            raise UserError(f"loss_fn_config.importance_cap must be a number from {MIN_IMPORTANCE_CAP:g} to {MAX_IMPORTANCE_CAP:g} (the loss is computed in float32), got {cap!r}")
        for index, datum in enumerate(data):
            self._validate(index, datum, loss_fn)
        self.peft.set_adapter(model_id)
        self.peft.train(backward)
        outputs, total, clipped, weighted, drift = [], 0.0, 0, 0.0, 0.0
        for datum in data:
            size = len(datum.target_tokens)
            targets = torch.tensor(datum.target_tokens)
            weights = _tensor(datum.weights, size, fill=1.0)
            # only tokens with a nonzero weight enter the loss: the LM head runs with gradients there alone
            in_loss = weights != 0
            with torch.set_grad_enabled(backward):
                hidden = self.head.hidden(datum.tokens)
                selected = self.head.logprobs(hidden[in_loss], targets[in_loss])
                terms = token_loss(
                    loss_fn,
                    selected,
                    _tensor(datum.logprobs, size)[in_loss],
                    _tensor(datum.advantages, size)[in_loss],
                    weights[in_loss],
                    config,
                )
                if backward and terms.loss.requires_grad:
                    terms.loss.backward()
            total += float(terms.loss.detach())
            clipped += terms.clipped_tokens
            weighted += terms.weighted_tokens
            drift += terms.sampler_minus_learner
            # the Tinker API returns the learner's logprob of every target token; the rest need no gradient
            learner = torch.zeros(size)
            learner[in_loss] = selected.detach()
            with torch.no_grad():
                learner[~in_loss] = self.head.logprobs(hidden.detach()[~in_loss], targets[~in_loss])
            values = learner.tolist()
            outputs.append({"logprobs": {"data": values, "dtype": "float32", "shape": [len(values)]}})
        metrics = {
            "loss:sum": total,
            "clip_fraction:mean": clipped / weighted if weighted > 0 else 0.0,
            "kl_sampler_learner:mean": drift / weighted if weighted > 0 else 0.0,
            "tokens:sum": float(sum(len(datum.tokens) for datum in data)),
        }
        return {"loss_fn_output_type": "ArrayRecord", "loss_fn_outputs": outputs, "metrics": metrics}

    def _validate(self, index: int, datum: DatumInput, loss_fn: str) -> None:
        size = len(datum.tokens)
        if size == 0:
            raise UserError(f"datum {index}: model_input has no tokens")
        fields = {"target_tokens": datum.target_tokens, "logprobs": datum.logprobs, "advantages": datum.advantages, "weights": datum.weights}
        for name, values in fields.items():
            if values is not None and len(values) != size:
                raise UserError(f"datum {index}: {name} has {len(values)} entries, model_input has {size} tokens")
        if loss_fn != "cross_entropy" and (datum.logprobs is None or datum.advantages is None):
            raise UserError(f"datum {index}: loss_fn {loss_fn!r} needs logprobs and advantages")
        for token in (*datum.tokens, *datum.target_tokens):
            if not 0 <= token < self.vocab_size:
                raise UserError(f"datum {index}: token id {token} outside the vocabulary (size {self.vocab_size})")

    # ---- optimiser ----------------------------------------------------------------

    def optim_step(self, model_id: str, adam: dict[str, float]) -> dict[str, Any]:
        state = self._state(model_id)
        for group in state.optimizer.param_groups:
            group["lr"] = adam["learning_rate"]
            group["betas"] = (adam["beta1"], adam["beta2"])
            group["eps"] = adam["eps"]
            group["weight_decay"] = adam["weight_decay"]
        norm = torch.nn.utils.clip_grad_norm_(
            [p for group in state.optimizer.param_groups for p in group["params"]], float("inf")
        )
        state.optimizer.step()
        state.optimizer.zero_grad(set_to_none=True)
        state.steps += 1
        return {"metrics": {"grad_norm": float(norm), "step": float(state.steps)}}

    # ---- checkpoints --------------------------------------------------------------

    def save_weights(self, model_id: str, name: str) -> dict[str, Any]:
        state = self._state(model_id)
        path = self._checkpoint_path(model_id, "weights", name)
        payload = {
            "adapter": _adapter_state(self.peft, model_id),
            "optimizer": state.optimizer.state_dict(),
            "rank": state.rank,
            "steps": state.steps,
        }
        _atomic_save(payload, path)
        return {"path": f"tinker://{model_id}/weights/{name}", "type": "save_weights"}

    def load_weights(self, model_id: str, tinker_path: str) -> dict[str, Any]:
        state = self._state(model_id)
        payload = self._read_checkpoint(tinker_path, "weights")
        if payload["rank"] != state.rank:
            raise UserError(f"checkpoint has LoRA rank {payload['rank']}, model {model_id} has rank {state.rank}")
        set_peft_model_state_dict(self.peft, payload["adapter"], adapter_name=model_id)
        state.optimizer.load_state_dict(payload["optimizer"])
        state.steps = int(payload["steps"])
        return {"type": "load_weights"}

    def save_weights_for_sampler(self, model_id: str, name: str) -> dict[str, Any]:
        state = self._state(model_id)
        path = self._checkpoint_path(model_id, "sampler_weights", name)
        _atomic_save({"adapter": _adapter_state(self.peft, model_id), "rank": state.rank}, path)
        return {"path": f"tinker://{model_id}/sampler_weights/{name}", "type": "save_weights_for_sampler"}

    def adapter_weights(self, model_id: str | None = None, sampler_path: str | None = None) -> tuple[dict[str, torch.Tensor], int]:
        """The LoRA state dict and rank of a model's live adapter (``model_id``) or of a
        published sampler checkpoint (``sampler_path``, ``tinker://M/sampler_weights/N``); give exactly one.

        Raises UserError for an unknown model id or a missing or malformed checkpoint path.
        """
        if (model_id is None) == (sampler_path is None):
            raise UserError("give exactly one of model_id and sampler_path")
        if model_id is not None:
            rank = self._state(model_id).rank
            return _adapter_state(self.peft, model_id), rank
        payload = self._read_checkpoint(sampler_path, "sampler_weights")
        return payload["adapter"], int(payload["rank"])

    def _checkpoint_path(self, model_id: str, kind: str, name: str) -> Path:
        for part in (model_id, name):
            if not NAME_PATTERN.match(part):
                raise UserError(f"invalid checkpoint name {part!r}: use letters, digits, '_' and '-'")
        return self.checkpoint_dir / model_id / kind / f"{name}.pt"

    def _read_checkpoint(self, tinker_path: str, kind: str) -> dict[str, Any]:
        match = re.fullmatch(r"tinker://([^/]+)/([a-z_]+)/([^/]+)", tinker_path)
        if match is None or match.group(2) != kind:
            raise UserError(f"path must look like tinker://MODEL_ID/{kind}/NAME, got {tinker_path!r}")
        path = self._checkpoint_path(match.group(1), kind, match.group(3))
        if not path.exists():
            raise UserError(f"checkpoint not found: {tinker_path}")
        return torch.load(path, map_location="cpu", weights_only=True)

    # ---- sampling -----------------------------------------------------------------

    def sample(self, model_path: str | None, prompt: list[int], params: dict[str, Any], num_samples: int, prompt_logprobs: bool) -> dict[str, Any]:
        if not prompt:
            raise UserError("prompt has no tokens")
        for token in prompt:
            if not 0 <= token < self.vocab_size:
                raise UserError(f"prompt token id {token} outside the vocabulary (size {self.vocab_size})")
        if num_samples < 1 or num_samples > 64:
            raise UserError("num_samples must be in 1..64")
        model = self._sampling_model(model_path)
        model.eval()
        ids = torch.tensor([prompt])
        with torch.no_grad():
            if isinstance(model, PeftModel) and model_path is None:
                with model.disable_adapter():
                    sequences = [self._generate(model, ids, params, index) for index in range(num_samples)]
                    prompt_values = self._prompt_logprobs(prompt) if prompt_logprobs else None
            else:
                sequences = [self._generate(model, ids, params, index) for index in range(num_samples)]
                prompt_values = self._prompt_logprobs(prompt) if prompt_logprobs else None
        return {"type": "sample", "sequences": sequences, "prompt_logprobs": prompt_values}

    def _sampling_model(self, model_path: str | None) -> Any:
        if model_path is None:
            return self.peft if self.peft is not None else self.base.model
        if self.sampler_loaded != model_path:
            # read the checkpoint only when another adapter is asked for; repeated samples reuse the loaded one
            payload = self._read_checkpoint(model_path, "sampler_weights")
            if self.peft is not None and SAMPLER_ADAPTER in self.peft.peft_config:
                if self.peft.peft_config[SAMPLER_ADAPTER].r != payload["rank"]:
                    self.peft.delete_adapter(SAMPLER_ADAPTER)
            if self.peft is None or SAMPLER_ADAPTER not in self.peft.peft_config:
                self._add_adapter(SAMPLER_ADAPTER, int(payload["rank"]), 0)
            set_peft_model_state_dict(self.peft, payload["adapter"], adapter_name=SAMPLER_ADAPTER)
            self.sampler_loaded = model_path
        self.peft.set_adapter(SAMPLER_ADAPTER)
        return self.peft

    def _generate(self, model: Any, ids: torch.Tensor, params: dict[str, Any], index: int) -> dict[str, Any]:
        seed = params.get("seed")
        if seed is not None:
            torch.manual_seed(int(seed) + index)
        temperature = float(params.get("temperature", 1.0))
        stop = params.get("stop") or []
        stop_ids = [token for token in stop if isinstance(token, int)]
        stop_strings = [text for text in stop if isinstance(text, str)]
        eos = self._eos_ids() + stop_ids
        options: dict[str, Any] = {
            "max_new_tokens": int(params["max_tokens"]),
            "do_sample": temperature > 0,
            "return_dict_in_generate": True,
            "output_logits": True,
            "eos_token_id": eos or None,
            "pad_token_id": eos[0] if eos else 0,
        }
        if temperature > 0:
            top_k = int(params.get("top_k", -1))
            options.update(temperature=temperature, top_k=max(top_k, 0), top_p=float(params.get("top_p", 1.0)))
        if stop_strings and self.base.tokenizer is not None:
            options.update(stop_strings=stop_strings, tokenizer=self.base.tokenizer)
        output = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), **options)
        tokens = output.sequences[0, ids.shape[1]:].tolist()
        logprobs = []
        for position, token in enumerate(tokens):
            logits = output.logits[position][0].float()
            logprobs.append(float(torch.log_softmax(logits, -1)[token]))
        stopped = len(tokens) < int(params["max_tokens"]) or (tokens and tokens[-1] in eos)
        return {"tokens": tokens, "logprobs": logprobs, "stop_reason": "stop" if stopped else "length"}

    def _prompt_logprobs(self, prompt: list[int]) -> list[float | None]:
        values = self.head.logprobs(self.head.hidden(prompt)[:-1], torch.tensor(prompt[1:]))
        return [None, *values.tolist()]

    def _eos_ids(self) -> list[int]:
        configured = self.base.model.generation_config.eos_token_id
        if configured is None:
            configured = self.base.model.config.eos_token_id
        if configured is None:
            return []
        return list(configured) if isinstance(configured, (list, tuple)) else [int(configured)]

    # ---- capabilities ---------------------------------------------------------------

    def capabilities(self) -> dict[str, Any]:
        return {
            "supported_models": [{"model_name": self.base.name}],
            "supported_loss_fns": list(SUPPORTED_LOSS_FNS),
            "loss_reduction": LOSS_REDUCTION,
            # envforge extension: loss_fn_config.importance_cap corrects off-policy datums in the same pass (losses.py)
            "in_pass_importance_correction": True,
        }


def _tensor(values: list[float] | None, size: int, fill: float = 0.0) -> torch.Tensor:
    if values is None:
        return torch.full((size,), fill)
    return torch.tensor(values, dtype=torch.float32)


def _adapter_state(peft: PeftModel, adapter: str) -> dict[str, torch.Tensor]:
    return {key: value.detach().clone() for key, value in get_peft_model_state_dict(peft, adapter_name=adapter).items()}


def _atomic_save(payload: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    torch.save(payload, partial)
    partial.replace(path)
