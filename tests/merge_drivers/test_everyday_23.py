"""Everyday edits of memory files, twenty-third round (issue 24): bases cut from the real
corpus (../shared/corpus/real: a gotchas file of wrapped bullets, a feedback file of long
paragraphs, a quoted-description topic with a bash fence and wiki links, Fact/Why/How
roadmap items, a code-reviewer MEMORY.md with ### subsections, a CJK index, a bold-name
index, nested feature lists) edited the way people and agents edit them over a session:
several edits a side, a whole paragraph rewritten vs a word fixed, a memory moved between
sections, hooks shortened to fit the caps, a note appended to a list item's child — each
with the bytes a careful human would sign, written before the merge was run. End to end
(`gitmem sync` with real clones, `git merge` with the drivers both ways):
tests/e2e/test_everyday_in_sync_23.py."""

from __future__ import annotations

import pytest

from merge_drivers import merge_file
from tests.merge_drivers.test_everyday_20 import sub
from tests.merge_drivers.test_everyday_22 import BEVY, RAY, TYPES
from tests.support.sweep import SweepCase, check_case, in_every_order

I = ".claude/memory/MEMORY.md"  # noqa: E741
T = ".claude/memory/notes.md"


def case(base: bytes, a: tuple[str, ...], b: tuple[str, ...], path: str = T) -> SweepCase:
    """Edits a careful human keeps all of, each where it was written: `a` and `b` are flat
    (old, new, old, new, ...) so one side can make several edits in a session."""
    pa = tuple(zip(a[::2], a[1::2], strict=True))
    pb = tuple(zip(b[::2], b[1::2], strict=True))
    return (path, base, sub(base, *pa), sub(base, *pb), sub(base, *pa, *pb))


