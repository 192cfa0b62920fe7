"""`MEMORY.md` read by the block scanner (issue 24): one parser per format. The index's items
are the scanner's top-level blocks (an entry: a list item and its lines, up to its first blank
line), so headings, fences, comments, tables and rules read alike in both models."""

from __future__ import annotations

from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import SideInfo, merge_file
from merge_drivers.indexdoc import heading_level, parse, render
from tests.merge_drivers.conftest import examples
from tests.merge_drivers.test_blocks import PIECES

INDEX_PIECES = [
    *PIECES,
    "- [Build](build.md) — how to build",
    "- [Test](./test.md) — how to test",
    " - sub point",
    "  wrapped detail",
    "  ```sh",
    "  make",
    "  | a | b |",
    "- **api.md** — the API",
    "---",
    "name: x",
]


@settings(max_examples=examples())
@given(st.lists(st.sampled_from(INDEX_PIECES), max_size=30), st.booleans())
def test_parse_then_render_is_the_identity(pieces: list[str], end: bool) -> None:
    text = "\n".join(pieces) + ("\n" if end else "")
    index = parse(text)
    assert not index.inline
    assert render(index.items, index.tail, index.eol) == text


@settings(max_examples=examples())
@given(st.lists(st.sampled_from(INDEX_PIECES), max_size=20))
def test_an_untouched_index_merges_to_its_own_bytes(pieces: list[str]) -> None:
    data = ("\n".join(pieces) + "\n").encode()
    assert merge_file("MEMORY.md", data, data, data).data == data
    more = data + "- [New](new.md) — new\n".encode()
    assert merge_file("MEMORY.md", data, data, more).data == more


def kinds(text: str) -> list[tuple[str, str]]:
    return [(it.kind, it.text) for it in parse(text).items]


def test_headings_are_read_as_the_scanner_reads_them() -> None:
    """An indented `##` and an underlined title are headings; `#tag` is not."""
    text = "Memory\n======\n ## Build\n- one\n#tag\n"
    assert kinds(text) == [
        ("head", "Memory\n======"),
        ("head", " ## Build"),
        ("entry", "- one"),
        ("block", "#tag"),
    ]
    assert heading_level("Memory\n======") == 1 and heading_level(" ## Build") == 2
    plain = parse(text).items[2]
    assert plain.key[1] == "build"  # a plain bullet is keyed by the section it stands in


def test_a_rule_is_not_an_entry_and_a_table_is_one_block() -> None:
    text = "# M\n- - -\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    assert kinds(text) == [
        ("head", "# M"),
        ("block", "- - -"),
        ("block", "| a | b |\n|---|---|\n| 1 | 2 |"),
    ]


def test_an_entry_holds_its_nested_blocks_and_ends_at_a_blank_line() -> None:
    """Fences, comments, tables and sub-items indented under an entry are the entry's; a
    paragraph after a blank line is a block of its own (a merge writes that blank line to
    keep a paragraph apart from the entry above it, and reads it back the same)."""
    entry = (
        "- [A](a.md) — a\n  <!-- why -->\n  | k | v |\n  |---|---|\n - sub point\n  ```\n\n  ```"
    )
    text = f"{entry}\n\n  wrapped detail\nmore of it\n- [B](b.md) — b\n"
    assert kinds(text) == [
        ("entry", entry),
        ("block", "  wrapped detail\nmore of it"),
        ("entry", "- [B](b.md) — b"),
    ]


def test_a_table_under_an_entry_merges_with_an_edit_of_its_hook() -> None:
    base = "# M\n- [A](a.md) — a\n  | k | v |\n  |---|---|\n  | x | 1 |\n- [B](b.md) — b\n"
    ours = base.replace("| x | 1 |", "| x | 2 |")
    theirs = base.replace("— a\n", "— a, edited\n")
    both = ours.replace("— a\n", "— a, edited\n")
    for o, t in ((ours, theirs), (theirs, ours)):
        assert merge_file("MEMORY.md", base.encode(), o.encode(), t.encode()).data == both.encode()
    gone = base.replace("- [A](a.md) — a\n  | k | v |\n  |---|---|\n  | x | 1 |\n", "")
    kept = merge_file("MEMORY.md", base.encode(), gone.encode(), theirs.encode()).data
    assert kept == theirs.encode()  # modified beats deleted: the table goes with its entry


HOOK = "- [Build](build.md) — run make -j8 before the tests on every branch"


def test_hook_word_edits_in_different_places_both_survive() -> None:
    """Like a topic file's prose: `-j8` → `-j16` on one side, `every branch` → `main` on the
    other, both kept, no resolution; re-merging either side changes nothing."""
    base = f"# Memory\n{HOOK}\n- [DB](db.md) — the DB\n"
    ours = base.replace("-j8", "-j16")
    theirs = base.replace("every branch", "main")
    both = ours.replace("every branch", "main")
    for o, t in ((ours, theirs), (theirs, ours)):
        result = merge_file("MEMORY.md", base.encode(), o.encode(), t.encode())
        assert result.data == both.encode() and not result.resolutions
    again = merge_file("MEMORY.md", base.encode(), both.encode(), ours.encode())
    assert again.data == both.encode()


