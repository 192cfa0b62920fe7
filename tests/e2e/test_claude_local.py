"""<root>/CLAUDE.local.md is personal memory of the local scope (docs/design.md §1): synced
encrypted on the personal ref (as local/.root/CLAUDE.local.md), by the same rules as every file.

Two clones of one person on one machine (one HOME, one identity), a real bare remote.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.personal import USER_REF, personal_paths, remote_objects
from tests.support.pristine import Pristine, built_once
from tests.support.world import World, write_files

STORED = "local/.root/CLAUDE.local.md"
NOTE = "# Mine\n\n- sandbox URL: https://sandbox.example/heliotrope-walrus\n"


def two_clones(world: World) -> tuple[Path, Path]:
    a, b = world.clone("a"), world.clone("b")
    (a / "CLAUDE.local.md").write_text(NOTE)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    return a, b


Pair = tuple[World, tuple[Path, Path]]  # a world, its clones a and b


@pytest.fixture(scope="module")
def _pair(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    """`two_clones` built once for the module (#23)."""
    return built_once(tmp_path_factory, _remote_template, "two-clones", two_clones)


@pytest.fixture
def pair(_pair: Pristine, monkeypatch: pytest.MonkeyPatch) -> Pair:
    world = _pair.fresh(monkeypatch)
    return world, (world.root / "a", world.root / "b")


@pytest.mark.slow
def test_claude_local_md_reaches_the_other_clone_encrypted(pair: Pair) -> None:
    world, (a, b) = pair
    assert (b / "CLAUDE.local.md").read_text() == NOTE
    assert STORED in personal_paths(world.remote)
    dump = remote_objects(world.remote)
    assert b"heliotrope-walrus" not in dump and b"CLAUDE.local" not in dump
    names = world.git("ls-tree", "-r", "--name-only", USER_REF, cwd=world.remote).split()
    assert ".root" not in " ".join(names), "the plaintext path never reaches the remote"
    for clone in (a, b):  # never shows in git status, never committed by `git add -A`
        assert "/CLAUDE.local.md" in (clone / ".git" / "info" / "exclude").read_text()
        assert world.git("status", "--porcelain", cwd=clone) == ""
    # no agent folder appears for it in the local scope's folder
    assert not (b / ".claude" / "agent-memory-local" / ".root").exists()


@pytest.mark.slow
def test_concurrent_edits_of_claude_local_md_merge(pair: Pair) -> None:
    world, (a, b) = pair
    (a / "CLAUDE.local.md").write_text(NOTE + "- from a: port 8443\n")
    (b / "CLAUDE.local.md").write_text("- from b: use uv\n" + NOTE)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")  # b's edit was made since its last sync: merged, not replaced
    world.ok("-C", str(a), "sync")
    for clone in (a, b):
        text = (clone / "CLAUDE.local.md").read_text()
        assert "from a: port 8443" in text and "from b: use uv" in text and "heliotrope" in text
    assert (a / "CLAUDE.local.md").read_bytes() == (b / "CLAUDE.local.md").read_bytes()


@pytest.mark.slow
def test_deleting_claude_local_md_propagates_and_a_symlink_is_never_followed(
    pair: Pair,
) -> None:
    world, (a, b) = pair
    secret = world.root / "outside-secret.txt"
    secret.write_text("ssh-private: do-not-publish\n")
    # a link in place of the file: skipped with a note, never read, never written through
    (b / "CLAUDE.local.md").unlink()
    (b / "CLAUDE.local.md").symlink_to(secret)
    run = world.gitmem("-C", str(b), "sync")
    assert run.code == 0, run.err
    assert "CLAUDE.local.md" in run.out + run.err and "symbolic link" in run.out + run.err
    (a / "CLAUDE.local.md").write_text(NOTE + "- newer\n")
    world.ok("-C", str(a), "sync")
    run = world.gitmem("-C", str(b), "sync")
    assert run.code == 0 and "kept changing" not in run.out, run.out + run.err
    assert "CLAUDE.local.md (a symbolic link is there: not written; move the link away" in run.err
    assert secret.read_text() == "ssh-private: do-not-publish\n", "written through a link"
    assert os.path.islink(b / "CLAUDE.local.md")
    assert b"do-not-publish" not in remote_objects(world.remote)
    # skipped is never published as deleted: a still has the file
    world.ok("-C", str(a), "sync")
    assert (a / "CLAUDE.local.md").read_text() == NOTE + "- newer\n"
    # a real deletion is a deletion
    (b / "CLAUDE.local.md").unlink()
    (b / "CLAUDE.local.md").write_text(NOTE + "- newer\n")
    world.ok("-C", str(b), "sync")
    (a / "CLAUDE.local.md").unlink()
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    assert not (b / "CLAUDE.local.md").exists()


def test_claude_local_md_tracked_on_the_branch_is_left_to_git(world: World) -> None:
    a = world.clone("a")
    (a / "CLAUDE.local.md").write_text("committed on purpose\n")
    world.git("add", "CLAUDE.local.md", cwd=a)
    world.git("commit", "-q", "-m", "tracked", cwd=a)
    world.ok("-C", str(a), "sync")
    assert STORED not in personal_paths(a)


@pytest.mark.slow
def test_status_log_diff_and_restore_know_claude_local_md(pair: Pair) -> None:
    world, (a, _) = pair
    local = json.loads(world.ok("-C", str(a), "status", "--json"))
    row = next(s for s in local["scopes"] if s["name"] == "local")
    assert row["files"] == 1 and row["changed"] == 0
    (a / "CLAUDE.local.md").write_text(NOTE + "- second\n")
    row = next(
        s
        for s in json.loads(world.ok("-C", str(a), "status", "--json"))["scopes"]
        if s["name"] == "local"
    )
    assert row["changed"] == 1
    assert "+- second" in world.ok("-C", str(a), "diff", "--path", "CLAUDE.local.md")
    world.ok("-C", str(a), "sync")
    for name in ("CLAUDE.local.md", str(a / "CLAUDE.local.md"), STORED):
        log = world.ok("-C", str(a), "log", name)
        assert len([line for line in log.splitlines() if line.strip()]) >= 2, log
    assert "+- second" in world.ok("-C", str(a), "diff", "~1", "--path", "CLAUDE.local.md")
    world.ok("-C", str(a), "restore", "CLAUDE.local.md", "--at", "~1")
    assert (a / "CLAUDE.local.md").read_text() == NOTE


@pytest.mark.slow
def test_output_names_claude_local_md_as_the_user_knows_it(world: World) -> None:
    """sync, diff, log and their errors say CLAUDE.local.md, never its place in the ref."""
    a, b = world.clone("a"), world.clone("b")
    (a / "CLAUDE.local.md").write_text(NOTE)
    outputs = [world.ok("-C", str(a), "sync")]
    assert "  A CLAUDE.local.md\n" in outputs[-1]
    outputs.append(world.ok("-C", str(b), "sync"))
    assert "  < A CLAUDE.local.md (by Test User)\n" in outputs[-1]
    (a / "CLAUDE.local.md").write_text(NOTE + "- a: port 8443\n")
    (b / "CLAUDE.local.md").write_text(NOTE + "- b: port 9000\n")
    outputs.append(world.ok("-C", str(a), "diff"))
    assert "+++ b/CLAUDE.local.md\n" in outputs[-1]
    outputs.append(world.ok("-C", str(a), "sync"))
    outputs.append(world.ok("-C", str(b), "sync"))  # both edited one line: a resolution
    assert "resolved CLAUDE.local.md" in outputs[-1], outputs[-1]
    outputs.append(world.ok("-C", str(a), "sync"))  # the loser is told, by the name it knows
    outputs.append(world.ok("-C", str(a), "log", "CLAUDE.local.md"))
    assert "resolved CLAUDE.local.md" in outputs[-1], outputs[-1]
    outputs.append(world.ok("-C", str(a), "diff", "~2", "--path", "CLAUDE.local.md"))
    assert "--- a/CLAUDE.local.md\n" in outputs[-1]
    lost = world.gitmem("-C", str(a), "restore", "CLAUDE.local.md", "--at", "~99")
    assert lost.code == 2
    outputs.append(lost.err)
    assert all(STORED not in text and ".root" not in text for text in outputs), outputs


def test_shown_diff_renames_headers_never_content() -> None:
    from gitmem.project.scopes import shown_diff

    text = (
        f"diff --git a/{STORED} b/{STORED}\n--- a/{STORED}\n+++ b/{STORED}\n"
        f"@@ -1 +1 @@\n-see {STORED}\n+{STORED} is where it lives\n"
    )
    assert shown_diff(text) == (
        "diff --git a/CLAUDE.local.md b/CLAUDE.local.md\n--- a/CLAUDE.local.md\n"
        f"+++ b/CLAUDE.local.md\n@@ -1 +1 @@\n-see {STORED}\n+{STORED} is where it lives\n"
    )


def test_status_in_a_linked_worktree_says_which_claude_local_md_is_synced(world: World) -> None:
    a = world.clone("a")
    (a / "CLAUDE.local.md").write_text(NOTE)
    wt = world.root / "a-wt"
    world.git("worktree", "add", "-q", str(wt), "-b", "wt", cwd=a)
    link = f"ln -s {a / 'CLAUDE.local.md'} {wt / 'CLAUDE.local.md'}"
    assert link in world.ok("-C", str(wt), "status")
    assert "CLAUDE.local.md" not in world.ok("-C", str(a), "status")  # the main one: synced
    (wt / "CLAUDE.local.md").write_text("this worktree's own\n")
    out = world.ok("-C", str(wt), "status")
    assert (
        f"{wt / 'CLAUDE.local.md'} is not synced" in out and link not in out
    )  # its lines are kept: cat >> first
    (wt / "CLAUDE.local.md").unlink()
    (wt / "CLAUDE.local.md").symlink_to(a / "CLAUDE.local.md")
    assert "CLAUDE.local.md" not in world.ok("-C", str(wt), "status")
    world.ok("-C", str(wt), "sync")  # the link is the user's: never read as a file, never written
    assert os.path.islink(wt / "CLAUDE.local.md") and (a / "CLAUDE.local.md").read_text() == NOTE


def bare_with_worktrees(world: World) -> tuple[Path, Path, Path]:
    """A bare clone of the remote and two linked worktrees of it, `one` (main) and `two`."""
    bare = world.root / "project.git"
    world.git("clone", "-q", "--bare", str(world.remote), str(bare))
    one, two = world.root / "one", world.root / "two"
    world.git("worktree", "add", "-q", str(one), "main", cwd=bare)
    world.git("worktree", "add", "-q", str(two), "-b", "two", cwd=bare)
    return bare, one, two


def test_in_a_worktree_of_a_bare_repository_its_own_settings_move_the_auto_folder(
    world: World,
) -> None:
    """Claude Code reads autoMemoryDirectory from the worktree's .claude/settings.json, never
    the bare repository's (the real client, 2.1.330)."""
    bare, _, two = bare_with_worktrees(world)
    moved = world.root / "two-memory"
    trusted = {"projects": {str(p): {"hasTrustDialogAccepted": True} for p in (two, bare)}}
    (world.home / ".claude.json").write_text(json.dumps(trusted))
    for where, folder in ((bare, world.root / "never-read"), (two, moved)):
        (where / ".claude").mkdir()
        settings = {"autoMemoryDirectory": str(folder)}
        (where / ".claude" / "settings.json").write_text(json.dumps(settings))
    assert world.scope_path(two) == moved


def test_worktrees_of_a_bare_repository_each_sync_their_own_in_tree_memory(
    world: World,
) -> None:
    """A bare repository has no main worktree: in each linked worktree Claude Code reads that
    worktree's CLAUDE.local.md and .claude/ folders (the real client, 2.1.330; the auto folder
    stays keyed by the bare repository), so gitmem syncs those — never folders inside the bare
    repository, which nothing reads."""
    bare, one, two = bare_with_worktrees(world)
    scopes = {
        wt: {
            s["name"]: Path(s["path"])
            for s in json.loads(world.ok("-C", str(wt), "status", "--json"))["scopes"]
        }
        for wt in (one, two)
    }
    for wt in (one, two):
        assert scopes[wt]["agents"] == wt / ".claude" / "agent-memory"
        assert scopes[wt]["local"] == wt / ".claude" / "agent-memory-local"
    assert scopes[one]["auto"] == scopes[two]["auto"] == world.scope_path(bare)
    (one / "CLAUDE.local.md").write_text(NOTE)
    write_files(one / ".claude/agent-memory/reviewer", {"MEMORY.md": "- review the migrations\n"})
    world.ok("-C", str(one), "sync")
    world.ok("-C", str(two), "sync")
    assert (two / "CLAUDE.local.md").read_text() == NOTE
    assert (two / ".claude/agent-memory/reviewer/MEMORY.md").read_text() == (
        "- review the migrations\n"
    )
    assert not (bare / ".claude").exists() and not (bare / "CLAUDE.local.md").exists()
    assert "ln -s" not in world.ok("-C", str(two), "status")  # nothing to link: it is synced
    assert "/CLAUDE.local.md" in (bare / "info" / "exclude").read_text()


@pytest.mark.slow
def test_local_memory_committed_on_the_branch_is_left_to_git(world: World) -> None:
    """Files under .claude/agent-memory-local/ that the branch tracks are git's: gitmem never
    writes over them (as for .claude/agent-memory/), and status says why."""
    a = world.clone("a")
    write_files(a / ".claude/agent-memory-local/reviewer", {"MEMORY.md": "from this machine\n"})
    world.ok("-C", str(a), "sync")
    b = world.clone("b")
    committed = b / ".claude" / "agent-memory-local" / "reviewer"
    committed.mkdir(parents=True)
    (committed / "MEMORY.md").write_text("committed on the branch\n")
    world.git("add", "-f", ".claude/agent-memory-local", cwd=b)
    world.git("commit", "-qm", "local memory committed", cwd=b)
    world.ok("-C", str(b), "sync")
    assert (committed / "MEMORY.md").read_text() == "committed on the branch\n"
    assert world.git("status", "--porcelain", cwd=b) == ""
    row = next(
        s
        for s in json.loads(world.ok("-C", str(b), "status", "--json"))["scopes"]
        if s["name"] == "local"
    )
    assert row["synced"] is False and "tracked on the branch" in row["note"], row
    assert personal_paths(world.remote) >= {"local/reviewer/MEMORY.md"}  # a's stays on the ref
