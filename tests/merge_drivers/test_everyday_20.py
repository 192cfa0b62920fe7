"""Everyday edits of topic files, twentieth round (issue 24): fences of other kinds (tildes with
info strings, indented code), nested lists, tables with alignment rows and escaped pipes, CRLF
files, CJK and emoji prose, frontmatter edits (description, confidence, tags lists) beside body
edits, block quotes, HTML comments, a paragraph re-wrapped or split while a word is edited —
each with the bytes a careful human would sign, written before the merge was run. End to end
(`gitmem sync` with three real clones): tests/e2e/test_everyday_in_sync_20.py."""

from __future__ import annotations

import pytest

from tests.support.sweep import SweepCase, check_case

T = ".claude/memory/notes.md"

FM = b"---\nname: build\ndescription: How the project builds and ships\ntype: project\n---\n\n"
TILDE = (
    b'~~~python title="release.py"\n'
    b"version = read_version()\n"
    b'bump(version, part="patch")\n'
    b"tag(version)\n"
    b"~~~\n"
)
INDENTED = b"Run this once:\n\n    make deps\n    make test\n    make dist\n\nThen tag.\n"
NESTED = (
    b"- Release\n"
    b"  - bump the version\n"
    b"    - `pyproject.toml` and `__init__.py`\n"
    b"  - tag and push\n"
    b"- Docs\n"
)
TABLE = (
    b"| env | url | timeout |\n"
    b"|:----|:---:|--------:|\n"
    b"| staging | https://s.example | 30 |\n"
    b"| prod | https://p.example | 60 |\n"
)
PIPES = (
    b"| command | meaning |\n|---|---|\n| `a \\| b` | pipe a into b |\n| `x && y` | y after x |\n"
)
CRLF = (
    b"# Deploy\r\n\r\n"
    b"- staging deploys on every merge\r\n"
    b"- prod deploys on tags only\r\n\r\n"
    b"Rollback with `deploy --previous`.\r\n"
)
CJK = (
    "# 写作规则\n\n先写大纲，再写正文。每章不超过三千字，结尾留一个钩子。\n\n对话要短，旁白要少。\n"
).encode()
EMOJI = (
    "Status board: ✅ build green, 🚧 docs in progress, 🔥 flaky e2e on macOS runners.\n".encode()
)
CONF = (
    b"---\nname: api\ndescription: The API's rate limits\nconfidence: 0.6\n"
    b"modified: 2026-11-01\n---\n\n"
    b"The public API allows 100 requests a minute.\n"
    b"Bursts above that get a 429 with Retry-After.\n"
    b"Internal callers are not limited.\n"
)
TAGS = (
    b"---\nname: api\ndescription: The API's rate limits\ntags:\n  - api\n  - limits\n---\n\n"
    b"The public API allows 100 requests a minute.\n"
)
FLOW = b"---\nname: api\ndescription: The API's rate limits\ntags: [api, limits]\n---\n\nBody.\n"
QUOTE = (
    b"The reviewer wrote:\n\n"
    b"> Keep the migration reversible and\n"
    b"> run it on a copy of prod first.\n\n"
    b"We agreed.\n"
)
COMMENT = (
    b"# Secrets\n\n"
    b"<!-- owner: platform team; review yearly -->\n\n"
    b"Secrets live in Vault under `kv/app`.\n"
)
PARA = (
    b"The cache is warmed at startup from the last snapshot, which takes about\n"
    b"forty seconds on a cold node, so readiness probes wait a full minute before\n"
    b"the first check.\n"
)
TWO = (
    b"The nightly job exports the orders table to the warehouse. It runs at 02:00 UTC and"
    b" takes twenty minutes.\n"
)


def sub(data: bytes, *pairs: tuple[str, str]) -> bytes:
    """`data` with each (old, new) replaced once (the old text must be there)."""
    for old, new in pairs:
        assert old.encode() in data, old
        data = data.replace(old.encode(), new.encode(), 1)
    return data


def both(data: bytes, a: tuple[str, str], b: tuple[str, str]) -> tuple[bytes, bytes, bytes]:
    """(one side's edit, the other's, both): the usual shape of a case."""
    return sub(data, a), sub(data, b), sub(data, a, b)


