"""Everyday edits of memory files, twenty-second round (issue 24): bases cut from the real
corpus (../shared/corpus/real: a SCHEMA.md with a yaml fence and a table, a Rule/Why/How
feedback file, a CJK workflow card, an emoji receipt line, a nested feature list, wrapped
prose, a quoted description with a `modified:` stamp, three indexes) edited the way two
machines edit them: ``` and ~~~ fences, alignment rows, CRLF, CJK and emoji, `confidence:`
raised beside body edits, a topic file edited on both sides — each with the bytes a careful
human would sign, written before the merge was run. End to end (`gitmem sync` with real
clones, `git merge` with the drivers both ways): tests/e2e/test_everyday_in_sync_22.py."""

from __future__ import annotations

import pytest

from merge_drivers import merge_file
from tests.merge_drivers.test_everyday_20 import sub
from tests.support.sweep import SweepCase, check_case

I = ".claude/memory/MEMORY.md"  # noqa: E741
T = ".claude/memory/notes.md"


def case(base: bytes, a: tuple[str, str], b: tuple[str, str], path: str = T) -> SweepCase:
    """Two edits a careful human keeps both of, each where it was written."""
    return (path, base, sub(base, a), sub(base, b), sub(base, a, b))


# VytCepas/projects-orchestrator SCHEMA.md: a yaml fence, a table with an alignment row, a list
SCHEMA = b"""# Memory Schema

## Required frontmatter

Every memory file (except MEMORY.md, SCHEMA.md, README.md) must have:

```yaml
---
name: <short title>
description: <one-line summary used for relevance ranking>
type: user | feedback | project | reference
---
```

## Index

Every memory file must appear in `MEMORY.md` as a one-line bullet:

```markdown
- [Title](filename.md) \xe2\x80\x94 short description
```
"""
TYPES = """| Type | Purpose | Body structure |
|---|---|---|
| `user` | About the human — role, preferences, expertise | Free-form |
| `feedback` | Rules/corrections the user has given | **Why:** + **How to apply:** |
| `project` | Current-state facts — goals, deadlines, decisions | **Why:** + **How to apply:** |
| `reference` | Pointers to external systems — URLs, dashboards | Free-form |
""".encode()
NOT_STORED = b"""## What NOT to store

- Code patterns or architecture (derivable from the repo)
- Git history (`git log`)
- Ephemeral task state (use TODOs)
- Anything already in `CLAUDE.md` or `project-init.md`
- Large documents (put those in `vault/`)
"""
# VytCepas/projects-orchestrator feedback_conventions.md: Rule/Why/How items (cut)
CONV_FM = (
    b"---\nname: Conventions feedback\n"
    b"description: Rules about how agents should behave in this project\ntype: feedback\n"
)
CONV = (
    b"---\n\n# Conventions\n\n"
    b"- **Rule:** Engine failures must be data, not exceptions.\n"
    b"  **Why:** One broken child project must never take down the fleet view.\n"
    b"  **How to apply:** Wrap external I/O (subprocess, filesystem, YAML) so it degrades to"
    b" `unknown`/`fail`/warnings; add a test for each new failure mode.\n"
)
CONV_CONF = CONV_FM + b"confidence: 0.6\n" + CONV
CONV = CONV_FM + CONV
RULE_A = (
    b"\n- **Rule:** Never edit another project's files from the fleet view.\n"
    b"  **Why:** The fleet view is read-only by promise.\n"
)
RULE_B = (
    b"\n- **Rule:** Log every controller decision at info.\n"
    b"  **Why:** Owner asked to see why a child was restarted.\n"
)
# 8nk9567f6c-prog/bianju-workbench workflow-10ep-card.md: CJK, a numbered list, nested metadata
CARD = """---
name: workflow-10ep-card
description: 新工作流——每10集一卡，先验收再大纲再正文
metadata:\x20
  node_type: memory
  type: feedback
---

哥哥定下新工作流：每10集为一卡。

流程三步：
1. **验收**：念念审查上一卡（格式/AI腔/结尾能量/水字数），输出审查报告。通过才进下一步。
2. **大纲**：根据ANCHOR路线图+上一卡结尾，生成下一卡10集一句话大纲+钩子预排+弹簧预排。
3. **正文**：spawn DS按大纲逐集写作，念念逐集审。

一卡（E1-10）已在2026.6.27验收通过，二卡（E11-20）即将进入大纲阶段。

**Why:** 哥哥要标准化产出节奏，10集一个验收节点，避免跑偏积累。
""".encode()
CARD_CRLF = CARD.replace(b"\n", b"\r\n")
# knacklabs/gantry notification-ux-redesign.md: the receipt line, emoji glyphs
RECEIPT = (
    "- Permission receipt (`formatPermissionReceiptText`): collapsed multi-line to ONE line — "
    "`✅ Allowed once/5 min/Always allowed · {summary}` / `🚫 Canceled · {summary}`.\n"
    "- Job notifications: `{emoji} {statusText} · {name}[ · dur]` + outcome.\n"
).encode()
# BobG1983/breaker bevy-api-expert MEMORY.md: nested bullets under sections
BEVY = b"""## Verified Feature Flags (v0.18.0/0.18.1 \xe2\x80\x94 same feature set)

- `default = ["2d", "3d", "ui"]`
- `"2d"` profile includes: default_app, default_platform, 2d_bevy_render, ui, scene, audio, picking
  - This means `"2d"` ALREADY includes bevy_ui, bevy_audio, bevy_scene, bevy_sprite, picking
  - Do NOT need to add `"bevy_ui"` separately when using `features = ["2d"]`
- `dynamic_linking = ["dep:bevy_dylib", "bevy_internal/dynamic_linking"]` \xe2\x80\x94 dev only

## Fast Compile \xe2\x80\x94 macOS (verified from bevy.org setup guide)

- macOS uses `ld-prime` (Xcode) by default \xe2\x80\x94 NO custom linker config needed
- Linux: `linker = "clang"`, `rustflags = ["-C", "link-arg=-fuse-ld=lld"]`
- Windows: `linker = "rust-lld.exe"`
"""
# knacklabs/gantry memory-lives-in-repo.md: prose wrapped at ~85 columns
REPO = b"""---
name: memory-lives-in-repo
description: STANDING \xe2\x80\x94 shared dev memory lives in the repo at .claude/memory/, not a personal ~/.claude dir
metadata:
  type: feedback
---

Shared dev memory MUST live in the repo at `.claude/memory/` so the whole team
and any coding agent shares it \xe2\x80\x94 NOT in a personal `~/.claude/projects/.../memory`
directory.

**How to apply:** write new memory notes into `.claude/memory/` in the repo and add
the one-line pointer to `.claude/memory/MEMORY.md`. Migrated 2026-07-23 via PR #272
(`.gitignore` un-ignores `.claude/memory/`).
"""
# tn22180/second-brain seo-redis-command-timeout-noise.md: a quoted description, `modified:`
SEO = b"""---
name: seo-redis-command-timeout-noise
description: "SEO's \\"[redisCache:*] Command timed out\\" is client-side noise, not a Redis fault"
metadata:\x20
  node_type: memory
  type: project
  modified: 2026-07-24T09:03:48.129Z
---

`commandTimeout` is measured in the Node process, so a GC pause or busy event loop trips it while
Redis answers in <1ms. It was 200ms.
"""
# VytCepas/projects-orchestrator MEMORY.md: an HTML comment, then the entries
VI = b"""<!--
  MEMORY.md \xe2\x80\x94 project-level memory index.

  One bullet per memory file. Keep lines under ~150 chars.
-->

- [Project context](project_context.md) \xe2\x80\x94 goals, constraints, key decisions
- [Roadmap and interface direction](project_roadmap.md) \xe2\x80\x94 four-direction plan status
- [User role](user_role.md) \xe2\x80\x94 developer background and preferences
- [Conventions](feedback_conventions.md) \xe2\x80\x94 agent behavior rules for this project
"""
# Adam-S-Daniel/agentskills MEMORY.md: wrapped intro paragraphs, long hooks
AI = b"""# Project memory index

Auto-memory index for the `agentskills` repo. Claude Code maintains this file;
topic files live alongside it in this directory.

<!-- Claude: add one line per topic file below, e.g. `- [Title](topic.md) \xe2\x80\x94 hook` -->
- [Ecosystem state](ecosystem-state.md) \xe2\x80\x94 issue #18 pending manual step, per-machine setup.sh convergence status
- [Gotchas](gotchas.md) \xe2\x80\x94 memory-path munging ambiguity, claude-memory-map chromium test breakage
"""
# ray-project/rayci code-reviewer MEMORY.md: sections of bullets
RAY = b"""# Code Reviewer Memory - rayci

## Branch: elliot-barn-launch-template-into-workspace
- Adds `launchTemplateInWorkspace` to `anyscaleAPI` (POST /from_template)
- `build_rayapp.sh` still modified for local dev (hardcoded path, missing exec)
- Adds `GetDefaultProject` CLI wrapper (new file `anyscale_cli_project.go`)

## Common Issues Seen
- `http.Client{}` created without Timeout in `newAnyscaleAPI` -- can hang indefinitely
- `WorkspaceTestConfig` has dead fields: configFile, imageURI, rayVersion (never read)
"""
ISSUE_A = "- `tailWriter` drops the last partial line on close\n"
ISSUE_B = "- `reefd` retries EC2 calls without jitter\n"

