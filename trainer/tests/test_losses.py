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


def _two_pass(loss_fn, learner, sampler, advantages, weights, cap, config):
    """The two-pass correction the client does without the extension: a gradient-free forward gives
    logp_old, the advantages are reweighted by min(exp(logp_old - logp_sampler), C), and the update
    pass takes logp_old as the datum's logprobs."""
    old = learner.detach().clone()
    reweighted = advantages * torch.clamp(torch.exp(old - sampler), max=cap)
    return token_loss(loss_fn, learner, old, reweighted, weights, config)


@pytest.mark.parametrize("loss_fn", ["ppo", "importance_sampling"])
def test_in_pass_importance_correction_equals_the_two_pass_correction(loss_fn):
    config = {"clip_low_threshold": 0.8, "clip_high_threshold": 1.28}
    # ratios old/sampler of 4 (truncated at C = 2), 1, 0.25, and a masked-out token
    values = [math.log(0.8), math.log(0.3), math.log(0.05), math.log(0.6)]
    sampler = torch.tensor([math.log(0.2), math.log(0.3), math.log(0.2), math.log(0.1)])
    advantages = torch.tensor([1.5, -0.5, 2.0, 3.0])
    weights = torch.tensor([1.0, 1.0, 1.0, 0.0])
    one = torch.tensor(values, requires_grad=True)
    two = torch.tensor(values, requires_grad=True)
    in_pass = token_loss(loss_fn, one, sampler, advantages, weights, {**config, "importance_cap": 2.0})
    reference = _two_pass(loss_fn, two, sampler, advantages, weights, 2.0, config)
    in_pass.loss.backward()
    reference.loss.backward()
    assert float(in_pass.loss) == pytest.approx(float(reference.loss), abs=1e-6)
    assert one.grad.tolist() == pytest.approx(two.grad.tolist(), abs=1e-6)
    # the truncated weights are in the gradient: -w*A per token, w = (2, 1, 0.25), masked token 0
    assert one.grad.tolist() == pytest.approx([-3.0, 0.5, -0.5, 0.0], abs=1e-5)
    # without the cap the same datum gives a different gradient (the ratio to the sampler, untruncated)
    plain = torch.tensor(values, requires_grad=True)
    token_loss("importance_sampling", plain, sampler, advantages, weights).loss.backward()
    assert plain.grad.tolist() != pytest.approx(one.grad.tolist(), abs=1e-3)


def test_in_pass_importance_correction_refuses_a_cap_float32_cannot_hold():
    for cap in (0.0, -1.0, 1e-300, 1e39):
        with pytest.raises(ValueError, match="importance_cap must be from"):
            token_loss("ppo", torch.tensor([0.0]), torch.tensor([0.0]), torch.tensor([1.0]), torch.tensor([1.0]), {"importance_cap": cap})
