"""Everyday edits of memory files, as a tester writes them (issue 24, sixth round): Claude Code
appending on two and three machines, a human tidying (re-wrap, re-order, typo, retitle, merged
sections), tables, fences of every kind, nested and numbered lists, CRLF, CJK, emoji and RTL
text, frontmatter, a stray Latin-1 byte. Each case says what a careful human keeps; every merge
is checked symmetric and idempotent, three replicas converge in every order. End to end (two
and three clones, `gitmem sync`, `git merge`): tests/e2e/test_everyday_in_sync.py."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from merge_drivers import merge_file

from .conftest import examples

T = ".claude/agent-memory/bot/notes.md"
I = ".claude/agent-memory/bot/MEMORY.md"  # noqa: E741
FM = "---\nname: notes\ndescription: build and release notes\ntype: project\n---\n"

# name, path, base, sides (two or three), what the result holds, what it must not
Case = tuple[str, str, str, list[str], list[str], list[str]]


class Sweep:
    """A sweep's case table: `case = Sweep()` then `case(name, path, base, sides, want, not_want)`
    for each case; `case.cases` holds them (one collector for every sweep's file)."""

    def __init__(self) -> None:
        self.cases: list[Case] = []

    def __call__(
        self,
        name: str,
        path: str,
        base: str,
        sides: list[str],
        want: list[str] | tuple[str, ...] = (),
        not_want: list[str] | tuple[str, ...] = (),
    ) -> None:
        self.cases.append((name, path, base, list(sides), list(want), list(not_want)))


case = Sweep()
CASES = case.cases


# 1 Claude appends different bullets to the same middle list on two machines
B1 = FM + "# Notes\n\n## Gotchas\n\n- pin ruff\n- uv sync before tests\n\n## Links\n\n- wiki\n"
case(
    "append mid list x2",
    T,
    B1,
    [
        B1.replace("tests\n", "tests\n- ccache needs CC set\n"),
        B1.replace("tests\n", "tests\n- flaky test_net on CI\n"),
    ],
    ["- uv sync before tests\n- ", "ccache needs CC set", "flaky test_net on CI", "\n\n## Links"],
)
case(
    "append mid list x3",
    T,
    B1,
    [
        B1.replace("tests\n", "tests\n- ccache needs CC set\n"),
        B1.replace("tests\n", "tests\n- flaky test_net on CI\n"),
        B1.replace("- wiki\n", "- wiki\n- runbook\n"),
    ],
    ["ccache needs CC set", "flaky test_net on CI", "- wiki\n- runbook"],
)
# 2 re-wrap + word fix + appended sentence
P = "The release job builds wheels for every platform and uploads them\nto the test index first, then waits for a human to approve the\npromotion to the real index.\n"
B2 = FM + "## Release\n\n" + P
case(
    "rewrap vs typo+append",
    T,
    B2,
    [
        B2.replace(
            P,
            "The release job builds wheels for every platform and uploads them to the test\nindex first, then waits for a human to approve the promotion to the real index.\n",
        ),
        B2.replace(
            "promotion to the real index.",
            "promotion to the real index. Approval expires after 24h.",
        ).replace("human", "maintainer"),
    ],
    ["Approval expires after 24h.", "maintainer"],
    ["human"],
)
# 3 sorted bullets vs edit one
B3 = FM + "## Tools\n\n- ruff for lint\n- mypy strict\n- black (old)\n- pytest -x\n"
case(
    "reorder vs edit",
    T,
    B3,
    [
        FM + "## Tools\n\n- black (old)\n- mypy strict\n- pytest -x\n- ruff for lint\n",
        B3.replace("pytest -x", "pytest -x -q"),
    ],
    ["- black (old)\n- mypy strict\n- pytest -x -q\n- ruff for lint\n"],
)
# 4 same typo fixed both + other edits
B4 = FM + "Always recieve the lock before writting the file.\n\nSecond para stays.\n"
case(
    "same typo both + other word",
    T,
    B4,
    [
        B4.replace("recieve", "acquire"),
        B4.replace("recieve", "acquire").replace("writting", "writing"),
    ],
    ["Always acquire the lock before writing the file."],
)
# 6 retitle vs append in section
B6 = FM + "## Build\n\n- make all\n- make test\n\n## Deploy\n\n- fly deploy\n"
case(
    "retitle vs append",
    T,
    B6,
    [
        B6.replace("## Build", "## Building locally"),
        B6.replace("- make test\n", "- make test\n- make docs\n"),
    ],
    ["## Building locally\n\n- make all\n- make test\n- make docs\n"],
    ["## Build\n"],
)
# 7 merge two sections vs append to the removed one
B7 = FM + "## Test\n\n- pytest -x\n\n## Lint\n\n- ruff check\n\n## Ship\n\n- tag\n"
case(
    "merge sections vs append",
    T,
    B7,
    [
        B7.replace("- pytest -x\n\n## Lint\n\n- ruff check\n", "- pytest -x\n- ruff check\n"),
        B7.replace("- ruff check\n", "- ruff check\n- ruff format\n"),
    ],
    ["ruff format", "- pytest -x\n"],
    [],
)
# 8 table row added vs cell edited, pipes in code spans
B8 = FM + "| cmd | what |\n|:----|-----:|\n| `a \\| b` | pipe |\n| `make` | build |\n"
case(
    "table add row vs cell with pipe",
    T,
    B8,
    [B8 + "| `tox` | matrix |\n", B8.replace("| build |", "| build all |")],
    ["| `make` | build all |", "| `tox` | matrix |", "| `a \\| b` | pipe |"],
)
# 9 table alignment row changed vs row added
B9 = FM + "| tool | version |\n|---|---|\n| ruff | 0.4 |\n| mypy | 1.10 |\n"
case(
    "table align vs row",
    T,
    B9,
    [
        B9.replace("|---|---|", "|:--|--:|"),
        B9.replace("| mypy | 1.10 |", "| mypy | 1.11 |\n| uv | 0.5 |"),
    ],
    ["|:--|--:|", "| mypy | 1.11 |", "| uv | 0.5 |"],
)
# 10 two cells same row
case(
    "table two cells one row",
    T,
    B9,
    [
        B9.replace("| ruff | 0.4 |", "| ruff (lint) | 0.4 |"),
        B9.replace("| ruff | 0.4 |", "| ruff | 0.5 |"),
    ],
    ["| ruff (lint) | 0.5 |"],
)
# 11 fence lang tag vs line edit
B11 = FM + "Deploy:\n\n```sh\nexport ENV=prod\nfly deploy --remote-only\n```\n"
case(
    "fence tag vs line",
    T,
    B11,
    [B11.replace("```sh", "```bash"), B11.replace("--remote-only", "--remote-only --ha=false")],
    ["```bash\nexport ENV=prod\nfly deploy --remote-only --ha=false\n```"],
)
# 12 nested fence
B12 = FM + "Template:\n\n````md\nRun this:\n```sh\nmake test\n```\nthen push\n````\n"
case(
    "nested fence two lines",
    T,
    B12,
    [B12.replace("make test", "make test lint"), B12.replace("then push", "then push and tag")],
    ["make test lint\n```\nthen push and tag\n````"],
)
# 13 indented fence in list item
B13 = FM + "1. build:\n\n   ```sh\n   make\n   make install\n   ```\n2. test\n"
case(
    "indented fence in item",
    T,
    B13,
    [B13.replace("   make\n", "   make -j8\n"), B13.replace("make install", "sudo make install")],
    ["   make -j8\n   sudo make install\n"],
)
# 14 both append in ~~~ fence
B14 = FM + "~~~python\nimport os\nprint(os.getcwd())\n~~~\n"
case(
    "both append inside fence",
    T,
    B14,
    [
        B14.replace("getcwd())\n", "getcwd())\nprint(1)\n"),
        B14.replace("getcwd())\n", "getcwd())\nprint(2)\n"),
    ],
    ["print(1)", "print(2)", "~~~\n"],
)
# 15 nested list 3 deep: add sub-sub vs edit parent
B15 = FM + "- infra\n  - ci\n    - github actions\n    - cache on\n  - cd\n- app\n"
case(
    "3-deep add vs edit",
    T,
    B15,
    [
        B15.replace("    - cache on\n", "    - cache on\n    - matrix 3.11-3.13\n"),
        B15.replace("  - ci\n", "  - ci (required)\n"),
    ],
    ["  - ci (required)\n    - github actions\n    - cache on\n    - matrix 3.11-3.13\n  - cd"],
)
case(
    "3-deep move vs edit",
    T,
    B15,
    [
        B15.replace(
            "    - github actions\n    - cache on\n", "    - cache on\n    - github actions\n"
        ),
        B15.replace("cache on", "cache on (uv)"),
    ],
    ["    - cache on (uv)\n    - github actions\n"],
)
# 17 numbered 1) insert+renumber vs edit step 3
B17 = FM + "1) clone\n2) install\n3) test\n4) ship\n"
case(
    "1) insert vs edit",
    T,
    B17,
    [
        FM + "1) clone\n2) configure\n3) install\n4) test\n5) ship\n",
        B17.replace("3) test", "3) test with -x"),
    ],
    ["1) clone\n2) configure\n3) install\n4) test with -x\n5) ship\n"],
)
case(
    "1) both append",
    T,
    B17,
    [B17 + "5) announce\n", B17 + "5) close milestone\n"],
    ["5) ", "6) ", "announce", "close milestone"],
    ["5) announce\n5)", "5) close milestone\n5)"],
)
# 19 CRLF edited on one side, other LF editor adds
B19 = (FM + "## Env\n\n- PY=3.12\n- NODE=20\n").replace("\n", "\r\n")
case(
    "crlf one side edits",
    T,
    B19,
    [B19.replace("NODE=20", "NODE=22"), B19 + "- GO=1.23\r\n"],
    ["- NODE=22\r\n- GO=1.23\r\n"],
    ["\r\r"],
)
case(
    "crlf vs lf rewrite",
    T,
    B19,
    [B19.replace("NODE=20", "NODE=22"), (B19.replace("\r\n", "\n")) + "- GO=1.23\n"],
    ["NODE=22", "GO=1.23"],
)
# 20 CJK without spaces
B20 = FM + "部署之前必须先运行全部测试然后再检查日志文件。\n"
case(
    "cjk two edits",
    T,
    B20,
    [B20.replace("部署之前", "发布之前"), B20.replace("日志文件", "错误日志")],
    ["发布之前必须先运行全部测试然后再检查错误日志。"],
)
B20b = FM + "デプロイの前に必ずテストを実行し、その後でログを確認すること。\n"
case(
    "japanese two clauses",
    T,
    B20b,
    [
        B20b.replace("必ずテストを", "必ず全部のテストを"),
        B20b.replace("ログを確認", "ログとメトリクスを確認"),
    ],
    ["必ず全部のテストを実行し、その後でログとメトリクスを確認すること。"],
)
# 21 emoji
B21 = FM + "- 🚀 deploy on friday is fine\n- ✅ tests green\n"
case(
    "emoji word edits",
    T,
    B21,
    [
        B21.replace("friday is fine", "friday is risky ⚠️"),
        B21.replace("🚀 deploy", "🚀 prod deploy"),
    ],
    ["- 🚀 prod deploy on friday is risky ⚠️\n"],
)
# 22 RTL
B22 = FM + "הפריסה מתבצעת רק אחרי שכל הבדיקות עוברות בהצלחה\n"
case(
    "hebrew words",
    T,
    B22,
    [B22.replace("הפריסה", "השחרור"), B22.replace("בהצלחה", "בהצלחה מלאה")],
    ["השחרור מתבצעת רק אחרי שכל הבדיקות עוברות בהצלחה מלאה"],
)
# 23 frontmatter description both + confidence one side
B23 = "---\nname: notes\ndescription: build notes\nconfidence: 0.6\nmodified: 2026-11-20\ntags: [build, ci]\n---\nbody line\n"
case(
    "fm conf vs date vs tags",
    T,
    B23,
    [
        B23.replace("0.6", "0.8"),
        B23.replace("2026-11-20", "2026-11-25").replace("[build, ci]", "[build, ci, release]"),
    ],
    ["confidence: 0.8", "modified: 2026-11-25", "release"],
)
case(
    "fm tags flow vs block",
    T,
    B23,
    [
        B23.replace("tags: [build, ci]", "tags: [build, ci, docs]"),
        B23.replace("tags: [build, ci]", "tags:\n  - build\n  - ci\n  - perf"),
    ],
    ["docs", "perf", "build", "ci"],
)
# 32 quote
B32 = FM + "> Never force-push main.\n> Ask in #infra first.\n> Keep the log.\n"
case(
    "quote two lines",
    T,
    B32,
    [
        B32.replace("main.", "main or release/*."),
        B32.replace("Keep the log.", "Keep the audit log."),
    ],
    ["> Never force-push main or release/*.\n> Ask in #infra first.\n> Keep the audit log.\n"],
)
# 33 comment vs paragraph
B33 = FM + "<!-- owner: alice -->\nThe cache lives in /tmp.\n"
case(
    "comment vs para",
    T,
    B33,
    [B33.replace("alice", "bob"), B33.replace("/tmp", "~/.cache")],
    ["<!-- owner: bob -->", "~/.cache"],
)
# 35 paragraph split vs word edit in second half
P35 = "Run the linter first. It catches most problems early and saves CI minutes for everyone.\n"
B35 = FM + P35
case(
    "para split vs edit",
    T,
    B35,
    [
        FM
        + "Run the linter first.\n\nIt catches most problems early and saves CI minutes for everyone.\n",
        B35.replace("most problems", "most style problems"),
    ],
    ["most style problems", "first.\n\nIt"],
)
# 36 markers tidied vs new bullet
B36 = FM + "* one\n* two\n* three\n"
case(
    "markers tidied vs add",
    T,
    B36,
    [B36.replace("* ", "- "), B36 + "* four\n"],
    ["- one\n- two\n- three\n- four\n"],
)
# 37 checkbox vs text
B37 = FM + "- [ ] migrate to uv\n- [ ] drop py3.9\n"
case(
    "checkbox vs text",
    T,
    B37,
    [B37.replace("- [ ] migrate", "- [x] migrate"), B37.replace("to uv", "to uv (all repos)")],
    ["- [x] migrate to uv (all repos)\n"],
)
# 38 both append sentence to one bullet
B38 = FM + "- use uv for venvs.\n- pin python\n"
# setext retitle vs add
B39 = FM + "Build\n=====\n\nmake all\n\nShip\n----\n\ntag it\n"
case(
    "setext retitle vs edit",
    T,
    B39,
    [B39.replace("Ship\n----", "Shipping\n--------"), B39.replace("tag it", "tag it and push")],
    ["Shipping\n--------\n\ntag it and push"],
)
# 3 machines: daily log appends newest first topic
B40 = FM + "## Log\n\n- 2026-11-20 first\n"
case(
    "3 dated bullets",
    T,
    B40,
    [B40 + "- 2026-11-22 c\n", B40 + "- 2026-11-21 b\n", B40 + "- 2026-11-23 d\n"],
    ["first\n- 2026-11-21 b\n- 2026-11-22 c\n- 2026-11-23 d\n"],
)
# heading level change vs append under it
case(
    "heading level vs append",
    T,
    B6,
    [B6.replace("## Build", "### Build"), B6.replace("- make all\n", "- make all\n- make clean\n")],
    ["### Build\n\n- make all\n- make clean\n- make test"],
)
# index: claude appends 3 machines different sections
IX = "# Memory\n\n## Project\n- [Build](build.md) — how to build\n- [Ship](ship.md) — release steps\n\n## Feedback\n- [Style](style.md) — code style asks\n"
case(
    "index 3 appends",
    I,
    IX,
    [
        IX.replace("release steps\n", "release steps\n- [Deps](deps.md) — dependency policy\n"),
        IX + "- [Tests](tests.md) — run tests\n",
        IX.replace("code style asks\n", "code style asks\n- [Review](review.md) — review asks\n"),
    ],
    ["deps.md", "tests.md", "review.md"],
)
# index: hook edited vs entry moved to other section
case(
    "index move vs hook edit",
    I,
    IX,
    [
        "# Memory\n\n## Project\n- [Build](build.md) — how to build\n\n## Feedback\n- [Style](style.md) — code style asks\n- [Ship](ship.md) — release steps\n",
        IX.replace("release steps", "release steps (tag first)"),
    ],
    [
        "## Feedback\n- [Style](style.md) — code style asks\n- [Ship](ship.md) — release steps (tag first)\n"
    ],
)
# non-utf8 byte
B45 = FM + "caf\xe9 line\nsecond\nthird\n"
case(
    "latin1 byte vs append",
    T,
    B45,
    [B45.replace("second", "second edited"), B45 + "fourth\n"],
    ["second edited", "fourth", "caf\xe9"],
)


# the class of "cjk two edits": scripts written without spaces, each character a word
case(
    "cjk three machines",
    T,
    B20,
    [
        B20.replace("部署之前", "发布之前"),
        B20.replace("日志文件", "错误日志"),
        B20.replace("全部测试", "全部单元测试"),
    ],
    ["发布之前必须先运行全部单元测试然后再检查错误日志。"],
)
B20c = FM + "- 部署前先跑测试，再看日志。\n- ข้อมูลสำคัญมาก\n"
case(
    "cjk bullet and thai",
    T,
    B20c,
    [
        B20c.replace("先跑测试", "先跑全部测试").replace("สำคัญ", "สำคัญที่สุด"),
        B20c.replace("再看日志", "再看错误日志"),
    ],
    ["- 部署前先跑全部测试，再看错误日志。\n", "ข้อมูลสำคัญที่สุดมาก"],
)
# the class of "para split vs edit": paragraph breaks are whitespace between words
P36 = "Run the linter first.\n\nIt catches most problems early.\n"
case(
    "paras joined vs edit",
    T,
    FM + P36,
    [
        FM + "Run the linter first. It catches most problems early.\n",
        FM + P36.replace("linter", "linter (ruff)"),
    ],
    ["Run the linter (ruff) first. It catches most problems early.\n"],
)
case(
    "para split vs edit in each half",
    T,
    B35,
    [
        FM
        + "Run the linter first.\n\nIt catches most problems early and saves CI minutes for everyone.\n",
        B35.replace("linter", "linter (ruff)").replace("everyone", "the whole team"),
    ],
    ["Run the linter (ruff) first.\n\nIt catches", "CI minutes for the whole team.\n"],
)

case(
    "both extend one bullet",
    T,
    B38,
    [
        B38.replace("venvs.", "venvs. Faster than pip."),
        B38.replace("venvs.", "venvs. Lockfile is uv.lock."),
    ],
    ["- use uv for venvs. Lockfile is uv.lock. Faster than pip.\n- pin python\n"],
)
# the class of "both extend one bullet": whole sentences added at one place are two things
# said, both kept sentence by sentence (the greater first), so three replicas converge
P41 = FM + "We deploy on Mondays. Rollbacks are manual.\n\nOther.\n"
case(
    "three machines add sentences",
    T,
    P41,
    [
        P41.replace("Mondays.", "Mondays. Never on Fridays."),
        P41.replace("Mondays.", "Mondays. Ask Ana first."),
        P41.replace("manual.", "manual. See the runbook."),
    ],
    [
        "We deploy on Mondays. Never on Fridays. Ask Ana first. Rollbacks are manual. See the runbook.\n\nOther.\n"
    ],
)
P42 = FM + "先跑测试。再发布。\n"
case(
    "cjk sentences added at one place",
    T,
    P42,
    [P42.replace("测试。", "测试。别忘了日志。"), P42.replace("测试。", "测试。问一下安娜。")],
    ["先跑测试。", "别忘了日志。", "问一下安娜。", "再发布。"],
)

case(
    "fm description both",
    T,
    B23,
    [
        B23.replace("description: build notes", "description: build and CI notes"),
        B23.replace("description: build notes", "description: build notes (linux)"),
    ],
    ["description: build and CI notes (linux)"],
)

# the class of "fm description both": a one-line prose field merged word by word (as the
# index hook is); the same words changed on both sides still go to the winner
case(
    "fm description crlf and quoted",
    T,
    B23.replace("\n", "\r\n"),
    [
        B23.replace("build notes", "build notes for arm").replace("\n", "\r\n"),
        B23.replace("build notes", "nightly build notes").replace("\n", "\r\n"),
    ],
    ["description: nightly build notes for arm\r\n"],
)
case(
    "fm description same word both",
    T,
    B23,
    [
        B23.replace("build notes", "release notes"),
        B23.replace("build notes", "deploy notes"),
    ],
    ["description: "],
    ["release deploy", "deploy release"],
)

# a table one side gave a column (or took one away), the other edited cells: the cells
# merged as a sequence in each row (before: the row went to a winner, a cell lost and the
# row one cell short)
B50 = FM + "## Tools\n\n| tool | version |\n|---|---|\n| ruff | 0.4 |\n| mypy | 1.10 |\n"
WIDE = B50.replace(
    "| tool | version |\n|---|---|\n| ruff | 0.4 |\n| mypy | 1.10 |",
    "| tool | version | owner |\n|---|---|---|\n| ruff | 0.4 | ana |\n| mypy | 1.10 | bo |",
)
case(
    "table column added vs cell",
    T,
    B50,
    [WIDE, B50.replace("| 0.4 |", "| 0.5 |")],
    ["| tool | version | owner |\n|---|---|---|\n| ruff | 0.5 | ana |\n| mypy | 1.10 | bo |\n"],
)
case(
    "table column removed vs cell",
    T,
    WIDE,
    [B50, WIDE.replace("| 1.10 |", "| 1.11 |")],
    ["| tool | version |\n|---|---|\n| ruff | 0.4 |\n| mypy | 1.11 |\n"],
)

# the class of "markers tidied vs add": a marker's style is formatting (`-` `*` `+` alike,
# `1.` `1)` alike); items the other side added take the style the list was changed to, so
# the list stays one list (before: `* four` under `- three` started a list of its own)
B51 = FM + "1. clone\n2. build\n3. ship\n"
case(
    "1. to 1) vs add step",
    T,
    B51,
    [B51.replace(". ", ") "), B51 + "4. announce\n"],
    ["1) clone\n2) build\n3) ship\n4) announce\n"],
)
B52 = FM + "- infra\n  + ci\n  + cd\n- app\n"
case(
    "nested markers tidied vs adds, three machines",
    T,
    B52,
    [
        B52.replace("  + ", "  - "),
        B52.replace("  + cd\n", "  + cd\n  + dns\n"),
        B52.replace("- app\n", "- app\n- docs\n"),
    ],
    ["- infra\n  - ci\n  - cd\n  - dns\n- app\n- docs\n"],
)

# an item one side nested under the one above (or took out of it), the other edited: the
# edit at the new indent (before: the nesting lost to a winner)
B53 = FM + "- build\n- test\n- lint\n- ship\n"
case(
    "item nested vs edit",
    T,
    B53,
    [B53.replace("- lint\n", "  - lint\n"), B53.replace("- lint", "- lint (ruff)")],
    ["- build\n- test\n  - lint (ruff)\n- ship\n"],
)
case(
    "item nested vs edit, three machines",
    T,
    B53,
    [
        B53.replace("- lint\n", "  - lint\n"),
        B53.replace("- lint", "- lint (ruff)"),
        B53.replace("- ship\n", "- ship\n- announce\n"),
    ],
    ["- build\n- test\n  - lint (ruff)\n- ship\n- announce\n"],
)

# more everyday cases: tables, retitles, fences, moves, emphasis, links, frontmatter, index
XB = FM + "## Tools\n\n| tool | version |\n|---|---|\n| ruff | 0.4 |\n| mypy | 1.10 |\n"
case(
    "table both add rows",
    T,
    XB,
    [XB + "| uv | 0.5 |\n", XB + "| tox | 4 |\n"],
    ["| uv | 0.5 |", "| tox | 4 |", "| mypy | 1.10 |\n|"],
)
XH = FM + "## Setup\n\n- install uv\n\n## Usage\n\n- uv run\n"
case(
    "retitle both differently",
    T,
    XH,
    [XH.replace("## Setup", "## Setup (dev)"), XH.replace("## Setup", "## Installing")],
    ["- install uv\n\n## Usage"],
    [],
)
case(
    "retitle both + appends",
    T,
    XH,
    [
        XH.replace("## Setup", "## Setting up").replace(
            "- install uv\n", "- install uv\n- uv sync\n"
        ),
        XH.replace("- uv run\n", "- uv run\n- uv build\n"),
    ],
    ["## Setting up\n\n- install uv\n- uv sync\n\n## Usage\n\n- uv run\n- uv build\n"],
)
XF = FM + "```sh\nmake\nmake install\n```\n"
case(
    "fence tags both differ",
    T,
    XF,
    [
        XF.replace("```sh", "```bash"),
        XF.replace("```sh", "```shell").replace("make install", "sudo make install"),
    ],
    ["sudo make install"],
    ["```sh\n"],
)
case(
    "fence ``` to ~~~ vs inside edit",
    T,
    XF,
    [XF.replace("```", "~~~"), XF.replace("make\n", "make -j8\n")],
    ["~~~sh\nmake -j8\nmake install\n~~~\n"],
)
XN = FM + "- build\n- test\n- lint\n- ship\n"
XS = FM + "## A\n\n- a1\n\n## B\n\n- b1\n\n## C\n\n- c1\n"
case(
    "section moved vs appends",
    T,
    XS,
    [
        FM + "## C\n\n- c1\n\n## A\n\n- a1\n\n## B\n\n- b1\n",
        XS.replace("- c1\n", "- c1\n- c2\n").replace("- a1\n", "- a1\n- a2\n"),
    ],
    ["## C\n\n- c1\n- c2\n\n## A\n\n- a1\n- a2\n\n## B"],
)
case(
    "bullet deleted vs edited",
    T,
    XN,
    [XN.replace("- lint\n", ""), XN.replace("- lint", "- lint with ruff")],
    ["- lint with ruff"],
)
case(
    "different bullets deleted + add",
    T,
    XN,
    [XN.replace("- lint\n", ""), XN.replace("- build\n", "") + "- docs\n"],
    ["- test\n- ship\n- docs\n"],
    ["- lint", "- build"],
)
XE = FM + "You must run the migrations before the tests.\n"
case(
    "bold vs other word",
    T,
    XE,
    [XE.replace("must", "**must**"), XE.replace("the tests", "the e2e tests")],
    ["You **must** run the migrations before the e2e tests."],
)
XC = FM + "Use `make test` to run everything locally.\n"
case(
    "inline code vs after",
    T,
    XC,
    [XC.replace("`make test`", "`make test -j8`"), XC.replace("locally", "locally and on CI")],
    ["Use `make test -j8` to run everything locally and on CI."],
)
XL = FM + "- a\n- b\n- c\n"
case("loose list vs add", T, XL, [FM + "- a\n\n- b\n\n- c\n", XL + "- d\n"], ["- d"])
case("both add to empty", T, "", [FM + "- from a\n", FM + "- from b\n"], ["from a", "from b"])
XFM2 = "---\nname: notes\ndescription: notes\n---\nbody\n"
case(
    "fm both add tags",
    T,
    XFM2,
    [
        XFM2.replace("notes\n---", "notes\ntags: [a]\n---"),
        XFM2.replace("notes\n---", "notes\ntags: [b]\n---"),
    ],
    ["a", "b"],
)
XMD = "---\nname: notes\ndescription: notes\nmetadata: \n  type: project\n  modified: 2026-11-20\n---\nbody\n"
case(
    "fm nested both",
    T,
    XMD,
    [XMD.replace("project", "feedback"), XMD.replace("2026-11-20", "2026-11-24")],
    ["type: feedback", "modified: 2026-11-24"],
)
XIX = "# Memory\n\n## Build\n- **build.md** — how to build\n- **ci.md** — CI notes\n"
case(
    "index bold names append",
    I,
    XIX,
    [XIX + "- **deploy.md** — deploys\n", XIX + "- **perf.md** — perf\n"],
    ["deploy.md", "perf.md", "build.md", "ci.md"],
)
XIX2 = "# Memory\n\n## Build\n- [Build](build.md) — how to build\n- [CI](ci.md) — CI notes\n\n## Other\n- [X](x.md) — x\n"
case(
    "index retitle vs append",
    I,
    XIX2,
    [
        XIX2.replace("## Build", "## Build & CI"),
        XIX2.replace("CI notes\n", "CI notes\n- [Cache](cache.md) — caching\n"),
    ],
    [
        "## Build & CI\n- [Build](build.md) — how to build\n- [CI](ci.md) — CI notes\n- [Cache](cache.md) — caching\n"
    ],
    ["## Build\n"],
)
case(
    "index delete vs hook edit",
    I,
    XIX2,
    [XIX2.replace("- [CI](ci.md) — CI notes\n", ""), XIX2.replace("CI notes", "CI notes (GitHub)")],
    ["CI notes (GitHub)"],
)
case(
    "index both hook edits",
    I,
    XIX2,
    [
        XIX2.replace("how to build", "how to build fast"),
        XIX2.replace("how to build", "how we build"),
    ],
    ["how we build fast"],
)
XK = FM + "Line one with two spaces  \nnext line.\n"
case(
    "hard break vs edit",
    T,
    XK,
    [XK.replace("next line", "the next line"), XK.replace("one", "1")],
    ["Line 1 with two spaces  \nthe next line."],
)
XR = FM + "- see [guide](https://example.com/guide) for setup\n"
case(
    "link url vs text",
    T,
    XR,
    [XR.replace("/guide)", "/guide-v2)"), XR.replace("for setup", "for setup and upgrades")],
    ["- see [guide](https://example.com/guide-v2) for setup and upgrades\n"],
)
XG = FM + "## Decisions\n\n- 2026-11-01 use uv\n- 2026-11-10 drop 3.9\n\n## Other\n\nx\n"
case(
    "dated log 2 sides same day",
    T,
    XG,
    [
        XG.replace("drop 3.9\n", "drop 3.9\n- 2026-11-12 pin ruff\n"),
        XG.replace("drop 3.9\n", "drop 3.9\n- 2026-11-11 add mypy\n"),
    ],
    ["- 2026-11-10 drop 3.9\n- 2026-11-11 add mypy\n- 2026-11-12 pin ruff\n\n## Other"],
)
XQ = FM + "Notes:\n\n- first\n  continued line of first\n- second\n"
case(
    "continuation line vs edit",
    T,
    XQ,
    [
        XQ.replace("continued line", "continued (lazy) line"),
        XQ.replace("- first\n", "- first item\n"),
    ],
    ["- first item\n  continued (lazy) line of first\n- second"],
)

# table rows re-ordered on one side, a cell of a moved row edited on the other: the row once,
# moved and edited, also when a side is merged in again (before: the edited row twice)
B55 = FM + "| tool | version |\n|---|---|\n| ruff | 0.4 |\n| mypy | 1.10 |\n| uv | 0.5 |\n"
SORTED = B55.replace(
    "| ruff | 0.4 |\n| mypy | 1.10 |\n| uv | 0.5 |", "| mypy | 1.10 |\n| ruff | 0.4 |\n| uv | 0.5 |"
)
case(
    "table rows sorted vs cell",
    T,
    B55,
    [SORTED, B55.replace("| 0.4 |", "| 0.5 |")],
    ["| mypy | 1.10 |\n| ruff | 0.5 |\n| uv | 0.5 |\n"],
)
case(
    "table rows sorted vs cell vs row, three machines",
    T,
    B55,
    [SORTED, B55.replace("| 0.4 |", "| 0.5 |"), B55 + "| tox | 4 |\n"],
    ["| mypy | 1.10 |\n| ruff | 0.5 |\n| uv | 0.5 |\n| tox | 4 |\n"],
)

# an item one side took out of its parent list, the other edited (or deleted) it, or edited
# the parent: taken out and edited, once (before: it stood twice, nested and taken out)
B56 = FM + "- build\n- test\n  - lint\n  - types\n- ship\n"
OUT = B56.replace("  - types\n", "- types\n")
case(
    "item taken out vs edit",
    T,
    B56,
    [OUT, B56.replace("types", "types (mypy)")],
    ["- build\n- test\n  - lint\n- types (mypy)\n- ship\n"],
)
case(
    "item taken out vs edit, three machines",
    T,
    B56,
    [OUT, B56.replace("types", "types (mypy)"), B56.replace("- ship\n", "- ship\n- announce\n")],
    ["- build\n- test\n  - lint\n- types (mypy)\n- ship\n- announce\n"],
)
case(
    "item taken out vs deleted",
    T,
    B56,
    [OUT, B56.replace("  - types\n", "")],
    ["- build\n- test\n  - lint\n- ship\n"],
    ["types"],
)
case(
    "item taken out vs parent edited",
    T,
    B56,
    [OUT, B56.replace("- test\n", "- test (CI)\n")],
    ["- build\n- test (CI)\n  - lint\n- types\n- ship\n"],
    ["  - types"],
)
B57 = FM + "- infra\n  - ci\n    - github actions\n    - cache on\n  - cd\n"
case(
    "third-level item taken out one level vs edit",
    T,
    B57,
    [
        B57.replace("    - cache on\n", "  - cache on\n"),
        B57.replace("cache on", "cache on (uv)"),
    ],
    ["- infra\n  - ci\n    - github actions\n  - cache on (uv)\n  - cd\n"],
)


def encoded(text: str) -> bytes:
    """UTF-8, except a case written with a Latin-1 byte (an editor that saved Latin-1)."""
    return text.encode("latin-1") if "\xe9" in text else text.encode()


def _merge(path: str, z: bytes, x: bytes, y: bytes) -> bytes:
    data = merge_file(path, z, x, y).data
    assert data is not None
    return data


def merged(c: Case) -> bytes:
    """A case's merge, checked symmetric and idempotent (two sides) or converging in every
    order (three): every sweep's cases."""
    _, path, base, sides, _, _ = c
    z, ss = encoded(base), [encoded(s) for s in sides]
    if len(ss) == 2:
        out = _merge(path, z, ss[0], ss[1])
        assert _merge(path, z, ss[1], ss[0]) == out  # symmetric
        for s in ss:
            assert _merge(path, z, out, s) == out  # idempotent
        return out
    outs = {
        _merge(path, z, _merge(path, z, ss[i], ss[j]), ss[k])
        for i, j, k in itertools.permutations(range(3))
    }
    assert len(outs) == 1, outs  # three replicas converge in every order
    return outs.pop()


def check(c: Case) -> None:
    """`merged`, holding what it must and nothing it must not, and no marker."""
    out = merged(c)
    text = out.decode("latin-1") if "\xe9" in c[2] else out.decode()
    assert "<<<<<<<" not in text
    for w in c[4]:
        assert w in text, (w, text)
    for w in c[5]:
        assert w not in text, (w, text)


@pytest.mark.parametrize("c", CASES, ids=[c[0] for c in CASES])
def test_an_everyday_merge_keeps_what_a_careful_human_keeps(c: Case) -> None:
    check(c)


HAN = [chr(0x4E00 + 7 * i) for i in range(40)]  # distinct ideographs, no spaces between them
KANA = [chr(0x30A2 + 2 * i) for i in range(20)]  # katakana: ours
HIRAGANA = [chr(0x3041 + 2 * i) for i in range(20)]  # hiragana: theirs


@settings(max_examples=examples())
@given(st.data())
def test_no_untouched_character_of_unspaced_text_is_lost(data: st.DataObject) -> None:
    """One line of Chinese (no spaces): each side rewrites a run of characters (or inserts
    some), one untouched character at least between the runs. Every character neither side
    touched, and every one either side wrote, is in the merge, in order (before: the line
    was one word, and one side's edit went to a winner)."""
    n = data.draw(st.integers(4, len(HAN)))
    base = HAN[:n]
    i = data.draw(st.integers(0, n - 2))
    j = data.draw(st.integers(i, n - 2))
    k = data.draw(st.integers(j + 1, n))
    m = data.draw(st.integers(k, n))
    new_a = KANA[: data.draw(st.integers(0 if j > i else 1, 3))]
    new_b = HIRAGANA[: data.draw(st.integers(0 if m > k else 1, 3))]
    ours = base[:i] + new_a + base[j:]
    theirs = base[:k] + new_b + base[m:]
    expected = "".join(base[:i] + new_a + base[j:k] + new_b + base[m:])
    text = _merge(
        T,
        (FM + "".join(base) + "。\n").encode(),
        *((FM + "".join(x) + "。\n").encode() for x in (ours, theirs)),
    )
    assert text.decode() == FM + expected + "。\n"
