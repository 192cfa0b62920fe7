"""Round 21: memory beyond one project and one agent, walked as a person would — two machines
(two HOMEs holding one identity), a hub that is a bare repository, the agents `gitmem.agents`
enables. What was wrong, each as a class, with the test that failed before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitmem.project.adapters import gemini_section, with_gemini_section
from tests.support.personal import remote_objects, same_identity, two_machines_one_hub
from tests.support.world import World, write_files

HEADER = "## Gemini Added Memories\n"


def test_the_gemini_section_is_cut_and_put_back_leaving_every_other_byte() -> None:
    files = [
        b"",
        b"# mine\n",
        HEADER.encode() + b"- a\n",
        b"# x\n\n" + HEADER.encode() + b"- a\n\n## Other\nkeep\n",
        b"no newline" + HEADER.encode().rstrip(),
    ]
    for data in files:
        assert with_gemini_section(data, gemini_section(data)) == data
    mine = b"# x\n\n" + HEADER.encode() + b"- a\n\n## Other\nkeep\n"
    assert gemini_section(mine) == HEADER.encode() + b"- a\n\n"
    assert with_gemini_section(mine, HEADER.encode() + b"- a\n- b") == (
        b"# x\n\n" + HEADER.encode() + b"- a\n- b\n## Other\nkeep\n"
    )
    assert with_gemini_section(mine, b"") == b"# x\n\n## Other\nkeep\n"
    # appended as save_memory appends it: a blank line before the header
    assert with_gemini_section(b"# mine\n", HEADER.encode()) == b"# mine\n\n" + HEADER.encode()


def test_only_geminis_own_section_travels_the_rest_of_each_file_stays_byte_for_byte(
    tmp_path: Path,
) -> None:
    """GEMINI.md is the user's instructions to Gemini with save_memory's section in it. Was:
    the whole file synced, so machine b's own instructions were concatenated with a's (a
    "both added" merge of two files), on both machines, and a's own words left the machine."""
    a, b, hub = two_machines_one_hub(tmp_path, "claude,gemini")
    mine_a = "# My own instructions\n\nBe terse.\n\n"
    mine_b = "# B's instructions\n\nBe verbose.\n"
    write_files(a.home / ".gemini", {"GEMINI.md": mine_a + HEADER + "- deploys via fly\n"})
    a.ok("sync", "--user")
    same_identity(a, b)
    write_files(b.home / ".gemini", {"GEMINI.md": mine_b})
    b.ok("sync", "--user")
    assert (b.home / ".gemini/GEMINI.md").read_text() == (
        mine_b + "\n" + HEADER + "- deploys via fly\n"
    )
    # both edit their own part and save a memory each
    mine_a2, mine_b2 = mine_a.replace("terse", "terse. Really"), mine_b.replace("ver", "VER")
    (a.home / ".gemini/GEMINI.md").write_text(mine_a2 + HEADER + "- deploys via fly\n- a\n")
    (b.home / ".gemini/GEMINI.md").write_text(mine_b2 + "\n" + HEADER + "- deploys via fly\n- b\n")
    a.ok("sync", "--user")
    b.ok("sync", "--user")
    a.ok("sync", "--user")
    section = HEADER + "- deploys via fly\n- b\n- a\n"
    assert (a.home / ".gemini/GEMINI.md").read_text() == mine_a2 + section
    assert (b.home / ".gemini/GEMINI.md").read_text() == mine_b2 + "\n" + section
    sealed = remote_objects(hub)
    assert b"Really" not in sealed and b"deploys" not in sealed  # nothing of it in the clear


