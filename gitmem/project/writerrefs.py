"""The names of the team ref's writer refs (gitmem/sync/writers.py; docs/design.md §3): where
the remote keeps them, where this clone tracks them, this clone's writer id, whether they apply."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from gitmem.core.sanitize import shown_url
from gitmem.core.statedir import read_own
from gitmem.errors import GitmemError
from gitmem.gitstore.store import Store
from gitmem.project.scopes import TEAM_REF, Project, refused_hold
from gitmem.project.state import state_dir, write_atomic

WRITERS = "writers/team/"  # below the ref prefix on the remote, below the remote's tracking
MAX_WRITER_REFS = 64  # writer refs one sync reads and folds; the rest on the next sync
# more writer refs than this on the remote: a flood, kept as a listing (<common-dir>/gitmem/
# writers-listing), not as tracking refs (each a loose file git lists at every ref read, #23)
FLOOD = 2 * MAX_WRITER_REFS
FLOOD_WINDOW = 8 * MAX_WRITER_REFS  # a flood's writer refs one sync may read (the window)
FOLD_BUDGET = 1.0  # seconds a sync reads a flood's writer refs that cost no merge, past 64
RETIRE_AT_ONCE = 1000  # writer refs the team ref holds, deleted on the remote in one push
# git push matches each of its refspecs against every ref the remote advertises (~1.3 µs a
# pair: 1,000 deletes on a 20,000-ref remote cost 26 CPU-s): a push's deletes are bounded by
# this many pairs, so at 20,000 refs a sync deletes 100 (docs/history/performance.md, `flood7`)
RETIRE_WORK = 2_000_000
_WRITER_ID = re.compile(r"[0-9a-f]{16}")
# a writer ref's name gitmem takes (a window's, a listing's): letters, digits, `._-`, and a
# valid ref name component (no leading or trailing `.`, no `..`, no `.lock`): a name git
# would refuse in a refspec would fail the whole fetch (a hostile server advertises anything)
_NAME = re.compile(r"(?!\.)(?!.*\.\.)(?!.*\.lock$)[0-9A-Za-z._-]{0,199}[0-9A-Za-z_-]")
LISTING_MAX = 100_000  # writer refs a flood's listing keeps (the rest: a later listing)
_TIP = re.compile(r"[0-9a-f]{40,64}")
_OFF = ("false", "no", "off", "0")


def writer_id(repo: Store) -> str:
    """This clone's writer id: random, made once and kept in <common-dir>/gitmem/writer-id
    (never a user's email in a ref name)."""
    found = known_writer_id(repo)
    if found is not None:
        return found
    path = state_dir(repo.common_dir) / "writer-id"
    import secrets  # here: it imports hashlib, hmac and random, once a clone's life

    made = secrets.token_hex(8)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, made.encode() + b"\n")
    return made


def plain_name(name: str) -> bool:
    """Whether `name` is a writer ref name a listing or a window keeps (letters, digits, `._-`:
    a writer id, never a path or a byte to escape)."""
    return _NAME.fullmatch(name) is not None


def known_writer_id(repo: Store) -> str | None:
    """This clone's writer id if it has one (`writer_id` makes it)."""
    try:
        found = read_own(state_dir(repo.common_dir) / "writer-id").decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return found if _WRITER_ID.fullmatch(found) else None


def enabled(project: Project) -> bool:
    """Writer refs apply to a team ref synced through a named remote (not a bundle)."""
    if project.remote is None or project.bundle is not None:
        return False
    return (project.repo.config_get("gitmem.writerRefs") or "true").lower() not in _OFF


def tracking_folder(project: Project) -> str:
    """Where this clone keeps what it fetched of the remote's writer refs."""
    return f"refs/gitmem-remotes/{project.remote}/{WRITERS}"


def fetch_spec(project: Project) -> str:
    """The glob refspec that brings every writer ref of the team ref (a glob never fails a
    fetch: none on the remote brings none)."""
    return f"+{project.ref_prefix}{WRITERS}*:{tracking_folder(project)}*"


