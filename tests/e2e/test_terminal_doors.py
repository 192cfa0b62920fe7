"""Every door that prints outside text goes through the one sanitizer (gitmem/core/sanitize.py):
a ref's contents in `diff`, a server's `remote:` text in a refused push, names in validate's
JSON. Escape sequences (OSC window title and clipboard write, CSI clear screen), bidi controls
and Unicode tags come out escaped, never raw."""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

from tests.e2e.test_validate import TEAM, _synced, add_to_team, synced
from tests.support.world import TOPIC, World

__all__ = ["_synced", "synced"]

OSC = "\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J"


def _raw_controls(text: str) -> list[str]:
    return [
        c
        for c in text
        if (unicodedata.category(c) in ("Cc", "Cf") and c not in "\n\t") or ord(c) >= 0xE0000
    ]


def test_diff_shows_a_refs_escape_sequences_escaped(synced: tuple[World, Path]) -> None:
    """(A ref gitmem wrote never holds them — push skips such a file and pull refuses such a
    tree, GM112 — but history written before, or by hand, can.)"""
    world, clone = synced
    before = world.git("rev-parse", TEAM, cwd=clone).strip()
    hidden = add_to_team(world, clone, "x.md", f"{TOPIC}deploy{OSC}\u202eevil\n".encode())
    world.git("update-ref", TEAM, hidden, cwd=clone)
    out = world.ok("-C", str(clone), "diff", before)
    assert "\\033]0;pwned\\007" in out and "\\342\\200\\256evil" in out, out
    assert not _raw_controls(out), out


def test_a_servers_remote_text_is_escaped_in_the_error(world: World) -> None:
    a = world.clone("a")
    hook = world.remote / "hooks" / "pre-receive"
    shown = OSC.replace("\x1b", "\\033").replace("\x07", "\\007")
    hook.write_text("#!/bin/sh\nprintf '" + shown + " no\\n' >&2\nexit 1\n")
    os.chmod(hook, 0o755)
    auto = world.scope_path(a, "auto")
    auto.mkdir(parents=True, exist_ok=True)
    (auto / "MEMORY.md").write_text("- a note\n")
    run = world.gitmem("-C", str(a), "push")
    assert run.code != 0, run.out + run.err
    assert "\\033]0;pwned" in run.err, run.err
    assert not _raw_controls(run.out + run.err), run.err


def test_validate_json_stays_json_with_hidden_names(synced: tuple[World, Path]) -> None:
    world, clone = synced
    name = "read\u202eme\u200b.md"
    bad = add_to_team(world, clone, name, (TOPIC + "x\u200by\n").encode())
    run = world.gitmem("-C", str(clone), "validate", "--format", "json", "--as", TEAM, bad)
    assert not _raw_controls(run.out), run.out
    paths = {f["path"] for r in json.loads(run.out)["refs"] for f in r["findings"]}
    assert f"team/{name}" in paths  # the same value, escaped as JSON spells it
    text = world.gitmem("-C", str(clone), "validate", "--as", TEAM, bad)
    assert not _raw_controls(text.out) and "read\\342\\200\\256me" in text.out, text.out
