"""The sync's merges: what its steps run once two versions of memory differ, and only then.

A fetched tip that diverged from the local ref (`merge_tips`: integrate's 3-way merge), a disk
that differs from its ref where the ref moved since the folder last matched it
(`commit_merge`: the commit's merge with the ref's version), a folder without sync state
(`base_from_history`), edits a write-back displaced (`merge_displaced`). These need the merge
engine (`gitmem.merge.tree`, `merge_drivers`); each step imports this module at the one place
it decides there is something to merge, so a sync with nothing new never loads the engine
(docs/history/performance.md, `noop3`; tests/gitmem/test_sync_start.py checks it).
"""

import contextlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from gitmem.errors import GitmemError
from gitmem.gitstore.objects import blobs
from gitmem.gitstore.store import Store
from gitmem.merge.tree import Ages, closest_version, merge_trees
from gitmem.project.refmeta import rekeyed
from gitmem.project.scopes import Scope, hostname
from gitmem.sync.gate import RemoteGate
from gitmem.sync.ledger import SyncRun, _Direct, _strip
from merge_drivers.model import LOSING_REASONS

if TYPE_CHECKING:
    from gitmem.privacy.crypto import ScopeKey
    from gitmem.sync.folders import Snapshot


class Made(NamedTuple):
    """What a merge made here knows of its commit: its files as the ref's view reads them,
    and the newest change of each path since `base` (`change_times(base, commit)`)."""

    files: dict[str, str]
    base: str | None
    times: dict[str, float]


def merge_tips(
    run: SyncRun,
    gate: RemoteGate,
    ref: str,
    local: str,
    remote_tip: str,
    source: str | None,
    base: str | None,
    made: Made | None = None,
) -> tuple[str, Made]:
    """The merge commit of `local` and `remote_tip` over `base`, and what it knows of it
    (`Made`: a fold's next merge reads `local` from it instead of from git)."""
    repo, views = run.repo, run.views
    view = views.of(ref)
    base_files = view.files(base) if base else {}
    # plaintext: the files a merge here wrote are the tree's own (sealed: read them back)
    in_memory = made is not None and not view.sealed
    ours = made.files if made is not None and in_memory else view.files(local)
    if made is not None and in_memory and made.base == base:
        local_times = made.times
    else:
        local_times = repo.change_times(base, local)
    tip_times = repo.change_times(base, remote_tip)
    merged = merge_trees(
        repo,
        base_files,
        ours,
        view.files(remote_tip),
        view.times(local, local_times),
        view.times(remote_tip, tip_times),
        None if view.sealed else _line_ages(repo, base, local, remote_tip),
    )
    local_tree = ours if in_memory else blobs(repo.list_tree(local))
    sides = [gate.meta_of(f) for f in (local_tree, blobs(repo.list_tree(remote_tip)))]
    gate.set_meta(merged.files, [m for m in sides if m], adopt=run.opts.force_key)
    tree = view.tree(merged.files, view.merged_keyring(base, local, remote_tip))
    report = run.result.report(ref)
    report.resolutions.extend(merged.resolutions)
    if base is None:
        report.notes.append(
            f"{ref}: local and remote histories share no commit; merged file by file"
        )
    shown = [r for r in merged.resolutions if not view.hidden(r)]
    hidden = [r for r in merged.resolutions if view.hidden(r)]
    if hidden:  # commit messages travel in plaintext: these name encrypted files
        shown.append(views.codec_for(ref).seal_note(hidden))
    trailers = "".join(f"\nGitmem-Resolved: {r}" for r in shown)
    source = source or run.project.source_name(ref)
    message = f"gitmem: merge {source} on {hostname()}\n" + (
        f"\n{trailers.lstrip()}" if trailers else ""
    )
    commit = repo.write_commit(tree, [local, remote_tip], message)
    # base..commit is base..local and base..remote_tip (a merge names no path of its own):
    # each path's newest change of the two (a commit is never older than its parents)
    times = dict(local_times)
    for path, when in tip_times.items():
        times[path] = max(when, times.get(path, when))
    return commit, Made(dict(merged.files), base, times)


def _line_ages(repo: Store, base: str | None, local: str, remote: str) -> tuple[Ages, Ages]:
    """Each side's `git blame` of a file since the merge base (asked only for an index over
    the caps): when each plain bullet was written, the archive's rank for it (#24)."""

    def of(tip: str) -> Ages:
        return lambda path: repo.line_times(base, tip, path)

    return of(local), of(remote)


