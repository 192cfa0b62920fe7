"""A new machine of one person with a hub (gitmem.hub): its first sync asked for two grants,
`gitmem key grant` for the project's personal memory and `gitmem key grant --user` for the
user-scope memory the same sync carries, and a newcomer who ran the first was still locked out
of the second. Both are the person's own: one `gitmem key grant` grants both (and a revoke
takes both back)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.world import World, write_files


def test_one_grant_opens_the_personal_and_the_user_scope_memory(tmp_path: Path) -> None:
    hub = tmp_path / "hub.git"
    desk, laptop = World(tmp_path / "desk"), World(tmp_path / "laptop")
    desk.make_remote()
    desk.git("init", "-q", "--bare", str(hub))
    for w in (desk, laptop):
        w.git("config", "--global", "gitmem.hub", str(hub))
    here = desk.clone("p")
    write_files(desk.scope_path(here), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "b\n"})
    write_files(desk.home / ".claude", {"CLAUDE.md": "- claude on the desk\n"})
    desk.ok("-C", str(here), "sync")  # the project's personal ref and the user scope, to the hub
    there = laptop.clone("p", url=str(desk.remote))

    asked = laptop.gitmem("-C", str(there), "sync").out
    (recipient,) = set(re.findall(r"gitmem key grant '([^']+)'", asked))
    # the project's ask says the one grant is enough (the user scope's is still named alone)
    assert f"gitmem key grant '{recipient}' (your user-scope memory too: one grant)" in asked

    granted = desk.ok("-C", str(here), "key", "grant", recipient)  # the first one alone
    assert "user claude: grant " in granted, granted  # the user scope's, said
    desk.ok("-C", str(here), "sync")
    run = laptop.gitmem("-C", str(there), "sync")
    assert run.code == 0 and "key grant" not in run.out + run.err, run.out + run.err
    assert (laptop.scope_path(there) / "b.md").read_text() == "b\n"
    assert (laptop.home / ".claude" / "CLAUDE.md").read_text() == "- claude on the desk\n"

    desk.ok("-C", str(here), "key", "revoke", recipient)  # and both taken back at once
    listed = desk.ok("key", "list", "--user") + desk.ok("-C", str(here), "key", "list")
    assert recipient not in listed, listed
