"""Builds two small Hugging Face tokenizer folders and the ids transformers gives for them.

Test fixture for ``src/adapters/trainer/tinker/local-chat-tokenizer.test.ts``; run with the
reference trainer's Python (``trainer/.venv/bin/python``, which has transformers and tokenizers).

    python tokenizer-fixtures.py OUT_DIR < cases.json > truth.json

``cases.json`` is ``{"chats": [[{"role", "content"}, ...], ...], "texts": ["...", ...]}``.
Two folders are written under OUT_DIR, each a tokenizer trained here on a small corpus with the
components of a real model family, so that the TypeScript tokenizer is checked on both:

- ``metaspace``: Gemma's components (BPE with byte fallback, spaces replaced by ``▁``, a
  post-processor that adds ``<bos>``), Gemma 3's chat template saved as ``chat_template.jinja``;
- ``byte-level``: Llama 3's components (its split regex, byte-level BPE, a post-processor that
  adds ``<|begin_of_text|>``, ``clean_up_tokenization_spaces: true``), a Llama 3 style chat
  template kept under the ``chat_template`` key of ``tokenizer_config.json``;
- ``qwen-tools`` (only when ``cases.json`` has ``tool_chats``: ``[{"messages", "tools"}]``): the
  byte-level tokenizer with Qwen2.5's chat template, and ``apply_chat_template(messages, tools=...)``
  of each tool chat (tools as OpenAI function definitions, wrapped as transformers expects).

The answer gives, per folder, what ``transformers`` (loaded from the saved folder) returns:
``apply_chat_template(chat, add_generation_prompt=True)`` per chat, ``encode(text,
add_special_tokens=False)`` per text, and ``decode(ids, skip_special_tokens=True)`` of every one
of those id lists plus a few cut ones (multi-byte characters cut in half, an id past the vocabulary).
"""

from __future__ import annotations

import json
import os
import sys

from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from transformers import AutoTokenizer, PreTrainedTokenizerFast

CORPUS = [
    "Guess the secret number between 1 and 10. Reply with the number only.",
    "You are the Solver. Act in the environment; reply with one action.",
    "The observation says the door is locked. My guess is 7.",
    "Hello world, hello there. The agent moves left, then right, then up.",
    "Environments reset with a seed and step with an action; the return is the sum of rewards.",
    "Größe, café, naïve: accents appear in some observations.",
] * 20

# Gemma 3's chat template (google/gemma-3-*-it, tokenizer_config.json).
GEMMA_TEMPLATE = (
    "{{ bos_token }}\n"
    "{%- if messages[0]['role'] == 'system' -%}\n"
    "    {%- if messages[0]['content'] is string -%}\n"
    "        {%- set first_user_prefix = messages[0]['content'] + '\\n\\n' -%}\n"
    "    {%- else -%}\n"
    "        {%- set first_user_prefix = messages[0]['content'][0]['text'] + '\\n\\n' -%}\n"
    "    {%- endif -%}\n"
    "    {%- set loop_messages = messages[1:] -%}\n"
    "{%- else -%}\n"
    "    {%- set first_user_prefix = \"\" -%}\n"
    "    {%- set loop_messages = messages -%}\n"
    "{%- endif -%}\n"
    "{%- for message in loop_messages -%}\n"
    "    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}\n"
    "        {{ raise_exception(\"Conversation roles must alternate user/assistant/user/assistant/...\") }}\n"
    "    {%- endif -%}\n"
    "    {%- if (message['role'] == 'assistant') -%}\n"
    "        {%- set role = \"model\" -%}\n"
    "    {%- else -%}\n"
    "        {%- set role = message['role'] -%}\n"
    "    {%- endif -%}\n"
    "    {{ '<start_of_turn>' + role + '\\n' + (first_user_prefix if loop.first else \"\") }}\n"
    "    {%- if message['content'] is string -%}\n"
    "        {{ message['content'] | trim }}\n"
    "    {%- elif message['content'] is iterable -%}\n"
    "        {%- for item in message['content'] -%}\n"
    "            {%- if item['type'] == 'image' -%}\n"
    "                {{ '<start_of_image>' }}\n"
    "            {%- elif item['type'] == 'text' -%}\n"
    "                {{ item['text'] | trim }}\n"
    "            {%- endif -%}\n"
    "        {%- endfor -%}\n"
    "    {%- else -%}\n"
    "        {{ raise_exception(\"Invalid content type\") }}\n"
    "    {%- endif -%}\n"
    "    {{ '<end_of_turn>\\n' }}\n"
    "{%- endfor -%}\n"
    "{%- if add_generation_prompt -%}\n"
    "    {{'<start_of_turn>model\\n'}}\n"
    "{%- endif -%}\n"
)