def fetch_specs(project: Project, timeout: float | None = None) -> list[str]:
    """What a sync fetches of the writer refs: the glob (`fetch_spec`), unless the last fetch
    left more than MAX_WRITER_REFS of them unfolded and not refused here (a backlog one sync
    cannot read): then
    only the first MAX_WRITER_REFS of those, by name, each as a glob of its one name (a
    writer ref deleted meanwhile fails nothing, and its tracking ref is pruned), so a sync
    fetches no more writer refs than it reads. New writer refs are seen again by the glob
    once the backlog is under the cap (each sync folds MAX_WRITER_REFS of it). No process
    unless this clone tracks more writer refs than the cap, and none then either when the
    last sync's check named the window (`read_window`: a flood listed once a sync, #23).
    A flood (`read_listing`): the window by name, never the glob (it would make a tracking
    ref of each); none named (the listing read to its end): `relist`."""
    if read_listing(project.repo) is not None:
        return flood_specs(project, timeout)
    tracked = fetched_writers(project)
    if not tracked and first_fetch(project):
        # the first fetch of the team ref here: the remote listed first (one `ls-remote`, no
        # ref written), so that a flood of writer refs is never a flood of loose tracking
        # refs, written then deleted (#23, `flood9`)
        window = relist(project, timeout, first=True)
        if window is not None:
            return flood_specs(project, timeout, window)
    if len(tracked) <= MAX_WRITER_REFS:  # no process: the ref listing
        return listing_specs(project)
    folder = tracking_folder(project)
    source = f"{project.ref_prefix}{WRITERS}"
    window = read_window(project.repo)
    if window is not None:  # the last sync's check named them: no second listing of a flood
        names = [name for name in window if folder + name in tracked][:MAX_WRITER_REFS]
        return [f"+{source}{name}*:{folder}{name}*" for name in names] or listing_specs(project)
    local = project.repo.resolve(TEAM_REF)  # what this clone folded (not pushed yet) is read
    # tips refused here are no backlog: a remote that keeps a flood of refused writer refs
    # would otherwise hold the fetch to them for good, and a new teammate's never arrives
    refused = refused_before(project.repo)
    backlog = {
        tracking: tip
        for tracking, tip in unmerged(project, save=False, held=[local] if local else []).items()
        if tip not in refused
    }
    if len(backlog) <= MAX_WRITER_REFS:
        return listing_specs(project)
    names = [t[len(folder) :] for t in list(backlog)[:MAX_WRITER_REFS]]
    return [f"+{source}{name}*:{folder}{name}*" for name in names]


def listing_specs(project: Project) -> list[str]:
    """The glob asked for and negated: the remote lists its writer refs in the fetch's own
    connection and none is fetched (`gitstore.advertised`); `listed_by_fetch` then fetches
    those that changed, by name — a flood planted since the last sync is a listing, never a
    loose tracking ref each (red team 19: 30,000 written, then deleted), and a quiet remote
    costs no round trip more."""
    return [fetch_spec(project), f"^{project.ref_prefix}{WRITERS}*"]


def listed_by_fetch(project: Project, timeout: float | None = None) -> None:
    """After a fetch of `listing_specs`: the writer refs it listed made this clone's tracking
    refs — a tip this clone has set at once, the others fetched by name (one fetch, only when
    one is new or moved), one deleted there deleted here; past FLOOD the listing kept as a
    flood's (`relist`) and its window fetched by name; a few names gitmem takes no ref of, or
    no listing in the trace (a git that traces otherwise): the glob, as before."""
    from gitmem.gitstore.transport import advertised

    repo = project.repo
    if project.remote is None:
        return
    source = f"{project.ref_prefix}{WRITERS}"
    glob = fetch_spec(project)
    found = advertised(repo.common_dir, source)
    names = {ref[len(source) :]: tip for ref, tip in (found or {}).items()}
    if found is not None and len(names) > FLOOD:
        window = relist(project, timeout, found=found)
        if window is not None:  # a flood: its window by name, as a first sync's
            repo.fetch(project.remote, flood_specs(project, timeout, window), timeout)
            return
    if found is None or not all(plain_name(n) for n in names):
        if glob.lstrip("+").partition(":")[0] in repo.fetch(project.remote, [glob], timeout):
            unglobbable(project, timeout)  # names git refused: listed instead
        return
    folder = tracking_folder(project)
    tracked = fetched_writers(project)
    gone = {t: tip for t, tip in tracked.items() if t[len(folder) :] not in names}
    # a refused tip held (`held_refused`) of a writer ref deleted there: let go
    hold = refused_hold(folder)
    gone |= {h: tip for h, tip in repo.refs(hold).items() if h[len(hold) :] not in names}
    if gone:
        repo.delete_refs(gone)
    lacking = set_listed(project, names, tracked)
    if lacking:  # one deleted meanwhile fails nothing (`Transport.fetch` drops it)
        repo.fetch(project.remote, [f"+{source}{n}:{folder}{n}" for n in lacking], timeout)