# The twenty-second sweep (#24): name -> (path, base, ours, theirs, what a careful human
# writes) — the table in docs/merge.md, "Round 22: everyday cases".
SWEEP: dict[str, SweepCase] = {
    "``` yaml fence: the `type:` line extended vs the `name:` line reworded": case(
        SCHEMA,
        ("| reference\n", "| reference | archive\n"),
        ("<short title>", "<short title, no dates>"),
    ),
    "a ``` fence restyled as ~~~ vs a line inside it edited": (
        T,
        SCHEMA,
        sub(SCHEMA, ("```markdown\n", "~~~markdown\n"), ("description\n```", "description\n~~~")),
        sub(SCHEMA, ("short description", "one-line hook")),
        sub(
            SCHEMA,
            ("```markdown\n", "~~~markdown\n"),
            ("short description\n```", "one-line hook\n~~~"),
        ),
    ),
    "a ~~~ fence: its info string changed vs the line after it inside edited": case(
        SCHEMA.replace(b"```", b"~~~"),
        ("~~~yaml", "~~~yml"),
        ("---\nname:", "---\n# required\nname:"),
    ),
    "a table: alignment row set vs a cell edited": case(
        TYPES,
        ("|---|---|---|", "|:---|:---|:---|"),
        ("expertise | Free-form", "expertise | Free-form, no secrets"),
    ),
    "a table: a row appended on each side": (
        T,
        TYPES,
        TYPES + b"| `archive` | Retired facts | Free-form |\n",
        TYPES + b"| `session` | One session's scratch | Free-form |\n",
        # both rows; which first is the merge's one order for two appends (the same on every
        # machine), not a judgement a careful human would make either way
        TYPES
        + b"| `session` | One session's scratch | Free-form |\n| `archive` | Retired facts | Free-form |\n",
    ),
    "a table: a row edited vs the row under it deleted": (
        T,
        TYPES,
        sub(TYPES, ("Rules/corrections", "Rules and corrections")),
        sub(
            TYPES,
            (
                "| `project` | Current-state facts \u2014 goals, deadlines, decisions | **Why:** + **How to apply:** |\n",
                "",
            ),
        ),
        sub(
            TYPES,
            ("Rules/corrections", "Rules and corrections"),
            (
                "| `project` | Current-state facts \u2014 goals, deadlines, decisions | **Why:** + **How to apply:** |\n",
                "",
            ),
        ),
    ),
    "Rule/Why/How: a new rule appended on each side": (
        T,
        CONV,
        CONV + RULE_A,
        CONV + RULE_B,
        CONV + RULE_A + RULE_B,
    ),
    "`confidence:` raised with a body edit vs another body edit": case(
        CONV_CONF,
        (
            "confidence: 0.6\n---\n\n# Conventions",
            "confidence: 0.9\n---\n\n# Conventions (checked)",
        ),
        ("must be data", "must always be data"),
    ),
    "`confidence:` raised on both sides, each with a body edit": (
        T,
        CONV_CONF,
        sub(
            CONV_CONF,
            ("confidence: 0.6", "confidence: 0.8"),
            ("# Conventions", "# Conventions (checked)"),
        ),
        sub(
            CONV_CONF,
            ("confidence: 0.6", "confidence: 0.9"),
            ("must be data", "must always be data"),
        ),
        sub(
            CONV_CONF,
            ("confidence: 0.6", "confidence: 0.9"),
            ("# Conventions", "# Conventions (checked)"),
            ("must be data", "must always be data"),
        ),
    ),
    "CJK steps: step 2 edited vs step 3 edited": case(
        CARD, ("+钩子预排+弹簧预排", "+钩子预排"), ("念念逐集审", "念念逐集审并记录")
    ),
    "CJK steps: a step inserted and renumbered vs the last step edited": (
        T,
        CARD,
        sub(
            CARD,
            ("3. **正文**", "3. **预审**：大纲先给哥哥过目。\n4. **正文**"),
            ("流程三步", "流程四步"),
        ),
        sub(CARD, ("spawn DS", "spawn 两个DS")),
        sub(
            CARD,
            ("3. **正文**", "3. **预审**：大纲先给哥哥过目。\n4. **正文**"),
            ("流程三步", "流程四步"),
            ("spawn DS", "spawn 两个DS"),
        ),
    ),
    "CJK with CRLF: the status line edited vs the Why edited": case(
        CARD_CRLF, ("即将进入大纲阶段", "已进入大纲阶段"), ("避免跑偏积累", "避免跑偏")
    ),
    "emoji: two glyphs of one line changed, one each": case(
        RECEIPT, ("🚫 Canceled", "❌ Canceled"), ("✅ Allowed once", "✅ Allowed 1×")
    ),
    "nested list: a child appended vs its parent's text edited": case(
        BEVY,
        ('`features = ["2d"]`\n', '`features = ["2d"]`\n  - `"3d"` is NOT in our build\n'),
        ("audio, picking\n  - This", "audio, picking, gizmos\n  - This"),
    ),
    "nested list: a child deleted vs its sibling edited": case(
        BEVY,
        ('  - Do NOT need to add `"bevy_ui"` separately when using `features = ["2d"]`\n', ""),
        ("ALREADY includes bevy_ui", "ALREADY includes bevy_ui, bevy_text"),
    ),
    "a section inserted vs the last item above it edited": case(
        BEVY,
        (
            "dev only\n\n",
            "dev only\n\n## Fast Compile \u2014 Linux\n\n- use `mold` when present\n\n",
        ),
        ("dev only", "dev only, never release"),
    ),
    "the description edited vs the How to apply edited": case(
        REPO,
        ("not a personal ~/.claude dir", "never a personal ~/.claude dir"),
        ("Migrated 2026-07-23", "Migrated 2026-07-24"),
    ),
    "a quoted description edited vs `modified:` stamped with a body edit": case(
        SEO,
        ("client-side noise,", "client-side (Node) noise,"),
        ("modified: 2026-07-24T09:03:48.129Z", "modified: 2026-07-25T10:00:00.000Z"),
    ),
    "MEMORY.md: the comment's rule edited vs an entry appended": case(
        VI,
        ("under ~150 chars", "under ~120 chars"),
        (
            "rules for this project\n",
            "rules for this project\n- [Schema](SCHEMA.md) \u2014 frontmatter and naming rules\n",
        ),
        I,
    ),
    "MEMORY.md: a long hook extended vs a word of the wrapped intro edited": case(
        AI,
        ("chromium test breakage\n", "chromium test breakage, plugin-install touch\n"),
        ("Claude Code maintains", "Claude Code keeps"),
        I,
    ),
}