class ToCommit(NamedTuple):
    """The commit `commit_merge` found to make: its tree, the changes its message names, and
    the disk's side of the decisions that went against it."""

    tree: str
    changes: list[str]
    merged_any: bool  # a folder's disk differs from what this commit holds
    side: str | None  # disk_version's commit, the merge's second parent
    trailers: list[str]


def commit_merge(
    run: SyncRun,
    gate: RemoteGate,
    ref: str,
    scopes: list[Scope],
    snaps: "Mapping[str, Snapshot]",
    tip: str | None,
    rewrite: str | None,
    ring_from: str | None,
) -> ToCommit | None:
    """The folders' files merged into `tip`'s tree where the ref moved since a folder last
    matched it (`merge_trees` of what the folder held then, the disk, the ref); None when the
    ref already holds it all. `ring_from`: the commit whose key ring a new commit seals with."""
    repo, ledger, view = run.repo, run.ledger, run.views.of(ref)
    tip_files = view.files(tip) if tip else {}
    new_files = dict(tip_files)
    changes: list[str] = []
    merged_any = False  # a scope's disk differs from what this commit will hold
    beaten: dict[str, str] = {}  # ref path -> the disk's version a decision went against
    trailers: list[str] = []  # the decisions, as the merge with the disk's version says them
    for s in scopes:
        snap = snaps[s.name]
        expected = ledger.expected[s.name]
        on_ref = _strip(tip_files, s.prefix)
        if snap.files == expected and on_ref == expected:
            continue
        merged_any |= on_ref != expected
        merged = (
            merge_trees(repo, expected, snap.files, on_ref)
            if on_ref != expected
            else _Direct(snap.files)
        )
        # named from the ref's top, as the changes listed beside them (round 21: the user
        # scope's `.root/GEMINI.md`, a bare `activeContext.md` of cline/, told as stored)
        run.result.report(ref).resolutions.extend(f"{s.prefix}/{r}" for r in merged.resolutions)
        trailers += [f"{s.prefix}/{swapped(r)}" for r in merged.resolutions]  # disk: 2nd
        beaten.update(disk_beaten(merged.resolutions, s.prefix, snap.files))
        beaten.update(disk_beaten(merged.resolutions, s.prefix, snap.files, won=True))
        for rel in sorted(set(expected) | set(snap.files)):
            before, after = expected.get(rel), snap.files.get(rel)
            if before != after:
                changes.append(
                    f"{'A' if before is None else 'D' if after is None else 'M'} {s.prefix}/{rel}"
                )
        for rel in on_ref:
            new_files.pop(f"{s.prefix}/{rel}", None)
        new_files.update({f"{s.prefix}/{rel}": oid for rel, oid in merged.files.items()})
        ledger.expected[s.name] = dict(snap.files)  # what the disk holds now, as far as we know
    side = disk_version(run, ref, tip, tip_files, beaten) if tip and beaten else None
    if new_files == tip_files and not rewrite and side is None:
        return None
    meta = gate.meta_of(new_files)
    if meta is None or not meta.knows(run.project.key) or rekeyed(meta, run.project.key):
        # our history under another spelling (the remote URL changed), or made before the
        # repository had a remote: keep it, add ours
        gate.set_meta(new_files, [meta] if meta else [], adopt=True)
    # a first commit here encrypts with the remote's key (verified above), never a new one
    tree = view.tree(new_files, view.keyring(ring_from))
    if tip and tree == repo.read_commit(tip)[0] and side is None:
        return None
    return ToCommit(tree, changes, merged_any, side, trailers)


