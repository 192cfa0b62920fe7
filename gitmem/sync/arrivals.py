"""What arrived from elsewhere in a sync, told as git tells it: `A`, `M`, `D`, `R` and who.

The sync reports the files it wrote or deleted on disk (`RefReport.pulled`); this module
tells what happened to each, from the memory refs' trees before and after the sync (plaintext
trees: the personal ref is opened with this machine's key), and who made it (the authors of
the commits that arrived). A file deleted under one name and added under another with the
same bytes is a rename (`R`); across the personal and the team ref, a promotion or a
demotion. Reading only: it never writes a ref or a file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gitmem.errors import GitmemError
from gitmem.project.scopes import shown

if TYPE_CHECKING:
    from gitmem.privacy.codec import PersonalCodec
    from gitmem.project.scopes import Project
    from gitmem.sync import SyncResult
    from gitmem.sync.report import RefReport


# bounds of one tree diff (gitstore/treediff.py): past them the whole listings are compared
MAX_CHANGES = 100_000
MAX_DEPTH = 64
MAX_TREE_BYTES = 64 << 20
EMPTY_TREES = {
    "sha1": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "sha256": "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
}


@dataclass(frozen=True)
class Arrival:
    letter: str  # A added, M modified, D deleted, R renamed (moved)
    path: str  # as the ref stores it: team/deploy.md
    source: str = ""  # R: where it was (auto/deploy.md)
    how: str = ""  # R across scopes: "promoted" or "demoted"
    authors: tuple[str, ...] = ()  # who made the commits that brought it, newest first

    def line(self) -> str:
        what = (
            f"{shown(self.source)} -> {shown(self.path)}"
            if self.letter == "R"
            else shown(self.path)
        )
        who = ", ".join(self.authors[:5]) + (
            f" and {len(self.authors) - 5} more" if len(self.authors) > 5 else ""
        )
        tail = "; ".join(w for w in (self.how, f"by {who}" if who else "") if w)
        return f"{self.letter} {what}" + (f" ({tail})" if tail else "")

    def as_json(self) -> dict[str, object]:
        return {
            "status": self.letter,
            "path": shown(self.path),
            "from": shown(self.source) if self.source else None,
            "how": self.how or None,
            "authors": list(self.authors),
        }


def tips(project: Project) -> dict[str, str | None]:
    """Each synced ref's tip now: what `arrivals` compares the tips after a sync with. One
    `for-each-ref` of its own: the store's cached listing is the sync's to read under its
    lock, not to be filled before it."""
    from gitmem.gitstore.base import REFS_LIST, needs_git, parse_refs

    refs = sorted({s.ref for s in project.scopes if s.ref and s.pushable})
    # the one parser of a ref listing: a writer ref under these (a teammate's name may hold
    # U+2028, which `splitlines` splits on) cannot pose as one of them
    found = parse_refs(
        needs_git(project.repo, "the tips read afresh").git(*REFS_LIST, *refs).stdout
    )
    return {ref: found.get(ref) for ref in refs}


def arrivals(
    project: Project,
    before: Mapping[str, str | None],
    pulled: Mapping[str, Iterable[str]],
    result: SyncResult | None = None,
) -> dict[str, list[Arrival]]:
    """For each ref, what happened to the files the sync wrote or deleted (`pulled`: ref ->
    `prefix/path`), from its plaintext trees before and after; a ref whose trees cannot be
    read (personal memory this machine cannot open) is left out: the caller prints its list
    as it is. `result`: the sync's, whose own commits (this machine's edits) name no author."""
    out: dict[str, list[Arrival]] = {}
    changes: dict[str, dict[str, tuple[str | None, str | None]]] = {}
    fresh: dict[str, set[str]] = {}  # files the ref held before and after: new on this disk
    unheld: dict[str, set[str]] = {}  # deleted on disk, in neither tree: a first sync's
    for ref, paths in pulled.items():
        wanted = set(paths)
        if not wanted:
            continue
        try:
            old, new = _plain_files(project, ref, before.get(ref)), None
            new = _plain_files(project, ref, project.repo.resolve(ref))
        except (GitmemError, ValueError, OSError):
            continue
        # a file the ref held before and after, written all the same: its folder is newly
        # synced here (an agent just enabled, a scope folder moved): new on this disk
        held: set[str] = set()  # every name either tree holds, as shown: one pass of both
        changes[ref] = {}
        for p in sorted(set(old) | set(new)):
            name = shown(p)
            held.add(name)
            if name in wanted and (old.get(p) != new.get(p) or p in new):
                changes[ref][p] = (old.get(p) if old.get(p) != new.get(p) else None, new.get(p))
        fresh[ref] = {p for p in changes[ref] if p in new and old.get(p) == new[p]}
        # deleted on disk, held by neither tree: the ref had no tip here before (a first sync,
        # a clone set up again after guide §10) and the sync took out what the remote deleted
        # since the version the folder started from; told `< path` with no letter before
        unheld[ref] = {p for p in wanted if p not in held}
        if unheld[ref]:
            changes[ref] = dict(
                sorted({**changes[ref], **dict.fromkeys(unheld[ref], (None, None))}.items())
            )
    # renames: one blob deleted under a name and added under another, in one ref or across two
    gone = {
        (oid, ref, p): None
        for ref, files in changes.items()
        for p, (oid, now) in files.items()
        if oid and not now
    }
    renamed: dict[tuple[str, str], tuple[str, str]] = {}  # (ref, new path) -> (ref, old path)
    taken: set[tuple[str, str]] = set()
    for ref, files in changes.items():
        for p, (was, oid) in files.items():
            if was or not oid:
                continue
            match = next(
                (
                    (r, q)
                    for (o, r, q) in gone
                    if o == oid and (r, q) not in taken and _name(q) == _name(p)
                ),
                None,
            ) or next(((r, q) for (o, r, q) in gone if o == oid and (r, q) not in taken), None)
            if match:
                renamed[(ref, p)] = match
                taken.add(match)
    for ref, files in changes.items():
        # this sync's own commits are on the pushed tip too: the merger is no writer of theirs
        ours = set(result.refs[ref].committed) if result and ref in result.refs else set()
        who = _Authors(project, ref, before.get(ref), ours=ours)
        # no tip here before (a first sync, guide §10's reinstall): a file written over one the
        # folder held was changed on this disk, not added (the dry run said it so too)
        replaced = (
            set(result.refs[ref].replaced)
            if result and ref in result.refs and before.get(ref) is None
            else set()
        )
        if fresh[ref]:  # who made them is in the ref's history, not in what arrived now
            made = _Authors(project, ref, None, project.repo.resolve(ref), ours)
        rows = []
        for p, (was, now) in files.items():
            if (ref, p) in taken:  # the other half of a rename: told where it arrived
                target = next(k for k, v in renamed.items() if v == (ref, p))
                if target[0] != ref:  # and here too when it left this ref for another
                    rows.append(Arrival("R", target[1], p, _how(p, target[1]), who.of(p)))
                continue
            if (ref, p) in renamed:
                _, source = renamed[(ref, p)]
                rows.append(Arrival("R", p, source, _how(source, p), who.of(p, source)))
            else:
                before_here = bool(was) or p in unheld[ref] or shown(p) in replaced
                letter = "A" if not before_here else "D" if not now else "M"
                rows.append(Arrival(letter, p, "", "", (made if p in fresh[ref] else who).of(p)))
        out[ref] = rows
    return out


class _Authors:
    """Who made the commits that arrived in `ref`, per file: the authors of the non-merge
    commits from the old tip to the remote's tip that touched it, newest first (the merge
    this machine made is not theirs); a file no commit names (a hidden name this machine
    cannot map), everyone's of the range."""

    def __init__(
        self,
        project: Project,
        ref: str,
        old: str | None,
        tip: str | None = None,
        ours: set[str] | frozenset[str] = frozenset(),
    ) -> None:
        self.project, self.ref = project, ref
        self._codec: PersonalCodec | None = None
        repo = project.repo
        if tip is None and project.remote:
            tip = repo.resolve(project.tracking_ref(ref))
        self.tip = tip or repo.resolve(ref)
        self.commits = []
        if self.tip is not None:
            try:
                found = repo.commits_touching(old, self.tip, limit=500)
                self.commits = [c for c in found if c.oid not in ours]
            except GitmemError:
                self.commits = []
        self.index_paths()

    def index_paths(self) -> None:
        """path -> the commits naming it, in order: built once (a teammate's commit of 100,000
        files asked once per file arrived: quadratic, a sync past two minutes; red team 6)."""
        self._touching: dict[str, list[int]] = {}
        for i, commit in enumerate(self.commits):
            for p in commit.paths:
                self._touching.setdefault(p, []).append(i)

    def _stored(self, path: str) -> set[str]:
        if self.ref != self.project.user_ref or self.tip is None:
            return {path}
        from gitmem.privacy.codec import personal_codec

        try:
            # one codec for every file: it decodes the tip once (a codec a file decoded the
            # whole sealed tree each time: 150 memories arrived took 17 s of a 22 s sync)
            if self._codec is None:
                self._codec = personal_codec(self.project.repo, self.ref)
            return {path, self._codec.stored_path(self.tip, path)}
        except (GitmemError, ValueError, OSError):
            return {path}

    def of(self, *paths: str) -> tuple[str, ...]:
        names = set().union(*(self._stored(p) for p in paths))
        found = sorted({i for name in names for i in self._touching.get(name, ())})
        touching = [self.commits[i] for i in found] or self.commits
        from gitmem.core.sanitize import bounded

        return tuple(
            dict.fromkeys(bounded(c.author or c.email) for c in touching if c.author or c.email)
        )


