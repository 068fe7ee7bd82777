"""GGUF LoRA export: names, shapes, metadata and values read back with gguf.GGUFReader; the route and its errors."""

from pathlib import Path

import gguf
import numpy as np
import pytest
import torch
from fastapi.testclient import TestClient
from transformers import Gemma3ForCausalLM, Gemma3TextConfig, MistralConfig, MistralForCausalLM

from adapter_weights import randomize_adapter
from envforge_trainer.app import create_app
from envforge_trainer.engine import LORA_ALPHA, Engine
from envforge_trainer.gguf_lora import UnsupportedArchitectureError, UnwritablePathError, export_engine_adapter, write_gguf_lora
from envforge_trainer.model_loading import BaseModel, load_base_model

RANK = 4
GEMMA_MODULES = {
    "self_attn.q_proj": "attn_q",
    "self_attn.k_proj": "attn_k",
    "self_attn.v_proj": "attn_v",
    "self_attn.o_proj": "attn_output",
    "mlp.gate_proj": "ffn_gate",
    "mlp.up_proj": "ffn_up",
    "mlp.down_proj": "ffn_down",
}


def tiny_gemma3() -> BaseModel:
    torch.manual_seed(0)
    config = Gemma3TextConfig(
        vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=2,
        num_key_value_heads=1, head_dim=16, max_position_embeddings=128, sliding_window=16,
    )
    return BaseModel("tiny-gemma3", Gemma3ForCausalLM(config), None)


def engine_with_adapter(base: BaseModel, tmp_path: Path) -> Engine:
    engine = Engine(base, tmp_path / "checkpoints")
    engine.create_model("m", RANK, seed=1)
    return randomize_adapter(engine, seed=3, scale=0.1)


def read(path: Path) -> tuple[gguf.GGUFReader, dict[str, object]]:
    reader = gguf.GGUFReader(path)
    metadata = {field.name: field.contents() for field in reader.fields.values()}
    return reader, metadata


def test_a_gemma3_adapter_reads_back_with_llama_cpp_names_shapes_metadata_and_values(tmp_path):
    engine = engine_with_adapter(tiny_gemma3(), tmp_path)
    result = export_engine_adapter(engine, tmp_path / "adapter.gguf", model_id="m")
    reader, metadata = read(result.path)

    assert metadata["general.architecture"] == "gemma3"
    assert metadata["general.type"] == "adapter"
    assert metadata["adapter.type"] == "lora"
    # peft scales B·A by lora_alpha / r; llama.cpp by alpha / rank: the same alpha gives the same factor
    assert metadata["adapter.lora.alpha"] == pytest.approx(LORA_ALPHA)
    assert (result.rank, result.alpha, result.architecture) == (RANK, pytest.approx(LORA_ALPHA), "gemma3")

    expected = {f"blk.{layer}.{gguf_name}.weight.lora_{kind}" for layer in range(2) for gguf_name in GEMMA_MODULES.values() for kind in "ab"}
    tensors = {tensor.name: tensor for tensor in reader.tensors}
    assert set(tensors) == expected and result.tensors == len(expected)

    modules = dict(engine.peft.named_modules())
    for layer in range(2):
        for hf_name, gguf_name in GEMMA_MODULES.items():
            module = modules[f"base_model.model.model.layers.{layer}.{hf_name}"]
            a = module.lora_A["m"].weight.detach().numpy()
            b = module.lora_B["m"].weight.detach().numpy()
            base_out, base_in = module.base_layer.weight.shape
            lora_a = tensors[f"blk.{layer}.{gguf_name}.weight.lora_a"]
            lora_b = tensors[f"blk.{layer}.{gguf_name}.weight.lora_b"]
            # GGUF dimensions are ggml's ne order: a.ne = [in, rank], b.ne = [rank, out], what llama-adapter.cpp checks
            assert list(lora_a.shape) == [base_in, RANK] and list(lora_b.shape) == [RANK, base_out]
            assert lora_a.tensor_type == gguf.GGMLQuantizationType.F32
            assert np.array_equal(lora_a.data, a) and np.array_equal(lora_b.data, b)
            assert np.abs(b).sum() > 0


