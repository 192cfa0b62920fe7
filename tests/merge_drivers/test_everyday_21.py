"""Everyday edits of memory files, twenty-first round (issue 24): prose re-wrapped beside a word
inserted, a sentence inserted mid-paragraph beside the next one edited, a table row edited
twice beside a new row, nested items moved or re-indented, fences of other kinds edited on
neighbouring lines or given another language, frontmatter lists and descriptions beside body
edits, headings renamed beside items added, links (text and target), CJK clauses without
spaces, emoji, CRLF or a BOM or trailing blanks written by one side's editor only, and a few
`MEMORY.md` edits that are not placement nor renames — each with the bytes a careful human
would sign, written before the merge was run. End to end (`gitmem sync` with three real
clones): tests/e2e/test_everyday_in_sync_21.py."""

from __future__ import annotations

import pytest

from merge_drivers import merge_file
from tests.merge_drivers.test_everyday_20 import T, sub
from tests.support.sweep import SweepCase, check_case

INDEX = "MEMORY.md"


def case(base: bytes, a: tuple[str, str], b: tuple[str, str], path: str = T) -> SweepCase:
    """Two edits a careful human keeps both of, each where it was written."""
    return (path, base, sub(base, a), sub(base, b), sub(base, a, b))


FM = b"---\nname: deploy\ndescription: How we deploy the web app\ntype: project\n---\n\n"
PROSE = (
    b"Deploys go out from the release branch after the smoke suite passes on staging.\n"
    b"The on-call engineer watches the error rate for fifteen minutes and rolls back\n"
    b"with one command if it doubles.\n"
)
SENTENCES = (
    b"Migrations run before the new pods start. They must be backward compatible for one"
    b" release. Long backfills go in a separate job.\n"
)
TABLE = (
    b"| service | owner | port |\n"
    b"|---------|:-----:|-----:|\n"
    b"| api | ana | 8080 |\n"
    b"| worker | bo | 9090 |\n"
)
NESTED = b"- Backend\n  - Postgres 16\n  - Redis for sessions\n- Frontend\n  - React 18\n"
FENCE = (
    b"Release steps:\n\n"
    b"```bash\n"
    b"git fetch --tags\n"
    b"./scripts/bump.sh patch\n"
    b"git push --follow-tags\n"
    b"```\n"
)
LISTED_FENCE = (
    b"1. Build the image:\n\n"
    b"   ```sh\n"
    b"   docker build -t app .\n"
    b"   docker push app\n"
    b"   ```\n\n"
    b"2. Roll it out.\n"
)
TAGS = b"---\nname: deploy\ndescription: How we deploy\ntags:\n  - deploy\n  - k8s\n---\n\nBody.\n"
SECTION = (
    b"## Gotchas\n\n- the staging DB is shared\n- tokens expire hourly\n\n## Links\n\n- runbook\n"
)
LINK = b"See the [deploy guide](docs/deploy.md) before the first release.\n"
CJK = "部署前先跑冒烟测试，失败就停止发布。回滚用一条命令完成。\n".encode()
EMOJI = "- 🚧 docs in progress\n- ✅ build green\n".encode()
LF = b"# Deploy\n\n- staging on every merge\n- prod on tags\n\nRollback with `deploy --previous`.\n"
BLANKS = b"Notes:   \n\n- cache TTL is 60 s  \n- retries: 3\t\n"
TABS = b"- Release\n\t- bump\n\t- tag\n- Docs\n"
MEMORY = (
    b"# Memory\n\n"
    b"Index of what this project has learned; newest notes go in topic files.\n\n"
    b"## Deploy\n\n"
    b"- [Deploy](deploy.md) \xe2\x80\x94 how the web app ships\n"
    b"- [Rollback](rollback.md) \xe2\x80\x94 one command, watch errors\n\n"
    b"## People\n\n"
    b"- [Owners](owners.md) \xe2\x80\x94 who owns which service\n"
)