def test_status_and_doctor_name_every_enabled_agents_folders_and_which_are_missing(
    tmp_path: Path,
) -> None:
    """Was: status listed the folders with no word of which exist, and doctor named Claude
    Code's project folders only (a goose folder never made read "ok … 0 files")."""
    w = World(tmp_path)
    w.git("config", "--global", "gitmem.agents", "claude,codex,gemini,goose,cline")
    w.make_remote()
    shop = w.clone("shop")
    write_files(shop, {"memory-bank/activeContext.md": "# Active\n"})
    write_files(w.home, {".codex/AGENTS.md": "# Rules\n"})
    found = json.loads(w.ok("status", "--json", cwd=shop))["agents"]
    missing = {Path(a["where"]).name: a["missing"] for a in found if a["agent"] != "claude"}
    assert missing == {
        "memories": True,
        "AGENTS.md": False,
        "GEMINI.md": True,
        "memory": True,  # .goose/memory and ~/.config/goose/memory, both not made
        "memory-bank": False,
    }
    assert "~/.codex/memories (not on this machine yet)" in w.ok("status", cwd=shop)
    told = w.gitmem("doctor", cwd=shop).out
    assert (
        "agent codex: Codex CLI keeps memory in ~/.codex/memories, ~/.codex/AGENTS.md; "
        "not on this machine yet: ~/.codex/memories\n"
    ) in told, told
    assert "agent cline: Cline keeps memory in memory-bank\n" in told
    assert "not on this machine yet: .goose/memory, ~/.config/goose/memory" in told
    assert "~/.gemini/GEMINI.md; not on this machine yet: ~/.gemini/GEMINI.md" in told


def test_a_resolution_on_the_disk_names_the_file_as_the_changes_beside_it(tmp_path: Path) -> None:
    """A file both machines made before the second one's first sync: the merge of the disk
    with the ref said `resolved .root/CLAUDE.md` (the store's name; a project adapter's file
    lost its `cline/`) while the lines beside it said `~/.claude/CLAUDE.md`."""
    a, b, _ = two_machines_one_hub(tmp_path, "claude")
    write_files(a.home / ".claude", {"CLAUDE.md": "# Me\n\n- from a\n"})
    a.ok("sync", "--user")
    same_identity(a, b)
    write_files(b.home / ".claude", {"CLAUDE.md": "# Me\n\n- from b\n"})
    out = b.ok("sync", "--user")
    assert "  resolved ~/.claude/CLAUDE.md lines " in out and ".root" not in out, out
    assert (b.home / ".claude/CLAUDE.md").read_text().count("- from ") == 2


def test_restoring_geminis_memory_puts_back_the_section_only(tmp_path: Path) -> None:
    """Was: restore compared the whole file with the section the ref holds ("has changes
    not synced yet") and, with --force, wrote the section over the whole file: the user's
    own instructions gone."""
    a, _, _ = two_machines_one_hub(tmp_path, "claude,gemini")
    gemini = a.home / ".gemini/GEMINI.md"
    mine = "# My own instructions\n\nBe terse.\n\n"
    write_files(a.home / ".gemini", {"GEMINI.md": mine + HEADER + "- first\n"})
    a.ok("sync", "--user")
    gemini.write_text(mine + HEADER + "- first\n- second\n")
    a.ok("sync", "--user")
    gemini.write_text(mine.replace("terse", "brief") + HEADER + "- first\n- second\n")
    a.ok("restore", "user-gemini/GEMINI.md", "--at", "~1", cwd=tmp_path)
    assert gemini.read_text() == mine.replace("terse", "brief") + HEADER + "- first\n"


def test_a_whole_gemini_file_an_older_gitmem_stored_writes_only_its_section(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before round 21 the hub stored the whole GEMINI.md. A machine on the new gitmem must
    write only that blob's section into its own file: spliced whole, machine a's own
    instructions were written into machine b's file (coordinator, round 21)."""
    import gitmem.project.adapters as adapters

    a, b, _ = two_machines_one_hub(tmp_path, "claude,gemini")
    write_files(
        a.home / ".gemini", {"GEMINI.md": "# A's rules\n\nBe terse.\n\n" + HEADER + "- t\n"}
    )
    with monkeypatch.context() as older:  # what the older gitmem stored: the file whole
        older.setattr(adapters, "gemini_section", lambda data: data)
        a.ok("sync", "--user")
    same_identity(a, b)
    write_files(b.home / ".gemini", {"GEMINI.md": "# B's rules\n"})
    b.ok("sync", "--user")
    mine = (b.home / ".gemini/GEMINI.md").read_text()
    assert "A's rules" not in mine and "Be terse" not in mine, mine
    assert mine == "# B's rules\n\n" + HEADER + "- t\n", mine
