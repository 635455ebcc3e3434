"""README claims that can be checked mechanically: the quick start and the library example."""

import re
from pathlib import Path

import bpe_core

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _quick_start_commands():
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)\n```", section, flags=re.S)


def test_quick_start_has_exactly_two_commands():
    commands = _quick_start_commands()
    assert len(commands) == 2
    assert all("\n" not in c for c in commands)
    assert "streamlit run app.py" in commands[0]
    assert "pytest" in commands[1]


def test_quick_start_names_the_pip_route_in_one_line():
    """One line of the quick start installs the workbench as a tool: the extra it names exists, and
    ``bpe-core app`` is a subcommand (tests/app/test_installed_app.py runs it from a wheel)."""
    from bpe_core.cli.main import build_parser

    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    (line,) = [line for line in section.splitlines() if "bpe-core app" in line]
    assert 'pip install ".[app]"' in line and "any folder" in line
    assert "\napp = [" in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert build_parser().parse_args(["app", "--server.port", "8600"]).command == "app"


def test_ci_runs_the_readme_test_command_verbatim():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_command = _quick_start_commands()[1]
    assert test_command in ci.splitlines()


def test_library_example_is_true(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tok = bpe_core.train(["ab ab ab ab", "abc abc"], vocab_size=259, min_frequency=1)
    assert "[(b'a', b'b'), (b' ', b'ab'), (b'ab', b'c')]" in README
    assert tok.merges == [(b"a", b"b"), (b" ", b"ab"), (b"ab", b"c")]
    assert tok.encode("abc ab") == [258, 257]
    assert "[258, 257]" in README
    tok.save("tiny.json")
    assert bpe_core.load("tiny.json").merges == tok.merges
    assert bpe_core.load("gpt2").encode("Hello world") == [15496, 995]
    assert bpe_core.load("gpt2").encode("<|endoftext|>", allowed_special="all") == [50256]


def _command_line_examples():
    section = README.split("## The command line", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```bash\n(.*?)\n```", section, flags=re.S)
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_command_line_example_is_true(capsys):
    """The README's first command line prints what its comment says; every other one parses."""
    import shlex

    from bpe_core.cli.main import build_parser, main

    lines = _command_line_examples()
    assert all(line.startswith("python -m bpe_core ") for line in lines)
    first = shlex.split(lines[0])[3:]
    assert main(first) == 0
    printed = capsys.readouterr().out.strip()
    assert printed == "15496 995"
    assert f'--text "Hello world"                      # {printed}' in README
    parser = build_parser()
    for line in lines[1:]:
        parser.parse_args(shlex.split(line)[3:])  # argparse exits (SystemExit) on a wrong option


def test_readme_links_point_at_files_that_exist():
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README):
        if "://" not in target:
            assert (ROOT / target).exists(), f"README links to {target}, which does not exist"
