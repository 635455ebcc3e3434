"""Chat formats: a conversation (system, user and assistant turns) as the exact text and token ids a
model reads, special tokens included, for the built-in tokenizers of models that publish one.

Each ``ChatFormat`` turns the messages into ``Part``s, plain text or one special token, in the units
the model's own implementation encodes: where that implementation renders a Jinja template to one
string and encodes it (Hugging Face's ``apply_chat_template``: Qwen, DeepSeek V3), adjacent text is one
part; where it encodes piece by piece (Meta's ``llama-models``, ``mistral-common``, OpenAI's
``openai-harmony``), each piece is a part. A special token is a part of its own, so the text of a
message is always encoded as text: typing ``<|im_end|>`` into a turn gives the tokens of those
characters, never the special token (``apply_chat_template`` would give the special token there).

    >>> fmt = FORMATS["qwen3"]
    >>> fmt.render([Message("user", "Hi")])
    '<|im_start|>user\\nHi<|im_end|>\\n<|im_start|>assistant\\n'

Every format renders the prompt for the assistant's next reply, as its source does when asked for
one (``add_generation_prompt=True``, ``encode_dialog_prompt``, ``render_conversation_for_completion``).
Sources, cited on each format and in docs/app/tokenize.md; ``tests/pretrained/test_chat_formats.py``
holds every format against the ids its source gives for the same conversations. This module renders
and encodes; it loads no tokenizer and reads no template file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bpe_core.bpe.tokens import TokenInfo
from bpe_core.errors import BpeError
from bpe_core.tokenizer import Tokenizer

ROLES = ("system", "user", "assistant")


@dataclass(frozen=True)
class Message:
    """One turn: ``role`` is system, user or assistant."""

    role: str
    content: str


@dataclass(frozen=True)
class Part:
    """A piece of the rendered conversation: one special token, or text encoded on its own."""

    text: str
    special: bool = False


def _special(text: str) -> Part:
    return Part(text, special=True)


def _joined(parts: Sequence[Part]) -> list[Part]:
    """Adjacent text parts as one (a template rendered to a single string), empty text left out."""
    out: list[Part] = []
    for part in parts:
        if not part.special and out and not out[-1].special:
            out[-1] = Part(out[-1].text + part.text)
        elif part.special or part.text:
            out.append(part)
    return out


def checked_messages(messages: Sequence[Message]) -> list[Message]:
    """``messages`` as a list, each a ``Message`` with a known role and text; ``BpeError`` otherwise."""
    checked = []
    for number, message in enumerate(messages, 1):
        if not isinstance(message, Message):
            raise TypeError(f"message {number} must be a chat_formats.Message, not {type(message).__name__}")
        if message.role not in ROLES:
            raise BpeError(f"message {number} has the role {message.role!r}: give one of {', '.join(ROLES)}")
        if not isinstance(message.content, str):
            raise TypeError(f"message {number}'s content must be str, not {type(message.content).__name__}")
        checked.append(message)
    if not checked:
        raise BpeError("the conversation is empty: give at least one message")
    return checked


@dataclass(frozen=True)
class ChatFormat:
    """A model's chat format: ``name`` (a key of ``FORMATS``), what people call it (``label``), the
    built-in tokenizers it is for, where it is published (``source``) and how it cuts a conversation
    into ``Part``s."""

    name: str
    label: str
    tokenizers: tuple[str, ...]
    source: str
    cut: Callable[[list[Message]], list[Part]] = dataclasses.field(repr=False)

    def parts(self, messages: Sequence[Message]) -> list[Part]:
        return self.cut(checked_messages(messages))

    def render(self, messages: Sequence[Message]) -> str:
        """The conversation as the model reads it, special tokens written out."""
        return "".join(part.text for part in self.parts(messages))

    def encode(self, tokenizer: Tokenizer, messages: Sequence[Message]) -> list[int]:
        """The conversation's token ids under ``tokenizer`` (the model's own)."""
        return [info.id for info in self.encode_with_details(tokenizer, messages)[1]]

    def encode_with_details(self, tokenizer: Tokenizer, messages: Sequence[Message]) -> tuple[str, list[TokenInfo]]:
        """The rendered text and its tokens (ids, bytes and character spans in that text), for display."""
        infos: list[TokenInfo] = []
        offset = 0
        specials = tokenizer.special_tokens
        for part in self.parts(messages):
            if part.special:
                if part.text not in specials:
                    raise BpeError(
                        f"{tokenizer.name} has no special token {part.text!r}: the {self.label} format is for "
                        f"{', '.join(self.tokenizers)}"
                    )
                raw = part.text.encode("utf-8")
                infos.append(TokenInfo(specials[part.text], raw, offset, offset + len(part.text), False, True))
            else:
                details = tokenizer.encode_with_details(part.text, disallowed_special=frozenset())
                infos += [dataclasses.replace(i, start=i.start + offset, end=i.end + offset) for i in details]
            offset += len(part.text)
        return "".join(part.text for part in self.parts(messages)), infos


# ------------------------------------------------------------------ ChatML: Qwen


def _qwen_reasoning(content: str) -> tuple[str, str]:
    """An assistant turn's (reasoning, answer), split at ``</think>`` as Qwen 3's template does."""
    if "</think>" not in content:
        return "", content
    reasoning = content.split("</think>")[0].rstrip("\n").split("<think>")[-1].lstrip("\n")
    return reasoning, content.split("</think>")[-1].lstrip("\n")


def _chatml_turn(role: str, content: str) -> list[Part]:
    return [_special("<|im_start|>"), Part(f"{role}\n{content}"), _special("<|im_end|>"), Part("\n")]


def _last_query(messages: list[Message], *, trim: bool = False) -> int:
    """The last user turn that is not a tool's response (Qwen's templates' ``last_query_index``)."""

    def is_query(message: Message) -> bool:
        content = message.content.strip() if trim else message.content
        return message.role == "user" and not (
            content.startswith("<tool_response>") and content.endswith("</tool_response>")
        )

    return max((i for i, m in enumerate(messages) if is_query(m)), default=len(messages) - 1)


