"""The Tinker routes over a tiny random model: futures, training, sampling, checkpoints, errors."""

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
