"""The new doors attacked: adopt --folder on a folder that is not all memory."""

from __future__ import annotations

import os
from pathlib import Path

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
    world.git("config", "gitmem.agents", "claude,cline,goose", cwd=a)
    run = world.gitmem("-C", str(a), "sync")
    assert run.code == 0 and "symbolic link" in run.err, run.err
    status = world.git("status", "--short", "--untracked-files=all", cwd=a)
    assert "wip/feature.py" in status and "drafts/feature.py" in status, status
    exclude = (a / ".git" / "info" / "exclude").read_text()
    assert "wip" not in exclude and "drafts" not in exclude
