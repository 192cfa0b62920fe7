"""The text of a sync's result: what each ref did, what arrived and who made it (the lines
`gitmem pull/push/sync` and `gitmem sync --user` print)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from gitmem.cli.common import plural

if TYPE_CHECKING:
    from gitmem.sync import SyncResult
    from gitmem.sync.arrivals import Arrival

SHOWN = 20  # files listed per ref and direction unless --verbose


def unpushed(result: SyncResult) -> bool:
    """Memory of this machine set aside unpushed (a fork's remote, a server's refusal): a run
    that refused a ref this way is partly done (exit 3), not refused input (exit 2)."""
    return any(r.unpushed for r in result.refs.values())


def sync_lines(
    result: SyncResult, verbose: bool = False, told: dict[str, list[Arrival]] | None = None
) -> Iterator[str]:
    """The lines a sync prints; `told`: what arrived in each ref, with git's letters and who
    made it (gitmem/sync/arrivals.py), else the files written from the remote as `< path`."""
    prefix = "dry run: " if result.dry_run else ""
    from gitmem.core.sanitize import shown_url

    for ref, r in sorted(result.refs.items()):
        remote = shown_url(r.via or result.remote or "")  # a hub's URL: without credentials
        parts = []
        if r.local_changes:
            parts.append(
                plural(len(r.local_changes), "local change")
                + (" to push" if result.dry_run else " committed")
            )
        if r.pulled:  # without a remote: written from the ref here (a bare repository's own)
            source = remote or "the ref here (no remote)"
            parts.append(f"{plural(len(r.pulled), 'file')} updated from {source}")
        if r.pushed:
            parts.append(f"pushed to {remote}")
        if r.unpushed:
            parts.append(f"not pushed to {remote} (error below)")
        if r.remote_ahead:
            parts.append(f"{remote} has changes to merge")
        if r.refused:
            parts.append(f"refused what {remote} holds, nothing merged or pushed (error below)")
        if r.unreached:
            parts.append(f"could not fetch from {remote}, nothing merged or pushed (error below)")
        if r.held:  # set aside while the others synced: its edits wait on disk for the key
            parts.append(
                f"set aside: this machine has no key for it; {plural(len(r.held), 'local change')}"
                " kept on disk, pushed encrypted once granted (note below)"
            )
        elif r.no_key and not parts:  # "up to date" while nothing of it can be read here
            parts.append("not read here yet: this machine has no key for it (note below)")
        yield f"{prefix}{ref}: " + (", ".join(parts) if parts else "up to date")
        yield from _listed([f"  {c}" for c in r.local_changes], verbose)
        yield from _listed([f"  kept {c}" for c in r.held], verbose)
        yield from _listed(_arrived(ref, r.pulled, told), verbose)
        if r.resolutions:  # a week offline on two machines: a hundred of each, listed as files
            from gitmem.history.lost import plainly

            yield from _listed([f"  resolved {plainly(res)}" for res in r.resolutions], verbose)
        losses = [f"  {loss.kind}: {loss.text()}" for loss in r.losses]
        yield from _listed(losses, verbose, "; gitmem lost lists every lost edit")
        for note in r.notes:
            yield f"  note: {note}"
    if result.retries:
        yield (
            f"({result.retries} push retr{'y' if result.retries == 1 else 'ies'}: "
            "the remote moved meanwhile)"
        )


def _arrived(ref: str, pulled: list[str], told: dict[str, list[Arrival]] | None) -> list[str]:
    """`< A path (by who)` for each file that arrived in `ref`: a rename across refs is told
    once, under the ref it arrived in; a file no tree tells (it could not be read) as `< path`."""
    if told is None:
        return [f"  < {p}" for p in pulled]
    from gitmem.project.scopes import shown

    rows = told.get(ref)
    if rows is None:
        return [f"  < {p}" for p in pulled]
    covered = {shown(a.path) for rows_ in told.values() for a in rows_}
    covered |= {shown(a.source) for rows_ in told.values() for a in rows_ if a.source}
    lines = [f"  < {a.line()}" for a in rows]
    return lines + [f"  < {p}" for p in pulled if p not in covered]


def _listed(lines: list[str], verbose: bool, also: str = "") -> Iterator[str]:
    """Every line, or the first SHOWN and how many more (all of them with --verbose)."""
    if verbose or len(lines) <= SHOWN:
        yield from lines
        return
    yield from lines[:SHOWN]
    yield f"  … and {len(lines) - SHOWN} more (--verbose lists them all{also})"
