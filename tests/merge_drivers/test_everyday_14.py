"""Everyday edits of memory files, fourteenth round (issue 24): what a careful human would sign.
End to end (`gitmem sync` with real clones, `git merge` with the drivers both ways):
tests/e2e/test_everyday_in_sync_14.py."""

from __future__ import annotations

import pytest

from merge_drivers import merge_file
from tests.support.sweep import check_case, in_every_order

I = ".claude/memory/MEMORY.md"  # noqa: E741
T = ".claude/memory/build.md"
FM = b"---\nname: build\ndescription: how we build\n---\n"


@pytest.mark.parametrize("path", [I, "team/notes.md"])
def test_one_stray_byte_in_every_version_is_said_once(path: str) -> None:
    """The same bad byte in base, ours and theirs is one fact: one line naming it (it was three,
    one per version), still naming the offset and the byte."""
    base = b"# Notes\n\n- caf\xe9 opens at 8\n- use uv\n- ship on friday\n"
    ours = base.replace(b"- use uv", b"- use uv 0.5")
    theirs = base.replace(b"friday", b"thursday")
    said = [str(r) for r in merge_file(path, base, ours, theirs).resolutions]
    assert said == [
        f"{path} byte 14 of every version (0xe9): both (not UTF-8: merged line by line"
        " on its bytes, every byte kept)"
    ]
    two = [str(r) for r in merge_file(path, base, ours, theirs.replace(b"\xe9", b"e")).resolutions]
    assert len(two) == 1 and "byte 14 of base and ours (0xe9)" in two[0], two


