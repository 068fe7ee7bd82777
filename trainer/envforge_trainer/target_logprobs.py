"""Logprobs of target tokens with the LM head applied only at the positions asked for.

A causal LM's forward pass applies its LM head (vocabulary × hidden) to every position. On
Gemma 3 270M the head is 262,144 × 640, about 170M of the model's 270M parameters, and the
full float32 logits of an 800-token datum take 840 MB; a training datum needs gradients only
at its action tokens (weight ≠ 0). :class:`LogprobHead` therefore runs the decoder body once
and then applies the head, and the model's own final-logit soft-capping
(``final_logit_softcapping``, Gemma 2 / Gemma 3), only at the rows it is given, in chunks of
:data:`CHUNK_POSITIONS` rows so that at most one chunk's logits exist at a time outside a
gradient graph.

:meth:`LogprobHead.for_model` checks once, on a short probe sequence, that body + head
reproduce the model's full forward logits (to :data:`PROBE_TOLERANCE`); for an architecture
where they do not (a head with extra scaling, say), it falls back to the full forward, so the
split is an optimisation and never a change of results.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as functional

CHUNK_POSITIONS = 256
PROBE_TOLERANCE = 1e-4


@dataclass(frozen=True)
class LogprobHead:
    """Computes hidden states and target-token logprobs of one causal LM (a Hugging Face model).

    ``split`` is False when the body/head split did not reproduce the full forward at load
    time; :meth:`hidden` and :meth:`logprobs` then run the whole model and slice its logits.
    """

    model: Any
    split: bool

    @staticmethod
    def for_model(model: Any) -> LogprobHead:
        """Checks the body/head split of ``model`` (a ``PreTrainedModel``, possibly wrapped by
        peft) on an 8-token probe and returns the head that uses it when it is exact."""
        base = model.get_base_model() if hasattr(model, "get_base_model") else model
        if base.get_output_embeddings() is None or not hasattr(base, "get_decoder"):
            return LogprobHead(model, False)
        split = LogprobHead(model, True)
        vocabulary = int(base.get_output_embeddings().weight.shape[0])
        probe = torch.arange(8) % vocabulary
        was_training = base.training
        base.eval()
        with torch.no_grad():
            full = base(input_ids=probe[None]).logits[0].float()
            parted = split._logits(split._body(probe))
        base.train(was_training)
        exact = full.shape == parted.shape and bool(torch.allclose(full, parted, atol=PROBE_TOLERANCE, rtol=0))
        return split if exact else LogprobHead(model, False)

    def hidden(self, tokens: list[int]) -> torch.Tensor:
        """Final hidden states (after the last norm), shape (len(tokens), hidden); with the split
        off, the full logits (len(tokens), vocabulary) instead. Gradients follow the caller's
        grad mode."""
        ids = torch.tensor(tokens)
        if self.split:
            return self._body(ids)
        return self._causal_lm()(input_ids=ids[None]).logits[0]

    def logprobs(self, hidden: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Natural-log probabilities of ``targets`` (shape (n,), token ids) at the rows ``hidden``
        (shape (n, ·), rows of :meth:`hidden`'s result), as float32 of shape (n,)."""
        pieces = []
        for start in range(0, int(targets.shape[0]), CHUNK_POSITIONS):
            rows = hidden[start : start + CHUNK_POSITIONS]
            logits = self._logits(rows) if self.split else rows
            pieces.append(-functional.cross_entropy(logits.float(), targets[start : start + CHUNK_POSITIONS], reduction="none"))
        return torch.cat(pieces) if pieces else torch.zeros(0)

    def _causal_lm(self) -> Any:
        return self.model.get_base_model() if hasattr(self.model, "get_base_model") else self.model

    def _body(self, ids: torch.Tensor) -> torch.Tensor:
        return self._causal_lm().get_decoder()(input_ids=ids[None], use_cache=False)[0][0]

    def _logits(self, rows: torch.Tensor) -> torch.Tensor:
        """The model's head on ``rows``: ``lm_head`` then, where configured, the soft-capping
        ``c * tanh(logits / c)`` of Gemma 2 / Gemma 3 (as their ``ForCausalLM.forward`` does)."""
        causal_lm = self._causal_lm()
        logits = causal_lm.get_output_embeddings()(rows)
        cap = getattr(causal_lm.config, "final_logit_softcapping", None)
        if cap is not None:
            logits = torch.tanh(logits / cap) * cap
        return logits
