"""Hand-computed values of the Tinker-style losses (sum reduction)."""

import math

import pytest
import torch

from envforge_trainer.losses import token_loss


def test_importance_sampling_is_minus_the_weighted_ratio_times_advantage():
    learner = torch.tensor([math.log(0.5), math.log(0.25)])
    sampler = torch.tensor([math.log(0.25), math.log(0.25)])
    terms = token_loss("importance_sampling", learner, sampler, torch.tensor([1.0, -2.0]), torch.tensor([1.0, 1.0]))
    # ratios 2 and 1: -(2*1 + 1*(-2)) = 0
    assert float(terms.loss) == pytest.approx(0.0, abs=1e-6)


def test_ppo_honours_the_upper_clip_threshold_for_positive_advantages():
    learner = torch.tensor([math.log(0.9), math.log(0.5)], requires_grad=True)
    sampler = torch.tensor([math.log(0.3), math.log(0.5)])
    terms = token_loss("ppo", learner, sampler, torch.tensor([1.0, 1.0]), torch.tensor([1.0, 1.0]),
                       {"clip_low_threshold": 0.8, "clip_high_threshold": 1.28})
    # ratio 3 is clipped to 1.28; ratio 1 is not: loss = -(1.28 + 1)
    assert float(terms.loss) == pytest.approx(-2.28, abs=1e-5)
    assert terms.clipped_tokens == 1
    terms.loss.backward()
    # the clipped token gets no gradient; the unclipped one gets -ratio*A = -1
    assert learner.grad.tolist() == pytest.approx([0.0, -1.0], abs=1e-6)


def test_ppo_honours_the_lower_clip_threshold_for_negative_advantages():
    learner = torch.tensor([math.log(0.1)])
    sampler = torch.tensor([math.log(0.5)])
    terms = token_loss("ppo", learner, sampler, torch.tensor([-1.0]), torch.tensor([1.0]),
                       {"clip_low_threshold": 0.8, "clip_high_threshold": 1.28})
    # ratio 0.2 with A<0: min(-0.2, -0.8) = -0.8, loss = 0.8
    assert float(terms.loss) == pytest.approx(0.8, abs=1e-6)


def test_weights_mask_tokens_out():
    learner = torch.tensor([math.log(0.5), math.log(0.5)])
    sampler = torch.tensor([math.log(0.5), math.log(0.5)])
    terms = token_loss("importance_sampling", learner, sampler, torch.tensor([3.0, 5.0]), torch.tensor([0.0, 1.0]))
    assert float(terms.loss) == pytest.approx(-5.0)


def test_unknown_loss_is_rejected():
    with pytest.raises(ValueError, match="unsupported loss_fn"):
        token_loss("dro", torch.zeros(1), torch.zeros(1), torch.zeros(1), torch.ones(1))