# Llama 3's turn format (meta-llama/Meta-Llama-3-8B-Instruct), with a default system turn.
LLAMA_TEMPLATE = (
    "{{- bos_token }}\n"
    "{%- if messages[0]['role'] != 'system' %}\n"
    "{{- '<|start_header_id|>system<|end_header_id|>\\n\\nYou are a helpful assistant.<|eot_id|>' }}\n"
    "{%- endif %}\n"
    "{%- for message in messages %}\n"
    "{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' }}\n"
    "{%- endfor %}\n"
    "{%- if add_generation_prompt %}\n"
    "{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n"
    "{%- endif %}\n"
)

# Qwen2.5's chat template (Qwen/Qwen2.5-Coder-0.5B-Instruct, chat_template.jinja): tools in a system
# turn, assistant tool calls as <tool_call> blocks, tool results as <tool_response> blocks in a user turn.
QWEN_TEMPLATE = '{%- if tools %}\n    {{- \'<|im_start|>system\\n\' }}\n    {%- if messages[0][\'role\'] == \'system\' %}\n        {{- messages[0][\'content\'] }}\n    {%- else %}\n        {{- \'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.\' }}\n    {%- endif %}\n    {{- "\\n\\n# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}\n    {%- for tool in tools %}\n        {{- "\\n" }}\n        {{- tool | tojson }}\n    {%- endfor %}\n    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}\n{%- else %}\n    {%- if messages[0][\'role\'] == \'system\' %}\n        {{- \'<|im_start|>system\\n\' + messages[0][\'content\'] + \'<|im_end|>\\n\' }}\n    {%- else %}\n        {{- \'<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n\' }}\n    {%- endif %}\n{%- endif %}\n{%- for message in messages %}\n    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}\n        {{- \'<|im_start|>\' + message.role + \'\\n\' + message.content + \'<|im_end|>\' + \'\\n\' }}\n    {%- elif message.role == "assistant" %}\n        {{- \'<|im_start|>\' + message.role }}\n        {%- if message.content %}\n            {{- \'\\n\' + message.content }}\n        {%- endif %}\n        {%- for tool_call in message.tool_calls %}\n            {%- if tool_call.function is defined %}\n                {%- set tool_call = tool_call.function %}\n            {%- endif %}\n            {{- \'\\n<tool_call>\\n{"name": "\' }}\n            {{- tool_call.name }}\n            {{- \'", "arguments": \' }}\n            {{- tool_call.arguments | tojson }}\n            {{- \'}\\n</tool_call>\' }}\n        {%- endfor %}\n        {{- \'<|im_end|>\\n\' }}\n    {%- elif message.role == "tool" %}\n        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}\n            {{- \'<|im_start|>user\' }}\n        {%- endif %}\n        {{- \'\\n<tool_response>\\n\' }}\n        {{- message.content }}\n        {{- \'\\n</tool_response>\' }}\n        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}\n            {{- \'<|im_end|>\\n\' }}\n        {%- endif %}\n    {%- endif %}\n{%- endfor %}\n{%- if add_generation_prompt %}\n    {{- \'<|im_start|>assistant\\n\' }}\n{%- endif %}\n'

LLAMA3_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def metaspace_tokenizer() -> tuple[Tokenizer, dict[str, str]]:
    specials = ["<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>"]
    tokenizer = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True))
    tokenizer.normalizer = normalizers.Replace(" ", "▁")
    tokenizer.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()])
    tokenizer.train_from_iterator(CORPUS, trainers.BpeTrainer(vocab_size=300, special_tokens=specials, show_progress=False))
    # Byte-fallback pieces <0x00>..<0xFF> as ordinary vocabulary entries, as in Gemma's vocabulary.
    spec = json.loads(tokenizer.to_str())
    vocab = spec["model"]["vocab"]
    for byte in range(256):
        vocab.setdefault(f"<0x{byte:02X}>", len(vocab))
    tokenizer = Tokenizer.from_str(json.dumps(spec))
    tokenizer.post_processor = processors.TemplateProcessing(single="<bos> $A", special_tokens=[("<bos>", tokenizer.token_to_id("<bos>"))])
    return tokenizer, {"bos_token": "<bos>", "eos_token": "<eos>", "unk_token": "<unk>", "pad_token": "<pad>"}