# two bullets appended to one section, one on each side: both kept, in the order the merge
# puts two appends (by content, the same on every machine)
SWEEP["code-review notes: a bullet appended to one section on each side"] = (
    I,
    RAY,
    RAY + ISSUE_A.encode(),
    RAY + ISSUE_B.encode(),
    None,
)
# the classes fixed this round: bullets a side joined beside a word edited in them, and a
# bullet split where it stood merged again with the splitter (docs/merge.md, round 22)
TOOLS = b"- format with black\n- use ruff for lint and mypy for types\n- test with pytest\n"
JOINED = b"- format with black\n- use ruff for lint\n- use mypy for types\n- test with pytest\n"
# the index re-sorted (an entry moved to the top) while a hook is edited: the blank line
# under the comment stays there, none comes between two entries
SORTED = VI.replace(
    VI[VI.index(b"- [Project") :],
    VI[VI.index(b"- [Conventions") :] + VI[VI.index(b"- [Project") : VI.index(b"- [Conventions")],
)
SWEEP["MEMORY.md: the entries re-sorted vs a hook edited"] = (
    I,
    VI,
    SORTED,
    sub(VI, ("key decisions", "key decisions, owners")),
    sub(SORTED, ("key decisions", "key decisions, owners")),
)
SWEEP["two bullets joined into one vs a word edited in the second"] = (
    T,
    JOINED,
    TOOLS,
    sub(JOINED, ("mypy for", "mypy --strict for")),
    sub(TOOLS, ("mypy for", "mypy --strict for")),
)
SWEEP["a bullet split in two, merged again with the splitter (after a word edited in it)"] = (
    T,
    TOOLS,
    sub(JOINED, ("mypy for", "mypy --strict for")),
    JOINED,
    sub(JOINED, ("mypy for", "mypy --strict for")),
)

