"""Everyday edits of memory files, seventeenth round (issue 24): memory as people write it —
lists three deep, tables with alignment rows, `~~~` and four-backtick fences, CJK and emoji
text, HTML comments, `**Term**: text` blocks, reference links, frontmatter lists, headings,
entries moved between sections, one typo fixed twice — each with the bytes a careful human would
sign, written before the merge was run. End to end (`gitmem sync` with two and three real
clones, `git merge` with the drivers both ways): tests/e2e/test_everyday_in_sync_17.py."""

from __future__ import annotations

import pytest

from merge_drivers import merge_file
from tests.support.sweep import check_case, in_every_order

I = ".claude/memory/MEMORY.md"  # noqa: E741
T = ".claude/memory/build.md"
FM = b"---\nname: build\ndescription: how we build\n---\n"
M = b"# Memory\n\n"

# The seventeenth sweep (#24): (path, base, ours, theirs, what a careful human writes) — the
# table in docs/merge.md, "Everyday cases, seventeenth round".
SWEEP: dict[str, tuple[str, bytes, bytes, bytes, bytes | None]] = {
    "nested list three deep: an item indented vs a deeper item edited": (
        T,
        FM + b"- release\n  - build\n    - fetch\n    - compile\n  - test\n  - push\n",
        FM + b"- release\n  - build\n    - fetch\n    - compile\n    - test\n  - push\n",
        FM + b"- release\n  - build\n    - fetch deps\n    - compile\n  - test\n  - push\n",
        FM + b"- release\n  - build\n    - fetch deps\n    - compile\n    - test\n  - push\n",
    ),
    "nested list three deep: items added at two depths": (
        T,
        FM + b"- release\n  - build\n    - fetch\n  - test\n",
        FM + b"- release\n  - build\n    - fetch\n    - compile\n  - test\n",
        FM + b"- release\n  - build\n    - fetch\n  - test\n  - push\n",
        FM + b"- release\n  - build\n    - fetch\n    - compile\n  - test\n  - push\n",
    ),
    "table with alignment row: a column added vs a cell edited": (
        T,
        b"| cmd | why |\n|:---|---:|\n| make | build |\n| ruff | lint |\n",
        b"| cmd | why | when |\n|:---|---:|:---:|\n| make | build | always |\n| ruff | lint | CI |\n",
        b"| cmd | why |\n|:---|---:|\n| make | build |\n| ruff | lint and format |\n",
        b"| cmd | why | when |\n|:---|---:|:---:|\n| make | build | always |\n"
        b"| ruff | lint and format | CI |\n",
    ),
    "table alignment changed vs a cell edited": (
        T,
        b"| cmd | why |\n|---|---|\n| make | build |\n| ruff | lint |\n",
        b"| cmd | why |\n|:---|:---:|\n| make | build |\n| ruff | lint |\n",
        b"| cmd | why |\n|---|---|\n| make | build all |\n| ruff | lint |\n",
        b"| cmd | why |\n|:---|:---:|\n| make | build all |\n| ruff | lint |\n",
    ),
    "tilde fence: two lines inside edited on two sides": (
        T,
        b"~~~sh\nmake deps\nmake lint\nmake test\n~~~\n",
        b"~~~sh\nmake deps -q\nmake lint\nmake test\n~~~\n",
        b"~~~sh\nmake deps\nmake lint\nmake test -j8\n~~~\n",
        b"~~~sh\nmake deps -q\nmake lint\nmake test -j8\n~~~\n",
    ),
    "four-backtick fence holding a fence: inner line vs the tag": (
        T,
        b"````\n```sh\nmake test\n```\n````\n",
        b"````markdown\n```sh\nmake test\n```\n````\n",
        b"````\n```sh\nmake test -j8\n```\n````\n",
        b"````markdown\n```sh\nmake test -j8\n```\n````\n",
    ),
    "tilde fence: a line appended inside vs a bullet after it": (
        T,
        b"~~~\nfly deploy\n~~~\n\n- then check logs\n",
        b"~~~\nfly deploy\nfly status\n~~~\n\n- then check logs\n",
        b"~~~\nfly deploy\n~~~\n\n- then check the logs\n",
        b"~~~\nfly deploy\nfly status\n~~~\n\n- then check the logs\n",
    ),
    "CJK paragraph: two edits far apart": (
        T,
        "デプロイは金曜日の正午に行います。その後タグを付けます。\n".encode(),
        "デプロイは木曜日の正午に行います。その後タグを付けます。\n".encode(),
        "デプロイは金曜日の正午に行います。その後リリースタグを付けます。\n".encode(),
        "デプロイは木曜日の正午に行います。その後リリースタグを付けます。\n".encode(),
    ),
    "CJK bullets: one reworded, one added": (
        T,
        "- 先测试\n- 再部署\n".encode(),
        "- 先运行测试\n- 再部署\n".encode(),
        "- 先测试\n- 再部署\n- 最后打标签\n".encode(),
        "- 先运行测试\n- 再部署\n- 最后打标签\n".encode(),
    ),
    "emoji added to a bullet vs a word edited": (
        T,
        b"- deploy on friday\n- never force push\n",
        "- deploy on friday 🚀\n- never force push\n".encode(),
        b"- deploy on thursday\n- never force push\n",
        "- deploy on thursday 🚀\n- never force push\n".encode(),
    ),
    "emoji with a skin tone and a ZWJ family vs an edit next to it": (
        T,
        "- ask 👩‍💻 Ana 👍🏽 first\n".encode(),
        "- ask 👩‍💻 Ana 👍🏽 first, always\n".encode(),
        "- ask 👩‍💻 Ana or Bo 👍🏽 first\n".encode(),
        "- ask 👩‍💻 Ana or Bo 👍🏽 first, always\n".encode(),
    ),
    "combining accent (decomposed) vs a word edited": (
        T,
        "- the cafe\u0301 server runs nightly\n".encode(),
        "- the cafe\u0301 server runs every night\n".encode(),
        "- the cafe\u0301 box runs nightly\n".encode(),
        "- the cafe\u0301 box runs every night\n".encode(),
    ),
    "HTML comment edited vs moved": (
        T,
        b"<!-- owner: ana -->\n\n## Deploy\n\n- fly deploy\n",
        b"## Deploy\n\n<!-- owner: ana -->\n\n- fly deploy\n",
        b"<!-- owner: bo -->\n\n## Deploy\n\n- fly deploy\n",
        b"## Deploy\n\n<!-- owner: bo -->\n\n- fly deploy\n",
    ),
    "HTML comment: two words edited on two sides": (
        T,
        b"<!-- reviewed by ana on friday -->\n- fly deploy\n",
        b"<!-- reviewed by bo on friday -->\n- fly deploy\n",
        b"<!-- reviewed by ana on monday -->\n- fly deploy\n",
        b"<!-- reviewed by bo on monday -->\n- fly deploy\n",
    ),
    "definition block: one term edited vs a term added": (
        T,
        b"**Staging**: resets nightly\n**Prod**: deploy on friday\n",
        b"**Staging**: resets every night at 2am\n**Prod**: deploy on friday\n",
        b"**Staging**: resets nightly\n**Prod**: deploy on friday\n**Dev**: anything goes\n",
        b"**Staging**: resets every night at 2am\n**Prod**: deploy on friday\n"
        b"**Dev**: anything goes\n",
    ),
    "reference link: the url line edited vs the sentence edited": (
        T,
        b"Read [the guide][1] first.\n\n[1]: https://example.com/guide\n",
        b"Read [the guide][1] first.\n\n[1]: https://example.com/docs/guide\n",
        b"Read [the guide][1] before you deploy.\n\n[1]: https://example.com/guide\n",
        b"Read [the guide][1] before you deploy.\n\n[1]: https://example.com/docs/guide\n",
    ),
    "reference link: a second reference added on each side": (
        T,
        b"See [a][1].\n\n[1]: https://a.example\n",
        b"See [a][1] and [b][2].\n\n[1]: https://a.example\n[2]: https://b.example\n",
        b"See [a][1] or [c][3].\n\n[1]: https://a.example\n[3]: https://c.example\n",
        b"See [a][1] or [c][3].\n\n[1]: https://a.example\n[3]: https://c.example\n"
        b"[2]: https://b.example\n",
    ),  # acceptable: one side's sentence (one phrase edited twice, a tie-break), every `[n]:`
    "a line appended to a paragraph on each side": (
        T,
        b"Deploy notes.\nUse fly.\n\n- x\n",
        b"Deploy notes.\nUse fly.\nCheck the logs.\n\n- x\n",
        b"Deploy notes.\nUse fly.\nTag the release.\n\n- x\n",
        b"Deploy notes.\nUse fly.\nTag the release.\nCheck the logs.\n\n- x\n",
    ),
    "frontmatter tags: one added vs one removed": (
        T,
        b"---\nname: build\ntags: [ci, deploy, make]\n---\nbody\n",
        b"---\nname: build\ntags: [ci, deploy, make, uv]\n---\nbody\n",
        b"---\nname: build\ntags: [ci, make]\n---\nbody\n",
        b"---\nname: build\ntags: [ci, make, uv]\n---\nbody\n",
    ),
    "frontmatter block list: one added on each side": (
        T,
        b"---\nname: build\ntags:\n  - ci\n  - make\n---\nbody\n",
        b"---\nname: build\ntags:\n  - ci\n  - make\n  - uv\n---\nbody\n",
        b"---\nname: build\ntags:\n  - ci\n  - deploy\n  - make\n---\nbody\n",
        b"---\nname: build\ntags:\n  - ci\n  - deploy\n  - make\n  - uv\n---\nbody\n",
    ),
    "heading renamed vs a sub-heading added under it": (
        T,
        b"## Deploy\n\n- fly deploy\n\n## Test\n\n- make test\n",
        b"## Deploying\n\n- fly deploy\n\n## Test\n\n- make test\n",
        b"## Deploy\n\n- fly deploy\n\n### Rollback\n\n- fly releases\n\n## Test\n\n- make test\n",
        b"## Deploying\n\n- fly deploy\n\n### Rollback\n\n- fly releases\n\n## Test\n\n"
        b"- make test\n",
    ),
    "index entry moved between sections while its hook is edited": (
        I,
        M + b"## Build\n- [Make](make.md) - the targets\n- [Uv](uv.md) - deps\n\n"
        b"## Deploy\n- [Fly](fly.md) - deploys\n",
        M + b"## Build\n- [Make](make.md) - the targets\n\n"
        b"## Deploy\n- [Fly](fly.md) - deploys\n- [Uv](uv.md) - deps\n",
        M + b"## Build\n- [Make](make.md) - the targets\n- [Uv](uv.md) - deps and the lock\n\n"
        b"## Deploy\n- [Fly](fly.md) - deploys\n",
        M + b"## Build\n- [Make](make.md) - the targets\n\n"
        b"## Deploy\n- [Fly](fly.md) - deploys\n- [Uv](uv.md) - deps and the lock\n",
    ),
    "topic bullet moved between sections while edited": (
        T,
        b"## Build\n\n- make all\n- uv sync before anything\n\n## Deploy\n\n- fly deploy\n",
        b"## Build\n\n- make all\n\n## Deploy\n\n- uv sync before anything\n- fly deploy\n",
        b"## Build\n\n- make all\n- uv sync --frozen before anything\n\n## Deploy\n\n- fly deploy\n",
        b"## Build\n\n- make all\n\n## Deploy\n\n- uv sync --frozen before anything\n- fly deploy\n",
    ),
    "the same typo fixed two ways": (
        T,
        b"- we recieve alerts on slack\n",
        b"- we receive alerts on slack\n",
        b"- we get alerts on slack\n",
        None,
    ),  # acceptable: one fix, the newer (through sync), else the tie-break's; both are right
    "CRLF topic: two lines edited on two sides": (
        T,
        b"# B\r\n\r\n- one\r\n- two\r\n- three\r\n",
        b"# B\r\n\r\n- one!\r\n- two\r\n- three\r\n",
        b"# B\r\n\r\n- one\r\n- two\r\n- three!\r\n",
        b"# B\r\n\r\n- one!\r\n- two\r\n- three!\r\n",
    ),
    "CRLF re-saved LF (nothing else) vs a CRLF edit": (
        T,
        b"# B\r\n\r\n- one\r\n- two\r\n",
        b"# B\n\n- one\n- two\n",
        b"# B\r\n\r\n- one\r\n- two!\r\n",
        b"# B\n\n- one\n- two!\n",
    ),
    "index: a plain bullet added between linked entries": (
        I,
        M + b"## Build\n- [Make](make.md) - targets\n- [Uv](uv.md) - deps\n",
        M + b"## Build\n- [Make](make.md) - targets\n- always run make lint first\n"
        b"- [Uv](uv.md) - deps\n",
        M + b"## Build\n- [Make](make.md) - the targets\n- [Uv](uv.md) - deps\n",
        None,  # wrong, left: the plain bullet goes to the section's end (docs/merge.md)
    ),
    "index: one-letter checklist items ticked on two sides": (
        I,
        M + b"## Todo\n- [ ] a\n- [ ] b\n- [ ] c\n",
        M + b"## Todo\n- [x] a\n- [ ] b\n- [ ] c\n",
        M + b"## Todo\n- [ ] a\n- [x] b\n- [ ] c\n",
        M + b"## Todo\n- [x] a\n- [x] b\n- [ ] c\n",
    ),
    "index: a link target holding a space, hook vs title edited": (
        I,
        M + b"- [Notes](my notes.md) - what we learned\n- [Uv](uv.md) - deps\n",
        M + b"- [Notes](my notes.md) - what we learned in march\n- [Uv](uv.md) - deps\n",
        M + b"- [Our notes](my notes.md) - what we learned\n- [Uv](uv.md) - deps\n",
        M + b"- [Our notes](my notes.md) - what we learned in march\n- [Uv](uv.md) - deps\n",
    ),
}


