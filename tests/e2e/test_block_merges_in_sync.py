"""Topic files edited on several machines merge on their Markdown structure during `gitmem
sync` (issue 24): each machine's edit survives where a careful human would keep it, and every
replica ends with the same bytes."""

from __future__ import annotations

from tests.support.world import World, folder_bytes

HEAD = "---\nname: release\ndescription: how we release\ntype: project\n---\n"
BODY = (
    "Release steps.\n\n```sh\nmake test\nbump-version.sh patch\n```\n\n"
    "1. clone\n2. install\n3. run tests\n\n| tool | version |\n|:--|--:|\n| ruff | 0.4 |\n\n"
    "## 2026-11-19\n\nfirst release\n"
)


def test_three_machines_edit_one_topic_file_and_converge_on_every_edit(world: World) -> None:
    a, b, c = world.clone("a"), world.clone("b"), world.clone("c")
    da, db, dc = (world.scope_path(x) for x in (a, b, c))
    da.mkdir(parents=True)
    (da / "MEMORY.md").write_text("# Memory\n- [Release](release.md) — how we release\n")
    (da / "release.md").write_text(HEAD + BODY)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(c), "sync")
    (da / "release.md").write_text(
        HEAD
        + BODY.replace("make test\n", "make test lint\n").replace(
            "1. clone\n2. install\n3. run tests", "1. clone\n2. configure\n3. install\n4. run tests"
        )
        + "\n## 2026-11-21\n\nfrom a\n"
    )
    (db / "release.md").write_text(
        HEAD
        + BODY.replace("patch", "minor").replace("3. run tests", "3. run all tests")
        + "\n## 2026-11-20\n\nfrom b\n"
    )
    (dc / "release.md").write_text(
        HEAD + BODY.replace("| 0.4 |", "| 0.5 |") + "\n## 2026-11-22\n\nfrom c\n"
    )
    for clone in (a, b, c, a, b):
        world.ok("-C", str(clone), "sync")
    assert folder_bytes(da) == folder_bytes(db) == folder_bytes(dc)
    text = (da / "release.md").read_text()
    assert "make test lint\nbump-version.sh minor\n" in text  # neighbouring code lines
    assert "1. clone\n2. configure\n3. install\n4. run all tests\n" in text  # step + edit
    assert "| ruff | 0.5 |" in text
    days = [text.index(f"## 2026-11-{d}") for d in (19, 20, 21, 22)]
    assert days == sorted(days)  # the log keeps time order


def _entry(title: str) -> str:
    return f"- [{title}]({title.lower()}.md) — about {title.lower()}\n"


def test_three_machines_add_to_a_sorted_index_and_it_stays_sorted(world: World) -> None:
    """A sorted index and a dated log in MEMORY.md: each machine's new line goes to its
    sorted place (not the end of the section), and every replica ends with the same bytes."""
    a, b, c = world.clone("a"), world.clone("b"), world.clone("c")
    da, db, dc = (world.scope_path(x) for x in (a, b, c))
    da.mkdir(parents=True)
    topics = "".join(_entry(t) for t in ("Alpha", "Delta", "Kilo", "Zulu"))
    log = "- 2026-11-18 set up CI\n- 2026-11-19 first release\n- 2026-11-23 moved to uv\n"
    base = f"# Memory\n\n## Topics\n{topics}\n## Log\n{log}"
    (da / "MEMORY.md").write_text(base)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(c), "sync")
    news = {
        da: (_entry("Bravo"), "- 2026-11-24 from a\n"),
        db: (_entry("Mike"), "- 2026-11-20 from b\n"),
        dc: (_entry("Echo"), "- 2026-11-19 also from c\n"),
    }
    for folder, (topic, line) in news.items():
        (folder / "MEMORY.md").write_text(base.replace("\n## Log", f"{topic}\n## Log") + line)
    for clone in (a, b, c, a, b):
        world.ok("-C", str(clone), "sync")
    assert folder_bytes(da) == folder_bytes(db) == folder_bytes(dc)
    titles = ("Alpha", "Bravo", "Delta", "Echo", "Kilo", "Mike", "Zulu")
    days = ("18 set up CI", "19 first release", "19 also from c", "20 from b", "23 moved to uv")
    want = "".join(_entry(t) for t in titles) + "\n## Log\n"
    want += "".join(f"- 2026-11-{d}\n" for d in days) + "- 2026-11-24 from a\n"
    assert (da / "MEMORY.md").read_text() == f"# Memory\n\n## Topics\n{want}"