def merge_displaced(
    run: SyncRun,
    ref: str,
    s: Scope,
    before: Mapping[str, str],
    target: Mapping[str, str],
    displaced: Mapping[str, str],
) -> None:
    """Commit the edits a write-back displaced (made between its check and its rename) on
    top of the ref, merged against what the disk held before: the next round writes the
    merge back. The rename put `target` on disk, so that is what the disk holds now."""
    repo, view = run.repo, run.views.of(ref)
    tip = repo.resolve(ref)
    assert tip is not None
    edited = dict(before)
    for rel, oid in displaced.items():
        edited[rel] = oid
    merged = merge_trees(repo, before, edited, target)
    tip_files = view.files(tip)
    files = dict(tip_files)
    for rel in target:
        files.pop(f"{s.prefix}/{rel}", None)
    files.update({f"{s.prefix}/{rel}": oid for rel, oid in merged.files.items()})
    tree = view.tree(files, view.keyring(tip))
    count = len(displaced)
    listed = [f"M {s.prefix}/{rel}" for rel in sorted(displaced)]
    message = (
        f"gitmem: {count} file{'s' if count != 1 else ''} edited during the sync on "
        f"{hostname()}\n\n" + "\n".join(c for c in listed if not view.hidden(c[2:]))
    )
    # an edit of the disk the merge decided against: kept in a commit, the merge's 2nd parent
    beaten = disk_beaten(merged.resolutions, s.prefix, edited)
    side = disk_version(run, ref, tip, tip_files, beaten) if beaten else None
    if side is not None:
        trailers = [f"{s.prefix}/{swapped(r)}" for r in merged.resolutions]
        message += "\n\n" + resolved_trailers(run, ref, trailers)
    commit = repo.write_commit(tree, [tip] + ([side] if side else []), message)
    if side is not None:
        run.merged[commit] = "theirs"  # the disk's side: its losses are told here
    repo.update_ref(ref, commit, tip, "gitmem: commit edits made during the sync")
    report = run.result.report(ref)
    report.committed.extend([commit, side] if side else [commit])
    report.local_changes.extend(f"M {s.prefix}/{rel}" for rel in sorted(displaced))
    report.resolutions.extend(merged.resolutions)


# -- a folder without sync state ----------------------------------------------------------------


def base_from_history(
    run: SyncRun, ref: str, s: Scope, disk: Mapping[str, str], revs: Sequence[str]
) -> dict[str, str]:
    """For a folder without sync state: each file on disk whose bytes are a version the ref
    (local or remote: `revs`) once held is taken as unchanged since that version, so the ref's
    newer version replaces it and a deletion there applies; any other file is a local edit,
    merged from the version of its path it is closest to. Never "everything is new": that would
    merge stale copies into the newer memory (both bodies, one after the other)."""
    repo = run.repo
    seen = repo.blobs_in_history(list(revs), s.prefix)
    if not run.views.of(ref).sealed:
        return _closest(run, disk, {rel: seen.get(rel, set()) for rel in disk})
    # an encrypted prefix holds hidden names and ciphertext; the encryption is deterministic,
    # so the disk's bytes sealed with the ref's key are found in its history (the versions
    # written under an older key are not: those files merge as new)
    base: dict[str, str] = {}
    versions: dict[str, set[str]] = {rel: set() for rel in disk}  # of the edited ones
    for rev in revs:
        try:
            decoded = run.views.codec_for(ref).decode(rev)
        except GitmemError:
            continue
        if decoded.keyring is None or s.prefix not in decoded.sealed:
            base.update({rel: oid for rel, oid in disk.items() if oid in seen.get(rel, ())})
            for rel in disk:
                versions[rel].update(seen.get(rel, ()))
            continue
        key = decoded.keyring.key
        hidden = _by_hidden_name(seen)
        for rel, oid in disk.items():
            path = f"{s.prefix}/{rel}"
            if rel not in base and key.name(path) in hidden:
                cipher = repo.write_blob(key.seal(path, repo.read_blob(oid)))
                if cipher in hidden[key.name(path)]:
                    base[rel] = oid
                else:
                    versions[rel].update(_opened(run, key, path, hidden))
    return {**_closest(run, {r: disk[r] for r in disk if r not in base}, versions), **base}


def _closest(
    run: SyncRun, disk: Mapping[str, str], versions: Mapping[str, set[str]]
) -> dict[str, str]:
    """Each file's base: its own bytes when the ref once held them (unchanged since), else
    the version of its path it is closest to (edited since; merged from that version)."""
    base = {rel: oid for rel, oid in disk.items() if oid in versions.get(rel, ())}
    for rel in disk.keys() - base.keys():
        if found := closest_version(run.repo, disk[rel], versions.get(rel, ())):
            base[rel] = _said_on_disk(run, found, disk[rel])
    return base