# The twenty-first sweep (#24): name -> (path, base, ours, theirs, what a careful human writes)
# — the table in docs/merge.md, "Round 21: everyday cases".
SWEEP: dict[str, SweepCase] = {
    "a paragraph re-wrapped vs a word inserted on a line it re-wrapped": (
        T,
        PROSE,
        PROSE.replace(b"staging.\nThe", b"staging. The")
        .replace(b"for fifteen", b"for\nfifteen")
        .replace(b"back\nwith", b"back with"),
        sub(PROSE, ("error rate", "5xx error rate")),
        PROSE.replace(b"staging.\nThe", b"staging. The")
        .replace(b"for fifteen", b"for\nfifteen")
        .replace(b"back\nwith", b"back with")
        .replace(b"error rate", b"5xx error rate"),
    ),
    "a sentence inserted mid-paragraph vs the next sentence edited": case(
        SENTENCES,
        ("start. They", "start. Each migration has a ticket. They"),
        ("for one release", "for two releases"),
    ),
    "a sentence deleted vs a word of another sentence edited": case(
        SENTENCES,
        (" Long backfills go in a separate job.", ""),
        ("new pods", "new web pods"),
    ),
    "a table row: two cells edited vs a row appended": (
        T,
        TABLE,
        sub(TABLE, ("| worker | bo | 9090 |", "| worker | cy | 9091 |")),
        TABLE + b"| cron | ana | - |\n",
        sub(TABLE, ("| worker | bo | 9090 |", "| worker | cy | 9091 |")) + b"| cron | ana | - |\n",
    ),
    "a table row moved vs a cell of it edited": (
        T,
        TABLE,
        sub(
            TABLE,
            (
                "| api | ana | 8080 |\n| worker | bo | 9090 |",
                "| worker | bo | 9090 |\n| api | ana | 8080 |",
            ),
        ),
        sub(TABLE, ("| bo |", "| cy |")),
        sub(
            TABLE,
            (
                "| api | ana | 8080 |\n| worker | bo | 9090 |",
                "| worker | cy | 9090 |\n| api | ana | 8080 |",
            ),
        ),
    ),
    "nested list: a child moved to another parent vs its text edited": (
        T,
        NESTED,
        sub(
            NESTED,
            ("  - Redis for sessions\n", ""),
            ("  - React 18\n", "  - React 18\n  - Redis for sessions\n"),
        ),
        sub(NESTED, ("Redis for sessions", "Redis 7 for sessions")),
        sub(
            NESTED,
            ("  - Redis for sessions\n", ""),
            ("  - React 18\n", "  - React 18\n  - Redis 7 for sessions\n"),
        ),
    ),
    "nested list: a child edited vs a grandchild added under it": case(
        NESTED,
        ("  - Postgres 16\n", "  - Postgres 16\n    - read replica in eu-west\n"),
        ("Postgres 16", "Postgres 16.2"),
    ),
    "a backtick fence: two neighbouring lines edited": case(
        FENCE, ("bump.sh patch", "bump.sh minor"), ("--follow-tags", "--follow-tags origin")
    ),
    "a backtick fence: its language changed vs its last line edited": case(
        FENCE, ("```bash", "```sh"), ("--follow-tags", "--follow-tags origin")
    ),
    "a fence inside a numbered item: two lines edited": case(
        LISTED_FENCE, ("-t app .", "-t app:latest ."), ("docker push app", "docker push app:latest")
    ),
    "a fence: a line inserted vs the line after it edited": case(
        FENCE,
        ("git fetch --tags\n", "git fetch --tags\ngit status --short\n"),
        ("bump.sh patch", "bump.sh minor"),
    ),
    "tags: one tag put first vs one appended": case(
        TAGS,
        ("tags:\n  - deploy", "tags:\n  - web\n  - deploy"),
        ("  - k8s\n", "  - k8s\n  - ci\n"),
    ),
    "description edited vs a paragraph appended to the body": case(
        TAGS, ("How we deploy", "How we deploy the web app"), ("Body.\n", "Body.\n\nMore.\n")
    ),
    "a heading renamed vs an item added under it": case(
        SECTION,
        ("## Gotchas", "## Gotchas (staging)"),
        ("tokens expire hourly\n", "tokens expire hourly\n- seeds reset nightly\n"),
    ),
    "a heading re-levelled vs an item of its section edited": case(
        SECTION, ("## Links", "### Links"), ("- runbook", "- runbook (wiki)")
    ),
    "a link's text edited vs its target edited": case(
        LINK, ("[deploy guide]", "[deployment guide]"), ("(docs/deploy.md)", "(docs/ops/deploy.md)")
    ),
    "a link's target edited vs a word after it edited": case(
        LINK, ("(docs/deploy.md)", "(docs/ops/deploy.md)"), ("first release", "first prod release")
    ),
    "CJK: two clauses of one sentence edited": case(
        CJK, ("先跑冒烟测试", "先跑完整冒烟测试"), ("就停止发布", "就立即停止发布")
    ),
    "CJK: a sentence appended vs a clause of the first edited": case(
        CJK, ("一条命令完成。", "一条命令完成。回滚后通知值班。"), ("冒烟测试", "集成测试")
    ),
    "emoji: an item's emoji changed vs its text edited": case(
        EMOJI, ("🚧 docs", "✅ docs"), ("docs in progress", "docs in review")
    ),
    "CRLF on one side only (its editor) vs a bullet edited": (
        T,
        LF,
        LF.replace(b"\n", b"\r\n"),
        sub(LF, ("prod on tags", "prod on signed tags")),
        # a careful human keeps the edit; the line ends of the side that changed them all
        sub(LF, ("prod on tags", "prod on signed tags")).replace(b"\n", b"\r\n"),
    ),
    "a BOM written by one side's editor vs a line edited": (
        T,
        LF,
        b"\xef\xbb\xbf" + LF,
        sub(LF, ("--previous", "--previous --yes")),
        b"\xef\xbb\xbf" + sub(LF, ("--previous", "--previous --yes")),
    ),
    "trailing blanks stripped vs a word on one of those lines edited": (
        T,
        BLANKS,
        b"Notes:\n\n- cache TTL is 60 s\n- retries: 3\n",
        sub(BLANKS, ("60 s", "90 s")),
        b"Notes:\n\n- cache TTL is 90 s\n- retries: 3\n",
    ),
    "a tab-indented list re-indented with spaces vs a child edited": (
        T,
        TABS,
        TABS.replace(b"\t", b"  "),
        sub(TABS, ("- bump", "- bump the version")),
        b"- Release\n  - bump the version\n  - tag\n- Docs\n",
    ),
    "inline code edited vs a word outside it on the same line": case(
        b"Run `make test` before pushing to main.\n",
        ("`make test`", "`make test lint`"),
        ("pushing to", "pushing anything to"),
    ),
    "a word made bold vs the word after it edited": case(
        b"Never force-push shared branches.\n",
        ("Never force-push", "**Never** force-push"),
        ("shared branches", "shared release branches"),
    ),
    "MEMORY.md: the intro edited vs an entry added": case(
        MEMORY,
        ("newest notes go", "details go"),
        (
            "one command, watch errors\n",
            "one command, watch errors\n- [Canary](canary.md) \u2014 five percent first\n",
        ),
        INDEX,
    ),
    "MEMORY.md: two words of one hook edited": case(
        MEMORY, ("one command", "a single command"), ("watch errors", "watch the 5xx rate"), INDEX
    ),
    "MEMORY.md: a section heading reworded vs its entry's hook edited": case(
        MEMORY,
        ("## People", "## People and owners"),
        ("which service", "which service and queue"),
        INDEX,
    ),
}


