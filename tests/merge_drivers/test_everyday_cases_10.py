"""Everyday edits of memory files, tenth round (issue 24): what the earlier sweeps covered least,
none a repeat of the sixth to ninth — three and four machines editing one file at once (each
pair of edits fine alone), topic files (frontmatter lists and fields with body edits, a rename
against an edit, an index hook against the file's `description`), prose at word level (two
words of one sentence, a sentence split or joined with a word, a wrapped bullet re-wrapped
with a word, CJK and emoji, CRLF), code fences (adjacent lines, a language tag and a line, a
re-indent and an edit), tables (a column added and a cell, an alignment row, four machines),
nested lists (renumbering, a tick and a reword, a child under a moved parent) and dated logs
from three machines. Shapes from the real corpus: gantry's long-hook index and nested-
`metadata:` topic, FastSense's sectioned reviewer index, agentskills' wrapped gotchas,
second-brain's dated index and redis topic. Each case says what a careful human keeps; every
merge is symmetric and idempotent, three and four replicas converge in every order. End to
end: tests/e2e/test_everyday_in_sync.py."""

from __future__ import annotations

import itertools
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.gitstore import Repository
from gitmem.merge.tree import merge_trees

from .conftest import examples
from .test_everyday_cases import Case, Sweep, _merge, check, encoded, merged

I = ".claude/memory/MEMORY.md"  # noqa: E741
T = ".claude/memory/notification-ux-redesign.md"
G = ".claude/memory/gotchas.md"
R = ".claude/memory/seo-redis-command-timeout-noise.md"

case = Sweep()
CASES = case.cases


# --- (1) three and four machines at once -------------------------------------------------

# gantry's index: linked entries with long hooks, no headings
GA = (
    "- [No backward-compatibility concerns](feedback_no_backward_compat.md) — myclaw is in active"
    " development; don't flag breaking changes\n"
    "- [Flaky agent-runner heartbeat test](flaky-agent-runner-heartbeat-test.md) — agent-runner-ipc"
    " heartbeat test times out under verify.py load but passes isolated; re-run idle before"
    " treating as a regression\n"
    "- [Fixed-image worker mode](fixed-image-worker-mode.md) — runtime.worker.fixed_image_mode"
    " (default on) gates no-permission tool projection; wiring choke point is agent-spawn.ts\n"
    "- [Agent Access Simplification](agent-access-simplification.md) — COMPLETE: single Agent"
    " Access model shipped across settings/API/MCP/jobs/CLI/docs; verify.py passed\n"
    "- [Notification UX redesign](notification-ux-redesign.md) — mobile-first trim of"
    " permission/receipt/job/ask copy shipped; provider-native blocks are proposed Phase 2\n"
)
case(
    "index: three machines each edit the hook of one of three adjacent entries",
    I,
    GA,
    [
        GA.replace("times out under verify.py load", "times out under verify.py or CI load"),
        GA.replace("(default on)", "(default off since 07-30)"),
        GA.replace("verify.py passed", "verify.py passed, docs updated"),
    ],
    [
        "times out under verify.py or CI load but passes isolated",
        "fixed_image_mode (default off since 07-30) gates",
        "CLI/docs; verify.py passed, docs updated\n- [Notification",
    ],
)
case(
    "index: four machines — a hook edited, a title edited, an entry deleted, one appended",
    I,
    GA,
    [
        GA.replace("don't flag breaking changes", "never flag breaking changes"),
        GA.replace("[Fixed-image worker mode]", "[Fixed-image worker mode (runtime)]"),
        GA.replace(
            "- [Agent Access Simplification](agent-access-simplification.md) — COMPLETE: single"
            " Agent Access model shipped across settings/API/MCP/jobs/CLI/docs; verify.py passed\n",
            "",
        ),
        GA + "- [Background task kills](background-task-kills-environment.md) — long (>~10min)"
        " background Bash tasks die sporadically; run verification in foreground chunks\n",
    ],
    [
        "never flag breaking changes\n",
        "- [Fixed-image worker mode (runtime)](fixed-image-worker-mode.md) — runtime.worker",
        "agent-spawn.ts\n- [Notification UX redesign]",
        "Phase 2\n- [Background task kills](background-task-kills-environment.md)",
    ],
    ["agent-access-simplification.md", "don't flag"],
)

# FastSense's reviewer index: sections, `###` subsections, code-span bullets
FS = (
    "# Code Reviewer Memory — FastPlot Project (being renamed to FastSense)\n\n"
    "## Rename: FastPlot → FastSense (key facts for reviewers)\n"
    "- `libs/FastPlot/` → `libs/FastSense/`; all `FastPlot*.m` → `FastSense*.m`\n"
    "- `FastPlotWidget.m` lives at `libs/Dashboard/FastPlotWidget.m` (NO `widgets/` subdirectory)\n"
    "- Widget type string `'fastplot'` (lowercase) is the dispatch key in DashboardEngine\n\n"
    "## Key Classes and Their APIs\n\n"
    "### FastPlot\n"
    "- `addLine(x, y, ...)` — core line-add method (must be called BEFORE render())\n"
    "- `render()` — creates figure/axes, draws everything, installs XLim listeners\n"
    "- Guard flag: `IsPropagating` prevents re-entrant XLim callbacks\n\n"
    "### FastPlotFigure\n"
    "- `tile(n)` → FastPlot for tile n (creates on first call)\n"
    "- `axes(n)` → raw MATLAB axes for tile n\n"
)
case(
    "sectioned index: three machines — a bullet added, its neighbour edited, a subsection's bullet edited",
    I,
    FS,
    [
        FS.replace(
            "subdirectory)\n",
            "subdirectory)\n- `test_tcp_client.py` imports `fastplot_bridge`: must be updated\n",
        ),
        FS.replace("(lowercase) is the dispatch key", "(lowercase) is still the dispatch key"),
        FS.replace("(creates on first call)", "(creates it lazily on first call)"),
    ],
    [  # acceptable: the new plain bullet at its section's end, not after the one it followed
        "subdirectory)\n- Widget type string `'fastplot'` (lowercase) is still the dispatch key"
        " in DashboardEngine\n- `test_tcp_client.py` imports `fastplot_bridge`: must be updated\n"
        "\n## Key",
        "- `tile(n)` → FastPlot for tile n (creates it lazily on first call)\n",
    ],
)
case(
    "sectioned index: four machines each add a bullet to a different section or subsection",
    I,
    FS,
    [
        FS.replace("in DashboardEngine\n", "in DashboardEngine\n- Python package renamed too\n"),
        FS.replace("XLim callbacks\n", "XLim callbacks\n- `LinkGroup` syncs zoom\n"),
        FS.replace("for tile n\n", "for tile n\n- `setTileSpan(n, [r c])` — tile spanning\n"),
        FS.replace(
            "### FastPlotFigure\n",
            "### FastPlotFigure\n- STALE name for `FastPlotGrid`\n",
        ),
    ],
    [
        "in DashboardEngine\n- Python package renamed too\n\n## Key",
        "XLim callbacks\n- `LinkGroup` syncs zoom\n\n### FastPlotFigure",
        # round 23: the bullet written at the subsection's top stays there (was: its end)
        "### FastPlotFigure\n- STALE name for `FastPlotGrid`\n- `tile(n)`",
        "for tile n\n- `setTileSpan(n, [r c])` — tile spanning\n",
    ],
)