def _plain_files(project: Project, ref: str, commit: str | None) -> dict[str, str]:
    """path -> blob id of a commit of `ref`, in plaintext (the personal ref opened)."""
    if commit is None:
        return {}
    from gitmem.gitstore.objects import blobs

    if ref == project.user_ref:
        from gitmem.privacy.codec import personal_codec

        return dict(personal_codec(project.repo, ref).decode(commit).files)
    return blobs(project.repo.list_tree(commit))


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _how(source: str, target: str) -> str:
    a, b = source.partition("/")[0], target.partition("/")[0]
    if a == b:
        return ""
    return (
        "promoted" if a in ("auto", "local") else "demoted" if b in ("auto", "local") else "moved"
    )


# -- a dry run: what a sync would merge and write ---------------------------------------------


def dry_run_view(project: Project, result: SyncResult, timeout: float) -> dict[str, list[Arrival]]:
    """What the sync a dry run stands for would bring, per ref: the remote's changes since the
    merge base (their objects fetched without moving a ref), and the files of a scope folder
    that is missing or new here, which the sync writes from the ref (the dry run's own listing
    compares the folder with the last sync, and so called them deletions, or nothing)."""
    out: dict[str, list[Arrival]] = {}
    for ref, r in result.refs.items():
        restored = _restored(project, ref, r.local_changes)
        if restored:
            gone = {f"D {a.path}" for a in restored}
            r.local_changes[:] = [c for c in r.local_changes if shown(c) not in gone]
            r.notes.append(
                f"would write {len(restored)} file{'s' if len(restored) != 1 else ''} from "
                f"{ref}: the folder is missing or new here"
            )
            out.setdefault(ref, []).extend(restored)
    ahead = [ref for ref, r in result.refs.items() if r.remote_ahead]
    if ahead and project.remote:
        try:
            tips = _fetch_objects(project, ahead, timeout)
        except GitmemError:
            tips = {}
        for ref in ahead:
            theirs = tips.get(ref)
            if theirs is None:
                continue
            rows = _remote_changes(project, ref, theirs)
            if rows is not None:
                rows = _against_disk(project, ref, theirs, result.refs[ref], rows)
                out.setdefault(ref, []).extend(rows)
    _held_without_key(project, result)
    return out