# Adam-S-Daniel/agentskills gotchas.md: bullets wrapped at ~80 columns (cut)
GOTCHAS = """# Gotchas learned the hard way

- Memory-path munging replaces both `/` AND `.` with `-`, so decoded paths are
  ambiguous (e.g. `adamdaniel.ai` vs `adamdaniel/ai`) — the
  `migrate-claude-memory` inventory marks such stores as decode-guesses.
- claude-memory-map: the `@sparticuz/chromium` serverless test path is broken in
  v131 (`.default` removed); CI uses `npm run setup:browser` instead.
- Expect a one-time `claude plugin install adam@agentskills` touch per
  machine (plugin-cache-miss after the rename migration); sync-skills flags
  all 17 skills changed once (hash-dedup makes the re-upload a no-op).
- In _agent-guidance, `test/run-tests.sh` (test_drift_report) writes mock
  data into the real `drift-report.md`. Clean it with
  `git clean -fX -- drift-report.md` before committing.
""".encode()
# knacklabs/gantry feedback_no_backward_compat.md: flat frontmatter, long paragraphs (cut)
COMPAT = b"""---
name: No backward-compatibility concerns
description: For myclaw, do not flag backward-compatibility concerns in code reviews
type: feedback
originSessionId: 4e3225fe-b54c-4833-a90e-f7ef3142a731
---
For the myclaw project, do not flag backward-compatibility concerns in code reviews, plans, or refactor proposals. Behavior changes, schema relaxations, dropped fields, response-shape changes, and contract drift are all acceptable.

**Why:** The user explicitly said "No need backward compatible" during a /review session on the codex/unified-app-scoped-ingress branch (PR #66).

Sharpened 2026-07-19 (user: "There are no old users"): zero deployed users
beyond the user's own machine. No upgrade-path code, no migration preservation
logic, no legacy-shape tests, no compat shims \xe2\x80\x94 anywhere. Breaking drops get a
one-line comment at most.
"""
SHARPENED_REWRITE = (
    "Sharpened 2026-07-19: nobody else runs myclaw, so there is nothing to stay\n"
    "compatible with. Write no upgrade paths, shims or legacy-shape tests; a breaking\n"
    "drop gets at most a one-line comment.\n"
)
SHARPENED = COMPAT[COMPAT.index(b"Sharpened") :].decode()
# tn22180/second-brain verify-branch-before-diagnosing.md: quoted description, nested
# metadata, a bash fence, a numbered list with wrapped items, wiki links (cut)
VERIFY = b"""---
name: verify-branch-before-diagnosing
description: "Pin which tree you are reading before making ANY claim about code \xe2\x80\x94 bug diagnosis, docs, skills, tickets."
metadata:\x20
  node_type: memory
  type: feedback
  originSessionId: 14216855-d862-47f9-bb7b-b7fa79da0f33
---

**Code claims describe a tree, not a repo.** Before reading code to support any claim, pin
which revision you are standing on and whether it is the one that matters.

```bash
git rev-list --left-right --count origin/master...HEAD   # master-only | branch-only
git log -1 --format='%ci' origin/master; git log -1 --format='%ci' HEAD
```

**Why:** this has now fired twice in one session, the second time at scale.

1. Ticket SEO-260714 (Enterprise showed 1000 credits, not 10000): I read `planFeatures.js` on a
   checkout that already had the fix and concluded it was a data problem.
2. Worse: I then wrote a doc set + 13 skills from the worktree of
   `feat/worker-pubsub-migration` \xe2\x80\x94 **207 commits behind master**.

Related: [[avada-agent-scaffold-skill]], [[docs-from-code]], [[verify-skill-citations-against-disk]]
"""
# VytCepas/projects-orchestrator project_roadmap.md: Fact/Why/How items, a blank line apart (cut)
ROADMAP = b"""---
name: Roadmap and interface direction
description: The four-direction plan, its status, and the decisions guiding follow-up work
type: project
---

# Roadmap and interface direction

- **Fact:** The 2026-07-05 effort delivered four directions \xe2\x80\x94 core hardening (#51), the live `serve` dashboard (#52), interface unification (#53, ADR-004), and governance breadth (#54). All merged.
  **Why:** "Realize the core, then build the interface" was the agreed sequence.
  **How to apply:** Build new surfaces on the shared view-model (ADR-004); don't add a fifth parallel projection.

- **Fact:** Persistent state lives under `$XDG_STATE_HOME/projects-orchestrator/`: supervisor run-state, `audit-digest.json`, and `history.jsonl`.
  **Why:** Trends and digests need durable state the last-known cache can't hold.
  **How to apply:** New persisted state goes under the same XDG dir with atomic writes (temp + replace).

- **Fact:** Open follow-up #64 \xe2\x80\x94 a sparkline trend column in the fleet table \xe2\x80\x94 is deferred.
  **Why:** It touches every surface, so it deserves its own PR with golden-output tests.
  **How to apply:** Read the history log once per fleet render (not per project \xe2\x80\x94 avoid N+1).
"""
ROADMAP_CRLF = ROADMAP.replace(b"\n", b"\r\n")
FACT_A = (
    b"\n- **Fact:** The GitLab adapter is read-only until PO-95 lands.\n"
    b"  **Why:** Write scopes need an owner sign-off.\n"
)
FACT_B = (
    b"\n- **Fact:** `notify` sends at most one message per project per hour.\n"
    b"  **Why:** The first week paged the owner 40 times.\n"
)
# HanSur94/FastSense code-reviewer MEMORY.md: sections and ### subsections of API bullets (cut)
FAST = """# Code Reviewer Memory — FastPlot Project (being renamed to FastSense)

## Key Classes and Their APIs

### FastPlotFigure
- `tile(n)` → FastPlot for tile n (creates on first call)
- `axes(n)` → raw MATLAB axes for tile n
- `renderAll()` — renders all tiles, shows figure

### EventStore
- Constructor: `EventStore(filePath)` — takes a file path
- `getEvents()` — returns stored events
- NO `query('SensorKey', ...)` method exists

## Dashboard Architecture (Task 5 — Deferred Rendering, e080bf2)
- `allocatePanels()` creates panels with placeholder uicontrols (Tag='placeholder'), no render call.
- BUG (MAJOR): `rerenderWidgets()` does not reset `Realized=false` before calling `createPanels`.
- BUG (MINOR): `realizeWidget` sets `Dirty=false` unconditionally.
- ORDERING (MINOR): `OnScrollCallback` wired AFTER `realizeBatch` in `render()`.
""".encode()
# BobG1983/breaker pattern_dual_semantic_enum_variant.md with a `confidence:` (cut), CRLF
ENUM = b"""---
name: pattern_dual_semantic_enum_variant
description: Enum variant reused for both triggered and passive contexts has ambiguous field semantics
type: feedback
confidence: 0.5
---

When a single enum variant (like `SpeedBoost { target, multiplier }`) serves two different dispatch paths, the field names must match both uses.

**Why:** `SpeedBoost` is used by archetype bridge systems and by chip observer handlers.

**How to apply:** check: (1) Do all field names make sense in every context? (2) Are there test behaviors covering both interpretations?
""".replace(b"\n", b"\r\n")
# 8nk9567f6c-prog/bianju-workbench MEMORY.md: a CJK index (cut)
BIANJU = """- [10集一卡工作流](workflow-10ep-card.md) — 每10集一卡，先验收→再大纲→再正文
- [参考剧本格式基线](reference-format-baseline.md) — 格式/对白/爽点保底标准，覆盖v9.2默认，OS不设硬指标
- [对标库学习](benchmark-library.md) — 5部透视鉴宝爆款拆解：四剧骨架+3集模板+6钩子手法
- [体量标准](episode-density-rules.md) — 小事件2-3集，大事件4-6集，信息压缩+言语激烈+高频嘲讽
""".encode()
# MaverickIdeas/Claude_KB muller_motor MEMORY.md: bold file names, a long parenthesised list
MULLER = b"""# Muller Motor / STM32N6 \xe2\x80\x94 memory index

- **project_overview.md** \xe2\x80\x94 hardware, boot model, address map, architecture split, toolchain, scope rules, and Phase 1 status.
- **muller_motor_learnings.md** \xe2\x80\x94 the verified build, sign, and flash playbook plus hard won gotchas ( Akamai download block, Windows long paths, CubeN6 submodules, GCC for Cortex M55, batch parenthesis trap, boot switch H and L mapping ) and shipped wins.
"""
# tn22180/second-brain MEMORY.md (latest sync, cut): long hooks, over the caps' taste
SEOI = """- [Verify the branch before diagnosing](verify-branch-before-diagnosing.md) — pin the tree before ANY code claim; the worktree you sit in feels like truth. Fired twice: SEO-260714, then a whole doc set written 207 commits behind master.
- [Docs from code: shared layer first](docs-from-code.md) — Tony's rule; common layer before per-domain, else skills can't justify why-not-claude-md and you get two taxonomies.
- [seo webhookLogs TTL](seo-webhooklogs-ttl.md) — internal webhook-dedup ledger, 30-day TTL (ttlPolicies.js:29-31); log absence ≠ webhook never arrived.
- [seo redis Command timed out = noise](seo-redis-command-timeout-noise.md) — Memorystore measured idle (1% CPU, 7.2k keys); it's the 200ms client budget, not the server. Don't resize Redis.
- [UTC cron offset](utc-cron-offset.md) — any "yesterday UTC" daily job must run after 00:00 UTC (07:00 Saigon), else it silently reports two local days ago.
""".encode()
BUG_MAJOR = "- BUG (MAJOR): `rerenderWidgets()` does not reset `Realized=false` before calling `createPanels`.\n"
BUG_NEW = "- BUG (MINOR): `onLiveTick` reads `hPanel` after delete.\n"
TYPES_ALIGNED = TYPES.replace(b"|---|---|---|", b"|:---|:---|---:|")

