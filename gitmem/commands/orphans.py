"""Memory folders of this project that nobody loads any more, and bringing one home.

Claude Code keys memory by the checkout's absolute path: a moved or renamed clone, or a deleted
worktree, leaves `<claude>/projects/<old slug>/memory` behind. gitmem knows the project by its
remote, so it can name such folders — those this clone synced from before (recorded here, and
the sync state's last path), and those whose checkout is gone but whose files are versions this
project's memory once held (by blob id) — and merge one in through the sync's own path (a folder
without sync state: each file's base is found in the ref's history, so nothing is lost).

Never deletes a folder (the user does, once told it is safe); every check is bounded.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

from gitmem.core import jsondata
from gitmem.errors import GitmemError, UsageError
from gitmem.project.confinement import within
from gitmem.project.identity import claude_config_dir, claude_slug
from gitmem.project.scopes import TEAM_REF, Project, Scope, confine
from gitmem.project.state import (
    LEFT,
    left_state,
    load_scope_state,
    owner_file,
    read_scope_head,
    save_scope_state,
    state_file,
)
from gitmem.project.syncedfolders import known_folders, save_folders

MAX_SLUGS = 2000  # project folders looked at under <claude>/projects
MAX_FILES = 2000  # files hashed per candidate folder
MAX_FILE_BYTES = 1 << 20
MAX_COMMITS = 200  # commits of a sealed personal ref opened to learn its plaintext versions
MAX_LISTINGS = 400  # folders listed while looking for a slug's checkout
TRANSCRIPT_BYTES = 1 << 16
# the temporary scopes an adoption syncs: their state is dropped afterwards
ADOPTED = {"auto": "adopted-auto", "team": "adopted-team"}


class Orphan(NamedTuple):
    path: Path  # the memory folder
    files: int
    known: int  # files whose bytes this project's memory once held
    why: str  # how it was found, in one clause


class Adopted(NamedTuple):
    path: Path
    committed: tuple[str, ...]  # "A auto/x.md": what the folder brought to the refs
    written: tuple[str, ...]  # files of this clone's folders written from it
    resolutions: tuple[str, ...]
    skipped: tuple[str, ...]


# -- the folders this clone synced -------------------------------------------------------------


def _recorded(project: Project) -> Iterator[tuple[Path, str]]:
    """(folder, why) for each auto folder this clone synced before, other than today's."""
    common = project.repo.common_dir
    paths = list(known_folders(common).get("auto", []))
    head = read_scope_head(common, "auto")
    last = head.path if head is not None else load_scope_state(common, "auto").path
    if last and last not in paths:
        paths.append(last)
    for text in reversed(paths):
        yield Path(text), "this clone synced it before (at its old path)"


# -- finding orphans ----------------------------------------------------------------------------


def find_orphans(project: Project) -> list[Orphan]:
    """Memory folders on this machine that hold this project's memory at a path no clone
    loads any more (bounded: MAX_SLUGS folders, MAX_FILES files each)."""
    current = [s.path for s in project.scopes]
    auto = project.scope("auto").path
    adopted = known_folders(project.repo.common_dir).get("adopted", {})
    assert isinstance(adopted, dict)
    seen: set[Path] = set()
    out: list[Orphan] = []
    versions: set[str] | None = None
    for folder, why, needs_match in _candidates(project):
        if folder in seen or any(within(folder, c) or within(c, folder) for c in current):
            continue
        seen.add(folder)
        if not folder.is_dir() or folder == auto:
            continue
        files = dict(_files(project, folder))
        if not files or adopted.get(str(folder)) == _fingerprint(files):
            continue  # empty, or adopted already and unchanged since
        if versions is None:
            versions = project_versions(project)
        known = sum(1 for oid in files.values() if oid in versions)
        if needs_match and not known:
            continue  # another project's folder, or one never synced: not ours to name
        out.append(Orphan(folder, len(files), known, why))
    return out


def _candidates(project: Project) -> Iterator[tuple[Path, str, bool]]:
    projects = claude_config_dir(os.environ) / "projects"
    budget = [MAX_LISTINGS * 5]  # for every slug together: a doctor stays quick
    for folder, why in _recorded(project):
        if folder.parent.parent == projects and _loaded(folder.parent, budget):
            continue  # a checkout lives at the old path again (a new clone there loads it)
        yield folder, why, False
    try:
        with os.scandir(projects) as it:
            slugs = sorted(e.name for e in it if e.is_dir(follow_symlinks=False))[:MAX_SLUGS]
    except OSError:
        return
    for slug in slugs:
        folder = projects / slug / "memory"
        if not folder.is_dir():
            continue
        checkout = transcript_checkout(projects / slug)
        if checkout is not None:
            if os.path.isdir(checkout):
                continue  # a live checkout loads it (another clone, maybe of this project)
            yield folder, f"its checkout {checkout} is gone", True
            continue
        found = live_checkout(slug, budget)
        if found is None:
            yield folder, "no folder on this machine has its path any more", True


