"""Concurrent edits of the same memory merge semantically during sync, and say how."""

from __future__ import annotations

from tests.support.world import World, folder_bytes

TOPIC = "---\nname: {n}\ndescription: d\ntype: project\nmodified: {m}\n---\n{body}\n"


def test_same_entry_edited_on_both_sides_newer_topic_wins_and_log_says_so(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a), world.scope_path(b)
    da.mkdir(parents=True)
    (da / "MEMORY.md").write_text("# Memory\n- [API](api.md) — the API\n- [DB](db.md) — the DB\n")
    (da / "api.md").write_text(TOPIC.format(n="api", m="2026-01-01T00:00:00Z", body="v1"))
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    (da / "MEMORY.md").write_text(
        "# Memory\n- [API](api.md) — the API, per A\n- [DB](db.md) — the DB\n"
    )
    (da / "api.md").write_text(TOPIC.format(n="api", m="2026-02-01T00:00:00Z", body="v1"))
    (db / "MEMORY.md").write_text(
        "# Memory\n- [API](api.md) — the API, per B\n- [DB](db.md) — the DB\n"
    )
    (db / "api.md").write_text(TOPIC.format(n="api", m="2026-03-01T00:00:00+02:00", body="v1"))
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "sync")
    assert folder_bytes(da) == folder_bytes(db)
    index = (da / "MEMORY.md").read_text()
    assert "per B" in index and "per A" not in index and index.count("(api.md)") == 1
    assert "<<<<<<<" not in index
    log = world.ok("-C", str(b), "log")
    assert "resolved" in log and "api.md" in log


def test_union_over_the_cap_moves_overflow_to_the_archive(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a), world.scope_path(b)
    da.mkdir(parents=True)
    (da / "MEMORY.md").write_text("# Memory\n")
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    (da / "MEMORY.md").write_text(
        "# Memory\n" + "".join(f"- [A{i}](a{i}.md) — a\n" for i in range(150))
    )
    (db / "MEMORY.md").write_text(
        "# Memory\n" + "".join(f"- [B{i}](b{i}.md) — b\n" for i in range(150))
    )
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "sync")
    assert folder_bytes(da) == folder_bytes(db)
    index = (da / "MEMORY.md").read_text()
    archive = (da / "MEMORY-archive.md").read_text()
    assert len(index.splitlines()) <= 200
    assert "MEMORY-archive.md" in index
    for i in range(150):
        assert f"(a{i}.md)" in index + archive and f"(b{i}.md)" in index + archive


def test_the_losing_machine_is_told_and_log_shows_both_sides(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a), world.scope_path(b)
    da.mkdir(parents=True)
    (da / "MEMORY.md").write_text("# Memory\n- [API](api.md) — the API\n")
    (da / "api.md").write_text(TOPIC.format(n="api", m="2026-01-01T00:00:00Z", body="v1"))
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    (da / "api.md").write_text(TOPIC.format(n="api", m="2026-02-01T00:00:00Z", body="per A"))
    (db / "api.md").write_text(TOPIC.format(n="api", m="2026-03-01T00:00:00Z", body="per B"))
    world.ok("-C", str(a), "sync")
    out_b = world.ok("-C", str(b), "sync")  # B merges; B's edit is newer and wins
    assert "lost:" not in out_b
    out_a = world.ok("-C", str(a), "sync")  # A pulls the merge that resolved against it
    lost = [ln for ln in out_a.splitlines() if "lost:" in ln]
    assert len(lost) == 1, out_a
    assert "auto/api.md" in lost[0] and "(newer)" in lost[0]
    assert "gitmem restore --lost 1" in lost[0]
    assert "per B" in (da / "api.md").read_text()
    log = world.ok("-C", str(a), "log", "auto/api.md")
    assert log.count("resolved") >= 1  # the merge with its trailer
    assert len([ln for ln in log.splitlines() if ln and not ln.startswith(" ")]) >= 4, log


def test_restore_of_a_deleted_topic_brings_its_index_line_back(world: World) -> None:
    a = world.clone("a")
    da = world.scope_path(a)
    da.mkdir(parents=True)
    line = "- [API](api.md) — the API"
    (da / "MEMORY.md").write_text(f"# Memory\n{line}\n- [DB](db.md) — the DB\n")
    (da / "api.md").write_text(TOPIC.format(n="api", m="2026-01-01T00:00:00Z", body="v1"))
    world.ok("-C", str(a), "sync")
    (da / "api.md").unlink()
    (da / "MEMORY.md").write_text("# Memory\n- [DB](db.md) — the DB\n")
    world.ok("-C", str(a), "sync")
    out = world.ok("-C", str(a), "restore", "auto/api.md")
    assert "MEMORY.md" in out
    assert (da / "api.md").read_text().endswith("v1\n")
    assert (da / "MEMORY.md").read_text() == f"# Memory\n{line}\n- [DB](db.md) — the DB\n"
    world.ok("-C", str(a), "restore", "auto/api.md")  # again: nothing doubled
    assert (da / "MEMORY.md").read_text().count("(api.md)") == 1


