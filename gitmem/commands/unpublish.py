"""gitmem unpublish: take a memory ref off the remote and keep it on this machine.

The remote's ref is deleted only while it still points where a fetch just saw it (a lease: the
compare-and-swap of a deletion, so a teammate's push in between is never thrown away), and this
clone records the ref as unpublished (`gitmem.unpublished`), which keeps its scopes out of every
sync here — a sync would otherwise publish its whole history again (DESIGN §3: a ref deleted on
the remote is pushed back). Local refs and folders are never touched: nothing is lost.
"""

from __future__ import annotations

from collections.abc import Sequence

from gitmem.errors import RemoteError, UsageError
from gitmem.project.scopes import (
    TEAM_REF,
    UNPUBLISH_NAMES,
    UNPUBLISHED,
    USERS_REF_PREFIX,
    Project,
)
from gitmem.project.state import holding_lock
from gitmem.project.writerrefs import (
    MAX_WRITER_REFS,
    RETIRE_WORK,
    WRITERS,
    enabled,
    fetched_writers,
    flood_note,
    tracking_folder,
)

DEFAULT_TIMEOUT = 120.0
SHOWN_WRITERS = 3  # writer refs unpublish names one by one; more are counted


def _ref_hint(name: str) -> str:
    """unpublish names refs (personal, team), every other command scopes (auto, local, team,
    agents): a scope's name, or a word for one, is answered with the ref that carries it."""
    from gitmem.project.scopes import SCOPE_WORDS, TEAM_REF_SCOPES, names_user_scope

    every = f"name one of: {', '.join(UNPUBLISH_NAMES)}"
    scopes = SCOPE_WORDS.get(name.lower(), ((name.lower(),), ""))[0]
    if names_user_scope(name):
        return (
            "your user-scope memory is no project's: it lives on your hub alone (to delete it "
            "there: git ls-remote HUB 'refs/gitmem/projects/user*' names the refs, git push HUB "
            f"--delete REF deletes one; gitmem guide 10); {every}"
        )
    if scopes[0] in ("auto", "local"):
        return f"did you mean personal? auto and local are on your personal ref; {every}"
    if scopes[0] in ("agents", "team"):
        return f"did you mean team? team and agents are on the team ref; {every}"
    if scopes[0] in TEAM_REF_SCOPES:  # another agent's project memory (goose, cline)
        return f"did you mean team? {scopes[0]}'s project memory is on the team ref; {every}"
    return every


def unpublish(
    project: Project, names: Sequence[str], timeout: float = DEFAULT_TIMEOUT
) -> list[str]:
    """Delete each named ref on its remote (under the lease) and keep it off every sync here."""
    repo = project.repo
    for name in names:
        if name not in UNPUBLISH_NAMES:
            raise UsageError(f"cannot unpublish {name!r}: not a memory ref", _ref_hint(name))
    said: list[str] = []
    from gitmem.commands.status import plaintext_in_history
    from gitmem.core.choices import ENCRYPT_MODES, encrypt_mode

    # personal memory pushed only encrypted (its tracking ref, gone below, tells a plaintext past)
    sealed = "auto" in ENCRYPT_MODES[encrypt_mode(repo.config_get("gitmem.encrypt"))]
    sealed = sealed and not plaintext_in_history(project)
    with holding_lock(repo):
        for name in dict.fromkeys(names):
            ref = USERS_REF_PREFIX + project.uid if name == "personal" else TEAM_REF
            # recorded first: a hook that syncs while the deletion runs must not push it back
            repo.config_add(UNPUBLISHED, name)
            if project.remote is None and not (project.hub and name == "personal"):
                said.append(f"{name}: no remote: kept on this machine only from now on")
                continue
            route = project.route(ref)
            if ref == TEAM_REF and enabled(project):  # pushes that landed beside it go too
                said += _unpublish_writers(project, timeout)
            lacking = repo.fetch(route.remote, [f"+{route.name}:{route.tracking}"], timeout)
            if lacking:
                said.append(
                    f"{name}: {route.name} is not on {route.label}: nothing to take off; "
                    "kept on this machine only from now on"
                )
                continue
            seen = repo.resolve(route.tracking)
            assert seen is not None
            why = repo.delete_remote_ref(route.remote, route.name, seen, timeout)
            if why is not None:
                raise RemoteError(
                    f"cannot delete {route.name} on {route.label}: {why}",
                    "someone pushed to it meanwhile, or the server forbids deleting it: "
                    f"run gitmem unpublish {name} again, or ask the server's admin",
                )
            repo.delete_ref(route.tracking, seen)
            said.append(f"{name}: deleted {route.name} on {route.label}; kept here, not synced")
    if any(line.endswith("not synced") for line in said):
        said += [
            "note: every clone that fetched it keeps a copy, and the server keeps its objects "
            "until it collects garbage: "
            + (
                # the guide's word: encrypted personal memory opens only with a granted key
                "encrypted, it opens only with a key you granted (gitmem key list)"
                if sealed and "team" not in names
                else "treat what was pushed in plaintext as read, and rotate any secret in it"
            ),
            "note: your other clones (and, for team, your teammates') publish it again at their "
            "next sync unless gitmem unpublish runs there too",
        ]
    said.append(f"to share it again: gitmem unpublish --undo {' '.join(dict.fromkeys(names))}")
    return said


