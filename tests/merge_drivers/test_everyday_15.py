"""Everyday edits of memory files, fifteenth round (issue 24): the neighbours of the earlier
sweeps, each with what a careful human would sign. End to end (`gitmem sync` with two and
three real clones, `git merge` with the drivers both ways): tests/e2e/test_everyday_in_sync_15.py."""

from __future__ import annotations

import pytest

from merge_drivers import merge_file
from tests.support.sweep import check_case, in_every_order

I = ".claude/memory/MEMORY.md"  # noqa: E741
T = ".claude/memory/build.md"
FM = b"---\nname: build\ndescription: how we build\n---\n"
M = b"# Memory\n\n"

# The fifteenth sweep (#24): (path, base, ours, theirs, what a careful human writes) — the
# table in docs/history/merge.md, "Everyday cases, fifteenth round".
SWEEP: dict[str, tuple[str, bytes, bytes, bytes, bytes | None]] = {
    "tilde fence with info string, edit inside vs bullet after": (
        T,
        FM
        + b'~~~python title="bump.py"\nbump("patch")\nprint("ok")\n~~~\n\n- run it from the root\n',
        FM
        + b'~~~python title="bump.py"\nbump("minor")\nprint("ok")\n~~~\n\n- run it from the root\n',
        FM
        + b'~~~python title="bump.py"\nbump("patch")\nprint("ok")\n~~~\n\n- run it from the repo root\n',
        FM
        + b'~~~python title="bump.py"\nbump("minor")\nprint("ok")\n~~~\n\n- run it from the repo root\n',
    ),
    "fence info string changed vs a line inside edited": (
        T,
        FM + b"```sh\nmake\nmake test\n```\n",
        FM + b"```bash\nmake\nmake test\n```\n",
        FM + b"```sh\nmake\nmake test -j8\n```\n",
        FM + b"```bash\nmake\nmake test -j8\n```\n",
    ),
    "indented fence in a list item, two lines edited": (
        T,
        b"- build it:\n\n  ```sh\n  make deps\n  make all\n  ```\n- ship\n",
        b"- build it:\n\n  ```sh\n  make deps -j8\n  make all\n  ```\n- ship\n",
        b"- build it:\n\n  ```sh\n  make deps\n  make all check\n  ```\n- ship\n",
        b"- build it:\n\n  ```sh\n  make deps -j8\n  make all check\n  ```\n- ship\n",
    ),
    "tilde fence, lines inserted at two places": (
        T,
        b"~~~\nstep one\nstep two\nstep three\n~~~\n",
        b"~~~\nstep zero\nstep one\nstep two\nstep three\n~~~\n",
        b"~~~\nstep one\nstep two\nstep three\nstep four\n~~~\n",
        b"~~~\nstep zero\nstep one\nstep two\nstep three\nstep four\n~~~\n",
    ),
    "nested child added vs parent reworded": (
        T,
        b"- build\n  - fetch deps\n- test\n",
        b"- build\n  - fetch deps\n  - compile\n- test\n",
        b"- build everything\n  - fetch deps\n- test\n",
        b"- build everything\n  - fetch deps\n  - compile\n- test\n",
    ),
    "item moved between lists vs another edited": (
        T,
        b"## Todo\n- write docs\n- fix CI\n\n## Done\n- ship 1.0\n",
        b"## Todo\n- write docs\n\n## Done\n- ship 1.0\n- fix CI\n",
        b"## Todo\n- write the docs\n- fix CI\n\n## Done\n- ship 1.0\n",
        b"## Todo\n- write the docs\n\n## Done\n- ship 1.0\n- fix CI\n",
    ),
    "nested ordered sub-step added vs step reworded": (
        T,
        b"1. build\n   1. fetch\n   2. compile\n2. test\n",
        b"1. build\n   1. fetch\n   2. compile\n   3. link\n2. test\n",
        b"1. build\n   1. fetch\n   2. compile\n2. run the tests\n",
        b"1. build\n   1. fetch\n   2. compile\n   3. link\n2. run the tests\n",
    ),
    "table two cells of one row": (
        T,
        b"| cmd | why | when |\n|:---|:---:|---:|\n| make | build | always |\n",
        b"| cmd | why | when |\n|:---|:---:|---:|\n| make -j8 | build | always |\n",
        b"| cmd | why | when |\n|:---|:---:|---:|\n| make | build | on push |\n",
        b"| cmd | why | when |\n|:---|:---:|---:|\n| make -j8 | build | on push |\n",
    ),
    "table row added vs column renamed": (
        T,
        b"| cmd | why |\n|---|---|\n| make | build |\n",
        b"| cmd | why |\n|---|---|\n| make | build |\n| ruff | lint |\n",
        b"| command | why |\n|---|---|\n| make | build |\n",
        b"| command | why |\n|---|---|\n| make | build |\n| ruff | lint |\n",
    ),
    "table escaped pipe cell vs other row": (
        T,
        b"| cmd | note |\n|---|---|\n| `a \\| b` | pipe |\n| make | build |\n",
        b"| cmd | note |\n|---|---|\n| `a \\| b \\| c` | pipe |\n| make | build |\n",
        b"| cmd | note |\n|---|---|\n| `a \\| b` | pipe |\n| make | build all |\n",
        b"| cmd | note |\n|---|---|\n| `a \\| b \\| c` | pipe |\n| make | build all |\n",
    ),
    "CRLF file, other side appends an LF line": (
        T,
        b"# B\r\n\r\n- one\r\n- two\r\n",
        b"# B\r\n\r\n- one!\r\n- two\r\n",
        b"# B\r\n\r\n- one\r\n- two\r\n- three\n",
        b"# B\r\n\r\n- one!\r\n- two\r\n- three\r\n",
    ),
    "CRLF file resaved LF and edited vs CRLF edit": (
        T,
        b"# B\r\n\r\n- one\r\n- two\r\n- three\r\n",
        b"# B\n\n- one!\n- two\n- three\n",
        b"# B\r\n\r\n- one\r\n- two\r\n- three!\r\n",
        b"# B\n\n- one!\n- two\n- three!\n",
    ),  # both edits and the LF re-save: line endings merged three-way (round 17)
    "CJK one sentence, two words edited": (
        T,
        "部署前先运行测试并检查格式。\n".encode(),
        "部署前先运行全部测试并检查格式。\n".encode(),
        "部署前先运行测试并检查格式和类型。\n".encode(),
        "部署前先运行全部测试并检查格式和类型。\n".encode(),
    ),
    "Japanese two clauses with 、": (
        T,
        "テストを実行し、結果を確認する。\n".encode(),
        "全部のテストを実行し、結果を確認する。\n".encode(),
        "テストを実行し、結果をログで確認する。\n".encode(),
        "全部のテストを実行し、結果をログで確認する。\n".encode(),
    ),
    "ZWJ emoji bullet vs other bullet": (
        T,
        "- 👩‍💻 pair on reviews\n- 🧪 tests first\n".encode(),
        "- 👩‍💻 pair on every review\n- 🧪 tests first\n".encode(),
        "- 👩‍💻 pair on reviews\n- 🧪 tests first, always\n".encode(),
        "- 👩‍💻 pair on every review\n- 🧪 tests first, always\n".encode(),
    ),
    "emoji prose, two words of one line": (
        T,
        "Ship 🚀 on friday after the 🧪 tests pass.\n".encode(),
        "Ship 🚀 on thursday after the 🧪 tests pass.\n".encode(),
        "Ship 🚀 on friday after the 🧪 e2e tests pass.\n".encode(),
        "Ship 🚀 on thursday after the 🧪 e2e tests pass.\n".encode(),
    ),
    "frontmatter flow list each adds a tag": (
        T,
        b"---\nname: b\ntags: [build, ci]\n---\nbody\n",
        b"---\nname: b\ntags: [build, ci, release]\n---\nbody\n",
        b"---\nname: b\ntags: [build, ci, deps]\n---\nbody\n",
        b"---\nname: b\ntags: [build, ci, deps, release]\n---\nbody\n",
    ),  # acceptable: the union, the new tags sorted
    "frontmatter flow list one drops, one adds": (
        T,
        b"---\nname: b\ntags: [build, ci, old]\n---\nbody\n",
        b"---\nname: b\ntags: [build, ci]\n---\nbody\n",
        b"---\nname: b\ntags: [build, ci, old, deps]\n---\nbody\n",
        b"---\nname: b\ntags: [build, ci, deps]\n---\nbody\n",
    ),
    "HTML comment edited vs bullet after": (
        T,
        b"<!-- keep this list short -->\n- use uv\n- ship\n",
        b"<!-- keep this list short: ten lines -->\n- use uv\n- ship\n",
        b"<!-- keep this list short -->\n- use uv\n- ship on friday\n",
        b"<!-- keep this list short: ten lines -->\n- use uv\n- ship on friday\n",
    ),
    "HTML comment added vs bullet edited": (
        T,
        b"# B\n\n- use uv\n- ship\n",
        b"# B\n\n<!-- generated by hand -->\n- use uv\n- ship\n",
        b"# B\n\n- use uv 0.5\n- ship\n",
        b"# B\n\n<!-- generated by hand -->\n- use uv 0.5\n- ship\n",
    ),
    "index paragraph two neighbouring lines": (
        I,
        M + b"first line a\nsecond line b\nthird line c\n\n- [Build](build.md) - how\n",
        M + b"first line a\nsecond line B\nthird line c\n\n- [Build](build.md) - how\n",
        M + b"first line a\nsecond line b\nthird line C\n\n- [Build](build.md) - how\n",
        M + b"first line a\nsecond line B\nthird line C\n\n- [Build](build.md) - how\n",
    ),  # was wrong: on a tie one side's line only (`tie-break`)
    "index paragraph line edited vs line appended": (
        I,
        M + b"We build with make.\nWe ship on friday.\n\n- [Build](build.md) - how\n",
        M + b"We build with make -j8.\nWe ship on friday.\n\n- [Build](build.md) - how\n",
        M
        + b"We build with make.\nWe ship on friday.\nWe tag every release.\n\n- [Build](build.md) - how\n",
        M
        + b"We build with make -j8.\nWe ship on friday.\nWe tag every release.\n\n- [Build](build.md) - how\n",
    ),
    "index nested child under entry vs hook reworded": (
        I,
        M + b"- [Build](build.md) - how we build\n- [Deploy](deploy.md) - fly\n",
        M
        + b"- [Build](build.md) - how we build\n  - needs zig 0.13\n- [Deploy](deploy.md) - fly\n",
        M + b"- [Build](build.md) - how we build and test\n- [Deploy](deploy.md) - fly\n",
        M
        + b"- [Build](build.md) - how we build and test\n  - needs zig 0.13\n- [Deploy](deploy.md) - fly\n",
    ),
    "heading with emoji renamed vs body edited": (
        T,
        "## 🚀 Deploy\n- fly deploy\n\n## Notes\n- x\n".encode(),
        "## 🚀 Deploying\n- fly deploy\n\n## Notes\n- x\n".encode(),
        "## 🚀 Deploy\n- fly deploy --remote-only\n\n## Notes\n- x\n".encode(),
        "## 🚀 Deploying\n- fly deploy --remote-only\n\n## Notes\n- x\n".encode(),
    ),
    "CRLF index entry added vs hook edited": (
        I,
        b"# Memory\r\n\r\n- [Build](build.md) - how\r\n- [Test](test.md) - pytest\r\n",
        b"# Memory\r\n\r\n- [Build](build.md) - how we build\r\n- [Test](test.md) - pytest\r\n",
        b"# Memory\r\n\r\n- [Build](build.md) - how\r\n- [Test](test.md) - pytest\r\n- [Ship](ship.md) - fly\r\n",
        b"# Memory\r\n\r\n- [Build](build.md) - how we build\r\n- [Test](test.md) - pytest\r\n- [Ship](ship.md) - fly\r\n",
    ),
}


