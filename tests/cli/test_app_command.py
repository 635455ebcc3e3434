"""``bpe-core app``: which app.py it starts (the installed copy, else the checkout), the command it runs,
Streamlit's settings carried as environment variables, and the messages when something is missing.
The installed wheel served in a browser is tests/app/test_installed_app.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bpe_core.cli import workbench
from bpe_core.cli.main import main
from bpe_core.errors import BpeError

ROOT = Path(__file__).resolve().parents[2]


def _app_folder(folder: Path) -> Path:
    (folder / "pages").mkdir(parents=True)
    (folder / "app.py").write_text("", encoding="utf-8")
    return folder


def test_the_installed_copy_comes_first_then_the_checkout(tmp_path):
    installed, checkout = _app_folder(tmp_path / "installed"), _app_folder(tmp_path / "checkout")
    assert workbench.workbench_folder(installed, checkout) == installed
    assert workbench.workbench_folder(tmp_path / "none", checkout) == checkout
    assert workbench.workbench_folder(workbench.INSTALLED, ROOT) == ROOT  # this checkout carries no copy


def test_no_workbench_anywhere_says_how_to_get_one(tmp_path):
    with pytest.raises(BpeError, match=r"carries no workbench: install it from a wheel .*bpe-core\[app\]"):
        workbench.workbench_folder(tmp_path / "a", tmp_path / "b")


def test_the_command_is_streamlit_run_with_the_options_as_given(tmp_path):
    command = workbench.app_command(tmp_path, ["--server.port", "8600", "--theme.base=dark"])
    assert command == [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(tmp_path / "app.py"),
        "--server.port",
        "8600",
        "--theme.base=dark",
    ]


def test_options_after_app_are_streamlits_not_bpe_cores(monkeypatch):
    started = []
    monkeypatch.setattr(workbench, "launch", lambda options: started.append(list(options)) or 0)
    assert main(["app", "--server.port", "8600", "--server.headless", "true"]) == 0
    assert main(["app"]) == 0
    assert started == [["--server.port", "8600", "--server.headless", "true"], []]


def test_help_is_bpe_cores_own(capsys, monkeypatch):
    monkeypatch.setattr(workbench, "launch", lambda options: pytest.fail("--help must not start the app"))
    assert main(["app", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: bpe-core app [streamlit options]") and "pip install 'bpe-core[app]'" in out


@pytest.mark.skipif(sys.version_info < (3, 11), reason="the settings are read with tomllib (Python 3.11+)")
def test_the_checkouts_settings_become_streamlits_environment_variables():
    """Every option of .streamlit/config.toml, under the variable Streamlit itself reads for it."""
    from streamlit import config

    found = workbench.settings_environment(ROOT / ".streamlit" / "config.toml", {})
    assert found["STREAMLIT_SERVER_MAX_UPLOAD_SIZE"] == "200"
    assert found["STREAMLIT_BROWSER_GATHER_USAGE_STATS"] == "false"
    assert found["STREAMLIT_CLIENT_TOOLBAR_MODE"] == "minimal"
    assert found["STREAMLIT_THEME_FONT"].startswith("'Source Sans', 'Noto Sans'")
    import tomllib

    document = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    keys = [f"{section}.{option}" for section, options in document.items() for option in options]
    options = config.get_config_options()
    assert sorted(found) == sorted(options[key].env_var for key in keys)


def test_a_setting_the_user_made_is_left_alone():
    found = workbench.settings_environment(ROOT / ".streamlit" / "config.toml", {"STREAMLIT_THEME_FONT": "serif"})
    assert "STREAMLIT_THEME_FONT" not in found
    assert workbench.settings_environment(Path("/no/such/config.toml"), {}) == {}


def test_a_broken_settings_file_is_one_message(tmp_path):
    broken = tmp_path / "config.toml"
    broken.write_text("[server\nmaxUploadSize = ", encoding="utf-8")
    if sys.version_info < (3, 11):
        assert workbench.settings_environment(broken, {}) == {}
        return
    with pytest.raises(BpeError, match="cannot read the workbench's settings"):
        workbench.settings_environment(broken, {})


def test_without_streamlit_the_message_names_the_extra(monkeypatch, capsys):
    monkeypatch.setattr(workbench.importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(workbench.os, "execve", lambda *a: pytest.fail("nothing may start"))
    assert main(["app"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "error: the workbench needs streamlit, plotly, pandas, missing from this Python: pip install 'bpe-core[app]'"
    )


def test_launch_runs_streamlit_in_this_process_with_the_settings(monkeypatch):
    calls = []
    monkeypatch.setattr(workbench.os, "name", "posix")
    monkeypatch.setattr(workbench.os, "execve", lambda path, argv, env: calls.append((path, argv, env)))
    monkeypatch.setenv("STREAMLIT_SERVER_MAX_UPLOAD_SIZE", "5")
    workbench.launch(["--server.port", "8600"])
    ((path, argv, env),) = calls
    assert path == sys.executable and argv[1:4] == ["-m", "streamlit", "run"]
    assert argv[4] == str(ROOT / "app.py") and argv[5:] == ["--server.port", "8600"]
    assert env["STREAMLIT_SERVER_MAX_UPLOAD_SIZE"] == "5"  # the user's own value
    if sys.version_info >= (3, 11):
        assert env["STREAMLIT_CLIENT_TOOLBAR_MODE"] == "minimal"