def set_listed(project: Project, listed: dict[str, str], tracked: dict[str, str]) -> list[str]:
    """Each writer ref `listed` (name -> the tip the remote listed) whose tracking ref is
    elsewhere (`tracked`: `fetched_writers`) set to that tip when this clone has it (the glob
    or an earlier fetch brought it): a fetch of names costs the server a match of each against
    every ref it has (512 of 20,000, ~2-4 s). The names whose tip this clone lacks, in order:
    those to fetch by name. An unchanged one is had (its tracking ref holds the tip)."""
    repo = project.repo
    folder = tracking_folder(project)
    held = held_refused(project)
    # a tip refused here and held is told again by the check (`WriterRefs.check`), not taken
    moved = {
        n: tip
        for n, tip in listed.items()
        if tracked.get(folder + n) != tip and held.get(folder + n) != tip
    }
    have = {n for n, tip in moved.items() if repo.object_type(tip) == "commit"}
    if have and not repo.whole([moved[n] for n in have]):
        have = set()  # a fetch killed while unpacking left a commit without its tree: by name
    if have:
        repo.update_refs(
            [(folder + n, moved[n], tracked.get(folder + n)) for n in have], "gitmem: listed"
        )
    return [n for n in moved if n not in have]


def first_fetch(project: Project) -> bool:
    """Whether this clone never fetched the team ref and never listed its writer refs: then
    the first fetch lists them first (`fetch_specs`); once (`<common-dir>/gitmem/writers-
    listed`), so a project whose team ref does not exist yet pays no listing a sync."""
    repo = project.repo
    if repo.resolve(project.tracking_ref(TEAM_REF)) is not None:
        return False
    return not (state_dir(repo.common_dir) / "writers-listed").exists()


def flood_specs(
    project: Project, timeout: float | None = None, window: list[str] | None = None
) -> list[str]:
    """A flood's fetch: the writer refs of the window the last sync named (or `window`: a
    listing made just now), each by name (as a glob of its one name: one deleted meanwhile
    fails nothing, and is pruned), and this clone's own (its owner retires it); past the
    listing's end, the remote listed again (`relist`): the glob once the flood is gone."""
    repo = project.repo
    window = window if window is not None else read_window(repo)
    if window is None:
        window = relist(project, timeout)
        if window is None:
            return [fetch_spec(project)]
    folder = tracking_folder(project)
    source = f"{project.ref_prefix}{WRITERS}"
    names = window[:FLOOD_WINDOW]
    # a listed tip this clone has is not fetched again (`set_listed`). One moved or deleted
    # since it was listed is read as listed: its memory is on the remote still, its lease
    # kept (`retire`)
    listing = read_listing(repo) or {}
    listed = {n: listing[n] for n in names if n in listing}
    lacking = set(set_listed(project, listed, fetched_writers(project)))
    names = [n for n in names if n not in listed or n in lacking]
    own = known_writer_id(repo)
    if own is not None and own not in names and repo.resolve(folder + own) is not None:
        names.append(own)
    return [f"+{source}{name}*:{folder}{name}*" for name in names]


def relist(
    project: Project,
    timeout: float | None = None,
    first: bool = False,
    found: dict[str, str] | None = None,
) -> list[str] | None:
    """The remote's writer refs listed (`ls-remote`: no tracking ref made), kept as the flood's
    listing; the next window: the first FLOOD_WINDOW neither held by the team ref nor
    refused here. None: no flood any more, nor a name the glob cannot take (the listing
    dropped: the glob again). The remote
    not reached (the fetch beside it says what is wrong with it): no window, or (`first`: the
    team ref's first fetch here) None: the glob.
    Names gitmem takes no ref of (`plain_name`: a hostile server's `..`, control characters,
    any length) are counted, never kept or printed (`ignored_names`); a listing keeps at most
    LISTING_MAX (the first, in the order of names: the rest are listed once those are gone)."""
    repo = project.repo
    assert project.remote is not None
    source = f"{project.ref_prefix}{WRITERS}"
    if found is None:  # else: listed by the fetch itself (`listed_by_fetch`)
        try:
            found = repo.ls_remote(project.remote, [f"{source}*"], timeout)
        except GitmemError:
            return None if first else []
    if first:
        path = state_dir(repo.common_dir) / "writers-listed"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, b"")
    listing = {
        ref[len(source) :]: tip
        for ref, tip in found.items()
        if ref.startswith(source) and _NAME.fullmatch(ref[len(source) :])
    }
    ignored = len(found) - len(listing)
    remember_ignored(repo, ignored)
    if len(listing) <= FLOOD and not ignored:  # names git refuses would fail the glob
        remember_listing(repo, None)
        return None
    if len(listing) > LISTING_MAX:
        listing = {n: listing[n] for n in sorted(listing)[:LISTING_MAX]}
    before = read_listing(repo) or {}
    remember_listing(repo, listing)
    held = merged_tips(repo)
    # listed now, not before (past the last listing's bound), at a tip the remote's team ref
    # was found to hold: cleared (sync/writers `_retire_held`, under a lease on this tip, read
    # just now); one listed before was tried then (a refused delete is not tried again)
    own = known_writer_id(repo)
    stale = {n: t for n, t in listing.items() if t in held and n != own and n not in before}
    if stale:
        remember_retiring(repo, {**read_retiring(repo), **stale})
    done = held | refused_before(repo)
    return [name for name in sorted(listing) if listing[name] not in done][:FLOOD_WINDOW]