def case(base: bytes, a: tuple[str, str], b: tuple[str, str]) -> SweepCase:
    ours, theirs, want = both(base, a, b)
    return (T, base, ours, theirs, want)


# The twentieth sweep (#24): name -> (path, base, ours, theirs, what a careful human writes) —
# the table in docs/merge.md, "Everyday cases, twentieth round".
SWEEP: dict[str, SweepCase] = {
    "tilde fence with an info string: two neighbouring lines edited": case(
        FM + TILDE, ('part="patch"', 'part="minor"'), ("tag(version)", "tag(version, sign=True)")
    ),
    "tilde fence: its info string edited vs a line inside edited": case(
        FM + TILDE,
        ('title="release.py"', 'title="scripts/release.py"'),
        ("read_version()", "read_version(path)"),
    ),
    "indented code: two neighbouring lines edited": case(
        INDENTED, ("make test", "make test lint"), ("make dist", "make dist sign")
    ),
    "indented code: a line appended vs the text after it edited": case(
        INDENTED,
        ("make dist\n", "make dist\n    make publish\n"),
        ("Then tag.", "Then tag and push."),
    ),
    "nested list: a grandchild edited vs a sibling child added": case(
        NESTED,
        ("and `__init__.py`", "and `gitmem/__init__.py`"),
        ("  - tag and push\n", "  - tag and push\n  - announce\n"),
    ),
    "nested list: two children of one item edited": case(
        NESTED,
        ("bump the version", "bump the version (semver)"),
        ("tag and push", "tag, sign and push"),
    ),
    "table with alignment row: two cells of one row edited": case(
        TABLE, ("https://s.example", "https://staging.example"), ("| 30 |", "| 45 |")
    ),
    "table: the alignment row changed vs a cell edited": case(
        TABLE, ("|:----|:---:|", "|:----|:----|"), ("| 60 |", "| 90 |")
    ),
    "table with an escaped pipe: the cell holding it vs the next cell edited": case(
        PIPES, ("`a \\| b`", "`a \\| b \\| c`"), ("pipe a into b", "pipe a's output into b")
    ),
    "CRLF: two bullets edited on two sides": case(
        CRLF, ("every merge", "every merge to main"), ("tags only", "signed tags only")
    ),
    "CRLF: a bullet added vs the paragraph edited": case(
        CRLF,
        ("tags only\r\n", "tags only\r\n- dev deploys by hand\r\n"),
        ("--previous", "--previous --yes"),
    ),
    "CJK prose: two sentences of one paragraph edited": case(
        CJK, ("先写大纲", "先写人物小传和大纲"), ("三千字", "两千五百字")
    ),
    "CJK prose: a paragraph edited vs the next one edited": case(
        CJK, ("结尾留一个钩子", "结尾留两个钩子"), ("旁白要少", "旁白要更少")
    ),
    "emoji prose: two emoji items of one line edited": case(
        EMOJI,
        ("🚧 docs in progress", "✅ docs done"),
        ("on macOS runners", "on macOS and Windows runners"),
    ),
    "frontmatter description edited vs a body line edited": case(
        CONF,
        ("The API's rate limits", "The public API's rate limits"),
        ("Internal callers", "Internal callers with a token"),
    ),
    "confidence raised with an edit vs the neighbouring line edited": (
        T,
        CONF,
        sub(CONF, ("confidence: 0.6", "confidence: 0.9"), ("100 requests", "120 requests")),
        sub(CONF, ("a 429 with", "a 429 and")),
        sub(
            CONF,
            ("confidence: 0.6", "confidence: 0.9"),
            ("100 requests", "120 requests"),
            ("a 429 with", "a 429 and"),
        ),
    ),
    "tags list: a tag added on each side": (
        T,
        TAGS,
        sub(TAGS, ("  - limits\n", "  - limits\n  - http\n")),
        sub(TAGS, ("  - limits\n", "  - limits\n  - billing\n")),
        # acceptable: both tags, in the order of the sort (billing before http)
        sub(TAGS, ("  - limits\n", "  - limits\n  - billing\n  - http\n")),
    ),
    "tags list: a tag added vs the body edited": case(
        TAGS, ("  - limits\n", "  - limits\n  - http\n"), ("100 requests", "120 requests")
    ),
    "flow tags: a tag added on each side": (
        T,
        FLOW,
        sub(FLOW, ("[api, limits]", "[api, limits, http]")),
        sub(FLOW, ("[api, limits]", "[api, limits, billing]")),
        sub(FLOW, ("[api, limits]", "[api, limits, billing, http]")),  # acceptable: sorted
    ),
    "block quote: two lines of one quote edited": case(
        QUOTE, ("reversible and", "reversible, and"), ("copy of prod", "fresh copy of prod")
    ),
    "block quote: a line added vs a word edited": case(
        QUOTE,
        ("prod first.\n", "prod first.\n> Announce it a day ahead.\n"),
        ("Keep the", "Keep every"),
    ),
    "HTML comment edited vs the paragraph after it edited": case(
        COMMENT, ("review yearly", "review quarterly"), ("`kv/app`", "`kv/app/prod`")
    ),
    "HTML comment added vs the paragraph edited": case(
        COMMENT,
        ("`kv/app`.\n", "`kv/app`.\n\n<!-- rotated 2026-11 -->\n"),
        ("live in", "are stored in"),
    ),
    "a paragraph re-wrapped vs a word edited": (
        T,
        PARA,
        PARA.replace(b"about\nforty", b"about forty")
        .replace(b"before\nthe", b"before the")
        .replace(b"node, so", b"node,\nso"),
        sub(PARA, ("forty seconds", "fifty seconds")),
        PARA.replace(b"about\nforty", b"about fifty")
        .replace(b"before\nthe", b"before the")
        .replace(b"node, so", b"node,\nso")
        .replace(b"about fifty seconds", b"about fifty seconds")
        .replace(b"forty", b"fifty"),
    ),
    "a paragraph split in two vs a word edited in the second half": (
        T,
        TWO,
        TWO.replace(b"warehouse. It", b"warehouse.\n\nIt"),
        sub(TWO, ("twenty minutes", "thirty minutes")),
        TWO.replace(b"warehouse. It", b"warehouse.\n\nIt").replace(b"twenty", b"thirty"),
    ),
    "a paragraph split in two vs a word edited in the first half": (
        T,
        TWO,
        TWO.replace(b"warehouse. It", b"warehouse.\n\nIt"),
        sub(TWO, ("orders table", "orders and refunds tables")),
        TWO.replace(b"warehouse. It", b"warehouse.\n\nIt").replace(
            b"orders table", b"orders and refunds tables"
        ),
    ),
    "a task checked vs its text edited": case(
        b"- [ ] rotate the deploy key\n- [ ] drop the old bucket\n",
        ("- [ ] rotate", "- [x] rotate"),
        ("the deploy key", "the deploy and CI keys"),
    ),
    "table with an escaped pipe: a column added vs a cell edited": (
        T,
        PIPES,
        b"| command | meaning | shell |\n|---|---|---|\n| `a \\| b` | pipe a into b | sh |\n"
        b"| `x && y` | y after x | sh |\n",
        sub(PIPES, ("y after x", "y only if x succeeds")),
        b"| command | meaning | shell |\n|---|---|---|\n| `a \\| b` | pipe a into b | sh |\n"
        b"| `x && y` | y only if x succeeds | sh |\n",
    ),
    "a fence given a language vs a line inside edited": (
        T,
        INDENTED.replace(
            b"    make deps\n    make test\n    make dist\n", b"```\nmake deps\nmake test\n```\n"
        ),
        INDENTED.replace(
            b"    make deps\n    make test\n    make dist\n", b"```sh\nmake deps\nmake test\n```\n"
        ),
        INDENTED.replace(
            b"    make deps\n    make test\n    make dist\n", b"```\nmake deps\nmake check\n```\n"
        ),
        INDENTED.replace(
            b"    make deps\n    make test\n    make dist\n", b"```sh\nmake deps\nmake check\n```\n"
        ),
    ),
    "a four-backtick fence holding a three-backtick one: two lines edited": case(
        b"````markdown\nExample:\n```sh\nmake\n```\nEnd of example.\n````\n",
        ("Example:", "An example:"),
        ("make\n", "make all\n"),
    ),
    "nested list indented with tabs: a child added vs the parent edited": case(
        b"- Release\n\t- bump\n\t- tag\n- Docs\n",
        ("\t- tag\n", "\t- tag\n\t- push\n"),
        ("- Release\n", "- Release (manual)\n"),
    ),
    "multi-line HTML comment: two lines edited": case(
        b"<!--\nowner: platform\nreview: yearly\n-->\n\nText.\n",
        ("owner: platform", "owner: platform (ana)"),
        ("review: yearly", "review: quarterly"),
    ),
    "a block quote holding a list: an item added vs another edited": case(
        b"> Checklist:\n> - backups verified\n> - alerts routed\n",
        ("> - alerts routed\n", "> - alerts routed\n> - runbook linked\n"),
        ("backups verified", "backups verified weekly"),
    ),
    "CJK description and CJK body edited": case(
        "---\nname: rules\ndescription: 写作规则：先大纲后正文\n---\n\n".encode() + CJK,
        ("先大纲后正文", "先大纲后正文，每章三千字"),
        ("对话要短", "对话要简短"),
    ),
    "a heading with an emoji reworded vs its paragraph edited": case(
        "## 🚀 Release\n\nShip on Tuesdays.\n".encode(),
        ("🚀 Release", "🚀 Release train"),
        ("Tuesdays", "Tuesdays and Thursdays"),
    ),
    "a paragraph re-wrapped on both sides differently": (
        T,
        PARA,
        PARA.replace(b"about\nforty", b"about forty").replace(b"node, so", b"node,\nso"),
        PARA.replace(b"before\nthe", b"before the"),
        # acceptable: one side's wrapping (the words are the same)
        None,
    ),
    "CRLF: a paragraph re-wrapped vs a word edited": (
        T,
        b"Tokens expire after one\r\nhour; refresh them early.\r\n",
        b"Tokens expire after one hour;\r\nrefresh them early.\r\n",
        b"Tokens expire after one\r\nhour; refresh them well before.\r\n",
        b"Tokens expire after one hour;\r\nrefresh them well before.\r\n",
    ),
    "a paragraph split in two vs a sentence appended": (
        T,
        TWO,
        TWO.replace(b"warehouse. It", b"warehouse.\n\nIt"),
        TWO.replace(b" minutes.\n", b" minutes. Failures page the data team.\n"),
        TWO.replace(b"warehouse. It", b"warehouse.\n\nIt").replace(
            b" minutes.\n", b" minutes. Failures page the data team.\n"
        ),
    ),
    "tags list: a tag removed vs another added": (
        T,
        TAGS,
        sub(TAGS, ("  - api\n", "")),
        sub(TAGS, ("  - limits\n", "  - limits\n  - http\n")),
        sub(TAGS, ("  - api\n", ""), ("  - limits\n", "  - limits\n  - http\n")),
    ),
}