def test_llama_q_and_k_rows_are_permuted_like_the_gguf_converter_and_v_is_not(tmp_path):
    engine = engine_with_adapter(load_base_model("tiny-random"), tmp_path)
    result = export_engine_adapter(engine, tmp_path / "llama.gguf", model_id="m")
    reader, metadata = read(result.path)
    assert metadata["general.architecture"] == "llama"
    tensors = {tensor.name: tensor.data for tensor in reader.tensors}
    modules = dict(engine.peft.named_modules())
    config = engine.base.model.config
    head_dim = config.hidden_size // config.num_attention_heads
    for hf_name, gguf_name, heads in (("q_proj", "attn_q", config.num_attention_heads), ("k_proj", "attn_k", config.num_key_value_heads), ("v_proj", "attn_v", None)):
        b = modules[f"base_model.model.model.layers.0.self_attn.{hf_name}"].lora_B["m"].weight.detach().numpy()
        exported = tensors[f"blk.0.{gguf_name}.weight.lora_b"]
        if heads is None:
            assert np.array_equal(exported, b)
            continue
        assert b.shape[0] == heads * head_dim
        # GGML's interleaved rotary layout: row 2i of a head is HF row i, row 2i+1 is HF row i + head_dim/2
        half = head_dim // 2
        for head in range(heads):
            for i in range(half):
                assert np.array_equal(exported[head * head_dim + 2 * i], b[head * head_dim + i])
                assert np.array_equal(exported[head * head_dim + 2 * i + 1], b[head * head_dim + half + i])


def test_a_published_sampler_checkpoint_exports_the_same_tensors_as_the_live_adapter(tmp_path):
    engine = engine_with_adapter(tiny_gemma3(), tmp_path)
    path = engine.save_weights_for_sampler("m", "s1")["path"]
    live = read(export_engine_adapter(engine, tmp_path / "live.gguf", model_id="m").path)[0]
    published = read(export_engine_adapter(engine, tmp_path / "published.gguf", sampler_path=path).path)[0]
    for mine, theirs in zip(live.tensors, published.tensors, strict=True):
        assert mine.name == theirs.name and np.array_equal(mine.data, theirs.data)


def test_bad_destinations_and_architectures_are_typed(tmp_path):
    engine = engine_with_adapter(tiny_gemma3(), tmp_path)
    with pytest.raises(UnwritablePathError, match="absolute"):
        export_engine_adapter(engine, "relative.gguf", model_id="m")
    with pytest.raises(UnwritablePathError, match="does not exist"):
        export_engine_adapter(engine, tmp_path / "missing" / "a.gguf", model_id="m")
    config = MistralConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2)
    mistral = engine_with_adapter(BaseModel("tiny-mistral", MistralForCausalLM(config), None), tmp_path)
    with pytest.raises(UnsupportedArchitectureError, match="mistral"):
        export_engine_adapter(mistral, tmp_path / "m.gguf", model_id="m")
    with pytest.raises(UnsupportedArchitectureError, match="embedding"):
        write_gguf_lora({"base_model.model.model.embed_tokens.lora_embedding_A": torch.zeros(2, 2)}, engine.base.model.config, 1.0, tmp_path / "e.gguf")
    assert not list(tmp_path.glob("*.partial-*")) and not list(tmp_path.glob(".*.partial-*"))


def test_the_route_writes_the_file_and_maps_errors_to_codes(tmp_path):
    client = TestClient(create_app(Engine(load_base_model("tiny-random"), tmp_path / "checkpoints"), poll_wait_s=10))
    created = client.post("/api/v1/create_model", json={"base_model": "tiny-random", "lora_config": {"rank": 4, "seed": 1}})
    model_id = created.json()["model_id"]
    client.post("/api/v1/retrieve_future", json={"request_id": created.json()["request_id"]})

    destination = tmp_path / "out.gguf"
    response = client.post("/envforge/v1/export_gguf_lora", json={"model_id": model_id, "path": str(destination)})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["path"] == str(destination) and body["architecture"] == "llama" and body["rank"] == 4 and body["bytes"] == destination.stat().st_size
    assert read(destination)[1]["adapter.type"] == "lora"

    unknown = client.post("/envforge/v1/export_gguf_lora", json={"model_id": "model_nope", "path": str(destination)})
    assert unknown.status_code == 404
    relative = client.post("/envforge/v1/export_gguf_lora", json={"model_id": model_id, "path": "x.gguf"})
    assert relative.status_code == 400 and relative.json()["code"] == "path_not_writable"
    missing = client.post("/envforge/v1/export_gguf_lora", json={"sampler_path": f"tinker://{model_id}/sampler_weights/none", "path": str(destination)})
    assert missing.status_code == 400 and "checkpoint not found" in missing.json()["detail"]
    both = client.post("/envforge/v1/export_gguf_lora", json={"path": str(destination)})
    assert both.status_code == 400 and "exactly one" in both.json()["detail"]