def test_two_clones_edit_one_entry_in_different_lines_both_edits_survive(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a), world.scope_path(b)
    da.mkdir(parents=True)
    hook = "- [Build](build.md) — run `make -j8` before the tests"
    (da / "MEMORY.md").write_text(f"# Memory\n{hook}\n- [DB](db.md) — the DB\n")
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    (da / "MEMORY.md").write_text(
        f"# Memory\n{hook.replace('-j8', '-j16')}\n- [DB](db.md) — the DB\n"
    )
    (db / "MEMORY.md").write_text(
        f"# Memory\n{hook}\n  - also `make lint`\n- [DB](db.md) — the DB\n"
    )
    world.ok("-C", str(a), "sync")
    out = world.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "sync")
    expected = (
        f"# Memory\n{hook.replace('-j8', '-j16')}\n  - also `make lint`\n- [DB](db.md) — the DB\n"
    )
    assert (da / "MEMORY.md").read_text() == (db / "MEMORY.md").read_text() == expected
    assert "lost:" not in out


def test_two_clones_edit_a_paragraph_it_stays_in_place_with_both_edits(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a), world.scope_path(b)
    da.mkdir(parents=True)
    base = (
        "<!-- team memory: keep entries short -->\n# Memory\n\nThese are the build notes:\n"
        "one line per step,\nread them before a release.\n\n- [A](a.md) — a\n- [B](b.md) — b\n"
    )
    (da / "MEMORY.md").write_text(base)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    (da / "MEMORY.md").write_text(base.replace("short", "short and linked").replace(":", ", new:"))
    (db / "MEMORY.md").write_text(base.replace("a release", "any release") + "- [C](c.md) — c\n")
    world.ok("-C", str(a), "sync")
    out = world.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "sync")
    expected = (
        base.replace("short", "short and linked").replace(":", ", new:").replace("a rel", "any rel")
        + "- [C](c.md) — c\n"
    )
    assert (da / "MEMORY.md").read_text() == (db / "MEMORY.md").read_text() == expected
    assert "lost:" not in out


def test_two_clones_keep_the_same_plain_bullet_in_two_sections(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a), world.scope_path(b)
    da.mkdir(parents=True)
    base = "# Memory\n\n## Build\n- Run tests with -x\n\n## Testing\n- keep it short\n"
    (da / "MEMORY.md").write_text(base)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    (da / "MEMORY.md").write_text(base + "- Run tests with -x\n")
    (db / "MEMORY.md").write_text(base.replace("with -x\n", "with -x\n- lint first\n"))
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "sync")
    expected = base.replace("with -x\n", "with -x\n- lint first\n") + "- Run tests with -x\n"
    assert (da / "MEMORY.md").read_text() == (db / "MEMORY.md").read_text() == expected


def test_three_clones_keep_a_regrouping_under_new_headings(world: World) -> None:
    """A regroups the index under new headings, B appends an entry, C edits one: every clone
    ends with A's groups, C's edit inside them and B's entry in no group (under the title,
    where B filed it), the same bytes everywhere; nothing reported as not kept."""
    a, b, c = world.clone("a"), world.clone("b"), world.clone("c")
    da, db, dc = world.scope_path(a), world.scope_path(b), world.scope_path(c)
    da.mkdir(parents=True)
    flat = "# Memory\n\n- [A](a.md) — a\n- [B](b.md) — b\n- [C](c.md) — c\n"
    (da / "MEMORY.md").write_text(flat)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(c), "sync")
    regrouped = flat.replace("- [A]", "## Setup\n\n- [A]").replace("- [C]", "\n## Ship\n\n- [C]")
    (da / "MEMORY.md").write_text(regrouped)
    (db / "MEMORY.md").write_text(flat + "- [D](d.md) — d\n")
    (dc / "MEMORY.md").write_text(flat.replace("— b\n", "— b, edited\n"))
    outs = [world.ok("-C", str(x), "sync") for x in (a, b, c, a, b)]
    expected = regrouped.replace("— b\n", "— b, edited\n").replace(
        "# Memory\n", "# Memory\n- [D](d.md) — d\n", 1
    )
    assert (da / "MEMORY.md").read_text() == expected
    assert folder_bytes(da) == folder_bytes(db) == folder_bytes(dc)
    assert not any("not kept" in out for out in outs), outs