_HEAD = ROADMAP[: ROADMAP.index(b"- **Fact:**")]
_FACTS = ROADMAP[len(_HEAD) :].rstrip(b"\n").split(b"\n\n")
# the last Fact moved to the top, the blank lines between items where they were
MOVED = _HEAD + b"\n\n".join([_FACTS[2], _FACTS[0], _FACTS[1]]) + b"\n"
_ROWS = TYPES_ALIGNED.splitlines(keepends=True)
# the rows sorted by their type's name, the header and alignment row on top
RESORTED = b"".join(_ROWS[:2] + sorted(_ROWS[2:]))

# The twenty-third sweep (#24): name -> (path, base, ours, theirs, what a careful human
# writes) — the table in docs/merge.md, "Round 23: everyday cases".
SWEEP: dict[str, SweepCase] = {
    "gotchas: the agent rewrites a wrapped bullet vs a human fixes a word in the next": case(
        GOTCHAS,
        (
            "- claude-memory-map: the `@sparticuz/chromium` serverless test path is broken in\n"
            "  v131 (`.default` removed); CI uses `npm run setup:browser` instead.\n",
            "- claude-memory-map: chromium v131 dropped `.default`, so the serverless test path\n"
            "  is broken; CI installs a browser with `npm run setup:browser` instead.\n",
        ),
        ("all 17 skills", "all 18 skills"),
    ),
    "gotchas: a longer session, three wrapped bullets edited on one side, two and an append on the other": case(
        GOTCHAS,
        (
            "so decoded paths are\n",
            "so decoded paths\n",
            "`npm run setup:browser` instead",
            "`npm run setup:browser` (v2) instead",
            "mock\n  data",
            "fixture\n  data",
        ),
        (
            "`migrate-claude-memory` inventory",
            "`migrate-claude-memory` inventory script",
            "touch per\n  machine",
            "touch on every\n  machine",
            "before committing.\n",
            "before committing.\n- `gh` is missing in hosted cloud sessions; use plain `curl`.\n",
        ),
    ),
    "gotchas: a note appended to a wrapped bullet vs a word of its first line fixed": case(
        GOTCHAS,
        (
            "(hash-dedup makes the re-upload a no-op).\n",
            "(hash-dedup makes the re-upload a no-op).\n  Seen again 2026-08-30 after the v3 rename.\n",
        ),
        ("one-time `claude plugin install", "one-time `claude plugins install"),
    ),
    "feedback: the agent rewrites a wrapped paragraph vs the Why's word fixed": case(
        COMPAT,
        (SHARPENED, SHARPENED_REWRITE),
        ("(PR #66)", "(PR #66, 2026-05-14)"),
    ),
    "feedback: the agent rewrites the first paragraph vs the description reworded": case(
        COMPAT,
        (
            "For the myclaw project, do not flag backward-compatibility concerns in code reviews, plans, or refactor proposals. Behavior changes, schema relaxations, dropped fields, response-shape changes, and contract drift are all acceptable.",
            "In myclaw reviews, plans and refactors, never raise backward compatibility: behavior changes, dropped fields and contract drift are fine.",
        ),
        (
            "do not flag backward-compatibility concerns in code reviews\n",
            "never flag backward-compatibility concerns in reviews\n",
        ),
    ),
    "feedback: a word fixed in each of two lines of one wrapped paragraph and a line appended": case(
        COMPAT,
        (
            "zero deployed users",
            "zero deployed installs",
            "one-line comment at most.\n",
            "one-line comment at most.\nThe user's live machine data is the one exception.\n",
        ),
        ("no compat shims", "no compatibility shims"),
    ),
    "topic with a bash fence: a command inside edited vs a numbered item's wrapped line edited": case(
        VERIFY,
        ("--format='%ci' HEAD", "--format='%ci %h' HEAD"),
        ("concluded it was a data problem", "wrongly concluded it was a data problem"),
    ),
    "wiki links: one renamed vs one appended on the same Related line": case(
        VERIFY,
        ("[[docs-from-code]], [[verify", "[[docs-from-tree]], [[verify"),
        ("citations-against-disk]]\n", "citations-against-disk]], [[pin-the-tree]]\n"),
    ),
    "a quoted description reworded vs a list item appended with a word fixed above": case(
        VERIFY,
        ("ANY claim about code", "ANY claim about code or docs"),
        (
            "**207 commits behind master**.\n",
            "**207 commits behind master**.\n3. A third time: a JIRA ticket filed from a stale branch.\n",
            "fired twice",
            "fired three times",
        ),
    ),
    "Fact/Why/How: the agent rewrites a Fact vs a human fixes a word in its How to apply": case(
        ROADMAP,
        (
            "supervisor run-state, `audit-digest.json`, and `history.jsonl`.",
            "the supervisor's run-state, the digest deltas (`audit-digest.json`) and the check trends (`history.jsonl`, append-only).",
        ),
        ("atomic writes (temp + replace)", "atomic writes (temp file + os.replace)"),
    ),
    "Fact/Why/How: an item moved to the top vs its Why edited": (
        T,
        ROADMAP,
        MOVED,
        sub(
            ROADMAP,
            ("own PR with golden-output tests", "own PR with golden-output tests and a demo"),
        ),
        sub(
            MOVED, ("own PR with golden-output tests", "own PR with golden-output tests and a demo")
        ),
    ),
    "CRLF Fact/Why/How: a Fact appended on each side": (
        T,
        ROADMAP_CRLF,
        ROADMAP_CRLF + FACT_A.replace(b"\n", b"\r\n"),
        ROADMAP_CRLF + FACT_B.replace(b"\n", b"\r\n"),
        # both, CRLF kept; which first is the merge's one order for two appends (by content,
        # the same on every machine), not a judgement a careful human would make either way
        ROADMAP_CRLF + (FACT_B + FACT_A).replace(b"\n", b"\r\n"),
    ),
    "CRLF `confidence:` raised with a How to apply item added vs the Why edited": case(
        ENUM,
        (
            "confidence: 0.5",
            "confidence: 0.8",
            "both interpretations?",
            "both interpretations? (3) Is the dual use named in the doc comment?",
        ),
        ("archetype bridge systems", "archetype bridge systems (triggered)"),
    ),
    "### subsections: a subsection retitled vs a bullet appended under it": case(
        FAST,
        ("### FastPlotFigure\n", "### FastPlotGrid (was FastPlotFigure)\n"),
        ("shows figure\n", "shows figure\n- `setTileSpan(n, [rowSpan colSpan])` — tile spanning\n"),
        I,
    ),
    "### subsections: a bullet moved to another subsection vs its words edited": (
        I,
        FAST,
        sub(
            FAST,
            ("- NO `query('SensorKey', ...)` method exists\n", ""),
            ("shows figure\n", "shows figure\n- NO `query('SensorKey', ...)` method exists\n"),
        ),
        sub(FAST, ("method exists\n", "method exists (checked e080bf2)\n")),
        sub(
            FAST,
            ("- NO `query('SensorKey', ...)` method exists\n", ""),
            (
                "shows figure\n",
                "shows figure\n- NO `query('SensorKey', ...)` method exists (checked e080bf2)\n",
            ),
        ),
    ),
    "code-review notes: a bullet moved between sections vs a bullet appended to its new section": (
        I,
        RAY,
        sub(
            RAY,
            (
                "- `build_rayapp.sh` still modified for local dev (hardcoded path, missing exec)\n",
                "",
            ),
            (
                "(never read)\n",
                "(never read)\n- `build_rayapp.sh` still modified for local dev (hardcoded path, missing exec)\n",
            ),
        ),
        sub(
            RAY,
            (
                "(never read)\n",
                "(never read)\n- `tailWriter` drops the last partial line on close\n",
            ),
        ),
        # both in the section it moved to; the two additions in the merge's one order
        sub(
            RAY,
            (
                "- `build_rayapp.sh` still modified for local dev (hardcoded path, missing exec)\n",
                "",
            ),
            (
                "(never read)\n",
                "(never read)\n- `build_rayapp.sh` still modified for local dev (hardcoded path, missing exec)\n"
                "- `tailWriter` drops the last partial line on close\n",
            ),
        ),
    ),
    # acceptable, left (docs/merge.md, round 23): the base's four bullets happen to sort by
    # their words, so the section reads as kept sorted and the new bullet goes to its sorted
    # place (among the BUG bullets), not to the end where it was written
    "a fixed BUG bullet deleted vs a bullet appended at the section's end": (
        I,
        FAST,
        sub(FAST, (BUG_MAJOR, "")),
        sub(FAST, ("in `render()`.\n", "in `render()`.\n" + BUG_NEW)),
        sub(FAST, (BUG_MAJOR, BUG_NEW)),
    ),
    "nested list: a note appended to a child vs the other child reworded": case(
        BEVY,
        (
            "bevy_sprite, picking\n",
            "bevy_sprite, picking\n    - checked with `cargo tree -e features`\n",
        ),
        ("Do NOT need to add", "No need to add"),
    ),
    "nested list: a note appended to the last child vs its parent's text edited": case(
        BEVY,
        ('`features = ["2d"]`\n', '`features = ["2d"]`\n    - also true of `"3d"`\n'),
        ('`"2d"` profile includes', '`"2d"` profile (0.18) includes'),
    ),
    "CJK index: a hook shortened to fit the cap vs another hook extended with an emoji": case(
        BIANJU,
        ("格式/对白/爽点保底标准，覆盖v9.2默认，OS不设硬指标", "格式/对白/爽点保底标准"),
        ("6钩子手法", "6钩子手法 ✅"),
        I,
    ),
    "index: long hooks shortened to fit the caps vs an entry appended and a hook fixed": case(
        SEOI,
        (
            "; the worktree you sit in feels like truth. Fired twice: SEO-260714, then a whole doc set written 207 commits behind master.",
            "; fired twice (SEO-260714, 207 commits behind).",
            "; common layer before per-domain, else skills can't justify why-not-claude-md and you get two taxonomies.",
            "; common layer first.",
        ),
        (
            "two local days ago.\n",
            "two local days ago.\n- [Firestore purge cost](firestore-purge-cost.md) — reads, not deletes, are the bill.\n",
            "30-day TTL",
            "30-day TTL, not 90",
        ),
        I,
    ),
    "bold-name index: a gotcha added inside the parentheses vs the line's end extended": case(
        MULLER,
        ("boot switch H and L mapping )", "boot switch H and L mapping, ST-Link firmware update )"),
        ("and shipped wins.", "and shipped wins so far."),
        I,
    ),
    "a table: the alignment row changed vs a row appended and a cell edited": case(
        TYPES,
        ("|---|---|---|", "|:---|:---|---:|"),
        (
            "| Free-form |\n",
            "| Free-form |\n| `session` | One session's scratch | Free-form |\n",
            "URLs, dashboards",
            "URLs, dashboards, runbooks",
        ),
    ),
    "an aligned table: rows re-sorted by type vs a cell edited": (
        T,
        TYPES_ALIGNED,
        RESORTED,
        sub(TYPES_ALIGNED, ("deadlines, decisions", "deadlines, decisions, owners")),
        sub(RESORTED, ("deadlines, decisions", "deadlines, decisions, owners")),
    ),
}


