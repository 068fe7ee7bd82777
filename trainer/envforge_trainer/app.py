"""FastAPI app with the Tinker HTTP routes (``/api/v1/...``) over an :class:`Engine`.

Operations return ``{"request_id", "future_id"}`` at once; ``retrieve_future`` waits up to
``poll_wait_s`` seconds and then answers 408 ``{"type": "try_again"}`` so the client polls
again. Failed operations answer 400 (``category: user``) or 500 (``category: server``).
Two routes outside the Tinker API, under ``/envforge/v1/``, turn chat messages into
prompt tokens and tokens into text, so that envforge can sample without its own tokenizer.
Two more write the live adapter where a sampling engine loads it: ``export_gguf_lora`` (a
llama.cpp GGUF LoRA file) and ``export_peft_lora`` (a peft folder, for vLLM and SGLang).
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import AsyncIterator
from functools import lru_cache
from pathlib import Path
from contextlib import asynccontextmanager
from typing import Any, Literal
from uuid import uuid4

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from .engine import DatumInput, Engine, UserError
from .futures import FutureStore, failure_body
from .gguf_lora import GgufLoraExportError, export_engine_adapter
from .peft_export import PeftExportError, export_peft_adapter


class LoraConfigBody(BaseModel):
    rank: int = 32
    seed: int | None = None


class CreateModelBody(BaseModel):
    session_id: str | None = None
    base_model: str
    lora_config: LoraConfigBody = Field(default_factory=LoraConfigBody)


class TensorDataBody(BaseModel):
    data: list[float]
    dtype: str | None = None
    shape: list[int] | None = None


class ChunkBody(BaseModel):
    type: Literal["encoded_text"] = "encoded_text"
    tokens: list[int]


class ModelInputBody(BaseModel):
    chunks: list[ChunkBody]

    def tokens(self) -> list[int]:
        return [token for chunk in self.chunks for token in chunk.tokens]


class DatumBody(BaseModel):
    model_input: ModelInputBody
    loss_fn_inputs: dict[str, TensorDataBody]

    def to_input(self) -> DatumInput:
        inputs = self.loss_fn_inputs
        if "target_tokens" not in inputs:
            raise UserError("loss_fn_inputs.target_tokens is required")

        def floats(name: str) -> list[float] | None:
            return inputs[name].data if name in inputs else None

        targets = inputs["target_tokens"].data
        if any(value != int(value) for value in targets):
            raise UserError("target_tokens must be integers")
        return DatumInput(self.model_input.tokens(), [int(value) for value in targets], floats("logprobs"), floats("advantages"), floats("weights"))


class ForwardBackwardInputBody(BaseModel):
    data: list[DatumBody]
    loss_fn: str
    loss_fn_config: dict[str, float] | None = None


class ForwardBackwardBody(BaseModel):
    model_id: str
    forward_backward_input: ForwardBackwardInputBody
    seq_id: int | None = None


class ForwardBody(BaseModel):
    model_id: str
    forward_input: ForwardBackwardInputBody
    seq_id: int | None = None


class AdamParamsBody(BaseModel):
    learning_rate: float = Field(default=1e-4, ge=0.0)
    beta1: float = Field(default=0.9, ge=0.0, lt=1.0)
    beta2: float = Field(default=0.95, ge=0.0, lt=1.0)
    eps: float = Field(default=1e-12, gt=0.0)
    weight_decay: float = Field(default=0.0, ge=0.0)


class OptimStepBody(BaseModel):
    model_id: str
    adam_params: AdamParamsBody = Field(default_factory=AdamParamsBody)
    seq_id: int | None = None


class SaveWeightsBody(BaseModel):
    model_id: str
    path: str | None = None
    seq_id: int | None = None


class LoadWeightsBody(BaseModel):
    model_id: str
    path: str
    seq_id: int | None = None


class SamplingParamsBody(BaseModel):
    max_tokens: int = Field(gt=0, le=4096)
    seed: int | None = None
    stop: list[int] | list[str] | None = None
    temperature: float = Field(default=1.0, ge=0.0)
    top_k: int = -1
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)


class SampleBody(BaseModel):
    prompt: ModelInputBody
    sampling_params: SamplingParamsBody
    num_samples: int = 1
    base_model: str | None = None
    model_path: str | None = None
    prompt_logprobs: bool | None = None


class RetrieveFutureBody(BaseModel):
    request_id: str


class ChatMessageBody(BaseModel):
    role: Literal["system", "user", "assistant", "tool"]
    content: str


class ToolBody(BaseModel):
    """One tool of a tool environment: an OpenAI-style function definition (JSON Schema ``parameters``)."""

    name: str
    description: str
    parameters: dict[str, Any]


class TokenizeBody(BaseModel):
    messages: list[ChatMessageBody] | None = None
    tools: list[ToolBody] | None = None
    text: str | None = None


class DetokenizeBody(BaseModel):
    tokens: list[int]


class ExportGgufLoraBody(BaseModel):
    """Exactly one of ``model_id`` (the live adapter) and ``sampler_path`` (a published one)."""

    model_id: str | None = None
    sampler_path: str | None = None
    path: str


class ExportPeftLoraBody(BaseModel):
    """The live adapter of ``model_id``, written as a peft adapter folder at ``path`` (absolute)."""

    model_id: str
    path: str


def create_app(engine: Engine, api_key: str | None = None, poll_wait_s: float = 20.0) -> FastAPI:
    """The Tinker-compatible app; ``api_key`` (when set) is required as ``X-API-Key`` or a bearer token."""
    store = FutureStore()

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        store.shutdown()

    app = FastAPI(title="envforge reference trainer", lifespan=lifespan)
    known_models: set[str] = set()

    @app.middleware("http")
    async def require_key(request: Request, call_next):  # type: ignore[no-untyped-def]
        if api_key and request.url.path != "/api/v1/healthz":
            given = request.headers.get("x-api-key") or request.headers.get("authorization", "").removeprefix("Bearer ")
            if not secrets.compare_digest(given.encode(), api_key.encode()):
                return JSONResponse({"detail": "missing or wrong API key", "category": "user"}, status_code=401)
        return await call_next(request)

    def future(operation) -> dict[str, str]:  # type: ignore[no-untyped-def]
        request_id = store.submit(operation)
        return {"request_id": request_id, "future_id": request_id, "status": "pending"}

    def require_model(model_id: str) -> None:
        if model_id not in known_models:
            raise _NotFound(f"unknown model_id {model_id!r}")

    @app.exception_handler(UserError)
    async def user_error(_request: Request, error: UserError) -> JSONResponse:
        return JSONResponse({"detail": str(error), "error": str(error), "category": "user"}, status_code=400)

    @app.exception_handler(GgufLoraExportError)
    async def export_error(_request: Request, error: GgufLoraExportError) -> JSONResponse:
        return JSONResponse({"detail": str(error), "error": str(error), "category": "user", "code": error.code}, status_code=400)

    @app.exception_handler(PeftExportError)
    async def peft_export_error(_request: Request, error: PeftExportError) -> JSONResponse:
        return JSONResponse({"detail": str(error), "error": str(error), "category": "user", "code": error.code}, status_code=400)

    @app.exception_handler(_NotFound)
    async def not_found(_request: Request, error: _NotFound) -> JSONResponse:
        return JSONResponse({"detail": str(error), "error": str(error), "category": "user"}, status_code=404)

    @app.get("/api/v1/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/api/v1/get_server_capabilities")
    async def capabilities() -> dict[str, Any]:
        return engine.capabilities()

    @app.post("/api/v1/create_session")
    async def create_session() -> dict[str, str]:
        return {"type": "create_session", "session_id": f"session_{uuid4().hex[:8]}"}

    @app.post("/api/v1/session_heartbeat")
    async def session_heartbeat() -> dict[str, str]:
        return {"type": "session_heartbeat"}

    @app.post("/api/v1/create_model")
    async def create_model(body: CreateModelBody) -> dict[str, Any]:
        if body.base_model != engine.base.name:
            raise UserError(f"base_model {body.base_model!r} is not served here; this trainer serves {engine.base.name!r}")
        model_id = f"model_{uuid4().hex[:8]}"
        known_models.add(model_id)
        response = future(lambda: engine.create_model(model_id, body.lora_config.rank, body.lora_config.seed))
        return {**response, "model_id": model_id}

    @app.post("/api/v1/forward")
    async def forward(body: ForwardBody) -> dict[str, str]:
        require_model(body.model_id)
        data = [datum.to_input() for datum in body.forward_input.data]
        spec = body.forward_input
        return future(lambda: engine.forward(body.model_id, data, spec.loss_fn, spec.loss_fn_config))

    @app.post("/api/v1/forward_backward")
    async def forward_backward(body: ForwardBackwardBody) -> dict[str, str]:
        require_model(body.model_id)
        data = [datum.to_input() for datum in body.forward_backward_input.data]
        spec = body.forward_backward_input
        return future(lambda: engine.forward_backward(body.model_id, data, spec.loss_fn, spec.loss_fn_config))

    @app.post("/api/v1/optim_step")
    async def optim_step(body: OptimStepBody) -> dict[str, str]:
        require_model(body.model_id)
        return future(lambda: engine.optim_step(body.model_id, body.adam_params.model_dump()))

    @app.post("/api/v1/save_weights")
    async def save_weights(body: SaveWeightsBody) -> dict[str, str]:
        require_model(body.model_id)
        name = body.path or f"state-{uuid4().hex[:8]}"
        return future(lambda: engine.save_weights(body.model_id, name))

    @app.post("/api/v1/load_weights")
    async def load_weights(body: LoadWeightsBody) -> dict[str, str]:
        require_model(body.model_id)
        return future(lambda: engine.load_weights(body.model_id, body.path))

    @app.post("/api/v1/save_weights_for_sampler")
    async def save_weights_for_sampler(body: SaveWeightsBody) -> dict[str, str]:
        require_model(body.model_id)
        name = body.path or f"sampler-{uuid4().hex[:8]}"
        return future(lambda: engine.save_weights_for_sampler(body.model_id, name))

    @app.post("/api/v1/asample")
    async def asample(body: SampleBody) -> dict[str, str]:
        if (body.base_model is None) == (body.model_path is None):
            raise UserError("give exactly one of base_model and model_path")
        if body.base_model is not None and body.base_model != engine.base.name:
            raise UserError(f"base_model {body.base_model!r} is not served here; this trainer serves {engine.base.name!r}")
        prompt = body.prompt.tokens()
        params = body.sampling_params.model_dump()
        return future(lambda: engine.sample(body.model_path, prompt, params, body.num_samples, bool(body.prompt_logprobs)))

    @app.post("/api/v1/retrieve_future")
    async def retrieve_future(body: RetrieveFutureBody) -> JSONResponse:
        pending = store.get(body.request_id)
        if pending is None:
            raise _NotFound(f"unknown request_id {body.request_id!r}")
        try:
            result = await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(pending)), poll_wait_s)
        except asyncio.TimeoutError:
            return JSONResponse({"type": "try_again", "request_id": body.request_id}, status_code=408)
        except Exception as error:  # the operation failed: report it, typed by category
            status, failure = failure_body(error)
            return JSONResponse(failure, status_code=status)
        return JSONResponse(result)

    @app.post("/envforge/v1/tokenize")
    async def tokenize(body: TokenizeBody) -> dict[str, list[int]]:
        tokenizer = _tokenizer(engine)
        if (body.messages is None) == (body.text is None):
            raise UserError("give exactly one of messages and text")
        if body.text is not None:
            return {"tokens": tokenizer.encode(body.text, add_special_tokens=False)}
        return {"tokens": tokenizer.encode(chat_prompt(tokenizer, body.messages, body.tools), add_special_tokens=False)}

    @app.post("/envforge/v1/detokenize")
    async def detokenize(body: DetokenizeBody) -> dict[str, str]:
        return {"text": _tokenizer(engine).decode(body.tokens, skip_special_tokens=True)}

    @app.post("/envforge/v1/export_gguf_lora")
    async def export_gguf_lora(body: ExportGgufLoraBody) -> dict[str, Any]:
        """Writes the adapter as a llama.cpp GGUF LoRA file at ``path`` (absolute, ``.gguf``), atomically.

        Runs on the engine's worker thread, after any queued training operation, and answers
        when the file is in place: ``{path, architecture, rank, alpha, tensors, bytes}``.
        """
        if body.model_id is not None:
            require_model(body.model_id)
        pending = store.get(store.submit(lambda: export_engine_adapter(engine, body.path, body.model_id, body.sampler_path)))
        result = await asyncio.wrap_future(pending)
        return result.to_json()

    @app.post("/envforge/v1/export_peft_lora")
    async def export_peft_lora(body: ExportPeftLoraBody) -> dict[str, Any]:
        """Writes the live adapter as a peft adapter folder at ``path`` (``adapter_config.json`` and
        ``adapter_model.safetensors``, what vLLM's and SGLang's runtime LoRA loading read), atomically.

        Runs on the engine's worker thread, after any queued training operation, and answers when the
        folder is in place: ``{path, rank, alpha, target_modules, tensors, files, bytes}``.
        404 for an unknown model id; 400 with ``code: path_not_writable`` for a bad destination.
        """
        require_model(body.model_id)
        pending = store.get(store.submit(lambda: export_peft_adapter(engine, body.path, body.model_id)))
        result = await asyncio.wrap_future(pending)
        return result.to_json()

    return app


class _NotFound(Exception):
    pass


def _tokenizer(engine: Engine) -> Any:
    if engine.base.tokenizer is None:
        raise UserError(f"model {engine.base.name!r} has no tokenizer")
    return engine.base.tokenizer


def chat_prompt(tokenizer: Any, messages: list[ChatMessageBody], tools: list[ToolBody] | None = None) -> str:
    """The prompt text of ``messages`` ending with an open assistant turn, with ``tools`` (a tool
    environment's) passed to the template as transformers passes them.

    Uses the tokenizer's chat template when it has one; otherwise the Gemma turn format of
    ``gemma_turns.jinja`` (``<start_of_turn>user ... <end_of_turn>``, system text prepended to
    the first other turn, tools in Qwen2.5's wording), which is what the embedded Gemma 3 GGUF
    expects and does not carry as a template. envforge's local tokenizer renders the same file
    with the same variables, so both sides tokenise alike.

    Raises UserError when tools are given and the template does not render them.
    """
    plain = [{"role": message.role, "content": message.content} for message in messages]
    own = getattr(tokenizer, "chat_template", None)
    definitions = [{"type": "function", "function": tool.model_dump()} for tool in tools or []]
    if definitions and re.search(r"\btools\b", own or _gemma_turns_text()) is None:
        raise UserError("the chat template does not render tools, so the model would not see a tool environment's tools")
    if own:
        return tokenizer.apply_chat_template(plain, tools=definitions or None, tokenize=False, add_generation_prompt=True)
    return _gemma_turns().render(messages=plain, tools=definitions or None, bos_token=tokenizer.bos_token or "", add_generation_prompt=True)


@lru_cache(maxsize=1)
def _gemma_turns_text() -> str:
    return (Path(__file__).parent / "gemma_turns.jinja").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _gemma_turns() -> Any:
    """The fallback chat template, compiled by transformers' own chat-template compiler (its
    sandbox, ``trim_blocks``/``lstrip_blocks`` and its ``tojson``, which does not escape HTML)."""
    from transformers.utils.chat_template_utils import _compile_jinja_template

    return _compile_jinja_template(_gemma_turns_text())
