"""`gitmem drivers install|uninstall|status`: opt-in, idempotent, reversible, and what git uses."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gitmem.project.mergedrivers import command_risk, driver_command
from tests.support.world import World

MEM = ".claude/agent-memory/reviewer"


def branchy_repo(world: World) -> Path:
    r = world.root / "repo"
    world.git("init", "-q", str(r))
    (r / MEM).mkdir(parents=True)
    (r / MEM / "MEMORY.md").write_text("# Memory\n- [A](a.md) — a\n")
    world.git("add", "-A", cwd=r)
    world.git("commit", "-qm", "base", cwd=r)
    world.git("checkout", "-qb", "left", cwd=r)
    (r / MEM / "MEMORY.md").write_text("# Memory\n- [A](a.md) — a\n- [L](l.md) — left\n")
    world.git("commit", "-qam", "left", cwd=r)
    world.git("checkout", "-q", "main", cwd=r)
    (r / MEM / "MEMORY.md").write_text("# Memory\n- [A](a.md) — a\n- [M](m.md) — main\n")
    world.git("commit", "-qam", "main", cwd=r)
    return r


def test_merge_conflicts_without_drivers_and_merges_with_them(world: World) -> None:
    r = branchy_repo(world)
    world.git("merge", "-q", "--no-edit", "left", cwd=r, check=False)
    assert "UU" in world.git("status", "--porcelain", cwd=r), "without drivers git conflicts"
    world.git("merge", "--abort", cwd=r)
    world.ok("-C", str(r), "drivers", "install")
    world.git("merge", "-q", "--no-edit", "left", cwd=r)
    text = (r / MEM / "MEMORY.md").read_text()
    assert "(l.md)" in text and "(m.md)" in text and "<<<<<<<" not in text


def test_install_is_idempotent_and_uninstall_reverts(world: World) -> None:
    r = branchy_repo(world)
    attributes = r / ".git" / "info" / "attributes"
    attributes.parent.mkdir(exist_ok=True)
    attributes.write_text("*.bin binary\n")
    world.ok("-C", str(r), "drivers", "install")
    first = attributes.read_text()
    config_first = (r / ".git" / "config").read_text()
    world.ok("-C", str(r), "drivers", "install")
    assert attributes.read_text() == first and (r / ".git" / "config").read_text() == config_first
    assert "*.bin binary" in first and "merge=gitmem-index" in first
    status = world.ok("-C", str(r), "drivers", "status")
    assert "gitmem-index: " in status and "not registered" not in status
    assert "removed gitmem merge drivers" in world.ok("-C", str(r), "drivers", "uninstall")
    assert attributes.read_text() == "*.bin binary\n"
    assert "gitmem-index" not in (r / ".git" / "config").read_text()
    assert "not registered" in world.ok("-C", str(r), "drivers", "status")
    # a second uninstall says there was nothing to remove (exit 0), and changes nothing
    config = (r / ".git" / "config").read_text()
    again = world.ok("-C", str(r), "drivers", "uninstall")
    assert (
        "no gitmem merge drivers were installed" in again and "removed" not in again.split(":")[0]
    )
    assert attributes.read_text() == "*.bin binary\n"
    assert (r / ".git" / "config").read_text() == config


def test_global_install_serves_every_repository(world: World) -> None:
    r = branchy_repo(world)
    world.ok("drivers", "install", "--global")
    assert "merge=gitmem-index" in (world.home / ".config" / "git" / "attributes").read_text()
    world.git("merge", "-q", "--no-edit", "left", cwd=r)
    assert "<<<<<<<" not in (r / MEM / "MEMORY.md").read_text()
    world.ok("drivers", "uninstall", "--global")
    assert "gitmem" not in (world.home / ".gitconfig").read_text()


def test_rebase_with_drivers_keeps_both_sides(world: World) -> None:
    r = branchy_repo(world)
    world.ok("-C", str(r), "drivers", "install")
    world.git("checkout", "-q", "left", cwd=r)
    world.git("rebase", "-q", "main", cwd=r)
    text = (r / MEM / "MEMORY.md").read_text()
    assert "(l.md)" in text and "(m.md)" in text and "<<<<<<<" not in text


# -- the registered command never runs code from the repository being merged -------------------

PLANTED = "import pathlib\npathlib.Path({marker!r}).write_text('ran')\n"


def plant_code(world: World, r: Path) -> Path:
    """A repository that ships its own merge_drivers/, gitmem/ and sitecustomize.py."""
    marker = world.root / "planted-code-ran"
    code = PLANTED.format(marker=str(marker))
    for package in ("merge_drivers", "gitmem"):
        (r / package).mkdir()
        (r / package / "__init__.py").write_text(code)
        (r / package / "__main__.py").write_text(code)
    (r / "sitecustomize.py").write_text(code)
    (r / "MEMORY.md").write_text("- [A](a.md) — a\n")  # a conflict at the top level too
    world.git("add", "-A", cwd=r)
    world.git("commit", "-qm", "ship our own tools", cwd=r)
    world.git("checkout", "-q", "left", cwd=r)
    world.git("checkout", "-q", "main", "--", "merge_drivers", "gitmem", "sitecustomize.py", cwd=r)
    (r / "MEMORY.md").write_text("- [A](a.md) — a\n- [L](l.md) — left\n")
    world.git("add", "-A", cwd=r)
    world.git("commit", "-qm", "left too", cwd=r)
    world.git("checkout", "-q", "main", cwd=r)
    (r / "MEMORY.md").write_text("- [A](a.md) — a\n- [M](m.md) — main\n")
    world.git("commit", "-qam", "main memory", cwd=r)
    return marker


@pytest.mark.parametrize("scope", ["repository", "global"])
def test_planted_merge_drivers_in_the_work_tree_never_run(world: World, scope: str) -> None:
    r = branchy_repo(world)
    marker = plant_code(world, r)
    world.ok("-C", str(r), "drivers", "install", *(["--global"] if scope == "global" else []))
    status = world.ok("-C", str(r), "drivers", "status")
    assert " -I " in status and "UNSAFE" not in status
    world.git("merge", "-q", "--no-edit", "left", cwd=r)
    assert not marker.exists(), "the repository's own code ran inside the merge driver"
    for memory in (r / MEM / "MEMORY.md", r / "MEMORY.md"):
        text = memory.read_text()
        assert "(l.md)" in text and "(m.md)" in text and "<<<<<<<" not in text


def test_an_old_python_m_registration_is_flagged_and_upgraded(world: World) -> None:
    r = branchy_repo(world)
    marker = plant_code(world, r)
    old = f"{sys.executable} -m merge_drivers %O %A %B %L %P"
    world.ok("-C", str(r), "drivers", "install")
    world.git("config", "merge.gitmem-index.driver", old, cwd=r)
    status = world.gitmem("-C", str(r), "drivers", "status")
    assert status.code == 1 and "UNSAFE: python runs without -I" in status.out
    world.git("merge", "-q", "--no-edit", "left", cwd=r, check=False)
    assert marker.exists(), "the old registration runs the planted code: the hole is real"
    world.git("reset", "-q", "--hard", "ORIG_HEAD", cwd=r)  # undo what the planted code did
    marker.unlink()
    out = world.ok("-C", str(r), "drivers", "install")
    assert "replaced an unsafe older registration of gitmem-index" in out
    assert "UNSAFE" not in world.ok("-C", str(r), "drivers", "status")
    world.git("merge", "-q", "--no-edit", "left", cwd=r)
    assert not marker.exists()


@pytest.mark.parametrize("older", ["merge_drivers.__main__", "gitmem.gitstore.driver"])
def test_a_registration_from_before_the_adapter_moved_still_merges_and_is_outdated(
    world: World, older: str
) -> None:
    """Older gitmem registered `from merge_drivers.__main__ import main`, then `from
    gitmem.gitstore.driver import main`: each keeps merging, and `drivers status` says it is
    outdated (exit 0: it is safe) until `drivers install`."""
    r = branchy_repo(world)
    world.ok("-C", str(r), "drivers", "install")
    current = world.git("config", "merge.gitmem-index.driver", cwd=r).strip()
    old = current.replace("gitmem.merge.gitdriver", older)
    assert old != current and command_risk(old) is None
    world.git("config", "merge.gitmem-index.driver", old, cwd=r)
    status = world.gitmem("-C", str(r), "drivers", "status")
    assert status.code == 0 and "outdated" in status.out and "UNSAFE" not in status.out
    world.git("merge", "-q", "--no-edit", "left", cwd=r)
    text = (r / MEM / "MEMORY.md").read_text()
    assert "(l.md)" in text and "(m.md)" in text and "<<<<<<<" not in text
    world.ok("-C", str(r), "drivers", "install")
    assert "outdated" not in world.ok("-C", str(r), "drivers", "status")


@pytest.mark.parametrize(
    ("command", "unsafe"),
    [
        ("python -m merge_drivers %O %A %B", True),  # on PATH
        ("/usr/bin/python3 -m merge_drivers %O %A %B", True),
        ("/usr/bin/python3 -c 'import merge_drivers' %O", True),
        ("/usr/bin/python3 -I -m merge_drivers %O %A %B", False),
        ("gitmem merge-driver %O %A %B", True),
        ("/opt/bin/gitmem-merge-driver %O %A %B %L %P", False),
        ("'unterminated", True),
    ],
)
def test_command_risk_classes(command: str, unsafe: bool) -> None:
    assert (command_risk(command) is not None) == unsafe
    assert command_risk(driver_command()) is None


def test_default_patterns_cover_claude_memory_folder(world: World) -> None:
    r = world.root / "repo"
    world.git("init", "-q", str(r))
    world.ok("-C", str(r), "drivers", "install", "--pattern", "docs/memory/*.md")
    for path, driver in (
        (".claude/memory/topic/x.md", "gitmem-frontmatter"),
        (".claude/memory/MEMORY.md", "gitmem-index"),
        ("docs/memory/y.md", "gitmem-frontmatter"),
        ("src/README.md", "unspecified"),
    ):
        out = world.git("check-attr", "merge", "--", path, cwd=r)
        assert out.strip().endswith(f"merge: {driver}"), out


def test_installing_again_keeps_the_patterns_added_before(world: World) -> None:
    """`drivers status` says "run drivers install" to upgrade: that must not drop a --pattern."""
    r = world.root / "repo"
    world.git("init", "-q", str(r))
    world.ok("-C", str(r), "drivers", "install", "--pattern", "docs/memory/*.md")
    world.ok("-C", str(r), "drivers", "install", "--pattern", "notes/**/*.md")
    world.ok("-C", str(r), "drivers", "install")
    for path in ("docs/memory/y.md", "notes/a/b.md", ".claude/memory/x.md"):
        out = world.git("check-attr", "merge", "--", path, cwd=r)
        assert out.strip().endswith("merge: gitmem-frontmatter"), out
    block = (r / ".git" / "info" / "attributes").read_text()
    assert block.count("docs/memory/*.md") == 1, block


@pytest.mark.parametrize(
    "pattern", ["docs/my memory/*.md", "a\tb.md", "x.md\n* merge=ours", "#x.md", "!x.md", ""]
)
def test_a_pattern_gitattributes_cannot_hold_is_refused(world: World, pattern: str) -> None:
    """A space would split the line (pattern `docs/my`, attribute `memory/*.md`), a newline add
    a line of its own, `#` make it a comment, `!` is forbidden: exit 2, nothing written."""
    r = world.root / "repo"
    world.git("init", "-q", str(r))
    run = world.gitmem("-C", str(r), "drivers", "install", "--pattern", pattern)
    assert run.code == 2, run.out + run.err
    assert "pattern" in run.err and len(run.err.strip().splitlines()) <= 2, run.err
    assert not (r / ".git" / "info" / "attributes").exists()
    assert "gitmem-index" not in (r / ".git" / "config").read_text()


@pytest.mark.parametrize(
    ("registered", "finding"),
    [
        (None, "not registered"),
        ("current", ""),
        ("before the adapter moved", "outdated"),
        (f"{sys.executable} -m merge_drivers %O %A %B %L %P", "UNSAFE"),
    ],
    ids=["none", "current", "older", "unsafe"],
)
def test_status_tells_each_kind_of_registration(
    tmp_path: Path, registered: str | None, finding: str
) -> None:
    import subprocess

    from gitmem.project.mergedrivers import describe

    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    command = {
        "current": driver_command(),
        "before the adapter moved": driver_command().replace(
            "gitmem.merge.gitdriver", "gitmem.gitstore.driver"
        ),
    }.get(registered or "", registered)
    if command:
        for name in ("gitmem-index", "gitmem-frontmatter"):
            subprocess.run(
                ["git", "-C", str(tmp_path / "r"), "config", f"merge.{name}.driver", command],
                check=True,
            )
    found = describe(tmp_path / "r")
    text = "\n".join(found.lines)
    assert bool(found.unsafe) == (finding == "UNSAFE")
    for word in ("not registered", "outdated", "UNSAFE"):
        assert (word in text) == (word == finding), text


def test_status_finds_the_global_attributes_file_git_configures(world: World) -> None:
    """core.attributesFile as set globally (not a repository's own value, which git would use
    for this repository) is where `drivers install --global` wrote, and what status reads."""
    r = branchy_repo(world)
    mine = world.home / "attrs"
    world.git("config", "--global", "core.attributesFile", str(mine))
    world.git("config", "core.attributesFile", str(world.root / "repo-attrs"), cwd=r)
    world.ok("-C", str(r), "drivers", "install", "--global")
    assert mine.exists()
    status = world.ok("-C", str(r), "drivers", "status")
    assert "attributes (global) ~/attrs: present" in status  # named as every command names one
    world.git("config", "--global", "--unset", "core.attributesFile")
    status = world.ok("-C", str(r), "drivers", "status")
    assert "attributes (global) ~/.config/git/attributes: absent" in status
