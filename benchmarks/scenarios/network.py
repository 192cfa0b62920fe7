"""Where users work (issue 23): a `git daemon` remote on 127.0.0.1, the default configuration
(personal memory encrypted, the key made by the first push as a user's first sync makes it), a
lived-in state (rounds of edits, pushes and pulls between two machines of one person before any
clock starts), and raw git doing the same work over the same daemon in the same run.

Rows: push 10 changed of N (≤ 1.3×), no-op sync of N (≤ 1.3× fetch + git's stat check), pull 10
changed into N (≤ 1.5× fetch + `read-tree -m -u`), encrypted against plaintext (≤ 1.1×), the
SessionStart hook with nothing new and with 10 changed (≤ 1.3× / ≤ 1.5× `git fetch`), a first sync
of a large team tree against `git clone` of the same tree (time and peak memory ≤ 2×), and W
machines pushing to one team ref at once (all land, converge, the last within 5× one push).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.context import Context, age_files
from benchmarks.corpus import add_index_entry, append_note, topic_name, write_memory
from benchmarks.daemon import git_daemon
from benchmarks.install import Install
from benchmarks.rawgit import RawMachine, RawPush
from benchmarks.scenarios.scale import REPO
from benchmarks.timing import Row, Side, Stats, compare
from benchmarks.world import USER_REF, World, gitmem_command, python

RAW_PUSH = "index + add -A + write-tree + commit-tree + update-ref + git push"
RAW_NOOP = "git fetch of the same refs + add -A --dry-run against its index"
RAW_PULL = "git fetch + read-tree -m -u + update-ref"
RAW_FETCH = "git fetch of the same refs"
WHERE = "git daemon on 127.0.0.1"
PARTS_ENV = "GITMEM_BENCH_NETWORK"  # e.g. "writers": only those parts (person, writers, first_sync)
STARTED: list[int] = []  # process groups of the daemons this module started (tests check them)


def run(ctx: Context) -> list[Row]:
    root = ctx.folder("network")
    host = World(root / "daemon")  # only its environment: no system config, no real HOME
    rows: list[Row] = []
    with git_daemon(root, host.env) as (url, group):
        STARTED.append(group)
        only = os.environ.get(PARTS_ENV, "").split(",")
        for part in (_person_rows, _writers_rows, _first_sync_rows):
            if only == [""] or part.__name__.strip("_").removesuffix("_rows") in only:
                rows += _guarded(part, ctx, root, url)
    return rows


def _guarded(
    part: Callable[[Context, Path, str], list[Row]], ctx: Context, root: Path, url: str
) -> list[Row]:
    """A part that fails at full size (a world the machine cannot hold, a bound reached) is one
    row saying so; the other parts still run and the results are still written. The quick
    mode (CI) lets the failure through."""
    try:
        return part(ctx, root, url)
    except Exception as e:
        if ctx.quick:
            raise
        what = part.__name__.strip("_").replace("_", " ")
        return [Row(f"{what} (network)", "—", "—", note=f"did not complete: {e}"[:600])]


class Editor:
    """Appends a note to `changed` topic files of a folder per round, walking its own range of
    files so that two machines never edit the same file between syncs."""

    def __init__(self, folder: Path, first: int, count: int, changed: int, who: str) -> None:
        self.folder, self.first, self.count, self.changed, self.who = (
            folder,
            first,
            max(1, count),
            changed,
            who,
        )
        self.rounds = 0

    def __call__(self) -> None:
        self.rounds += 1
        for k in range(self.changed):
            i = self.first + (self.rounds * self.changed + k) % self.count
            append_note(self.folder / topic_name(i), f"{self.who} round {self.rounds}: {k}.")


class Person:
    """Two machines (clones, one HOME: one identity and key) of one person, with N memory files,
    against `remote.git` under the daemon; lived in by `ctx.sizes.lived_rounds` rounds of edits,
    pushes and pulls both ways, then settled (files old, stat caches up to date)."""

    def __init__(
        self,
        ctx: Context,
        root: Path,
        url: str,
        name: str,
        encrypt: bool,
        install: Install | None = None,
    ) -> None:
        files, changed = ctx.sizes.network, ctx.sizes.changed
        self.world = world = World(root / name, install)
        world.make_remote()
        remote = f"{url}/{name}/remote.git"
        self.a, self.b = (world.root / "a", world.root / "b")
        for clone in (self.a, self.b):
            world.git("clone", "-q", remote, str(clone))
            if not encrypt:
                world.plaintext(clone)
        self.mem_a, self.mem_b = world.scope_path(self.a), world.scope_path(self.b)
        write_memory(self.mem_a, files, shapes=ctx.shapes)
        age_files(self.mem_a)
        self.gitmem(self.a, "push")  # encrypted: makes the key, as a first sync does
        self.gitmem(self.b, "pull")
        half = (files - 1) // 2
        self.edit_a = Editor(self.mem_a, 0, half, changed, "a")
        self.edit_b = Editor(self.mem_b, half, files - 1 - half, changed, "b")
        for _ in range(ctx.sizes.lived_rounds):
            self.edit_a()
            self.gitmem(self.a, "push")
            self.gitmem(self.b, "pull")
            self.edit_b()
            self.gitmem(self.b, "sync")
            self.gitmem(self.a, "sync")
        self.racy_wait = ctx.racy_wait
        self.settle()

    def gitmem(self, clone: Path, *args: str) -> str:
        return self.world.gitmem("-C", str(clone), *args, "-q")

    def settle(self) -> None:
        """Old files and stat caches that hold them (scale.Sides.settle says why the wait)."""
        age_files(self.mem_a)
        age_files(self.mem_b)
        time.sleep(self.racy_wait)
        self.gitmem(self.a, "sync")
        self.gitmem(self.b, "sync")

    def push_a(self) -> None:
        self.edit_a()
        self.gitmem(self.a, "push")


class RawPerson:
    """The same two machines done with git alone, over `raw.git` under the same daemon."""

    def __init__(self, ctx: Context, world: World, url: str, name: str) -> None:
        files, changed = ctx.sizes.network, ctx.sizes.changed
        world.make_remote("raw.git")
        remote = f"{url}/{name}/raw.git"
        clones = [world.root / "raw-a", world.root / "raw-b"]
        for clone in clones:
            world.git("clone", "-q", remote, str(clone))
        self.a = RawMachine(world.env, clones[0], world.root / "raw-mem-a", USER_REF)
        self.b = RawMachine(world.env, clones[1], world.root / "raw-mem-b", USER_REF)
        write_memory(self.a.folder, files, shapes=ctx.shapes)
        age_files(self.a.folder)
        self.a.push()
        self.b.start()
        self.b.refresh()  # checkout-index leaves the index without the files' stat data
        half = (files - 1) // 2
        self.edit_a = Editor(self.a.folder, 0, half, changed, "a")
        self.edit_b = Editor(self.b.folder, half, files - 1 - half, changed, "b")
        for _ in range(ctx.sizes.lived_rounds):
            self.edit_a()
            self.a.push()
            self.b.pull()
            self.edit_b()
            self.b.push()  # its sync: nothing new to fetch, so commit and push
            self.a.pull()
        self.racy_wait = ctx.racy_wait
        self.settle()

    def settle(self) -> None:
        for side in (self.a, self.b):
            age_files(side.folder)
        time.sleep(self.racy_wait)
        for side in (self.a, self.b):
            side.refresh()

    def push_a(self) -> None:
        self.edit_a()
        self.a.push()


def _hook(world: World, clone: Path) -> Callable[[], None]:
    """The SessionStart command `gitmem hooks install --claude` wrote, run as Claude Code runs
    it (by the shell), Claude Code's payload on stdin."""
    world.gitmem("-C", str(clone), "hooks", "install", "--claude")
    settings = json.loads((clone / ".claude" / "settings.local.json").read_text())
    # run as Claude Code runs it, by the shell: the command guards itself (`test ! -f LAUNCHER
    # || …`, quiet once gitmem is uninstalled), so the shell's start is part of the hook's cost
    command = ["/bin/sh", "-c", settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]]
    payload = json.dumps(
        {"session_id": "bench", "cwd": str(clone), "hook_event_name": "SessionStart"}
    ).encode()

    def hook() -> None:
        proc = subprocess.run(command, cwd=clone, input=payload, capture_output=True, env=world.env)
        if proc.returncode != 0 or proc.stderr:
            raise RuntimeError(f"the hook failed: {proc.stderr.decode()[-2000:]}")

    return hook