NOTES = (
    "# Notes\n\n## Build\n\n```sh\nmake all\nmake test\n```\n\n"
    "## Deploy\n\n- ssh prod\n- restart\n- check logs\n\n## Test\n\npytest -x\n"
)
MOVED = (
    "# Notes\n\n## Test\n\npytest -x\n\n## Build\n\n```sh\nmake all\nmake test\n```\n\n"
    "## Deploy\n\n- check logs\n- ssh prod\n- restart\n"
)


def test_moves_edits_and_a_line_next_to_an_edit_from_three_machines_all_stand(
    world: World,
) -> None:
    """One machine moves a section and a bullet, another edits both and a code line, a third
    inserts a line right after that code line: moved AND edited, both code lines, every
    replica the same bytes (before: the edited section and bullet stood twice, and one of the
    two code lines was lost to a winner)."""
    a, b, c = world.clone("a"), world.clone("b"), world.clone("c")
    da, db, dc = (world.scope_path(x) for x in (a, b, c))
    da.mkdir(parents=True)
    (da / "MEMORY.md").write_text("# Memory\n- [Notes](notes.md) — how we release\n")
    (da / "notes.md").write_text(HEAD + NOTES)
    for clone in (a, b, c):
        world.ok("-C", str(clone), "sync")
    (da / "notes.md").write_text(HEAD + MOVED)
    (db / "notes.md").write_text(
        HEAD
        + NOTES.replace("pytest -x", "pytest -x -q")
        .replace("- check logs", "- check logs for errors")
        .replace("make test\n", "make test -j8\n")
    )
    (dc / "notes.md").write_text(HEAD + NOTES.replace("make test\n", "make test\nmake lint\n"))
    for clone in (a, b, c, a, b):
        world.ok("-C", str(clone), "sync")
    assert folder_bytes(da) == folder_bytes(db) == folder_bytes(dc)
    text = (da / "notes.md").read_text()
    assert text == HEAD + (
        "# Notes\n\n## Test\n\npytest -x -q\n\n## Build\n\n```sh\nmake all\nmake test -j8\n"
        "make lint\n```\n\n## Deploy\n\n- check logs for errors\n- ssh prod\n- restart\n"
    )


EVERYDAY = (
    "# Release\n\n## Build\n\n- compile\n  - run make with ccache\n  - cross-compile for arm\n"
    "  - strip the binaries afterwards\n\n### Flags\n\nuse -j8 on the laptop\n\n## Steps\n\n"
    "1. clone the repo\n2. install the deps\n3. run the tests\n4. push the tag\n\n"
    "## Old\n\nobsolete notes about the old CI server\n"
)
REORGANIZED = (  # a nested item, a step and a sub-section moved; a section deleted
    EVERYDAY.replace(
        "  - run make with ccache\n  - cross-compile for arm\n  - strip the binaries afterwards\n",
        "  - strip the binaries afterwards\n  - run make with ccache\n  - cross-compile for arm\n",
    )
    .replace("### Flags\n\nuse -j8 on the laptop\n\n", "")
    .replace("2. install the deps\n3. run the tests\n", "2. run the tests\n3. install the deps\n")
    .replace(
        "4. push the tag\n\n## Old\n\nobsolete notes about the old CI server\n",
        "4. push the tag\n\n### Flags\n\nuse -j8 on the laptop\n",
    )
)
REWORDED = (  # the moved ones and the deleted section edited
    EVERYDAY.replace("afterwards", "afterwards (upx too)")
    .replace("-j8 on", "-j16 on")
    .replace("install the deps", "install the python deps")
    .replace("CI server", "CI server (still used by the nightly job)")
)
ELSEWHERE = EVERYDAY.replace("with ccache", "with ccache -j8").replace(
    "clone the repo", "clone the repo with --depth 1"
)
EVERYDAY_MERGED = (
    "# Release\n\n## Build\n\n- compile\n  - strip the binaries afterwards (upx too)\n"
    "  - run make with ccache -j8\n  - cross-compile for arm\n\n## Steps\n\n"
    "1. clone the repo with --depth 1\n2. run the tests\n3. install the python deps\n"
    "4. push the tag\n\n### Flags\n\nuse -j16 on the laptop\n\n"
    "## Old\n\nobsolete notes about the old CI server (still used by the nightly job)\n"
)