def flood_note(project: Project, total: int) -> str:
    """One line on a flood of writer refs: where, what gitmem does of it a sync, and how the
    remote's owner clears it at once (only those the team ref holds: nothing unmerged lost)."""
    source = f"{project.ref_prefix}{WRITERS}"
    team = project.route(TEAM_REF).name
    return (
        f"warning: {shown_url(project.remote or '')} holds {total} writer refs of {TEAM_REF}, more than a team "
        f"makes (planted?): a sync reads {FLOOD_WINDOW} and deletes some the team ref holds; "
        f"to clear them at once, on the server: git for-each-ref --merged {team} "
        f"--format='delete %(refname) %(objectname)' {source} | git update-ref --stdin"
    )


def unglobbable(project: Project, timeout: float | None = None) -> None:
    """The glob's fetch failed on names git takes no ref of (`gitstore.funny_glob`: the rest
    was fetched without it): the remote listed (`relist`), its writer refs fetched by name
    from the next sync on, as a flood's are, while such names stay there."""
    window = relist(project, timeout)
    if window is not None:
        remember_window(project.repo, window)


def read_listing(repo: Store) -> dict[str, str] | None:
    """A flood's listing (<common-dir>/gitmem/writers-listing): name -> tip of each writer ref
    the remote held when last listed, or None (no flood: the writer refs are tracking refs)."""
    return _read_tips(repo, "writers-listing")


def remember_listing(repo: Store, listing: dict[str, str] | None) -> None:
    """Record a flood's listing (`read_listing`); None: no flood, the file removed."""
    _write_tips(repo, "writers-listing", listing)


def _read_state(repo: Store, name: str) -> str | None:
    """The text of <common-dir>/gitmem/`name`, or None: none recorded, or not ours to read."""
    try:
        return read_own(state_dir(repo.common_dir) / name).decode("ascii")
    except (OSError, UnicodeDecodeError):
        return None


def _write_state(repo: Store, name: str, lines: Iterable[str] | None) -> None:
    """Record <common-dir>/gitmem/`name`, a line each; None: the file removed."""
    path = state_dir(repo.common_dir) / name
    if lines is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, "".join(f"{line}\n" for line in lines).encode())


def _read_tips(repo: Store, name: str) -> dict[str, str] | None:
    """name -> tip of a file of `tip name` lines (a listing, the refs to retire)."""
    text = _read_state(repo, name)
    if text is None:
        return None
    found: dict[str, str] = {}
    for line in text.splitlines():
        tip, _, ref = line.partition(" ")
        if _NAME.fullmatch(ref) and _TIP.fullmatch(tip):
            found[ref] = tip
    return found


def _write_tips(repo: Store, name: str, tips: dict[str, str] | None) -> None:
    _write_state(repo, name, None if tips is None else (f"{tips[n]} {n}" for n in sorted(tips)))


def ignored_names(repo: Store) -> int:
    """How many writer refs the last listing found with a name gitmem takes no ref of."""
    text = _read_state(repo, "writers-ignored") or ""
    return int(text) if text.strip().isdigit() else 0


def remember_ignored(repo: Store, count: int) -> None:
    _write_state(repo, "writers-ignored", [str(count)] if count > 0 else None)


def merged_tips(repo: Store) -> set[str]:
    """The writer tips found held by the remote's team ref (<common-dir>/gitmem/writers-merged)."""
    return set((_read_state(repo, "writers-merged") or "").split())


