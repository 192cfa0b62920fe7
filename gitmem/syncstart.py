"""`gitmem sync` when nothing changed anywhere: the fetch and git's stat check of every folder,
started at once before the rest of gitmem is imported (gitmem/quickstart.py).

The full sync records, inside its lock at the end of a run that left every folder, state file
and ref in agreement, what it would ask next time: the fetch, the two `git` stat checks of each
scope folder against its index (gitstore/index.py), the few files git cannot vouch for (with the
stat the state holds for them), the state and index files themselves. When the replay finds no
ref moved, every check silent and every file as recorded, the full sync would commit, merge,
write and push nothing: the quick start prints what it would print ("… up to date") and stops.
Anything else runs the full sync, exactly as before.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # not typing's: every import here is paid before the fetch starts
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from gitmem.gitstore import Repository
    from gitmem.scopes import Scope
    from gitmem.state import FileRecord, ScopeHead
    from gitmem.sync import Syncer

MARKER = "sync-start"  # the record, in <git-dir>/gitmem/ (gitmem/quickstart.py)
# the command lines it answers (after `-C DIR`), and whether each is quiet; any other goes to
# the one command-line parser
FORMS = {("sync",): False, ("sync", "-q"): True, ("sync", "--quiet"): True}


def main(argv: Sequence[str]) -> int:
    """`gitmem [-C DIR] sync [-q]`: the quick start, else the one command-line parser."""
    directory, rest = (argv[1], argv[2:]) if argv[:1] == ["-C"] and len(argv) > 1 else (".", argv)
    quiet = FORMS.get(tuple(rest))
    if quiet is not None and os.path.isdir(directory):
        try:
            lines = quick_sync(os.path.abspath(directory))
        except Exception:  # any doubt: the full sync decides, and says why if it fails
            lines = None
        if lines is not None:
            if not quiet:
                sys.stdout.write("".join(line + "\n" for line in lines))
            return 0
    from gitmem.cli import main as cli_main

    return cli_main(list(argv))


def quick_sync(here: str) -> list[str] | None:
    """What a sync in the folder `here` that finds nothing to do prints, or None (run the
    full sync)."""
    from gitmem.quickstart import find_record, moves, replay

    Replay.fetched = None
    record = find_record(here, MARKER)
    if record is None or len(record.get("say", ())) != 1:
        return None
    Replay.started = time.monotonic()
    deadline = Replay.started + float(record["timeout"][0][0])
    said: list[bytes] = []
    settled = replay(record, here, deadline, said)
    if settled is False:  # a ref would move: the full sync moves it from the dry run's answer
        found = moves(said)
        if found:
            Replay.fetched = (tuple(tuple(f) for f in record.get("fetch", ())), found)
    if settled is not True:
        return None
    return record["say"][0]


class Replay:
    started: float | None = None  # when the quick start's fetch began, if it did
    # the recorded fetches the dry run replayed and the tracking refs they would move
    # (gitmem.syncbase.Fetched): the full sync does not fetch them again
    fetched: tuple[tuple[tuple[str, ...], ...], dict[str, tuple[str, str]]] | None = None


def spent() -> float:
    """Seconds the quick start's replay took: the full sync's transport bound is what is left
    of gitmem.timeout (a hung remote is waited for once, not twice)."""
    return time.monotonic() - Replay.started if Replay.started is not None else 0.0


# -- the record, written by the full sync --------------------------------------------------------


def record(syncer: Syncer) -> None:
    """SyncOptions.settled of `gitmem sync`: record what the next no-op sync asks, or remove
    the record when this run left something a quick start could not vouch for."""
    from gitmem.quickstart import forget, write_record

    try:
        fields = _fields(syncer)
        if fields is None:
            forget(syncer.project, MARKER)
        else:
            write_record(syncer.project, MARKER, fields)
    except (OSError, ValueError):
        forget(syncer.project, MARKER)


def _fields(syncer: Syncer) -> list[tuple[str, Sequence[str]]] | None:
    from gitmem.gitstore.index import FolderCheck, index_path, matches
    from gitmem.quickstart import base_fields, stamp
    from gitmem.state import state_dir, state_file

    project, opts, repo = syncer.project, syncer.opts, syncer.repo
    whole = opts.mode == "sync" and not opts.scopes and not opts.dry_run
    if not whole or project.remote is None or syncer.result.skipped:
        return None
    if any(s.refused for s in project.scopes):
        return None
    for ref in syncer.by_ref:  # pushed and merged: the local ref is the remote's, or neither is
        if repo.resolve(ref) != repo.resolve(project.tracking_ref(ref)):
            return None
    fields = base_fields(project, opts.timeout)
    common = repo.common_dir
    for s in syncer.scopes:
        index = index_path(common, s.name)
        head = syncer.heads.get(s.name) if s.name not in syncer.states else None
        if head is not None:  # the sync decided without loading the records: neither does this
            scope = _from_head(syncer, s, head, index)
            if scope is None:
                return None
            fields += scope
            continue
        state = syncer.states[s.name]
        if s.name in syncer.dirty_state or state.commit != repo.resolve(s.ref):
            return None
        if not os.path.lexists(s.path):  # no folder (its absence is watched): nothing synced
            if any(rel not in s.extra for rel in state.files):
                return None  # sync would bring the folder back from the ref
        elif not s.path.is_dir() or os.path.lexists(s.path / ".git"):
            return None
        # what the sync looks at whatever git says: stale records, records not in the index,
        # files outside the folder; vouched for by the stat the state holds, as sync does
        unvouched = set(state.stale) | {
            rel for rel, r in state.files.items() if not (r.mtime_ns and r.ctime_ns)
        }
        if not matches(index, state.index):
            # no index the state trusts: sync walks the folder and compares every record's
            # stat. So does this: git's check against an empty index (a file that does not
            # exist) names every file, each must be a record whose stat still matches
            index = index.with_name(f"{s.name}.empty")
            if os.path.lexists(index):
                return None
            unvouched = set(state.files)
        if os.path.isdir(s.path):
            # each file by name: a folder pulled since the index was written holds files the
            # state vouches for by their stat (looked at below), which `name/` would hide
            checks = FolderCheck.commands(repo.git_dir, index, s.path, s.exclude, folders=False)
            for argv, env in checks:
                fields.append(_check_field(s, argv, env))
                # what git names now: files deleted since the index was written (expected
                # absent), else only files vouched for by their stat
                for rel in _named(repo, argv, env):
                    if rel in state.files and rel not in unvouched:
                        return None  # git sees a change the state does not: sync looks
                    unvouched.add(rel)
        looks = _look_fields(s, unvouched, state.files)
        if looks is None:
            return None
        fields += looks
        for watched in (state_file(common, s.name), index):
            fields.append(("watch", [str(watched), stamp(str(watched))]))
    for watched in (common / "info" / "exclude", state_dir(common) / "cipher-form.json"):
        fields.append(("watch", [str(watched), stamp(str(watched))]))
    fields.append(("say", [f"{ref}: up to date" for ref in sorted(syncer.by_ref)]))
    return fields


def _from_head(
    syncer: Syncer, s: Scope, head: ScopeHead, index: Path
) -> list[tuple[str, Sequence[str]]] | None:
    """A scope's fields from its state's head (records apart from the index, the index's
    checksum), when the sync found the folder unchanged without loading the index's records:
    git vouches for every indexed file, the stat of each record apart for the rest."""
    from gitmem.gitstore.index import FolderCheck, matches
    from gitmem.quickstart import stamp
    from gitmem.state import state_file

    repo = syncer.repo
    if s.name in syncer.dirty_state or head.commit != repo.resolve(s.ref):
        return None
    if not s.path.is_dir() or os.path.lexists(s.path / ".git") or not matches(index, head.checksum):
        return None
    fields: list[tuple[str, Sequence[str]]] = []
    unvouched = set(head.apart)
    checks = FolderCheck.commands(repo.git_dir, index, s.path, s.exclude, folders=False)
    for argv, env in checks:
        fields.append(_check_field(s, argv, env))
        if any(rel not in unvouched for rel in _named(repo, argv, env)):
            return None  # git names a file the records apart do not: let the sync look
    looks = _look_fields(s, unvouched, head.apart)
    if looks is None:
        return None
    fields += looks
    for watched in (state_file(repo.common_dir, s.name), index):
        fields.append(("watch", [str(watched), stamp(str(watched))]))
    return fields


def _check_field(s: Scope, argv: list[str], env: dict[str, str]) -> tuple[str, Sequence[str]]:
    """A record's `check` line: git's stat check of the folder, with its environment."""
    named = [f"{k}={v}" for k, v in env.items()]
    return ("check", [str(s.path), str(len(named)), *named, *argv])


def _look_fields(
    s: Scope, unvouched: set[str], records: Mapping[str, FileRecord | None]
) -> list[tuple[str, Sequence[str]]] | None:
    """A record's `look` lines: each file git cannot vouch for, with the stat its record holds
    (`-`: expected absent); None when a record is too fresh (or too old) to vouch for."""
    looks = {str(s.path / rel): records.get(rel) for rel in unvouched - set(s.extra)}
    looks.update({str(path): records.get(rel) for rel, path in s.extra.items()})
    fields: list[tuple[str, Sequence[str]]] = []
    for path, rec in sorted(looks.items()):
        if rec is not None and not (rec.mtime_ns and rec.dev):
            return None
        seen = f"f{rec.dev}:{rec.ino}:{rec.size}:{rec.mtime_ns}" if rec else "-"
        fields.append(("look", [path, seen]))
    return fields


def _named(repo: Repository, argv: list[str], env: dict[str, str]) -> list[str]:
    from gitmem.gitstore.process import run_git

    out = run_git(argv, cwd=repo.git_dir, env=env).stdout
    return out.decode("utf-8", "surrogateescape").split("\0")[:-1]


def forget_after_failure(git_dir: Path) -> None:
    """A sync that failed may have left anything: the next one runs in full."""
    from gitmem.quickstart import forget_record

    forget_record(git_dir, MARKER)