def _against_disk(
    project: Project, ref: str, theirs: str, r: RefReport, rows: list[Arrival]
) -> list[Arrival]:
    """A dry run with no sync state and no tip here (a first sync after guide §10's removal,
    a reinstall): every file of the folder was a local `A` to push and every file of the
    remote a `< A` to write. Compared with the remote's files instead: a file alike on both
    sides is neither; one both hold, differing, is `M` both ways (the sync merges them)."""
    if not r.disk or project.repo.resolve(ref):
        return rows
    try:
        there = _plain_files(project, ref, theirs)
    except (GitmemError, ValueError, OSError):
        return rows
    older, edited = _older_or_edited(project, theirs, r.disk, there)
    alike = {shown(p) for p, oid in r.disk.items() if there.get(p) == oid}
    both = {shown(p) for p in r.disk if p in there}
    local = []
    for line in r.local_changes:
        letter, _, path = line.partition(" ")
        if path in alike or path in older:  # the remote's version replaces it: nothing to push
            continue
        local.append(f"M {path}" if letter == "A" and path in both else line)
    r.local_changes[:] = local
    kept = []
    for row in rows:
        name = shown(row.path)
        if row.letter == "A" and (name in alike or name in edited):
            continue
        kept.append(replace(row, letter="M") if row.letter == "A" and name in both else row)
    if not kept and not local:
        r.remote_ahead = False  # nothing to write or push: the sync only takes the ref
    return kept