# agentskills' gotchas: bullets wrapped onto continuation lines
GO = (
    "# Gotchas learned the hard way\n\n"
    "- Memory-path munging replaces both `/` AND `.` with `-`, so decoded paths are\n"
    "  ambiguous (e.g. `adamdaniel.ai` vs `adamdaniel/ai`) — the\n"
    "  `migrate-claude-memory` inventory marks such stores as decode-guesses.\n"
    "- claude-memory-map: the `@sparticuz/chromium` serverless test path is broken in\n"
    "  v131 (`.default` removed); CI uses `npm run setup:browser` instead.\n"
    "- Expect a one-time `claude plugin install adam@agentskills` touch per\n"
    "  machine (plugin-cache-miss after the rename migration); sync-skills flags\n"
    "  all 17 skills changed once (hash-dedup makes the re-upload a no-op).\n"
)
case(
    "wrapped gotchas: four machines each append a learning",
    G,
    GO,
    [
        GO + "- `gh` is missing in hosted sessions; plain curl is authenticated.\n",
        GO + "- `git clean -fX -- drift-report.md` before committing.\n",
        GO + "- the plugin cache lives under\n  `~/.claude/plugins/cache`.\n",
        GO + "- v132 restores `.default`.\n",
    ],
    [
        "re-upload a no-op).\n- ",
        "- `gh` is missing in hosted sessions; plain curl is authenticated.\n",
        "- `git clean -fX -- drift-report.md` before committing.\n",
        "- the plugin cache lives under\n  `~/.claude/plugins/cache`.\n",
        "- v132 restores `.default`.\n",
    ],
)
case(
    "wrapped gotchas: three machines edit the three lines of one wrapped bullet",
    G,
    GO,
    [
        GO.replace("replaces both `/` AND `.` with `-`", "replaces `/`, `.` AND `_` with `-`"),
        GO.replace(
            "(e.g. `adamdaniel.ai` vs `adamdaniel/ai`)", "(`adamdaniel.ai` vs `adamdaniel/ai`)"
        ),
        GO.replace("as decode-guesses.", "as decode-guesses (see ADR 0003)."),
    ],
    [
        "- Memory-path munging replaces `/`, `.` AND `_` with `-`, so decoded paths are\n"
        "  ambiguous (`adamdaniel.ai` vs `adamdaniel/ai`) — the\n"
        "  `migrate-claude-memory` inventory marks such stores as decode-guesses (see ADR 0003).\n"
    ],
)

# gantry's feedback topic: flat frontmatter, **Why:** / **How to apply:** paragraphs
NB = (
    "---\nname: No backward-compatibility concerns\n"
    "description: For myclaw, do not flag backward-compatibility concerns in code reviews\n"
    "type: feedback\n---\n"
    "For the myclaw project, do not flag backward-compatibility concerns in code reviews, plans,"
    " or refactor proposals.\n\n"
    '**Why:** The user explicitly said "No need backward compatible" during a /review session'
    " (PR #66).\n\n"
    "**How to apply:** When reviewing myclaw code, drop findings whose primary justification is"
    ' "this changes an existing contract". Do not introduce shims either.\n'
)
case(
    "feedback topic: three machines — description, a word of Why, a word of How to apply",
    T,
    NB,
    [
        NB.replace("concerns in code reviews\n", "concerns in code reviews or plans\n"),
        NB.replace("during a /review session", "during a /review session on ingress"),
        NB.replace("Do not introduce shims either.", "Do not introduce compat shims either."),
    ],
    [
        "description: For myclaw, do not flag backward-compatibility concerns in code reviews or plans\n",
        "during a /review session on ingress (PR #66)",
        "Do not introduce compat shims either.\n",
    ],
)

# --- (2) topic files: frontmatter with the body ---------------------------------------------

