"""The words a sync tells a lost edit with (gitmem/history/lost.py): the machine read from
every subject gitmem writes, a tie said plainly, the commands named."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitmem.history.lost import Loss, Writer, made_on, plainly


@pytest.mark.parametrize(
    ("subject", "host"),
    [
        ("gitmem: 2 files changed on laptop-a", "laptop-a"),
        ("gitmem: 1 file changed on ci", "ci"),
        ("gitmem: merge origin/refs/gitmem/team on desk", "desk"),
        ("gitmem: 1 file edited during the sync on desk", "desk"),
        ("gitmem: encrypt the personal ref on desk (3 changed)", "desk"),
        ("gitmem: encrypt the personal ref on desk", "desk"),
        ("Merge branch 'x' on desk", ""),  # not gitmem's: no machine claimed
        ("gitmem: restored by hand", ""),
        ("gitmem: 1 file changed on " + "h" * 500, "h" * 64),
    ],
)
def test_the_machine_is_read_from_every_subject_gitmem_writes(subject: str, host: str) -> None:
    assert made_on(subject) == host


ANA = Writer("a" * 40, "Ana", "laptop-a")
BO = Writer("b" * 40, "Bo", "desk")
ME = Writer("c" * 40, "Cy", "box", here=True)


def test_a_lost_line_names_the_writer_the_winner_and_both_commands() -> None:
    loss = Loss("lost", "refs/gitmem/team", "m" * 40, "team/x.md", "lines 3-4", "newer", ANA, BO, 7)
    assert loss.text() == (
        "team/x.md (lines 3-4) — the edit by Ana on laptop-a lost to the version by Bo on desk "
        "(newer); gitmem lost 7 shows it, gitmem restore --lost 7 brings it back"
    )
    mine = Loss("lost", "refs/gitmem/team", "m" * 40, "team/x.md", "file", "tie-break", ME, BO)
    assert mine.text().startswith("team/x.md — the edit by you (Cy) here lost to")
    assert "tie-break" not in mine.text() and "a tie: same confidence, same date" in mine.text()
    assert "gitmem log team/x.md shows it" in mine.text()  # no number: the log still has it
    assert (
        mine.as_json()["restore"] is None and loss.as_json()["restore"] == "gitmem restore --lost 7"
    )


def test_a_deleter_is_told_here_or_by_name() -> None:
    here = Loss("kept", "r", "m", "auto/x.md", "file", "modified beats deleted", ME, BO)
    assert here.text().startswith("auto/x.md — deleted here, edited by Bo on desk: the edit is")
    there = Loss(
        "kept", "r", "m", "auto/MEMORY.md", "entry x.md", "modified beats deleted", ANA, BO
    )
    assert "(entry x.md) — deleted by Ana on laptop-a, edited by Bo on desk" in there.text()
    assert "gitmem log auto/MEMORY.md shows both" in there.text()


@pytest.mark.parametrize("why", ["tie-break", "greater bytes"])
def test_a_resolution_by_tie_is_saidplainly(why: str) -> None:
    said = plainly(f"auto/x.md lines 3-3: theirs ({why})")
    assert said.startswith("auto/x.md lines 3-3: theirs (a tie: same confidence, same date")
    assert plainly("auto/x.md lines 3-3: ours (newer)") == "auto/x.md lines 3-3: ours (newer)"


@given(
    host=st.text(
        st.characters(blacklist_categories=("Zs", "Zl", "Zp", "Cc", "Cs")), min_size=1, max_size=90
    ),
    count=st.integers(0, 10_000),
    tail=st.sampled_from(["", " (3 changed)"]),
)
def test_any_machine_name_gitmem_writes_is_read_back_bounded(
    host: str, count: int, tail: str
) -> None:
    subject = f"gitmem: {count} files changed on {host}{tail}"
    assert made_on(subject) == host[:64]


@given(st.text(max_size=80), st.sampled_from(["ours", "theirs", "both"]), st.text(max_size=20))
def test_only_a_tie_is_reworded(what: str, side: str, why: str) -> None:
    resolution = f"{what}: {side} ({why})"
    said = plainly(resolution)
    if why in ("tie-break", "greater bytes"):
        assert (
            said
            == f"{what}: {side} (a tie: same confidence, same date; every machine keeps the same one of the two)"
        )
    else:
        assert said == resolution
