"""``python -m bpe_core chat``: the turns in order, from options or a JSON file, printed as the library's
ids, text or tokens (``bpe_core.pretrained.chat_formats``); bad input is one ``error:`` line."""

from __future__ import annotations

import json

import pytest

import bpe_core
from bpe_core.cli.main import main
from bpe_core.pretrained import catalogue
from bpe_core.pretrained.chat_formats import FORMATS, Message

MESSAGES = [
    Message("system", "Be brief."),
    Message("user", "Hello there"),
    Message("assistant", "Hi!"),
    Message("user", "How are you? 🙂"),
]
OPTIONS = [f"--{m.role}={m.content}" for m in MESSAGES]


@pytest.fixture(autouse=True)
def qwen_installed():
    if not catalogue.is_installed("qwen"):
        pytest.skip(catalogue.not_installed_message("qwen"))


def test_ids_text_and_tokens_are_the_librarys(capsys):
    qwen = bpe_core.load("qwen")
    assert main(["chat", "-t", "qwen", *OPTIONS]) == 0
    out, err = capsys.readouterr()
    ids = FORMATS["qwen3"].encode(qwen, MESSAGES)
    assert out == " ".join(map(str, ids)) + "\n"
    specials = sum(i.special for i in FORMATS["qwen3"].encode_with_details(qwen, MESSAGES)[1])
    assert err == f"{len(ids)} tokens ({specials} special) in the Qwen 3 (ChatML) format\n"
    assert main(["chat", "-t", "qwen", "--format", "qwen2.5", "--show", "text", *OPTIONS]) == 0
    assert capsys.readouterr().out == FORMATS["qwen2.5"].render(MESSAGES) + "\n"
    assert main(["chat", "-t", "qwen", "--show", "tokens", *OPTIONS]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "151644\t<|im_start|>" and len(lines) == len(ids)


def test_a_json_file_of_messages_is_the_same_conversation(tmp_path, capsys):
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps([{"role": m.role, "content": m.content} for m in MESSAGES]), encoding="utf-8")
    assert main(["chat", "-t", "qwen", *OPTIONS]) == 0
    from_options = capsys.readouterr().out
    assert main(["chat", "-t", "qwen", "--messages", str(path)]) == 0
    assert capsys.readouterr().out == from_options


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["-t", "gpt2", "--user", "Hi"], "error: no chat format is known for 'gpt2': chat formats are for deepseek"),
        (["-t", "qwen"], "error: no conversation: give turns with --user"),
        (["-t", "qwen", "--format", "mistral", "--user", "Hi"], "error: qwen has no special token '<s>'"),
        (["-t", "qwen", "--user", "Hi", "--messages", "x.json"], "error: give the turns with --system/--user"),
        (["-t", "qwen", "--messages", "{bad}"], "error: cannot read {bad}"),
    ],
)
def test_bad_input_is_one_error_line(arguments, message, capsys):
    assert main(["chat", *arguments]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1, err


def test_a_json_file_that_is_not_a_conversation(tmp_path, capsys):
    path = tmp_path / "c.json"
    for content, message in [
        ('{"role": "user"}', "holds dict: give a JSON array"),
        ('[{"role": "user", "content": 3}]', "message 1 is not an object with a 'role' and a text 'content'"),
        ('[{"role": "tool", "content": "x"}]', "message 1 has the role 'tool': give one of system, user, assistant"),
    ]:
        path.write_text(content, encoding="utf-8")
        assert main(["chat", "-t", "qwen", "--messages", str(path)]) == 2
        assert message in capsys.readouterr().err
