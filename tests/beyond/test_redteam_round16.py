"""Red team, round 16: fresh classes at every door (charter 1, 2, 4, 5, 6).

Each test is an attack that passes when it is refused; "worked" ones were closed at their one
door (docs/reliability.md, "Red team, round 16").
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.world import World, write_files

TEAM = {"team/MEMORY.md": "- [Deploy](deploy.md) — how\n", "team/deploy.md": "Tuesdays.\n"}


# -- bundle create FILE: git replaces the file it is given whole ------------------------------


@pytest.mark.parametrize(
    "where", [".git/config", ".git/HEAD", "README.md", "team-scope", "link", "folder"]
)
def test_bundle_create_never_replaces_a_file_that_is_not_a_bundle(world: World, where: str) -> None:
    """`bundle create .git/config` made the user's git config a bundle, then (the bundle did
    not verify with that config gone) deleted it; `.git/HEAD` broke the repository,
    `README.md` replaced a tracked file, a memory folder took a binary file. Each is refused
    in one line, nothing written; an earlier bundle is still written over."""
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), TEAM)
    assert world.gitmem("-C", str(a), "sync").code == 0
    (world.root / "elsewhere").write_bytes(b"kept\n")
    (world.root / "folder").mkdir()
    target = {
        ".git/config": a / ".git" / "config",
        ".git/HEAD": a / ".git" / "HEAD",
        "README.md": a / "README.md",
        "team-scope": world.scope_path(a, "team") / "team" / "x.bundle",
        "link": a / "link.bundle",
        "folder": world.root / "folder",
    }[where]
    if where == "link":
        os.symlink(world.root / "elsewhere", target)
    before = {
        p: p.read_bytes() for p in (a / ".git" / "config", a / ".git" / "HEAD", a / "README.md")
    }
    run = world.gitmem("-C", str(a), "bundle", "create", str(target))
    assert run.code == 2 and "nothing was written" in run.err, run.err
    assert len(run.err.strip().splitlines()) == 2
    assert {p: p.read_bytes() for p in before} == before
    assert (world.root / "elsewhere").read_bytes() == b"kept\n"
    assert not (world.scope_path(a, "team") / "team" / "x.bundle").exists()
    assert os.path.islink(a / "link.bundle") or where != "link"
    # a new file, then the same file again (an earlier bundle is written over)
    out = world.root / "memory.bundle"
    for _ in range(2):
        assert world.gitmem("-C", str(a), "bundle", "create", str(out)).code == 0
        assert out.read_bytes().startswith(b"# v")


# -- links: a budget a file -------------------------------------------------------------------


def test_the_links_read_from_one_memory_are_bounded() -> None:
    """A teammate's topic file of 170,000 `[](a)` (1 MiB, one line or many): every recall
    index build parsed each (~20 µs) and stored each (~100 µs): ~20 s on the first prompt of a
    session, again at each change. The links read stop at MAX_LINK_BRACKETS `[`, always the
    same ones; a real memory's links are all read."""
    from gitmem.claude.graph import MAX_LINK_BRACKETS, links_in

    for sep in (" ", "\n"):
        links = links_in("[](a.md)" + sep + "[l](b.md)" + sep * 2 + "[](a.md)" * 170_000)
        assert 0 < len(links) <= MAX_LINK_BRACKETS
        assert links[:2] == [("md", "a.md"), ("md", "b.md")]
        assert links == links_in("[](a.md)" + sep + "[l](b.md)" + sep * 2 + "[](a.md)" * 170_000)
    real = "".join(f"- [n{i}](n{i}.md) and [[w{i}]]\n" for i in range(500))
    assert len(links_in(real)) == 1000


def test_a_memory_of_a_hundred_thousand_links_is_indexed_at_once(world: World) -> None:
    """The recall index's build, end to end: `query` over a 720 KB file of links costs about
    what the same size of plain words costs (before: 11 s against 0.7 s; after 0.7 s)."""
    import time

    took = {}
    for name, filler in (("plain", "words "), ("links", "[](a) ")):
        a = world.clone(name)
        body = f"---\nname: l\ndescription: farm{name}\ntype: project\n---\n" + filler * 120_000
        write_files(world.scope_path(a, "team"), {**TEAM, "team/l.md": body})
        start = time.monotonic()
        run = world.gitmem("-C", str(a), "query", f"farm{name}")
        took[name] = time.monotonic() - start
        assert run.code == 0 and "l.md" in run.out, run.out
    assert took["links"] < 3 * took["plain"] + 2, took