FL = (
    "---\nname: redis-timeouts\ndescription: client-side redis timeouts are noise\n"
    "tags: [redis, seo]\nconfidence: 0.7\nupdated: 2026-07-24\n---\n\n"
    "`commandTimeout` is measured in the Node process, so a GC pause trips it.\n\n"
    "- raised 200→1000\n- keepAlive 30000\n"
)
case(
    "flow tags: a tag added on each side, a body bullet on one",
    R,
    FL,
    [
        FL.replace("[redis, seo]", "[redis, seo, noise]"),
        FL.replace("[redis, seo]", "[redis, seo, memorystore]").replace(
            "- keepAlive 30000\n", "- keepAlive 30000\n- warn, not error\n"
        ),
    ],
    ["noise", "memorystore", "[redis, seo, ", "- keepAlive 30000\n- warn, not error\n"],
)
BT = (
    "---\nname: redis-timeouts\ndescription: client-side redis timeouts are noise\n"
    "tags:\n  - redis\n  - seo\nupdated: 2026-07-24\n---\n\n"
    "`commandTimeout` is measured in the Node process, so a GC pause trips it.\n"
)
case(
    "block tags: three machines each append a tag, one also edits the body",
    R,
    BT,
    [
        BT.replace("  - seo\n", "  - seo\n  - noise\n"),
        BT.replace("  - seo\n", "  - seo\n  - memorystore\n").replace(
            "a GC pause trips it", "a GC pause or a busy loop trips it"
        ),
        BT.replace("  - seo\n", "  - seo\n  - node\n"),
    ],
    ["  - noise\n", "  - memorystore\n", "  - node\n", "a GC pause or a busy loop trips it"],
    ["<<<"],
)
case(
    "description: different words edited on each side, a body sentence on one",
    R,
    FL,
    [
        FL.replace("client-side redis timeouts are noise", "client-side Redis timeouts are noise"),
        FL.replace("timeouts are noise\n", "timeouts are noise, not faults\n").replace(
            "trips it.\n", "trips it. It was 200ms.\n"
        ),
    ],
    [
        "description: client-side Redis timeouts are noise, not faults\n",
        "trips it. It was 200ms.\n",
    ],
)
case(
    "updated on both sides, confidence on one, a bullet added on each",
    R,
    FL,
    [
        FL.replace("updated: 2026-07-24", "updated: 2026-07-26").replace(
            "- keepAlive 30000\n", "- keepAlive 30000\n- deployed 07-26\n"
        ),
        FL.replace("updated: 2026-07-24", "updated: 2026-07-25")
        .replace("confidence: 0.7", "confidence: 0.9")
        .replace("- raised 200→1000\n", "- raised 200→1000 (was chronic)\n"),
    ],
    [
        "confidence: 0.9\n",
        "updated: 2026-07-26\n",
        "- raised 200→1000 (was chronic)\n- keepAlive 30000\n- deployed 07-26\n",
    ],
)
NM = (
    "---\nname: notification-ux-redesign\n"
    "description: Mobile-first trim of user-facing permission/receipt/job/ask copy\n"
    "metadata: \n  node_type: memory\n  type: project\n"
    "  originSessionId: 9ff99b73-afce-4cec-b643-e1eb91fd5a8a\n---\n\n"
    "Shipped (branch feat/agent-access-simplification, 2026-06-01): trimmed the four user-facing"
    " chat surfaces for mobile glance-ability — outcome-led, emoji glyph, metadata folded to one"
    " dim context line.\n\n"
    "- Permission prompt: `🔐 Allow {label}?` + tool input lines + `Reply in {N}m`.\n"
    "- Permission receipt: collapsed to ONE line — `✅ Allowed once/5 min/Always allowed`"
    " / `🚫 Canceled`.\n"
    "- Job notifications: `{emoji} {statusText} · {name}[ · dur]`; start = `▶️ Running · {name}`.\n"
)
case(
    "nested metadata: a new session id and a bullet on one side, a body word on the other",
    T,
    NM,
    [
        NM.replace("9ff99b73-afce-4cec-b643-e1eb91fd5a8a", "14216855-d862-47f9-bb7b-b7fa79da0f33")
        .replace("  type: project\n", "  type: project\n  modified: 2026-06-02T10:00:00.000Z\n")
        .replace(
            "· {name}`.\n",
            "· {name}`.\n- ask_user_question: finalize = `✅ {header} · {answer}`.\n",
        ),
        NM.replace(
            "four user-facing chat surfaces", "four user-facing Slack and Telegram surfaces"
        ),
    ],
    [
        "  originSessionId: 14216855-d862-47f9-bb7b-b7fa79da0f33\n  modified: 2026-06-02T10:00:00.000Z\n"
        if False
        else "originSessionId: 14216855-d862-47f9-bb7b-b7fa79da0f33\n",
        "  modified: 2026-06-02T10:00:00.000Z\n",
        "trimmed the four user-facing Slack and Telegram surfaces for mobile",
        "- ask_user_question: finalize = `✅ {header} · {answer}`.\n",
    ],
    ["9ff99b73"],
)

# --- (3) prose at word level ------------------------------------------------------------------

