"""Everyday edits of memory files, eleventh round (issue 24): the classes the earlier sweeps
left weakest — short bullets (under four words) moved between sections against an edit or a
deletion elsewhere, a `###` subsection moved under another `##` while the other side edits
inside it, new plain bullets from both sides after one predecessor or in a sorted section,
tables (a column against a row or a cell, alignment rows), numbered lists (both insert a step,
renumbering, children under steps), fences of other kinds (`~~~`, four backticks, indented
code), frontmatter (`tags` from both sides, `confidence:`/`updated:` against edits
elsewhere), CRLF, CJK, emoji, very long lines, a stray Latin-1 byte, and three machines in
every order. Shapes from the real corpus: breaker's sectioned crate notes, second-brain's
long-hook index, gantry's feedback topics. Each case says what a careful human keeps; every
merge is symmetric and idempotent, three replicas converge in every order. End to end:
tests/e2e/test_everyday_in_sync_11.py."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .conftest import examples
from .test_everyday_cases import Case, Sweep, _merge, check, encoded, merged

I = ".claude/memory/MEMORY.md"  # noqa: E741
T = ".claude/memory/crate-notes.md"
F = ".claude/memory/feedback_release_flow.md"

case = Sweep()
CASES = case.cases
# a case whose result may hold either of two spellings (the order two sides' new bullets
# take after one predecessor is each merge's own, but fixed): name -> alternatives
EITHER: dict[str, list[str]] = {}


# --- (1) short bullets moved between sections ---------------------------------------------

BX = (
    "# Breaker memory\n\n"
    "## Build\n"
    "- `cargo build -p core` first\n"
    "- use nightly\n"
    "- [Release flow](release-flow.md) — tag, then publish crates in dependency order\n\n"
    "## Testing\n"
    "- run `cargo nextest`\n"
    "- snapshots in `tests/snap`\n"
    "- flaky: net\n\n"
    "## Links\n"
    "- wiki\n"
    "- board\n"
)
case(
    "index: a short bullet moved to another section, an entry of its old section edited",
    I,
    BX,
    [
        BX.replace("- use nightly\n", "").replace(
            "- flaky: net\n", "- flaky: net\n- use nightly\n"
        ),
        BX.replace("-p core` first", "-p core --locked` first"),
    ],
    [
        "- `cargo build -p core --locked` first\n- [Release flow]",
        "- flaky: net\n- use nightly\n\n## Links",
    ],
    ["first\n- use nightly"],
)
case(
    "index: a short bullet moved to the last section, a bullet there deleted",
    I,
    BX,
    [
        BX.replace("- flaky: net\n", "").replace("- board\n", "- board\n- flaky: net\n"),
        BX.replace("- wiki\n", ""),
    ],
    ["## Links\n- board\n- flaky: net\n"],
    ["- wiki", "tests/snap`\n- flaky"],
)
case(
    "index: a short bullet moved, the same bullet reworded on the other side",
    I,
    BX,
    [
        BX.replace("- use nightly\n", "").replace(
            "- flaky: net\n", "- flaky: net\n- use nightly\n"
        ),
        BX.replace("- use nightly\n", "- use nightly-2026-11\n"),
    ],
    ["- flaky: net\n- use nightly-2026-11\n\n## Links"],
    ["first\n- use nightly"],
)
case(
    "index: a short bullet moved to the first section, deleted on the other side",
    I,
    BX,
    [
        BX.replace("- board\n", "").replace("- use nightly\n", "- use nightly\n- board\n"),
        BX.replace("- board\n", ""),
    ],
    # acceptable: a move is an edit of the bullet's place, and modified beats deleted; since
    # round 19 the moved bullet stands where its mover put it (placement)
    ["- wiki\n", "- use nightly\n- board\n- [Release flow]"],
    ["- wiki\n- board"],
)
case(
    "index: two short bullets swapped between sections, a third section's bullet edited",
    I,
    BX,
    [
        BX.replace("- use nightly\n", "- wiki\n").replace(
            "- wiki\n- board", "- use nightly\n- board"
        ),
        BX.replace("- snapshots in `tests/snap`", "- snapshots in `tests/snapshots`"),
    ],
    [  # round 19 puts `wiki` where it was put (after `first`), round 23 `use nightly`
        # where it was put too: on top of its new section (was: its end)
        "first\n- wiki\n- [Release flow]",
        "## Links\n- use nightly\n- board\n",
        "- snapshots in `tests/snapshots`\n",
    ],
)
TX = (
    "---\nname: crate-notes\ndescription: build and test notes for the breaker crates\n"
    "type: project\n---\n\n"
    "## Build\n\n- cargo build first\n- use nightly\n- vendored openssl\n\n"
    "## Testing\n\n- nextest, not cargo test\n- flaky: net\n\n"
    "## Later\n\n- wasm target\n"
)
case(
    "topic: a short bullet moved to another section, a neighbour in the new section deleted",
    T,
    TX,
    [
        TX.replace("- use nightly\n", "").replace(
            "- flaky: net\n", "- flaky: net\n- use nightly\n"
        ),
        TX.replace("- flaky: net\n", ""),
    ],
    ["- nextest, not cargo test\n- use nightly\n\n## Later"],
    ["flaky", "first\n- use nightly"],
)
case(
    "topic: a short bullet moved up a section, a bullet of its old section reworded",
    T,
    TX,
    [
        TX.replace("- wasm target\n", "").replace(
            "- vendored openssl\n", "- vendored openssl\n- wasm target\n"
        ),
        TX.replace("- nextest, not cargo test", "- nextest only, never cargo test"),
    ],
    ["- vendored openssl\n- wasm target\n\n## Testing", "- nextest only, never cargo test\n"],
    ["## Later\n\n- wasm"],
)

# --- (2) a ### subsection moved under another ## ------------------------------------------

SX = (
    "---\nname: crate-notes\ndescription: build and test notes for the breaker crates\n"
    "type: project\n---\n\n"
    "## Backend\n\n"
    "### Caching\n\n- redis TTL 30 days\n- keys prefixed `seo:`\n\n"
    "### Queues\n\n- bullmq with 3 retries\n\n"
    "## Frontend\n\n"
    "### Build\n\n- vite 5\n"
)
MOVED = SX.replace("### Caching\n\n- redis TTL 30 days\n- keys prefixed `seo:`\n\n", "") + (
    "\n### Caching\n\n- redis TTL 30 days\n- keys prefixed `seo:`\n"
)
case(
    "topic: a ### subsection moved under another ##, a bullet inside it edited",
    T,
    SX,
    [MOVED, SX.replace("TTL 30 days", "TTL 7 days")],
    ["- vite 5\n\n### Caching\n\n- redis TTL 7 days\n- keys prefixed `seo:`\n"],
    ["30 days", "## Backend\n\n### Caching"],
)
case(
    "topic: a ### subsection moved under another ##, a bullet appended inside it",
    T,
    SX,
    [MOVED, SX.replace("prefixed `seo:`\n", "prefixed `seo:`\n- evict with allkeys-lru\n")],
    ["### Caching\n\n- redis TTL 30 days\n- keys prefixed `seo:`\n- evict with allkeys-lru\n"],
    ["## Backend\n\n### Caching"],
)
case(
    "topic: a ### subsection moved under another ##, its title edited on the other side",
    T,
    SX,
    [MOVED, SX.replace("### Caching", "### Caching (redis)")],
    ["- vite 5\n\n### Caching (redis)\n\n- redis TTL 30 days\n"],
    ["### Caching\n", "## Backend\n\n### Caching"],
)
case(
    "topic: a ### subsection moved under another ## and retitled, a bullet inside it edited",
    T,
    SX,
    [MOVED.replace("### Caching", "### Caching (redis)"), SX.replace("TTL 30 days", "TTL 7 days")],
    ["- vite 5\n\n### Caching (redis)\n\n- redis TTL 7 days\n- keys prefixed `seo:`\n"],
    ["30 days", "### Caching\n", "## Backend\n\n### Caching"],
)
case(
    "topic: a ### subsection retitled on two machines alike, moved on a third",
    T,
    SX,
    [
        SX.replace("### Caching", "### Caching (redis)"),
        SX.replace("### Caching", "### Caching (redis)").replace("bullmq", "BullMQ"),
        MOVED,
    ],
    ["- vite 5\n\n### Caching (redis)\n\n- redis TTL 30 days\n", "- BullMQ with 3 retries"],
    ["### Caching\n", "## Backend\n\n### Caching"],
)
IX = (
    "# Reviewer memory\n\n"
    "## Key classes\n\n"
    "### FastPlot\n- `addLine` — before render()\n- `render()` — installs listeners\n\n"
    "### LinkGroup\n- syncs zoom across plots\n\n"
    "## Deprecated\n\n- `FastPlotFigure` → `FastPlotGrid`\n"
)
case(
    "index: a ### subsection moved under another ##, an entry inside it edited",
    I,
    IX,
    [
        IX.replace("### LinkGroup\n- syncs zoom across plots\n\n", "")
        + "\n### LinkGroup\n- syncs zoom across plots\n",
        IX.replace("syncs zoom across plots", "syncs zoom and pan across plots"),
    ],
    ["`FastPlotGrid`\n\n### LinkGroup\n- syncs zoom and pan across plots\n"],
    ["syncs zoom across", "listeners\n\n### LinkGroup"],
)

# --- (3) new plain bullets from both sides ------------------------------------------------

PB = (
    "---\nname: feedback_release_flow\ndescription: how releases go out\ntype: feedback\n---\n\n"
    "## Steps that bit us\n\n- tag before publish\n- publish core first\n- wait for the index\n"
    "\n## Owners\n\n- Tuan: infra\n"
)
case(
    "topic: both sides add a bullet after the same middle predecessor",
    F,
    PB,
    [
        PB.replace("core first\n", "core first\n- then publish macros\n"),
        PB.replace("core first\n", "core first\n- check the changelog\n"),
    ],
    ["- tag before publish\n- publish core first\n- ", "- wait for the index\n\n## Owners"],
)
EITHER["topic: both sides add a bullet after the same middle predecessor"] = [
    "core first\n- then publish macros\n- check the changelog\n- wait",
    "core first\n- check the changelog\n- then publish macros\n- wait",
]
case(
    "topic: both sides append a bullet at a section's end, before the next section",
    F,
    PB,
    [
        PB.replace("the index\n", "the index\n- bump the lockfile\n"),
        PB.replace("the index\n", "the index\n- announce in #releases\n"),
    ],
    ["- wait for the index\n- ", "bump the lockfile", "announce in #releases", "\n\n## Owners\n"],
)
SO = (
    "---\nname: crate-notes\ndescription: build and test notes\ntype: project\n---\n\n"
    "## Crates\n\n- breaker-core\n- breaker-http\n- breaker-macros\n- breaker-wasm\n"
)
case(
    "topic: a sorted list, both sides add a name (kept sorted)",
    T,
    SO,
    [
        SO.replace("- breaker-core\n", "- breaker-cli\n- breaker-core\n"),
        SO.replace("- breaker-macros\n", "- breaker-log\n- breaker-macros\n"),
    ],
    [
        "- breaker-cli\n- breaker-core\n- breaker-http\n- breaker-log\n- breaker-macros\n- breaker-wasm\n"
    ],
)
case(
    "topic: a sorted list, three machines each add a name",
    T,
    SO,
    [
        SO.replace("- breaker-core\n", "- breaker-cli\n- breaker-core\n"),
        SO.replace("- breaker-macros\n", "- breaker-log\n- breaker-macros\n"),
        SO + "- breaker-xtask\n",
    ],
    [
        "- breaker-cli\n- breaker-core\n- breaker-http\n- breaker-log\n- breaker-macros\n"
        "- breaker-wasm\n- breaker-xtask\n"
    ],
)
case(
    "index: both sides add a plain bullet after the same predecessor",
    I,
    BX,
    [
        BX.replace("- run `cargo nextest`\n", "- run `cargo nextest`\n- `--no-fail-fast` on CI\n"),
        BX.replace("- run `cargo nextest`\n", "- run `cargo nextest`\n- miri weekly\n"),
    ],
    # good since round 19: both right after `run`, by their text (placement)
    ["- run `cargo nextest`\n- `--no-fail-fast` on CI\n- miri weekly\n- snapshots"],
)

# --- (4) tables --------------------------------------------------------------------------

TB = (
    "---\nname: crate-notes\ndescription: versions we pin\ntype: project\n---\n\n"
    "| crate | version |\n|---|---|\n| tokio | 1.38 |\n| serde | 1.0 |\n"
)
case(
    "table: a column added on one side, a cell edited on the other",
    T,
    TB,
    [
        TB.replace("| crate | version |\n|---|---|", "| crate | version | why |\n|---|---|---|")
        .replace("| 1.38 |", "| 1.38 | rt-multi |")
        .replace("| 1.0 |", "| 1.0 | derive |"),
        TB.replace("| 1.38 |", "| 1.40 |"),
    ],
    [
        "| crate | version | why |\n|---|---|---|\n| tokio | 1.40 | rt-multi |\n| serde | 1.0 | derive |\n"
    ],
)
case(
    "table: alignment row changed on one side, both add a row",
    T,
    TB,
    [
        TB.replace("|---|---|", "|:--|--:|") + "| anyhow | 1.0 |\n",
        TB + "| clap | 4.5 |\n",
    ],
    ["|:--|--:|", "| serde | 1.0 |\n| ", "| anyhow | 1.0 |", "| clap | 4.5 |"],
)
case(
    "table: two cells of different rows edited, a row deleted on one side",
    T,
    TB + "| rand | 0.8 |\n",
    [
        (TB + "| rand | 0.8 |\n")
        .replace("| tokio | 1.38 |", "| tokio | 1.39 |")
        .replace("| serde | 1.0 |\n", ""),
        (TB + "| rand | 0.8 |\n").replace("| rand | 0.8 |", "| rand | 0.9 |"),
    ],
    ["| tokio | 1.39 |\n| rand | 0.9 |\n"],
    ["serde"],
)
case(
    "table: three machines — a column, a row, a cell",
    T,
    TB,
    [
        TB.replace("| crate | version |\n|---|---|", "| crate | version | why |\n|---|---|---|")
        .replace("| 1.38 |", "| 1.38 | rt-multi |")
        .replace("| 1.0 |", "| 1.0 | derive |"),
        TB + "| clap | 4.5 |\n",
        TB.replace("| 1.0 |", "| 1.0.210 |"),
    ],
    ["| tokio | 1.38 | rt-multi |", "| serde | 1.0.210 | derive |", "| clap | 4.5 |"],
)

COL = (
    TB.replace("| crate | version |\n|---|---|", "| crate | version | why |\n|---|---|---|")
    .replace("| 1.38 |", "| 1.38 | rt-multi |")
    .replace("| 1.0 |", "| 1.0 | derive |")
)
case(
    "table: a column and a row added on one side, a cell edited on the other",
    T,
    TB,
    [COL + "| clap | 4.5 | cli |\n", TB.replace("| 1.38 |", "| 1.40 |")],
    [
        "| crate | version | why |\n|---|---|---|\n| tokio | 1.40 | rt-multi |\n| serde | 1.0 |"
        " derive |\n| clap | 4.5 | cli |\n"
    ],
)
case(
    "table: a row deleted and a cell edited on one side, a column added on the other",
    T,
    TB + "| rand | 0.8 |\n",
    [
        (TB + "| rand | 0.8 |\n").replace("| serde | 1.0 |\n", "").replace("| 0.8 |", "| 0.9 |"),
        COL + "| rand | 0.8 | gen |\n",
    ],
    [
        "| crate | version | why |\n|---|---|---|\n| tokio | 1.38 | rt-multi |\n| rand | 0.9 | gen |\n"
    ],
    ["serde"],
)

case(
    "table: three machines — a column on one, a row each on the other two",
    T,
    TB,
    [COL, TB + "| clap | 4.5 |\n", TB + "| anyhow | 1.0 |\n"],
    [  # both new rows after `serde`, in the order of their bytes whichever merge came first
        "| tokio | 1.38 | rt-multi |\n| serde | 1.0 | derive |\n| anyhow | 1.0 |\n| clap | 4.5 |\n"
    ],
)

# --- (5) numbered lists ------------------------------------------------------------------

NB = (
    "---\nname: feedback_release_flow\ndescription: how releases go out\ntype: feedback\n---\n\n"
    "Release checklist:\n\n"
    "1. bump versions\n2. run the full suite\n3. tag the commit\n4. publish to crates.io\n"
)
case(
    "numbered: both insert a step at different places, each renumbering",
    F,
    NB,
    [
        NB.replace(
            "2. run the full suite\n3. tag the commit\n4. publish",
            "2. update CHANGELOG.md\n3. run the full suite\n4. tag the commit\n5. publish",
        ),
        NB.replace("4. publish to crates.io\n", "4. push the tag\n5. publish to crates.io\n"),
    ],
    [
        "1. bump versions\n2. update CHANGELOG.md\n3. run the full suite\n4. tag the commit\n"
        "5. push the tag\n6. publish to crates.io\n"
    ],
)
case(
    "numbered: a step inserted with renumbering, a later step reworded",
    F,
    NB,
    [
        NB.replace(
            "2. run the full suite\n3. tag the commit\n4. publish",
            "2. update CHANGELOG.md\n3. run the full suite\n4. tag the commit\n5. publish",
        ),
        NB.replace("3. tag the commit", "3. tag the release commit (signed)"),
    ],
    ["3. run the full suite\n4. tag the release commit (signed)\n5. publish to crates.io\n"],
)
case(
    "numbered: a child bullet under a step, the step above reworded",
    F,
    NB,
    [
        NB.replace(
            "2. run the full suite\n", "2. run the full suite\n   - with `--all-features`\n"
        ),
        NB.replace("1. bump versions", "1. bump versions in every Cargo.toml"),
    ],
    [
        "1. bump versions in every Cargo.toml\n2. run the full suite\n   - with `--all-features`\n3. tag"
    ],
)
case(
    "numbered: both append a last step",
    F,
    NB,
    [NB + "5. announce\n", NB + "5. close the milestone\n"],
    ["4. publish to crates.io\n5. ", "announce", "close the milestone", "6. "],
    ["5. announce\n5.", "5. close the milestone\n5."],
)
case(
    "numbered: three machines each insert a step",
    F,
    NB,
    [
        NB.replace(
            "2. run the full suite\n3. tag the commit\n4. publish",
            "2. update CHANGELOG.md\n3. run the full suite\n4. tag the commit\n5. publish",
        ),
        NB.replace("4. publish to crates.io\n", "4. push the tag\n5. publish to crates.io\n"),
        NB + "5. announce\n",
    ],
    [
        "1. bump versions\n2. update CHANGELOG.md\n3. run the full suite\n4. tag the commit\n"
        "5. push the tag\n6. publish to crates.io\n7. announce\n"
    ],
)

# --- (6) fences of other kinds -----------------------------------------------------------

FE = (
    "---\nname: crate-notes\ndescription: snippets\ntype: reference\n---\n\n"
    "Reset the cache:\n\n~~~sh\nredis-cli -n 2 FLUSHDB\nredis-cli -n 2 CONFIG SET maxmemory 2gb\n"
    "redis-cli -n 2 INFO memory\n~~~\n"
)
case(
    "tilde fence: the first and last lines edited on two sides",
    T,
    FE,
    [FE.replace("-n 2 FLUSHDB", "-n 3 FLUSHDB"), FE.replace("INFO memory", "INFO memory | head")],
    [
        "~~~sh\nredis-cli -n 3 FLUSHDB\nredis-cli -n 2 CONFIG SET maxmemory 2gb\nredis-cli -n 2 INFO memory | head\n~~~\n"
    ],
)
F4 = (
    "---\nname: crate-notes\ndescription: snippets\ntype: reference\n---\n\n"
    "PR template:\n\n````md\n## Summary\n```sh\ncargo nextest run\n```\n````\n\nKeep it short.\n"
)
case(
    "four-backtick fence: a line inside the inner fence edited, a sentence after it edited",
    T,
    F4,
    [
        F4.replace("cargo nextest run", "cargo nextest run --workspace"),
        F4.replace("Keep it short.", "Keep it short; link the issue."),
    ],
    ["```sh\ncargo nextest run --workspace\n```\n````\n\nKeep it short; link the issue.\n"],
)
IC = (
    "---\nname: crate-notes\ndescription: snippets\ntype: reference\n---\n\n"
    "Bench:\n\n    cargo bench -p core\n    critcmp main pr\n    open target/criterion\n\nDone.\n"
)
case(
    "indented code: two different lines edited on two sides",
    T,
    IC,
    [
        IC.replace("-p core", "-p core -- --save-baseline pr"),
        IC.replace("open target", "xdg-open target"),
    ],
    [
        "    cargo bench -p core -- --save-baseline pr\n    critcmp main pr\n    xdg-open target/criterion\n"
    ],
)

# --- (7) frontmatter ---------------------------------------------------------------------

FT = (
    "---\nname: feedback_release_flow\ndescription: how releases go out\ntype: feedback\n"
    "tags:\n  - release\n  - crates\nconfidence: 0.6\nupdated: 2026-11-20\n---\n\n"
    "Tag before publish; **Why:** crates.io rejects a re-publish.\n\n"
    "**How to apply:** run `cargo release` from a clean tree.\n"
)
case(
    "frontmatter: both sides add a tag to a block list",
    F,
    FT,
    [
        FT.replace("  - crates\n", "  - crates\n  - ci\n"),
        FT.replace("  - crates\n", "  - crates\n  - gotcha\n"),
    ],
    ["  - release\n  - crates\n", "  - ci\n", "  - gotcha\n", "confidence: 0.6\n"],
)
case(
    "frontmatter: three machines each add a tag",
    F,
    FT,
    [
        FT.replace("  - crates\n", "  - crates\n  - ci\n"),
        FT.replace("  - crates\n", "  - crates\n  - gotcha\n"),
        FT.replace("  - crates\n", "  - crates\n  - tooling\n"),
    ],
    ["  - ci\n", "  - gotcha\n", "  - tooling\n"],
)
case(
    "frontmatter: confidence raised with a body edit, updated bumped with another body edit",
    F,
    FT,
    [
        FT.replace("confidence: 0.6", "confidence: 0.9").replace("a re-publish", "any re-publish"),
        FT.replace("updated: 2026-11-20", "updated: 2026-11-27").replace(
            "from a clean tree", "from a clean tree on main"
        ),
    ],
    [
        "confidence: 0.9\n",
        "updated: 2026-11-27\n",
        "crates.io rejects any re-publish.",
        "from a clean tree on main.",
    ],
)
case(
    "frontmatter: both change the same word, the side with the higher confidence wins it",
    F,
    FT,
    [
        FT.replace("confidence: 0.6", "confidence: 0.9").replace(
            "`cargo release`", "`cargo release --execute`"
        ),
        FT.replace("`cargo release`", "`cargo publish`").replace("Tag before", "Always tag before"),
    ],
    ["confidence: 0.9\n", "`cargo release --execute`", "Always tag before publish"],
    ["cargo publish"],
)
case(
    "frontmatter: flow tags list, both add",
    F,
    FT.replace("tags:\n  - release\n  - crates\n", "tags: [release, crates]\n"),
    [
        FT.replace("tags:\n  - release\n  - crates\n", "tags: [release, crates, ci]\n"),
        FT.replace("tags:\n  - release\n  - crates\n", "tags: [release, crates, gotcha]\n"),
    ],
    ["release, crates, ", "ci", "gotcha"],
)

# --- (8) text: CRLF, CJK, emoji, long lines, a stray Latin-1 byte ----------------------------

CR = PB.replace("\n", "\r\n")
case(
    "CRLF topic: both add to different sections, one rewords a bullet",
    F,
    CR,
    [
        CR.replace("- tag before publish", "- tag (signed) before publish"),
        CR.replace("- Tuan: infra\r\n", "- Tuan: infra\r\n- Linh: docs\r\n"),
    ],
    ["- tag (signed) before publish\r\n", "- Tuan: infra\r\n- Linh: docs\r\n"],
    ["\r\r", "infra\n-"],
)
CJ = (
    "---\nname: user-profile\ndescription: 用户偏好\ntype: user\n---\n\n"
    "用户喜欢简短的回答，并且总是先写测试再写代码。部署之前需要确认分支。\n"
)
case(
    "CJK prose: two edits of one unspaced sentence, far apart",
    T,
    CJ,
    [CJ.replace("简短的回答", "非常简短的回答"), CJ.replace("确认分支", "确认目标分支")],
    ["用户喜欢非常简短的回答，并且总是先写测试再写代码。部署之前需要确认目标分支。\n"],
)
JA = (
    "---\nname: user-profile\ndescription: ユーザーの好み\ntype: user\n---\n\n"
    "- 返答は日本語で、コードのコメントは英語で書く。\n- PRは小さく分ける。\n"
)
case(
    "Japanese: a word inside one bullet edited, a bullet added",
    T,
    JA,
    [JA.replace("日本語で", "丁寧な日本語で"), JA + "- テストは `pytest -q` で実行する。\n"],
    ["- 返答は丁寧な日本語で、コードのコメントは英語で書く。\n- PRは小さく分ける。\n- テストは"],
)
EM = (
    "---\nname: notification-ux\ndescription: status glyphs\ntype: project\n---\n\n"
    "- ✅ receipts shipped on mobile\n- 🚧 provider-native blocks are Phase 2\n- ❌ no emoji in commit titles\n"
)
case(
    "emoji bullets: the glyph changed on one side, the words after it on the other",
    T,
    EM,
    [EM.replace("🚧 provider", "✅ provider"), EM.replace("are Phase 2", "are Phase 2 (Q1)")],
    ["- ✅ provider-native blocks are Phase 2 (Q1)\n"],
    ["🚧"],
)
LONG = " ".join(f"w{i:03d}" for i in range(400))
LL = "---\nname: crate-notes\ndescription: a long line\ntype: project\n---\n\n" + LONG + "\n"
case(
    "a 2000-character line: a word near its start and one near its end edited",
    T,
    LL,
    [LL.replace("w010", "W010"), LL.replace("w390", "W390")],
    ["w009 W010 w011", "w389 W390 w391"],
    ["w010 ", "w390 "],
)
LA = (
    "---\nname: crate-notes\ndescription: caf\xe9 notes\ntype: project\n---\n\n"
    "- the caf\xe9 wifi blocks port 22\n- use the VPN\n- coffee at 9\n"
)
case(
    "a Latin-1 byte: the first and last bullets edited on two sides",
    T,
    LA,
    [LA.replace("port 22", "port 22 and 443"), LA.replace("coffee at 9", "coffee at 10")],
    ["- the caf\xe9 wifi blocks port 22 and 443\n- use the VPN\n- coffee at 10\n"],
)

# --- (9) index hooks and three machines ---------------------------------------------------

SB = (
    "- [Verify the branch before diagnosing](verify-branch.md) — pin the tree before ANY code"
    " claim; the worktree you sit in feels like truth.\n"
    "- [seo webhookLogs TTL](seo-webhooklogs-ttl.md) — internal webhook-dedup ledger, 30-day TTL;"
    " log absence ≠ webhook never arrived.\n"
    '- [UTC cron offset](utc-cron-offset.md) — any "yesterday UTC" daily job must run after'
    " 00:00 UTC (07:00 Saigon), else it reports two local days ago.\n"
)
case(
    "index: a long hook edited at its start and its end on two sides",
    I,
    SB,
    [
        SB.replace("internal webhook-dedup ledger", "internal dedup ledger"),
        SB.replace("never arrived.", "never arrived (checked 07-28)."),
    ],
    ["— internal dedup ledger, 30-day TTL; log absence ≠ webhook never arrived (checked 07-28).\n"],
)
case(
    "index: three machines — a short bullet moved, an entry edited, another deleted",
    I,
    BX,
    [
        BX.replace("- use nightly\n", "").replace(
            "- flaky: net\n", "- flaky: net\n- use nightly\n"
        ),
        BX.replace("- snapshots in `tests/snap`", "- snapshots in `tests/snapshots`"),
        BX.replace("- board\n", ""),
    ],
    [
        "- snapshots in `tests/snapshots`\n- flaky: net\n- use nightly\n\n## Links\n- wiki\n",
    ],
    ["board", "first\n- use nightly"],
)
case(
    "index: three machines add entries to three sections",
    I,
    BX,
    [
        BX.replace("- use nightly\n", "- use nightly\n- mold linker\n"),
        BX.replace("- flaky: net\n", "- flaky: net\n- proptest seeds\n"),
        BX + "- ADR folder\n",
    ],
    [  # good since round 19: the bullet written after `use nightly` stands there (placement)
        "- use nightly\n- mold linker\n- [Release flow]",
        "- flaky: net\n- proptest seeds\n\n",
        "- board\n- ADR folder\n",
    ],
)


# the cases still not what a careful human writes (docs/history/merge.md, eleventh sweep): name -> why
OPEN: dict[str, str] = {
    "index: a short bullet moved, the same bullet reworded on the other side": "a duplicate",
    "index: a ### subsection moved under another ##, an entry inside it edited": "move lost",
    "table: three machines — a column on one, a row each on the other two": (
        "every row kept in every order, but two orders (the rows merged by lines first, or"
        " one of them with the column first): three replicas do not converge"
    ),
}


@pytest.mark.parametrize(
    "c", [c for c in CASES if c[0] not in OPEN], ids=[c[0] for c in CASES if c[0] not in OPEN]
)
def test_an_eleventh_sweep_merge_keeps_what_a_careful_human_keeps(c: Case) -> None:
    check(c)
    if c[0] in EITHER:
        text = merged(c).decode()
        assert any(a in text for a in EITHER[c[0]]), text


FMT = "---\nname: crate-notes\ndescription: versions we pin\ntype: project\n---\n\n"
NAMES = ["tokio", "serde", "clap", "rand", "anyhow", "rayon"]


@settings(max_examples=examples())
@given(st.data())
def test_a_column_added_with_rows_on_one_side_and_cells_edited_on_the_other_is_both(
    data: st.DataObject,
) -> None:
    """A table of versions; one side adds a `why` column (a cell in every row, maybe a new
    row and a row deleted), the other edits versions (and maybe adds a row of its own): every
    row once, the new column's cells and the edited versions both (before: with rows added or
    deleted next to the new column, the whole table went to one side; three replicas did not
    converge)."""
    n = data.draw(st.integers(2, 4))
    names = NAMES[:n]
    new_a = data.draw(st.booleans())
    new_b = data.draw(st.booleans())
    # a row deleted and one added on the same side reads as that row's first cell edited in
    # place (the laws hold; which a human meant, the bytes do not say): not both here
    gone = None if new_a else data.draw(st.none() | st.integers(0, n - 1))
    edited = data.draw(st.sets(st.integers(0, n - 1), min_size=1))

    def table(rows: list[str], why: bool) -> str:
        head = (
            "| crate | version | why |\n|---|---|---|\n"
            if why
            else "| crate | version |\n|---|---|\n"
        )
        return FMT + head + "".join(rows)

    def row(i: int, version: str, why: bool) -> str:
        return f"| {names[i]} | {version} |" + (f" r{i} |" if why else "") + "\n"

    base = table([row(i, "1.0", False) for i in range(n)], False)
    a = table(
        [row(i, "1.0", True) for i in range(n) if i != gone]
        + (["| rayon | 1.10 | par |\n"] if new_a else []),
        True,
    )
    b = table(
        [row(i, "2.0" if i in edited else "1.0", False) for i in range(n)]
        + (["| anyhow | 1.0 |\n"] if new_b and n < 5 else []),
        False,
    )
    out = merged(("table", T, base, [a, b], [], [])).decode()
    assert out.count("| crate | version | why |\n|---|---|---|\n") == 1, out
    for i in range(n):
        if i == gone:
            continue  # deleted on one side, its version edited on the other: either stands
        assert row(i, "2.0" if i in edited else "1.0", True) in out, out
    if new_a:
        assert "| rayon | 1.10 | par |\n" in out, out
    if new_b and n < 5:
        assert "| anyhow | 1.0 |" in out, out


@pytest.mark.parametrize(
    "c", [c for c in CASES if c[0] in OPEN], ids=[c[0] for c in CASES if c[0] in OPEN]
)
def test_an_open_eleventh_sweep_case_still_holds_the_laws(c: Case) -> None:
    """The cases still open (docs/history/merge.md, eleventh sweep): not what a careful human
    writes, but symmetric and idempotent (`merged` checks both; the table case open for
    convergence: every row in every order) and with no marker."""
    _, path, base, sides, _, _ = c
    z, ss = encoded(base), [encoded(x) for x in sides]
    if len(ss) == 2:
        outs = {merged(c)}
    else:  # a case open for convergence: every order keeps every side's new lines
        outs = {
            _merge(path, z, _merge(path, z, ss[i], ss[j]), ss[k])
            for i, j, k in itertools.permutations(range(3))
        }
    for out in outs:
        text = out.decode()
        assert "<<<<<<<" not in text
        for x in sides:
            for line in x.splitlines():
                if line.startswith("| ") and line not in base:
                    assert line.split(" |")[0] in text, (line, text)


def test_the_eleventh_sweep_open_cases_are_counted() -> None:
    """Three open of 47 (docs/merge.md): the count only goes down."""
    assert len(CASES) == 47 and len(OPEN) <= 3


SUBS = {"Caching": ["redis TTL 30 days", "keys prefixed seo"], "Queues": ["bullmq retries 3"]}


@settings(max_examples=examples())
@given(st.data())
def test_a_subsection_moved_and_retitled_on_any_sides_is_one_section(data: st.DataObject) -> None:
    """A `###` subsection moved under the other `##` on one side; its title edited on that
    side, the other or both alike; a bullet of it edited (or one appended) on the other: the
    subsection once, under its new parent, with the new title and the edit (before: the new
    title stood empty at the old place, or the section twice once merged again)."""
    name = data.draw(st.sampled_from(sorted(SUBS)))
    who = data.draw(st.sampled_from(["mover", "editor", "both"]))
    append = data.draw(st.booleans())
    k = data.draw(st.integers(0, len(SUBS[name]) - 1))

    def sub(title: str, bullets: list[str]) -> str:
        return f"### {title}\n\n" + "".join(f"- {x}\n" for x in bullets) + "\n"

    def doc(moved: bool, title: str, bullets: list[str]) -> str:
        here = sub(title, bullets)
        rest = "".join(sub(t, b) for t, b in SUBS.items() if t != name)
        back = "## Backend\n\n" + ("" if moved else here) + rest
        front = "## Frontend\n\n" + sub("Build", ["vite 5"]) + (here if moved else "")
        return (FMT + back + front).rstrip("\n") + "\n"

    new = f"{name} (prod)"
    edited = [x + " (checked)" if i == k else x for i, x in enumerate(SUBS[name])]
    edited += ["evict allkeys-lru"] if append else []
    mover = doc(True, new if who != "editor" else name, SUBS[name])
    editor = doc(False, new if who != "mover" else name, edited)
    out = merged(("sub", T, doc(False, name, SUBS[name]), [mover, editor], [], [])).decode()
    assert out == doc(True, new, edited), out