# -- "shared" names every folder on the team ref ----------------------------------------------


def test_shared_and_unpublish_name_the_adapters_folders_on_the_team_ref(world: World) -> None:
    """goose's `.goose/memory` and Cline's `memory-bank` ride the team ref: `--scope shared`
    offered team and agents only, and `unpublish goose` did not say the team ref carries it
    (the user left it published, believing it personal)."""
    a = world.clone("a")
    world.ok("-C", str(a), "config", "agents", "claude,goose,cline")
    write_files(a / ".goose" / "memory", {"x.txt": "goose note\n"})
    run = world.gitmem("-C", str(a), "sync", "--scope", "shared")
    assert run.code == 2 and "team, agents, goose and cline" in run.err, run.err
    for name in ("goose", "cline"):
        run = world.gitmem("-C", str(a), "unpublish", name)
        assert run.code == 2 and f"{name}" in run.err.split("hint:")[1], run.err
        assert "did you mean team?" in run.err, run.err


# -- the attributes files drivers reads ---------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "latin-1"])
def test_drivers_reads_a_global_attributes_file_bounded_and_says_why_not(
    world: World, kind: str
) -> None:
    """The user's global attributes file (`core.attributesFile` or ~/.config/git/attributes,
    often a dotfiles link) as a FIFO held `drivers status` and `drivers install --global` for
    ever, a link to /dev/zero until memory ran out, a byte of Latin-1 ended them with an
    unexpected UnicodeDecodeError (exit 4; the repository's own file too) → one line, exit 2
    (status shows it and goes on); nothing written."""
    a = world.clone("a")
    attributes = world.home / ".config" / "git" / "attributes"
    attributes.parent.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(attributes)
    elif kind == "dev-zero":
        os.symlink("/dev/zero", attributes)
    else:
        attributes.write_bytes(b"*.txt text # caf\xe9\n")
        (a / ".git" / "info" / "attributes").write_bytes(b"*.md diff # caf\xe9\n")
    run = world.gitmem("-C", str(a), "drivers", "status", timeout=30)
    assert run.code == 0 and "attributes (global)" in run.out, run.out + run.err
    run = world.gitmem("-C", str(a), "drivers", "install", "--global", timeout=30)
    assert run.code == 2 and str(attributes) in run.err, run.err
    assert len(run.err.strip().splitlines()) == 2
    if kind == "latin-1":
        assert attributes.read_bytes() == b"*.txt text # caf\xe9\n"
        run = world.gitmem("-C", str(a), "drivers", "install", timeout=30)
        assert run.code == 2 and "not UTF-8" in run.err, run.err
        assert (a / ".git" / "info" / "attributes").read_bytes() == b"*.md diff # caf\xe9\n"


# -- recency: a time from the future ------------------------------------------------------------


