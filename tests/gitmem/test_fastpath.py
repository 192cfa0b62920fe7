"""The typer-free fast path must behave exactly like the typer CLI it short-cuts."""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import pytest

from gitmem import __version__, cli, fastpath, synccmd

SYNC_ARGVS = [
    ["sync"],
    ["-C", "somewhere", "pull", "-q"],
    ["--memory-dir=/m", "push", "--scope", "team", "--scope=auto", "-n", "--force-key"],
    ["--memory-dir", "/m", "-C", "a", "-C", "b", "sync", "--quiet", "--dry-run", "--remote=up"],
    ["pull", "--remote", "origin", "--debug"],
]
NOT_FAST = [
    [],
    ["sync", "--help"],
    ["status"],
    ["drivers", "install"],
    ["-Cx", "sync"],
    ["sync", "-qn"],
    ["sync", "extra"],
    ["sync", "--remote"],
    ["-C"],
    ["--version", "sync"],
]


def _recorded(monkeypatch: pytest.MonkeyPatch, entry: Any, argv: list[str]) -> tuple[Any, ...]:
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(synccmd, "sync_command", lambda *args: calls.append(args[:-1]))
    assert entry(argv) == 0
    assert len(calls) == 1
    return calls[0]


@pytest.mark.parametrize("argv", SYNC_ARGVS)
def test_fast_path_calls_sync_with_what_typer_parses(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _recorded(monkeypatch, fastpath.run, argv) == _recorded(monkeypatch, cli.run, argv)


@pytest.mark.parametrize("argv", NOT_FAST)
def test_anything_unsure_goes_to_typer(argv: list[str]) -> None:
    assert fastpath.parse(argv) is None


def test_help_is_typers_own_text_rendered_once_then_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "100")
    assert cli.run(["--help"]) == 0
    typer_text = capsys.readouterr().out
    for _ in range(2):  # first: typer renders and the cache is written; then: the cache
        assert fastpath.run(["--help"]) == 0
        assert capsys.readouterr().out == typer_text
    cache = fastpath.help_cache()
    assert cache is not None and Path(cache).read_text("utf-8") == typer_text


def test_help_cache_is_per_version_of_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache = fastpath.help_cache()
    crc = zlib.crc32(Path(cli.__file__).read_bytes())
    assert cache == str(tmp_path / "gitmem" / f"help-{__version__}-{crc:08x}.txt")


def test_narrow_terminal_help_goes_to_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    assert fastpath.parse(["--help"]) is None
    monkeypatch.setenv("COLUMNS", "120")
    assert fastpath.parse(["--help"]) == "help"


def test_version_prints_what_typer_prints(capsys: pytest.CaptureFixture[str]) -> None:
    assert fastpath.run(["--version"]) == 0
    fast = capsys.readouterr().out
    assert cli.run(["--version"]) == 0
    assert capsys.readouterr().out == fast


def test_errors_print_the_same_two_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["-C", str(tmp_path / "missing"), "sync"]
    fast_code = fastpath.run(argv)
    fast = capsys.readouterr()
    assert cli.run(argv) == fast_code == 2
    slow = capsys.readouterr()
    assert (fast.out, fast.err) == (slow.out, slow.err)
    assert fast.err.startswith("gitmem: error: ")
