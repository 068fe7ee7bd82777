"""The Tinker routes over a tiny random model: futures, training, sampling, checkpoints, errors."""

import math
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from envforge_trainer.app import create_app
from envforge_trainer.engine import Engine
from envforge_trainer.model_loading import load_base_model


@pytest.fixture()
def client(tmp_path: Path) -> TestClient:
    return TestClient(create_app(Engine(load_base_model("tiny-random"), tmp_path), poll_wait_s=10))


def resolve(client: TestClient, response) -> dict:
    assert response.status_code == 200, response.text
    result = client.post("/api/v1/retrieve_future", json={"request_id": response.json()["request_id"]})
    assert result.status_code == 200, result.text
    return result.json()


def create_model(client: TestClient) -> str:
    response = client.post("/api/v1/create_model", json={"base_model": "tiny-random", "lora_config": {"rank": 4, "seed": 1}})
    resolve(client, response)
    return response.json()["model_id"]


DATUM = {
    "model_input": {"chunks": [{"tokens": [1, 5, 6, 7]}]},
    "loss_fn_inputs": {
        "target_tokens": {"data": [5, 6, 7, 2]},
        "logprobs": {"data": [-4.0, -4.0, -4.0, -4.0]},
        "advantages": {"data": [0.0, 1.0, 1.0, 1.0]},
    },
}


def fb(client, model_id, loss_fn="importance_sampling", data=None):
    body = {"model_id": model_id, "forward_backward_input": {"data": data or [DATUM], "loss_fn": loss_fn}}
    return client.post("/api/v1/forward_backward", json=body)


def test_positive_advantages_raise_the_logprobs_of_their_tokens(client):
    model_id = create_model(client)
    before = resolve(client, fb(client, model_id))["loss_fn_outputs"][0]["logprobs"]["data"]
    resolve(client, client.post("/api/v1/optim_step", json={"model_id": model_id, "adam_params": {"learning_rate": 0.01}}))
    forward = client.post("/api/v1/forward", json={"model_id": model_id, "forward_input": {"data": [DATUM], "loss_fn": "importance_sampling"}})
    after = resolve(client, forward)["loss_fn_outputs"][0]["logprobs"]["data"]
    assert sum(after[1:]) > sum(before[1:])


def test_sampler_weights_change_what_is_sampled(client):
    model_id = create_model(client)
    sample = {"prompt": {"chunks": [{"tokens": [1, 5, 6]}]}, "sampling_params": {"max_tokens": 3, "temperature": 0.0}, "prompt_logprobs": True}
    base = resolve(client, client.post("/api/v1/asample", json={**sample, "base_model": "tiny-random"}))
    resolve(client, fb(client, model_id))
    resolve(client, client.post("/api/v1/optim_step", json={"model_id": model_id, "adam_params": {"learning_rate": 0.05}}))
    path = resolve(client, client.post("/api/v1/save_weights_for_sampler", json={"model_id": model_id, "path": "s1"}))["path"]
    trained = resolve(client, client.post("/api/v1/asample", json={**sample, "model_path": path}))
    sequence = trained["sequences"][0]
    assert 1 <= len(sequence["tokens"]) <= 3 and len(sequence["logprobs"]) == len(sequence["tokens"])
    assert trained["prompt_logprobs"][1:] != pytest.approx(base["prompt_logprobs"][1:], abs=1e-4)


def test_state_round_trips_through_save_and_load(client):
    model_id = create_model(client)
    resolve(client, fb(client, model_id))
    resolve(client, client.post("/api/v1/optim_step", json={"model_id": model_id, "adam_params": {"learning_rate": 0.05}}))
    path = resolve(client, client.post("/api/v1/save_weights", json={"model_id": model_id, "path": "state1"}))["path"]
    trained = resolve(client, client.post("/api/v1/forward", json={"model_id": model_id, "forward_input": {"data": [DATUM], "loss_fn": "importance_sampling"}}))
    fresh = create_model(client)
    resolve(client, client.post("/api/v1/load_weights", json={"model_id": fresh, "path": path}))
    loaded = resolve(client, client.post("/api/v1/forward", json={"model_id": fresh, "forward_input": {"data": [DATUM], "loss_fn": "importance_sampling"}}))
    assert loaded["loss_fn_outputs"][0]["logprobs"]["data"] == pytest.approx(trained["loss_fn_outputs"][0]["logprobs"]["data"], abs=1e-6)