# The same twentieth round's second pass (#24): edits a careful human makes next to those above.
REPAD = (
    b"| env     | url               | timeout |\n"
    b"|:--------|:-----------------:|--------:|\n"
    b"| staging | https://s.example |      30 |\n"
    b"| prod    | https://p.example |      60 |\n"
)
SPLIT = b"- Build with make; test with pytest.\n- Ship.\n"
SWEEP.update(
    {
        "a table re-aligned (padded) vs a cell edited": (
            T,
            TABLE,
            REPAD,
            sub(TABLE, ("| 60 |", "| 90 |")),
            REPAD.replace(b"|      60 |", b"|      90 |"),
        ),
        "a table row deleted vs a cell of another row edited": (
            T,
            TABLE,
            sub(TABLE, ("| staging | https://s.example | 30 |\n", "")),
            sub(TABLE, ("| 60 |", "| 90 |")),
            sub(TABLE, ("| staging | https://s.example | 30 |\n", ""), ("| 60 |", "| 90 |")),
        ),
        "a table row appended on each side": (
            T,
            TABLE,
            TABLE + b"| dev | https://d.example | 10 |\n",
            TABLE + b"| qa | https://q.example | 20 |\n",
            # acceptable: both rows, the greater first
            TABLE + b"| qa | https://q.example | 20 |\n| dev | https://d.example | 10 |\n",
        ),
        "a list item split in two vs a word edited in its second half": (
            T,
            SPLIT,
            b"- Build with make.\n- Test with pytest.\n- Ship.\n",
            sub(SPLIT, ("with pytest.", "with pytest -n 2.")),
            b"- Build with make.\n- Test with pytest -n 2.\n- Ship.\n",
        ),
        "a list item split in two vs a word edited in its first half": (
            T,
            SPLIT,
            b"- Build with make.\n- Test with pytest.\n- Ship.\n",
            sub(SPLIT, ("with make", "with GNU make")),
            # good since round 21 (test_topic_21.py): `GNU` stands before the word the split
            # only re-punctuated (`make;` → `make.`)
            b"- Build with GNU make.\n- Test with pytest.\n- Ship.\n",
        ),
        "nested list: a grandchild removed vs another child edited": case(
            NESTED,
            ("    - `pyproject.toml` and `__init__.py`\n", ""),
            ("tag and push", "tag, sign and push"),
        ),
        "nested list: an item indented under the one before vs its text edited": case(
            NESTED, ("- Docs\n", "  - Docs\n"), ("- Docs", "- Docs site")
        ),
        "a sentence appended to one paragraph on each side": (
            T,
            TWO,
            TWO.replace(b" minutes.\n", b" minutes. It retries twice.\n"),
            TWO.replace(b" minutes.\n", b" minutes. Failures page data.\n"),
            # acceptable: both sentences, in the order of the word merge
            TWO.replace(b" minutes.\n", b" minutes. It retries twice. Failures page data.\n"),
        ),
        "a block quote re-wrapped vs a word edited": (
            T,
            QUOTE,
            QUOTE.replace(b"and\n> run", b"and run\n>"),
            sub(QUOTE, ("copy of prod", "copy of production")),
            QUOTE.replace(b"and\n> run", b"and run\n>").replace(
                b"copy of prod", b"copy of production"
            ),
        ),
        "ZWJ emoji: two words of one line edited": (
            T,
            "Team: 👩‍💻 Ana writes, 🧑‍🔬 Bo tests.\n".encode(),
            "Team: 👩‍💻 Ana codes, 🧑‍🔬 Bo tests.\n".encode(),
            "Team: 👩‍💻 Ana writes, 🧑‍🔬 Bo reviews.\n".encode(),
            "Team: 👩‍💻 Ana codes, 🧑‍🔬 Bo reviews.\n".encode(),
        ),
        "two paragraphs joined vs a word edited in the second": (
            T,
            b"First part here.\n\nSecond part there.\n",
            b"First part here. Second part there.\n",
            b"First part here.\n\nSecond part over there.\n",
            b"First part here. Second part over there.\n",
        ),
        "an HTML comment removed vs the paragraph edited": case(
            COMMENT,
            ("<!-- owner: platform team; review yearly -->\n\n", ""),
            ("live in", "are stored in"),
        ),
        "a setext heading reworded vs the paragraph under it edited": (
            T,
            b"Release\n=======\n\nShip on Tuesdays.\n",
            b"Release train\n=============\n\nShip on Tuesdays.\n",
            b"Release\n=======\n\nShip on Thursdays.\n",
            b"Release train\n=============\n\nShip on Thursdays.\n",
        ),
        "frontmatter: two words of the description edited on two sides": case(
            CONF,
            ("The API's rate", "The public API's rate"),
            ("rate limits", "rate limits and quotas"),
        ),
        "a heading inserted between paragraphs vs the paragraph after it edited": (
            T,
            b"Intro text.\n\nDetails here.\n",
            b"Intro text.\n\n## Details\n\nDetails here.\n",
            b"Intro text.\n\nMore details here.\n",
            b"Intro text.\n\n## Details\n\nMore details here.\n",
        ),
        "two neighbouring words edited on two sides": case(
            b"Use the quick path for small repos.\n",
            ("quick path", "fast path"),
            ("path for", "route for"),
        ),
        "CJK: a sentence appended to each of two paragraphs": case(
            CJK, ("旁白要少。", "旁白要少。多用动作。"), ("留一个钩子。", "留一个钩子。开头要快。")
        ),
    }
)


@pytest.mark.parametrize("name", sorted(SWEEP))
def test_the_twentieth_sweep(name: str) -> None:
    """Each case both directions, then merged again with either side: nothing changes."""
    check_case(SWEEP[name])