@pytest.mark.parametrize("name", sorted(SWEEP))
def test_the_fifteenth_sweep(name: str) -> None:
    check_case(SWEEP[name])  # None expected: wrong and left (docs/merge.md)


@pytest.mark.parametrize(
    "new",
    [
        b"<!-- generated by hand -->\n",
        b"Some intro.\n",
        b"> note\n",
    ],
)
def test_a_block_written_tight_over_a_list_the_other_side_edited_stays_tight(new: bytes) -> None:
    """A comment (a paragraph, a quote) written right over a list, no blank line between, and
    the list's first item edited on the other side: the blank line before the list went to the
    new block, none comes back between them (one was written there, both directions)."""
    base = b"# B\n\n- use uv\n- ship\n"
    ours = b"# B\n\n" + new + b"- use uv\n- ship\n"
    theirs = b"# B\n\n- use uv 0.5\n- ship\n"
    want = b"# B\n\n" + new + b"- use uv 0.5\n- ship\n"
    assert merge_file(T, base, ours, theirs).data == want
    assert merge_file(T, base, theirs, ours).data == want


def test_three_machines_each_add_a_tag_to_a_flow_list() -> None:
    base = b"---\nname: b\ntags: [build, ci]\n---\nbody\n"
    sides = [base.replace(b"ci]", b"ci, " + t + b"]") for t in (b"release", b"deps", b"zig")]
    want = b"---\nname: b\ntags: [build, ci, deps, release, zig]\n---\nbody\n"
    assert in_every_order(T, base, *sides) == want