def test_bad_inputs_come_back_typed(client):
    model_id = create_model(client)
    assert fb(client, "model_missing").status_code == 404
    bad = {**DATUM, "loss_fn_inputs": {**DATUM["loss_fn_inputs"], "target_tokens": {"data": [5, 6, 7, 999]}}}
    failed = client.post("/api/v1/retrieve_future", json={"request_id": fb(client, model_id, data=[bad]).json()["request_id"]})
    assert failed.status_code == 400 and failed.json()["category"] == "user"
    short = {**DATUM, "loss_fn_inputs": {**DATUM["loss_fn_inputs"], "advantages": {"data": [1.0]}}}
    failed = client.post("/api/v1/retrieve_future", json={"request_id": fb(client, model_id, data=[short]).json()["request_id"]})
    assert failed.status_code == 400 and "advantages" in failed.json()["error"]
    escape = client.post("/api/v1/load_weights", json={"model_id": model_id, "path": "tinker://../weights/x"})
    failed = client.post("/api/v1/retrieve_future", json={"request_id": escape.json()["request_id"]})
    assert failed.status_code == 400 and "invalid checkpoint name" in failed.json()["error"]
    assert client.post("/api/v1/retrieve_future", json={"request_id": "999"}).status_code == 404
    assert client.post("/api/v1/create_model", json={"base_model": "other"}).status_code == 400


def test_api_key_is_required_when_configured(tmp_path):
    keyed = TestClient(create_app(Engine(load_base_model("tiny-random"), tmp_path), api_key="secret"))
    assert keyed.get("/api/v1/get_server_capabilities").status_code == 401
    assert keyed.get("/api/v1/get_server_capabilities", headers={"X-API-Key": "secret"}).json()["loss_reduction"] == "sum"
    assert keyed.get("/api/v1/healthz").status_code == 200


def test_in_pass_importance_correction_makes_the_same_update_as_forward_then_forward_backward(client):
    assert client.get("/api/v1/get_server_capabilities").json()["in_pass_importance_correction"] is True
    # sampling logprobs far from the learner's (about -6 to -7 on the tiny model), so weights are truncated at C = 2 or below 1
    datum = {**DATUM, "loss_fn_inputs": {**DATUM["loss_fn_inputs"], "logprobs": {"data": [0.0, -9.0, -5.0, -7.0]}}}
    config = {"clip_low_threshold": 0.8, "clip_high_threshold": 1.28}
    adam = {"learning_rate": 0.05}

    def forward(model_id):
        body = {"model_id": model_id, "forward_input": {"data": [DATUM], "loss_fn": "ppo"}}
        return resolve(client, client.post("/api/v1/forward", json=body))["loss_fn_outputs"][0]["logprobs"]["data"]

    one = create_model(client)
    body = {"model_id": one, "forward_backward_input": {"data": [datum], "loss_fn": "ppo", "loss_fn_config": {**config, "importance_cap": 2.0}}}
    resolve(client, client.post("/api/v1/forward_backward", json=body))
    resolve(client, client.post("/api/v1/optim_step", json={"model_id": one, "adam_params": adam}))

    two = create_model(client)
    old = forward(two)
    sampled = datum["loss_fn_inputs"]["logprobs"]["data"]
    advantages = [a * min(math.exp(o - s), 2.0) for a, o, s in zip(DATUM["loss_fn_inputs"]["advantages"]["data"], old, sampled)]
    corrected = {**DATUM, "loss_fn_inputs": {**DATUM["loss_fn_inputs"], "logprobs": {"data": old}, "advantages": {"data": advantages}}}
    body = {"model_id": two, "forward_backward_input": {"data": [corrected], "loss_fn": "ppo", "loss_fn_config": config}}
    resolve(client, client.post("/api/v1/forward_backward", json=body))
    resolve(client, client.post("/api/v1/optim_step", json={"model_id": two, "adam_params": adam}))

    assert forward(one) == pytest.approx(forward(two), abs=1e-5)
    assert forward(one) != pytest.approx(old, abs=1e-4)  # the update moved the policy


def test_a_cap_outside_what_float32_holds_is_a_user_error(client):
    model_id = create_model(client)
    for cap in (-1.0, 0.0, 1e-300, 1e39):
        body = {"model_id": model_id, "forward_backward_input": {"data": [DATUM], "loss_fn": "ppo", "loss_fn_config": {"importance_cap": cap}}}
        failed = client.post("/api/v1/retrieve_future", json={"request_id": client.post("/api/v1/forward_backward", json=body).json()["request_id"]})
        assert failed.status_code == 400 and failed.json()["category"] == "user" and "importance_cap" in failed.json()["error"], cap
