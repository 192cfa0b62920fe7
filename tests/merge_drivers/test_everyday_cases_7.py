"""Everyday edits of memory files, seventh round (issue 24): new cases written as a tester
writes them, none a repeat of tests/merge_drivers/test_everyday_cases.py — block quotes with
lists, sub-sections moved under another parent, fences inside list items, reference links and
footnotes, HTML comments and `<details>`, task lists on three machines, emphasis around an
edited word, tabs in a Makefile fence, tables without outer pipes, setext headings, a list
starting at 5, Claude Code's **Why:** / **How to apply:** blocks, emoji ZWJ sequences and
combining marks, Arabic, Japanese, Thai with tone marks, frontmatter grown or removed, a file
emptied. Each case says what a careful human keeps; every merge is symmetric and idempotent,
three replicas converge in every order. End to end: tests/e2e/test_everyday_in_sync.py."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .conftest import examples
from .test_everyday_cases import Case, Sweep, check, merged

T = ".claude/agent-memory/bot/notes.md"
I = ".claude/agent-memory/bot/MEMORY.md"  # noqa: E741
FM = "---\nname: notes\ndescription: build and release notes\ntype: project\n---\n"
IX = "# Memory\n\n- [Build](build.md) — `make -j4` on every branch\n- [Deploy](deploy.md) — fly, manual\n"

case = Sweep()
CASES = case.cases


# block quotes: a list inside a quote, a nested quote
Q = FM + (
    "## Advice\n\n> Reviewer said:\n> - keep functions short\n> - name things well\n>\n"
    "> > nested: prefer pure functions\n"
)
case(
    "quote list two items edited",
    T,
    Q,
    [
        Q.replace("keep functions short", "keep functions under 40 lines"),
        Q.replace("name things well", "name things for what they do"),
    ],
    ["> - keep functions under 40 lines\n> - name things for what they do\n"],
)
case(
    "quote list item added vs nested quote edited",
    T,
    Q,
    [
        Q.replace("> - name things well\n", "> - name things well\n> - write tests first\n"),
        Q.replace("prefer pure functions", "prefer pure functions always"),
    ],
    ["> - name things well\n> - write tests first\n", "> > nested: prefer pure functions always\n"],
)
case(
    "quote lines both edited, three machines",
    T,
    Q,
    [
        Q.replace("Reviewer said:", "Ana (reviewer) said:"),
        Q.replace("keep functions short", "keep functions short and flat"),
        Q.replace("> > nested: prefer", "> > nested: strongly prefer"),
    ],
    [
        "> Ana (reviewer) said:\n> - keep functions short and flat\n",
        "> > nested: strongly prefer pure functions\n",
    ],
)
# headings at several levels; a sub-section moved under another parent
H = (
    FM
    + "# Project\n\n## Build\n\n- make\n\n### Cache\n\n- ccache on\n\n## Deploy\n\n- fly deploy\n"
)
case(
    "sub-section moved to other parent vs edit in it",
    T,
    H,
    [
        FM
        + "# Project\n\n## Build\n\n- make\n\n## Deploy\n\n- fly deploy\n\n### Cache\n\n- ccache on\n",
        H.replace("- ccache on", "- ccache on, 5G max"),
    ],
    ["## Deploy\n\n- fly deploy\n\n### Cache\n\n- ccache on, 5G max\n"],
    ["- make\n\n### Cache"],
)
case(
    "sub-section promoted to h2 vs append in it",
    T,
    H,
    [
        H.replace("### Cache", "## Cache"),
        H.replace("- ccache on\n", "- ccache on\n- sccache for rust\n"),
    ],
    ["## Cache\n\n- ccache on\n- sccache for rust\n"],
    ["### Cache"],
)
# a list item holding a fenced code block
L = (
    FM
    + "- deploy with:\n\n  ```sh\n  fly deploy\n  fly status\n  ```\n- rollback with `fly releases`\n"
)
case(
    "fence in item: code line vs item text",
    T,
    L,
    [
        L.replace("  fly deploy\n", "  fly deploy --strategy rolling\n"),
        L.replace("- deploy with:", "- deploy to prod with:"),
    ],
    ["- deploy to prod with:\n\n  ```sh\n  fly deploy --strategy rolling\n  fly status\n  ```\n"],
)
case(
    "fence in item: both add code lines at different places",
    T,
    L,
    [
        L.replace("  fly deploy\n", "  fly auth whoami\n  fly deploy\n"),
        L.replace("  fly status\n", "  fly status\n  fly logs\n"),
    ],
    ["  ```sh\n  fly auth whoami\n  fly deploy\n  fly status\n  fly logs\n  ```\n"],
)
# reference links and footnotes
R = FM + (
    "See the [runbook][rb] and the [wiki][w] before paging.\n\n"
    "[rb]: https://example.com/runbook\n[w]: https://example.com/wiki\n"
)
case(
    "reference link url vs new reference",
    T,
    R,
    [
        R.replace("https://example.com/runbook", "https://example.com/runbook/v2"),
        R.replace("before paging.", "and the [dashboard][d] before paging.").replace(
            "[w]: https://example.com/wiki\n",
            "[w]: https://example.com/wiki\n[d]: https://example.com/grafana\n",
        ),
    ],
    [
        "[dashboard][d] before paging.",
        "[rb]: https://example.com/runbook/v2\n[w]: https://example.com/wiki\n[d]: https://example.com/grafana\n",
    ],
)
F = FM + "Use uv for installs[^1].\n\n[^1]: faster than pip.\n"
case(
    "footnote text vs second footnote",
    T,
    F,
    [
        F.replace("faster than pip.", "ten times faster than pip."),
        F.replace("installs[^1].", "installs[^1] and locks[^2].") + "[^2]: uv.lock is committed.\n",
    ],
    [
        "installs[^1] and locks[^2].",
        "[^1]: ten times faster than pip.",
        "[^2]: uv.lock is committed.",
    ],
)
# links inside a paragraph with inline code
K = (
    FM
    + "Run `make test` first; the [CI guide](https://ci.example.com/guide) explains the matrix.\n"
)
case(
    "inline code vs link url, one sentence",
    T,
    K,
    [
        K.replace("`make test`", "`make check`"),
        K.replace("https://ci.example.com/guide", "https://ci.example.com/v2/guide"),
    ],
    ["Run `make check` first; the [CI guide](https://ci.example.com/v2/guide) explains"],
)
# HTML comments and HTML blocks
C = FM + "<!--\nowner: ana\nreview: monthly\n-->\n\n- keep the cache warm\n"
case(
    "multi-line comment two lines",
    T,
    C,
    [C.replace("owner: ana", "owner: bo"), C.replace("review: monthly", "review: weekly")],
    ["<!--\nowner: bo\nreview: weekly\n-->\n"],
)
D = FM + (
    "<details>\n<summary>Old errors</summary>\n\n- E101 on CI\n- E202 on release\n\n</details>\n\n"
    "- current: none\n"
)
case(
    "details block both edit inside",
    T,
    D,
    [
        D.replace("E101 on CI", "E101 on CI (fixed)"),
        D.replace("- E202 on release\n", "- E202 on release\n- E303 once\n"),
    ],
    ["- E101 on CI (fixed)\n- E202 on release\n- E303 once\n\n</details>"],
)
G = FM + "<!-- gitmem:keep -->\n## Pinned\n\n- never force-push main\n"
case(
    "gitmem comment vs pinned edit",
    T,
    G,
    [
        G.replace("- never force-push main\n", "- never force-push main\n- never skip hooks\n"),
        G.replace("force-push main", "force-push main or release/*"),
    ],
    [
        "<!-- gitmem:keep -->\n## Pinned\n\n- never force-push main or release/*\n- never skip hooks\n"
    ],
)
# task lists
TL = FM + "## Todo\n\n- [ ] rotate keys\n- [ ] bump deps\n- [ ] write changelog\n"
case(
    "tasks checked on three machines",
    T,
    TL,
    [
        TL.replace("- [ ] rotate keys", "- [x] rotate keys"),
        TL.replace("- [ ] bump deps", "- [x] bump deps"),
        TL.replace("- [ ] write changelog\n", "- [ ] write changelog\n- [ ] tag v2\n"),
    ],
    ["- [x] rotate keys\n- [x] bump deps\n- [ ] write changelog\n- [ ] tag v2\n"],
)
case(
    "task checked vs task reworded, same item",
    T,
    TL,
    [
        TL.replace("- [ ] bump deps", "- [x] bump deps"),
        TL.replace("bump deps", "bump deps (uv lock --upgrade)"),
    ],
    ["- [x] bump deps (uv lock --upgrade)\n"],
)
# emphasis around words vs a word changed inside them
E = FM + "Always use the staging db for load tests.\n"
case(
    "emphasis around vs word inside",
    T,
    E,
    [
        E.replace("the staging db", "the **staging db**"),
        E.replace("staging db", "staging database"),
    ],
    ["the **staging database** for load tests."],
)
# the class of "emphasis around vs word inside": emphasis marks at a word's edges are tokens
# of their own, glued to it, and marks alone written next to a changed word clash with nothing
case(
    "emphasis removed vs word inside",
    T,
    E.replace("the staging db", "the **staging db**"),
    [
        E,
        E.replace("staging db", "staging database")
        .replace("the staging", "the **staging")
        .replace("database", "database**"),
    ],
    ["Always use the staging database for load tests."],
    ["**"],
)
case(
    "strike-through around vs word inside, three machines",
    T,
    E,
    [
        E.replace("the staging db", "the ~~staging db~~"),
        E.replace("staging db", "staging database"),
        E.replace("load tests", "load and soak tests"),
    ],
    ["the ~~staging database~~ for load and soak tests."],
)
case(
    "underscore italic around one word vs its next word",
    T,
    E,
    [E.replace("staging", "_staging_"), E.replace(" db ", " cluster ")],
    ["Always use the _staging_ cluster for load tests."],
)
case(
    "italic one word vs next word",
    T,
    E,
    [E.replace("Always", "*Always*"), E.replace("use the", "use only the")],
    ["*Always* use only the staging db"],
)
# a sentence moved to another paragraph, a word of it edited on the other side
S = (
    FM
    + "The cache lives in /tmp. It is cleared nightly.\n\nDeploys run at noon. Rollbacks are manual.\n"
)
case(
    "sentence moved to other paragraph vs word edit in it",
    T,
    S,
    [
        FM
        + "The cache lives in /tmp.\n\nDeploys run at noon. Rollbacks are manual. It is cleared nightly.\n",
        S.replace("Deploys run at noon.", "Deploys run at 14:00."),
    ],
    ["Deploys run at 14:00. Rollbacks are manual. It is cleared nightly.\n"],
    ["noon", "/tmp. It is"],
)
# trailing whitespace and hard breaks
W = FM + "- first line  \n- second line\t\n- third line\n"
case(
    "trailing whitespace stripped vs item added",
    T,
    W,
    [
        W.replace("  \n", "\n").replace("\t\n", "\n"),
        W.replace("- third line\n", "- third line\n- fourth line\n"),
    ],
    ["- first line\n- second line\n- third line\n- fourth line\n"],
)
BS = FM + "Address:\\\nBuilding 4\\\nRoom 12\n"
case(
    "backslash hard breaks, two lines edited",
    T,
    BS,
    [BS.replace("Building 4", "Building 5"), BS.replace("Room 12", "Room 14")],
    ["Address:\\\nBuilding 5\\\nRoom 14\n"],
)
# frontmatter
case(
    "fm same key added both, different values",
    T,
    FM + "- body\n",
    [
        FM.replace("type: project\n", "type: project\nowner: ana\n") + "- body\n",
        FM.replace("type: project\n", "type: project\nowner: bo\n") + "- body\n",
    ],
    ["owner: "],
    ["owner: ana\nowner", "owner: bo\nowner"],
)
TG = "---\nname: notes\ndescription: build notes\ntags:\n  - ci\n  - build\n---\n- body\n"
case(
    "fm block tags grown both, three machines",
    T,
    TG,
    [
        TG.replace("  - build\n", "  - build\n  - docs\n"),
        TG.replace("  - build\n", "  - build\n  - release\n"),
        TG.replace("  - ci\n", "  - ci\n  - cache\n"),
    ],
    ["  - ci\n", "  - cache\n", "  - build\n", "  - docs\n", "  - release\n"],
)
case(
    "fm removed vs body edit",
    T,
    FM + "- body one\n- body two\n",
    ["- body one\n- body two\n", FM + "- body one\n- body two edited\n"],
    ["- body one\n- body two edited\n"],
)
case(
    "fm removed vs description edit",
    T,
    FM + "- body one\n",
    [
        "- body one\n",
        FM.replace("build and release notes", "build, release and deploy notes") + "- body one\n",
    ],
    ["- body one\n"],
)
case(
    "body emptied vs edited",
    T,
    FM + "## A\n\n- a\n- b\n\nPara one.\n",
    [FM, FM + "## A\n\n- a\n- b, edited\n\nPara one.\n"],
    # the body emptied under its frontmatter is a deletion, as a file emptied is (converge10):
    # the edit kept whole
    [FM + "## A\n\n- a\n- b, edited\n\nPara one.\n"],
    [],
)
case(
    "index emptied vs entry edited",
    I,
    IX,
    ["\n", IX.replace("fly, manual", "fly, from CI")],
    ["# Memory\n", "- [Deploy](deploy.md) — fly, from CI\n"],
    ["[Build]"],
)
case(
    "file emptied vs edited",
    T,
    FM + "- a\n- b\n",
    ["", FM + "- a\n- b, edited\n"],
    [FM + "- a\n- b, edited\n"],  # emptied is deleted: the edit kept whole (merge9)
    [],
)
# code is exact: tabs and spaces
MK = FM + "```make\nbuild:\n    go build ./...\ntest:\n\tgo test ./...\n```\n"
case(
    "makefile fence: spaces to tab vs other line",
    T,
    MK,
    [MK.replace("    go build", "\tgo build"), MK.replace("go test ./...", "go test -race ./...")],
    ["build:\n\tgo build ./...\ntest:\n\tgo test -race ./...\n```"],
    ["    go build"],
)
DF = FM + "```diff\n- old_call()\n+ new_call()\n  context\n```\n"
case(
    "diff fence: lines that look like bullets",
    T,
    DF,
    [
        DF.replace("+ new_call()", "+ new_call(timeout=5)"),
        DF.replace("  context\n", "  context\n+ log()\n"),
    ],
    ["```diff\n- old_call()\n+ new_call(timeout=5)\n  context\n+ log()\n```\n"],
)
# a long URL edited on both sides
U = (
    FM
    + "- dashboard: https://grafana.example.com/d/abc123/overview?orgId=1&from=now-6h&to=now\n- alerts: pager\n"
)
case(
    "long url both sides, and another bullet",
    T,
    U,
    [U.replace("abc123", "xyz789"), U.replace("now-6h", "now-24h").replace("pager", "pagerduty")],
    [
        "- alerts: pagerduty\n",
        "- dashboard: https://grafana.example.com/d/xyz789/overview?orgId=1&from=now-24h&to=now\n",
    ],
    ["<<<", "abc123", "now-6h"],
)
# its neighbours (2026-11-28): a URL is merged by its parts (`fine._parts`)
UP = FM + "See https://grafana.example.com/d/abc123/overview?orgId=1&from=now-6h for it.\n"
case(
    "long url in prose: path on one side, query on the other",
    T,
    UP,
    [UP.replace("abc123", "xyz789"), UP.replace("now-6h", "now-24h")],
    ["See https://grafana.example.com/d/xyz789/overview?orgId=1&from=now-24h for it.\n"],
)
case(
    "long url: three machines, host, path and query",
    T,
    UP,
    [
        UP.replace("grafana.example.com", "grafana.example.org"),
        UP.replace("abc123", "xyz789"),
        UP.replace("orgId=1", "orgId=2"),
    ],
    ["See https://grafana.example.org/d/xyz789/overview?orgId=2&from=now-6h for it.\n"],
)
case(
    "long url: a parameter added on one side, the path edited on the other",
    T,
    UP,
    [UP.replace("now-6h", "now-6h&to=now"), UP.replace("/overview", "/summary")],
    ["See https://grafana.example.com/d/abc123/summary?orgId=1&from=now-6h&to=now for it.\n"],
)
case(
    "long url: the same part edited on both sides is one conflict, one version whole",
    T,
    UP,
    [UP.replace("abc123", "xyz789"), UP.replace("abc123", "def456")],
    ["See https://grafana.example.com/d/"],
    ["abc123", "<<<"],
)
SP = FM + "- the entry point is src/gitmem/cli/main.py (see docs/cli.md)\n"
case(
    "a source path: a folder renamed on one side, the file on the other",
    T,
    SP,
    [SP.replace("/cli/", "/command/"), SP.replace("main.py", "entry.py")],
    ["- the entry point is src/gitmem/command/entry.py (see docs/cli.md)\n"],
)
KV = FM + "Run with flags retries=3&timeout=30&mode=fast for the nightly job.\n"
case(
    "key=value list: two values edited on two sides",
    T,
    KV,
    [KV.replace("retries=3", "retries=5"), KV.replace("mode=fast", "mode=safe")],
    ["Run with flags retries=5&timeout=30&mode=safe for the nightly job.\n"],
)
# a table without outer pipes
NP = FM + "cmd | what\n--- | ---\nmake | build\ntox | test matrix\n"
case(
    "table without outer pipes: cell vs row",
    T,
    NP,
    [NP.replace("make | build", "make | build all"), NP + "nox | sessions\n"],
    ["make | build all\ntox | test matrix\nnox | sessions\n"],
)
# setext headings
SE = FM + "Build\n=====\n\n- make\n\nDeploy\n------\n\n- fly deploy\n"
case(
    "setext sections both appended",
    T,
    SE,
    [SE.replace("- make\n", "- make\n- make docs\n"), SE + "- fly status\n"],
    ["Build\n=====\n\n- make\n- make docs\n\nDeploy\n------\n\n- fly deploy\n- fly status\n"],
)
# a numbered list starting at 5
N5 = FM + "5. fetch\n6. build\n7. test\n"
case(
    "list from 5: insert+renumber vs edit",
    T,
    N5,
    [FM + "5. fetch\n6. lint\n7. build\n8. test\n", N5.replace("7. test", "7. test -x")],
    ["5. fetch\n6. lint\n7. build\n8. test -x\n"],
)
# a list one side converts to a table, the other edits an item
LT = FM + "- ruff: lint\n- mypy: types\n"
case(
    "list to table vs item edit",
    T,
    LT,
    [
        FM + "| tool | job |\n|---|---|\n| ruff | lint |\n| mypy | types |\n",
        LT.replace("mypy: types", "mypy: strict types"),
    ],
    ["ruff", "mypy"],  # one side's whole version, told (which: rank; a tie goes to the table)
)
# Claude Code feedback blocks
FB = FM + (
    "## Feedback\n\n- Prefer small PRs.\n  **Why:** reviews go faster.\n"
    "  **How to apply:** split by module.\n"
)
case(
    "feedback why vs how to apply",
    T,
    FB,
    [
        FB.replace("reviews go faster.", "reviews go faster and revert cleanly."),
        FB.replace("split by module.", "split by module, one concern each."),
    ],
    [
        "  **Why:** reviews go faster and revert cleanly.\n  **How to apply:** split by module, one concern each.\n"
    ],
)
FP = FM + "Prefer small PRs.\n\n**Why:** reviews go faster.\n\n**How to apply:** split by module.\n"
case(
    "feedback paragraphs: new rule vs how edit, three machines",
    T,
    FP,
    [
        FP + "\nNever amend pushed commits.\n\n**Why:** others rebase on them.\n",
        FP.replace("split by module.", "split by module; stack them."),
        FP.replace("Prefer small PRs.", "Prefer small, focused PRs."),
    ],
    [
        "Prefer small, focused PRs.\n\n**Why:** reviews go faster.\n\n**How to apply:** split by module; stack them.\n",
        "Never amend pushed commits.\n\n**Why:** others rebase on them.\n",
    ],
)
# emoji ZWJ sequences and combining marks
EZ = FM + "- \U0001f469\u200d\U0001f4bb pairs with \U0001f9d1\u200d\U0001f52c on flaky tests\n"
case(
    "zwj emoji edited vs word",
    T,
    EZ,
    [
        EZ.replace("pairs", "works"),
        EZ.replace("\U0001f9d1\u200d\U0001f52c", "\U0001f468\u200d\U0001f469\u200d\U0001f467"),
    ],
    [
        "- \U0001f469\u200d\U0001f4bb works with \U0001f468\u200d\U0001f469\u200d\U0001f467 on flaky tests\n"
    ],
)
CM = FM + "The re\u0301sume\u0301 page loads slowly on cafe\u0301 wifi.\n"
case(
    "combining marks: two words edited",
    T,
    CM,
    [
        CM.replace("re\u0301sume\u0301 page", "re\u0301sume\u0301s page"),
        CM.replace("slowly", "fast"),
    ],
    ["The re\u0301sume\u0301s page loads fast on cafe\u0301 wifi.\n"],
)
TH = (
    FM
    + "\u0e17\u0e35\u0e48\u0e19\u0e35\u0e48\u0e21\u0e35\u0e41\u0e21\u0e27\u0e2a\u0e35\u0e14\u0e33\n"
)
case(
    "thai with tone marks: two edits",
    T,
    TH,
    [
        TH.replace("\u0e17\u0e35\u0e48", "\u0e15\u0e23\u0e07"),  # ที่ -> ตรง
        TH.replace("\u0e14\u0e33", "\u0e02\u0e32\u0e27"),  # ดำ -> ขาว
    ],
    [
        "\u0e15\u0e23\u0e07\u0e19\u0e35\u0e48\u0e21\u0e35\u0e41\u0e21\u0e27\u0e2a\u0e35\u0e02\u0e32\u0e27\n"
    ],
)
# Arabic with inline code; Japanese kanji with okurigana
AR = (
    FM
    + "- \u0627\u0633\u062a\u062e\u062f\u0645 `uv sync` \u0642\u0628\u0644 \u0627\u0644\u0627\u062e\u062a\u0628\u0627\u0631\u0627\u062a\n"
)
case(
    "arabic word vs inline code",
    T,
    AR,
    [
        AR.replace("`uv sync`", "`uv sync --frozen`"),
        AR.replace("\u0642\u0628\u0644", "\u0628\u0639\u062f"),
    ],
    [
        "`uv sync --frozen` \u0628\u0639\u062f \u0627\u0644\u0627\u062e\u062a\u0628\u0627\u0631\u0627\u062a\n"
    ],
)
JP = FM + "- 変更はローカルで確認してからプッシュする。\n"
case(
    "japanese okurigana vs katakana",
    T,
    JP,
    [JP.replace("確認して", "確かめて"), JP.replace("プッシュ", "マージ")],
    ["- 変更はローカルで確かめてからマージする。\n"],
)
# a thematic break in the body
TB = FM + "Current setup.\n\n---\n\nOld setup, kept for reference.\n"
case(
    "thematic break: both paragraphs edited",
    T,
    TB,
    [
        TB.replace("Current setup.", "Current setup: k8s."),
        TB.replace("for reference.", "for reference until May."),
    ],
    ["Current setup: k8s.\n\n---\n\nOld setup, kept for reference until May.\n"],
)
# a list item's second paragraph (continuation) edited beside its first
CP = FM + "- Migrations\n\n  Run them before the deploy, never after.\n\n- Seeds\n"
case(
    "item second paragraph vs first line",
    T,
    CP,
    [
        CP.replace("- Migrations", "- Migrations (alembic)"),
        CP.replace("never after.", "never after; check heads."),
    ],
    [
        "- Migrations (alembic)\n\n  Run them before the deploy, never after; check heads.\n\n- Seeds\n"
    ],
)
# the same new bullet added at two different places
SB = FM + "- one\n- two\n- three\n"
case(
    "same new bullet at two places",
    T,
    SB,
    [SB.replace("- one\n", "- one\n- use uv\n"), SB + "- use uv\n"],
    ["- use uv\n"],
    ["- use uv\n- two\n- three\n- use uv", "- use uv\n- use uv"],
)
# the class of "same new bullet at two places": an item both sides added, each elsewhere, once
# at the earlier place (not a paragraph: the same `**Why:**` may stand under two rules)
case(
    "same new bullet at two places, three machines",
    T,
    SB,
    [
        SB.replace("- one\n", "- one\n- use uv\n"),
        SB + "- use uv\n",
        SB.replace("- two\n", "- two\n- pin ruff\n"),
    ],
    ["- one\n- use uv\n- two\n- pin ruff\n- three\n"],
    ["- three\n- use uv"],
)
case(
    "same new bullet in two sections",
    T,
    H,
    [H.replace("- make\n", "- make\n- run tests first\n"), H + "- run tests first\n"],
    ["- make\n- run tests first\n"],
    ["- fly deploy\n- run tests first"],
)
case(
    "same why under two new rules stays under both",
    T,
    FP,
    [
        FP.replace(
            "Prefer small PRs.\n", "Prefer small PRs.\n\nRebase often.\n\n**Why:** less drift.\n"
        ),
        FP + "\nPull before you push.\n\n**Why:** less drift.\n",
    ],
    ["Rebase often.\n\n**Why:** less drift.\n", "Pull before you push.\n\n**Why:** less drift.\n"],
)
# new sections at the end on two machines
case(
    "two new sections at the end",
    T,
    SB,
    [SB + "\n## Ops\n\n- page on-call\n", SB + "\n## Docs\n\n- mkdocs serve\n"],
    ["## Ops\n\n- page on-call\n", "## Docs\n\n- mkdocs serve\n"],
)
# index: a hook with inline code edited on both sides
case(
    "index hook inline code vs words",
    I,
    IX,
    [IX.replace("`make -j4`", "`make -j8`"), IX.replace("fly, manual", "fly, from CI")],
    [
        "- [Build](build.md) — `make -j8` on every branch\n",
        "- [Deploy](deploy.md) — fly, from CI\n",
    ],
)


@pytest.mark.parametrize("c", CASES, ids=[c[0] for c in CASES])
def test_a_new_everyday_merge_keeps_what_a_careful_human_keeps(c: Case) -> None:
    check(c)


TAGS = ["ci", "build", "docs", "release", "cache", "lint", "perf", "ops"]


@settings(max_examples=examples())
@given(st.data())
def test_a_frontmatter_list_three_machines_grew_converges_in_every_order(
    data: st.DataObject,
) -> None:
    """`tags:` (block or flow style): each of three machines adds tags somewhere and may remove
    one. Merged in every order the replicas agree; every added tag is there once, a removed one
    is gone (before: the winner's items, then the loser's, so two tags added after one item
    came out in an order that depended on who merged first)."""
    flow = data.draw(st.booleans())
    n = data.draw(st.integers(0, 3))
    base = TAGS[:n]
    fresh = TAGS[n:]
    sides, added, removed = [], set(), set()
    for _ in range(3):
        tags = list(base)
        for t in data.draw(st.lists(st.sampled_from(fresh), max_size=2, unique=True)):
            if t not in tags:
                tags.insert(data.draw(st.integers(0, len(tags))), t)
                added.add(t)
        if len(tags) > 1 and data.draw(st.booleans()):  # an emptied list is another field
            gone = data.draw(st.sampled_from([t for t in base if t in tags] or [""]))
            if gone:
                tags.remove(gone)
                removed.add(gone)
        sides.append(tags)

    def text(tags: list[str]) -> str:
        body = (
            f"tags: [{', '.join(tags)}]\n"
            if flow
            else "tags:\n" + "".join(f"  - {t}\n" for t in tags)
        )
        return f"---\nname: notes\n{body}---\n- body\n"

    out = merged(("tags", T, text(base), [text(x) for x in sides], [], [])).decode()
    for t in added:
        assert out.count(f" {t}") + out.count(f"[{t}") == 1, (t, out)
    for t in removed - added:
        assert f" {t}\n" not in out and f" {t}," not in out and f"[{t}" not in out, (t, out)
