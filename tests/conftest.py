"""Every test runs under a temporary HOME with no system or user git config leaking in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.world import World


def pytest_addoption(parser: pytest.Parser) -> None:
    # here, not in tests/reliability/conftest.py: pytest reads options only from top conftests
    parser.addoption(
        "--soak", action="store_true", help="run tests/reliability at its long (soak) sizes"
    )


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    for key in list(__import__("os").environ):
        if key.startswith(("GIT_", "CLAUDE_")):
            monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    w.make_remote()
    return w


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # the real Claude Code is a 175 MB download: its tests run only when CLAUDE_BIN names it,
    # and show as SKIPPED otherwise (collected, so an import error in them still fails)
    have_claude = bool(__import__("os").environ.get("CLAUDE_BIN"))
    for item in items:
        if "oracle" in Path(str(item.path)).parts:
            item.add_marker(pytest.mark.oracle)
            if not have_claude:
                item.add_marker(
                    pytest.mark.skip(
                        reason="needs the real Claude Code: "
                        "CLAUDE_BIN=$(tests/oracle/install-claude-code)"
                    )
                )
