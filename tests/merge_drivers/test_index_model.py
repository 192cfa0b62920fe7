"""The index model of docs/design.md §4 on the cases a careful human would merge by hand."""

from __future__ import annotations

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


def test_archive_demotes_by_recency_from_history_not_by_alphabet() -> None:
    """Standing entries (untouched: no time) go to the archive before new facts, though the
    new ones sort first by name; then the older of the new ones; a low confidence first of all."""
    line = "- [{0}]({0}.md) — a fact about {0} that is worth keeping in mind"
    base = "# Memory\n" + "".join(line.format(f"m{i:03}") + "\n" for i in range(150))
    ours = base + "".join(line.format(f"a{i:02}") + "\n" for i in range(40))
    theirs = base + "".join(line.format(f"b{i:02}") + "\n" for i in range(40))
    oi = SideInfo(times={f"a{i:02}.md": 2000.0 + i for i in range(40)})
    ti = SideInfo(
        times={f"b{i:02}.md": 1000.0 + i for i in range(40)},
        siblings={"b39.md": b"---\nconfidence: 0.1\n---\nunsure\n"},
    )
    result = merge_file("MEMORY.md", base.encode(), ours.encode(), theirs.encode(), oi, ti)
    swapped = merge_file("MEMORY.md", base.encode(), theirs.encode(), ours.encode(), ti, oi)
    assert result.data == swapped.data and result.data is not None
    archive = result.extra_files["MEMORY-archive.md"].decode()
    archived = {ln.split("](")[1].split(")")[0] for ln in archive.splitlines() if "](" in ln}
    assert "b39.md" in archived  # least confident
    assert not any(a.startswith("a") for a in archived)  # the newest facts stay
    assert all(f"({n})" in result.data.decode() for n in (f"a{i:02}.md" for i in range(40)))
    assert len(result.data.decode().splitlines()) <= 200


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