def _person_rows(ctx: Context, root: Path, url: str) -> list[Row]:
    files, changed = ctx.sizes.network, ctx.sizes.changed
    enc = Person(ctx, root, url, "person", encrypt=True)
    plain = Person(ctx, root, url, "plain", encrypt=False)
    raw = RawPerson(ctx, enc.world, url, "person")
    of = f"{changed} changed of {files:,}"
    lived = f"{WHERE}, lived-in"
    rows = [
        compare(
            f"push {of} ({lived}, default: encrypted)",
            Side("gitmem push", lambda: enc.gitmem(enc.a, "push"), enc.edit_a),
            Side(RAW_PUSH, raw.a.push, raw.edit_a),
            ctx.runs,
            goal=1.3,
        ),
        compare(
            f"push {of} ({lived}, plaintext)",
            Side("gitmem push", lambda: plain.gitmem(plain.a, "push"), plain.edit_a),
            Side(RAW_PUSH, raw.a.push, raw.edit_a),
            ctx.runs,
            goal=None,
            note="gitmem.encrypt off: the same plaintext blobs as raw git",
        ),
        compare(
            f"push {of}: encrypted against plaintext ({lived})",
            Side("gitmem push (default)", lambda: enc.gitmem(enc.a, "push"), enc.edit_a),
            Side(
                "gitmem push (gitmem.encrypt off)",
                lambda: plain.gitmem(plain.a, "push"),
                plain.edit_a,
            ),
            ctx.runs,
            goal=1.1,
        ),
    ]
    enc.settle()
    raw.settle()
    rows.append(
        compare(
            f"no-op sync of {files:,} ({lived}, default: encrypted)",
            Side("gitmem sync", lambda: enc.gitmem(enc.a, "sync")),
            Side(RAW_NOOP, raw.a.noop),
            ctx.runs,
            goal=1.3,
        )
    )
    rows.append(
        compare(
            f"pull {changed} changed into {files:,} ({lived}, default: encrypted)",
            Side("gitmem pull", lambda: enc.gitmem(enc.b, "pull"), enc.push_a),
            Side(RAW_PULL, raw.b.pull, raw.push_a),
            ctx.runs,
            goal=1.5,
            note=f"the other machine of the same person pushed the {changed} edits (untimed)",
        )
    )
    hook = _hook(enc.world, enc.b)
    enc.settle()
    rows.append(
        compare(
            f"SessionStart hook, nothing new ({files:,} files, {lived}, default: encrypted)",
            Side("the installed SessionStart hook", hook),
            Side(RAW_FETCH, raw.b.fetch),
            ctx.runs,
            goal=1.3,
        )
    )
    rows.append(
        compare(
            f"SessionStart hook, {changed} changed of {files:,} ({lived}, default: encrypted)",
            Side("the installed SessionStart hook", hook, enc.push_a),
            Side(RAW_FETCH, raw.b.fetch, raw.push_a),
            ctx.runs,
            goal=1.5,
            note=f"the other machine pushed {changed} edits (untimed); the hook brings them in",
        )
    )
    return rows


