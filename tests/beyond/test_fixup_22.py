"""What the round-22 reviewer noticed: a listing of more index files than old SQLite's 999
variables, a user-scope loss untold without a global user.email, `lost --user`'s ignored
options, a relative include resolved against the wrong folder."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.support.personal import same_identity, two_machines_one_hub
from tests.support.world import World, write_files


def test_a_listing_of_more_index_files_than_sqlites_old_limit_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: `--recent` left out every pointer list with `NOT IN (?, ?, …)`, one variable each:
    past 999 index files an older SQLite refused the query. Now one variable (json_each)."""
    import gitmem.recall.query as query
    from gitmem.recall.searchindex import connect

    if not hasattr(sqlite3.Connection, "setlimit"):  # Python 3.11's; the suite's is
        pytest.skip("no sqlite3.Connection.setlimit before Python 3.11")
    world = World(tmp_path)
    clone = tmp_path / "proj"
    world.git("init", "-q", str(clone))
    world.git("commit", "-q", "--allow-empty", "-m", "init", cwd=clone)
    auto = world.scope_path(clone, "auto")
    files = {f"t{i}/MEMORY.md": f"- [n](n{i}.md)\n" for i in range(1001)}
    write_files(auto, {**files, "kept.md": "---\nname: kept\n---\nzebra\n"})

    def old_sqlite(common_dir: str) -> sqlite3.Connection:  # the limit of builds before 3.32
        db = connect(common_dir)
        # mypy checks as Python 3.10, which has neither
        getattr(db, "setlimit")(getattr(sqlite3, "SQLITE_LIMIT_VARIABLE_NUMBER"), 999)  # noqa: B009
        return db

    monkeypatch.setattr(query, "connect", old_sqlite)
    run = world.gitmem("-C", str(clone), "query", "--recent", "5", timeout=300)
    assert run.code == 0, run.err
    assert "kept.md" in run.out and "MEMORY.md" not in run.out, run.out


def _no_global_email(*worlds: World) -> None:
    for w in worlds:
        w.git("config", "--global", "--unset", "user.email")


def test_a_user_scope_loss_is_told_without_a_global_email(tmp_path: Path) -> None:
    """Was: with no global user.email, `sync --user` in a repository named the personal ref
    after the repository's, and the loss's numbering read the global config alone: "no
    user.email", caught, the loss untold. Now told, and `lost --user -C` lists it there."""
    a, b, _ = two_machines_one_hub(tmp_path, "claude")
    _no_global_email(a, b)
    repos = []
    for w, name in ((a, "ra"), (b, "rb")):
        repo = tmp_path / name
        w.git("init", "-q", str(repo))
        w.git("config", "user.email", "me@work.example", cwd=repo)
        repos.append(repo)
    ra, rb = repos
    mine_a, mine_b = a.home / ".claude/CLAUDE.md", b.home / ".claude/CLAUDE.md"
    write_files(a.home / ".claude", {"CLAUDE.md": "# me\n\n- deploy with fly\n"})
    a.ok("-C", str(ra), "sync", "--user")
    same_identity(a, b)
    b.ok("-C", str(rb), "sync", "--user")
    mine_a.write_text("# me\n\n- deploy with fly from a\n")
    mine_b.write_text("# me\n\n- deploy from b\n")
    told = "".join(w.ok("-C", str(r), "sync", "--user") for w, r in ((a, ra), (b, rb), (a, ra)))
    assert "could not read which edits" not in told, told
    assert "gitmem lost --user claude:1 shows it" in told, told
    listed = a.ok("-C", str(ra), "lost", "--user")
    assert "claude:1  " in listed and "~/.claude/CLAUDE.md" in listed, listed


def test_lost_user_refuses_remote_in_one_line(tmp_path: Path) -> None:
    """Was: `gitmem lost --user --remote origin` listed the user scope's, the option ignored."""
    a, _, _ = two_machines_one_hub(tmp_path, "claude")
    run = a.gitmem("lost", "--user", "--remote", "origin", cwd=tmp_path)
    assert run.code == 2, run.err + run.out
    assert "gitmem lost --user: --remote does not apply to the user scope" in run.err
    assert run.err.count("\n") == 2 and run.out == ""


def test_a_relative_include_of_the_global_config_is_read_beside_it(tmp_path: Path) -> None:
    """Was: `include.path = extra` of ~/.gitconfig was looked for in the git folder, where a
    folder `extra` refused every command of a repository git itself reads well (git reads
    ~/extra, the including file's folder's). Now as git resolves it."""
    world = World(tmp_path)
    clone = tmp_path / "a"
    world.git("init", "-q", str(clone))
    (world.home / "extra").write_text("[core]\n\tabbrev = 12\n")
    world.git("config", "--global", "include.path", "extra")
    (clone / ".git/extra").mkdir()
    run = world.gitmem("-C", str(clone), "status")
    assert run.code == 0, run.err + run.out
    assert "not a regular file" not in run.err