@pytest.mark.parametrize("name", sorted(SWEEP))
def test_the_seventeenth_sweep(name: str) -> None:
    check_case(SWEEP[name])  # None expected: wrong and left (docs/merge.md)


# Each fix of the round, with its neighbours (the class, not the example).
ADORNED = [
    ("- deploy on friday\n", "- deploy on friday 🚀\n", "- deploy on thursday 🚀\n"),
    ("deploy on friday now\n", "deploy on friday ✅ now\n", "deploy on thursday ✅ now\n"),
    ("> deploy on friday\n", "> 👍🏽 deploy on friday\n", "> 👍🏽 deploy on thursday\n"),
    ("deploy on friday\n", "deploy on friday →\n", "deploy on thursday →\n"),
]


@pytest.mark.parametrize(("base", "adorned", "want"), ADORNED)
def test_a_symbol_added_next_to_a_word_the_other_side_rewrote_both_stand(
    base: str, adorned: str, want: str
) -> None:
    """An emoji or symbol (no letter, no digit) written next to a word the other side rewrote
    adorns the phrase, as emphasis does: both stand (before: one side's line, a tie-break)."""
    theirs = base.replace("friday", "thursday")
    check_case((T, base.encode(), adorned.encode(), theirs.encode(), want.encode()))


def test_a_word_written_next_to_a_rewritten_word_is_still_one_phrase_edited_twice() -> None:
    """The neighbour that stays a conflict: `use make -j2` against `use ninja` (a word with a
    letter or digit edits the phrase: one side's, told)."""
    out = merge_file(T, b"use make\n", b"use make -j2\n", b"use ninja\n")
    assert out.data in (b"use make -j2\n", b"use ninja\n") and out.resolutions