# The fourteenth sweep (#24): (path, base, ours, theirs, what a careful human writes) — the
# table in docs/history/merge.md, "Everyday cases, fourteenth round".
SWEEP: dict[str, tuple[str, bytes, bytes, bytes, bytes | None]] = {
    "tilde fence two lines": (
        T,
        FM + b"~~~sh\nmake test\n./bump.sh patch\n~~~\n",
        FM + b"~~~sh\nmake test lint\n./bump.sh patch\n~~~\n",
        FM + b"~~~sh\nmake test\n./bump.sh minor\n~~~\n",
        FM + b"~~~sh\nmake test lint\n./bump.sh minor\n~~~\n",
    ),
    "four-backtick fence holding a fence": (
        T,
        FM + b"````md\n```sh\nmake\n```\n````\n\n- use uv\n",
        FM + b"````md\n```sh\nmake -j8\n```\n````\n\n- use uv\n",
        FM + b"````md\n```sh\nmake\n```\n````\n\n- use uv 0.5\n",
        FM + b"````md\n```sh\nmake -j8\n```\n````\n\n- use uv 0.5\n",
    ),
    "nested child added vs sibling edited": (
        T,
        b"- build\n  - fetch\n- test\n- ship\n",
        b"- build\n  - fetch\n  - compile\n- test\n- ship\n",
        b"- build\n  - fetch\n- test\n- ship on friday\n",
        b"- build\n  - fetch\n  - compile\n- test\n- ship on friday\n",
    ),
    "table row added vs cell edited": (
        T,
        b"| cmd | why |\n|:---|---:|\n| make | build |\n| uv | deps |\n",
        b"| cmd | why |\n|:---|---:|\n| make | build |\n| uv | deps |\n| ruff | lint |\n",
        b"| cmd | why |\n|:---|---:|\n| make | build all |\n| uv | deps |\n",
        b"| cmd | why |\n|:---|---:|\n| make | build all |\n| uv | deps |\n| ruff | lint |\n",
    ),
    "alignment row changed vs cell edited": (
        T,
        b"| cmd | why |\n|---|---|\n| make | build |\n",
        b"| cmd | why |\n|:---|:---:|\n| make | build |\n",
        b"| cmd | why |\n|---|---|\n| make -j8 | build |\n",
        b"| cmd | why |\n|:---|:---:|\n| make -j8 | build |\n",
    ),
    "CRLF both edit": (
        T,
        b"# B\r\n\r\n- one\r\n- two\r\n- three\r\n",
        b"# B\r\n\r\n- one!\r\n- two\r\n- three\r\n",
        b"# B\r\n\r\n- one\r\n- two\r\n- three!\r\n",
        b"# B\r\n\r\n- one!\r\n- two\r\n- three!\r\n",
    ),
    "CJK prose two sentences": (
        T,
        "部署前先运行测试。使用 uv 管理依赖。\n".encode(),
        "部署前先运行全部测试。使用 uv 管理依赖。\n".encode(),
        "部署前先运行测试。使用 uv 管理所有依赖。\n".encode(),
        "部署前先运行全部测试。使用 uv 管理所有依赖。\n".encode(),
    ),
    "emoji bullets": (
        T,
        "- 🚀 ship on friday\n- 🐛 triage on monday\n".encode(),
        "- 🚀 ship on thursday\n- 🐛 triage on monday\n".encode(),
        "- 🚀 ship on friday\n- 🐛 triage on monday ✅\n".encode(),
        "- 🚀 ship on thursday\n- 🐛 triage on monday ✅\n".encode(),
    ),
    "frontmatter flow list vs body": (
        T,
        b"---\nname: b\ntags: [build, ci]\n---\n- use uv\n",
        b"---\nname: b\ntags: [build, ci, release]\n---\n- use uv\n",
        b"---\nname: b\ntags: [build, ci]\n---\n- use uv 0.5\n",
        b"---\nname: b\ntags: [build, ci, release]\n---\n- use uv 0.5\n",
    ),
    "frontmatter block list both add": (
        T,
        b"---\nname: b\ntags:\n  - build\n---\nbody\n",
        b"---\nname: b\ntags:\n  - build\n  - ci\n---\nbody\n",
        b"---\nname: b\ntags:\n  - build\n  - release\n---\nbody\n",
        b"---\nname: b\ntags:\n  - build\n  - ci\n  - release\n---\nbody\n",
    ),
    "section moved vs edited": (
        T,
        b"# B\n\n## Build\n- make\n\n## Deploy\n- fly deploy\n\n## Notes\n- x\n",
        b"# B\n\n## Deploy\n- fly deploy\n\n## Build\n- make\n\n## Notes\n- x\n",
        b"# B\n\n## Build\n- make\n\n## Deploy\n- fly deploy --remote-only\n\n## Notes\n- x\n",
        b"# B\n\n## Deploy\n- fly deploy --remote-only\n\n## Build\n- make\n\n## Notes\n- x\n",
    ),
    "index entry in the middle vs append": (
        I,
        b"# Memory\n\n## Build\n- run make\n- zig build is slow\n- cache in /tmp\n",
        b"# Memory\n\n## Build\n- run make\n- use -j8 with make\n- zig build is slow\n- cache in /tmp\n",
        b"# Memory\n\n## Build\n- run make\n- zig build is slow\n- cache in /tmp\n- avoid ccache\n",
        b"# Memory\n\n## Build\n- run make\n- use -j8 with make\n- zig build is slow\n- cache in /tmp\n- avoid ccache\n",
    ),  # good since round 19: after its predecessor (before: the section's end)
    "index two bullets appended to one section": (  # acceptable: new ones sorted by text
        I,
        b"# Memory\n\n## Build\n- run make\n",
        b"# Memory\n\n## Build\n- run make\n- zig is slow\n- add ccache\n",
        b"# Memory\n\n## Build\n- run make\n- run tests first\n",
        b"# Memory\n\n## Build\n- run make\n- add ccache\n- run tests first\n- zig is slow\n",
    ),
    "index new sections in writer order": (
        I,
        b"# Memory\n\n## Build\n- run make\n",
        b"# Memory\n\n## Build\n- run make\n\n## Zig\n- zig build\n\n## Release\n- tag\n",
        b"# Memory\n\n## Build\n- run make -j8\n",
        None,  # wrong, left: the new sections sorted by text (`## Release` above `## Zig`)
    ),
    "paragraph rewrapped vs word": (
        T,
        b"We deploy with fly and always run the tests before we tag a release on main.\n",
        b"We deploy with fly and always run the tests\nbefore we tag a release on main.\n",
        b"We deploy with fly and always run the tests before we tag a release on trunk.\n",
        b"We deploy with fly and always run the tests\nbefore we tag a release on trunk.\n",
    ),
    "numbered insert renumber vs edit": (
        T,
        b"1. clone\n2. install\n3. run tests\n4. ship\n",
        b"1. clone\n2. install\n3. lint\n4. run tests\n5. ship\n",
        b"1. clone\n2. install\n3. run tests -n 2\n4. ship\n",
        b"1. clone\n2. install\n3. lint\n4. run tests -n 2\n5. ship\n",
    ),
    "fence both append": (
        T,
        b"```sh\nmake\n```\n",
        b"```sh\nmake\nmake test\n```\n",
        b"```sh\nmake\nmake lint\n```\n",
        b"```sh\nmake\nmake test\nmake lint\n```\n",
    ),
    "table both add rows": (
        T,
        b"| a | b |\n|---|---|\n| 1 | 2 |\n",
        b"| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n",
        b"| a | b |\n|---|---|\n| 1 | 2 |\n| 5 | 6 |\n",
        b"| a | b |\n|---|---|\n| 1 | 2 |\n| 5 | 6 |\n| 3 | 4 |\n",
    ),
    "heading renamed vs bullet added": (
        T,
        b"## Deploy\n- fly deploy\n",
        b"## Deploying\n- fly deploy\n",
        b"## Deploy\n- fly deploy\n- check logs\n",
        b"## Deploying\n- fly deploy\n- check logs\n",
    ),
    "index CRLF two sections": (
        I,
        b"# M\r\n\r\n## A\r\n- a\r\n\r\n## B\r\n- b\r\n",
        b"# M\r\n\r\n## A\r\n- a\r\n- a2\r\n\r\n## B\r\n- b\r\n",
        b"# M\r\n\r\n## A\r\n- a\r\n\r\n## B\r\n- b\r\n- b2\r\n",
        b"# M\r\n\r\n## A\r\n- a\r\n- a2\r\n\r\n## B\r\n- b\r\n- b2\r\n",
    ),
    "blockquote two lines": (
        T,
        b"> run make\n> then test\n",
        b"> run make -j8\n> then test\n",
        b"> run make\n> then test all\n",
        b"> run make -j8\n> then test all\n",
    ),
    "nested three levels edit vs add": (
        T,
        b"- a\n  - b\n    - c\n- d\n",
        b"- a\n  - b\n    - c!\n- d\n",
        b"- a\n  - b\n    - c\n    - c2\n- d\n",
        b"- a\n  - b\n    - c!\n    - c2\n- d\n",
    ),
}


@pytest.mark.parametrize("name", sorted(SWEEP))
def test_the_fourteenth_sweep(name: str) -> None:
    check_case(SWEEP[name])  # None expected: wrong and left (docs/merge.md)


LOG = b"## Log\n- 2026-11-01 started\n"
LINES = (b"- 2026-11-03 fixed CI\n", b"- 2026-11-02 new key\n", b"- 2026-11-04 shipped\n")


@pytest.mark.parametrize("path", [I, T])
def test_dated_lines_from_three_machines_keep_time_order_in_every_order(path: str) -> None:
    base = (b"# Memory\n\n" if path == I else FM) + LOG
    out = in_every_order(path, base, *(base + x for x in LINES))
    assert out == base + b"".join(sorted(LINES))