@pytest.mark.parametrize("name", sorted(SWEEP))
def test_the_twenty_third_sweep(name: str) -> None:
    """Each case both directions, then merged again with either side: nothing changes."""
    check_case(SWEEP[name])


# The fixed class's neighbours (docs/merge.md, round 23): a MEMORY.md bullet with no link
# (`- **file.md** — hook`, a plain note) merged word by word as a linked entry's hook
NEIGHBOURS: dict[str, SweepCase] = {
    # the bold file name is the entry's key: renamed, it pairs with the gone one by the words
    # after the name (before: two lines, the old one with the hook edited)
    "bold-name index: the file name changed vs a word of the hook edited": case(
        MULLER,
        ("**project_overview.md**", "**overview.md**"),
        ("Phase 1 status", "Phase 2 status"),
        I,
    ),
    "bold-name index: words edited at both ends of one line, with CRLF": case(
        MULLER.replace(b"\n", b"\r\n"),
        ("the verified build", "the verified Windows build"),
        ("shipped wins.", "shipped wins (see ADR-3)."),
        I,
    ),
    "plain note in MEMORY.md: two words edited, one each, CJK": case(
        "# 备忘\n\n- 每10集一卡，先验收再大纲再正文\n- 哥哥审稿\n".encode(),
        ("每10集", "每12集"),
        ("再正文", "再正文（DS写）"),
        I,
    ),
}


