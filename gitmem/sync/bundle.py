"""Offline handover: the project's memory refs as one git bundle file, and a bundle read back
like a fetch (docs/agents.md, "Bundles").

`create` commits the folders onto the local refs (no remote contacted), then writes those refs
to a bundle — sealed refs stay sealed: the bundle holds the commits as they are on the ref.
`unbundle` is a pull whose remote is the file: the refs land on holding refs
(refs/gitmem-remotes/gitmem-bundle/*), pass the same checks a fetched ref passes (policy and
tree, project key, signatures, the personal ref's seal; gitmem/syncremote.py), then merge or
fast-forward like a fetch. Never runs git itself (gitstore does), never pushes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.errors import GitmemError, RemoteError, UntrustedTreeError, UsageError
from gitmem.gitstore.base import needs_git
from gitmem.gitstore.bundles import Bundles
from gitmem.project.scopes import Project

if TYPE_CHECKING:
    from gitmem.sync import SyncResult


@dataclass(frozen=True)
class BundleMade:
    path: Path
    heads: dict[str, str]  # ref -> commit id in the bundle
    since: tuple[str, ...]  # commits the receiver must already have (an incremental bundle)
    written: bool  # False: nothing new since `since`, no file written
    skipped: tuple[str, ...] = ()  # scope files not committed ("scope: path (why)")


def memory_refs(project: Project) -> list[str]:
    """The refs of this project's synced scopes that exist here, in the sync's order."""
    refs = dict.fromkeys(s.ref for s in project.scopes if s.pushable)
    return [ref for ref in refs if project.repo.resolve(ref) is not None]


def create(project: Project, path: Path, since: str | None = None) -> BundleMade:
    """Commit the folders, then bundle the memory refs (incremental after `since`: a commit,
    a ref, or an earlier bundle file whose tips the receiver already has)."""
    from gitmem.sync import SyncOptions, run_sync

    target = Path(os.path.abspath(path))
    _writable_target(project, target)  # before anything is committed or written
    # the folders' edits go on the local refs first (what a push would publish: the secret
    # scan refuses as for a push), with no remote contacted
    result = run_sync(project._replace(remote=None, hub=None), SyncOptions(mode="push"))
    refs = memory_refs(project)
    if not refs:
        raise UsageError(
            f"no memory to bundle in {project.root}",
            "write some memory (or run gitmem sync), then retry",
        )
    bundles = Bundles(needs_git(project.repo, "a bundle"))  # one for the command
    exclude = _since(project, bundles, since) if since else ()
    written = bundles.create_bundle(target, refs, exclude)
    heads = bundles.bundle_header(target).heads if written else {}
    if written:
        why = bundles.verify_bundle(target)
        if why is not None:  # git wrote what it cannot read back: say so, keep nothing
            target.unlink(missing_ok=True)
            raise UsageError(f"the bundle {target} does not verify: {why}", "retry")
    return BundleMade(target, heads, tuple(exclude), written, tuple(result.skipped))


def _writable_target(project: Project, target: Path) -> None:
    """Where `bundle create` may write: git replaces the file named whole (a lock file renamed
    over it), so `.git/config`, `.git/HEAD`, `README.md` or a memory file became a bundle (red
    team 16: the repository broken, a user's file gone). Refused: a link, an existing file that
    is not a git bundle (an earlier bundle is written over), anything inside a git folder, a
    scope's memory folder or file."""
    from gitmem.project.confinement import within

    shown = str(target)
    how = "give a new file outside the git folder and the memory folders; nothing was written"
    if os.path.islink(target):
        raise UsageError(f"{shown} is a symbolic link", how)
    real = Path(os.path.join(os.path.realpath(target.parent), target.name))
    repo = project.repo
    gits = {Path(os.path.realpath(d)) for d in (repo.git_dir, repo.common_dir)}
    if any(part == ".git" for part in real.parts) or any(within(real, g) for g in gits):
        raise UsageError(f"{shown} lies in a git folder: git keeps its own files there", how)
    for scope in project.scopes:
        files = {Path(os.path.realpath(p)) for _, p in scope.outside}
        if within(real, Path(os.path.realpath(scope.path))) or real in files:
            raise UsageError(
                f"{shown} lies in the {scope.name} scope's memory ({scope.path}): "
                "a sync would take it",
                how,
            )
    if os.path.lexists(real) and not _is_bundle(real):
        raise UsageError(f"{shown} exists and is not a git bundle", how)


def _is_bundle(path: Path) -> bool:
    """A regular file that starts as a git bundle does (one an earlier create wrote)."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        return os.read(fd, 16) in (b"# v2 git bundle\n", b"# v3 git bundle\n")
    finally:
        os.close(fd)


def _since(project: Project, bundles: Bundles, since: str) -> tuple[str, ...]:
    """The commits an incremental bundle leaves out: an earlier bundle's tips, or one rev."""
    repo = project.repo
    if os.path.isfile(since):
        header = bundles.bundle_header(Path(os.path.abspath(since)))
        # what the receiver has after that bundle: its tips, and what it needed before it (a
        # ref left out of it as unchanged stays left out); a commit never here cannot be
        return tuple(
            sorted(
                {oid for oid in (*header.heads.values(), *header.needs) if repo.object_type(oid)}
            )
        )
    commit = repo.resolve(since) if not since.startswith("-") else None
    if commit is None:
        raise UsageError(
            f"--since {since!r} is neither a commit here nor a bundle file",
            "give a commit or ref (gitmem log), or the bundle file you handed over last",
        )
    return (commit,)


def unbundle(project: Project, path: Path, force_key: bool = False) -> SyncResult:
    """Read the bundle's memory refs as a fetch would, check them, merge them in (no push)."""
    from gitmem.sync import SyncOptions, run_sync

    repo = project.repo
    target = Path(os.path.abspath(path))
    if not target.is_file():
        raise UsageError(f"no bundle file at {target}", "give the file gitmem bundle create wrote")
    bundles = Bundles(needs_git(repo, "a bundle"))  # one for the command
    heads, needs = bundles.bundle_header(target)
    missing = [oid for oid in needs if repo.object_type(oid) is None]
    if missing:
        raise UsageError(
            f"refusing the bundle {target}: it is incremental, on {len(missing)} commit(s) "
            f"this clone never had ({missing[0][:12]}…)",
            "unbundle the bundle handed over before it first, or ask for a whole one "
            "(gitmem bundle create without --since)",
        )
    why = bundles.verify_bundle(target)
    if why is not None:
        raise UsageError(
            f"refusing the bundle {target}: {why}",
            "the file is damaged, altered or not a bundle; ask for it again (nothing was written)",
        )
    ours = memory_refs_named(project)
    if not any(ref in ours for ref in heads):
        raise UsageError(
            f"the bundle {target} holds no memory ref this clone syncs "
            f"({', '.join(sorted(heads)) or 'no refs'})",
            "make it with gitmem bundle create in a clone of this project, as the same "
            "user (git config gitmem.user) for the personal ref",
        )
    set_aside = _every_commit(project, target, {r: o for r, o in heads.items() if r in ours})
    bad_refs = {ref for ref, _ in set_aside}
    if set_aside and not any(ref in ours and ref not in bad_refs for ref in heads):
        raise set_aside[0][1]  # every ref refused: nothing to read
    scopes = tuple(
        s.name for s in project.scopes if s.pushable and s.ref in heads and s.ref not in bad_refs
    )
    reading = project._replace(bundle=str(target), remote=str(target), hub=None)
    try:
        result = run_sync(reading, SyncOptions(mode="pull", scopes=scopes, force_key=force_key))
    except RemoteError as exc:  # the fetch from the file failed: its pack does not read back
        raise UsageError(
            f"refusing the bundle {target}: {exc.message.split(': ', 1)[-1]}",
            "the file is damaged or was altered; ask for it again (nothing was written)",
        ) from None
    except UntrustedTreeError as exc:  # every ref refused: the first refusal comes up
        _bundle_hint(exc, project, path)
        raise
    result.refused.extend(exc for _, exc in set_aside)
    for refused in result.refused:
        _bundle_hint(refused, project, path)
    return result


def _every_commit(
    project: Project, target: Path, heads: dict[str, str]
) -> list[tuple[str, UntrustedTreeError]]:
    """(ref, why) for each of `heads` (ref -> the bundle's tip) with a commit new to this clone
    that breaks the policy — a secret or a hidden name added by one commit and removed by the
    next is still in the history the next sync would publish (the fetch checks the tip only).
    The bundle's objects are read in first (no ref written); each new commit checked once."""
    from gitmem.core.sanitize import terminal
    from gitmem.policy.commits import intermediate_findings

    repo = project.repo
    try:
        repo.fetch(str(target), sorted(heads))  # objects only: no destination, no FETCH_HEAD
    except RemoteError as exc:  # its pack does not read back
        raise UsageError(
            f"refusing the bundle {target}: {exc.message.split(': ', 1)[-1]}",
            "the file is damaged or was altered; ask for it again (nothing was written)",
        ) from None
    out: list[tuple[str, UntrustedTreeError]] = []
    for ref, tip in sorted(heads.items()):
        found = intermediate_findings(repo, tip, ref, ["--all"])
        if not found:
            continue
        commit, errors = found[0]
        first = errors[0]
        more = sum(len(e) for _, e in found) - 1
        out.append(
            (
                ref,
                UntrustedTreeError(
                    f"refusing {ref} from the bundle {target}: commit {commit[:12]} "
                    f"{first.code} {terminal(first.message)} ({terminal(first.path)})"
                    + (f" and {more} more" if more else "")
                    + ": the history would publish it even where a later commit removed it",
                    "ask for a bundle whose history never held it (the sender rewrites those "
                    "commits); nothing of that ref was taken",
                ),
            )
        )
    return out


def _bundle_hint(exc: GitmemError, project: Project, path: Path) -> None:
    """The way out of a bundle of another project is this command's, not a remote's adopt."""
    if "not of this one" in exc.message:
        from gitmem.core.sanitize import command_word

        exc.hint = (
            f"if it is this project: gitmem bundle unbundle {command_word(str(path))} --force-key (adds "
            f"{project.key!r} as an alias of the project on the refs)"
        )


def memory_refs_named(project: Project) -> set[str]:
    """The refs a bundle may bring to this clone: those of its synced scopes."""
    return {s.ref for s in project.scopes if s.pushable}