# The same round's second pass (#24): neighbours of the cases above.
FLAT = b"- lint with ruff\n- type-check with mypy\n- test with pytest\n- build the wheel\n"
STEPS = b"1. Build.\n2. Test:\n   1. unit\n   2. e2e\n3. Ship.\n"
CRLF_TABLE = b"| env | url |\r\n|---|---|\r\n| dev | d.example |\r\n| prod | p.example |\r\n"
SECTIONS = b"# Ops\n\n## Deploy\n\n- from main\n\n## Alerts\n\n- paged on 5xx\n- muted at night\n"
REFLINK = b"Read the [guide][g] first.\n\n[g]: https://wiki.example/deploy\n"
MIXED = "使用 `make test` 运行测试，然后用 `make dist` 打包。\n".encode()
SWEEP.update(
    {
        "a flat list: an item moved up vs its text edited": (
            T,
            FLAT,
            b"- lint with ruff\n- test with pytest\n- type-check with mypy\n- build the wheel\n",
            sub(FLAT, ("test with pytest", "test with pytest -n 2")),
            b"- lint with ruff\n- test with pytest -n 2\n- type-check with mypy\n- build the wheel\n",
        ),
        "a list restyled from `*` to `-` vs an item edited": (
            T,
            FLAT.replace(b"- ", b"* "),
            FLAT,
            sub(FLAT.replace(b"- ", b"* "), ("build the wheel", "build the wheel and sdist")),
            sub(FLAT, ("build the wheel", "build the wheel and sdist")),
        ),
        "nested steps: a sub-step inserted and renumbered vs another sub-step edited": (
            T,
            STEPS,
            sub(STEPS, ("   1. unit\n   2. e2e\n", "   1. lint\n   2. unit\n   3. e2e\n")),
            sub(STEPS, ("2. e2e", "2. e2e on two workers")),
            sub(
                STEPS,
                ("   1. unit\n   2. e2e\n", "   1. lint\n   2. unit\n   3. e2e on two workers\n"),
            ),
        ),
        "a paragraph re-wrapped vs a sentence inserted in it": (
            T,
            PROSE,
            PROSE.replace(b"staging.\nThe", b"staging. The").replace(b"back\nwith", b"back with"),
            sub(PROSE, ("on staging.\n", "on staging. Fridays are frozen.\n")),
            # acceptable: the inserting side's line break after its sentence stays
            PROSE.replace(b"staging.\nThe", b"staging. Fridays are frozen.\nThe").replace(
                b"back\nwith", b"back with"
            ),
        ),
        "two sentences inserted into one paragraph at different places": case(
            SENTENCES,
            ("start. They", "start. Each has a ticket. They"),
            ("release. Long", "release. Drops wait a week. Long"),
        ),
        "a fence: a line deleted vs the next line edited": case(
            FENCE, ("git fetch --tags\n", ""), ("bump.sh patch", "bump.sh minor")
        ),
        "a table: a column added vs a row appended": (
            T,
            TABLE,
            b"| service | owner | port | lang |\n"
            b"|---------|:-----:|-----:|------|\n"
            b"| api | ana | 8080 | go |\n"
            b"| worker | bo | 9090 | py |\n",
            TABLE + b"| cron | cy | - |\n",
            b"| service | owner | port | lang |\n"
            b"|---------|:-----:|-----:|------|\n"
            b"| api | ana | 8080 | go |\n"
            b"| worker | bo | 9090 | py |\n"
            b"| cron | cy | - |  |\n",
        ),
        "a table: a cell emptied vs another cell of the row edited": case(
            TABLE, ("| ana | 8080", "|  | 8080"), ("8080", "8081")
        ),
        "CRLF table: a row appended vs a cell edited": case(
            CRLF_TABLE,
            ("p.example |\r\n", "p.example |\r\n| qa | q.example |\r\n"),
            ("d.example", "dev.example"),
        ),
        "CRLF on one side only vs a bullet added": (
            T,
            LF,
            LF.replace(b"\n", b"\r\n"),
            sub(LF, ("prod on tags\n", "prod on tags\n- dev by hand\n")),
            sub(LF, ("prod on tags\n", "prod on tags\n- dev by hand\n")).replace(b"\n", b"\r\n"),
        ),
        "a section moved vs an item in it edited": (
            T,
            SECTIONS,
            b"# Ops\n\n## Alerts\n\n- paged on 5xx\n- muted at night\n\n## Deploy\n\n- from main\n",
            sub(SECTIONS, ("muted at night", "muted 22:00-07:00")),
            b"# Ops\n\n## Alerts\n\n- paged on 5xx\n- muted 22:00-07:00\n\n## Deploy\n\n- from main\n",
        ),
        "a section appended vs a heading renamed": case(
            SECTIONS,
            ("- muted at night\n", "- muted at night\n\n## Costs\n\n- budget alarms at 80%\n"),
            ("## Deploy", "## Deploying"),
        ),
        "a reference link's definition edited vs its text edited": case(
            REFLINK,
            ("wiki.example/deploy", "wiki.example/ops/deploy"),
            ("[guide]", "[deploy guide]"),
        ),
        "CJK with inline code: both code spans edited": case(
            MIXED, ("make test", "make check"), ("make dist", "make wheel")
        ),
        "CJK with inline code: a span edited vs the CJK words after it": case(
            MIXED, ("make test", "make check"), ("然后用", "最后用")
        ),
        "a hard break (two trailing spaces) added vs a word edited on that line": case(
            b"Owner: ana\nBackup: bo\n",
            ("Owner: ana\n", "Owner: ana  \n"),
            ("Backup: bo", "Backup: cy"),
        ),
        "frontmatter: a key added vs the description edited": case(
            FM,
            ("type: project\n", "type: project\nconfidence: 0.8\n"),
            ("the web app", "the web app and API"),
        ),
        "a paragraph turned into a task vs a word edited": (
            T,
            b"Rotate the deploy key before March.\n",
            b"- [ ] Rotate the deploy key before March.\n",
            b"Rotate the deploy key before April.\n",
            b"- [ ] Rotate the deploy key before April.\n",
        ),
        "emoji: two status lines, one emoji each changed": case(
            EMOJI, ("🚧 docs", "✅ docs"), ("✅ build", "🔥 build")
        ),
        "MEMORY.md with CRLF: two hooks edited": case(
            MEMORY.replace(b"\n", b"\r\n"),
            ("how the web app ships", "how the web app and API ship"),
            ("who owns which service", "who owns what"),
            INDEX,
        ),
        "MEMORY.md: a hook edited vs the section below renamed": case(
            MEMORY, ("watch errors", "watch the error rate"), ("## People", "## Team"), INDEX
        ),
        "MEMORY.md: the intro re-wrapped vs a word of it edited": (
            INDEX,
            MEMORY,
            sub(MEMORY, ("learned; newest", "learned;\nnewest")),
            sub(MEMORY, ("topic files", "the topic files")),
            # round 22: the word and the re-wrap, alone (a tie) as through the git driver
            sub(
                MEMORY, ("learned; newest", "learned;\nnewest"), ("topic files", "the topic files")
            ),
        ),
        # neighbours of the three classes fixed this round (docs/merge.md, round 21)
        "nested list: a child with its own child moved vs the grandchild edited": (
            T,
            NESTED.replace(b"Redis for sessions\n", b"Redis for sessions\n    - db 0\n"),
            b"- Backend\n  - Postgres 16\n- Frontend\n  - React 18\n"
            b"  - Redis for sessions\n    - db 0\n",
            NESTED.replace(b"Redis for sessions\n", b"Redis for sessions\n    - db 1\n"),
            b"- Backend\n  - Postgres 16\n- Frontend\n  - React 18\n"
            b"  - Redis for sessions\n    - db 1\n",
        ),
        "a bullet made a quote vs a word of it edited": (
            T,
            b"Intro.\n\n- staging is shared with QA\n",
            b"Intro.\n\n> staging is shared with QA\n",
            b"Intro.\n\n- staging is shared with the QA team\n",
            b"Intro.\n\n> staging is shared with the QA team\n",
        ),
        "a task's box ticked and struck vs a word of it edited": (
            T,
            b"- [ ] rotate the deploy key\n",
            b"- [x] ~~rotate the deploy key~~\n",
            b"- [ ] rotate the CI deploy key\n",
            b"- [x] ~~rotate the CI deploy key~~\n",
        ),
        "CRLF table: a column added vs a row appended": (
            T,
            CRLF_TABLE,
            b"| env | url | ttl |\r\n|---|---|---|\r\n| dev | d.example | 1h |\r\n"
            b"| prod | p.example | 1d |\r\n",
            CRLF_TABLE + b"| qa | q.example |\r\n",
            b"| env | url | ttl |\r\n|---|---|---|\r\n| dev | d.example | 1h |\r\n"
            b"| prod | p.example | 1d |\r\n| qa | q.example |  |\r\n",
        ),
    }
)


def test_an_index_intro_re_wrapped_vs_a_word_edited_keeps_every_word() -> None:
    """Round 22: on a tie (no ranks) the index's paragraph merge keeps the word and the re-wrap
    (round 21 kept the words only, told as a `tie-break`), with nothing to tell."""
    path, base, ours, theirs, want = SWEEP["MEMORY.md: the intro re-wrapped vs a word of it edited"]
    result = merge_file(path, base, ours, theirs)
    assert result.data == want and not result.resolutions


@pytest.mark.parametrize("name", sorted(SWEEP))
def test_the_twenty_first_sweep(name: str) -> None:
    """Each case both directions, then merged again with either side: nothing changes."""
    check_case(SWEEP[name])
