"""Red team, round 17: fresh classes at every door (charter 1, 2, 4, 5, 6).

Each test is an attack that passes when it is refused; "worked" ones were closed at their one
door (docs/reliability.md, "Red team, round 17").
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from merge_drivers import SideInfo, merge_file
from merge_drivers.rank import parse_time
from tests.support.world import World, write_files

# -- the merge's ranking and a date from the future --------------------------------------------


def _topic(extra: str, body: str) -> bytes:
    return f"---\nname: deploy\ndescription: how\ntype: project\n{extra}---\n{body}\n".encode()


def test_a_date_written_ahead_of_its_commit_does_not_win_every_conflict() -> None:
    """A teammate's `updated: 2999-01-01`, committed in June, beat every later edit of the
    same line forever ("newer"). A frontmatter date more than a day after the commit that wrote
    it now ranks as that commit's time: the later edit wins, whichever side is ours."""
    base = _topic("", "Deploy on Tuesdays.")
    june = _topic("updated: 2999-01-01\n", "Deploy on Mondays.")
    november = _topic("updated: 2026-11-28\n", "Deploy on Fridays.")
    at_june = SideInfo(time=parse_time("2026-06-01T10:00:00Z"))
    at_november = SideInfo(time=parse_time("2026-11-28T10:00:00Z"))
    one = merge_file("team/deploy.md", base, november, june, at_november, at_june)
    two = merge_file("team/deploy.md", base, june, november, at_june, at_november)
    assert one.data == two.data and one.data is not None  # symmetric
    assert b"Deploy on Fridays." in one.data and b"Mondays" not in one.data
    # a date within a day of its commit is believed, as before (time zones)
    honest = _topic("updated: 2026-06-02\n", "Deploy on Mondays.")
    late = SideInfo(time=parse_time("2026-06-01T10:00:00Z"))
    early = SideInfo(time=parse_time("2026-06-01T09:00:00Z"))
    got = merge_file("team/deploy.md", base, honest, _topic("", "Deploy on Fridays."), late, early)
    assert got.data is not None and b"Deploy on Mondays." in got.data


# -- gitmem's private object store: every version of every personal file, forever -------------


def _private_objects(clone: Path) -> dict[str, Path]:
    store = clone / ".git" / "gitmem" / "objects"
    return {p.parent.name + p.name: p for p in store.glob("??/*")}


def _age(paths: list[Path], days: float) -> None:
    then = time.time() - days * 86_400
    for p in paths:
        os.utime(p, (then, then))


def test_old_plaintext_versions_leave_the_private_object_store(world: World) -> None:
    """Every version of every personal file stayed in `<common-dir>/gitmem/objects`, in
    plaintext, forever (nothing pruned it: 20 syncs, 40 objects). A sync prunes it at most once
    a day, as git's gc does its own: what is older than two weeks and named by neither the
    sync state nor the cipher cache goes; the memory still syncs and edits still merge."""
    a = world.clone("a")
    auto = world.scope_path(a, "auto")
    versions = []
    for i in range(4):
        versions.append(f"version {i} of a private note\n")
        write_files(auto, {"MEMORY.md": "- [Note](note.md) — mine\n", "note.md": versions[-1]})
        world.ok("-C", str(a), "sync")
    old_ids = {world.plumb(a, "hash-object", "--stdin", data=v.encode()) for v in versions[:-1]}
    before = _private_objects(a)
    assert old_ids <= set(before)  # plaintext of every old version, kept
    _age([*before.values(), a / ".git" / "gitmem" / "objects-pruned"], 15)
    write_files(auto, {"note.md": versions[-1] + "and one more line\n"})
    world.ok("-C", str(a), "sync")
    after = _private_objects(a)
    assert not old_ids & set(after), "old plaintext versions still in the private store"
    assert len(after) < len(before)
    # the live versions are still there: an edit merges, a sync with nothing new is quiet
    write_files(auto, {"note.md": versions[-1] + "and one more line\nand another\n"})
    world.ok("-C", str(a), "sync")
    assert (auto / "note.md").read_text().endswith("and another\n")
    assert world.gitmem("-C", str(a), "status").code == 0
    # an old version is still there in history: opened again from its ciphertext
    shown = [world.gitmem("-C", str(a), "show", f"~{n}:auto/note.md") for n in range(1, 6)]
    assert any(r.code == 0 and r.out == versions[1] for r in shown), shown
    # a young object (written within the grace period) is never pruned, whatever names it
    young = set(_private_objects(a))
    os.unlink(a / ".git" / "gitmem" / "objects-pruned")
    world.ok("-C", str(a), "sync")
    assert young <= set(_private_objects(a)) | _repository_objects(a)