case(
    "prose: two different words of one sentence, one per side",
    T,
    NM,
    [
        NM.replace("four user-facing chat surfaces", "five user-facing chat surfaces"),
        NM.replace("folded to one dim context line", "folded to one muted context line"),
    ],
    ["trimmed the five user-facing chat surfaces", "folded to one muted context line.\n"],
)
RD = (
    "---\nname: seo-redis\ndescription: redis timeouts are client-side noise\ntype: project\n---\n\n"
    "`commandTimeout` is measured in the Node process, so a GC pause or busy event loop trips it"
    " while Redis answers in <1ms. It was 200ms and chronic since the cache layer shipped.\n"
)
case(
    "prose: a sentence split in two on one side, a word of its second half on the other",
    R,
    RD,
    [
        RD.replace("process, so a GC pause", "process. A GC pause"),
        RD.replace("while Redis answers in <1ms", "while Redis answers in under 1ms"),
    ],
    [
        "measured in the Node process. A GC pause or busy event loop trips it while Redis answers in under 1ms."
    ],
)
case(
    "prose: two sentences joined on one side, a word of the first on the other",
    R,
    RD,
    [
        RD.replace("<1ms. It was 200ms", "<1ms; it was 200ms"),
        RD.replace("busy event loop", "blocked event loop"),
    ],
    [
        "a GC pause or blocked event loop trips it while Redis answers in <1ms; it was 200ms and chronic"
    ],
)
case(
    "prose: a wrapped bullet re-wrapped on one side, a word of it on the other",
    G,
    GO,
    [
        GO.replace(
            "- Expect a one-time `claude plugin install adam@agentskills` touch per\n"
            "  machine (plugin-cache-miss after the rename migration); sync-skills flags\n"
            "  all 17 skills changed once (hash-dedup makes the re-upload a no-op).\n",
            "- Expect a one-time `claude plugin install adam@agentskills` touch per machine\n"
            "  (plugin-cache-miss after the rename migration); sync-skills flags all 17\n"
            "  skills changed once (hash-dedup makes the re-upload a no-op).\n",
        ),
        GO.replace("all 17 skills", "all 18 skills"),
    ],
    [
        "- Expect a one-time `claude plugin install adam@agentskills` touch per machine\n"
        "  (plugin-cache-miss after the rename migration); sync-skills flags all 18\n"
        "  skills changed once (hash-dedup makes the re-upload a no-op).\n"
    ],
    ["all 17"],
)
WF = (
    "---\nname: workflow-10ep-card\ndescription: 新工作流——每10集一卡\n"
    "metadata: \n  node_type: memory\n  type: feedback\n---\n\n"
    "一卡（E1-10）已在2026.6.27验收通过，二卡（E11-20）即将进入大纲阶段。哥哥要标准化产出节奏。\n"
)
case(
    "CJK prose: two machines each change a character run, a third appends a sentence",
    T,
    WF,
    [
        WF.replace("2026.6.27验收通过", "2026.6.28验收通过"),
        WF.replace("即将进入大纲阶段", "已经进入大纲阶段"),
        WF.replace("产出节奏。\n", "产出节奏。三卡待定。\n"),
    ],
    [
        "一卡（E1-10）已在2026.6.28验收通过，二卡（E11-20）已经进入大纲阶段。哥哥要标准化产出节奏。三卡待定。\n"
    ],
)
case(
    "emoji prose: the glyph changed on one side, words around it on the other",
    T,
    NM,
    [
        NM.replace("`🚫 Canceled`", "`❌ Canceled`"),
        NM.replace("collapsed to ONE line", "collapsed multi-line to ONE line"),
    ],
    [
        "- Permission receipt: collapsed multi-line to ONE line — `✅ Allowed once/5 min/Always allowed` / `❌ Canceled`.\n"
    ],
)
CR = (
    "---\r\nname: seo-redis\r\ndescription: redis timeouts are noise\r\ntype: project\r\n---\r\n\r\n"
    "Timeouts landed in proportion to command volume across every service, scattered,\r\n"
    "often in pairs less than 1ms apart. Never an incident, always fail-open.\r\n"
)
case(
    "CRLF prose: a word on each side of a line break, a third machine appends a sentence",
    R,
    CR,
    [
        CR.replace("across every service", "across all services"),
        CR.replace("often in pairs", "usually in pairs"),
        CR.replace("always fail-open.\r\n", "always fail-open. Deploy is manual.\r\n"),
    ],
    [
        "Timeouts landed in proportion to command volume across all services, scattered,\r\n"
        "usually in pairs less than 1ms apart. Never an incident, always fail-open. Deploy is manual.\r\n"
    ],
)

# --- (4) code fences, tables, nested lists ----------------------------------------------------

