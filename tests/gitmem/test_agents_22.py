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