def _repository_objects(clone: Path) -> set[str]:
    store = clone / ".git" / "objects"
    return {p.parent.name + p.name for p in store.glob("??/*")}


def test_doctor_names_plaintext_an_older_gitmem_left_in_the_repository(world: World) -> None:
    """A gitmem older than the private object store wrote personal memory's plaintext into
    `.git/objects` (reached by no ref: a `push --mirror` or `bundle --all` carries it); doctor
    said nothing. It says so, with the one command that removes it — after which it is quiet."""
    a = world.clone("a")
    auto = world.scope_path(a, "auto")
    write_files(auto, {"MEMORY.md": "- [Note](note.md) — mine\n", "note.md": "my secret plan\n"})
    world.ok("-C", str(a), "sync")
    clean = world.gitmem("-C", str(a), "doctor", "--offline")
    assert "plaintext among the repository's objects" not in clean.out + clean.err
    # what the older gitmem did: the plaintext blob written into the repository itself
    world.plumb(a, "hash-object", "-w", str(auto / "note.md"))
    told = world.gitmem("-C", str(a), "doctor", "--offline")
    assert "1 personal memory in plaintext among the repository's objects" in told.out, told.out
    assert "git gc --prune=now" in told.out
    world.git("gc", "-q", "--prune=now", cwd=a)
    after = world.gitmem("-C", str(a), "doctor", "--offline")
    assert "plaintext among the repository's objects" not in after.out + after.err
    assert world.gitmem("-C", str(a), "sync").code == 0  # gc took nothing gitmem needs


# -- validate --history: a round trip to git per commit -----------------------------------------


def test_validate_history_reads_a_long_history_in_batches(world: World) -> None:
    """`validate --history` over 10,000 commits took 35 s: three `cat-file` round trips a
    commit (its tree, the sealed layout's manifest, the blob), and a copy of every blob id
    seen so far a commit (quadratic). The blobs are read ahead in pipelined batches, a
    commit's tree only when it adds under auto/: 28-35 s -> 6.4-7.5 s on the loaded VM. A
    secret one commit adds and the next removes is still found, in a batch like any other."""
    from gitmem.commands.validate import ValidateOptions, validate
    from gitmem.gitstore import Repository
    from tests.beyond.test_hostile_doors import AWS

    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"team/MEMORY.md": "- [D](deploy.md) — how\n"})
    world.ok("-C", str(a), "sync")
    tip = world.plumb(a, "rev-parse", "refs/gitmem/team")
    path = world.plumb(a, "ls-tree", "-r", "--name-only", tip).split("\n")
    where = next(p for p in path if p.endswith("MEMORY.md")).rsplit("/", 1)[0]
    stream = []
    for i in range(600):
        body = AWS if i == 300 else f"- [D](deploy.md) — how {i}\n".encode()
        stream += [b"commit refs/gitmem/team\ncommitter T <t@e.x> %d +0000\ndata 1\n\n" % (1e9 + i)]
        stream += [b"from %s\n" % tip.encode()] if i == 0 else []
        stream += [
            b"M 100644 inline %s/MEMORY.md\ndata %d\n%s\n" % (where.encode(), len(body), body)
        ]
    subprocess.run(["git", "fast-import", "--quiet"], input=b"".join(stream), cwd=a, env=world.env)
    calls = {"read_commit": 0, "read_blob": 0, "read_blobs": 0}
    saved = dict(os.environ)
    os.environ.update(world.env)
    try:
        with Repository(a) as repo:
            for name in calls:
                real = getattr(repo, name)

                def counted(*args: object, _real: object = real, _name: str = name) -> object:
                    calls[_name] += 1
                    return _real(*args)  # type: ignore[operator]

                setattr(repo, name, counted)
            found = validate(repo, ValidateOptions(refs=["refs/gitmem/team"], history=True))
    finally:
        os.environ.clear()
        os.environ.update(saved)
    assert any(f.code == "GM140" for r in found.refs for f in r.findings)  # the removed secret
    assert calls["read_commit"] < 10 and calls["read_blob"] < 10, calls
    assert calls["read_blobs"] <= 3, calls


