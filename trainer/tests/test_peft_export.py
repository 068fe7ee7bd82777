"""peft adapter export (what vLLM and SGLang load at runtime): files, values, reload by peft, atomic replace, the route and its errors."""

import json
from pathlib import Path

import pytest
import torch
from fastapi.testclient import TestClient
from peft import PeftModel
from safetensors.torch import load_file

from adapter_weights import randomize_adapter
from envforge_trainer.app import create_app
from envforge_trainer.engine import LORA_ALPHA, Engine
from envforge_trainer.model_loading import load_base_model
from envforge_trainer.peft_export import UnwritableFolderError, export_peft_adapter

TOKENS = torch.tensor([[1, 7, 9, 12, 30, 4, 17]])


def trained_engine(tmp_path: Path, seed: int = 3) -> Engine:
    engine = Engine(load_base_model("tiny-random"), tmp_path / "checkpoints")
    engine.create_model("m", 4, seed=1)
    return randomize_adapter(engine, seed=seed, scale=0.2)


def live_logits(engine: Engine) -> torch.Tensor:
    engine.peft.set_adapter("m")
    engine.peft.eval()
    with torch.no_grad():
        return engine.peft(input_ids=TOKENS).logits


def test_the_folder_holds_peft_files_that_peft_reloads_to_the_same_outputs(tmp_path):
    engine = trained_engine(tmp_path)
    result = export_peft_adapter(engine, tmp_path / "policy-1", "m")

    folder = tmp_path / "policy-1"
    assert result.path == folder and sorted(p.name for p in folder.iterdir()) == ["adapter_config.json", "adapter_model.safetensors"]
    config = json.loads((folder / "adapter_config.json").read_text())
    # what vLLM's PEFTHelper and SGLang's LoRAConfig read
    assert config["peft_type"] == "LORA" and config["r"] == 4 and config["lora_alpha"] == LORA_ALPHA
    assert sorted(config["target_modules"]) == ["down_proj", "gate_proj", "k_proj", "o_proj", "q_proj", "up_proj", "v_proj"]
    assert (result.rank, result.alpha, result.target_modules) == (4, LORA_ALPHA, sorted(config["target_modules"]))
    assert result.files == {name: (folder / name).stat().st_size for name in ("adapter_config.json", "adapter_model.safetensors")}

    # the tensors are the live adapter's, under peft's keys (no adapter name in them)
    saved = load_file(folder / "adapter_model.safetensors")
    live, _rank = engine.adapter_weights(model_id="m")
    assert set(saved) == set(live) and result.tensors == len(live) == 2 * 7 * 2
    assert "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight" in saved
    for key, value in live.items():
        assert torch.equal(saved[key], value)

    # a fresh base model with the folder loaded computes what the trainer's adapter computes
    fresh = PeftModel.from_pretrained(load_base_model("tiny-random").model, str(folder))
    fresh.eval()
    with torch.no_grad():
        reloaded = fresh(input_ids=TOKENS).logits
    assert torch.allclose(reloaded, live_logits(engine), atol=1e-6)
    assert not torch.allclose(reloaded, load_base_model("tiny-random").model(input_ids=TOKENS).logits.detach(), atol=1e-3)


def test_exporting_again_replaces_the_folder_whole_and_leaves_nothing_aside(tmp_path):
    engine = trained_engine(tmp_path)
    folder = tmp_path / "policy"
    export_peft_adapter(engine, folder, "m")
    first = load_file(folder / "adapter_model.safetensors")
    randomize_adapter(engine, seed=11, scale=0.2)
    (folder / "stale.txt").write_text("from an older export")
    export_peft_adapter(engine, folder, "m")
    second = load_file(folder / "adapter_model.safetensors")
    assert not (folder / "stale.txt").exists()
    assert any(not torch.equal(first[key], second[key]) for key in first)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_bad_destinations_are_typed(tmp_path):
    engine = trained_engine(tmp_path)
    with pytest.raises(UnwritableFolderError, match="absolute"):
        export_peft_adapter(engine, "relative/folder", "m")
    with pytest.raises(UnwritableFolderError, match="does not exist"):
        export_peft_adapter(engine, tmp_path / "missing" / "policy", "m")
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(UnwritableFolderError, match="is a file"):
        export_peft_adapter(engine, tmp_path / "a-file", "m")


def test_the_route_writes_the_folder_and_maps_errors_to_statuses(tmp_path):
    client = TestClient(create_app(Engine(load_base_model("tiny-random"), tmp_path / "checkpoints"), poll_wait_s=10))
    created = client.post("/api/v1/create_model", json={"base_model": "tiny-random", "lora_config": {"rank": 4, "seed": 1}})
    model_id = created.json()["model_id"]
    client.post("/api/v1/retrieve_future", json={"request_id": created.json()["request_id"]})

    destination = tmp_path / "adapters" / "envforge-policy-0"
    destination.parent.mkdir()
    response = client.post("/envforge/v1/export_peft_lora", json={"model_id": model_id, "path": str(destination)})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["path"] == str(destination) and body["rank"] == 4 and body["alpha"] == LORA_ALPHA
    assert body["bytes"] == sum(p.stat().st_size for p in destination.iterdir()) and body["tensors"] == 28
    assert json.loads((destination / "adapter_config.json").read_text())["r"] == 4

    unknown = client.post("/envforge/v1/export_peft_lora", json={"model_id": "model_nope", "path": str(destination)})
    assert unknown.status_code == 404
    relative = client.post("/envforge/v1/export_peft_lora", json={"model_id": model_id, "path": "adapters/x"})
    assert relative.status_code == 400 and relative.json()["code"] == "path_not_writable"
    missing = client.post("/envforge/v1/export_peft_lora", json={"model_id": model_id, "path": str(tmp_path / "nowhere" / "x")})
    assert missing.status_code == 400 and missing.json()["code"] == "path_not_writable" and "does not exist" in missing.json()["detail"]
    incomplete = client.post("/envforge/v1/export_peft_lora", json={"model_id": model_id})
    assert incomplete.status_code == 422