def _unpublish_writers(project: Project, timeout: float) -> list[str]:
    """Delete the team ref's writer refs on the remote (gitmem/sync/writers.py), each under
    the lease of what a listing just saw: the team memory that landed beside the team ref.
    Listed (`ls-remote`), not fetched: a flood of them (red team 18: 30,000 planted) is no
    flood of tracking refs here, and one push deletes at most what a sync may
    (`RETIRE_WORK`: git matches each delete against every ref the remote advertises), the
    rest said in one line with the server-side command that clears them."""
    repo, remote = project.repo, project.remote
    assert remote is not None
    source = f"{project.ref_prefix}{WRITERS}"
    listed = {
        ref: tip
        for ref, tip in repo.ls_remote(remote, [f"{source}*"], timeout).items()
        if ref.startswith(source) and ref.isprintable() and ref.isascii()
    }
    if not listed:
        return []
    batch = dict(sorted(listed.items())[: max(MAX_WRITER_REFS, RETIRE_WORK // len(listed))])
    deleted = repo.delete_remote_refs(remote, batch, timeout)
    folder = tracking_folder(project)
    gone = {folder + ref[len(source) :] for ref in deleted}
    repo.delete_refs({t: tip for t, tip in fetched_writers(project).items() if t in gone})
    if len(deleted) < len(batch):
        raise RemoteError(
            f"cannot delete {len(batch) - len(deleted)} writer refs of {TEAM_REF} on {remote}",
            "a teammate pushed to one meanwhile, or the server forbids deleting them: "
            "run gitmem unpublish team again, or ask the server's admin",
        )
    said = [  # a few by name, a flood counted
        f"team: deleted {name} on {remote} (a push that landed beside the team ref)"
        for name in sorted(deleted)
    ]
    if len(said) > SHOWN_WRITERS:
        said = [
            f"team: deleted {len(deleted)} writer refs on {remote} (pushes that landed beside "
            "the team ref)"
        ]
    if len(listed) > len(batch):
        said.append(flood_note(project, len(listed) - len(batch)))
    return said


def publish_again(project: Project, names: Sequence[str]) -> list[str]:
    """`--undo`: the named refs sync again (the next sync publishes them)."""
    said = []
    for name in dict.fromkeys(names):
        if name not in UNPUBLISH_NAMES:
            raise UsageError(f"cannot publish {name!r}: not a memory ref", _ref_hint(name))
        project.repo.config_remove(UNPUBLISHED, name)
        said.append(f"{name}: synced again; the next gitmem sync publishes it")
    return said