COMMENTS = [
    (
        b"<!-- reviewed by ana on friday -->\n",
        b"<!-- reviewed by bo on friday -->\n",
        b"<!-- reviewed by ana on monday -->\n",
        b"<!-- reviewed by bo on monday -->\n",
    ),
    (
        b"<!-- reviewed by ana\non friday -->\n",
        b"<!-- reviewed by bo\non friday -->\n",
        b"<!-- reviewed by ana\non monday -->\n",
        b"<!-- reviewed by bo\non monday -->\n",
    ),
]


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"])
@pytest.mark.parametrize(("base", "ours", "theirs", "want"), COMMENTS)
def test_an_html_comment_merges_word_by_word(
    base: bytes, ours: bytes, theirs: bytes, want: bytes, eol: bytes
) -> None:
    """An HTML comment (one line or several, LF or CRLF) merges as the prose it holds, as a
    quote does: two words edited on two sides both stand (before: one side's comment)."""
    z, a, b, w = (
        x.replace(b"\n", eol) + eol + b"- fly deploy" + eol for x in (base, ours, theirs, want)
    )
    check_case((T, z, a, b, w))


def test_text_that_is_not_one_whole_comment_is_not_unwrapped() -> None:
    """Two comments in one hunk, or `<!--x` written without its space, are not merged by
    words: the lines' merge as before (nothing invented between the marks)."""
    base = b"<!--a b c-->\n"
    out = merge_file(T, base, b"<!--a B c-->\n", b"<!--a b C-->\n")
    assert out.data in (b"<!--a B c-->\n", b"<!--a b C-->\n")


