"""The tiny random model's byte tokenizer: the chat routes work on it (for control-flow tests)."""

from pathlib import Path

from fastapi.testclient import TestClient

from envforge_trainer.app import create_app
from envforge_trainer.engine import Engine
from envforge_trainer.model_loading import TinyByteTokenizer, load_base_model


def test_tiny_tokenizer_maps_bytes_into_the_vocabulary_and_back_to_letters():
    tokenizer = TinyByteTokenizer()
    tokens = tokenizer.encode("Az\n")
    assert tokens == [3 + 65 % 61, 3 + 122 % 61, 3 + 10 % 61]
    assert all(3 <= token < 64 for token in tokenizer.encode("any text, ünïcode too"))
    assert tokenizer.decode([1, 3, 4, 28, 2]) == "abz"


def test_chat_routes_answer_on_the_tiny_model(tmp_path: Path):
    client = TestClient(create_app(Engine(load_base_model("tiny-random"), tmp_path), poll_wait_s=10))
    response = client.post("/envforge/v1/tokenize", json={"messages": [{"role": "user", "content": "hi"}]})
    assert response.status_code == 200, response.text
    tokens = response.json()["tokens"]
    assert tokens[: len("<start_of_turn>")] == TinyByteTokenizer().encode("<start_of_turn>")
    text = client.post("/envforge/v1/detokenize", json={"tokens": [3, 4]}).json()["text"]
    assert text == "ab"