def _memory(name: str, extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: {name} note\ntype: project\n{extra}---\nbody\n"


def test_a_teammates_date_from_the_future_does_not_head_recent_for_ever(world: World) -> None:
    """A teammate's memory saying `updated: 2999-01-01`, or committed with a date in 2999
    (a commit's dates are its writer's to choose), headed `query --recent` (and the MCP
    `recent` tool) above everything written since, for ever → a time more than a day ahead
    is not believed: the newest real changes come first."""
    import subprocess

    a, b = world.clone("a"), world.clone("b")
    team_a = world.scope_path(a, "team")
    write_files(
        team_a,
        {"MEMORY.md": "- [Old](old.md) — x\n", "old.md": _memory("old", "updated: 2999-01-01\n")},
    )
    assert world.gitmem("-C", str(a), "sync").code == 0
    # a second file committed by hand with a date from the future, pushed as git pushes
    tip = world.plumb(a, "rev-parse", "refs/gitmem/team")
    blob = world.plumb(a, "hash-object", "-w", "--stdin", data=_memory("forged").encode())
    team = world.plumb(a, "rev-parse", f"{tip}:team")
    listing = world.plumb(a, "ls-tree", team) + f"\n100644 blob {blob}\tforged.md\n"
    top = world.plumb(a, "ls-tree", f"{tip}^{{tree}}").replace(
        team, world.plumb(a, "mktree", data=listing.encode())
    )
    tree = world.plumb(a, "mktree", data=top.encode())
    when = "@32503680000 +0000"  # the year 3000
    future = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    commit = subprocess.run(
        ["git", "commit-tree", tree, "-p", tip, "-m", "forged"],
        cwd=a,
        env={**world.env, **future},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert world.push(a, world.remote, f"{commit}:refs/gitmem/team").returncode == 0
    assert world.gitmem("-C", str(b), "sync").code == 0
    write_files(world.scope_path(b, "team"), {f"new{i}.md": _memory(f"new{i}") for i in range(2)})
    assert world.gitmem("-C", str(b), "sync").code == 0
    run = world.gitmem("-C", str(b), "query", "--recent", "2")
    assert run.code == 0
    assert "new0" in run.out and "new1" in run.out, run.out
    assert "old" not in run.out and "forged" not in run.out, run.out


# -- another project's remote -----------------------------------------------------------------


def _other_project(world: World) -> Path:
    """A bare remote of another project (its own first commit) whose team ref has memory."""
    other = world.root / "other.git"
    world.git("init", "-q", "--bare", str(other))
    seed = world.root / "seed-other"
    world.git("init", "-q", str(seed))
    (seed / "OTHER").write_text("another project\n")
    world.git("add", "OTHER", cwd=seed)
    world.git("commit", "-q", "-m", "other", cwd=seed)
    world.git("push", "-q", str(other), "main", cwd=seed)
    o = world.clone("o", url=str(other))
    write_files(world.scope_path(o, "team"), {"MEMORY.md": "- [T](t.md) — x\n", "t.md": "theirs\n"})
    assert world.gitmem("-C", str(o), "sync").code == 0
    return other


def test_a_remote_set_to_another_projects_never_merges_the_two_memories(world: World) -> None:
    """`git remote set-url origin` to another project's remote (its memory keyed to that URL,
    now also this clone's key): the two team refs were merged file by file, ours pushed there
    and theirs written into our folder → refused in one line naming both projects, nothing
    merged, written or pushed; `gitmem adopt` (both the same project) still merges."""

    a = world.clone("a")
    team = world.scope_path(a, "team")
    write_files(team, {"MEMORY.md": "- [S](s.md) — x\n", "s.md": "our plans\n"})
    assert world.gitmem("-C", str(a), "sync").code == 0
    other = _other_project(world)
    theirs = world.git("ls-remote", str(other), "refs/gitmem/team", cwd=a)
    world.git("remote", "set-url", "origin", str(other), cwd=a)
    run = world.gitmem("-C", str(a), "sync")
    assert run.code != 0 and "two projects' memory" in run.err, run.out + run.err
    assert "merged" not in run.out.replace("nothing merged", ""), run.out
    assert world.git("ls-remote", str(other), "refs/gitmem/team", cwd=a) == theirs
    assert sorted(p.name for p in Path(team).iterdir()) == ["MEMORY.md", "s.md"]
    run = world.gitmem("-C", str(a), "adopt")
    assert run.code == 0, run.err
    assert (Path(team) / "t.md").read_text() == "theirs\n"


def test_curate_believes_no_date_from_the_future(tmp_path: Path) -> None:
    """curate ranks recency against the newest memory of the folder: one teammate's memory
    dated 2999 made every other one ~1,000 years older (recency 0 for all: the order of
    the lines decided, the newest memories archived first). A date more than a day ahead is
    not believed: the recent memories stay in the index, the old ones go to the archive."""
    from gitmem.claude.curate import plan

    def topic(name: str, when: str) -> str:
        return f"---\nname: {name}\ndescription: {name}\ntype: project\nupdated: {when}\n---\nx\n"

    recent = [f"r{i:03}" for i in range(40)]
    old = [f"o{i:03}" for i in range(200)]
    lines = []
    for name, when in [("forged", "2999-01-01"), *((n, "2026-11-20") for n in recent)] + [
        (n, "2019-01-01") for n in old
    ]:
        (tmp_path / f"{name}.md").write_text(topic(name, when))
        lines.append(f"- [{name}]({name}.md) — {name}\n")
    (tmp_path / "MEMORY.md").write_text("".join(lines))
    result = plan(tmp_path)
    kept = result.index_after
    assert all(f"]({n}.md)" in kept for n in recent), [n for n in recent if n not in kept]
    assert result.archive_after is not None and "](o000.md)" in result.archive_after


# -- a recall index build that is killed keeps what it did ----------------------------------


@pytest.mark.slow
def test_a_killed_index_build_keeps_its_progress(world: World) -> None:
    """A teammate's 20,000 small memory files: the first index build (~2 ms a file) outlasted
    the prompt hook's 10 s, Claude Code killed it, and the refresh — one transaction —
    rolled back: every prompt waited 10 s and recall never answered. The build now commits
    every PROGRESS_ROWS rows: a build killed midway leaves its rows, and the next one
    finishes (links and ranks computed then). Shown on 4,000 files, eight commits of
    PROGRESS_ROWS (round 19: 20,000 cost the test ~5 CPU-s, the next build's reading of them;
    a build that is one transaction fails the same either way)."""
    import signal
    import sqlite3
    import subprocess
    import sys
    import time

    from gitmem.recall.searchindex import PROGRESS_ROWS

    files = 8 * PROGRESS_ROWS
    a = world.clone("a")
    team = world.scope_path(a, "team")
    team.mkdir(parents=True, exist_ok=True)
    for i in range(files):
        (team / f"m{i:05}.md").write_text(
            f"---\nname: m{i}\ndescription: note {i}\ntype: project\n---\nword{i} [n](m{i + 1:05}.md)\n"
        )
    proc = subprocess.Popen(
        [sys.executable, "-m", "gitmem", "query", "word7"],
        cwd=a,
        env=world.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    # kill the build as soon as some of its rows are committed (polled, not slept: the machine
    # may be loaded); a build that is one transaction shows none before its end, or all of them
    path = a / ".git" / "gitmem" / "recall.sqlite"
    kept = 0
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if path.exists():
            try:
                db = sqlite3.connect(path, timeout=0.1)
                try:
                    kept = db.execute("SELECT count(*) FROM memory").fetchone()[0]
                finally:
                    db.close()
            except sqlite3.OperationalError:
                kept = 0  # not created yet, or locked by the writer
            if kept:
                break
        time.sleep(0.05)
    assert proc.poll() is None, "the build ended before any of its rows could be seen"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    db = sqlite3.connect(path)
    try:
        kept = db.execute("SELECT count(*) FROM memory").fetchone()[0]
    finally:
        db.close()
    assert 0 < kept < files, f"the killed build kept {kept} of {files} rows"
    run = world.gitmem("-C", str(a), "query", "--id", "team/m00007.md")
    assert run.code == 0 and "m00007.md" in run.out, run.out
    run = world.gitmem("-C", str(a), "query", "--related", "team/m00007.md")
    assert run.code == 0 and "m00008.md" in run.out, run.out  # links resolved at the end


def test_one_memory_history_under_two_spellings_still_merges(world: World) -> None:
    """The refusal above is for two projects' memories: a remote whose team ref shares
    history with ours but names only its own key (our clone came from a path, the ref's
    gitmem.toml was rewritten under the URL) still merges after `set-url`."""
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- [S](s.md) — x\n", "s.md": "ours\n"})
    assert world.gitmem("-C", str(a), "sync").code == 0
    mirror = world.root / "mirror.git"
    world.git("clone", "-q", "--mirror", str(world.remote), str(mirror))
    key = f'# gitmem ref\nversion = 1\nkey = "file:{str(mirror)[:-4]}"\n'.encode()
    tip = world.plumb(a, "rev-parse", "refs/gitmem/team")
    listing = world.plumb(a, "ls-tree", f"{tip}^{{tree}}")
    blob = world.plumb(a, "hash-object", "-w", "--stdin", data=key)
    lines = [
        f"100644 blob {blob}\tgitmem.toml" if line.endswith("\tgitmem.toml") else line
        for line in listing.splitlines()
    ]
    tree = world.plumb(a, "mktree", data=("\n".join(lines) + "\n").encode())
    commit = world.plumb(a, "commit-tree", tree, "-p", tip, "-m", "rekeyed", data=b"")
    assert world.push(a, mirror, f"{commit}:refs/gitmem/team").returncode == 0
    world.git("remote", "set-url", "origin", str(mirror), cwd=a)
    run = world.gitmem("-C", str(a), "sync")
    assert run.code == 0, run.out + run.err