def _think(reasoning: str, answer: str) -> list[Part]:
    return [_special("<think>"), Part(f"\n{reasoning}\n"), _special("</think>"), Part(f"\n\n{answer}")]


def _qwen3(messages: list[Message]) -> list[Part]:
    """Qwen 3's chat template (tokenizer_config.json of Qwen/Qwen3-*): ChatML; the reasoning of an answer
    after the last user turn kept in ``<think>``, earlier ones dropped."""
    parts: list[Part] = []
    last_query = _last_query(messages)
    for index, message in enumerate(messages):
        if message.role != "assistant":
            parts += _chatml_turn(message.role, message.content)
            continue
        reasoning, answer = _qwen_reasoning(message.content)
        parts += [_special("<|im_start|>"), Part("assistant\n")]
        if index > last_query and (index == len(messages) - 1 or reasoning):
            parts += _think(reasoning.strip("\n"), answer.lstrip("\n"))
        else:
            parts.append(Part(answer))
        parts += [_special("<|im_end|>"), Part("\n")]
    return _joined([*parts, _special("<|im_start|>"), Part("assistant\n")])


QWEN25_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."


def _qwen25(messages: list[Message]) -> list[Part]:
    """Qwen 2.5's chat template (Qwen/Qwen2.5-*-Instruct): ChatML, with Qwen's own system prompt
    when the conversation has none."""
    parts = [] if messages[0].role == "system" else _chatml_turn("system", QWEN25_SYSTEM)
    for message in messages:
        parts += _chatml_turn(message.role, message.content)
    return _joined([*parts, _special("<|im_start|>"), Part("assistant\n")])