VB = (
    "---\nname: verify-branch\ndescription: pin the tree before any code claim\ntype: feedback\n---\n\n"
    "```python\n"
    "def distance(repo):\n"
    "    ahead = run(repo, 'rev-list', '--count', 'origin/master..HEAD')\n"
    "    behind = run(repo, 'rev-list', '--count', 'HEAD..origin/master')\n"
    "    return int(ahead), int(behind)\n"
    "```\n"
)
case(
    "python fence: two adjacent lines edited, a third machine edits the return line",
    R,
    VB,
    [
        VB.replace("'origin/master..HEAD'", "'origin/main..HEAD'"),
        VB.replace("'HEAD..origin/master'", "'HEAD..origin/main'"),
        VB.replace(
            "return int(ahead), int(behind)", "return int(ahead.strip()), int(behind.strip())"
        ),
    ],
    [
        "    ahead = run(repo, 'rev-list', '--count', 'origin/main..HEAD')\n"
        "    behind = run(repo, 'rev-list', '--count', 'HEAD..origin/main')\n"
        "    return int(ahead.strip()), int(behind.strip())\n```\n"
    ],
)
case(
    "fence: language tag python→py3 and a line on one side, the adjacent line on the other",
    R,
    VB,
    [
        VB.replace("```python\n", "```py3\n").replace(
            "def distance(repo):", "def distance(repo: str):"
        ),
        VB.replace("    ahead = run(", "    ahead = git("),
    ],
    ["```py3\ndef distance(repo: str):\n    ahead = git(repo,"],
    ["```python"],
)
case(
    "fence: body re-indented 4→2 on one side, a token edited on the other",
    R,
    VB,
    [
        VB.replace("\n    ", "\n  "),
        VB.replace("'--count', 'HEAD..origin/master'", "'--count', 'HEAD..@{u}'"),
    ],
    ["\n  behind = run(repo, 'rev-list', '--count', 'HEAD..@{u}')\n  return"],
    ["    behind", "origin/master'), int"],
)
case(
    "fence: body re-indented on one side, a line edited and one added on the other",
    R,
    VB,
    [
        VB.replace("\n    ", "\n  "),
        VB.replace("'HEAD..origin/master'", "'HEAD..@{u}'").replace(
            "    return", "    log(ahead)\n    return"
        ),
    ],
    ["\n  behind = run(repo, 'rev-list', '--count', 'HEAD..@{u}')\n  log(ahead)\n  return"],
)
TB = (
    "---\nname: benchmark-library\ndescription: reference shows\ntype: reference\n---\n\n"
    "| Show | Episodes | Rating |\n|------|:--:|:--:|\n"
    "| Golden Surge | 3 | A |\n| Sky Eye | 3 | A |\n| Golden Pupil | 3 | B+ |\n"
)
case(
    "table: a column added on one side, a cell edited on the other",
    T,
    TB,
    [
        TB.replace(
            "| Rating |\n|------|:--:|:--:|\n", "| Rating | Hook |\n|------|:--:|:--:|------|\n"
        )
        .replace("| Golden Surge | 3 | A |\n", "| Golden Surge | 3 | A | gold mine |\n")
        .replace("| Sky Eye | 3 | A |\n", "| Sky Eye | 3 | A | antique bet |\n")
        .replace("| Golden Pupil | 3 | B+ |\n", "| Golden Pupil | 3 | B+ | beggar |\n"),
        TB.replace("| Sky Eye | 3 | A |", "| Sky Eye | 6 | A |"),
    ],
    ["| Sky Eye | 6 | A | antique bet |\n", "| Rating | Hook |\n|------|:--:|:--:|------|\n"],
)
case(
    "table: four machines — alignment row, a row appended, two cells of different rows",
    T,
    TB,
    [
        TB.replace("|------|:--:|:--:|", "|:-----|--:|:--:|"),
        TB + "| Treasure Hunt | 4 | B |\n",
        TB.replace("| Golden Surge | 3 | A |", "| Golden Surge | 3 | A+ |"),
        TB.replace("| Golden Pupil | 3 |", "| Golden Pupil | 5 |"),
    ],
    [
        "|:-----|--:|:--:|\n| Golden Surge | 3 | A+ |\n| Sky Eye | 3 | A |\n"
        "| Golden Pupil | 5 | B+ |\n| Treasure Hunt | 4 | B |\n"
    ],
)
case(
    "table: a column added on one side, a row added on the other",
    T,
    TB,
    [
        TB.replace(
            "| Rating |\n|------|:--:|:--:|\n", "| Rating | Hook |\n|------|:--:|:--:|------|\n"
        )
        .replace("| Golden Surge | 3 | A |\n", "| Golden Surge | 3 | A | gold mine |\n")
        .replace("| Sky Eye | 3 | A |\n", "| Sky Eye | 3 | A | antique bet |\n")
        .replace("| Golden Pupil | 3 | B+ |\n", "| Golden Pupil | 3 | B+ | beggar |\n"),
        TB + "| Treasure Hunt | 4 | B |\n",
    ],
    # the new row given the new column's empty cell (round 21; acceptable before: without it)
    ["| Golden Pupil | 3 | B+ | beggar |\n| Treasure Hunt | 4 | B |  |\n"],
)
ST = (
    "---\nname: release-steps\ndescription: how a release goes\ntype: project\n---\n\n"
    "1. bump the version\n2. write the changelog\n3. tag and push\n"
)
case(
    "numbered steps: a step inserted and renumbered on one side, a step appended on the other",
    T,
    ST,
    [
        "1. bump the version\n2. run the full suite\n3. write the changelog\n4. tag and push\n".join(
            ST.split("1. bump the version\n2. write the changelog\n3. tag and push\n")
        ),
        ST + "4. announce in #releases\n",
    ],
    [
        "1. bump the version\n2. run the full suite\n3. write the changelog\n4. tag and push\n"
        "5. announce in #releases\n"
    ],
)
case(
    "numbered steps: three machines each append a step",
    T,
    ST,
    [
        ST + "4. announce in #releases\n",
        ST + "4. close the milestone\n",
        ST + "4. update the docs site\n",
    ],
    [
        "3. tag and push\n4. ",
        "5. ",
        "6. ",
        "announce in #releases",
        "close the milestone",
        "update the docs site",
    ],
    ["4. announce in #releases\n4.", "4. close the milestone\n4.", "4. update the docs site\n4."],
)
case(
    "numbered steps: two machines insert a step at different places, each renumbering",
    T,
    ST,
    [
        ST.replace(
            "2. write the changelog\n3. tag and push\n",
            "2. run the suite\n3. write the changelog\n4. tag and push\n",
        ),
        ST.replace("3. tag and push\n", "3. check the wheels\n4. tag and push\n"),
    ],
    [
        "1. bump the version\n2. run the suite\n3. write the changelog\n4. check the wheels\n"
        "5. tag and push\n"
    ],
)
PS = ST.replace(". ", ") ")
case(
    "`1)` steps: a step inserted and renumbered on one side, the last step edited on the other",
    T,
    PS,
    [
        PS.replace("1) bump the version\n", "1) bump the version\n2) run the suite\n")
        .replace("2) write", "3) write")
        .replace("3) tag", "4) tag"),
        PS.replace("tag and push", "tag, sign and push"),
    ],
    ["1) bump the version\n2) run the suite\n3) write the changelog\n4) tag, sign and push\n"],
)
NL = (
    "---\nname: release-checklist\ndescription: what is left before 1.0\ntype: project\n---\n\n"
    "- [ ] docs\n  - [ ] write the tutorial\n  - [ ] proofread the API page\n"
    "- [ ] packaging\n  - [ ] build wheels\n"
)
case(
    "nested checklist: a child ticked on one side, the same child reworded on the other",
    T,
    NL,
    [
        NL.replace("- [ ] write the tutorial", "- [x] write the tutorial"),
        NL.replace("write the tutorial", "write the getting-started tutorial"),
    ],
    ["  - [x] write the getting-started tutorial\n"],
)
case(
    "nested list: a parent moved to the top on one side, a child added under it on the other",
    T,
    NL,
    [
        NL.replace(
            "- [ ] docs\n  - [ ] write the tutorial\n  - [ ] proofread the API page\n"
            "- [ ] packaging\n  - [ ] build wheels\n",
            "- [ ] packaging\n  - [ ] build wheels\n"
            "- [ ] docs\n  - [ ] write the tutorial\n  - [ ] proofread the API page\n",
        ),
        NL.replace("  - [ ] build wheels\n", "  - [ ] build wheels\n  - [ ] upload to TestPyPI\n"),
    ],
    [
        "- [ ] packaging\n  - [ ] build wheels\n  - [ ] upload to TestPyPI\n- [ ] docs\n"
        "  - [ ] write the tutorial\n  - [ ] proofread the API page\n"
    ],
)

