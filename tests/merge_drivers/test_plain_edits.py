"""Plain bullets (no link, bold term or file name) edited in place: a base bullet a side no
longer holds and one new bullet in its slot that says nearly the same (≥ 60 % of the words alike,
not just respelled) are the bullet edited — it stays where it was, takes the other side's indented
lines, and two edits of it give one bullet, not two."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import merge_file

from .conftest import examples

INDEX = "MEMORY.md"
BASE = (
    "# Memory\n\n## Build\n- Use make -j8 for builds\n- Run tests with pytest -x\n"
    "- Lint with ruff before pushing\n\n## Notes\n- [Deploy](deploy.md) — how we ship\n"
)
EDITED = BASE.replace("Use make -j8 for builds", "Use make -j16 for builds")


def merged(base: str, ours: str, theirs: str) -> str:
    """The merged index, checked to be the same bytes whichever side is ours."""
    one = merge_file(INDEX, base.encode(), ours.encode(), theirs.encode())
    two = merge_file(INDEX, base.encode(), theirs.encode(), ours.encode())
    assert one.data == two.data
    assert one.data is not None
    return one.data.decode()


@pytest.mark.parametrize(
    "other",
    [
        BASE + "- [Release](release.md) — tagging\n",  # an entry appended elsewhere
        BASE.replace("- Lint", "- Format with ruff format\n- Lint"),  # a bullet inserted
        BASE.replace("Lint with ruff before pushing", "Lint with ruff check before pushing"),
    ],
    ids=["appended-elsewhere", "inserted-below", "another-bullet-edited"],
)
def test_an_edited_plain_bullet_stays_where_it_was(other: str) -> None:
    """The edit was a deletion and an addition: the bullet moved to the end of its section."""
    text = merged(BASE, EDITED, other)
    lines = text.splitlines()
    assert lines[lines.index("## Build") + 1] == "- Use make -j16 for builds", text
    assert "make -j8" not in text


def test_an_edit_and_a_new_indented_line_under_the_bullet_are_one_bullet() -> None:
    """The issue's case for plain bullets: `-j8` → `-j16` on one side, a sub-bullet under it
    on the other: both, in one bullet (was: the old bullet with the sub-bullet, and the
    edited one at the end of the section)."""
    theirs = BASE.replace("for builds\n", "for builds\n  - on CI use -j4\n")
    text = merged(BASE, EDITED, theirs)
    assert "- Use make -j16 for builds\n  - on CI use -j4\n- Run tests" in text, text
    assert "-j8" not in text


def test_two_edits_of_one_plain_bullet_are_one_bullet_with_a_resolution() -> None:
    ours = EDITED
    theirs = BASE.replace("Use make -j8 for builds", "Use make -j8 for all builds")
    result = merge_file(INDEX, BASE.encode(), ours.encode(), theirs.encode())
    assert result.data is not None
    text = result.data.decode()
    assert text.count("- Use make") == 1, text
    assert result.resolutions and "use make -j8" in result.resolutions[0].subject


def test_an_edit_beats_a_deletion_in_place() -> None:
    theirs = BASE.replace("- Use make -j8 for builds\n", "")
    text = merged(BASE, EDITED, theirs + "- [Release](release.md) — tagging\n")
    assert "## Build\n- Use make -j16 for builds\n- Run tests" in text, text


@pytest.mark.parametrize(
    "ours",
    [
        BASE.replace("Use make -j8 for builds", "Prefer ninja over make"),  # another bullet
        BASE.replace("Use make -j8 for builds", "use make  -J8 for builds"),  # respelled
    ],
    ids=["different-words", "respelled"],
)
def test_a_bullet_replaced_by_a_different_one_is_not_an_edit(ours: str) -> None:
    """Not alike enough (or the same words respelled, which `respelled` keys as a second
    bullet): a deletion and an addition, as before — the other side's sub-bullet keeps the
    old bullet."""
    theirs = BASE.replace("for builds\n", "for builds\n  - on CI use -j4\n")
    text = merged(BASE, ours, theirs)
    assert "- Use make -j8 for builds\n  - on CI use -j4" in text, text


# Three replicas editing realistic plain bullets: whatever the merge order, the same bytes.
SENTENCES = [
    "Use make -j8 for builds",
    "Run the unit tests with pytest -x before pushing",
    "The staging database is reset every night at 02:00 UTC",
    "Prefer small commits with a clear message",
    "CI caches the virtualenv keyed by the lock file",
]
EDITS = [" (verified)", " on Linux", ", always", " — see the wiki"]


@st.composite
def replica(draw: st.DrawFn, base: list[str]) -> str:
    bullets = [[f"- {s}"] for s in base]
    for i in range(len(bullets)):
        op = draw(st.sampled_from(["keep", "keep", "edit", "sub", "delete"]))
        if op == "edit":
            bullets[i][0] += draw(st.sampled_from(EDITS))
        elif op == "sub":
            bullets[i].append(f"  - note {draw(st.integers(0, 2))}")
        elif op == "delete":
            bullets[i] = []
    if draw(st.booleans()):
        bullets.append([f"- New fact number {draw(st.integers(0, 3))} about the release"])
    return "# Memory\n\n## Conventions\n" + "".join(f"{x}\n" for b in bullets for x in b)


@st.composite
def three_replicas(draw: st.DrawFn) -> tuple[str, str, str, str]:
    base = draw(st.lists(st.sampled_from(SENTENCES), min_size=1, max_size=5, unique=True))
    text = "# Memory\n\n## Conventions\n" + "".join(f"- {s}\n" for s in base)
    return text, draw(replica(base)), draw(replica(base)), draw(replica(base))


def _under(lines: list[str], start: str) -> list[str]:
    """The indented lines right under the bullet that starts with `start`."""
    at = next((i for i, x in enumerate(lines) if x.startswith(start)), len(lines))
    out = []
    for x in lines[at + 1 :]:
        if not x.startswith("  "):
            break
        out.append(x)
    return out


@settings(max_examples=examples())
@given(three_replicas())
def test_replicas_editing_plain_bullets_converge_and_keep_every_edit(
    case: tuple[str, str, str, str],
) -> None:
    base, a, b, c = case

    def m(x: str, y: str) -> str:
        return merged(base, x, y)

    r1, r2, r3 = m(m(a, b), c), m(m(b, c), a), m(m(c, a), b)
    assert r1 == r2 == r3
    assert m(r1, a) == r1 and m(b, r1) == r1  # merging a replica in again changes nothing
    bullets = [x for x in r1.splitlines() if x.startswith("- ")]
    for s in SENTENCES:
        versions = [x for x in bullets if x.startswith(f"- {s}")]
        assert len(versions) <= 1, versions  # one bullet per sentence, never two versions
        lines = [side.splitlines() for side in (a, b, c)]
        edits = {x for ls in lines for x in ls if x.startswith(f"- {s}") and x != f"- {s}"}
        notes = {n for ls in lines for n in _under(ls, f"- {s}")}
        if edits or notes:  # an edit or a new line beats a deletion, and stays one bullet
            assert versions, (s, r1)
        if edits:
            assert versions[0] in edits, (versions, edits)
        if notes:
            assert notes <= set(_under(r1.splitlines(), versions[0])), (notes, r1)
