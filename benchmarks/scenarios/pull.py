"""Pulling memory: 50 conflicting files merged in-process vs git's per-file merge driver, and 10
changed files pulled into a large folder vs git's own two-tree checkout."""

from __future__ import annotations

import time
from pathlib import Path

from benchmarks.context import Context, age_files
from benchmarks.corpus import add_index_entry, append_note, topic_name, write_memory
from benchmarks.rawgit import RawPull, RawPush
from benchmarks.timing import Row, Side, compare
from benchmarks.world import USER_REF, World

AGENT_DIR = ".claude/agent-memory"
FILES_PER_AGENT = 40  # MEMORY.md + 39 topic files; the first 10 of each agent conflict


def _agents(conflicts: int) -> list[str]:
    return [f"agent-{i}" for i in range(max(1, -(-conflicts // 10)))]


def _write_agents(folder: Path, conflicts: int, ctx: Context) -> None:
    for n, agent in enumerate(_agents(conflicts)):
        write_memory(folder / agent, FILES_PER_AGENT, seed=n, shapes=ctx.shapes)


def _edit(folder: Path, conflicts: int, who: str, round_no: int) -> None:
    """Both sides touch the same files: a new index entry, a note appended to each topic."""
    left = conflicts
    for agent in _agents(conflicts):
        add_index_entry(folder / agent / "MEMORY.md", f"{who}-{round_no}.md", f"{who} learned")
        left -= 1
        for i in range(min(9, left)):
            append_note(folder / agent / topic_name(i), f"{who} round {round_no}: note {i}.")
        left -= min(9, left)


def run_conflicts(ctx: Context) -> list[Row]:
    return [_pull_conflicts(ctx)]


def run_changed(ctx: Context) -> list[Row]:
    return [_pull_changed(ctx)]


def _pull_conflicts(ctx: Context) -> Row:
    conflicts = ctx.sizes.conflicts
    world = World(ctx.folder("pull"))
    # gitmem: the agents scope (untracked .claude/agent-memory/) of two clones, via refs/gitmem/team
    remote = world.make_remote()
    ours, theirs = world.clone(remote, "ours"), world.clone(remote, "theirs")
    _write_agents(ours / AGENT_DIR, conflicts, ctx)
    age_files(ours / AGENT_DIR)
    world.gitmem("-C", str(ours), "push", "-q")
    world.gitmem("-C", str(theirs), "pull", "-q")
    # git: the same files tracked on main, merged by the drivers `gitmem drivers install` registers
    raw_remote = world.make_remote("raw.git")
    raw_ours, raw_theirs = (
        world.clone(raw_remote, "raw-ours"),
        world.clone(raw_remote, "raw-theirs"),
    )
    _write_agents(raw_ours / AGENT_DIR, conflicts, ctx)
    world.git("add", "-A", cwd=raw_ours)
    world.git("commit", "-q", "-m", "memory", cwd=raw_ours)
    world.git("push", "-q", "origin", "main", cwd=raw_ours)
    world.git("pull", "-q", cwd=raw_theirs)
    world.gitmem("-C", str(raw_ours), "drivers", "install")
    rounds = {"gitmem": 0, "git": 0}

    def diverge_gitmem() -> None:
        rounds["gitmem"] += 1
        _edit(theirs / AGENT_DIR, conflicts, "theirs", rounds["gitmem"])
        world.gitmem("-C", str(theirs), "push", "-q")
        _edit(ours / AGENT_DIR, conflicts, "ours", rounds["gitmem"])

    def diverge_git() -> None:
        rounds["git"] += 1
        for clone, who in ((raw_theirs, "theirs"), (raw_ours, "ours")):
            _edit(clone / AGENT_DIR, conflicts, who, rounds["git"])
            world.git("commit", "-q", "-a", "-m", f"{who} {rounds['git']}", cwd=clone)
        world.git("push", "-q", "origin", "main", cwd=raw_theirs)

    def fetch_merge() -> None:
        world.git("fetch", "-q", "origin", cwd=raw_ours)
        world.git("merge", "-q", "--no-edit", "origin/main", cwd=raw_ours)

    return compare(
        f"pull with {conflicts} conflicting files",
        Side("gitmem pull", lambda: world.gitmem("-C", str(ours), "pull", "-q"), diverge_gitmem),
        Side("git fetch + git merge (drivers installed)", fetch_merge, diverge_git),
        ctx.runs,
        goal=0.5,
        note=f"{len(_agents(conflicts))} agent folders of {FILES_PER_AGENT} files; both sides add "
        "an index entry and append to the same topic files; gitmem also snapshots and commits "
        "the local edits, git had them committed beforehand",
    )


def _pull_changed(ctx: Context) -> Row:
    """One person, two clones (two machines): the other pushed 10 changed files of N, this one
    pulls. Raw git: fetch, `read-tree -m -u` from the tree its folder holds to the fetched one,
    `update-ref`."""
    files, changed = ctx.sizes.pull_into, ctx.sizes.changed
    world = World(ctx.folder(f"pull-into-{files}"))
    remote = world.make_remote()
    writer, reader = world.clone(remote, "writer"), world.clone(remote, "reader")
    for clone in (writer, reader):
        world.plaintext(clone)  # like raw git
    written = world.scope_path(writer)
    write_memory(written, files, shapes=ctx.shapes)
    age_files(written)
    world.gitmem("-C", str(writer), "push", "-q")
    world.gitmem("-C", str(reader), "pull", "-q")
    read = world.scope_path(reader)
    age_files(read)
    time.sleep(ctx.racy_wait)  # ctimes two seconds old (backdating set them to now): trusted
    world.gitmem("-C", str(reader), "pull", "-q")  # the stat cache now holds every file

    raw_remote = world.make_remote("raw.git")
    raw_writer_clone, raw_reader_clone = (
        world.clone(raw_remote, "raw-writer"),
        world.clone(raw_remote, "raw-reader"),
    )
    raw_written = world.root / "raw-written"
    write_memory(raw_written, files, shapes=ctx.shapes)
    age_files(raw_written)
    raw_writer = RawPush(world.env, raw_writer_clone, raw_written, USER_REF)
    raw_writer.push()
    raw_reader = RawPull(world.env, raw_reader_clone, world.root / "raw-read", USER_REF)
    raw_reader.start()
    age_files(raw_reader.folder)
    raw_reader.refresh()
    rounds = {"gitmem": 0, "raw": 0}

    def push_changes(side: str) -> None:
        rounds[side] += 1
        folder = written if side == "gitmem" else raw_written
        start = rounds[side] * changed
        for i in range(start, start + changed):
            append_note(folder / topic_name(i % (files - 1)), f"Edit {rounds[side]} of {i}.")
        if side == "gitmem":
            world.gitmem("-C", str(writer), "push", "-q")
        else:
            raw_writer.push()

    return compare(
        f"pull {changed} changed into {files:,}",
        Side(
            "gitmem pull",
            lambda: world.gitmem("-C", str(reader), "pull", "-q"),
            lambda: push_changes("gitmem"),
        ),
        Side(
            "git fetch + read-tree -m -u + update-ref", raw_reader.pull, lambda: push_changes("raw")
        ),
        ctx.runs,
        goal=2,
        note="both sides plaintext (gitmem.encrypt off); the folder's other files untouched",
    )
