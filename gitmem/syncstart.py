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
    from collections.abc import Sequence
    from pathlib import Path

    from gitmem.gitstore import Repository
    from gitmem.scopes import Scope
    from gitmem.state import ScopeHead
    from gitmem.sync import Syncer

MARKER = "sync-start"  # the record, in <common-dir>/gitmem/
FORMS = {("sync",): False, ("sync", "-q"): True, ("sync", "--quiet"): True}  # argv -> quiet


def main(argv: Sequence[str]) -> int:
    """`gitmem sync [-q]`: the quick start, else the one command-line parser."""
    quiet = FORMS.get(tuple(argv))
    if quiet is not None:
        try:
            lines = quick_sync()
        except Exception:  # any doubt: the full sync decides, and says why if it fails
            lines = None
        if lines is not None:
            if not quiet:
                sys.stdout.write("".join(line + "\n" for line in lines))
            return 0
    from gitmem.cli import main as cli_main

    return cli_main(list(argv))


def quick_sync() -> list[str] | None:
    """What a sync that finds nothing to do prints, or None (run the full sync)."""
    from gitmem.quickstart import find_record, replay

    here = os.getcwd()
    record = find_record(here, MARKER)
    if record is None or len(record.get("say", ())) != 1:
        return None
    Replay.started = time.monotonic()
    deadline = Replay.started + float(record["timeout"][0][0])
    if replay(record, here, deadline) is not True:
        return None
    return record["say"][0]


class Replay:
    started: float | None = None  # when the quick start's fetch began, if it did


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
        elif not state.files and not state.index:
            # nothing synced from this folder yet: git's check against an empty index (a file
            # that does not exist) names every file in it, and prints nothing while it is empty
            index = index.with_name(f"{s.name}.empty")
            if os.path.lexists(index):
                return None
        elif not matches(index, state.index):
            return None  # no index to check the folder against: sync walks it in Python
        # what the sync looks at whatever git says: stale records, records not in the index,
        # files outside the folder; vouched for by the stat the state holds, as sync does
        unvouched = set(state.stale) | {
            rel for rel, r in state.files.items() if not (r.mtime_ns and r.ctime_ns)
        }
        if os.path.isdir(s.path):
            # each file by name: a folder pulled since the index was written holds files the
            # state vouches for by their stat (looked at below), which `name/` would hide
            checks = FolderCheck.commands(repo.git_dir, index, s.path, s.exclude, folders=False)
            for argv, env in checks:
                named = [f"{k}={v}" for k, v in env.items()]
                fields.append(("check", [str(s.path), str(len(named)), *named, *argv]))
                # what git names now: files deleted since the index was written (expected
                # absent), else only files vouched for by their stat
                for rel in _named(repo, argv, env):
                    if rel in state.files and rel not in unvouched:
                        return None  # git sees a change the state does not: sync looks
                    unvouched.add(rel)
        looks = {str(s.path / rel): state.files.get(rel) for rel in unvouched - set(s.extra)}
        looks.update({str(path): state.files.get(rel) for rel, path in s.extra.items()})
        for path, rec in sorted(looks.items()):
            if rec is not None and not (rec.mtime_ns and rec.dev):
                return None  # a record too fresh (or too old) to vouch for by its stat
            seen = f"f{rec.dev}:{rec.ino}:{rec.size}:{rec.mtime_ns}" if rec else "-"
            fields.append(("look", [path, seen]))
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
        named = [f"{k}={v}" for k, v in env.items()]
        fields.append(("check", [str(s.path), str(len(named)), *named, *argv]))
        if any(rel not in unvouched for rel in _named(repo, argv, env)):
            return None  # git names a file the records apart do not: let the sync look
    looks = {str(s.path / rel): head.apart.get(rel) for rel in unvouched - set(s.extra)}
    looks.update({str(path): head.apart.get(rel) for rel, path in s.extra.items()})
    for path, rec in sorted(looks.items()):
        if rec is not None and not (rec.mtime_ns and rec.dev):
            return None  # a record too fresh (or too old) to vouch for by its stat
        seen = f"f{rec.dev}:{rec.ino}:{rec.size}:{rec.mtime_ns}" if rec else "-"
        fields.append(("look", [path, seen]))
    for watched in (state_file(repo.common_dir, s.name), index):
        fields.append(("watch", [str(watched), stamp(str(watched))]))
    return fields


def _named(repo: Repository, argv: list[str], env: dict[str, str]) -> list[str]:
    from gitmem.gitstore.process import run_git

    out = run_git(argv, cwd=repo.git_dir, env=env).stdout
    return out.decode("utf-8", "surrogateescape").split("\0")[:-1]


def forget_after_failure(common_dir: Path) -> None:
    """A sync that failed may have left anything: the next one runs in full."""
    import contextlib

    with contextlib.suppress(OSError):
        os.unlink(common_dir / "gitmem" / MARKER)