MOVED = {
    "quote": (b"> keep it short\n", b"> keep it very short\n"),
    "fence": (b"```sh\nmake test\n```\n", b"```sh\nmake test -j8\n```\n"),
    "table": (b"| a | b |\n|---|---|\n| x | y |\n", b"| a | b |\n|---|---|\n| x | y z |\n"),
    "comment": (b"<!-- owner: ana -->\n", b"<!-- owner: bo -->\n"),
    "code": (b"    make test\n", b"    make test -j8\n"),
    "paragraph": (b"Keep it short.\n", b"Keep it very short.\n"),
}


@pytest.mark.parametrize("kind", sorted(MOVED))
def test_a_block_of_any_kind_moved_and_edited_lands_once_merged_again(kind: str) -> None:
    """A block moved under a heading on one side and edited in place on the other: moved
    and edited, once — and merged again with the editor, still once (before: a comment,
    quote, fence, table or indented code stood twice, the moves replayed for items and
    paragraphs only)."""
    was, now = MOVED[kind]
    base = was + b"\n## Deploy\n\n- fly deploy\n"
    moved = b"## Deploy\n\n" + was + b"\n- fly deploy\n"
    edited = now + b"\n## Deploy\n\n- fly deploy\n"
    check_case((T, base, moved, edited, b"## Deploy\n\n" + now + b"\n- fly deploy\n"))


