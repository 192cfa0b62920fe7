"""The index model of docs/design.md §4 on the cases a careful human would merge by hand."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from merge_drivers import MergeResult, SideInfo, merge_file

HOOK = "- [Build](build.md) — run `make -j8` before the tests"


def merged(base: str, ours: str, theirs: str, **kw: SideInfo) -> str:
    """The merged index, checked to be the same bytes whichever side is ours."""
    result = merge_file("MEMORY.md", base.encode(), ours.encode(), theirs.encode())
    swapped = merge_file("MEMORY.md", base.encode(), theirs.encode(), ours.encode())
    assert result.data is not None and result.data == swapped.data
    return result.data.decode()


def result_of(base: str, ours: str, theirs: str) -> MergeResult:
    return merge_file("MEMORY.md", base.encode(), ours.encode(), theirs.encode())


def test_hook_edit_and_new_sub_bullet_both_survive() -> None:
    base = f"# Memory\n{HOOK}\n- [Other](other.md) — other\n"
    ours = base.replace("-j8", "-j16")
    theirs = base.replace(f"{HOOK}\n", f"{HOOK}\n  - also run `make lint`\n")
    assert merged(base, ours, theirs) == theirs.replace("-j8", "-j16")
    assert not result_of(base, ours, theirs).resolutions


def test_two_different_sub_bullets_under_one_entry_both_survive() -> None:
    base = f"# Memory\n{HOOK}\n  - existing detail\n"
    ours = base + "  - ours adds this\n"
    theirs = base + "  - theirs adds that\n"
    text = merged(base, ours, theirs)
    assert "  - ours adds this\n" in text and "  - theirs adds that\n" in text
    assert text.count("(build.md)") == 1 and "\n\n" not in text


def test_same_line_edited_on_both_sides_takes_one_winner_and_keeps_other_sub_lines() -> None:
    base = f"# Memory\n{HOOK}\n"
    ours = base.replace("-j8", "-j16") + "  - ours detail\n"
    theirs = base.replace("-j8", "-j4")
    text = merged(base, ours, theirs)
    assert "  - ours detail" in text and text.count("(build.md)") == 1
    assert ("-j16" in text) != ("-j4" in text)
    (res,) = result_of(base, ours, theirs).resolutions
    assert res.subject == "entry build.md"


def test_same_heading_in_two_sections_stays_two_headings() -> None:
    base = "# Memory\n## Build\n### Notes\n- b1\n## Testing\n### Notes\n- t1\n"
    assert merged(base, base + "- t2\n", base.replace("- b1\n", "- b1\n- b2\n")) == (
        "# Memory\n## Build\n### Notes\n- b1\n- b2\n## Testing\n### Notes\n- t1\n- t2\n"
    )


def test_renamed_link_on_one_side_carries_the_hook_edit_of_the_other() -> None:
    base = "# Memory\n- [Testing](testing.md) — how we test\n- [Build](build.md) — b\n"
    ours = base.replace("(testing.md)", "(testing-guide.md)")
    theirs = base.replace("how we test", "how we test, with coverage")
    text = merged(base, ours, theirs)
    assert "- [Testing](testing-guide.md) — how we test, with coverage\n" in text
    assert "(testing.md)" not in text and text.count("[Testing]") == 1


@pytest.mark.parametrize(
    "entry",
    [
        "- **project_overview.md** — what the project is",
        "- `project_overview.md`: what the project is",
        "- project_overview.md — what the project is",
        "- **Deploy** — what the project is",
    ],
)
def test_plain_and_bold_name_bullets_keep_their_identity_through_an_edit(entry: str) -> None:
    base = f"# Memory\n{entry}\n- other\n"
    ours = base.replace("what the project is", "what the project is, refined")
    theirs = base.replace("what the project is", "what it is") + "- new\n"
    text = merged(base, ours, theirs)
    assert text.count("what") == 1  # one entry, the winner's text
    assert "- new" in text and "- other" in text


def test_two_bullets_with_one_bold_name_keep_each_other() -> None:
    base = "# Memory\n- **Note** — first\n- **Note** — second\n"
    ours = base.replace("first", "first!")
    theirs = base.replace("second", "second!")
    text = merged(base, ours, theirs)
    assert "first!" in text and "second!" in text


def test_trailing_whitespace_on_an_entry_never_beats_a_real_edit() -> None:
    base = "# Memory\n- [A](a.md) — a\n"
    text = merged(base, base.replace("— a", "— a  "), base.replace("— a", "— a, better"))
    assert text == base.replace("— a", "— a, better")


FLAT = "# Memory\n- [A](a.md) — a\n- [B](b.md) — b\n- [C](c.md) — c\n"


def test_moving_an_entry_to_the_top_survives_the_other_sides_addition() -> None:
    ours = "# Memory\n- [C](c.md) — c\n- [A](a.md) — a\n- [B](b.md) — b\n"
    theirs = FLAT + "- [D](d.md) — d\n"
    assert merged(FLAT, ours, theirs) == ours + "- [D](d.md) — d\n"
    assert any(r.reason == "reorganized" for r in result_of(FLAT, ours, theirs).resolutions)


def test_regrouping_under_new_headings_survives_the_other_sides_edit_and_addition() -> None:
    ours = (
        "# Memory\n\n## Tooling\n- [A](a.md) — a\n- [C](c.md) — c\n\n## Shipping\n- [B](b.md) — b\n"
    )
    theirs = FLAT.replace("— b", "— b, edited") + "- [D](d.md) — d\n"
    text = merged(FLAT, ours, theirs)
    # the groups stay; the new entry, in no group on its side, stays under the title
    assert text.replace("- [D](d.md) — d\n", "") == ours.replace("— b", "— b, edited")
    assert text.count("(d.md)") == 1


def test_archive_takes_standing_entries_before_new_ones_then_by_confidence_and_age() -> None:
    """What a merge brings in is archived last, however its name sorts; the standing entries
    go first, the least confident and the oldest (their topic's commit time) first; among
    the new ones, when they must go too, the least confident first, then the oldest."""
    line = "- [{0}]({0}.md) — a fact about {0} that is worth keeping in mind"
    base = "# Memory\n" + "".join(line.format(f"m{i:03}") + "\n" for i in range(150))
    ours = base + "".join(line.format(f"a{i:02}") + "\n" for i in range(40))
    theirs = base + "".join(line.format(f"b{i:02}") + "\n" for i in range(40))
    standing = {f"m{i:03}.md": 5000.0 - i for i in range(150)}  # the last ones the oldest
    oi = SideInfo(times={**standing, **{f"a{i:02}.md": 2000.0 + i for i in range(40)}})
    ti = SideInfo(
        times={**standing, **{f"b{i:02}.md": 1000.0 + i for i in range(40)}},
        siblings={"b39.md": b"---\nconfidence: 0.1\n---\nunsure\n"},
    )
    result = merge_file("MEMORY.md", base.encode(), ours.encode(), theirs.encode(), oi, ti)
    swapped = merge_file("MEMORY.md", base.encode(), theirs.encode(), ours.encode(), ti, oi)
    assert result.data == swapped.data and result.data is not None
    archive = result.extra_files["MEMORY-archive.md"].decode()
    archived = {ln.split("](")[1].split(")")[0] for ln in archive.splitlines() if "](" in ln}
    assert archived and all(a.startswith("m") for a in archived)  # the new facts stay
    assert archived == {f"m{i:03}.md" for i in range(150 - len(archived), 150)}  # the oldest
    assert len(result.data.decode().splitlines()) <= 200
    # room for none of the standing entries: the new ones go too, least confident first
    small = "# Memory\n"
    ours = small + "".join(line.format(f"a{i:03}") + "\n" for i in range(150))
    theirs = small + "".join(line.format(f"b{i:03}") + "\n" for i in range(150))
    oi = SideInfo(times={f"a{i:03}.md": 2000.0 + i for i in range(150)})
    ti = SideInfo(
        times={f"b{i:03}.md": 1000.0 + i for i in range(150)},
        siblings={"b149.md": b"---\nconfidence: 0.1\n---\nunsure\n"},
    )
    result = merge_file("MEMORY.md", small.encode(), ours.encode(), theirs.encode(), oi, ti)
    archive = result.extra_files["MEMORY-archive.md"].decode()
    archived = {ln.split("](")[1].split(")")[0] for ln in archive.splitlines() if "](" in ln}
    assert "b149.md" in archived and "b000.md" in archived  # least confident, then oldest
    assert not any(a.startswith("a") for a in archived)  # the newer side's facts stay


@pytest.mark.parametrize("path", ["notes/topic.md", "notes/log.txt"])
def test_a_path_time_in_times_stands_for_the_side_time(path: str) -> None:
    """The git driver passes commit times lazily, by file name: the merged path's own name is
    its recency, so the newer rewrite wins whichever side is ours (not the greater bytes)."""
    name = path.rsplit("/", 1)[-1]
    base, ours, theirs = b"one\ntwo\n", b"aa\ntwo\n", b"zz\ntwo\n"
    newer, older = SideInfo(times={name: 2000.0}), SideInfo(times={name: 1000.0})
    assert merge_file(path, base, ours, theirs, newer, older).data == ours
    assert merge_file(path, base, theirs, ours, older, newer).data == ours
    assert merge_file(path, base, ours, theirs).data == theirs  # no times: the bytes decide


INTRO = (
    "<!-- team memory: keep entries short -->\n# Memory\n\nThese are the build notes:\n"
    "one line per step,\nread them before a release.\n\n- [A](a.md) — a\n- [B](b.md) — b\n\n## Other\n- [C](c.md) — c\n"
)
PARAGRAPH_EDITS = {
    "intro paragraph": ("These are the build notes:", "These are the build notes, newest first:"),
    "last line of a paragraph": ("read them before a release.", "read them before any release."),
    "header comment": ("keep entries short", "keep entries short and linked"),
}


@pytest.mark.parametrize("what", sorted(PARAGRAPH_EDITS))
def test_a_block_edited_on_one_side_stays_where_it_was(what: str) -> None:
    """A paragraph (also one of several lines, not separated by blank lines) or a header HTML
    comment edited on one side stays in its place while the other side adds and edits entries."""
    old, new = PARAGRAPH_EDITS[what]
    ours = INTRO.replace(old, new)
    theirs = INTRO.replace("— b", "— b, edited") + "- [D](d.md) — d\n"
    expected = ours.replace("— b", "— b, edited") + "- [D](d.md) — d\n"
    assert merged(INTRO, ours, theirs) == expected
    assert not result_of(INTRO, ours, theirs).resolutions


@pytest.mark.parametrize(
    ("ours_edit", "theirs_edit"),
    [
        (PARAGRAPH_EDITS["intro paragraph"], PARAGRAPH_EDITS["last line of a paragraph"]),
        (("These are", "Here are"), ("\n\n- [A]", "\nKeep them current.\n\n- [A]")),
    ],
)
def test_a_paragraph_edited_on_both_sides_merges_inside_it(
    ours_edit: tuple[str, str], theirs_edit: tuple[str, str]
) -> None:
    """Edits to different lines of one paragraph both survive, in one copy, no resolution
    (lines apart: like diff3, edits of two adjacent lines are one overlapping change)."""
    ours, theirs = INTRO.replace(*ours_edit), INTRO.replace(*theirs_edit)
    assert merged(INTRO, ours, theirs) == ours.replace(*theirs_edit)
    assert not result_of(INTRO, ours, theirs).resolutions


@pytest.mark.parametrize("what", ["intro paragraph", "header comment"])
def test_one_line_rewritten_on_both_sides_takes_one_winner_and_says_so(what: str) -> None:
    old, _ = PARAGRAPH_EDITS[what]
    ours, theirs = INTRO.replace(old, old + " (ours)"), INTRO.replace(old, old + " (theirs)")
    text = merged(INTRO, ours, theirs)
    assert text in (ours, theirs)  # one copy, in place, never markers or both
    (res,) = result_of(INTRO, ours, theirs).resolutions
    assert res.subject.startswith("paragraph ") and res.winner in ("ours", "theirs")


def test_an_edited_paragraph_merged_in_again_changes_nothing() -> None:
    ours = INTRO.replace(*PARAGRAPH_EDITS["intro paragraph"])
    theirs = INTRO.replace(*PARAGRAPH_EDITS["last line of a paragraph"]) + "- [D](d.md) — d\n"
    both = merged(INTRO, ours, theirs)
    assert merged(INTRO, both, ours) == both and merged(INTRO, theirs, both) == both
    # three replicas, any order
    third = INTRO.replace(*PARAGRAPH_EDITS["header comment"])
    assert merged(INTRO, both, third) == merged(INTRO, merged(INTRO, ours, third), theirs)


SECTIONS = "# Memory\n\n## Build\n- Run tests with -x\n- make -j8\n\n## Testing\n- keep it short\n"


@pytest.mark.parametrize(
    ("ours", "theirs", "copies"),
    [
        # one side files the same plain bullet under a second section, the other adds elsewhere
        (
            SECTIONS.replace("- keep it short\n", "- keep it short\n- Run tests with -x\n"),
            SECTIONS.replace("- make -j8\n", "- make -j8\n- lint first\n"),
            2,
        ),
        # both sides file it, each under another section
        (
            SECTIONS + "\n## Release\n- Run tests with -x\n",
            SECTIONS.replace("- keep it short\n", "- keep it short\n- Run tests with -x\n"),
            3,
        ),
    ],
)
def test_the_same_plain_bullet_in_two_sections_is_two_entries(
    ours: str, theirs: str, copies: int
) -> None:
    text = merged(SECTIONS, ours, theirs)
    assert text.count("- Run tests with -x\n") == copies, text
    build = text.split("## Testing")[0]
    assert build.count("- Run tests with -x\n") == 1
    assert merged(SECTIONS, text, ours) == text  # merging a side in again changes nothing


def test_a_plain_bullet_deleted_from_one_section_stays_in_the_other() -> None:
    base = SECTIONS.replace("- keep it short\n", "- keep it short\n- Run tests with -x\n")
    ours = base.replace("- keep it short\n- Run tests with -x\n", "- keep it short\n")
    theirs = base + "- new in testing\n"
    text = merged(base, ours, theirs)
    assert text == ours + "- new in testing\n"


ENTRY = "- [A](a.md) — a\n"


@pytest.mark.parametrize(
    "text",
    [
        f"---\nname: x\n---\n{ENTRY}",
        f"--- \t\ntitle: x\n...\n{ENTRY}",
        f"---\r\nname: x\r\n---\r\n{ENTRY}",
        f"---\nname: x\n{ENTRY}",  # never closed: no frontmatter
        f"# Memory\n---\n{ENTRY}---\n",  # a rule inside the body
        "---\n" + "k: v\n" * 2500 + f"---\n{ENTRY}",  # long, but closed
        f"----\nname: x\n---\n{ENTRY}",
        "---",
        "",
    ],
    ids=["plain", "dots", "crlf", "unclosed", "rule", "long", "four-dashes", "alone", "empty"],
)
def test_the_index_reads_frontmatter_by_the_one_fence_rule(text: str) -> None:
    from merge_drivers.indexdoc import parse, render
    from merge_drivers.yamlsafe import fence

    index = parse(text)
    span = fence(text)
    fm = [it for it in index.items if it.kind == "fm"]
    if span is None:
        assert not fm
    else:
        assert len(fm) == 1 and fm[0].text == "\n".join(text.split("\n")[: span[1] + 1])
    assert render(index.items, index.tail, index.eol) == text


@pytest.mark.parametrize(
    "new",
    ["- Run tests with -x\n", "- [Lint](lint.md) — ruff first\n", "### Flaky tests\n"],
    ids=["plain-bullet", "entry", "sub-heading"],
)
def test_a_heading_deleted_on_one_side_stays_when_the_other_files_a_new_item_under_it(
    new: str,
) -> None:
    # The plain bullet equals a base bullet of the section before: dropped with its heading,
    # it would read as that base bullet in the next merge and die or live by merge order.
    base = "# Memory\n- Run tests with -x\n## Testing\n- [Old](old.md) — o\n"
    deleter = "# Memory\n- [Old](old.md) — o\n"  # the bullet and the heading deleted
    filer = base + new
    other = base.replace("— o", "— o, refined")
    text = merged(base, deleter, filer)
    assert text == f"# Memory\n## Testing\n- [Old](old.md) — o\n{new}"
    assert merged(base, text, deleter) == text and merged(base, filer, text) == text
    r1 = merged(base, merged(base, deleter, filer), other)
    r2 = merged(base, merged(base, filer, other), deleter)
    r3 = merged(base, merged(base, other, deleter), filer)
    assert r1 == r2 == r3 and "## Testing\n" in r1 and new in r1


def test_a_heading_deleted_on_one_side_stays_when_the_other_edits_an_item_under_it() -> None:
    # Modified beats deleted for the item, so for its section too: without its heading the
    # plain bullet would change section, hence identity, and merging a side in again would
    # move it.
    base = "# Memory\n- [A](a.md) — a\n## Feedback\n- keep it short\n"
    deleter = "# Memory\n- [A](a.md) — a\nSome prose.\n"
    editor = base.replace("- keep it short", "- Keep it  short")
    text = merged(base, deleter, editor)
    assert text == "# Memory\n- [A](a.md) — a\n\nSome prose.\n## Feedback\n- Keep it  short\n"
    assert merged(base, text, deleter) == text and merged(base, editor, text) == text


def test_an_item_edited_under_another_heading_keeps_no_deleted_heading_alive() -> None:
    # The side that deleted `## Project` and the side that moved it below `## Feedback` (where
    # the edited entry now is): the entry was never under Project, so Project stays deleted and
    # merging either side in again changes nothing.
    base = "## Project\n## Feedback\n\n- [T](t.md) — x\n"
    deleter = "## Feedback\n"
    mover = "## Feedback\n## Project\n- [T](t.md) — x\n"
    text = merged(base, deleter, mover)
    assert merged(base, text, deleter) == text and merged(base, mover, text) == text


LONG = " ".join(["long"] * 12)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (f"- [T](t.md) — {LONG}\n  wrapped detail\n", "- [T](t.md) — second, refined\n"),
        (f"- [T](t.md) — {LONG}\n  wrapped\n", "- [T](t.md) — second, refined\n  other\n"),
    ],
    ids=["sub-line-replaced-vs-deleted", "sub-line-replaced-twice"],
)
def test_a_tie_inside_an_item_is_broken_hunk_by_hunk_so_merging_again_changes_nothing(
    one: str, other: str
) -> None:
    # Equal confidence and recency: a tie-break on the whole entry's bytes picked one side's
    # sub-line in the first merge and the other's when a side was merged in again.
    base = "- [T](t.md) — second, refined\n - sub point\n"
    text = merged(base, one, other)
    assert merged(base, text, one) == text and merged(base, other, text) == text
    assert merged(base, one, text) == text and merged(base, text, other) == text


def test_a_repeated_heading_is_not_kept_by_an_item_under_its_second_copy() -> None:
    # Two `## Project` are one item, written at the first: the entry edited under the second
    # copy is not under that one, so keeping it would not keep the entry's section.
    base = "## Project\n## Feedback\n## Project\n\n- [T](t.md) — x\n"
    deleter = "## Feedback\n"
    editor = "## Feedback\n## Project\n- [T](t.md) — x\n"
    text = merged(base, deleter, editor)
    assert merged(base, text, deleter) == text and merged(base, editor, text) == text


@pytest.mark.parametrize(
    "edit",
    [("- b", "- b, edited"), ("- a\n", "- a\n- a2\n"), ("## Feedback\n- b\n", "")],
    ids=["edited-between", "added-in-first-copy", "between-deleted"],
)
def test_a_bullet_under_a_repeated_heading_stays_in_that_heading_s_section(
    edit: tuple[str, str],
) -> None:
    # Two `## Project` are one heading, written once: `- c`, under the second copy, goes to
    # the end of its section rather than under `## Feedback` (read back there it would be
    # another bullet, and merging a side in again would move it).
    base = "# Memory\n## Project\n- a\n## Feedback\n- b\n## Project\n- c\n"
    ours = base + "- [T](t.md) — t\n"
    theirs = base.replace(*edit)
    text = merged(base, ours, theirs)
    project = text.split("## Project\n", 1)[1].split("## Feedback", 1)[0]
    assert "- c\n" in project and "(t.md)" in project, text
    assert merged(base, text, ours) == text and merged(base, theirs, text) == text


@pytest.mark.parametrize("modified", ["\n## Testing\n", "## TESTING\n"], ids=["gap", "text"])
def test_a_heading_deleted_modified_and_filed_under_converges_in_every_order(
    modified: str,
) -> None:
    # Once excluded from the convergence property as impossible: the deleter merged with the
    # filer first had to drop the heading and lose where the new entry was filed. Filing now
    # keeps the heading, so every order ends with the modified heading over the new entry.
    base = "# Memory\n- [A](a.md) — a\n## Testing\n- [T](t.md) — t\n"
    deleter = base.replace("## Testing\n", "")
    modifier = base.replace("## Testing\n", modified)
    filer = base + "- [N](n.md) — new\n"
    r1 = merged(base, merged(base, deleter, modifier), filer)
    r2 = merged(base, merged(base, modifier, filer), deleter)
    r3 = merged(base, merged(base, filer, deleter), modifier)
    assert r1 == r2 == r3
    assert r1.endswith(f"{modified}- [T](t.md) — t\n- [N](n.md) — new\n"), r1


SIX = "# Memory\n\n" + "".join(f"- [E{i}](e{i}.md) — note {i}\n" for i in range(6))


E0, E2 = "- [E0](e0.md) — note 0\n", "- [E2](e2.md) — note 2\n"


@pytest.mark.parametrize(
    ("respaced", "entry"),
    [
        (SIX.replace(E0 + "- [E1](e1.md) — note 1\n", ""), E2),  # its neighbours deleted
        (SIX.replace("- [E2]", "\n- [E2]"), E2),  # a blank line before it
        (SIX.replace("- [E3]", "\n- [E3]"), E2),  # a blank line after it
        (SIX.replace("# Memory\n\n", "# Memory\n\n## Now\n"), E0),  # a heading right above it
        (SIX.replace("# Memory\n\n", "# Memory\n"), E0),  # the title's blank line deleted
    ],
)
def test_an_entry_only_re_spaced_on_one_side_stays_deleted(respaced: str, entry: str) -> None:
    """Blank lines before an entry are formatting (design §4): a side whose change only moves
    them (it deleted the entry's neighbours, or spaced around it) has not edited the entry, so
    the other side's deletion stands (`merged` checks both directions)."""
    text = merged(SIX, respaced, SIX.replace(entry, ""))
    assert entry.rstrip("\n") not in text
    assert text.count("- [E") == respaced.count("- [E") - 1


def test_an_entry_edited_on_one_side_beats_its_deletion_whatever_its_spacing() -> None:
    edited = SIX.replace("\n- [E2](e2.md) — note 2", "\n\n- [E2](e2.md) — note two, edited")
    deleted = SIX.replace("- [E2](e2.md) — note 2\n", "")
    text = merged(SIX, edited, deleted)
    assert "- [E2](e2.md) — note two, edited\n" in text


def test_deleted_re_spaced_and_edited_on_three_replicas_converge() -> None:
    """One replica deletes an entry, one re-spaces it, one edits it: the edit wins with its own
    spacing, whichever two merge first."""
    gone = SIX.replace("- [E2](e2.md) — note 2\n", "")
    spaced = SIX.replace("- [E2]", "\n\n- [E2]")
    edited = SIX.replace("note 2", "note two")
    results = set()
    for a, b, c in ((gone, spaced, edited), (spaced, edited, gone), (edited, gone, spaced)):
        results.add(merged(SIX, merged(SIX, a, b), c))
    assert results == {edited}


REGROUP_BASE = "# Memory\n{gap}- [A](a.md) — a\n- [B](b.md) — b\n- [C](c.md) — c\n"
ADDED = "- [D](d.md) — d\n"


def _not_kept(result: MergeResult) -> list[str]:
    return [str(r) for r in result.resolutions if "not kept" in r.reason]


@pytest.mark.parametrize("title_gap", ["", "\n"])
@pytest.mark.parametrize(
    ("before", "after"),
    [("", ""), ("\n", "\n"), ("\n", ""), ("", "\n")],
    ids=["tight", "blank-around", "blank-before", "blank-after"],
)
def test_headings_written_above_entries_regroup_them_whatever_the_other_side_appends(
    title_gap: str, before: str, after: str
) -> None:
    """The issue's regrouping: one side writes `## Setup` / `## Ship` above base entries
    without moving them, the other appends an entry. The groups stay as written (their blank
    lines too), the appended entry stays in no group (under the title, where its side filed
    it), both directions give the same bytes, nothing is reported as not kept, and merging
    either side in again changes nothing."""
    base = REGROUP_BASE.format(gap=title_gap)
    ours = base.replace("- [A]", f"## Setup\n{after}- [A]").replace(
        "- [C]", f"{before}## Ship\n{after}- [C]"
    )
    theirs = base + ADDED
    text = merged(base, ours, theirs)
    assert text == ours.replace("# Memory\n", "# Memory\n" + ADDED, 1)
    assert merged(base, theirs, ours) == text
    assert not _not_kept(result_of(base, ours, theirs))
    assert merged(base, text, ours) == text and merged(base, theirs, text) == text


def test_a_regrouping_inside_a_section_stays_in_that_section() -> None:
    base = (
        "# Memory\n\n## Build\n- [A](a.md) — a\n- [B](b.md) — b\n- [C](c.md) — c\n\n"
        "## Test\n- [T](t.md) — t\n"
    )
    ours = base.replace("## Build\n", "## Build\n\n### Setup\n\n").replace(
        "- [C]", "\n### Ship\n\n- [C]"
    )
    theirs = base.replace("— c\n", "— c\n" + ADDED)
    assert merged(base, ours, theirs) == ours.replace("## Build\n", "## Build\n" + ADDED)
    assert not _not_kept(result_of(base, ours, theirs))
    one = base.replace("- [A]", "### All\n- [A]")  # one heading over every entry: the same
    assert merged(base, one, theirs) == one.replace("## Build\n", "## Build\n" + ADDED)
    assert merged(base, theirs, one) == merged(base, one, theirs)


def _grouped(base: str, top: str = "## Setup\n") -> str:
    return base.replace("- [A]", top + "- [A]").replace("- [C]", "\n## Ship\n- [C]")


@pytest.mark.parametrize("title_gap", ["", "\n"])
@pytest.mark.parametrize(
    "other",
    [
        lambda g: g.replace("— b\n", "— b, edited\n"),  # an entry edited
        lambda g: g.replace("- [B](b.md) — b\n", ""),  # an entry deleted
        lambda g: g.replace("— b\n", "— b\n- [Z](z.md) — z\n"),  # an entry added in a group
        lambda g: g,  # the headings alone
    ],
    ids=["edited", "deleted", "added-in-a-group", "same"],
)
@pytest.mark.parametrize("top", ["## Setup\n", "## Setup\n\n### Tools\n"], ids=["one", "nested"])
def test_headings_both_sides_inserted_the_same_are_agreed_and_kept(
    title_gap: str, other: Callable[[str], str], top: str
) -> None:
    """The same headings written above the same base entries on both sides are not a
    contested regrouping: both sides' other edits land inside the groups, nothing is said,
    and merging the result in again changes nothing."""
    base = REGROUP_BASE.format(gap=title_gap)
    grouped = _grouped(base, top)
    ours = grouped + ADDED
    theirs = other(grouped)
    text = merged(base, ours, theirs)
    assert text == theirs + ADDED
    assert not _not_kept(result_of(base, ours, theirs))
    assert merged(base, text, ours) == text and merged(base, text, theirs) == text


def test_a_new_entry_right_under_an_agreed_heading_goes_to_the_end_of_its_group() -> None:
    """A new entry between an agreed heading and the entry it heads does not break the
    agreement: the heading is kept, the entry ends its group (where new entries go)."""
    base = REGROUP_BASE.format(gap="\n")
    grouped = _grouped(base)
    theirs = grouped.replace("## Setup\n", "## Setup\n- [Z](z.md) — z\n")
    text = merged(base, grouped + ADDED, theirs)
    assert text == grouped.replace("— b\n", "— b\n- [Z](z.md) — z\n") + ADDED
    assert not _not_kept(result_of(base, grouped + ADDED, theirs))


def test_a_heading_two_sides_wrote_above_different_entries_stands_above_the_first() -> None:
    """`## Setup` above A on one side and above B on the other: one heading, above A (the
    first in the base), both directions; a heading only one side wrote is kept where it
    wrote it."""
    base = REGROUP_BASE.format(gap="\n")
    ours = _grouped(base) + ADDED
    theirs = base.replace("- [B]", "## Setup\n- [B]").replace("- [C]", "\n## Ship\n- [C]")
    text = merged(base, ours, theirs)
    assert text == ours == merged(base, theirs, ours)
    assert merged(base, text, theirs) == text
    extra = _grouped(base).replace("- [B]", "\n## Later\n- [B]")  # one more heading on one side
    text = merged(base, extra, _grouped(base) + ADDED)
    assert text == extra + ADDED
    assert not _not_kept(result_of(base, extra, _grouped(base) + ADDED))
    assert merged(base, text, extra) == text


@pytest.mark.parametrize(
    "ours",
    [
        REGROUP_BASE.format(gap="\n") + "\n## Later\n",  # an empty heading, written empty
        REGROUP_BASE.format(gap="\n") + "## Later\n- [E](e.md) — e\n",  # heads a new entry
        "# Memory\n\n## Ship\n- [C](c.md) — c\n\n## Setup\n- [A](a.md) — a\n- [B](b.md) — b\n",
    ],
    ids=["empty-heading", "heading-over-a-new-entry", "regrouped-and-moved"],
)
def test_no_unkept_regrouping_is_reported_where_the_headings_keep_their_place(ours: str) -> None:
    base = REGROUP_BASE.format(gap="\n")
    theirs = base + ADDED
    text = merged(base, ours, theirs)
    assert not _not_kept(result_of(base, ours, theirs)), text
    assert "\n\n\n" not in text and text.count("(d.md)") == 1


UPPER, LOWER = "- [API](API.md) — upper\n", "- [api](api.md) — lower\n"
U2, L2 = UPPER.replace("upper", "upper, edited"), LOWER.replace("lower", "lower, edited")
CASE_DISTINCT = {
    "one side adds the other file's line": (UPPER, UPPER + LOWER, U2, U2 + LOWER),
    "both sides add one each": ("", LOWER, UPPER, UPPER + LOWER),
    "both in the base, one side edits each": (UPPER + LOWER, U2 + LOWER, UPPER + L2, U2 + L2),
    "one deletes the first, the other edits the second": (
        UPPER + LOWER,
        LOWER,
        UPPER + L2,
        L2,
    ),
}


@pytest.mark.parametrize("case", CASE_DISTINCT.values(), ids=list(CASE_DISTINCT))
def test_links_to_case_distinct_files_are_two_entries(case: tuple[str, str, str, str]) -> None:
    """`API.md` and `api.md` are two files: their index lines are never folded into one (one
    of them was lost, or both edits went into one line), in both directions, idempotent."""
    base, ours, theirs, expected = ("# M\n" + x for x in case)
    text = merged(base, ours, theirs)
    assert text == expected
    assert merged(base, text, ours) == text and merged(base, theirs, text) == text


def test_a_blank_line_two_unkept_headings_took_comes_back_in_every_merge_order() -> None:
    """Two replicas each write a heading between an entry and a comment, taking the comment's
    blank line; neither heading is kept there (a third wrote the title above the entry). The comment gets the base's blank line back
    whichever two merge first (it kept it only when one side had not changed it)."""
    base = "- [T](t.md) — first\n\n<!-- a comment -->\n"
    top = "# Memory\n" + base
    memory = base.replace("\n\n<!--", "\n\n# Memory\n<!--")
    project = base.replace("\n\n<!--", "\n\n## Project\n<!--")
    r1 = merged(base, merged(base, top, memory), project)
    r2 = merged(base, merged(base, memory, project), top)
    r3 = merged(base, merged(base, project, top), memory)
    assert r1 == r2 == r3
    assert "# Memory\n- [T](t.md) — first\n\n<!-- a comment -->\n" in r1, r1


def test_a_bullet_after_a_repeated_title_stays_out_of_every_section() -> None:
    """`- plain one` after a second `# Memory` is in no section; the title is written once,
    so the bullet goes after the first one, before `## Project` (under it, read back, it
    would be another bullet, and merging a side in again would move it)."""
    base = "- [A](a.md) — a\n# Memory\n## Project\n# Memory\n- plain one\n- [T](t.md) — t\n"
    deleter = base.replace("- [A](a.md) — a\n", "")
    spacer = "\n" + base
    text = merged(base, deleter, spacer)
    assert text == "# Memory\n- plain one\n## Project\n- [T](t.md) — t\n", text
    assert merged(base, text, deleter) == text and merged(base, spacer, text) == text


T0, T1 = "- [T0](t0.md) — first\n", "- [T1](t1.md) — first\n"


@pytest.mark.parametrize(
    "case",
    [
        # an entry re-spaced where the heading was deleted; the keeper only kept it
        ("# Memory\n" + T0 + T1, T0 + T1, "# Memory\n" + T0, "\n" + T0 + T1),
        # an entry edited on the side that deleted its heading; the keeper edited another
        (
            T0 + "# Memory\n" + T1,
            T0 + T1,
            T0.replace("first", "second") + "# Memory\n" + T1,
            T0 + T1.replace("first", "second"),
        ),
        # an entry only re-spaced under the heading: formatting, it keeps nothing
        (
            "# Memory\n- plain one\n",
            "# Memory\n\n- plain one\n",
            T0 + "# Memory\n",
            "- plain one\n",
        ),
    ],
    ids=["re-spaced", "edited", "re-spaced-under-it"],
)
def test_a_deleted_heading_is_kept_only_by_an_entry_modified_under_it_on_the_modifying_side(
    case: tuple[str, str, str, str],
) -> None:
    """Modified beats deleted, for a heading over an entry, only when the side that
    modified the entry holds it under that heading: the side that merely kept the heading
    (and the entry, unchanged, under it) does not, or merge order would decide."""
    base, a, b, c = case
    r1 = merged(base, merged(base, a, b), c)
    r2 = merged(base, merged(base, b, c), a)
    r3 = merged(base, merged(base, c, a), b)
    assert r1 == r2 == r3
    assert "# Memory" not in r1


TITLED = "# Memory\n\n## Build\n\n- [A](a.md) — a\n- run with -x\n\n## Test\n\n- [T](t.md) — t\n"


@pytest.mark.parametrize(
    ("retitle", "other"),
    [
        (lambda s: s.replace("## Build", "## Building"), lambda s: s + "- [C](c.md) — c\n"),
        (
            lambda s: s.replace("## Build", "## Building"),
            lambda s: s.replace("with -x\n", "with -x\n- lint first\n"),
        ),
        (lambda s: s.replace("# Memory", "# Memory notes"), lambda s: s.replace("— a", "— a2")),
        (
            lambda s: s.replace("## Build", "## Building"),
            lambda s: s.replace("with -x\n", "with -x\n- [B](b.md) — b\n"),
        ),
    ],
    ids=["entry-appended-elsewhere", "bullet-added-under-it", "title", "entry-filed-under-it"],
)
def test_a_retitled_heading_keeps_its_entries_whatever_the_other_side_adds(
    retitle: Callable[[str], str], other: Callable[[str], str]
) -> None:
    """A heading renamed in place on one side is the base heading edited: its entries and
    plain bullets stay under the new title, the other side's additions and edits land as if
    the title had not changed, one title (not both), both directions, idempotent."""
    ours, theirs = retitle(TITLED), other(TITLED)
    text = merged(TITLED, ours, theirs)
    assert text == retitle(theirs)
    assert merged(TITLED, theirs, ours) == text
    assert merged(TITLED, text, ours) == text and merged(TITLED, theirs, text) == text
    assert not _not_kept(result_of(TITLED, ours, theirs))


def test_two_retitles_of_one_heading_give_one_heading() -> None:
    ours = TITLED.replace("## Build", "## Building")
    theirs = TITLED.replace("## Build", "## Build steps")
    text = merged(TITLED, ours, theirs)
    assert text == merged(TITLED, theirs, ours)
    assert text.count("## Build") == 1 and "- run with -x" in text


NOTES_TWICE = (
    "# Memory\n\n## Build\n\n### Notes\n\n- Run tests with -x\n\n"
    "## Testing\n\n### Notes\n\n- Run tests with -x\n"
)


@pytest.mark.parametrize(
    "other",
    [
        lambda s: s.replace("# Memory", "# Memory!"),  # an edit elsewhere
        lambda s: s.replace("## Build\n\n### Notes\n\n- Run tests with -x\n", "## Build\n"),
        lambda s: s.replace("-x\n\n## Testing", "-x\n- make -j8\n\n## Testing"),
    ],
    ids=["edit-elsewhere", "first-copy-deleted", "added-in-the-first"],
)
def test_a_bullet_under_a_subheading_repeated_in_two_sections_is_two_entries(
    other: Callable[[str], str],
) -> None:
    """`### Notes` under `## Build` and under `## Testing`, the same bullet under each: two
    headings, two bullets (a section is keyed by its path, not its text); a bullet appended
    under the second keeps the second's copy, both directions, idempotent."""
    ours = other(NOTES_TWICE)
    theirs = NOTES_TWICE + "- new testing note\n"
    text = merged(NOTES_TWICE, ours, theirs)
    assert text == ours + "- new testing note\n"
    assert merged(NOTES_TWICE, theirs, ours) == text
    assert merged(NOTES_TWICE, text, ours) == text and merged(NOTES_TWICE, theirs, text) == text


NESTED = (
    "# Memory\n\n## Classes\n- p1 first\n- p2 second\n\n### Plot\n- s2 zeta\n- s1 alpha\n\n"
    "### Store\n- load a file\n- save it\n"
)


@pytest.mark.parametrize(
    "other",
    [
        lambda s: s + "- [New](new.md) — x\n",
        lambda s: s.replace("- save it\n", "- save it\n- query nothing\n"),
        lambda s: s.replace("- s1 alpha\n", ""),
    ],
    ids=["linked-appended", "bullet-added-under-a-subheading", "bullet-deleted"],
)
def test_subheadings_a_new_heading_re_parents_stay_one_heading_each(
    other: Callable[[str], str],
) -> None:
    """A `##` heading written inside a section re-parents the `###` headings after it: they
    are the base's headings under another parent (with their bullets), not new ones, so the
    other side's edit under them lands there and each is written once; both directions,
    idempotent."""
    ours = NESTED.replace("- p2 second\n", "## Group one\n- p2 second\n")
    theirs = other(NESTED)
    text = merged(NESTED, ours, theirs)
    assert text == merged(NESTED, theirs, ours)
    assert text.count("### Plot") == 1 and text.count("### Store") == 1, text
    assert text == other(ours)
    assert merged(NESTED, text, ours) == text and merged(NESTED, theirs, text) == text


def test_archive_takes_plain_bullets_from_the_top_whatever_their_letter() -> None:
    """Plain bullets that say nothing of when they were written go to the archive in the order
    they stand (an index grows at the end): the oldest first, never by their bytes, so the new
    bullets a merge brings in (at the end) stay, and the archive names the file it wrote."""
    words = ["zebra", "apple", "*starred*", "mango", "Tango", "echo"]
    bullet = "- {} fact number {} that is worth keeping in mind for a while\n"
    base = "# Memory\n" + "".join(bullet.format(words[i % 6], i) for i in range(150))
    ours = base + "".join(bullet.format(words[i % 6], f"a{i}") for i in range(40))
    theirs = base + "".join(bullet.format(words[i % 6], f"b{i}") for i in range(40))
    result = result_of(base, ours, theirs)
    assert result.data == merged(base, ours, theirs).encode()
    archive = result.extra_files["MEMORY-archive.md"].decode()
    gone = [int(x.split()[-10]) for x in archive.splitlines() if x.startswith("- ")]
    assert gone == list(range(len(gone))) and gone  # the first ones, in order
    text = result.data.decode()
    assert all(f"number a{i} " in text and f"number b{i} " in text for i in range(40))
    assert any("archived to MEMORY-archive.md" in r.reason for r in result.resolutions)


FENCED = "- [Build](build.md) — how to build\n  ```sh\n  make\n\n  make test\n  ```\n"


@pytest.mark.parametrize("mark", ["```", "~~~"])
def test_a_fence_indented_under_an_entry_is_part_of_it(mark: str) -> None:
    """Read as the block tree reads it (the item's content, a blank line inside too): deleting
    the entry deletes its code, and an edit inside the code merges with an edit of the hook."""
    nested = FENCED.replace("```", mark)
    base = f"# Memory\n{nested}- [Other](other.md) — other\n"
    gone = merged(base, base.replace(nested, ""), base + "- [New](new.md) — new\n")
    assert gone == "# Memory\n- [Other](other.md) — other\n- [New](new.md) — new\n"
    both = merged(
        base, base.replace("make test", "make test lint"), base.replace("how to", "how we")
    )
    assert both == base.replace("make test", "make test lint").replace("how to", "how we")


def test_an_unclosed_fence_under_an_entry_stays_a_block_to_the_end() -> None:
    base = "# Memory\n- [A](a.md) — a\n  ```\n  code\n- [B](b.md) — b\n"
    assert merged(base, base + "more\n", base) == base + "more\n"


def test_code_edited_under_an_entry_another_side_deleted_keeps_the_entry_above_it() -> None:
    base = f"# Memory\n{FENCED}- [Other](other.md) — other\n"
    edited = base.replace("  make\n", "  make all\n")
    assert merged(base, base.replace(FENCED, ""), edited) == edited
