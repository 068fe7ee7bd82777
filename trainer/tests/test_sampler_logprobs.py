"""Sampling from published weights: the sampler's logprobs are the learner's, whichever weights were published last."""

from pathlib import Path

import pytest

from envforge_trainer.engine import DatumInput, Engine
from envforge_trainer.model_loading import load_base_model

from adapter_weights import randomize_adapter

PROMPT = [1, 7, 9, 12, 30, 4, 17]


def trained_engine(tmp_path: Path) -> Engine:
    engine = Engine(load_base_model("tiny-random"), tmp_path)
    engine.create_model("m", 4, 1)
    return randomize_adapter(engine, seed=9, scale=0.3)


def learner_logprobs(engine: Engine, prompt: list[int], tokens: list[int]) -> list[float]:
    sequence = prompt + tokens
    datum = DatumInput(sequence[:-1], sequence[1:], None, None, None)
    values = engine.forward("m", [datum], "cross_entropy", None)["loss_fn_outputs"][0]["logprobs"]["data"]
    return values[len(prompt) - 1 :]


def sample(engine: Engine, path: str | None, seed: int = 3) -> dict:
    return engine.sample(path, PROMPT, {"max_tokens": 12, "temperature": 1.0, "seed": seed}, 1, True)


def test_sampled_and_prompt_logprobs_are_the_learners_logprobs_of_the_published_weights(tmp_path):
    engine = trained_engine(tmp_path)
    path = engine.save_weights_for_sampler("m", "v1")["path"]
    result = sample(engine, path)
    sequence = result["sequences"][0]
    assert len(sequence["tokens"]) > 0
    assert sequence["logprobs"] == pytest.approx(learner_logprobs(engine, PROMPT, sequence["tokens"]), abs=1e-5)
    assert result["prompt_logprobs"][0] is None
    assert result["prompt_logprobs"][1:] == pytest.approx(learner_logprobs(engine, PROMPT[:1], PROMPT[1:]), abs=1e-5)


def test_switching_published_weights_back_and_forth_gives_the_same_samples(tmp_path):
    engine = trained_engine(tmp_path)
    first = engine.save_weights_for_sampler("m", "v1")["path"]
    engine.forward_backward("m", [DatumInput(PROMPT[:-1], PROMPT[1:], None, None, None)], "cross_entropy", None)
    engine.optim_step("m", {"learning_rate": 0.05, "beta1": 0.9, "beta2": 0.95, "eps": 1e-8, "weight_decay": 0.0})
    second = engine.save_weights_for_sampler("m", "v2")["path"]
    before = sample(engine, first)
    other = sample(engine, second)
    after = sample(engine, first)
    assert after == before
    assert other["prompt_logprobs"] != pytest.approx(before["prompt_logprobs"], abs=1e-4)


def test_base_model_samples_ignore_the_adapter(tmp_path):
    engine = trained_engine(tmp_path)
    untouched = Engine(load_base_model("tiny-random"), tmp_path / "other")
    assert sample(engine, None) == sample(untouched, None)