def _older_or_edited(
    project: Project, theirs: str, disk: Mapping[str, str], there: Mapping[str, str]
) -> tuple[set[str], set[str]]:
    """Of the files both hold, differing: those the folder holds as a version the remote's
    history once had (it writes the newer), and those edited from the remote's own version
    (the sync pushes them) — as the sync's base from history decides (merging.base_from_history);
    the rest changed on both sides. Plaintext history only: a sealed ref's names are hidden."""
    from gitmem.merge.tree import closest_version

    differ = {p: oid for p, oid in disk.items() if p in there and there[p] != oid}
    older: set[str] = set()
    edited: set[str] = set()
    for prefix in sorted({p.split("/", 1)[0] for p in differ}):
        try:
            seen = project.repo.blobs_in_history([theirs], prefix)
            for p, oid in differ.items():
                if not p.startswith(prefix + "/"):
                    continue
                versions = seen.get(p[len(prefix) + 1 :], set())
                if oid in versions:
                    older.add(shown(p))
                elif versions and closest_version(project.repo, oid, versions) == there[p]:
                    edited.add(shown(p))
        except (GitmemError, ValueError, OSError):
            continue
    return older, edited


def _held_without_key(project: Project, result: SyncResult) -> None:
    """The personal ref sealed with a key this machine lacks: the sync would set its edits
    aside, kept on disk (gitmem/sync/session.py), not push them; the dry run says so, as the
    sync would, rather than "N local changes to push"."""
    ref = project.user_ref
    r = result.refs.get(ref)
    repo = project.repo
    tip = repo.resolve(ref) or (repo.resolve(project.tracking_ref(ref)) if project.remote else None)
    if r is None or tip is None or repo.object_type(tip) != "commit":
        return
    from gitmem.privacy.codec import personal_codec
    from gitmem.privacy.layout import SCOPE_KEY_FILE

    try:
        codec = personal_codec(repo, ref)
        codec.user_scope = project.key.startswith("user:")  # as sync/views.py sets it
        tree = repo.read_commit(tip)[0]
        if not repo.tree_entry(tree, SCOPE_KEY_FILE) or codec.scope_key(tree) is not None:
            return
        # a dry run makes no key: the grant line names one only where this machine has it
        option = " --user" if codec.user_scope else ""
        from gitmem.privacy.layout import grant_step

        line = (
            codec.grant_line()
            if codec.machine() is not None
            # no placeholder to paste: the key init that prints the recipient
            else (
                f"{ref}: your {'user-scope' if option else 'personal'} memory is encrypted with "
                f"a key this machine does not have; {grant_step(None, option)}"
            )
        )
    except (GitmemError, ValueError, OSError):
        return
    r.no_key = True
    r.held.extend(c.split(" ", 1)[1] for c in r.local_changes if " " in c)
    r.local_changes.clear()
    if line not in r.notes:
        r.notes.append(line)