def _loaded(slug_dir: Path, budget: list[int]) -> bool:
    """A checkout on this machine loads the slug's memory (or the search cannot tell)."""
    checkout = transcript_checkout(slug_dir)
    if checkout is not None:
        return os.path.isdir(checkout)
    return live_checkout(slug_dir.name, budget) is not None


def transcript_checkout(slug_dir: Path) -> str | None:
    """The working folder Claude Code recorded in the slug's session transcripts (`"cwd"` of
    a line of a `*.jsonl`), read from the first bytes of a few files only."""
    try:
        with os.scandir(slug_dir) as it:
            names = sorted(e.name for e in it if e.name.endswith(".jsonl"))[:5]
    except OSError:
        return None
    for name in names:
        try:  # never blocking on a FIFO named like a transcript, never reading a device
            fd = os.open(slug_dir / name, os.O_RDONLY | os.O_NONBLOCK)
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    continue
                head = os.pread(fd, TRANSCRIPT_BYTES, 0)
            finally:
                os.close(fd)
        except OSError:
            continue
        for line in head.splitlines()[:50]:
            try:
                cwd = jsondata.loads(line).get("cwd")
            except (ValueError, AttributeError):
                continue
            if isinstance(cwd, str) and cwd.startswith("/"):
                return cwd
    return None


def live_checkout(slug: str, budget: list[int] | None = None) -> Path | bool | None:
    """A folder on this machine whose path gives `slug` (a live checkout), None when there is
    none, True when the bounded search could not tell (then the folder is not named).
    `budget`: folders it may still list, shared by the searches of one doctor run."""
    if len(slug) > 200:
        return True  # the slug of a long path ends in a hash: the walk cannot follow it
    if budget is None:
        budget = [MAX_LISTINGS]

    def search(folder: str) -> Path | bool | None:
        if budget[0] <= 0:
            return True
        budget[0] -= 1
        try:
            with os.scandir(folder) as it:
                names = [e.name for e in it if e.is_dir(follow_symlinks=False)]
        except OSError:
            return None
        unsure = False
        for name in sorted(names):
            path = os.path.join(folder, name)
            mine = claude_slug(path)
            if mine == slug:
                return Path(path)
            if slug.startswith(mine + "-"):
                found = search(path)
                if found is True:
                    unsure = True
                elif found is not None:
                    return found
        return True if unsure else None

    return search("/")


def _files(project: Project, folder: Path) -> Iterator[tuple[str, str]]:
    from gitmem.sync.folders import markdown_files

    return markdown_files(project.repo, folder, MAX_FILES, MAX_FILE_BYTES)


def _fingerprint(files: Mapping[str, str]) -> str:
    from hashlib import sha256

    return sha256(json.dumps(sorted(files.items())).encode()).hexdigest()


def project_versions(project: Project) -> set[str]:
    """The plaintext blob ids this project's memory ever held here: every version of the team
    folder, and of the personal auto folder (opened with this machine's key when sealed)."""
    repo = project.repo
    found: set[str] = set()
    team = [r for r in (TEAM_REF, _tracking(project, TEAM_REF)) if r and repo.resolve(r)]
    for oids in repo.blobs_in_history(team, "team").values() if team else ():
        found |= oids
    ref = project.user_ref
    if repo.resolve(ref) is None:
        return found
    tip = repo.resolve(ref)
    assert tip is not None
    if repo.tree_entry(repo.read_commit(tip)[0], "auto/manifest") is None:
        for oids in repo.blobs_in_history([ref], "auto").values():
            found |= oids
        return found
    from gitmem.privacy.codec import personal_codec

    codec = personal_codec(repo, ref)
    for commit in repo.log(ref, None, MAX_COMMITS):
        try:
            plain = codec.decode(commit["commit"]).files
        except GitmemError:
            continue
        found.update(oid for path, oid in plain.items() if path.startswith("auto/"))
    return found


def _tracking(project: Project, ref: str) -> str | None:
    return project.tracking_ref(ref) if project.remote else None


# -- adopting one -------------------------------------------------------------------------------