def test_three_machines_add_a_row_edit_a_cell_and_rename_a_column() -> None:
    base = b"| cmd | why |\n|:--|--:|\n| make | build |\n"
    out = in_every_order(
        T,
        base,
        base + b"| uv | deps |\n",
        base.replace(b"build |", b"build all |"),
        base.replace(b"| cmd", b"| command"),
    )
    assert out == b"| command | why |\n|:--|--:|\n| make | build all |\n| uv | deps |\n"


LOG = b"## Log\n- 2026-11-29 06:00 started\n"
# three machines' lines: one backdated (before the log's last line), two after it
LINES = (
    b"- 2026-11-29 07:00 laptop: deployed\n",
    b"- 2026-11-28 07:00 desk: fixed CI (written up late)\n",
    b"- 2026-11-30 07:00 ci: released 1.2\n",
)
CJK_LINES = tuple(
    x.encode()
    for x in ("- 2026-11-29 部署完成 🚀\n", "- 2026-11-28 修复 CI ✅\n", "- 2026-11-30 发布 1.2\n")
)


@pytest.mark.parametrize("lines", [LINES, CJK_LINES])
@pytest.mark.parametrize("path", [I, T])
def test_dated_lines_from_three_machines_one_backdated_keep_time_order(
    path: str, lines: tuple[bytes, ...]
) -> None:
    """A log appended at its end on three machines, one line dated before the log's last line:
    the new lines in time order under it in every merge order (a topic file guessed the log
    ran newest first from a backdated line, so the order depended on which lines a merge held:
    two results, or all three newest first)."""
    base = (M if path == I else FM) + LOG
    out = in_every_order(path, base, *(base + x for x in lines))
    assert out == base + b"".join(sorted(lines))