# -- a fork: the upstream team's memory pushed to the user's fork ------------------------------


def test_a_forks_remote_gets_no_memory_of_the_upstream_project(world: World) -> None:
    """After `git remote set-url origin <fork>` (a fork made on the forge: branches only), the
    first sync pushed the upstream team's memory — keyed to the upstream — to the fork. The
    ref is set aside in one line naming both projects; nothing of it reaches the fork; adopt
    (the user's word that the fork is that project too) pushes it."""
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"team/MEMORY.md": "- [P](plan.md) — ours\n"})
    world.ok("-C", str(a), "sync")
    fork = world.root / "fork.git"
    world.git("clone", "-q", "--bare", str(world.remote), str(fork))  # branches, no memory refs
    world.git("remote", "set-url", "origin", str(fork), cwd=a)
    run = world.gitmem("-C", str(a), "sync")
    assert run.code != 0 and "has none: not pushed there" in run.err, run.err
    assert "gitmem adopt" in run.err and "Traceback" not in run.err
    assert "refs/gitmem/team" not in world.git("--git-dir", str(fork), "for-each-ref")
    world.ok("-C", str(a), "adopt")
    assert "refs/gitmem/team" in world.git("--git-dir", str(fork), "for-each-ref")


# -- JSON nested too deep: a RecursionError no `except ValueError` caught ---------------------

DEEP = b'{"cwd": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"


def test_a_hook_payload_nested_too_deep_never_fails_the_session(world: World) -> None:
    """Claude Code's stdin JSON `[[[[…` 100,000 deep (under the 1 MiB payload bound): the
    hook, which must always exit 0, died with exit 4 (`unexpected RecursionError`). Every JSON
    gitmem reads from outside goes through `core/jsondata.loads`: too deep is a decode error."""
    import sys

    from tests.support.world import REPO_ROOT

    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"team/MEMORY.md": "- [P](plan.md) — ours\n"})
    world.ok("-C", str(a), "sync")
    env = {**world.env, "PYTHONPATH": str(REPO_ROOT)}
    for mode in ("pull", "push"):
        run = subprocess.run(
            [sys.executable, "-m", "gitmem", mode, "--hook"],
            cwd=a,
            input=DEEP,
            capture_output=True,
            env=env,
        )
        assert run.returncode == 0 and b"Recursion" not in run.stderr, run.stderr


def test_json_nested_too_deep_where_gitmem_reads_it(world: World) -> None:
    """The same bytes as a state file a `.git` from an archive holds (the sync state, the
    checked trees, the cipher cache) or as the repository's committed `.claude/settings.json`:
    exit 4 with a RecursionError before; now as any unreadable file — the state is rebuilt,
    the settings file named in one line."""
    from gitmem.core import jsondata

    try:
        jsondata.loads(DEEP)
    except ValueError:
        pass
    else:
        raise AssertionError("not refused")
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"team/MEMORY.md": "- [P](plan.md) — ours\n"})
    world.ok("-C", str(a), "sync")
    state = a / ".git" / "gitmem"
    for planted in [state / "checked.json", state / "cipher-cache.json", *state.glob("state/*")]:
        planted.write_bytes(DEEP)
    (state / "objects-pruned").unlink()  # the day's prune reads them too
    write_files(world.scope_path(a, "team"), {"team/MEMORY.md": "- [P](plan.md) — ours, too\n"})
    run = world.gitmem("-C", str(a), "sync")
    assert run.code == 0 and "Recursion" not in run.err, run.err
    (a / ".claude").mkdir()
    (a / ".claude" / "settings.json").write_bytes(DEEP)
    told = world.gitmem("-C", str(a), "hooks", "status")
    assert "Recursion" not in told.err and told.code in (0, 2), told.err