def adopt_folder(project: Project, path: Path) -> Adopted:
    """Merge the memory folder `path` (an old auto folder: its files and its team/) into this
    project: committed onto the refs as edits of the versions the ref's history holds (nothing
    lost), then written into this clone's folders. `path` itself is not removed."""
    from gitmem.sync import SyncOptions, run_sync

    folder = Path(os.path.abspath(os.path.expanduser(path)))
    if not folder.is_dir():
        raise UsageError(f"no memory folder at {folder}", "give a folder gitmem doctor names")
    scopes = _adopted_scopes(project, folder)
    for s in project.scopes:
        if within(folder, s.path) or within(s.path, folder):
            how = "is" if folder == s.path else "lies in" if within(folder, s.path) else "holds"
            raise UsageError(
                f"{folder} {how} this clone's {s.name} folder: already synced",
                "give an old folder, as gitmem doctor names it",
            )
    live = _live_owner(folder)
    if live is not None:
        raise UsageError(
            f"{folder} is the memory of the checkout {live}, which still loads it: "
            "another project's (or another clone's) memory, not an orphan",
            f"sync it there (gitmem -C {shlex.quote(str(live))} sync); adopt only a folder "
            "gitmem doctor names",
        )
    if not scopes:
        raise UsageError(
            f"nothing to adopt from {folder}: this clone syncs neither auto nor team memory",
            "gitmem status says why",
        )
    common = project.repo.common_dir
    if project.remote is not None and any(project.repo.resolve(s.ref) is None for s in scopes):
        # a clone that never synced: start from the remote's history (its key, its versions),
        # never a second one made here
        run_sync(project, SyncOptions(mode="pull"))
    used = []
    for s in scopes:  # the folder this clone left: its edits since, onto what they edited
        left = left_state(common, s.prefix, s.path)
        if left is not None:
            save_scope_state(common, s.name, left)
            used.append(LEFT + s.prefix)
    try:
        taken = run_sync(
            project._replace(scopes=scopes, remote=None, hub=None), SyncOptions(mode="sync")
        )
    finally:
        _forget_state(common, used)
    home = run_sync(project._replace(remote=None, hub=None), SyncOptions(mode="sync"))
    known = known_folders(common)
    adopted = known.setdefault("adopted", {})
    assert isinstance(adopted, dict)
    adopted[str(folder)] = _fingerprint(dict(_files(project, folder)))
    save_folders(common, known)
    return Adopted(
        folder,
        tuple(c for r in taken.refs.values() for c in r.local_changes),
        tuple(p for r in home.refs.values() for p in r.pulled),
        tuple(x for r in taken.refs.values() for x in r.resolutions),
        tuple(taken.skipped),
    )


def _live_owner(folder: Path) -> Path | None:
    """The checkout on this machine whose Claude Code memory folder holds or is `folder`
    (`<claude>/projects/<slug>/memory`, a live checkout at the slug's path), or None."""
    projects = claude_config_dir(os.environ) / "projects"
    for memory in (folder, *folder.parents):
        if memory.name != "memory" or memory.parent.parent != projects:
            continue
        checkout = transcript_checkout(memory.parent)
        if checkout is not None:
            return Path(checkout) if os.path.isdir(checkout) else None
        found = live_checkout(memory.parent.name, [MAX_LISTINGS])
        return found if isinstance(found, Path) else None
    return None


def _adopted_scopes(project: Project, folder: Path) -> tuple[Scope, ...]:
    """The folder as scopes of their own (their state is dropped after): its files on the
    personal ref's auto/, its team/ on the team ref — confined like any scope folder."""
    auto, team = project.scope("auto"), project.scope("team")
    scopes: list[Scope] = []
    if auto.pushable:
        scopes.append(Scope(ADOPTED["auto"], folder, auto.ref, "auto", exclude=frozenset({"team"})))
    if team.pushable and (folder / "team").is_dir():
        scopes.append(Scope(ADOPTED["team"], folder / "team", team.ref, "team"))
    confined = confine(scopes, project.tree, project.repo.is_bare, adopted=(folder,))
    for s in confined:
        if s.refused:
            raise UsageError(f"cannot adopt {s.path}: {s.note}", "give a memory folder")
    return confined


def _forget_state(common_dir: Path, left: list[str]) -> None:
    """Drop the sync state of the adoption's own scopes (nothing else reads it), and the left
    folder's state it started from."""
    from gitmem.gitstore.folderindex import index_path

    for name in (*ADOPTED.values(), *left):
        for path in (
            state_file(common_dir, name),
            index_path(common_dir, name),
            owner_file(common_dir, name),
        ):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


def slug_folder(project: Project, checkout: Path) -> Path:
    """Where Claude Code keeps auto memory for a checkout at `checkout`."""
    return claude_config_dir(os.environ) / "projects" / claude_slug(str(checkout)) / "memory"
