"""The new doors attacked: adopt --folder on a folder that is not all memory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.world import World, write_files

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE\n-----END OPENSSH PRIVATE KEY-----\n"


def test_adopt_never_says_remove_a_folder_holding_what_it_skipped(
    world: World, tmp_path: Path
) -> None:
    a = world.clone("a")
    ssh = world.home / ".ssh"
    write_files(ssh, {"id_ed25519": KEY, "notes.md": "ssh notes\n"})
    old = tmp_path / "old folder's"  # a quote in the name: the suggested command stays one word
    write_files(old, {"MEMORY.md": "- [A](a.md) — a\n", "a.md": "a\n"})
    os.symlink(ssh, old / "keys")

    for folder, kept in ((ssh, "id_ed25519"), (old, "keys")):
        run = world.gitmem("-C", str(a), "adopt", "--folder", str(folder))
        assert run.code == 0, run.err
        assert "rm -r" not in run.out and "can be removed" not in run.out, run.out
        assert "keep the folder" in run.out and kept in run.out
    assert (ssh / "id_ed25519").read_text() == KEY

    clean = tmp_path / "it's clean"
    write_files(clean, {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "b\n"})
    out = world.ok("-C", str(a), "adopt", "--folder", str(clean))
    assert f"rm -r '{tmp_path}/it'\"'\"'s clean'" in out


def test_a_committed_link_as_an_adapter_folder_hides_nothing_from_git_status(
    world: World,
) -> None:
    """memory-bank -> wip, committed by the repository's author: the cline scope is refused,
    and its link's target (the user's own untracked work) stays visible to git status."""
    a = world.clone("a")
    for name, target in (("memory-bank", "wip"), (".goose", "drafts")):
        os.symlink(target, a / name)
        write_files(a / target, {"feature.py": "new work\n", "memory/x.txt": "x\n"})
    world.git("add", "memory-bank", ".goose", cwd=a)
    world.git("commit", "-qm", "links", cwd=a)
    world.ok("-C", str(a), "config", "agents", "claude,cline,goose")
    run = world.gitmem("-C", str(a), "sync")
    assert run.code == 0 and "symbolic link" in run.err, run.err
    status = world.git("status", "--short", "--untracked-files=all", cwd=a)
    assert "wip/feature.py" in status and "drafts/feature.py" in status, status
    exclude = (a / ".git" / "info" / "exclude").read_text()
    assert "wip" not in exclude and "drafts" not in exclude


TEAM = {"team/MEMORY.md": "- [Deploy](deploy.md) — how\n", "team/deploy.md": "Tuesdays.\n"}
AWS = b"id AKIAIOSFODNN7EXAMPLE key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"


@pytest.mark.parametrize(
    ("name", "data"),
    [("team/keys.md", AWS), ("team/read\u202eme.md", b"hidden name\n")],
    ids=["secret", "hidden-name"],
)
def test_a_bundle_whose_history_held_what_its_tip_removed_is_refused(
    world: World, name: str, data: bytes
) -> None:
    """A teammate's bundle: one commit adds a secret (or a hidden name), the next removes it.
    The tip is clean; taking the ref would put that commit into this clone's history and the
    next sync would publish it to a server that never had it."""
    a, b = world.clone("a"), world.clone("b")
    write_files(world.scope_path(a, "auto"), TEAM)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    before = world.plumb(b, "rev-parse", "refs/gitmem/team")
    tip = world.plumb(a, "rev-parse", "refs/gitmem/team")
    tree = world.plumb(a, "rev-parse", f"{tip}^{{tree}}")
    blob = world.plumb(a, "hash-object", "-w", "--stdin", data=data)
    team = world.plumb(a, "rev-parse", f"{tip}:team")
    listing = world.plumb(a, "ls-tree", team) + f"\n100644 blob {blob}\t{name.split('/')[1]}\n"
    bad_team = world.plumb(a, "mktree", data=listing.encode())
    top = world.plumb(a, "ls-tree", tree).replace(team, bad_team)
    bad_tree = world.plumb(a, "mktree", data=top.encode())
    added = world.plumb(a, "commit-tree", bad_tree, "-p", tip, "-m", "add", data=b"")
    removed = world.plumb(a, "commit-tree", tree, "-p", added, "-m", "remove", data=b"")
    world.git("update-ref", "refs/gitmem/team", removed, cwd=a)
    bundle = world.root / "evil.bundle"
    world.git("bundle", "create", str(bundle), "refs/gitmem/team", cwd=a)

    run = world.gitmem("-C", str(b), "bundle", "unbundle", str(bundle))
    assert run.code == 2 and "refusing refs/gitmem/team" in run.err, run.err
    assert added[:12] in run.err and "\u202e" not in run.err
    assert "wJalr" not in run.err  # the secret is never echoed
    assert world.plumb(b, "rev-parse", "refs/gitmem/team") == before
    world.ok("-C", str(b), "sync")
    server = world.git("--git-dir", str(world.remote), "rev-list", "refs/gitmem/team")
    assert added not in server


def test_adopt_refuses_the_memory_folder_of_another_live_checkout(world: World) -> None:
    """Another project on this machine (its checkout still there): its memory folder, or its
    team/ inside, is that project's, and its team/ would land in plaintext on this team ref."""
    a = world.clone("a")
    other = world.make_remote("other.git")
    b = world.clone("elsewhere/b", str(other))
    theirs = world.scope_path(b, "auto")
    write_files(theirs, {"MEMORY.md": "- [S](s.md) — s\n", "s.md": "their plan\n", **TEAM})
    for folder in (theirs, theirs / "team"):
        run = world.gitmem("-C", str(a), "adopt", "--folder", str(folder))
        assert run.code == 2 and str(b) in run.err, run.err
        assert len(run.err.splitlines()) == 2
    assert world.git("for-each-ref", "refs/gitmem", cwd=a) == ""  # nothing of theirs taken