# -- a first sync of a large team tree ------------------------------------------------------------


def _timed_peak(env: dict[str, str], argv: list[str], bound: float) -> tuple[float, float]:
    """Wall seconds and peak MiB of one command, run in a fresh child by benchmarks.peak (the
    child's own start, ~30 ms, is in both sides' times alike). Past `bound` seconds the whole
    process group is killed and the bound is what is reported (a figure of at least that)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.peak", "--", *argv],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=bound)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return bound, float("nan")
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[0]} exited {proc.returncode}: {err.decode()[-1000:]}")
    return time.perf_counter() - start, int(out.split()[-1]) / 1024


def _seed_team_tree(world: World, seed: Path, files: int, ctx: Context) -> None:
    """refs/gitmem/team holding `files` team memory files, pushed to the seed's remote: the
    first commit by gitmem (its gitmem.toml and layout), the large tree on top by git alone
    (writing 100,000 files through a first push would take longer than the row itself)."""
    team = world.scope_path(seed, "team")
    write_memory(team, 2, shapes=ctx.shapes)
    world.gitmem("-C", str(seed), "push", "-q")
    stage = world.root / "stage"
    write_memory(stage / "team", files, shapes=ctx.shapes)
    (stage / "gitmem.toml").write_bytes(
        world.run("git", "show", "refs/gitmem/team:gitmem.toml", cwd=seed).encode()
    )
    env = {"GIT_INDEX_FILE": str(world.root / "stage.index")}
    plumb = ("--git-dir", str(seed / ".git"), "--work-tree", str(stage))
    world.git(*plumb, "add", "-A", ".", env=env)
    tree = world.git(*plumb, "write-tree", env=env)
    commit = world.git(
        *plumb,
        "commit-tree",
        tree,
        "-p",
        "refs/gitmem/team",
        "-m",
        f"{files} team files",
        env=env,
    )
    world.git("update-ref", "refs/gitmem/team", commit, cwd=seed)
    world.git("push", "-q", "origin", "refs/gitmem/team:refs/gitmem/team", cwd=seed)
    shutil.rmtree(stage)


def _first_sync_rows(ctx: Context, root: Path, url: str) -> list[Row]:
    files = ctx.sizes.first_sync
    base = root / "first"
    seed_world = World(base / "seed")
    seed_world.make_remote("team.git")
    seed = seed_world.root / "clone"
    seed_world.git("clone", "-q", f"{url}/first/seed/team.git", str(seed))
    _seed_team_tree(seed_world, seed, files, ctx)
    # the same tree (gitmem.toml + team/…) on the main branch of a plain repository
    seed_world.git("init", "-q", "--bare", str(seed_world.root / "raw-team.git"))
    seed_world.git(
        "push",
        "-q",
        str(seed_world.root / "raw-team.git"),
        "refs/gitmem/team:refs/heads/main",
        cwd=seed,
    )
    # each run writes the whole tree twice: at 100,000 files one run a side (~10 minutes)
    runs = 1 if files >= 50_000 else min(ctx.runs, 3)
    bound = max(120.0, files * 0.02)  # 20 ms a file: far past anything measured
    joined: list[Path] = []

    def gitmem() -> tuple[float, float]:
        for old in joined:  # one copy of the tree on disk at a time
            shutil.rmtree(old, ignore_errors=True)
        world = World(base / f"joiner-{len(joined)}")  # a new machine: its own HOME, no key
        joined.append(world.root)
        world.git("config", "--global", "user.email", f"joiner{len(joined)}@example.com")
        clone = world.root / "clone"
        world.git("clone", "-q", f"{url}/first/seed/team.git", str(clone))
        return _timed_peak(world.env, [*gitmem_command(), "-C", str(clone), "sync", "-q"], bound)

    def raw() -> tuple[float, float]:
        dest = base / "raw-clone"
        shutil.rmtree(dest, ignore_errors=True)
        return _timed_peak(
            seed_world.env,
            ["git", "clone", "-q", f"{url}/first/seed/raw-team.git", str(dest)],
            bound,
        )

    a: list[tuple[float, float]] = []
    b: list[tuple[float, float]] = []
    for i in range(runs):
        if i % 2 == 0:
            a.append(gitmem())
            b.append(raw())
        else:
            b.append(raw())
            a.append(gitmem())
    for old in [*joined, base / "raw-clone"]:
        shutil.rmtree(old, ignore_errors=True)
    label = f"first sync of a {files:,}-file team tree ({WHERE})"
    subject, baseline = "gitmem sync (new machine, new user)", "git clone (with checkout)"
    return [
        Row(
            label,
            subject,
            baseline,
            Stats.of([t for t, _ in a]),
            Stats.of([t for t, _ in b]),
            goal=2,
            note="both run in a fresh child of benchmarks.peak (its own start in both times); "
            f"{runs} run{'s' if runs > 1 else ''} a side; the team tree is seeded by git "
            f"(gitmem's first commit, {files:,} files on top), untimed",
        ),
        Row(
            f"peak memory, {label}",
            subject,
            baseline,
            Stats.of([m for _, m in a]),
            Stats.of([m for _, m in b]),
            goal=2,
            note="peak RSS of the process tree (benchmarks/peak.py), the same runs as the time",
            unit="MiB",
        ),
    ]


# -- W machines pushing to one team ref at once ---------------------------------------------------

RETRIES = re.compile(rb"\((\d+) push retr")
WRITERS_BOUND = 600.0  # seconds: a push still running then is killed and counted as not landed


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for dirpath, dirnames, names in sorted(os.walk(folder)):
        dirnames.sort()
        for name in sorted(names):
            path = Path(dirpath) / name
            h.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


WRITER_REFS = "refs/gitmem/writers/team/"  # gitmem/sync/writers.py


def _writers_rows(ctx: Context, root: Path, url: str) -> list[Row]:
    writers, team_files = ctx.sizes.writers, ctx.sizes.writers_team
    base = root / "writers"
    seed_world = World(base / "seed")
    seed_world.make_remote("team.git")
    remote_url = f"{url}/writers/seed/team.git"
    seed = seed_world.root / "clone"
    seed_world.git("clone", "-q", remote_url, str(seed))
    write_memory(seed_world.scope_path(seed, "team"), team_files, shapes=ctx.shapes)
    seed_world.gitmem("-C", str(seed), "push", "-q")
    machines: list[tuple[World, Path, Path]] = []
    for i in range(writers):
        world = World(base / f"m{i:02d}")  # a machine of its own: HOME, user, clone
        world.git("config", "--global", "user.email", f"writer{i}@example.com")
        clone = world.root / "clone"
        world.git("clone", "-q", remote_url, str(clone))
        world.gitmem("-C", str(clone), "pull", "-q")
        machines.append((world, clone, world.scope_path(clone, "team")))

    def edit(i: int, n: int) -> None:
        _, _, team = machines[i]
        append_note(team / topic_name(i % (team_files - 1)), f"writer {i} push {n}.")
        add_index_entry(team / "MEMORY.md", f"writer-{i}-{n}.md", f"what writer {i} learned")
        (team / f"writer-{i}-{n}.md").write_text(f"# writer {i}, push {n}\n")

    # one push alone, up to date (machine 0 only: nobody else moves the ref meanwhile)
    solo: list[float] = []
    world0, clone0, _ = machines[0]
    for n in range(ctx.runs + 1):
        edit(0, n)
        start = time.perf_counter()
        world0.gitmem("-C", str(clone0), "push", "-q")
        if n:  # the first is the warm-up
            solo.append(time.perf_counter() - start)
    for world, clone, _ in machines[1:]:
        world.gitmem("-C", str(clone), "pull", "-q")
    n = ctx.runs + 1
    for i in range(writers):
        edit(i, n)
    # all at once: every process started before the first is waited for
    ends: list[float] = [0.0] * writers
    outs: list[tuple[int, bytes]] = [(0, b"")] * writers
    profile = os.environ.get(PROFILE_ENV, "")  # one writer's push under cProfile (the last)
    cpu_before = _children_cpu()
    start = time.perf_counter()
    procs = [
        subprocess.Popen(
            [*_profiled(profile if i == writers - 1 else ""), "-C", str(clone), "push"],
            cwd=clone,  # not this tree: `python -m cProfile` puts the cwd on sys.path
            env=world.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for i, (world, clone, _) in enumerate(machines)
    ]

    def wait(i: int) -> None:
        try:
            out, _ = procs[i].communicate(timeout=WRITERS_BOUND)
        except subprocess.TimeoutExpired:
            procs[i].kill()
            out, _ = procs[i].communicate()
        ends[i] = time.perf_counter() - start
        outs[i] = (procs[i].returncode, out)

    threads = [threading.Thread(target=wait, args=(i,)) for i in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cpu = _children_cpu() - cpu_before  # the 32 gitmem processes and their git children
    landed = [i for i in range(writers) if outs[i][0] == 0]
    retries = [int(m.group(1)) if (m := RETRIES.search(out)) else 0 for _, out in outs]
    # all land: the remote's team ref, or the writer's own ref (gitmem/sync/writers.py),
    # holds every writer's file
    git_dir = ("--git-dir", str(seed_world.root / "team.git"))
    on_remote = seed_world.git(*git_dir, "for-each-ref", "--format=%(refname)", "refs/gitmem/")
    team_refs = [
        r for r in on_remote.split() if r == "refs/gitmem/team" or r.startswith(WRITER_REFS)
    ]
    remote_tree: set[str] = set()
    for ref in team_refs:
        remote_tree |= set(seed_world.git(*git_dir, "ls-tree", "-r", "--name-only", ref).split())
    held = [i for i in range(writers) if f"team/writer-{i}-{n}.md" in remote_tree]
    on_own = sum(b"landed on " + WRITER_REFS.encode() in out for _, out in outs)
    # converge: every machine syncs once (folds the writer refs, retires its own), then
    # pulls once more; all folders and refs alike
    for world, clone, _ in machines:
        world.gitmem("-C", str(clone), "sync", "-q")
    for world, clone, _ in machines:
        world.gitmem("-C", str(clone), "pull", "-q")
    left = seed_world.git(*git_dir, "for-each-ref", "--format=%(refname)", WRITER_REFS).split()
    digests = {_digest(team) for _, _, team in machines}
    tips = {w.git("rev-parse", "refs/gitmem/team", cwd=c) for w, c, _ in machines}
    raw = _raw_writers(ctx, machines)  # after the check: it writes in the folders
    order = sorted(range(writers), key=lambda i: ends[i])
    curve = [
        {"lands": k + 1, "seconds": round(ends[i], 3), "retries": retries[i]}
        for k, i in enumerate(order)
    ]
    failures = [
        outs[i][1].decode("utf-8", "replace")[-300:] for i in range(writers) if i not in landed
    ]
    shutil.rmtree(base, ignore_errors=True)
    last = max(ends)
    row = Row(
        f"{writers} machines push to one team ref at once: the last lands ({WHERE})",
        f"{writers} × gitmem push, started together",
        "one gitmem push alone (up to date)",
        Stats.of([last]),
        Stats.of(solo),
        goal=5,
        note=f"landed {len(landed)}/{writers} (exit 0), the remote holds {len(held)}/{writers} "
        f"writers' files, converged: {'yes' if len(digests) == 1 and len(tips) == 1 else 'no'} "
        f"({len(digests)} folder states, {len(tips)} tips after one sync and one pull each; "
        f"writer refs left: {len(left)}); {on_own} landed on their own writer ref; retries "
        f"per machine: median {sorted(retries)[writers // 2]}, max {max(retries)}, total "
        f"{sum(retries)}; landings at " + ", ".join(f"{c['seconds']:.1f}" for c in curve) + " s"
        f"; CPU of the {writers} pushes {cpu:.2f} s (their floor on {CORES} cores "
        f"{cpu / CORES:.2f} s); raw git at once: {raw['note']}",
    )
    row.extra = {
        "landed": len(landed),
        "held": len(held),
        "writers": writers,
        "converged": len(digests) == 1 and len(tips) == 1,
        "on_own_ref": on_own,
        "writer_refs_left": len(left),
        "curve": curve,
        "failures": failures,
        "cpu_seconds": round(cpu, 3),
        "cores": CORES,
        "raw": raw,
    }
    against_raw = Row(
        f"{writers} machines push at once, the last lands, against raw git at once ({WHERE})",
        f"{writers} × gitmem push, started together",
        f"{writers} × raw git push ({RAW_PUSH}) of one commit each to a ref each, started together",
        Stats.of([last]),
        Stats.of([raw["last_own_refs"]]),
        note=f"raw git: {raw['note']}; gitmem CPU {cpu:.2f} s, raw git CPU "
        f"{raw['cpu_own_refs']:.2f} s",
    )
    return [row, against_raw]


PROFILE_ENV = "GITMEM_BENCH_WRITERS_PROFILE"  # a path: the last writer's push runs under cProfile
CORES = os.cpu_count() or 1


def _profiled(out: str) -> list[str]:
    """The gitmem command, or the same console script run under cProfile writing `out`."""
    if not out:
        return gitmem_command()
    return [python(), "-m", "cProfile", "-o", out, *gitmem_command()]


def _children_cpu() -> float:
    """User and system CPU of every child this process has waited for (and theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _at_once(jobs: list[Callable[[], None]]) -> tuple[list[float], float]:
    """Run every job in a thread of its own, started together: when each ended, and the CPU of
    the processes they ran."""
    ends = [0.0] * len(jobs)
    cpu_before = _children_cpu()
    start = time.perf_counter()

    def one(i: int) -> None:
        jobs[i]()
        ends[i] = time.perf_counter() - start

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return ends, _children_cpu() - cpu_before


def _raw_writers(ctx: Context, machines: list[tuple[World, Path, Path]]) -> dict[str, Any]:
    """The baseline of the writers row, in the same run on the same daemon: each machine commits
    its team folder with one new file and pushes it with plain git, all at once — to a ref of its
    own (`RAW_PUSH`, the work of a landing without the merge), and to one shared ref with a
    fetch, a commit on the fetched tip and a push again on each rejection (what one ref costs
    raw git)."""
    n = ctx.runs + 2
    sides = []
    for i, (world, clone, team) in enumerate(machines):
        side = RawPush(world.env, clone, team, f"refs/gitmem/raw/{i}")
        side._git("add", "-A", ".")  # its index up to date, as gitmem's is before the clock
        (team / f"raw-{i}-{n}.md").write_text(f"# raw writer {i}\n")
        sides.append(side)
    solo_side = sides[0]
    solo: list[float] = []
    for k in range(ctx.runs + 1):
        (solo_side.folder / f"raw-0-solo-{k}.md").write_text(f"# raw solo {k}\n")
        start = time.perf_counter()
        solo_side.push()
        if k:
            solo.append(time.perf_counter() - start)
    (sides[0].folder / f"raw-0-{n}.md").write_text("# raw writer 0, again\n")
    resets = [0]  # pushes the daemon reset (32 connections at once): sent again

    def own(side: RawPush) -> Callable[[], None]:
        def push() -> None:
            try:
                side.push()
            except RuntimeError:
                for _ in range(3):
                    resets[0] += 1
                    try:
                        side._git("push", "-q", "origin", f"{side.ref}:{side.ref}")
                        return
                    except RuntimeError:
                        continue

        return push

    own_ends, own_cpu = _at_once([own(side) for side in sides])
    shared = "refs/gitmem/raw-one"
    rounds = [0] * len(machines)

    def one_ref(i: int) -> Callable[[], None]:
        world, clone, _ = machines[i]
        env = {**world.env, "GIT_INDEX_FILE": str(clone / ".git" / "raw-one.index")}
        tracking = "refs/gitmem-remotes/origin/raw-one"

        def push() -> None:
            blob = _raw(env, clone, "hash-object", "-w", "--stdin", data=f"raw {i}\n".encode())
            while True:
                rounds[i] += 1
                fetched = subprocess.run(
                    ["git", "fetch", "-q", "--no-tags", "origin", f"+{shared}:{tracking}"],
                    cwd=clone, env=env, capture_output=True,
                ).returncode == 0  # fmt: skip
                tip = _raw(env, clone, "rev-parse", "refs/gitmem/team")
                parents = ["-p", _raw(env, clone, "rev-parse", tracking)] if fetched else []
                _raw(env, clone, "read-tree", parents[1] if parents else tip)
                _raw(env, clone, "update-index", "--add", "--cacheinfo", f"100644,{blob},r{i}.md")
                tree = _raw(env, clone, "write-tree")
                commit = _raw(env, clone, "commit-tree", tree, *parents, "-m", f"raw {i}")
                pushed = subprocess.run(
                    ["git", "push", "-q", "origin", f"{commit}:{shared}"],
                    cwd=clone, env=env, capture_output=True,
                )  # fmt: skip
                if pushed.returncode == 0 or rounds[i] > 200:
                    return

        return push

    one_ends, one_cpu = _at_once([one_ref(i) for i in range(len(machines))])
    solo_ms = sorted(solo)[len(solo) // 2] if solo else 0.0
    return {
        "solo": round(solo_ms, 4),
        "last_own_refs": round(max(own_ends), 3),
        "cpu_own_refs": round(own_cpu, 3),
        "last_one_ref": round(max(one_ends), 3),
        "cpu_one_ref": round(one_cpu, 3),
        "rounds_one_ref": sum(rounds),
        "resets_own_refs": resets[0],
        "note": f"one push alone {solo_ms * 1000:.0f} ms; {len(machines)} to a ref each: the "
        f"last {max(own_ends):.2f} s ({max(own_ends) / solo_ms:.1f}× one), CPU {own_cpu:.2f} s, "
        f"{resets[0]} reset and sent again; "
        f"{len(machines)} to one ref, fetch + commit + push until it lands: the last "
        f"{max(one_ends):.2f} s ({max(one_ends) / solo_ms:.1f}× one), {sum(rounds)} rounds, "
        f"CPU {one_cpu:.2f} s",
    }


def _raw(env: dict[str, str], clone: Path, *args: str, data: bytes | None = None) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=clone, env=env, input=data, capture_output=True, check=True
    )
    return proc.stdout.decode().strip()
