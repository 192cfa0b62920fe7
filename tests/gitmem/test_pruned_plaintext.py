"""The plaintext of an encrypted file is reached by no ref (the ref holds ciphertext): it is
kept among gitmem's private objects (`<common-dir>/gitmem/objects`, red team 15), which the
user may clear like any cache; a sync that needs it decrypts it again from the ciphertext."""

from __future__ import annotations

import shutil
from pathlib import Path

from gitmem.cli import main
from gitmem.project.state import load_scope_state
from tests.support.world import World


def _prune_plaintext(clone: Path) -> int:
    """Delete the private plaintext blobs the sync state names (a cleared state folder)."""
    objects = clone / ".git" / "gitmem" / "objects"
    gone = 0
    for record in load_scope_state(clone / ".git", "auto").files.values():
        loose = objects / record.oid[:2] / record.oid[2:]
        if loose.exists():
            loose.unlink()
            gone += 1
    return gone


def test_a_merge_reads_a_pruned_plaintext_back_from_its_ciphertext(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a), world.scope_path(b)
    da.mkdir(parents=True)
    (da / "MEMORY.md").write_text("# Memory\n- [note](note.md)\n")
    (da / "note.md").write_text("one\ntwo\nthree\nfour\nfive\n")
    assert main(["-C", str(a), "sync", "-q"]) == 0
    assert main(["-C", str(b), "sync", "-q"]) == 0
    assert (db / "note.md").read_text() == "one\ntwo\nthree\nfour\nfive\n"
    (db / "note.md").write_text("one from b\ntwo\nthree\nfour\nfive\n")
    assert main(["-C", str(b), "sync", "-q"]) == 0
    assert _prune_plaintext(a) >= 2
    (da / "note.md").write_text("one\ntwo\nthree\nfour\nfive from a\n")
    assert main(["-C", str(a), "sync", "-q"]) == 0  # the merge base was pruned
    assert (da / "note.md").read_text() == "one from b\ntwo\nthree\nfour\nfive from a\n"
    assert main(["-C", str(b), "sync", "-q"]) == 0
    assert (db / "note.md").read_text() == (da / "note.md").read_text()


def test_a_wiped_folder_comes_back_though_its_plaintext_was_pruned(world: World) -> None:
    """Every file is written back from the ref: each cached plaintext is read, none exists."""
    a = world.clone("a")
    da = world.scope_path(a)
    da.mkdir(parents=True)
    files = {"MEMORY.md": "# Memory\n- [n](note.md)\n", "note.md": "kept\n", "x/y.md": "deep\n"}
    for name, text in files.items():
        (da / name).parent.mkdir(parents=True, exist_ok=True)
        (da / name).write_text(text)
    assert main(["-C", str(a), "sync", "-q"]) == 0
    assert _prune_plaintext(a) == len(files)
    shutil.rmtree(da)
    assert main(["-C", str(a), "sync", "-q"]) == 0
    assert {p: (da / p).read_text() for p in files} == files
