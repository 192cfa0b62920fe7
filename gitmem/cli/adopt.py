"""gitmem adopt: record this clone's spelling of the remote as an alias of the project."""

from __future__ import annotations

import argparse
from typing import Any

from gitmem.cli.common import add_json, add_remote, command, echo, one_line, open_project_from

DESCRIPTION = (
    "Sync, accepting the remote's memory refs although they were recorded under another project\n"
    "key (the same repository reached by another URL, or a moved one). Your key is ADDED to the\n"
    "aliases in the refs' gitmem.toml; the key itself never changes, so teammates who use the\n"
    "other spelling keep syncing, and nobody has to adopt back."
)


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(sub, "adopt", "accept the remote's memory under this clone's URL too", DESCRIPTION)
    add_remote(p)
    p.add_argument(
        "--folder",
        metavar="PATH",
        help="instead: merge an orphaned memory folder (gitmem doctor names them) into this "
        "project's memory; nothing is lost, and PATH is left for you to remove",
    )
    add_json(p)
    p.set_defaults(handler=adopt)


def adopt(args: argparse.Namespace) -> int:
    if args.folder:
        return adopt_folder(args)
    from gitmem.cli.syncreport import sync_lines
    from gitmem.sync import SyncOptions, run_sync

    project = open_project_from(args)
    from gitmem.project.scopes import refuse_unchosen_remote

    refuse_unchosen_remote(project, args.remote)
    if project.remote is None:  # nothing was recorded under another spelling of no URL
        from gitmem.errors import UsageError

        raise UsageError(
            f"{project.root} has no git remote: adopt takes a remote's memory under this clone's URL",
            "add one (git remote add origin URL), then run gitmem sync (it says when to adopt)",
        )
    refs = sorted({s.ref for s in project.scopes if s.ref})
    # a ref that already knew this key, here and on the remote, is not adopted by this run
    known = {ref for ref in refs if _knows_key(project, ref)}
    from gitmem.sync.arrivals import arrivals, tips

    before = tips(project)  # what arrives is told as sync tells it: git's letters, who made it
    result = run_sync(project, SyncOptions(mode="sync", force_key=True))
    # nor one this run pushed nothing of: the remote already named this key (a fresh clone
    # knew nothing of the ref before the sync, and was told "adopted", round 20)
    known |= {ref for ref, r in result.refs.items() if not (r.pushed or r.unpushed)}
    pulled = {ref: r.pulled for ref, r in result.refs.items() if r.pulled}
    told = arrivals(project, before, pulled, result) if pulled else None
    # a ref refused at the door is told by its error alone: "nothing to adopt … already names
    # this project" before it said what adopt did not look at (round 19, second wave)
    told_refs = [ref for ref in refs if not (ref in result.refs and result.refs[ref].refused)]
    if args.as_json:
        from gitmem.cli.jsonout import emit, sync_json

        adopted = [adopted_line(project, ref, result.remote, ref in known) for ref in told_refs]
        emit({**sync_json(result, told), "adopted": adopted})
    else:
        for line in sync_lines(result, told=told):
            echo(line)
        for ref in told_refs:
            echo(adopted_line(project, ref, result.remote, ref in known))
    from gitmem.cli.syncreport import unpushed
    from gitmem.errors import report_refused

    # a ref refused (a hostile tree) was told nowhere and the run exited 0 (round 19)
    return report_refused(result.refused, partly=unpushed(result))


def _meta_at(project: Any, tip: str | None) -> Any:
    """The gitmem.toml of commit `tip` (None: no commit, no file, or unreadable)."""
    from gitmem.project.refmeta import meta_at

    return None if tip is None else meta_at(project.repo, tip)


def _knows_key(project: Any, ref: str) -> bool:
    """`ref`, here and as last fetched, already names this clone's key (its key or an alias)."""
    repo = project.repo
    tips = [repo.resolve(ref), repo.resolve(project.tracking_ref(ref))]
    metas = [_meta_at(project, tip) for tip in tips if tip is not None]
    return bool(metas) and all(m is not None and project.key in (m.key, *m.aliases) for m in metas)


def adopted_line(project: Any, ref: str, remote: str | None, known: bool = False) -> str:
    """What adopt did to `ref`, read from the ref's gitmem.toml after the sync (never claimed
    for a ref it could not change, e.g. personal memory this machine cannot open yet, nor for
    one that already knew this key: `known`)."""
    from gitmem.project.refmeta import unclaimed

    repo = project.repo
    tip = repo.resolve(ref) or repo.resolve(project.tracking_ref(ref))
    if tip is None:
        return f"{ref}: nothing to adopt (no such ref here or on {remote})"
    meta = _meta_at(project, tip)
    if meta is not None and project.key in (meta.key, *meta.aliases):
        if known:
            return f"{ref}: nothing to adopt: {project.key} already names this project"
        return f"{ref}: adopted: {project.key} is a name of this project on {remote}"
    if meta is not None and unclaimed(meta) and meta.knows(project.key):
        return f"{ref}: made before the repository had a remote: nothing to adopt, it syncs as is"
    return (
        f"{ref}: not adopted yet: this machine cannot write it (see the note above); "
        "run gitmem adopt again once it can"
    )


def adopt_folder(args: argparse.Namespace) -> int:
    from pathlib import Path

    from gitmem.commands.orphans import adopt_folder as adopt_one

    adopted = adopt_one(open_project_from(args), Path(args.folder))
    for line in adopted.skipped:
        echo(one_line(f"skipped {line}"))
    echo(f"adopted {adopted.path}: {len(adopted.committed)} change(s) merged into this project")
    for change in adopted.committed:
        echo(f"  {change}")
    for res in adopted.resolutions:
        echo(f"  resolved {res}")
    for written in adopted.written:
        echo(f"  < {written}")
    if adopted.skipped:
        # what was skipped (a key, a link, a non-memory file) is not in the project: removing
        # the folder would lose it
        echo(
            f"{len(adopted.skipped)} skipped item(s) stay only in {adopted.path}: "
            "keep the folder (or move them out before removing it)"
        )
    else:
        from gitmem.core.sanitize import command_word  # printed: quoted, then escaped

        echo(
            "its memory is in this project now; the folder can be removed: "
            f"rm -r {command_word(str(adopted.path))}"
        )
    echo("gitmem sync publishes the result")
    return 0
