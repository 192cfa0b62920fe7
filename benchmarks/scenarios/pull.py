"""Pulling memory: 50 conflicting files merged in-process vs git's per-file merge driver, and
a sync with nothing to do vs the fetch it cannot avoid."""

from __future__ import annotations

from pathlib import Path

from benchmarks.context import Context, age_files
from benchmarks.corpus import add_index_entry, append_note, topic_name, write_memory
from benchmarks.timing import Row, Side, compare
from benchmarks.world import USER_REF, World, gitmem_command

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


def run_noop(ctx: Context) -> list[Row]:
    return _noop_sync(ctx)


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


def _noop_sync(ctx: Context) -> list[Row]:
    files = ctx.sizes.noop_files
    world = World(ctx.folder("noop"))
    clone = world.clone(world.make_remote(), "clone")
    memory = world.scope_path(clone)
    write_memory(memory, files, shapes=ctx.shapes)
    age_files(memory)
    world.gitmem("-C", str(clone), "sync", "-q")
    world.gitmem("-C", str(clone), "sync", "-q")  # the stat cache now holds every file
    tracking = "refs/gitmem-remotes/origin/"
    specs = [
        f"+{ref}*:{tracking}{ref.removeprefix('refs/gitmem/')}*"
        for ref in (USER_REF, "refs/gitmem/team")
    ]

    def fetch() -> None:
        world.git("fetch", "-q", "--no-tags", "--no-write-fetch-head", "origin", *specs, cwd=clone)

    rows = [
        compare(
            f"no-op sync of {files:,} files",
            Side("gitmem sync", lambda: world.gitmem("-C", str(clone), "sync", "-q")),
            Side("git fetch of the same refs", fetch),
            ctx.runs,
            goal=1.2,
        )
    ]
    help_text = world.run(*gitmem_command(), "pull", "--help")
    if "--hook" in help_text:
        rows.append(
            compare(
                f"SessionStart hook, nothing new ({files:,} files)",
                Side(
                    "gitmem pull --hook", lambda: world.gitmem("-C", str(clone), "pull", "--hook")
                ),
                Side("git fetch of the same refs", fetch),
                ctx.runs,
                goal=1.2,
            )
        )
    else:
        rows.append(
            Row(
                f"SessionStart hook, nothing new ({files:,} files)",
                "gitmem pull --hook",
                "git fetch of the same refs",
                goal=1.2,
                pending=True,
                note="`pull --hook` does not exist yet; the row runs once it does",
            )
        )
    return rows
