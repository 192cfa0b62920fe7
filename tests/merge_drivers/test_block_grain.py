"""Inside the block tree, the block's own grain decides (issue 24): a section one side deleted
keeps its heading when the other side's edit in it stays (and the deleter is told), a nested
list merges item by item, and moves of nested items land moved and edited."""

from __future__ import annotations

import pytest

from merge_drivers import merge_file

from .test_block_merges import three_ways
from .test_fine_merges import FM, PATH, merged

DOC = "# Notes\n\n## Build\n\n### Flags\n\nuse -j8\n\nand ccache\n\n## Test\n\nrun pytest\n"


@pytest.mark.parametrize(
    ("deleted", "edited", "want"),
    [
        (  # a whole section deleted, one paragraph of it edited
            DOC.replace("## Build\n\n### Flags\n\nuse -j8\n\nand ccache\n\n", ""),
            DOC.replace("use -j8", "use -j16"),
            "## Build\n\n### Flags\n\nuse -j16\n\n## Test",
        ),
        (  # a sub-section deleted, its last paragraph edited
            DOC.replace("### Flags\n\nuse -j8\n\nand ccache\n\n", ""),
            DOC.replace("and ccache", "and sccache"),
            "## Build\n\n### Flags\n\nand sccache\n\n## Test",
        ),
    ],
)
def test_a_deleted_section_keeps_its_heading_over_the_edit_that_undid_it(
    deleted: str, edited: str, want: str
) -> None:
    """The edit stays where it was written, under its own headings (before: the heading went
    with the deletion and the edited paragraph stood under the section before it), and the
    merge names the editor's side as "modified beats deleted" — the deleter's `kept:` line."""
    out, notes = merged(FM + DOC, FM + deleted, FM + edited)
    assert want in out, out
    assert out.count("## Build") == 1 and "use -j8" not in out
    assert any(n.endswith("theirs (modified beats deleted)") for n in notes), notes
    swapped = merge_file(PATH, (FM + DOC).encode(), (FM + edited).encode(), (FM + deleted).encode())
    assert [r.winner for r in swapped.resolutions if r.reason == "modified beats deleted"] == [
        "ours"
    ]


def test_a_deleted_section_with_nothing_edited_in_it_goes_quietly() -> None:
    deleted = DOC.replace("## Build\n\n### Flags\n\nuse -j8\n\nand ccache\n\n", "")
    out, notes = merged(FM + DOC, FM + deleted, FM + DOC.replace("run pytest", "run pytest -x"))
    assert "## Build" not in out and "use -j8" not in out and "run pytest -x" in out
    assert not notes


def test_three_replicas_converge_on_a_deleted_section_edited_elsewhere() -> None:
    deleted = DOC.replace("## Build\n\n### Flags\n\nuse -j8\n\nand ccache\n\n", "")
    results = three_ways(
        DOC, deleted, DOC.replace("use -j8", "use -j16"), DOC.replace("run pytest", "run tox")
    )
    assert len(results) == 1, results
    (out,) = results
    assert b"## Build\n\n### Flags\n\nuse -j16\n\n## Test\n\nrun tox\n" in out
