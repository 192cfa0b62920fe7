"""The secret scan's allow-list is the user's own word (red team 12, local doors): a `.git`
that came with an archive or a tarball, holding `gitmem.allowSecret = path:*` in its `config`,
`config.worktree`, a file of the git folder it includes, or a `gitmem/allow` file, silenced the
scan, and every secret an agent wrote into team memory reached the archive's remote in
plaintext. Now such a value allows nothing until `gitmem config allowSecret VALUE` records it
outside the repository (core/choices), as round 11 did for `gitmem.encrypt off`; sync and doctor
say so with that command.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.personal import remote_objects
from tests.support.pristine import Pristine, built_once
from tests.support.world import World, write_files

TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB"
TOPIC = "---\nname: creds\ndescription: how we log in\n---\n"


def _team_secret(world: World, clone: Path) -> None:
    write_files(
        world.scope_path(clone, "team"),
        {"MEMORY.md": "- [Creds](creds.md) — how we log in\n", "creds.md": f"{TOPIC}{TOKEN}\n"},
    )


def _clone_synced(world: World) -> None:
    clone = world.clone("c")
    world.ok("-C", str(clone), "sync")


@pytest.fixture(scope="module")
def _synced_once(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    return built_once(tmp_path_factory, _remote_template, "allow-c", _clone_synced)


@pytest.fixture
def synced_c(_synced_once: Pristine, monkeypatch: pytest.MonkeyPatch) -> tuple[World, Path]:
    """Clone `c` after its first sync (the opening of 8 tests), built once a module and
    handed back as built (#23)."""
    world = _synced_once.fresh(monkeypatch)
    return world, world.root / "c"


@pytest.mark.parametrize("how", ["config", "worktree", "include", "allow-file"])
@pytest.mark.parametrize("value", ["path:*", "path:**/*.md"])
def test_an_allow_list_in_the_repositorys_own_folder_allows_nothing(
    synced_c: tuple[World, Path], how: str, value: str
) -> None:
    world, clone = synced_c
    git_dir = clone / ".git"
    if how == "config":
        world.git("config", "--add", "gitmem.allowSecret", value, cwd=clone)
    elif how == "worktree":
        world.git("config", "extensions.worktreeConfig", "true", cwd=clone)
        world.git("config", "--worktree", "gitmem.allowSecret", value, cwd=clone)
    elif how == "include":
        (git_dir / "team.conf").write_text(f"[gitmem]\n\tallowSecret = {value}\n")
        world.git("config", "include.path", "team.conf", cwd=clone)
    else:
        (git_dir / "gitmem").mkdir(exist_ok=True)
        (git_dir / "gitmem" / "allow").write_text(f"{value}\n")
    _team_secret(world, clone)
    run = world.gitmem("-C", str(clone), "sync")
    assert run.code == 1, run.out + run.err  # refused: the scan was not silenced
    assert TOKEN.encode() not in remote_objects(world.remote)
    assert "gitmem config allowSecret" in run.out + run.err, run.out + run.err
    if how != "allow-file":  # a value of git's config: named, with the command that confirms it
        assert f"gitmem.allowsecret = {value}" in run.err.lower(), run.err
        doctor = world.gitmem("-C", str(clone), "doctor").out
        assert f"gitmem config allowSecret {value}" in doctor, doctor


def test_the_users_word_allows_it_for_this_repository_only(world: World) -> None:
    """`gitmem config allowSecret VALUE` records the value outside the repository (each value
    joins the list); a second clone of the same remote is not allowed by it."""
    mine, other = world.clone("mine"), world.clone("other")
    world.ok("-C", str(mine), "sync")
    _team_secret(world, mine)
    run = world.gitmem("-C", str(mine), "sync")
    assert run.code == 1, run.out + run.err
    mark = (run.out + run.err).split("(sha256:", 1)[1].split(")", 1)[0]
    world.ok("-C", str(mine), "config", "allowSecret", "path:fixtures/*")
    world.ok("-C", str(mine), "config", "allowSecret", f"sha256:{mark}")
    shown = world.ok("-C", str(mine), "config", "allowSecret")
    assert f"sha256:{mark}" in shown and "path:fixtures/*" in shown, shown
    assert not list(mine.rglob("choices.json"))
    run = world.gitmem("-C", str(mine), "sync")
    assert run.code == 0 and "ignored" not in run.err, run.out + run.err
    assert TOKEN.encode() in remote_objects(world.remote)  # the user's own choice: published
    # the other clone: its own .git/config says the same value by hand, and it is not its word
    world.git("config", "--add", "gitmem.allowSecret", f"sha256:{mark}", cwd=other)
    write_files(world.scope_path(other, "team"), {"more.md": f"{TOPIC}again {TOKEN}x\n"})
    refused = world.gitmem("-C", str(other), "sync")
    assert refused.code == 1 and "ignored" in refused.err, refused.out + refused.err


def test_an_allow_value_that_is_no_fingerprint_is_one_line(world: World) -> None:
    clone = world.clone("c")
    run = world.gitmem("-C", str(clone), "config", "allowSecret", "everything")
    assert run.code == 2 and len(run.err.strip().splitlines()) <= 2, run.err
    assert "sha256:" in run.err
    assert world.git("config", "--get-all", "gitmem.allowSecret", cwd=clone, check=False) == ""