def test_three_clones_edit_plain_bullets_in_place(world: World) -> None:
    """A claude-flow-style index of plain bullets: A edits one (`-j8` → `-j16`), B writes a
    sub-bullet under it, C edits another and appends one. Every clone ends with one bullet
    holding A's edit and B's sub-bullet where it was, C's edit in place, the same bytes."""
    a, b, c = world.clone("a"), world.clone("b"), world.clone("c")
    da, db, dc = world.scope_path(a), world.scope_path(b), world.scope_path(c)
    da.mkdir(parents=True)
    base = (
        "# Memory\n\n## Build\n- Use make -j8 for every build\n- Run tests with pytest -x\n"
        "- Lint with ruff before pushing\n"
    )
    (da / "MEMORY.md").write_text(base)
    for x in (a, b, c):
        world.ok("-C", str(x), "sync")
    (da / "MEMORY.md").write_text(base.replace("-j8", "-j16"))
    (db / "MEMORY.md").write_text(base.replace("every build\n", "every build\n  - CI uses -j4\n"))
    edited = base.replace("pytest -x", "pytest -x -q")
    (dc / "MEMORY.md").write_text(edited + "- Release from main only\n")
    for x in (a, b, c, a, b):
        world.ok("-C", str(x), "sync")
    expected = (
        edited.replace("-j8", "-j16").replace("every build\n", "every build\n  - CI uses -j4\n")
        + "- Release from main only\n"
    )
    assert (da / "MEMORY.md").read_text() == expected
    assert folder_bytes(da) == folder_bytes(db) == folder_bytes(dc)


SECTIONS = (
    "# Memory\n\n## Build\n\n- [Make](make.md) — make\n  - use ccache\n- [Lint](lint.md) — lint\n"
    "  - ruff only\n\n## Test\n\n- [Py](py.md) — pytest\n"
)


def test_restore_puts_the_index_line_back_in_its_section(world: World) -> None:
    """Not at the end of the index, under another heading: after the entry it followed."""
    a = world.clone("a")
    da = world.scope_path(a)
    da.mkdir(parents=True)
    (da / "MEMORY.md").write_text(SECTIONS)
    for name in ("make", "lint", "py"):
        (da / f"{name}.md").write_text(TOPIC.format(n=name, m="2026-01-01T00:00:00Z", body="v1"))
    world.ok("-C", str(a), "sync")
    (da / "lint.md").unlink()
    (da / "MEMORY.md").write_text(SECTIONS.replace("- [Lint](lint.md) — lint\n  - ruff only\n", ""))
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(a), "restore", "auto/lint.md")
    assert (da / "MEMORY.md").read_text() == SECTIONS


def test_three_clones_edit_different_words_of_one_hook_all_kept(world: World) -> None:
    """Issue 24: a hook is merged word by word, as a topic file's prose: A `-j8` → `-j16`,
    B `every branch` → `main`, C edits another entry; every clone ends with both words."""
    a, b, c = world.clone("a"), world.clone("b"), world.clone("c")
    da, db, dc = world.scope_path(a), world.scope_path(b), world.scope_path(c)
    da.mkdir(parents=True)
    hook = "- [Build](build.md) — run `make -j8` before the tests on every branch"
    base = f"# Memory\n{hook}\n- [DB](db.md) — the DB\n"
    (da / "MEMORY.md").write_text(base)
    for x in (a, b, c):
        world.ok("-C", str(x), "sync")
    (da / "MEMORY.md").write_text(base.replace("-j8", "-j16"))
    (db / "MEMORY.md").write_text(base.replace("every branch", "main"))
    (dc / "MEMORY.md").write_text(base.replace("the DB", "the database"))
    outs = [world.ok("-C", str(x), "sync") for x in (a, b, c, a, b)]
    expected = (
        base.replace("-j8", "-j16")
        .replace("every branch", "main")
        .replace("the DB", "the database")
    )
    assert (da / "MEMORY.md").read_text() == expected
    assert folder_bytes(da) == folder_bytes(db) == folder_bytes(dc)
    assert not any("lost:" in out for out in outs)