def _said_on_disk(run: SyncRun, version: str, oid: str) -> str:
    """The guessed base, less the lines the file on disk does not say: with no sync state,
    nothing tells a line this machine deleted from one it never had (written on another
    machine after the version this file started from), so none is read as deleted here — it
    comes back, and a deletion meant is made again after this first sync, with state. Read as
    deleted, the other machine's lines were gone with no word (real corpora, round 11)."""
    old = run.repo.read_blob(version)
    said = {line.rstrip() for line in run.repo.read_blob(oid).split(b"\n")}
    lines = old.split(b"\n")
    kept = [line for line in lines if not line.strip() or line.rstrip() in said]
    return version if len(kept) == len(lines) else run.repo.write_blob(b"\n".join(kept))


def _opened(run: SyncRun, key: "ScopeKey", path: str, seen: Mapping[str, set[str]]) -> list[str]:
    """The plaintext blob ids of the sealed versions of `path` that `key` opens."""
    out = []
    for cipher in sorted(seen.get(key.name(path), ()))[:51]:  # closest_version's bound
        with contextlib.suppress(ValueError):
            out.append(run.repo.write_blob(key.open(path, run.repo.read_blob(cipher))))
    return out


def _by_hidden_name(seen: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """The blobs each hidden name held in history, whichever layout stored it then."""
    from gitmem.privacy.crypto import hidden_name

    out: dict[str, set[str]] = {}
    for rel, oids in seen.items():
        name = hidden_name(rel)
        if name is not None:
            out.setdefault(name, set()).update(oids)
    return out


# -- the disk's side of a merge -----------------------------------------------------------------


def swapped(resolution: str) -> str:
    """`PATH SUBJECT: SIDE (WHY)` of a merge whose sides are the other way round (ours is
    theirs): a merge of the disk into the ref has the ref as its first parent."""
    what, sep, outcome = resolution.rpartition(": ")
    side, space, why = outcome.partition(" ")
    other = {"ours": "theirs", "theirs": "ours"}.get(side, side)
    return f"{what}{sep}{other}{space}{why}" if sep else resolution


def disk_beaten(
    resolutions: Sequence[str], prefix: str, disk: Mapping[str, str], won: bool = False
) -> dict[str, str]:
    """{ref path: the disk's blob} of each file whose edit on disk (`ours` of a merge of the
    disk into the ref's version, `resolutions` naming paths inside the folder) lost; `won`:
    that beat the ref's edit (round 23 soak: a first sync's file of the same name beat a
    teammate's hook in a plain commit, the loss recorded nowhere). Either way the disk's
    version goes in a commit of its own, the merge's 2nd parent, and the decision is said."""
    out: dict[str, str] = {}
    for res in resolutions:
        rel, why = res.partition(" ")[0], res.rpartition(" (")[2].rstrip(")")
        side = "ours " if won else "theirs "
        lost = res.rpartition(": ")[2].startswith(side) and why in LOSING_REASONS
        if lost and rel in disk:
            out[f"{prefix}/{rel}"] = disk[rel]
    return out


def disk_version(
    run: SyncRun, ref: str, tip: str, tip_files: Mapping[str, str], beaten: Mapping[str, str]
) -> str:
    """A commit on top of `tip` holding the disk's version of each file a merge of the disk
    into the ref decided against (an edit made during the sync, in no commit yet): that merge
    then has it as its second parent, so `gitmem lost` lists it and `restore --lost` brings it
    back, as any edit a merge resolved against."""
    view = run.views.of(ref)
    files = dict(tip_files)
    files.update(beaten)
    tree = view.tree(files, view.keyring(tip))
    listed = [f"M {p}" for p in sorted(beaten) if not view.hidden(p)]
    message = (
        f"gitmem: {len(beaten)} file{'s' if len(beaten) != 1 else ''} edited during the sync on "
        f"{hostname()}\n\n" + "\n".join(listed)
    )
    return run.repo.write_commit(tree, [tip], message)


def resolved_trailers(run: SyncRun, ref: str, trailers: Sequence[str]) -> str:
    """The `Gitmem-Resolved:` lines of a commit message; those naming encrypted files sealed
    (commit messages travel in plaintext)."""
    view = run.views.of(ref)
    said = [t for t in trailers if not view.hidden(t)]
    hidden = [t for t in trailers if view.hidden(t)]
    if hidden:
        said.append(run.views.codec_for(ref).seal_note(hidden))
    return "".join(f"Gitmem-Resolved: {t}\n" for t in said)