def _restored(project: Project, ref: str, local_changes: list[str]) -> list[Arrival]:
    """Files of `ref`'s scopes that the sync would write from the ref: the scope has no
    state for this folder (a new clone, another path), or its folder is gone as a whole."""
    from gitmem.project.state import load_scope_state

    tip = project.repo.resolve(ref)
    if tip is None:
        return []
    try:
        files = _plain_files(project, ref, tip)
    except (GitmemError, ValueError, OSError):
        return []
    rows = []
    for s in project.scopes:
        if s.ref != ref or not s.pushable:
            continue
        state = load_scope_state(project.repo.common_dir, s.name)
        fresh = state.path != str(s.path) or not state.files
        gone = not s.path.exists()
        if not (fresh or gone):
            continue
        prefix = s.prefix + "/"
        for path in sorted(files):
            if not path.startswith(prefix) or path.removeprefix(prefix) in s.extra:
                continue
            rel = path.removeprefix(prefix)
            if rel.split("/", 1)[0] in s.exclude or (s.path / rel).exists():
                continue
            rows.append(Arrival("A", path, "", "written from the ref"))
    if rows:  # who made them: the ref's history (nothing arrives from the remote for them)
        made = _Authors(project, ref, None, tip)
        rows = [replace(a, authors=made.of(a.path)) for a in rows]
    return rows


def _fetch_objects(project: Project, refs: list[str], timeout: float) -> dict[str, str]:
    """The remote's tip of each of `refs`, fetched as `status --fetch` fetches (the tracking
    refs move; nothing is merged or written)."""
    from gitmem.sync.fetchpush import fetch_tracking

    fetch_tracking(project, timeout)
    repo = project.repo
    tips: dict[str, str] = {}
    for ref in refs:
        tip = repo.resolve(project.route(ref).tracking)
        if tip:
            tips[ref] = tip
    return tips


def _remote_changes(project: Project, ref: str, theirs: str) -> list[Arrival] | None:
    """What the remote changed since the merge base, with git's letters and authors; None
    when it cannot be read here (personal memory this machine cannot open, a tree past the
    bounds): the dry run then only says that there are changes."""
    repo = project.repo
    if repo.object_type(theirs) != "commit":
        return None
    local = repo.resolve(ref)
    base = repo.merge_base(local, theirs) if local else None
    try:
        if ref == project.user_ref:
            old, new = _plain_files(project, ref, base), _plain_files(project, ref, theirs)
        else:
            empty = EMPTY_TREES[repo.object_format]  # git knows it without storing it
            diff = repo.tree_changes(
                repo.read_commit(base)[0] if base else empty,
                repo.read_commit(theirs)[0],
                MAX_CHANGES,
                MAX_DEPTH,
                MAX_TREE_BYTES,
            )
            if diff is None:
                return None
            old = {c.path: c.old.oid for c in diff.changes if c.old}
            new = {c.path: c.new.oid for c in diff.changes if c.new}
    except (GitmemError, ValueError, OSError):
        return None
    from gitmem.project.refmeta import META_FILE

    paths = sorted(p for p in set(old) | set(new) if old.get(p) != new.get(p) and p != META_FILE)
    paths = [p for p in paths if "/" in p and not p.startswith(("keys/", "auto/manifest"))]
    who = _Authors(project, ref, base, theirs)
    gone = {old[p]: p for p in paths if p in old and p not in new}
    rows = []
    taken = set()
    for p in paths:
        if p in old and p not in new:
            continue
        if p not in old and new[p] in gone and gone[new[p]] not in taken:
            source = gone[new[p]]
            taken.add(source)
            rows.append(Arrival("R", p, source, _how(source, p), who.of(p, source)))
        else:
            rows.append(Arrival("A" if p not in old else "M", p, "", "", who.of(p)))
    rows += [Arrival("D", p, "", "", who.of(p)) for p in paths if p not in new and p not in taken]
    return sorted(rows, key=lambda a: a.path)