def test_three_clones_keep_a_retitled_section_of_plain_bullets_whole(world: World) -> None:
    """Issue 24: A retitles `## Build` (plain bullets only: each is keyed by its section, so
    no item follows the heading on both sides), B deletes a bullet of it, C files a new one
    under it. Every clone ends with one section under the new title, B's deletion honoured
    and C's bullet kept (before: the retitle read as a new section, and B's bullet came back
    under it), the same bytes everywhere."""
    a, b, c = world.clone("a"), world.clone("b"), world.clone("c")
    da, db, dc = world.scope_path(a), world.scope_path(b), world.scope_path(c)
    da.mkdir(parents=True)
    base = (
        "# Memory\n\n## Build\n- Use make -j8 for every build\n- Run tests with pytest -x\n\n"
        "## Notes\n- [Deploy](deploy.md) — how we ship\n"
    )
    (da / "MEMORY.md").write_text(base)
    for x in (a, b, c):
        world.ok("-C", str(x), "sync")
    (da / "MEMORY.md").write_text(base.replace("## Build", "## Building"))
    (db / "MEMORY.md").write_text(base.replace("- Run tests with pytest -x\n", ""))
    (dc / "MEMORY.md").write_text(base.replace("pytest -x\n", "pytest -x\n- Lint first\n"))
    for x in (b, c, a, b, c):
        world.ok("-C", str(x), "sync")
    expected = base.replace("## Build", "## Building").replace("pytest -x\n", "Lint first\n")
    expected = expected.replace("- Run tests with Lint", "- Lint")
    assert (da / "MEMORY.md").read_text() == expected
    assert folder_bytes(da) == folder_bytes(db) == folder_bytes(dc)


TOPS = (
    "# Memory\n\n## Topics\n\n- [Zeta](zeta.md) — z\n- [Alpha](alpha.md) — a\n- [Mid](mid.md) — m\n"
)


def test_two_clones_keep_an_entry_written_on_top_of_a_section_on_top(world: World) -> None:
    """Issue 24: A writes an entry at the head of `## Topics`, B appends one and edits the
    first: the new entry stays at the head (before: at the end), the blank line under the
    heading stays under it, the same bytes on both clones."""
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a), world.scope_path(b)
    da.mkdir(parents=True)
    (da / "MEMORY.md").write_text(TOPS)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    (da / "MEMORY.md").write_text(TOPS.replace("\n\n- [Zeta]", "\n\n- [New](new.md) — n\n- [Zeta]"))
    (db / "MEMORY.md").write_text(
        TOPS.replace("— z\n", "— z, edited\n") + "- [Tail](tail.md) — t\n"
    )
    for x in (a, b, a):
        world.ok("-C", str(x), "sync")
    # each entry keeps the blank line it was written with (the placement only orders, so
    # every merge order measures the same against the caps: docs/merge.md), and the edited
    # entry brings the base's blank line under the new one
    expected = (
        TOPS.replace("\n\n- [Zeta]", "\n\n- [New](new.md) — n\n\n- [Zeta]").replace(
            "— z\n", "— z, edited\n"
        )
        + "- [Tail](tail.md) — t\n"
    )
    assert (da / "MEMORY.md").read_text() == (db / "MEMORY.md").read_text() == expected


def test_three_clones_writing_on_top_of_one_section_agree(world: World) -> None:
    a, b, c = world.clone("a"), world.clone("b"), world.clone("c")
    da, db, dc = world.scope_path(a), world.scope_path(b), world.scope_path(c)
    da.mkdir(parents=True)
    (da / "MEMORY.md").write_text(TOPS)
    for x in (a, b, c):
        world.ok("-C", str(x), "sync")
    for d, name in ((da, "Kilo"), (db, "Bravo"), (dc, "Echo")):
        line = f"- [{name}]({name.lower()}.md) — {name[0].lower()}\n"
        (d / "MEMORY.md").write_text(TOPS.replace("\n\n- [Zeta]", f"\n\n{line}- [Zeta]"))
    for x in (b, c, a, b, c):
        world.ok("-C", str(x), "sync")
    # the blank line each on-top entry was written with stays its own (docs/merge.md)
    new = "- [Bravo](bravo.md) — b\n\n- [Echo](echo.md) — e\n\n- [Kilo](kilo.md) — k\n"
    assert (da / "MEMORY.md").read_text() == TOPS.replace("\n\n- [Zeta]", f"\n\n{new}- [Zeta]")
    assert folder_bytes(da) == folder_bytes(db) == folder_bytes(dc)
