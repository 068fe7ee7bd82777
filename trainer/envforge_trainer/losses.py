"""Per-token policy-gradient losses in the Tinker API's definitions.

Every loss is reduced by summing over tokens and datums (``LOSS_REDUCTION``), as
the Tinker API does; a datum's ``weights`` (1 for the policy's own tokens, 0 for
prompt and environment tokens) multiply each token's term.

* ``importance_sampling``: ``-sum(w * r * A)`` with ``r = exp(logp_learner - logp_sampler)``.
* ``ppo`` (clipped surrogate, Schulman et al. 2017, eq. 7; asymmetric thresholds as in
  DAPO / SPADE): ``-sum(w * min(r * A, clip(r, low, high) * A))`` where ``low`` and
  ``high`` are ratio thresholds (``1 - eps_low`` and ``1 + eps_high``; defaults 0.8 / 1.28).
* ``cross_entropy``: ``-sum(w * logp_learner)``.

``importance_cap`` in the loss config (an envforge extension, announced by
``get_server_capabilities`` as ``in_pass_importance_correction``) corrects off-policy
datums within the same pass: ``logp_old`` is this pass's learner logprob without its
gradient, each token's advantage becomes ``A * min(exp(logp_old - logp_sampler), C)`` and
the ratio is taken against ``logp_old`` (decoupled PPO; truncated importance sampling,
Yao et al. 2025). Before any optimiser step ``logp_old`` equals the learner's logprob, so
the loss and its gradient equal those of a gradient-free ``forward`` that returns
``logp_old``, the advantages reweighted on the client and a second pass with
``logp_old`` as the datum's logprobs: one pass instead of two.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

LOSS_REDUCTION = "sum"
SUPPORTED_LOSS_FNS = ("cross_entropy", "importance_sampling", "ppo")
DEFAULT_CLIP_LOW_THRESHOLD = 0.8
DEFAULT_CLIP_HIGH_THRESHOLD = 1.28
# bounds of loss_fn_config.importance_cap: float32 holds them (a cap of 1e39 overflows, 1e-300 becomes 0)
MIN_IMPORTANCE_CAP = 1e-6
MAX_IMPORTANCE_CAP = 1e6


@dataclass(frozen=True)
class LossTerms:
    """The summed loss and the diagnostics of one datum."""

    loss: torch.Tensor
    clipped_tokens: int
    weighted_tokens: float
    sampler_minus_learner: float


def token_loss(
    loss_fn: str,
    learner_logprobs: torch.Tensor,
    sampler_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    weights: torch.Tensor,
    config: dict[str, float] | None = None,
) -> LossTerms:
    """Loss of one datum; all tensors are 1-D over target tokens."""
    config = config or {}
    if loss_fn == "cross_entropy":
        loss = -(weights * learner_logprobs).sum()
        return LossTerms(loss, 0, float(weights.sum()), 0.0)
    drift = float((weights * (sampler_logprobs - learner_logprobs.detach())).sum())
    if "importance_cap" in config:
        cap = float(config["importance_cap"])
        if not MIN_IMPORTANCE_CAP <= cap <= MAX_IMPORTANCE_CAP:
            raise ValueError(f"importance_cap must be from {MIN_IMPORTANCE_CAP:g} to {MAX_IMPORTANCE_CAP:g}, got {cap}")
        old = learner_logprobs.detach()
        advantages = advantages * torch.clamp(torch.exp(old - sampler_logprobs), max=cap)
        sampler_logprobs = old
    ratio = torch.exp(learner_logprobs - sampler_logprobs)
    if loss_fn == "importance_sampling":
        loss = -(weights * ratio * advantages).sum()
        return LossTerms(loss, 0, float(weights.sum()), drift)
    if loss_fn == "ppo":
        low = float(config.get("clip_low_threshold", DEFAULT_CLIP_LOW_THRESHOLD))
        high = float(config.get("clip_high_threshold", DEFAULT_CLIP_HIGH_THRESHOLD))
        unclipped = ratio * advantages
        clipped = torch.clamp(ratio, low, high) * advantages
        surrogate = torch.minimum(unclipped, clipped)
        loss = -(weights * surrogate).sum()
        active = (clipped < unclipped) & (weights > 0)
        return LossTerms(loss, int(active.sum()), float(weights.sum()), drift)
    raise ValueError(f"unsupported loss_fn {loss_fn!r}; supported: {', '.join(SUPPORTED_LOSS_FNS)}")
