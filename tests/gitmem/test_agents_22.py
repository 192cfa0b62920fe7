"""Round 22: a sync says truthfully what happened to Gemini's GEMINI.md, of which only the
`## Gemini Added Memories` section is memory (docs/agents.md, round 22)."""

from __future__ import annotations

from pathlib import Path

from tests.support.personal import same_identity, two_machines_one_hub
from tests.support.world import write_files

HEADER = "## Gemini Added Memories\n"
ADDED = "its Gemini Added Memories section added; the rest of the file not synced"
REMOVED = "its Gemini Added Memories section removed; the rest kept"


def test_the_section_added_or_removed_is_said_so_of_a_file_that_stays(tmp_path: Path) -> None:
    """Was: `D ~/.gemini/GEMINI.md` on both machines when the section was removed, of a file
    still there with the user's own instructions (and `A` of a file that was there before).
    A file that was the section alone is still told `D`, plainly: it is gone."""
    a, b, _ = two_machines_one_hub(tmp_path, "claude,gemini")
    gemini_a, gemini_b = a.home / ".gemini/GEMINI.md", b.home / ".gemini/GEMINI.md"
    write_files(a.home / ".gemini", {"GEMINI.md": "# mine\n\n" + HEADER + "- one\n"})
    assert f"  A ~/.gemini/GEMINI.md ({ADDED})\n" in a.ok("sync", "--user")
    same_identity(a, b)
    write_files(b.home / ".gemini", {"GEMINI.md": "# b's own\n"})
    assert f"  < A ~/.gemini/GEMINI.md ({ADDED}; by Test User)\n" in b.ok("sync", "--user")
    gemini_a.write_text("# mine\n")
    assert f"  D ~/.gemini/GEMINI.md ({REMOVED})\n" in a.ok("sync", "--user")
    assert f"  < D ~/.gemini/GEMINI.md ({REMOVED}; by Test User)\n" in b.ok("sync", "--user")
    assert gemini_b.read_text().startswith("# b's own\n") and HEADER not in gemini_b.read_text()
    # a file that held the section alone: gone, and told so plainly
    gemini_a.write_text(HEADER + "- two\n")
    a.ok("sync", "--user")
    gemini_a.unlink()
    assert "  D ~/.gemini/GEMINI.md\n" in a.ok("sync", "--user")


def test_a_lost_edit_of_the_section_is_listed_shown_and_brought_back_into_it(
    tmp_path: Path,
) -> None:
    """Was: the sync said `gitmem lost 1 shows it, gitmem restore --lost 1 brings it back` of
    an edit of ~/.gemini/GEMINI.md that `gitmem lost` never listed (it read the project's refs
    only: "no lost edits", or another edit numbered 1). `gitmem lost --user` lists the user
    scope's, from any folder; what it shows is the section's versions, and the edit goes back
    into the section, the user's own part of the file as it is now."""
    a, b, _ = two_machines_one_hub(tmp_path, "claude,gemini")
    gemini_a = a.home / ".gemini/GEMINI.md"
    write_files(a.home / ".gemini", {"GEMINI.md": "# mine\n\n" + HEADER + "- deploy with fly\n"})
    a.ok("sync", "--user")
    same_identity(a, b)
    b.ok("sync", "--user")
    gemini_a.write_text("# mine\n\n" + HEADER + "- deploy with fly from a\n")
    (b.home / ".gemini/GEMINI.md").write_text("# b's own\n\n" + HEADER + "- deploy from b\n")
    told = a.ok("sync", "--user") + b.ok("sync", "--user") + a.ok("sync", "--user")
    assert (
        "gitmem lost --user gemini:1 shows it, gitmem restore --user --lost gemini:1 brings it back"
        in told
    ), told
    listed = a.ok("lost", "--user", cwd=tmp_path)
    assert "gemini:1  " in listed and "~/.gemini/GEMINI.md (lines 2-2)" in listed, listed
    shown = a.ok("lost", "--user", "1", cwd=tmp_path)
    lost_line = next(ln for ln in shown.splitlines() if ln.startswith("+- deploy"))[1:]
    assert "mine" not in shown and "b's own" not in shown, shown  # the section's lines only
    # the log names the merge's decision as it names the file (was: local/gemini/.root/…)
    logged = a.ok("log", "user-gemini/GEMINI.md", cwd=tmp_path)
    assert "    resolved user-gemini/GEMINI.md lines 2-2: " in logged and ".root" not in logged
    a.make_remote()
    assert "no lost edits" in a.ok("lost", cwd=a.clone("shop"))  # the project's: none
    mine = "# mine, edited since\n\n"
    now = HEADER + gemini_a.read_text().split(HEADER, 1)[1] + "- later\n"
    gemini_a.write_text(mine + now)
    assert "brought back lost edit gemini:1 (~/.gemini/GEMINI.md lines 2-2)" in a.ok(
        "restore", "--user", "--lost", "1", cwd=tmp_path
    )
    after = gemini_a.read_text()
    assert after.startswith(mine + HEADER) and lost_line + "\n" in after, after
    assert after.endswith("- later\n"), after
    assert a.gitmem("lost", "--user", "2", cwd=tmp_path).code == 2