# The same round's neighbours: of the classes fixed, and everyday edits that were good before
NEIGHBOURS: dict[str, SweepCase] = {
    "code-review notes: a stale bullet deleted vs the bullet after it edited": case(
        RAY,
        ("- `build_rayapp.sh` still modified for local dev (hardcoded path, missing exec)\n", ""),
        ("CLI wrapper", "CLI wrapper (tested)"),
        I,
    ),
    "Rule/Why/How: the Why edited vs the How to apply edited": case(
        CONV,
        ("never take down the fleet view", "never take down the fleet view or the TUI"),
        ("add a test for each", "add a regression test for each"),
    ),
    "MEMORY.md: two neighbouring hooks edited, one each": case(
        VI,
        ("four-direction plan status", "four-direction plan status and decisions"),
        ("developer background", "developer background, timezone"),
        I,
    ),
    "a list: an item deleted vs the next item edited": case(
        NOT_STORED,
        ("- Git history (`git log`)\n", ""),
        ("(use TODOs)", "(use TODOs or the tracker)"),
    ),
    "wrapped prose: two neighbouring lines of one paragraph edited": case(
        REPO, ("the whole team", "the whole dev team"), ("NOT in a personal", "NOT in any personal")
    ),
    "three bullets joined into one vs a word edited in the last": (
        T,
        JOINED,
        b"- format with black, ruff for lint and mypy for types\n- test with pytest\n",
        sub(JOINED, ("mypy for", "mypy --strict for")),
        b"- format with black, ruff for lint and mypy --strict for types\n- test with pytest\n",
    ),
    "two bullets joined vs a word edited in each of them": (
        T,
        JOINED,
        TOOLS,
        sub(JOINED, ("ruff for", "ruff check for"), ("mypy for", "mypy --strict for")),
        sub(TOOLS, ("ruff for", "ruff check for"), ("mypy for", "mypy --strict for")),
    ),
    "two bullets joined vs another bullet edited": (
        T,
        JOINED,
        TOOLS,
        sub(JOINED, ("pytest", "pytest -n 2")),
        sub(TOOLS, ("pytest", "pytest -n 2")),
    ),
    "two bullets joined vs a bullet appended after the list": (
        T,
        JOINED,
        TOOLS,
        JOINED + b"- ship with twine\n",
        TOOLS + b"- ship with twine\n",
    ),
    "a bullet split in two vs a word edited in the first half": (
        T,
        TOOLS,
        JOINED,
        sub(TOOLS, ("ruff for", "ruff check for")),
        sub(JOINED, ("ruff for", "ruff check for")),
    ),
    "an item moved to the end vs it and the item before its new place edited": (
        T,
        b"- item 0 alpha\n- item 1 beta\n- item 2 gamma\n",
        b"- item 1 beta\n- item 2 gamma\n- item 0 alpha\n",
        b"- item 0 alpha (edited)\n- item 1 beta\n- item 2 gamma (edited)\n",
        b"- item 1 beta\n- item 2 gamma (edited)\n- item 0 alpha (edited)\n",
    ),
}


def test_two_numbered_steps_joined_vs_a_word_edited_keeps_the_word() -> None:
    """Round 22 left it acceptable (the edit won, the join was lost); round 23 merges steps
    joined as bullets joined, renumbered: the join and the word (test_residue_23.py)."""
    base, joined = b"1. build\n2. test\n3. ship\n", b"1. build and test\n2. ship\n"
    edited = b"1. build\n2. test all\n3. ship\n"
    assert merge_file(T, base, joined, edited).data == b"1. build and test all\n2. ship\n"


@pytest.mark.parametrize("name", sorted(NEIGHBOURS))
def test_the_twenty_second_neighbours(name: str) -> None:
    check_case(NEIGHBOURS[name])


@pytest.mark.parametrize("name", sorted(SWEEP))
def test_the_twenty_second_sweep(name: str) -> None:
    """Each case both directions, then merged again with either side: nothing changes."""
    check_case(SWEEP[name])