# --- (5) daily logs: dated lines from three machines ---------------------------------------

DL = (
    "---\nname: redis-log\ndescription: redis timeout investigation log\ntype: project\n---\n\n"
    "## Log\n\n"
    "- 2026-07-20 — first alert seen\n"
    "- 2026-07-24 — commandTimeout 200→1000, keepAlive 30000\n"
)
case(
    "dated log, oldest first: three machines each append a later day",
    R,
    DL,
    [
        DL + "- 2026-07-27 — alerts gone for three days\n",
        DL + "- 2026-07-25 — deployed to prod\n",
        DL + "- 2026-07-26 — warn-level sink verified\n",
    ],
    [
        "- 2026-07-24 — commandTimeout 200→1000, keepAlive 30000\n"
        "- 2026-07-25 — deployed to prod\n"
        "- 2026-07-26 — warn-level sink verified\n"
        "- 2026-07-27 — alerts gone for three days\n"
    ],
)
case(
    "dated log, oldest first: four machines each append a day",
    R,
    DL,
    [
        DL + "- 2026-07-27 — alerts gone for three days\n",
        DL + "- 2026-07-25 — deployed to prod\n",
        DL + "- 2026-07-26 — warn-level sink verified\n",
        DL + "- 2026-07-28 — closed the ticket\n",
    ],
    [
        "keepAlive 30000\n- 2026-07-25 — deployed to prod\n- 2026-07-26 — warn-level sink"
        " verified\n- 2026-07-27 — alerts gone for three days\n- 2026-07-28 — closed the ticket\n"
    ],
)
TL = (
    "---\nname: redis-log\ndescription: redis timeout investigation log\ntype: project\n---\n\n"
    "### 2026-07-24\n- 09:03 commandTimeout 200→1000\n- 11:40 keepAlive 30000\n"
)
case(
    "one day's log: three machines append times that interleave",
    R,
    TL,
    [
        TL + "- 16:20 error handlers restored\n",
        TL + "- 12:15 logs at warn\n",
        TL + "- 14:05 rate limiter 60s\n",
    ],
    [
        "- 11:40 keepAlive 30000\n- 12:15 logs at warn\n- 14:05 rate limiter 60s\n"
        "- 16:20 error handlers restored\n"
    ],
)
SB = (
    "- [Verify the branch before diagnosing](verify-branch-before-diagnosing.md) — pin the tree"
    " before ANY code claim\n"
    "- [seo webhookLogs TTL](seo-webhooklogs-ttl.md) — 30-day TTL; log absence ≠ webhook never"
    " arrived\n"
    "- [seo prod-error → Slack pipeline](seo-prod-error-slack-pipeline.md) — temp fixes shipped"
    " 07-22, root fixes pending\n"
)
case(
    "dated hooks in an index: three machines date-stamp three hooks",
    I,
    SB,
    [
        SB.replace("root fixes pending", "root fixes shipped 07-29"),
        SB.replace("— 30-day TTL;", "— 30-day TTL (checked 07-28);"),
        SB.replace("before ANY code claim", "before ANY code claim (fired twice, 07-14 and 07-20)"),
    ],
    [
        "before ANY code claim (fired twice, 07-14 and 07-20)\n",
        "— 30-day TTL (checked 07-28); log absence",
        "temp fixes shipped 07-22, root fixes shipped 07-29\n",
    ],
)


# the cases that are still not what a careful human writes (docs/history/merge.md, tenth sweep):
# counted, checked for the laws only — none left (the one before the fixes, a fence
# re-indented against lines edited and added, is merged by `blockmerge._reindented`)
OPEN: dict[str, str] = {}


def merged4(c: Case) -> bytes:
    """Four replicas: merged one after another in every order, they converge."""
    _, path, base, sides, _, _ = c
    z, ss = encoded(base), [encoded(s) for s in sides]
    outs = set()
    for order in itertools.permutations(range(4)):
        out = ss[order[0]]
        for k in order[1:]:
            out = _merge(path, z, out, ss[k])
        outs.add(out)
    assert len(outs) == 1, outs
    return outs.pop()


def check_any(c: Case) -> None:
    if len(c[3]) < 4:
        check(c)
        return
    text = merged4(c).decode()
    assert "<<<<<<<" not in text
    for w in c[4]:
        assert w in text, (w, text)
    for w in c[5]:
        assert w not in text, (w, text)


@pytest.mark.parametrize(
    "c", [c for c in CASES if c[0] not in OPEN], ids=[c[0] for c in CASES if c[0] not in OPEN]
)
def test_a_tenth_sweep_merge_keeps_what_a_careful_human_keeps(c: Case) -> None:
    check_any(c)


def test_no_tenth_sweep_case_is_open() -> None:
    """Every case of the tenth sweep is what a careful human keeps: the count of open ones
    (docs/merge.md) only goes down, and it is zero."""
    assert not OPEN


CODE = [
    "def distance(repo):",
    "    ahead = run(repo, 'ahead')",
    "    behind = run(repo, 'behind')",
    "    if ahead:",
    "        log(ahead)",
    "    return ahead, behind",
]
FM10 = "---\nname: verify-branch\ndescription: pin the tree\ntype: feedback\n---\n\n"


