"""Red team, round 23 (charter rules 4 and 5; docs/reliability.md "Red team, round 23"): each
test is an attack that worked before this round and fails without its fix."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from benchmarks.writerflood import TEAM, WRITERS, commits_on_team, plant_writers
from gitmem.merge.tree import merge_trees
from gitmem.project.scopes import refused_hold
from tests.beyond.test_redteam_writers import _tree_with
from tests.fakes.memory import MemoryStore
from tests.support.teammates import Shared

WRITER = "0badc0ffee000023"


def test_an_unsigned_writer_tip_is_refused_on_every_sync_until_it_may_pass(
    synced: Shared,
) -> None:
    """Worked: under `gitmem.requireSigned`, a teammate's unsigned writer ref was refused and
    held, but the refusal was kept nowhere: the next sync let the hold go in silence (exit 0,
    nothing said), the one after took the tip anew and refused it again — one sync in two
    said nothing of it, and the line named the team ref, not the writer ref. Now kept as the
    tree's refusals are (its signatures asked of git again each time): every sync says it,
    naming the writer ref; with the setting off it passes."""
    world, bob = synced.world, synced.bob
    world.git("config", "--global", "gitmem.requireSigned", "true")
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    tree = world.plumb(world.remote, "rev-parse", f"{tip}^{{tree}}")
    good = _tree_with(world, tree, {"team/w.md": b"---\nname: w\n---\nfrom a writer\n"})
    (commit,) = commits_on_team(world, 1, good)
    plant_writers(world, {f"{WRITERS}{WRITER}": commit})
    held = refused_hold(f"refs/gitmem-remotes/origin/{WRITERS.removeprefix('refs/gitmem/')}")
    for _ in range(3):
        run = world.gitmem("-C", str(bob), "sync")
        assert run.code == 2, run.err + run.out
        assert f"origin/{WRITERS}{WRITER}: commit {commit[:12]}" in run.err, run.err
        assert run.err.count("gitmem: error:") == 1
        assert world.plumb(bob, "rev-parse", held + WRITER) == commit
    assert not (world.scope_path(bob, "team") / "w.md").exists()
    world.git("config", "--global", "gitmem.requireSigned", "false")
    codes = [world.gitmem("-C", str(bob), "sync").code for _ in range(2)]
    assert codes[-1] == 0, codes
    assert (world.scope_path(bob, "team") / "w.md").read_bytes().endswith(b"from a writer\n")


def _merge_of_many_indexes(folders: int) -> float:
    """CPU seconds of a merge where a teammate changed the MEMORY.md of each of `folders`
    folders (ten topic files each) and we edited one topic file."""
    repo = MemoryStore()  # the pure merge's objects, in memory
    topic = repo.write_blob(b"---\nname: t\n---\nz\n")
    old, new = repo.write_blob(b"- [A](t0.md) - x\n"), repo.write_blob(b"- [A](t0.md) - y\n")
    base: dict[str, str] = {}
    for i in range(folders):
        base.update({f"team/f{i}/t{j}.md": topic for j in range(10)})
        base[f"team/f{i}/MEMORY.md"] = old
    theirs = {p: new if p.endswith("MEMORY.md") else o for p, o in base.items()}
    ours = dict(base, **{"team/f0/t0.md": repo.write_blob(b"---\nname: t\n---\nmine\n")})
    start = time.process_time()
    merge_trees(repo, base, ours, theirs)
    return time.process_time() - start


def test_a_merge_of_many_folders_indexes_costs_linear_time() -> None:
    """Worked (cost): the merge's one decision per memory (`_decide_together`) walked every
    file of the tree for each changed MEMORY.md: 2,000 folders 5.5 s, 10,000 (110,000 files,
    within the gate's bounds) over two minutes for every teammate's sync. Now each folder's
    files are listed once: 8× the folders costs about 8× (quadratic: 64×)."""
    small, large = _merge_of_many_indexes(300), _merge_of_many_indexes(2400)
    assert large < 0.2 + 20 * small, (small, large)


@pytest.mark.parametrize(
    "name",
    [
        "objects/info/commit-graph",
        "objects/info/commit-graphs/commit-graph-chain",
        "objects/pack/multi-pack-index",
        "logs/refs/gitmem/team",
        "logs/refs/gitmem-remotes/origin/team",
    ],
)
def test_a_fifo_where_git_reads_the_object_store_or_appends_a_reflog_is_refused(
    synced: Shared, name: str
) -> None:
    """Worked (round 11's class, files it did not name): an archive's `.git` holding a FIFO
    as its commit-graph (or its chain, or a multi-pack-index) held every sync's fetch to its
    timeout (120 s, "the remote did not answer"); as the reflog of one of our refs (git
    appends to one that exists), `update-ref` and the sync by hand for ever. Now refused at
    the opening in one line naming it, exit 2, nothing written."""
    world, bob = synced.world, synced.bob
    (world.scope_path(bob, "team") / "deploys.md").write_text("---\nname: d\n---\nBOB\n")
    path = bob / ".git" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    started = time.monotonic()
    run = world.gitmem("-C", str(bob), "sync", timeout=30)
    assert run.code == 2, run.err + run.out
    assert f"{path} is not a regular file" in run.err and run.err.count("\n") == 2, run.err
    assert time.monotonic() - started < 20
    assert "BOB" not in world.git("show", "refs/gitmem/team:team/deploys.md", cwd=world.remote)


def test_a_fifo_head_bounds_the_opening(tmp_path: Path) -> None:
    """Worked: a FIFO `HEAD` (checked once the folder is found) held `rev-parse`, which finds
    it, for ever — `gitmem status` by hand never returned. Now bounded as its siblings."""
    from gitmem.gitstore.base import Opening

    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".git" / "HEAD").unlink()
    os.mkfifo(repo / ".git" / "HEAD")
    opening = Opening(repo)
    try:
        assert opening.where.timeout is not None and opening.where.timeout <= 60
    finally:
        opening.cancel()


def test_the_repositorys_protocol_version_does_not_make_each_fetch_take_every_ref(
    synced: Shared,
) -> None:
    """Worked (cost): `protocol.version = 0` in `.git/config` made every fetch of a sync take
    the remote's whole advertisement — a quiet sync beside 100,000 tags 0.12 s -> 2.6-3.4 s
    (measured once, both in the same minute) — and lose the writer refs' listing in the
    fetch's own connection (v2's `ls-refs`, round 19). gitmem's fetches speak v2 now (git
    falls back for a server without it): traced, each one carries it."""
    world, bob = synced.world, synced.bob
    world.git("config", "protocol.version", "0", cwd=bob)
    trace = world.root / "trace-v2.json"
    world.env["GIT_TRACE2_EVENT"] = str(trace)
    try:
        run = world.gitmem("-C", str(bob), "sync")
    finally:
        del world.env["GIT_TRACE2_EVENT"]
    assert run.code == 0, run.err
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    fetches = [e["argv"] for e in events if e["event"] == "start" and "fetch" in e["argv"]]
    assert fetches and all("protocol.version=2" in argv for argv in fetches), fetches
    # what the connection spoke: v2's ls-refs asked only for our prefixes
    versions = [e for e in events if e["event"] == "data" and e.get("key") == "negotiated-version"]
    assert all(str(e["value"]) == "2" for e in versions), versions


def test_a_push_of_memory_publishes_no_tag_the_repositorys_config_follows(synced: Shared) -> None:
    """Worked: `push.followTags = true` in `.git/config` and an annotated tag on a memory
    commit (an archive's `.git` can hold both): bob's next sync pushed `refs/tags/…` to the
    remote beside his memory — a ref outside refs/gitmem/*. Now `--no-follow-tags`."""
    world, bob = synced.world, synced.bob
    world.git("tag", "-a", "-m", "planted", "planted-tag", "refs/gitmem/team", cwd=bob)
    world.git("config", "push.followTags", "true", cwd=bob)
    (world.scope_path(bob, "team") / "deploys.md").write_text("---\nname: d\n---\nBOB\n")
    run = world.gitmem("-C", str(bob), "sync")
    assert run.code == 0 and "pushed to origin" in run.out, run.err + run.out
    assert world.git("for-each-ref", "refs/tags", cwd=world.remote) == ""
    assert "BOB" in world.git("show", "refs/gitmem/team:team/deploys.md", cwd=world.remote)


def test_completing_a_remote_runs_nothing_its_name_holds(tmp_path: Path) -> None:
    """Worked: a remote named `$(touch${IFS}PWNED)` in the repository's config (an archive's
    `.git/config`): `gitmem sync --remote <TAB>` ran `touch PWNED` — bash's `compgen -W`
    expands the words it is given. Now each remote is offered as it is, quoted for the
    command line; a file name likewise runs nothing (readline quotes it)."""
    from gitmem.cli import build_parser
    from gitmem.cli.completion import bash_script

    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    hostile = "$(touch${IFS}PWNED)"
    subprocess.run(["git", "config", f"remote.{hostile}.url", "/x"], cwd=repo, check=True)
    (repo / "$(touch${IFS}PWNED2).md").write_text("")
    script = tmp_path / "gitmem.bash"
    script.write_text(bash_script(build_parser()))
    driver = (
        f"source {script}\n"
        "COMP_WORDS=(gitmem sync --remote ''); COMP_CWORD=3; _gitmem\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
        "COMP_WORDS=(gitmem record --file ''); COMP_CWORD=3; _gitmem\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    out = subprocess.run(["bash", "-c", driver], cwd=repo, capture_output=True, text=True)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert not (repo / "PWNED").exists() and not (repo / "PWNED2").exists()
    offered = out.stdout.splitlines()
    assert offered[0] == r"\$\(touch\$\{IFS\}PWNED\)", offered
    assert "$(touch${IFS}PWNED2).md" in offered[1:]


def test_a_hint_quotes_the_repositorys_names_in_the_command_it_prints(synced: Shared) -> None:
    """Worked: the one-line refusal of a promisor remote's `uploadpack` (round 22) printed
    `git config --unset remote.$(touch${IFS}PWNED).uploadpack` for a remote so named in the
    repository's config: pasted as the hint says, the shell ran it. Each word of a printed
    command that names the repository's text is quoted now (`sanitize.command_word`)."""
    world, bob = synced.world, synced.bob
    name = "$(touch${IFS}PWNED)"
    for key, value in (
        ("extensions.partialClone", name),
        (f"remote.{name}.url", str(world.remote)),
        (f"remote.{name}.uploadpack", "./evil"),
    ):
        world.git("config", key, value, cwd=bob)
    run = world.gitmem("-C", str(bob), "sync")
    assert run.code == 2, run.err + run.out
    hint = run.err.splitlines()[1]
    assert "git config --unset 'remote.$(touch${IFS}PWNED).uploadpack'" in hint, hint
    command = hint.split("(git config --unset ", 1)[1].rsplit("); nothing", 1)[0]
    subprocess.run(["bash", "-c", f"echo {command}"], cwd=bob, capture_output=True, check=True)
    assert not (bob / "PWNED").exists()