# -- record (the CLI and the MCP tool's one door): a text of many megabytes --------------------


def test_a_huge_memory_is_refused_before_it_is_read(world: World) -> None:
    """An MCP client's `record` of a 50 MB one-line text: its first line was split into
    words three times (the description, the index line) before the file's size check
    refused it: 5.8 s for 10 MB, ~30 s and a gigabyte for 50. Refused first, in one line;
    nothing written."""
    a = world.clone("a")
    world.ok("-C", str(a), "sync")
    team = world.scope_path(a, "team")
    before = sorted(p.name for p in team.rglob("*")) if team.exists() else []
    for title, text in (("big", "word " * (1 << 21)), ("t" * (5 << 20), "small")):
        run = world.gitmem("-C", str(a), "record", "--title", title, "--scope", "team", text)
        assert run.code == 2 and "characters (limit 4194304 bytes a file)" in run.err, run.err
    assert (sorted(p.name for p in team.rglob("*")) if team.exists() else []) == before


# -- gitmem.toml of a teammate's ref: 100,000 aliases ------------------------------------------


def test_a_project_file_of_100000_aliases_is_refused_at_the_gate(world: World) -> None:
    """A teammate's commit whose gitmem.toml lists 100,000 aliases (2.4 MB): a teammate's
    first pull took 11 s, and every merge carried them on (aliases are a union). Refused as
    an unreadable gitmem.toml is (GM109), in one line, by sync and validate alike."""
    a, b = world.clone("a"), world.clone("b")
    write_files(world.scope_path(a, "team"), {"team/MEMORY.md": "- [P](plan.md) — ours\n"})
    world.ok("-C", str(a), "sync")
    tip = world.plumb(a, "rev-parse", "refs/gitmem/team")
    aliases = ", ".join(f'"host{i}.example/o/r"' for i in range(100_000))
    meta = world.plumb(a, "show", f"{tip}:gitmem.toml") + f"\naliases = [{aliases}]\n"
    blob = world.plumb(a, "hash-object", "-w", "--stdin", data=meta.encode())
    old = world.plumb(a, "rev-parse", f"{tip}:gitmem.toml")
    listing = world.plumb(a, "ls-tree", tip).replace(old, blob) + "\n"
    tree = world.plumb(a, "mktree", data=listing.encode())
    commit = world.plumb(a, "commit-tree", tree, "-p", tip, "-m", "aliases")
    world.git("push", "-q", str(world.remote), f"{commit}:refs/gitmem/team", cwd=a)
    run = world.gitmem("-C", str(b), "sync")
    assert run.code == 2 and "bytes (limit 65536)" in run.err, run.err
    assert len(run.err.strip().splitlines()) == 2
    assert not (world.scope_path(b, "team") / "team" / "MEMORY.md").exists()
    checked = world.gitmem("-C", str(b), "validate", "--remote", "origin")
    assert checked.code == 1 and "GM109" in checked.out


def test_the_merge_and_recall_believe_dates_the_same_slack_ahead() -> None:
    """One figure for "a date from the future": recall and curate read it from core.limits
    (no merge imported on a no-op sync), the merge's ranking from its own pure module."""
    from gitmem.core import limits
    from merge_drivers import rank

    assert limits.FUTURE_SLACK == rank.FUTURE_SLACK == 86_400.0