def test_the_same_hook_words_changed_on_both_sides_go_to_the_more_confident_topic() -> None:
    base = f"# Memory\n{HOOK}\n"
    ours = base.replace("-j8", "-j16").replace("every branch", "main")
    theirs = base.replace("-j8", "-j4")
    sure = SideInfo(siblings={"build.md": b"---\nconfidence: 0.9\n---\nbody\n"})
    unsure = SideInfo(siblings={"build.md": b"---\nconfidence: 0.2\n---\nbody\n"})
    for info_o, info_t, word in ((sure, unsure, "-j16"), (unsure, sure, "-j4")):
        result = merge_file(
            "MEMORY.md", base.encode(), ours.encode(), theirs.encode(), info_o, info_t
        )
        assert result.data == base.replace("-j8", word).replace("every branch", "main").encode()
        (res,) = result.resolutions
        assert res.subject == "entry build.md"


WORDS = ["run", "make", "-j8", "before", "the", "tests", "on", "every", "branch"]
# three places of WORDS two words apart at least, in every order: drawn so, not drawn freely
# and given up on (5 draws of 6 were, 1,828 for 300 examples; round 21, #23)
SPACED = [
    p
    for p in permutations(range(len(WORDS)), 3)
    if sorted(p)[1] - sorted(p)[0] >= 2 and sorted(p)[2] - sorted(p)[1] >= 2
]


@settings(max_examples=examples())
@given(
    st.builds(
        lambda at, words: list(zip(at, words, strict=True)),
        st.sampled_from(SPACED),
        st.lists(st.sampled_from(["-j16", "lint", "", "CI"]), min_size=3, max_size=3),
    )
)
def test_three_replicas_editing_hook_words_converge(edits: list[tuple[int, str]]) -> None:
    """Each replica rewrites (or drops) one word of the hook, two words apart at least (the
    same or neighbouring words: a winner between merged versions, docs/merge.md, Known limits);
    every merge order gives one index, and merging a replica in again changes nothing."""
    places = sorted(at for at, _ in edits)
    assert places[1] - places[0] >= 2 and places[2] - places[1] >= 2
    base = f"# Memory\n- [Build](build.md) — {' '.join(WORDS)}\n"
    sides = []
    for at, word in edits:
        w = list(WORDS)
        w[at] = word
        sides.append(f"# Memory\n- [Build](build.md) — {' '.join(x for x in w if x)}\n".encode())
    a, b, c = sides
    z = base.encode()

    def m(x: bytes, y: bytes) -> bytes:
        out = merge_file("MEMORY.md", z, x, y).data
        assert out is not None
        return out

    results = {m(m(a, b), c), m(a, m(b, c)), m(m(a, c), b)}
    assert len(results) == 1
    (r,) = results
    assert m(r, a) == r and m(b, r) == r


@settings(max_examples=examples())
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.sampled_from(["-j16", "lint", "CI", "-j4"])),
        min_size=3,
        max_size=3,
    )
)
def test_three_replicas_replacing_the_same_or_neighbouring_hook_words_converge(
    edits: list[tuple[int, str]],
) -> None:
    """The class the test above leaves out: replicas replacing the same word or neighbouring
    words (`-j16 make …`, `lint make …`, `run lint …`). Each word is decided from the base's
    word and the two sides' words, not between merged versions: one index in every order
    (before: `-j16 lint -j8 …` or `lint -j8 …` by merge order), every word no replica shares
    with another kept, idempotent."""
    base = f"# Memory\n- [Build](build.md) — {' '.join(WORDS)}\n"
    sides = []
    for at, word in edits:
        w = list(WORDS)
        w[at] = word
        sides.append(f"# Memory\n- [Build](build.md) — {' '.join(w)}\n".encode())
    a, b, c = sides
    z = base.encode()

    def m(x: bytes, y: bytes) -> bytes:
        out = merge_file("MEMORY.md", z, x, y).data
        assert out is not None
        assert out == merge_file("MEMORY.md", z, y, x).data
        return out

    results = {m(m(a, b), c), m(a, m(b, c)), m(m(a, c), b)}
    assert len(results) == 1
    (r,) = results
    assert m(r, a) == r and m(b, r) == r
    hook = r.decode().split(" — ", 1)[1].split()
    for at, word in edits:
        if {w2 for o, w2 in edits if o == at} == {word}:
            assert hook[at] == word  # an edit no other replica disputes stands
        else:  # disputed: the greater word (a tie: no confidence, no dates)
            assert hook[at] == max(w2 for o, w2 in edits if o == at)


def test_a_hook_with_a_word_inserted_and_one_dropped_is_not_merged_word_for_word() -> None:
    """As many words as the base, not where they stood (`CI` inserted, `branch` dropped):
    merged as words are (`fine.merge_words`), never position by position — that would pair
    `run` with `CI` and mangle the hook."""
    base = f"# Memory\n{HOOK}\n"
    ours = base.replace("— run", "— CI run").replace(" every branch", " every")
    theirs = base.replace("-j8", "-j16")
    result = merge_file("MEMORY.md", base.encode(), ours.encode(), theirs.encode())
    assert result.data == ours.replace("-j8", "-j16").encode()
