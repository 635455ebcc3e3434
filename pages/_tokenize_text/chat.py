"""Tokenize's chat view: type a conversation (system, user and assistant turns) and see it as each
chosen model reads it, in that model's chat format with its special tokens (ChatML for Qwen, Llama 3's
headers, harmony for gpt-oss, DeepSeek's, Mistral's ``[INST]``), counted token by token and drawn with
the page's token strips. The formats, their sources and the proof that they give the models' own ids
are ``bpe_core.pretrained.chat_formats``'. A built-in tokenizer without a published chat format (GPT-2,
cl100k, o200k) and the user's own tokenizers are listed as such.

The conversation's turns are widgets (a role and a text box each, added and removed with buttons),
kept across page switches; the expander's content runs only while it is open. A chat panel's text is
not the page's text, so its tokens take no part in the page's linked hover (``unlinked``).
"""

from __future__ import annotations

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.errors import BpeError
from bpe_core.pretrained.chat_formats import ROLES, ChatFormat, Message, formats_for
from pages._ui import render, state
from pages._ui.render import markdown_text as md
from pages._ui.tokenizers import TokenizerChoice, rank_function

from . import markup

K_OPEN = "tokenize.chat.open"
K_TURNS = "tokenize.chat.turns"  # how many turns the conversation has
K_FORMAT = "tokenize.chat.format."  # + a tokenizer's key: its chosen format, when it has several
MAX_TURNS = 20
EXAMPLE = (
    ("system", "You are a helpful assistant. Answer briefly."),
    ("user", "How many tokens is 'tokenization' in each model? And 日本語 🙂?"),
    ("assistant", "It depends on the tokenizer: count them below."),
    ("user", "Thanks!"),
)


def _role_key(number: int) -> str:
    return f"tokenize.chat.role.{number}"


def _text_key(number: int) -> str:
    return f"tokenize.chat.text.{number}"


def _kept_keys(turns: int) -> list[str]:
    return [key for number in range(turns) for key in (_role_key(number), _text_key(number))]


def _start() -> int:
    """The number of turns; every turn's widgets get their kept values, the first ones the example's."""
    example = {}
    for number, (role, text) in enumerate(EXAMPLE):
        example[_role_key(number)], example[_text_key(number)] = role, text
    state.keep_widget_state({K_TURNS: len(EXAMPLE), **example})
    turns = int(st.session_state[K_TURNS])
    state.keep_widget_state(restore_only=[key for key in _kept_keys(turns) if key not in example])
    return turns


def _next_role(turns: int) -> str:
    last = st.session_state.get(_role_key(turns - 1)) if turns else "assistant"
    return "assistant" if last == "user" else "user"


def conversation() -> list[Message]:
    """The turns as typed: a role and a text box each, then Add and Remove buttons."""
    turns = _start()
    messages = []
    for number in range(turns):
        columns = st.columns([1, 5], vertical_alignment="top")
        if _role_key(number) not in st.session_state:
            st.session_state[_role_key(number)] = _next_role(number)
        turn = number + 1
        role = columns[0].selectbox(f"Turn {turn:,}", ROLES, key=_role_key(number))
        text = columns[1].text_area(f"Text of turn {turn:,}", key=_text_key(number), height=68)
        messages.append(Message(role or "user", text or ""))
    buttons = st.columns([1, 1, 4])
    if buttons[0].button("Add a turn", key="tokenize.chat.add", disabled=turns >= MAX_TURNS):
        st.session_state[_role_key(turns)] = _next_role(turns)
        st.session_state[K_TURNS] = turns + 1
        st.rerun()
    if buttons[1].button("Remove the last turn", key="tokenize.chat.remove", disabled=turns <= 1):
        st.session_state[K_TURNS] = turns - 1
        st.rerun()
    return messages


def unlinked(panel: str) -> str:
    """``panel`` without the character spans the page's linked hover reads (``data-s``, ``data-e``): a
    chat panel's offsets are in its own rendered conversation, not in the page's text. User text in the
    markup is escaped (a quote is ``&quot;``), so only the renderer's own attributes match."""
    return panel.replace(' data-s="', ' data-cs="').replace(' data-e="', ' data-ce="')


def _pick_format(key: str, label: str, formats: list[ChatFormat]) -> ChatFormat:
    if len(formats) == 1:
        return formats[0]
    names = [f.name for f in formats]
    state.ensure_option(K_FORMAT + key, names, names[0])
    by_name = {f.name: f for f in formats}
    chosen = st.selectbox(
        f"Chat format for {md(label)}", names, format_func=lambda n: by_name[n].label, key=K_FORMAT + key
    )
    return by_name[chosen or names[0]]


def show_chat(choice: TokenizerChoice, tokenizer: Tokenizer, fmt: ChatFormat, messages: list[Message]) -> None:
    """One model's rendering of the conversation: its count and its token strip."""
    try:
        text, infos = fmt.encode_with_details(tokenizer, messages)
    except BpeError as exc:
        st.warning(f"{md(choice.label)}: {md(exc)}")
        return
    specials = sum(info.special for info in infos)
    st.markdown(f"**{md(choice.label)}** · {md(fmt.label)} · {len(infos):,} tokens, {specials:,} of them special")
    panel = render.render_tokens_html(text, infos, rank_of=rank_function(tokenizer), switchable=True, style=False)
    markup.draw(markup.trusted_html(unlinked(panel)), key=f"tokenize.chat.panel.{choice.key}")
    st.caption(f"Format: {md(fmt.source)}.")


def chat_section(choices: dict[str, TokenizerChoice], selected: list[str]) -> None:
    """The expander: the conversation, then each chosen model's rendering of it."""
    box = st.expander("Chat: a conversation in each model's chat format", key=K_OPEN, on_change="rerun")
    with box:
        if not box.open:  # nothing rendered or sent while it is closed
            return
        st.caption(
            "Each model reads a conversation as one text with its own special tokens around the turns. "
            "Text you type stays text, even if it looks like a special token."
        )
        messages = conversation()
        without = [choices[k].label for k in selected if not formats_for(k) or choices[k].kind != "built-in"]
        if without:
            st.caption("No published chat format: " + md(", ".join(without)) + ".")
        for key in selected:
            formats = formats_for(key) if choices[key].kind == "built-in" else []
            if not formats:
                continue
            fmt = _pick_format(key, choices[key].label, formats)
            try:
                tokenizer = choices[key].get()
            except ValueError as exc:
                st.error(f"{md(choices[key].label)} could not be loaded: {md(exc)}")
                continue
            show_chat(choices[key], tokenizer, fmt, messages)