STYLES = [  # (base, ours: a side that only changed the marks, theirs: an edit) -> merged
    (b"a\r\nb\r\n", b"a\nb\n", b"a\r\nb!\r\n", b"a\nb!\n"),
    (b"a\nb\n", b"a\r\nb\r\n", b"a\nb!\n", b"a\r\nb!\r\n"),
    (b"a\nb\n", b"\xef\xbb\xbfa\nb\n", b"a\nb!\n", b"\xef\xbb\xbfa\nb!\n"),
    (b"\xef\xbb\xbfa\nb\n", b"a\nb\n", b"\xef\xbb\xbfa\nb!\n", b"a\nb!\n"),
    # each mark on its own: one side took the BOM off, the other re-saved CRLF
    (b"\xef\xbb\xbfa\nb\n", b"a\nb\n", b"\xef\xbb\xbfa\r\nb!\r\n", b"a\r\nb!\r\n"),
]


@pytest.mark.parametrize("path", [T, I, ".claude/memory/notes.txt"])
@pytest.mark.parametrize(("base", "ours", "theirs", "want"), STYLES)
def test_a_bom_and_line_endings_merge_three_way(
    path: str, base: bytes, ours: bytes, theirs: bytes, want: bytes
) -> None:
    """A side that only re-saved the file (LF, CRLF, a BOM added or taken off) and a side
    that edited words: both intents stand, at every resolver (before: the base's marks,
    the re-save lost, unlike a re-save merged with an untouched side)."""
    check_case((path, base, ours, theirs, want))


def test_line_endings_of_three_machines_converge() -> None:
    """One machine re-saves LF, two edit lines: every order gives LF and both edits."""
    base = b"- one\r\n- two\r\n- three\r\n"
    sides = (base.replace(b"\r\n", b"\n"), base.replace(b"one", b"one!"), base + b"- four\r\n")
    assert in_every_order(T, base, *sides) == b"- one!\n- two\n- three\n- four\n"


def test_one_typo_fixed_two_ways_is_one_fix() -> None:
    """Both sides fixed `recieve`: one fix stands (never `receive get`), the loser told."""
    _, base, ours, theirs, _ = SWEEP["the same typo fixed two ways"]
    out = merge_file(T, base, ours, theirs)
    assert out.data in (ours, theirs) and out.resolutions


@pytest.mark.parametrize(
    ("was", "now"),
    [("- [ ] a", "- [x] a"), ("- [x] b", "- [ ] b"), ("- [ ] fix ci", "- [X] fix the ci")],
)
def test_a_checklist_item_ticked_in_an_index_stays_in_its_slot(was: str, now: str) -> None:
    """A `MEMORY.md` checklist item ticked (or unticked, or ticked and reworded) while the
    other side edits its neighbour: the same item, where it stood — its box is structure,
    not a word (before: a one-letter item ticked was another item, filed at the end)."""
    base = f"# Memory\n\n## Todo\n- [ ] first\n{was}\n- [ ] last\n".encode()
    ours = base.replace(was.encode(), now.encode())
    theirs = base.replace(b"- [ ] first", b"- [ ] first one")
    want = ours.replace(b"- [ ] first", b"- [ ] first one")
    check_case((I, base, ours, theirs, want))
