"""Inside a hunk both sides changed, the finest grain that keeps both intents (issue 24): lines
for code (neighbouring lines both survive), items for ordered lists (renumbered after), cells
for tables, words for prose (a re-wrap is formatting). A winner only where both changed the
same element — and then a side that raised `confidence:` wins that element only."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import SideInfo, merge_file

from .conftest import examples

FM = "---\nname: release\ndescription: how we release\nconfidence: 0.5\n---\n"
SURE = FM.replace("0.5", "0.9")  # the side that also raised its confidence
PATH = ".claude/agent-memory/bot/release.md"


def merged(base: str, ours: str, theirs: str, path: str = PATH) -> tuple[str, list[str]]:
    """The merge, checked symmetric and idempotent (merging either side in again changes
    nothing)."""
    b, o, t = base.encode(), ours.encode(), theirs.encode()
    one, two = merge_file(path, b, o, t), merge_file(path, b, t, o)
    assert one.data == two.data
    assert one.data is not None
    for side in (o, t):
        assert merge_file(path, b, one.data, side).data == one.data
    return one.data.decode(), [str(r) for r in one.resolutions]


@pytest.mark.parametrize("fence", ["```", "~~~", "````"])
def test_edits_of_neighbouring_lines_of_a_code_fence_both_survive(fence: str) -> None:
    body = f"Release:\n\n{fence}sh\nmake test\nbump-version.sh patch\ngit push\n{fence}\n"
    out, notes = merged(
        FM + body,
        FM + body.replace("make test\n", "make test lint\n"),
        SURE + body.replace("patch", "minor"),
    )
    assert out == SURE + body.replace("make test\n", "make test lint\n").replace("patch", "minor")
    assert notes == []


def test_a_step_inserted_and_renumbered_and_another_step_edited_are_both_kept() -> None:
    body = "Steps:\n\n1. clone\n2. install\n3. run tests\n4. push\n"
    inserted = "Steps:\n\n1. clone\n2. configure\n3. install\n4. run tests\n5. push\n"
    out, _ = merged(FM + body, FM + inserted, FM + body.replace("3. run tests", "3. run tests -x"))
    assert out == FM + inserted.replace("4. run tests", "4. run tests -x")


def test_a_nested_list_item_and_its_parent_edited_on_two_sides() -> None:
    body = "- build\n  - make all\n  - make docs\n- ship\n"
    out, notes = merged(
        FM + body,
        FM + body.replace("- build\n", "- build (CI)\n"),
        FM + body.replace("make all", "make all -j8"),
    )
    assert out == FM + "- build (CI)\n  - make all -j8\n  - make docs\n- ship\n"
    assert notes == []


def test_two_cells_of_one_row_edited_on_two_sides_both_survive() -> None:
    body = "| tool | version | owner |\n|:-----|:-------:|------:|\n| ruff | 0.4 | ana |\n"
    out, notes = merged(
        FM + body,
        FM + body.replace("| 0.4 |", "| 0.5 |"),
        SURE + body.replace("| ana |", "| bo |"),
    )
    assert out == SURE + body.replace("| 0.4 |", "| 0.5 |").replace("| ana |", "| bo |")
    assert "|:-----|:-------:|------:|" in out and notes == []


def test_the_same_cell_edited_on_two_sides_goes_to_the_more_confident() -> None:
    body = "| tool | version |\n|---|---|\n| ruff | 0.4 |\n"
    out, notes = merged(
        FM + body, FM + body.replace("0.4", "0.5"), SURE + body.replace("0.4", "0.6")
    )
    assert "| ruff | 0.6 |" in out and "0.5" not in out
    assert len(notes) == 1 and "more confident" in notes[0]


def test_a_rewrapped_paragraph_keeps_the_other_sides_word_change() -> None:
    para = "The deploy script reads the token from the vault and retries three times.\n"
    wrapped = "The deploy script reads the token\nfrom the vault and retries three times.\n"
    out, notes = merged(FM + para, FM + wrapped, SURE + para.replace("three", "five"))
    assert out == SURE + wrapped.replace("three", "five")
    assert notes == []


def test_a_raised_confidence_wins_only_the_words_both_sides_changed() -> None:
    para = "Use port 8080 locally and port 9000 in staging.\n"
    out, notes = merged(
        FM + para,
        FM + para.replace("8080", "8081").replace("9000", "9001"),
        SURE + para.replace("9000", "9100").replace("locally", "on laptops"),
    )
    assert out == SURE + "Use port 8081 on laptops and port 9100 in staging.\n"
    assert len(notes) == 1


def test_cjk_and_emoji_words_merge_word_by_word() -> None:
    para = "今日は 良い 天気 です 🎉 then ship\n"
    out, _ = merged(FM + para, FM + para.replace("良い", "悪い"), FM + para.replace("🎉", "🚀"))
    assert out == FM + "今日は 悪い 天気 です 🚀 then ship\n"


def test_crlf_files_merge_at_the_finest_grain_and_stay_crlf() -> None:
    body = "```\nmake test\nbump-version.sh patch\n```\n"
    crlf = (FM + body).replace("\n", "\r\n")
    out, _ = merged(
        crlf,
        crlf.replace("make test", "make test lint"),
        crlf.replace("patch", "minor"),
    )
    assert out == crlf.replace("make test", "make test lint").replace("patch", "minor")


def test_neighbouring_line_edits_of_plain_text_files_both_survive() -> None:
    base = "alpha\nbeta\ngamma\n"
    out, _ = merged(base, "alpha 1\nbeta\ngamma\n", "alpha\nbeta 2\ngamma\n", "notes/log.txt")
    assert out == "alpha 1\nbeta 2\ngamma\n"


WORDS = [f"w{i}" for i in range(40)]


def _wrap(words: list[str], width: int) -> str:
    lines, line = [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    return "\n".join([*lines, line]) + "\n"


@settings(max_examples=examples())
@given(st.data())
def test_no_untouched_word_is_lost(data: st.DataObject) -> None:
    """One paragraph; each side rewrites a run of words (or inserts some) and may re-wrap the
    whole paragraph; one untouched word at least between the runs (right next to each other,
    where one run ends and the other starts is the matcher's guess, and merging a side in
    again may read it otherwise). Every word neither side touched, and every word
    either side wrote, is in the merge, in order."""
    n = data.draw(st.integers(4, len(WORDS)))
    base = WORDS[:n]
    i = data.draw(st.integers(0, n - 1))
    j = data.draw(st.integers(i, n - 1))
    if j >= n:
        return
    k = data.draw(st.integers(j + 1, n))
    m = data.draw(st.integers(k, n))
    new_a = [f"ours{x}" for x in range(data.draw(st.integers(0 if j > i else 1, 3)))]
    new_b = [f"theirs{x}" for x in range(data.draw(st.integers(0 if m > k else 1, 3)))]
    ours = base[:i] + new_a + base[j:]
    theirs = base[:k] + new_b + base[m:]
    expected = base[:i] + new_a + base[j:k] + new_b + base[m:]
    wa, wb = data.draw(st.sampled_from([20, 35, 60, 200])), data.draw(st.sampled_from([20, 200]))
    out, _ = merged(FM + _wrap(base, 35), FM + _wrap(ours, wa), SURE + _wrap(theirs, wb))
    assert out.removeprefix(SURE).split() == expected


@pytest.mark.parametrize("path", ["MEMORY.md", PATH, "notes/log.txt"])
def test_a_file_that_is_not_utf8_merges_on_its_bytes_with_a_note_naming_the_byte(
    path: str,
) -> None:
    """A stray Latin-1 byte (an editor that saved `café` as Latin-1): both sides' edits kept,
    the bad byte kept, and for Markdown a note naming the file, the side and the offset."""
    base = b"# Notes\n\ncafe one\ntwo\nthree\n"
    ours = base.replace(b"cafe", b"caf\xe9")
    theirs = base.replace(b"three", b"three and four")
    for o, t in ((ours, theirs), (theirs, ours)):
        result = merge_file(path, base, o, t)
        assert result.data == b"# Notes\n\ncaf\xe9 one\ntwo\nthree and four\n"
    notes = [str(r) for r in merge_file(path, base, ours, theirs).resolutions]
    if path.endswith(".md"):
        assert notes == [
            f"{path} byte 12 of ours (0xe9): both (not UTF-8: merged line by line"
            " on its bytes, every byte kept)"
        ]


def test_two_sides_appending_a_step_to_one_numbered_list_number_it_on() -> None:
    """Both sides' new step used to be numbered `4.`: now 4 and 5 (in the side-independent
    order both-added blocks take), and merging either side in again changes nothing."""
    body = "Steps:\n\n1. clone\n2. install\n3. run tests\n"
    out, _ = merged(FM + body, FM + body + "4. tag the release\n", FM + body + "4. push\n")
    assert out.endswith("3. run tests\n4. tag the release\n5. push\n") or out.endswith(
        "3. run tests\n4. push\n5. tag the release\n"
    )


def test_an_index_paragraph_rewrapped_on_one_side_keeps_the_other_sides_word() -> None:
    """`MEMORY.md` free text merges word by word too (its linked entries keep the entry model)
    when the sides rank apart (here by their commit times); on a full tie each hunk still goes
    to its greater bytes (word merges there cost `merge_laws` 20/8 → 22/9, 15/7 → 20/10)."""
    base = (
        "# Memory\n\nThis project keeps its notes in the repo and syncs them with gitmem every "
        "day.\n\n- [A](a.md) — alpha\n"
    )
    wrapped = base.replace("in the repo and", "in the repo\nand")
    hourly = base.replace("every day", "every hour")
    for first, second in ((wrapped, hourly), (hourly, wrapped)):
        result = merge_file(
            "MEMORY.md",
            base.encode(),
            first.encode(),
            second.encode(),
            SideInfo(time=1.0),
            SideInfo(time=2.0),
        )
        assert result.data == wrapped.replace("every day", "every hour").encode()


def test_the_archive_resolution_names_the_file_it_wrote() -> None:
    base = "# Memory\n" + "".join(f"- [T{i}](t{i}.md) — hook {i}\n" for i in range(190))
    ours = base + "".join(f"- [O{i}](o{i}.md) — ours {i}\n" for i in range(10))
    theirs = base + "".join(f"- [H{i}](h{i}.md) — theirs {i}\n" for i in range(10))
    notes = [
        str(r)
        for r in merge_file(
            "team/MEMORY.md", base.encode(), ours.encode(), theirs.encode()
        ).resolutions
    ]
    assert any("archived to team/MEMORY-archive.md" in n for n in notes), notes