@settings(max_examples=examples())
@given(st.data())
def test_a_fence_reindented_on_one_side_and_edited_on_the_other_is_both(
    data: st.DataObject,
) -> None:
    """A fence's code re-indented on one side (4→2 spaces, 4→8, or tabs; all lines or some),
    words of some lines edited on the other (maybe the same lines; maybe its language tag),
    maybe a line added and one dropped there: every line with the re-indenting side's indent
    and the editing side's text, the new line indented as the line before it now is (before:
    the lines both touched went to one side, the edits lost; with a line added, not even
    idempotent)."""
    n = data.draw(st.integers(2, len(CODE)))
    code = CODE[:n]
    unit = data.draw(st.sampled_from(["  ", "        ", "\t"]))
    moved = data.draw(st.sets(st.integers(0, n - 1), min_size=1))
    edited = data.draw(st.sets(st.integers(0, n - 1), min_size=1))
    added = data.draw(st.none() | st.integers(0, n - 1))
    dropped = data.draw(st.none() | st.integers(0, n - 1).filter(lambda d: d != added))
    # a line added or dropped next to an edited one (a run of lines replaced by more or
    # fewer): the laws only — the edited line's indent may stay the editor's
    near = {d + x for d in (added, dropped) if d is not None for x in (-1, 0, 1)}
    exact = not near & edited and (added is None or dropped is None or abs(added - dropped) > 1)
    fence = data.draw(st.sampled_from(["```", "~~~", "````"]))
    tag = data.draw(st.sampled_from(["python", ""]))

    def indent(line: str, i: int) -> str:
        text = line.lstrip(" ")
        return unit * ((len(line) - len(text)) // 4) + text if i in moved else line

    def text(line: str, i: int) -> str:
        return line.replace("(", "(repo_or_path, ", 1) if i in edited else line

    def extra(i: int) -> str:
        return code[i][: len(code[i]) - len(code[i].lstrip(" "))] + "log(extra)"

    def doc(lines: list[str], lang: str = tag) -> str:
        return FM10 + f"{fence}{lang}\n" + "".join(x + "\n" for x in lines) + f"{fence}\n"

    retag = data.draw(st.booleans())
    re_indented = [indent(x, i) for i, x in enumerate(code)]
    if re_indented == code:
        return  # only lines without indent chosen: no re-indent
    words: list[str] = []
    want: list[str] = []
    for i, x in enumerate(code):
        if i != dropped:
            words.append(text(x, i))
            want.append(indent(text(x, i), i))
        if i == added:
            words.append(extra(i))
            want.append(indent(extra(i), i))
    out = merged(
        ("reindent", R, doc(code), [doc(re_indented), doc(words, "py" if retag else tag)], [], [])
    ).decode()
    if exact:
        assert out == doc(want, "py" if retag else tag), out


@settings(max_examples=examples())
@given(st.data())
def test_a_days_log_appended_on_three_machines_stays_in_time_order(data: st.DataObject) -> None:
    """One day's log (`- 09:03 …` under `### 2026-07-24`, or `- 2026-07-24 09:03 …` lines),
    two or three machines each append a line with a later time: every line once, the base's
    first, the new ones in time order whatever the order of the merges (before: times of day
    did not read as dates, the new lines came out in the order of their text)."""
    stamped = data.draw(st.booleans())
    machines = data.draw(st.integers(2, 3))
    times = data.draw(
        st.lists(
            st.tuples(st.integers(12, 23), st.integers(0, 59)),
            min_size=machines,
            max_size=machines,
            unique=True,
        )
    )
    words = data.draw(st.permutations(["deployed", "alert gone", "sink checked"]))

    def line(hh: int, mm: int, what: str) -> str:
        return f"- {'2026-07-24 ' if stamped else ''}{hh:02d}:{mm:02d} {what}\n"

    base = FM10 + ("## Log\n" if stamped else "### 2026-07-24\n") + line(9, 3, "timeout 1000")
    base += line(11, 40, "keepAlive")
    new = [line(h, m, w) for (h, m), w in zip(times, words, strict=False)]
    out = merged(("log", R, base, [base + x for x in new], [], [])).decode()
    assert out == base + "".join(sorted(new)), out


# --- (2) the folder: a rename against an edit, an index hook against its file's description --
# name, base {file: text}, sides (two or three), what each file of the result holds, files gone
Folder = tuple[str, dict[str, str], list[dict[str, str]], dict[str, list[str]], list[str]]
FOLDERS: list[Folder] = []
HOOK = "- [seo redis timeouts = noise](seo-redis.md) — client-side noise, not a Redis fault\n"
FI = "- [Verify the branch first](verify-branch.md) — pin the tree before ANY code claim\n" + HOOK
FR = (
    "---\nname: seo-redis\ndescription: client-side noise, not a Redis fault\ntype: project\n"
    "---\n\n`commandTimeout` is measured in the Node process.\n\n- raised 200→1000\n"
)
FV = (
    "---\nname: verify-branch\ndescription: pin the tree before ANY code claim\n"
    "type: feedback\n---\n\nMeasure the distance to the target tree first.\n"
)
FB = {"MEMORY.md": FI, "seo-redis.md": FR, "verify-branch.md": FV}
RENAMED = {
    "MEMORY.md": FI.replace("(seo-redis.md)", "(seo-redis-command-timeout-noise.md)"),
    "seo-redis-command-timeout-noise.md": FR,
    "verify-branch.md": FV,
}
FOLDERS.append(
    (
        "topic renamed on one machine, a link to its old name added on a second, its"
        " description edited on a third",
        FB,
        [
            RENAMED,
            dict(FB, **{"verify-branch.md": FV + "\nSee [redis noise](seo-redis.md).\n"}),
            dict(
                FB,
                **{
                    "seo-redis.md": FR.replace("not a Redis fault", "not a Memorystore fault"),
                    "MEMORY.md": FI.replace("not a Redis fault", "not a Memorystore fault"),
                },
            ),
        ],
        {
            "seo-redis-command-timeout-noise.md": [
                "description: client-side noise, not a Memorystore fault\n"
            ],
            "verify-branch.md": ["See [redis noise](seo-redis-command-timeout-noise.md).\n"],
            "MEMORY.md": [
                "(seo-redis-command-timeout-noise.md) — client-side noise, not a Memorystore fault\n"
            ],
        },
        ["seo-redis.md"],
    )
)
FOLDERS.append(
    (
        "index hook edited on one machine, the file's description on a second, its body on a third",
        FB,
        [
            dict(FB, **{"MEMORY.md": FI.replace("client-side noise", "client noise")}),
            dict(FB, **{"seo-redis.md": FR.replace("not a Redis fault", "never a Redis fault")}),
            dict(FB, **{"seo-redis.md": FR + "- keepAlive 30000\n"}),
        ],
        {"seo-redis.md": ["- raised 200→1000\n- keepAlive 30000\n"]},
        [],
    )
)
FOLDERS.append(
    (
        "topic renamed with its link on one machine, its hook and description edited together"
        " and a bullet added on the other",
        FB,
        [
            RENAMED,
            dict(
                FB,
                **{
                    "MEMORY.md": FI.replace("client-side noise,", "client-side timeouts,"),
                    "seo-redis.md": FR.replace("client-side noise,", "client-side timeouts,")
                    + "- keepAlive 30000\n",
                },
            ),
        ],
        {
            "MEMORY.md": [
                "- [seo redis timeouts = noise](seo-redis-command-timeout-noise.md) — client-side"
                " timeouts, not a Redis fault\n"
            ],
            "seo-redis-command-timeout-noise.md": [
                "description: client-side timeouts, not a Redis fault\n",
                "- raised 200→1000\n- keepAlive 30000\n",
            ],
        },
        ["seo-redis.md"],
    )
)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repository:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    return Repository(tmp_path / "r")


def merged_folder(repo: Repository, f: Folder) -> dict[str, str]:
    """A folder case merged as sync merges it (`gitmem.merge.tree.merge_trees`): symmetric and
    idempotent (two sides), the same files in every order (three)."""
    _, base, sides, _, _ = f

    def tree(files: dict[str, str]) -> dict[str, str]:
        return {f"m/{p}": repo.write_blob(d.encode()) for p, d in files.items()}

    def merge(x: dict[str, str], y: dict[str, str]) -> dict[str, str]:
        return merge_trees(repo, tree(base), x, y).files

    z, ss = tree(base), [tree(s) for s in sides]
    if len(ss) == 2:
        out = merge(ss[0], ss[1])
        assert merge(ss[1], ss[0]) == out  # symmetric
        assert all(merge(out, s) == out for s in ss)  # idempotent
    else:
        outs = [merge(merge(ss[i], ss[j]), ss[k]) for i, j, k in itertools.permutations(range(3))]
        assert all(o == outs[0] for o in outs), outs
        out = outs[0]
    assert z  # the base itself is a tree of the same repository
    return {p.removeprefix("m/"): repo.read_blob(o).decode() for p, o in out.items()}


def check_folder(repo: Repository, f: Folder) -> dict[str, str]:
    out = merged_folder(repo, f)
    for path, wants in f[3].items():
        for w in wants:
            assert w in out[path], (path, w, out)
    for gone in f[4]:
        assert gone not in out, (gone, out)
    text = "".join(out.values())
    assert "<<<<<<<" not in text
    return out


def hook_and_description(out: dict[str, str], name: str) -> tuple[str, str]:
    line = next(x for x in out["MEMORY.md"].splitlines() if f"]({name})" in x)
    desc = next(x for x in out[name].splitlines() if x.startswith("description: "))
    return line.split(" — ", 1)[1], desc.removeprefix("description: ")


@pytest.mark.parametrize("f", FOLDERS, ids=[f[0] for f in FOLDERS])
def test_a_tenth_sweep_folder_merge_keeps_what_a_careful_human_keeps(
    repo: Repository, f: Folder
) -> None:
    out = check_folder(repo, f)
    for name in out:
        if name != "MEMORY.md" and f"]({name})" in out["MEMORY.md"]:
            hook, desc = hook_and_description(out, name)
            assert hook == desc, (name, hook, desc)  # one decision per memory


SENTENCE = (
    "Timeouts landed in proportion to command volume across every service, scattered and often"
    " in pairs less than one millisecond apart, never an incident and always fail-open, so the"
    " cheap instinct to resize the server spends money and fixes nothing at all."
)
PROSE = SENTENCE.split()


def _wrap(words: list[str], width: int) -> list[list[int]]:
    """The words' indexes, line by line, wrapped at `width`."""
    lines: list[list[int]] = []
    size = 0
    for i, w in enumerate(words):
        if lines and size + 1 + len(w) <= width:
            lines[-1].append(i)
            size += 1 + len(w)
        else:
            lines.append([i])
            size = len(w)
    return lines


@settings(max_examples=examples())
@given(st.data())
def test_a_paragraph_rewrapped_on_one_side_and_reworded_on_the_other_is_both(
    data: st.DataObject,
) -> None:
    """A paragraph (or a bullet's wrapped text) re-wrapped at another width on one side, words
    replaced one for one on the other (any words, the ones at a line break too): the re-wrap's
    line breaks with the new words (before: a word changed where the other side moved a line
    break took its editor's space, joining or splitting lines of the re-wrap)."""
    bullet = data.draw(st.booleans())
    lead, indent = ("- ", "  ") if bullet else ("", "")
    n = data.draw(st.integers(8, len(PROSE)))
    words = PROSE[:n]
    w1, w2 = data.draw(st.integers(30, 80)), data.draw(st.integers(30, 80))
    if w1 == w2:
        return
    changed = data.draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=4))
    new = [w.upper() + "x" if i in changed else w for i, w in enumerate(words)]

    def doc(ws: list[str], width: int) -> str:
        lines = [" ".join(ws[i] for i in line) + "\n" for line in _wrap(words, width)]
        return FM10 + lead + indent.join(lines)

    out = merged(("rewrap", R, doc(words, w1), [doc(words, w2), doc(new, w1)], [], [])).decode()
    assert out == doc(new, w2), out