def byte_level_tokenizer() -> tuple[Tokenizer, dict[str, str]]:
    specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(LLAMA3_SPLIT), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tokenizer.train_from_iterator(CORPUS, trainer)
    bos = "<|begin_of_text|>"
    tokenizer.post_processor = processors.TemplateProcessing(single=f"{bos} $A", special_tokens=[(bos, tokenizer.token_to_id(bos))])
    return tokenizer, {"bos_token": bos, "eos_token": "<|eot_id|>"}


def save(name: str, out: str, tokenizer: Tokenizer, tokens: dict[str, str], template: str, template_in_config: bool) -> str:
    folder = os.path.join(out, name)
    wrapped = PreTrainedTokenizerFast(tokenizer_object=tokenizer, **tokens)
    wrapped.chat_template = template
    wrapped.save_pretrained(folder)
    if template_in_config:
        jinja = os.path.join(folder, "chat_template.jinja")
        if os.path.exists(jinja):
            os.remove(jinja)
        config_path = os.path.join(folder, "tokenizer_config.json")
        with open(config_path, encoding="utf-8") as handle:
            config = json.load(handle)
        config["chat_template"] = template
        config["clean_up_tokenization_spaces"] = True
        with open(config_path, "w", encoding="utf-8") as handle:
            json.dump(config, handle, indent=2)
    return folder


def tool_truth(folder: str, tool_chats: list) -> list[list[int]]:
    """``apply_chat_template(messages, tools=[{"type": "function", "function": tool}, ...])`` per tool chat."""
    tokenizer = AutoTokenizer.from_pretrained(folder)
    return [
        list(
            tokenizer.apply_chat_template(
                case["messages"], tools=[{"type": "function", "function": tool} for tool in case["tools"]], add_generation_prompt=True, tokenize=True, return_dict=False
            )
        )
        for case in tool_chats
    ]


def truth(folder: str, chats: list, texts: list[str]) -> dict:
    tokenizer = AutoTokenizer.from_pretrained(folder)
    chat_ids = [list(tokenizer.apply_chat_template(chat, add_generation_prompt=True, tokenize=True, return_dict=False)) for chat in chats]
    text_ids = [tokenizer.encode(text, add_special_tokens=False) for text in texts]
    multibyte = tokenizer.encode("🙂", add_special_tokens=False)
    mixed = tokenizer.encode("日🙂", add_special_tokens=False)
    ok = tokenizer.encode(" ok", add_special_tokens=False)
    cut = [multibyte[:1], [*multibyte[:-1], *ok], mixed[:-1], [*ok, *mixed[:-1], *ok], [*text_ids[0], len(tokenizer) + 5]]
    decoded = [{"tokens": ids, "text": tokenizer.decode(ids, skip_special_tokens=True)} for ids in [*chat_ids, *text_ids, *cut]]
    return {"chats": chat_ids, "texts": text_ids, "decoded": decoded, "vocabulary": len(tokenizer)}


def main() -> None:
    out = sys.argv[1]
    cases = json.load(sys.stdin)
    folders = {
        "metaspace": save("metaspace", out, *metaspace_tokenizer(), GEMMA_TEMPLATE, template_in_config=False),
        "byte-level": save("byte-level", out, *byte_level_tokenizer(), LLAMA_TEMPLATE, template_in_config=True),
    }
    answer = {name: truth(folder, cases["chats"], cases["texts"]) for name, folder in folders.items()}
    if cases.get("tool_chats"):
        qwen = save("qwen-tools", out, *byte_level_tokenizer(), QWEN_TEMPLATE, template_in_config=False)
        answer["qwen-tools"] = {"tool_chats": tool_truth(qwen, cases["tool_chats"])}
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