def read_retiring(repo: Store) -> dict[str, str]:
    """name -> tip of the writer refs the remote's team ref holds, to delete on the remote
    (<common-dir>/gitmem/writers-retiring; sync/writers.WriterRefs.retire)."""
    return _read_tips(repo, "writers-retiring") or {}


def remember_retiring(repo: Store, refs: dict[str, str]) -> None:
    _write_tips(repo, "writers-retiring", refs or None)


def remote_name(project: Project, wid: str) -> str:
    return f"{project.ref_prefix}{WRITERS}{wid}"


def fetched_writers(project: Project) -> dict[str, str]:
    """tracking ref -> tip of each writer ref the last fetch brought, in the order of names."""
    refs = project.repo.refs(tracking_folder(project))
    return {name: refs[name] for name in sorted(refs)}


def unmerged(project: Project, save: bool = True, held: Sequence[str] = ()) -> dict[str, str]:
    """tracking ref -> tip of each fetched writer ref whose tip the remote's team ref does not
    hold yet (nor any of the commits `held`: the local team ref), in the order of names; one
    process for all of them. A tip found held by the remote's team ref is remembered
    (<common-dir>/gitmem/writers-merged): a writer ref its owner has not deleted yet (or never
    will: a teammate who left) costs no process on later syncs. `save`: record what was found
    (a sync; `status` only reads)."""
    repo = project.repo
    found = fetched_writers(project)
    if not found:
        return {}
    known = merged_tips(repo)
    team = repo.resolve(project.tracking_ref(TEAM_REF))
    if all(tip in known for tip in found.values()):
        return {}
    into = [team] if team is not None else []
    open_ = repo.unreached(tracking_folder(project), into)
    taken = {t: tip for t, tip in found.items() if tip not in known and open_.get(t) == tip}
    folded = {tip for t, tip in found.items() if t not in taken}
    listing = read_listing(repo)
    if listing:  # a flood: the tips of it found held before are no tracking refs any more
        folded |= known & set(listing.values())
    if save and folded != known:
        _write_state(repo, "writers-merged", sorted(folded))
    others = [c for c in held if c not in into]
    if taken and others:  # held here already (folded, not pushed yet): nothing to merge
        still = repo.unreached(tracking_folder(project), others)
        taken = {t: tip for t, tip in taken.items() if still.get(t) == tip}
    return taken


def held_refused(project: Project) -> dict[str, str]:
    """tracking ref -> the refused tip held for it (`refused_hold`, sync/gatecheck.py) of each
    writer ref: a remote that lists the same tip again is neither fetched nor checked for it
    (#23, round 22). From our refs' cache: no process."""
    folder = tracking_folder(project)
    hold = refused_hold(folder)
    return {folder + h[len(hold) :]: tip for h, tip in project.repo.refs(hold).items()}


def refused_before(repo: Store) -> set[str]:
    """The writer tips the gate refused here (<common-dir>/gitmem/writers-refused)."""
    return set((_read_state(repo, "writers-refused") or "").split())


def remember_refused(repo: Store, tips: set[str]) -> None:
    """Record the writer tips refused (those still there): a later sync reads them last."""
    if tips == refused_before(repo):
        return
    _write_state(repo, "writers-refused", sorted(tips))


def read_window(repo: Store) -> list[str] | None:
    """The names of the writer refs the next sync fetches (<common-dir>/gitmem/writers-window,
    written by the last sync's check past a backlog of MAX_WRITER_REFS), or None: none
    recorded (the glob, or the backlog read again)."""
    names = (_read_state(repo, "writers-window") or "").split()
    return [name for name in names if _NAME.fullmatch(name)] or None


def remember_window(repo: Store, names: Sequence[str]) -> None:
    """Record the next sync's window (`read_window`); none: the file removed."""
    _write_state(repo, "writers-window", names or None)


def unfolded(project: Project) -> list[str]:
    """The ids of the remote's writer refs (as last fetched) whose tip the remote's team ref
    does not hold yet: what `status` and `doctor` name."""
    if not enabled(project):
        return []
    folder = tracking_folder(project)
    names = [name[len(folder) :] for name in unmerged(project, save=False)]
    listing = read_listing(project.repo)
    if listing:  # a flood: most of it is a listing, not tracking refs
        done = merged_tips(project.repo)
        names += [n for n in sorted(listing) if listing[n] not in done and n not in names]
    return names