def _qwen35(messages: list[Message]) -> list[Part]:
    """Qwen 3.5's chat template (Qwen/Qwen3.5-*, the same in Qwen 3.6): ChatML, every turn trimmed, a
    system turn only first, at least one user turn, and the reply opening its reasoning (``<think>``)."""
    if any(m.role == "system" for m in messages[1:]):
        raise BpeError("Qwen 3.5's format takes a system turn only at the beginning of the conversation")
    last_query = _last_query(messages, trim=True)
    if messages[last_query].role != "user":
        raise BpeError("Qwen 3.5's format needs at least one user turn")
    parts: list[Part] = []
    for index, message in enumerate(messages):
        content = message.content.strip()
        if message.role != "assistant":
            parts += _chatml_turn(message.role, content)
            continue
        reasoning, answer = _qwen_reasoning(content)
        parts += [_special("<|im_start|>"), Part("assistant\n")]
        parts += _think(reasoning.strip(), answer) if index > last_query else [Part(answer)]
        parts += [_special("<|im_end|>"), Part("\n")]
    return _joined([*parts, _special("<|im_start|>"), Part("assistant\n"), _special("<think>"), Part("\n")])


# ------------------------------------------------------------------ Llama 3 and 4 (llama-models)


def _llama(start: str, end: str, eot: str) -> Callable[[list[Message]], list[Part]]:
    def cut(messages: list[Message]) -> list[Part]:
        """Meta's ``ChatFormat.encode_dialog_prompt``: each header's role, its blank line and each
        content encoded on their own; the assistant's header opens the reply."""
        parts = [_special("<|begin_of_text|>")]
        for message in messages:
            parts += [_special(start), Part(message.role), _special(end), Part("\n\n"), Part(message.content)]
            parts.append(_special(eot))
        return [p for p in [*parts, _special(start), Part("assistant"), _special(end), Part("\n\n")] if p.text]

    return cut


# ------------------------------------------------------------------ harmony: gpt-oss

HARMONY_SYSTEM = (
    "You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\n\n"
    "Reasoning: medium\n\n# Valid channels: analysis, commentary, final. Channel must be included for every message."
)


def _harmony_message(role: str, content: str, channel: str | None = None) -> list[Part]:
    parts = [_special("<|start|>"), Part(role)]
    if channel:
        parts += [_special("<|channel|>"), Part(channel)]
    return [*parts, _special("<|message|>"), Part(content), _special("<|end|>")]


def _harmony(messages: list[Message]) -> list[Part]:
    """OpenAI's harmony format (openai-harmony's ``render_conversation_for_completion``): its default
    system message (``SystemContent.new()``), a system turn as developer instructions, an assistant turn
    on the final channel."""
    parts = _harmony_message("system", HARMONY_SYSTEM)
    for message in messages:
        if message.role == "system":
            parts += _harmony_message("developer", f"# Instructions\n\n{message.content}")
        elif message.role == "user":
            parts += _harmony_message("user", message.content)
        else:
            parts += _harmony_message("assistant", message.content, channel="final")
    return [p for p in [*parts, _special("<|start|>"), Part("assistant")] if p.text]


# ------------------------------------------------------------------ DeepSeek

BOS, EOS = "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"
USER, ASSISTANT = "<｜User｜>", "<｜Assistant｜>"