def test_moved_nested_items_steps_and_subsections_edited_elsewhere_from_three_machines(
    world: World,
) -> None:
    """One machine moves a nested item, a numbered step and a sub-section (to another
    section) and deletes a section; another edits each of them; a third edits elsewhere:
    moved AND edited, each once, the deleted section back with its heading (the edit undid
    the deletion) and its deleter told so, every replica the same bytes (before: the moved
    ones stood twice, once moved and once edited, and the edit stood without its heading)."""
    a, b, c = world.clone("a"), world.clone("b"), world.clone("c")
    da, db, dc = (world.scope_path(x) for x in (a, b, c))
    da.mkdir(parents=True)
    (da / "MEMORY.md").write_text("# Memory\n- [Release](release.md) — how we release\n")
    (da / "release.md").write_text(HEAD + EVERYDAY)
    for clone in (a, b, c):
        world.ok("-C", str(clone), "sync")
    (da / "release.md").write_text(HEAD + REORGANIZED)
    (db / "release.md").write_text(HEAD + REWORDED)
    (dc / "release.md").write_text(HEAD + ELSEWHERE)
    said = [world.ok("-C", str(clone), "sync") for clone in (b, c, a, b, c)]
    assert folder_bytes(da) == folder_bytes(db) == folder_bytes(dc)
    assert (da / "release.md").read_text() == HEAD + EVERYDAY_MERGED
    kept = [ln for out in said for ln in out.splitlines() if ln.strip().startswith("kept:")]
    assert len(kept) == 1 and "release.md (lines" in kept[0], said
    assert "deleted here, edited by" in kept[0] and "the edit is kept" in kept[0], kept


TOOLS_HEAD = "---\nname: tools\ndescription: our tools\ntype: project\nconfidence: 0.5\n---\n"
TOOLS = (
    "# Tools\n\n记忆 是 团队 的 共同 财富 🎉 we keep it short.\n\n- lint\n  - ruff check\n"
    "  - ruff format\n- types\n  - mypy --strict\n\n| tool | version |\n|:--|--:|\n"
    "| ruff | 0.4 |\n| mypy | 1.9 |\n\n````md\n```sh\nmake lint\n```\n````\n\n"
    "~~~\nexport A=1\nexport B=2\n~~~\n"
)


def test_two_machines_edit_a_crlf_topic_file_everywhere_and_keep_every_edit(
    world: World,
) -> None:
    """A CRLF topic file: one machine raises `confidence:` and edits a CJK word, a nested
    item, a cell and a line of a `~~~` fence; the other an emoji, a new nested item, another
    row's cell, a line inside a four-backtick fence and the `~~~` fence's other line. Every
    edit stands, CRLF kept, the same bytes on both (before the finer merge, the more
    confident side won every hunk next to the other's edits)."""
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a), world.scope_path(b)
    da.mkdir(parents=True)
    (da / "MEMORY.md").write_text("# Memory\n- [Tools](tools.md) — our tools\n")

    def crlf(text: str) -> bytes:
        return text.replace("\n", "\r\n").encode()

    (da / "tools.md").write_bytes(crlf(TOOLS_HEAD + TOOLS))
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    (da / "tools.md").write_bytes(
        crlf(
            TOOLS_HEAD.replace("0.5", "0.8")
            + TOOLS.replace("共同", "共同的")
            .replace("  - ruff format\n", "  - ruff format --check\n")
            .replace("| ruff | 0.4 |", "| ruff | 0.5 |")
            .replace("export A=1", "export A=10")
        )
    )
    (db / "tools.md").write_bytes(
        crlf(
            TOOLS_HEAD
            + TOOLS.replace("🎉", "🚀")
            .replace("  - mypy --strict\n", "  - mypy --strict\n  - pyright\n")
            .replace("| mypy | 1.9 |", "| mypy | 1.10 |")
            .replace("make lint", "make lint test")
            .replace("export B=2", "export B=20")
        )
    )
    for clone in (a, b, a):
        world.ok("-C", str(clone), "sync")
    assert folder_bytes(da) == folder_bytes(db)
    assert (da / "tools.md").read_bytes() == crlf(
        TOOLS_HEAD.replace("0.5", "0.8")
        + TOOLS.replace("共同", "共同的")
        .replace("🎉", "🚀")
        .replace("  - ruff format\n", "  - ruff format --check\n")
        .replace("  - mypy --strict\n", "  - mypy --strict\n  - pyright\n")
        .replace("| ruff | 0.4 |", "| ruff | 0.5 |")
        .replace("| mypy | 1.9 |", "| mypy | 1.10 |")
        .replace("make lint", "make lint test")
        .replace("export A=1", "export A=10")
        .replace("export B=2", "export B=20")
    )