def test_a_log_written_newest_first_keeps_older_lines_appended_at_its_end_newest_first() -> None:
    """The way a log runs is read from its kept lines (the one before the last), so older
    lines appended at the end of a newest-first log stay newest first."""
    base = FM + b"## Log\n- 2026-11-30 b\n- 2026-11-20 a\n"
    new = (b"- 2026-11-10 x\n", b"- 2026-11-12 y\n", b"- 2026-11-05 z\n")
    out = in_every_order(T, base, *(base + x for x in new))
    assert out == base + b"".join(sorted(new, reverse=True))


@pytest.mark.parametrize(
    "sides",
    [
        ("second line B", "third line C", "first line A"),
        ("second line B", "third line C", "second line X"),
        ("second line B", "second line X", "third line C"),
    ],
)
def test_an_index_paragraph_three_machines_each_editing_a_line_converge(
    sides: tuple[str, str, str],
) -> None:
    """A `MEMORY.md` paragraph (no confidence, no date: a tie) whose lines three machines edit:
    each line decided alone — one machine's edit of a line stands, two machines' edits of one
    line go to the greater — the same bytes in every merge order, every other edit kept."""
    lines = ["first line a", "second line b", "third line c"]
    tail = "\n\n- [Build](build.md) - how\n"
    base = (("# Memory\n\n" + "\n".join(lines)) + tail).encode()

    def edited(new: str) -> bytes:
        at = next(k for k, x in enumerate(lines) if x.split()[0] == new.split()[0])
        return base.replace(lines[at].encode(), new.encode())

    out = in_every_order(I, base, *(edited(x) for x in sides)).decode()
    for k, old in enumerate(lines):
        mine = [x for x in sides if x.split()[0] == old.split()[0]]
        assert out.splitlines()[2 + k] == (max(mine, key=str.encode) if mine else old), out