def _deepseek_v3(messages: list[Message]) -> list[Part]:
    """DeepSeek V3's chat template (deepseek-ai/DeepSeek-V3's tokenizer_config.json): the system turns
    first, joined by a blank line, then ``<｜User｜>`` and ``<｜Assistant｜>`` turns (an answer's text after
    ``</think>`` only)."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    parts = [_special(BOS), Part(system)]
    for message in messages:
        if message.role == "user":
            parts += [_special(USER), Part(message.content)]
        elif message.role == "assistant":
            parts += [_special(ASSISTANT), Part(message.content.split("</think>")[-1]), _special(EOS)]
    return _joined([*parts, _special(ASSISTANT)])


def _deepseek_v4(messages: list[Message]) -> list[Part]:
    """DeepSeek V4's ``encoding_dsv4.encode_messages`` in chat mode (no reasoning): each user turn
    opens the answer with ``<｜Assistant｜></think>``, which ends the (empty) reasoning."""
    parts = [_special(BOS)]
    for index, message in enumerate(messages):
        if message.role == "system":
            parts.append(Part(message.content))
        elif message.role == "user":
            parts += [_special(USER), Part(message.content)]
            following = messages[index + 1].role if index + 1 < len(messages) else "assistant"
            if following == "assistant":
                parts += [_special(ASSISTANT), _special("</think>")]
        else:
            parts += [Part(message.content), _special(EOS)]
    return _joined(parts)


# ------------------------------------------------------------------ Mistral (Tekken)


def _mistral(messages: list[Message]) -> list[Part]:
    """mistral-common's ``InstructTokenizerV3`` (Tekken, Mistral NeMo): ``[INST]`` turns without spaces,
    the system turns joined in front of the last user turn, the conversation ending with a user turn."""
    if messages[-1].role != "user":
        raise BpeError("Mistral's format ends with a user turn: the model answers the last user turn")
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    turns = [m for m in messages if m.role != "system"]
    last_user = max(i for i, m in enumerate(turns) if m.role == "user")
    parts = [_special("<s>")]
    for index, message in enumerate(turns):
        if message.role == "user":
            content = f"{system}\n\n{message.content}" if system and index == last_user else message.content
            parts += [_special("[INST]"), Part(content), _special("[/INST]")]
        else:
            parts += [Part(message.content), _special("</s>")]
    return [p for p in parts if p.text]


FORMATS: dict[str, ChatFormat] = {
    f.name: f
    for f in (
        ChatFormat("qwen3", "Qwen 3 (ChatML)", ("qwen",), "Qwen/Qwen3-8B tokenizer_config.json chat_template", _qwen3),
        ChatFormat(
            "qwen2.5", "Qwen 2.5 (ChatML)", ("qwen",), "Qwen/Qwen2.5-7B-Instruct tokenizer_config.json", _qwen25
        ),
        ChatFormat("qwen3.5", "Qwen 3.5 / 3.6 (ChatML)", ("qwen3.5",), "Qwen/Qwen3.5 chat_template.jinja", _qwen35),
        ChatFormat(
            "llama3",
            "Llama 3",
            ("llama3",),
            "Meta llama-models, llama3/chat_format.py",
            _llama("<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"),
        ),
        ChatFormat(
            "llama4",
            "Llama 4",
            ("llama4",),
            "Meta llama-models, llama4/chat_format.py",
            _llama("<|header_start|>", "<|header_end|>", "<|eot|>"),
        ),
        ChatFormat("harmony", "harmony (gpt-oss)", ("o200k_harmony",), "OpenAI openai-harmony, gpt-oss", _harmony),
        ChatFormat(
            "deepseek-v3", "DeepSeek V3", ("deepseek",), "deepseek-ai/DeepSeek-V3 tokenizer_config.json", _deepseek_v3
        ),
        ChatFormat(
            "deepseek-v4",
            "DeepSeek V4 (chat)",
            ("deepseek4",),
            "deepseek-ai DeepSeek-V4 encoding_dsv4.py",
            _deepseek_v4,
        ),
        ChatFormat("mistral", "Mistral (Tekken, v3)", ("mistral",), "mistral-common InstructTokenizerV3", _mistral),
    )
}


def formats_for(tokenizer_name: str) -> list[ChatFormat]:
    """The chat formats of the built-in tokenizer ``tokenizer_name`` (none for GPT-2, cl100k, o200k)."""
    return [f for f in FORMATS.values() if tokenizer_name in f.tokenizers]


def chat_format(name: str) -> ChatFormat:
    """``FORMATS[name]``, or ``BpeError`` naming them."""
    if name not in FORMATS:
        raise BpeError(f"unknown chat format {name!r}: choose one of {', '.join(FORMATS)}")
    return FORMATS[name]


__all__ = ["FORMATS", "ROLES", "ChatFormat", "Message", "Part", "chat_format", "checked_messages", "formats_for"]
