"""The LM head applied only at the loss's positions gives the full forward's logprobs and gradients."""

from pathlib import Path

import pytest
import torch
from transformers import Gemma3ForCausalLM, Gemma3TextConfig

from envforge_trainer.engine import DatumInput, Engine
from envforge_trainer.losses import token_loss
from envforge_trainer.model_loading import BaseModel, load_base_model
from envforge_trainer.target_logprobs import CHUNK_POSITIONS, LogprobHead

from adapter_weights import randomize_adapter

PPO = {"clip_low_threshold": 0.8, "clip_high_threshold": 1.28}


def tiny_gemma3() -> BaseModel:
    """Two Gemma 3 layers (one sliding-window, one full) with the final-logit soft-capping on."""
    torch.manual_seed(3)
    config = Gemma3TextConfig(
        vocab_size=64,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=1,
        head_dim=8,
        sliding_window=4,
        layer_types=["sliding_attention", "full_attention"],
        final_logit_softcapping=3.0,
        max_position_embeddings=512,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=0,
    )
    return BaseModel("tiny-gemma3", Gemma3ForCausalLM(config), None)


MODELS = {"llama": lambda: load_base_model("tiny-random"), "gemma3": tiny_gemma3}


def engine_with_trained_adapter(make_model, tmp_path: Path) -> Engine:
    engine = Engine(make_model(), tmp_path)
    engine.create_model("m", 4, 1)
    return randomize_adapter(engine, seed=5, scale=0.2)


def datum(size: int, seed: int) -> DatumInput:
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(3, 64, (size + 1,), generator=generator).tolist()
    # prompt and environment tokens (weight 0) around two action spans (weight 1)
    weights = [1.0 if size // 4 <= index < size // 2 or index >= size - size // 5 else 0.0 for index in range(size)]
    advantages = [(1.5 if index % 3 else -0.7) * weight for index, weight in enumerate(weights)]
    sampler = (torch.rand(size, generator=generator) * -4.0 - 2.0).tolist()
    return DatumInput(tokens[:-1], tokens[1:], sampler, advantages, weights)


def full_forward_logprobs(engine: Engine, item: DatumInput) -> torch.Tensor:
    logits = engine.peft(input_ids=torch.tensor([item.tokens])).logits[0].float()
    return torch.log_softmax(logits, -1).gather(1, torch.tensor(item.target_tokens)[:, None])[:, 0]


def adapter_gradients(engine: Engine) -> dict[str, torch.Tensor]:
    grads = {name: parameter.grad.clone() for name, parameter in engine.peft.named_parameters() if parameter.grad is not None}
    engine.peft.zero_grad(set_to_none=True)
    return grads


@pytest.mark.parametrize("architecture", sorted(MODELS))
def test_the_split_head_is_used_and_reproduces_the_full_forward(architecture, tmp_path):
    engine = Engine(MODELS[architecture](), tmp_path)
    assert engine.head.split


@pytest.mark.parametrize("architecture", sorted(MODELS))
def test_forward_returns_the_full_forward_logprobs_of_every_target_token(architecture, tmp_path):
    engine = engine_with_trained_adapter(MODELS[architecture], tmp_path)
    # longer than one chunk, so chunk boundaries are crossed
    items = [datum(CHUNK_POSITIONS + 40, 11), datum(30, 12)]
    result = engine.forward("m", items, "ppo", PPO)
    engine.peft.eval()
    with torch.no_grad():
        for item, output in zip(items, result["loss_fn_outputs"]):
            expected = full_forward_logprobs(engine, item)
            assert output["logprobs"]["shape"] == [len(item.tokens)]
            assert torch.allclose(torch.tensor(output["logprobs"]["data"]), expected, atol=1e-5, rtol=0)


@pytest.mark.parametrize("architecture", sorted(MODELS))
@pytest.mark.parametrize("loss_fn", ["ppo", "importance_sampling", "cross_entropy"])
def test_forward_backward_gives_the_full_forward_loss_logprobs_and_gradients(architecture, loss_fn, tmp_path):
    engine = engine_with_trained_adapter(MODELS[architecture], tmp_path)
    items = [datum(300, 21), datum(50, 22)]
    result = engine.forward_backward("m", items, loss_fn, PPO)
    split_grads = adapter_gradients(engine)

    engine.peft.train()
    expected_loss = 0.0
    for item, output in zip(items, result["loss_fn_outputs"]):
        learner = full_forward_logprobs(engine, item)
        terms = token_loss(loss_fn, learner, torch.tensor(item.logprobs), torch.tensor(item.advantages), torch.tensor(item.weights), PPO)
        terms.loss.backward()
        expected_loss += float(terms.loss)
        assert torch.allclose(torch.tensor(output["logprobs"]["data"]), learner.detach(), atol=1e-5, rtol=0)
    full_grads = adapter_gradients(engine)

    assert result["metrics"]["loss:sum"] == pytest.approx(expected_loss, rel=1e-5, abs=1e-5)
    assert split_grads.keys() == full_grads.keys()
    assert any(float(grad.abs().max()) > 0 for grad in full_grads.values())
    for name, grad in full_grads.items():
        assert torch.allclose(split_grads[name], grad, atol=1e-5, rtol=1e-4), name


def test_a_datum_without_weighted_tokens_trains_nothing_and_still_returns_logprobs(tmp_path):
    engine = engine_with_trained_adapter(MODELS["llama"], tmp_path)
    item = datum(20, 31)
    silent = DatumInput(item.tokens, item.target_tokens, item.logprobs, item.advantages, [0.0] * 20)
    result = engine.forward_backward("m", [silent], "ppo", PPO)
    assert result["metrics"]["loss:sum"] == 0.0
    assert adapter_gradients(engine) == {}
    engine.peft.eval()
    with torch.no_grad():
        expected = full_forward_logprobs(engine, item)
    assert torch.allclose(torch.tensor(result["loss_fn_outputs"][0]["logprobs"]["data"]), expected, atol=1e-5, rtol=0)


class ScaledHeadLlama(torch.nn.Module):
    """A causal LM whose forward scales the head's logits: the body/head split cannot know that."""

    def __init__(self) -> None:
        super().__init__()
        self.inner = load_base_model("tiny-random").model

    def get_output_embeddings(self):
        return self.inner.get_output_embeddings()

    def get_decoder(self):
        return self.inner.get_decoder()

    @property
    def config(self):
        return self.inner.config

    def forward(self, input_ids):
        output = self.inner(input_ids=input_ids)
        output.logits = output.logits * 2.0
        return output


def test_a_head_the_split_does_not_reproduce_falls_back_to_the_full_forward():
    model = ScaledHeadLlama()
    head = LogprobHead.for_model(model)
    assert not head.split
    tokens = [5, 9, 14, 3, 22, 7]
    targets = torch.tensor([9, 14, 3, 22, 7, 2])
    with torch.no_grad():
        values = head.logprobs(head.hidden(tokens), targets)
        expected = torch.log_softmax(model(input_ids=torch.tensor([tokens])).logits[0], -1).gather(1, targets[:, None])[:, 0]
    assert torch.allclose(values, expected, atol=1e-6, rtol=0)