def test_one_word_of_a_bold_name_entry_edited_on_both_sides_is_one_line_and_told() -> None:
    """The same words changed by both: one side's whole line (a tie: the greater bytes, the
    same on every machine), the other's edit told — never a line half of each."""
    ours = sub(MULLER, ("Phase 1 status", "Phase 2 status"))
    theirs = sub(MULLER, ("Phase 1 status", "Phase 3 status"))
    result = merge_file(I, MULLER, ours, theirs)
    assert result.data == merge_file(I, MULLER, theirs, ours).data == theirs
    [told] = result.resolutions
    assert told.subject == "entry project_overview.md" and told.reason == "tie-break", told


@pytest.mark.parametrize("name", sorted(NEIGHBOURS))
def test_the_twenty_third_neighbours(name: str) -> None:
    check_case(NEIGHBOURS[name])


def test_a_bold_name_renamed_and_two_hook_words_edited_on_three_machines_is_one_line() -> None:
    """One machine renames `project_overview.md`, two edit a word of its hook each: in every
    order, one line with the new name and both words."""
    got = in_every_order(
        I,
        MULLER,
        sub(MULLER, ("**project_overview.md**", "**overview.md**")),
        sub(MULLER, ("Phase 1 status", "Phase 2 status")),
        sub(MULLER, ("boot model", "boot ROM model")),
    )
    assert got == sub(
        MULLER,
        ("**project_overview.md**", "**overview.md**"),
        ("Phase 1 status", "Phase 2 status"),
        ("boot model", "boot ROM model"),
    )
