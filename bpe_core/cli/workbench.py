"""``bpe-core app [streamlit options]``: start the workbench (the Streamlit app) from any folder.

The wheel carries the workbench's files in ``bpe_core/_workbench/`` (copied there by the build:
setup.py): ``app.py``, ``pages/`` and ``.streamlit/config.toml``. From a checkout (``pip install -e .``
or ``python -m bpe_core`` run there) the checkout's own ``app.py`` is used. The command runs
``python -m streamlit run <app.py> [options]`` with this interpreter, so the app imports the same
``bpe_core``; the options are ``streamlit run``'s (``--server.port 8600``, ``--server.headless true``).

The settings of ``.streamlit/config.toml`` (upload limit, theme fonts, no usage statistics...) apply
wherever the command starts: Streamlit reads that file from the folder it is started in (recent
releases also from the script's folder), so they are also given as ``STREAMLIT_*`` environment
variables, except those the user set. An option on the command line still wins over them.

This module only finds the files and starts Streamlit; it never imports streamlit itself (bpe_core
imports no UI library) and knows nothing of the pages.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from bpe_core.errors import BpeError

#: Where the wheel puts the workbench, inside the installed ``bpe_core`` package.
INSTALLED = Path(__file__).resolve().parents[1] / "_workbench"
#: A checkout: the folder holding the ``bpe_core`` package, when it has app.py beside it.
CHECKOUT = Path(__file__).resolve().parents[2]
#: What the pages import besides bpe_core: the ``app`` extra installs them.
NEEDED = ("streamlit", "plotly", "pandas")
INSTALL_HINT = "pip install 'bpe-core[app]'"
HELP = """usage: bpe-core app [streamlit options]

Start the BPE workbench in your browser (Streamlit), from any folder.

Any option of `streamlit run` is passed on, for example:
  bpe-core app --server.port 8600
  bpe-core app --server.headless true --server.address 127.0.0.1

The tokenizer library is the folder in $BPE_WORKBENCH_DIR, else a per-user data folder.
Needs the app extra: pip install 'bpe-core[app]'"""


def workbench_folder(installed: Path = INSTALLED, checkout: Path = CHECKOUT) -> Path:
    """The folder holding the workbench's ``app.py``: the copy inside the installed package, else the
    checkout this bpe_core runs from; ``BpeError`` saying how to get one otherwise."""
    for folder in (installed, checkout):
        if (folder / "app.py").is_file() and (folder / "pages").is_dir():
            return folder
    raise BpeError(
        f"this bpe_core ({installed.parent}) carries no workbench: install it from a wheel built from the "
        "repository (pip install 'bpe-core[app]'), or run `streamlit run app.py` in a checkout"
    )


def missing_packages(names: Sequence[str] = NEEDED) -> list[str]:
    """The packages of ``names`` that this interpreter cannot import (looked up, not imported)."""
    return [name for name in names if importlib.util.find_spec(name) is None]


def _env_name(section: str, option: str) -> str:
    """Streamlit's environment variable for ``section.option`` (as ``streamlit run --help`` lists them).

    >>> _env_name("server", "maxUploadSize")
    'STREAMLIT_SERVER_MAX_UPLOAD_SIZE'
    """
    snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", f"{section}_{option}")
    return "STREAMLIT_" + snake.upper()


def _env_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _read_settings(config: Path) -> dict:
    """The TOML document ``config``; empty on Python 3.10 (no ``tomllib``)."""
    if sys.version_info >= (3, 11):
        import tomllib

        try:
            return tomllib.loads(config.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise BpeError(f"cannot read the workbench's settings {config}: {exc}") from None
    return {}


def settings_environment(config: Path, environ: Mapping[str, str]) -> dict[str, str]:
    """The options of Streamlit's ``config`` file as ``STREAMLIT_*`` variables, leaving out those set
    in ``environ`` already. Empty when the file is missing, or on Python 3.10 (no ``tomllib``): there only
    a Streamlit release that reads the file beside app.py applies it."""
    if not config.is_file():
        return {}
    found = {}
    for section, options in _read_settings(config).items():
        if isinstance(options, dict):
            for option, value in options.items():
                name = _env_name(section, option)
                if name not in environ:
                    found[name] = _env_value(value)
    return found


def app_command(folder: Path, options: Sequence[str]) -> list[str]:
    """The command that starts the workbench in ``folder`` with ``streamlit run``'s ``options``."""
    return [sys.executable, "-m", "streamlit", "run", str(folder / "app.py"), *options]


def launch(options: Sequence[str]) -> int:
    """Start the workbench: checks first, then Streamlit in place of this process (POSIX), or as a
    child whose exit status is returned (elsewhere)."""
    folder = workbench_folder()
    missing = missing_packages()
    if missing:
        raise BpeError(f"the workbench needs {', '.join(missing)}, missing from this Python: {INSTALL_HINT}")
    environ = dict(os.environ)
    environ.update(settings_environment(folder / ".streamlit" / "config.toml", os.environ))
    command = app_command(folder, options)
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name != "posix":
        return subprocess.call(command, env=environ)
    os.execve(command[0], command, environ)  # never returns: Ctrl-C and signals go straight to Streamlit


def cmd_app(args: argparse.Namespace) -> int:
    if any(option in ("-h", "--help") for option in args.streamlit_options[:1]):
        print(HELP)
        return 0
    return launch(args.streamlit_options)


def add_app_parser(sub: argparse._SubParsersAction) -> None:
    """``app``: every argument after it goes to ``streamlit run`` (the subcommand takes none of its own,
    so ``--server.port 8600`` is not read as an option of bpe-core)."""
    p = sub.add_parser(
        "app",
        help="start the workbench in your browser: bpe-core app [streamlit options]",
        prefix_chars="+",
        add_help=False,
    )
    p.add_argument("streamlit_options", nargs=argparse.REMAINDER)
    p.set_defaults(func=cmd_app)
