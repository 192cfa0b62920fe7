"""log, diff and restore over a memory ref's history: every version of every memory is kept."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.errors import ConfigError, NothingHere, UsageError
from gitmem.project.scopes import Project, Scope, shown

if TYPE_CHECKING:
    from gitmem.privacy.codec import PersonalCodec

_BAD_PARTS = {"..", ".", ".git"}


@dataclass(frozen=True)
class RefPath:
    """A memory file named as the ref stores it (`auto/build.md`) with its scope."""

    scope: Scope
    rel: str  # path inside the scope folder

    @property
    def in_ref(self) -> str:
        return f"{self.scope.prefix}/{self.rel}" if self.rel else self.scope.prefix


def locate(project: Project, path: str) -> RefPath:
    """Accept `auto/x.md`, a path into a scope folder, or a bare name found in exactly one scope."""
    where = _locate(project, path)
    if where.scope.refused:  # never read or write a folder that breaks confinement
        raise UsageError(
            f"scope {where.scope.name} is not synced: {where.scope.note}",
            "fix the folder (see gitmem status), then retry",
            tool_hint="fix the folder (sync_status shows why), then retry",
        )
    return where


MAX_PATH = 4_096  # characters of a memory's path as given (the system's PATH_MAX)


def _locate(project: Project, path: str) -> RefPath:
    if "\x00" in path or len(path) > MAX_PATH:
        # red team 15: an id with a NUL (the MCP `history` tool) was an internal error, exit 4;
        # one of 200,000 characters "Argument list too long", hinting at permissions
        from gitmem.core.sanitize import bounded

        raise UsageError(
            f"{bounded(path)!r} is not a memory's path (a NUL, or over {MAX_PATH:,} characters)",
            "name the memory as gitmem log shows it, e.g. auto/NAME.md",
            tool_hint="name the memory by its id, as search returns it (e.g. auto/NAME.md)",
        )
    # a prefix of several folders too: a user-scope store's (`local/gemini`), as its merges and
    # lost edits name its files (round 22: `gitmem lost --user 1` found no such memory)
    for scope in sorted(project.scopes, key=lambda s: -len(s.prefix)):
        if scope.prefix and (path == scope.prefix or path.startswith(scope.prefix + "/")):
            rest = path[len(scope.prefix) + 1 :]
            inside = _checked_rel(rest.strip("/"), path)
            if inside.partition("/")[0] in scope.exclude:  # auto/team/x.md: not auto's
                raise _elsewhere(project, scope, inside, path)
            return RefPath(scope, inside)
    # a typed path is read from the current folder (as git reads one); the work tree's top
    # form (`.claude/agent-memory/x.md`, as status names folders) is still taken from a
    # subfolder when it names a file the current folder does not (newcomer 13)
    here = Path(os.path.abspath(os.path.expanduser(path)))
    top = Path(os.path.normpath(project.tree / path)) if not os.path.isabs(path) else here
    for candidate in (here, top) if top != here and not here.exists() else (here,):
        for scope in project.scopes:  # a file outside its scope's folder (CLAUDE.local.md)
            for name, file in scope.outside:
                if candidate == file or path == file.name:
                    return RefPath(scope, name)
        for scope in sorted(project.scopes, key=lambda s: -len(str(s.path))):
            try:
                rel = candidate.relative_to(
                    scope.path.resolve() if scope.path.exists() else scope.path
                )
            except ValueError:
                continue
            return RefPath(scope, _checked_rel(rel.as_posix() if str(rel) != "." else "", path))
    _checked_rel(path, path)
    hits = [  # on disk too: an encrypted ref's tree names no file
        s
        for s in project.scopes
        if (s.path / path).is_file()
        or (s.path / path).is_symlink()
        or (project.repo.resolve(s.ref) and project.repo.resolve(f"{s.ref}:{s.prefix}/{path}"))
    ]
    if len(hits) == 1:
        return RefPath(hits[0], path)
    if not hits and is_user_id(path) and not path.partition("/")[2].strip("/"):
        raise UsageError(
            f"{path!r} names the whole user scope, not one memory",
            "give one memory's id, e.g. user/CLAUDE.md (gitmem query --recent 20 lists them; "
            "gitmem status --user shows the scope)",
        )
    if not hits and is_user_id(path):  # recall's id of user-scope memory: no project's
        raise not_project_memory(path)
    if not hits:  # "cannot tell which" read as two candidates when there is none
        raise UsageError(
            f"no memory {path!r} in this project's folders or on its refs",
            "name it with its scope (auto/NAME.md, team/NAME.md), a deleted one too; "
            "gitmem query --recent 20 lists memories by their ids",
            tool_hint="name it with its scope (auto/NAME.md, team/NAME.md), a deleted one too; "
            "recent or search lists memories by their ids",
        )
    raise UsageError(
        f"cannot tell which memory {path!r} is: {' and '.join(s.name for s in hits)} both hold one",
        f"name it as the ref does ({', '.join(f'{s.prefix}/{path}' for s in hits)}) or give "
        "its full path",
    )


def is_user_id(path: str) -> bool:
    """`user/…`, `user-codex/…`: how recall names user-scope memory (`user_memory`)."""
    from gitmem.project.userscope import USER_SCOPE

    head = path.partition("/")[0]
    return head == USER_SCOPE or head.startswith(f"{USER_SCOPE}-")


def _elsewhere(project: Project, scope: Scope, rel: str, given: str) -> UsageError:
    """`given` names a folder of `scope` that holds another scope (`auto/team/x.md`): the
    one line naming the form that reads it (never `scope`'s: promote would nest it)."""
    on_disk = scope.path / rel
    for other in sorted(project.scopes, key=lambda s: -len(str(s.path))):
        if other is not scope and on_disk.is_relative_to(other.path):
            right = f"{other.prefix}/{on_disk.relative_to(other.path).as_posix()}"
            return UsageError(
                f"{given!r} is {other.name} memory, not {scope.name} memory "
                f"({scope.prefix}/{rel.partition('/')[0]}/ is the {other.name} folder)",
                f"name it {right}",
            )
    return UsageError(
        f"{given!r} is in {scope.prefix}/{rel.partition('/')[0]}/, which {scope.name} "
        "memory never holds (the team folder's place)",
        f"name a memory of the scope, e.g. {scope.prefix}/NAME.md",
    )


def not_project_memory(path: str) -> UsageError:
    """`path` is recall's id of user-scope memory (`user/CLAUDE.md`), which a command of a
    project's memory (promote, demote) cannot take, in a clone or not."""
    return UsageError(
        f"{path!r} is user-scope memory, not this project's: only log, show, diff and "
        "restore reach it (by that id)",
        "edit the file itself and share it with gitmem sync --user; "
        "in a clone, gitmem query --scope user --recent 20 lists the ids",
    )


def _checked_rel(rel: str, given: str) -> str:
    """A path inside a scope, refused before it reaches git when it could leave the scope."""
    if rel.startswith("/") or any(part in _BAD_PARTS for part in rel.split("/") if rel):
        raise UsageError(
            f"{given!r} is not a path inside a memory folder (no '..', '.git' or absolute parts)",
            "name the memory as gitmem log shows it, e.g. auto/NAME.md",
            tool_hint="name the memory by its id, as search returns it (e.g. auto/NAME.md)",
        )
    return rel


def user_memory(project: Project, path: str) -> tuple[Project, str] | None:
    """`user/CLAUDE.md`, `user-codex/x.md` (recall's ids of user-scope memory, whose history
    is in the agent's store, synced with the hub): that store as a project and the memory as
    it names it (a single file's name, else its path on disk); None for a project's memory."""
    from gitmem.project.userscope import USER_SCOPE

    head, _, rest = path.partition("/")
    agent = "claude" if head == USER_SCOPE else head.removeprefix(f"{USER_SCOPE}-")
    if not rest or not head.startswith(USER_SCOPE) or agent == head:
        return None
    if any(s.prefix == head for s in project.scopes):
        return None
    from gitmem.project.adapters import ADAPTERS, has_user_scope
    from gitmem.project.userscope import user_store

    if agent not in ADAPTERS or not has_user_scope(agent):
        return None
    found = user_store(project, head)
    if found is None:
        raise UsageError(
            f"{path!r} is {agent}'s user memory, and {agent} is not in gitmem.agents",
            f"git config --global --add gitmem.agents {agent} (then gitmem sync --user)",
        )
    scope = found.scopes[0]
    rel = _checked_rel(rest.strip("/"), path)
    for name, _file in scope.outside:
        if name.removeprefix(".root/") == rel:
            return found, _file.name
    return found, str(scope.path / rel)


def sync_command(project: Project) -> str:
    """The command that syncs `project`'s refs, for every hint that names it: a user-scope
    store (`user_memory`) syncs with `gitmem sync --user`, never a project's `gitmem sync`."""
    from gitmem.project.userscope import is_user_project

    return "gitmem sync --user" if is_user_project(project) else "gitmem sync"


def _named(project: Project, where: RefPath, named: str | None) -> tuple[str, str]:
    """How a message names the memory and where its history is: as the user named it
    (`user/CLAUDE.md`, never the store's `local/claude/.root/CLAUDE.md`) and their user scope
    for a user-scope store; the ref's path and the ref for a project's memory."""
    from gitmem.project.userscope import is_user_project

    if named is not None and is_user_project(project):
        return named, "in your user scope (synced through gitmem.hub)"
    return shown(where.in_ref), f"on {where.scope.ref}"


def _what_exists(project: Project, named: str | None) -> str:
    """The hint naming the command that lists what memories there are: `gitmem log` for a
    project's (its refs' history), recall's ids for a user scope's (log reads one at a time)."""
    from gitmem.project.userscope import is_user_project

    if named is not None and is_user_project(project):
        return "in a clone, gitmem query --scope user --recent 20 lists what exists"
    return "gitmem log lists what exists"


LOG_PAGE = 50  # commits whose files and sealed notes are read at once (`memory_log_pages`)


def user_unsynced(project: Project, path: str | None) -> str | None:
    """Why the user-scope memory `path` has no history here (no hub: `gitmem sync --user`,
    which commits it, never ran), in one line; None for any other memory."""
    from gitmem.core.sanitize import bounded

    try:
        user_memory(project, path) if path else None
    except ConfigError as exc:
        return (
            f"no history of {bounded(path or '')!r} here: user memory is committed only by "
            f"gitmem sync --user, and {exc.message} ({exc.hint})"
        )
    return None


def memory_log(
    project: Project,
    path: str | None,
    limit: int | None,
    *,
    named: str | None = None,
    files: int = 0,
) -> list[dict[str, str]]:
    """The history of the memory refs, or of one memory, newest first. `files`: each row also
    names the files its commit changed, at most that many (`logged_files` reads them)."""
    return [
        row
        for page in memory_log_pages(project, path, limit, named=named, files=files)
        for row in page
    ]


def memory_log_pages(
    project: Project,
    path: str | None,
    limit: int | None,
    *,
    named: str | None = None,
    files: int = 0,
    page: int = LOG_PAGE,
) -> Iterator[list[dict[str, str]]]:
    """`memory_log` a page of rows at a time, each page's personal commits opened only when it
    is asked for: a log of 2,000 personal commits read through a pager or `| head` decrypted
    every one of them before its first line (the listing itself is one `git log`). The first
    page is never empty: a log with no rows yields none."""
    try:
        user = user_memory(project, path) if path else None
    except ConfigError:  # no hub: the user scope is never committed, no history (as the index)
        return  # round 23b: the "no hub" error was the answer; `user_unsynced` says why
    if user is not None:  # its history is in the agent's store, not in this repository
        try:
            stored = locate(user[0], user[1]).in_ref
            for rows in memory_log_pages(
                user[0], user[1], limit, named=path, files=files, page=page
            ):
                for row in rows:  # its one file, named as the user named it (`user/…`)
                    if "files" in row:  # asked for (round 23b: `"files": ""` on each row)
                        row["files"] = "\0".join(
                            (path or f) if f == stored else f
                            for f in row.get("files", "").split("\0")
                        )
                    # its merges' decisions too (round 22: `resolved local/gemini/.root/GEMINI.md
                    # lines 2-2` under `M user-gemini/GEMINI.md`)
                    row["resolved"] = "\x1d".join(
                        f"{path}{r[len(stored) :]}" if path and r.startswith(f"{stored} ") else r
                        for r in row.get("resolved", "").split("\x1d")
                    )
                yield rows
        finally:
            user[0].repo.close()
        return
    rows = _memory_log(project, path, limit, named)
    where = locate(project, path) if path else None
    own = where.scope.ref if where else None
    only = (where.in_ref,) if where else ()  # one memory's log: its own lines, as git's
    codec: list[PersonalCodec] = []  # one for every page: it opens each tree from the last one's
    for start in range(0, len(rows), page):
        chunk = rows[start : start + page]
        if own in (None, project.user_ref):  # only the personal ref seals its notes
            _open_sealed_notes(project, chunk, codec)
        _bounded_rows(chunk)
        if files:
            _add_files(project, chunk, own, only, files, codec)
        yield chunk


def _add_files(
    project: Project,
    rows: list[dict[str, str]],
    own: str | None,
    only: tuple[str, ...],
    files: int,
    codec: list[PersonalCodec],
) -> None:
    from gitmem.policy.treecheck import META_FILE

    sealed = [r for r in rows if (r.get("ref") or own) == project.user_ref]
    # the ref's settings file is gitmem's, not a memory: the subject's count leaves it out
    changed = project.repo.changed_files(
        [r["commit"] for r in rows if r not in sealed], files, skip=(META_FILE,), only=only
    )
    changed.update(_sealed_changes(project, [r["commit"] for r in sealed], files, only, codec))
    for row in rows:
        kept, count = changed.get(row["commit"], ([], 0))
        # NUL-joined (letter, path, old path) triples: git never puts a NUL in a name
        row["files"] = "\0".join(field for entry in kept for field in entry)
        row["files_more"] = str(count - len(kept))


def _codec(project: Project, made: list[PersonalCodec]) -> PersonalCodec:
    """The personal ref's codec, made at its first use and kept in `made` for the next."""
    if not made:
        from gitmem.privacy.codec import personal_codec

        made.append(personal_codec(project.repo, project.user_ref))
    return made[0]


def _sealed_changes(
    project: Project,
    commits: list[str],
    limit: int,
    only: tuple[str, ...],
    codec: list[PersonalCodec],
) -> dict[str, tuple[list[tuple[str, str, str]], int]]:
    """`changed_files` of the personal ref's commits, named as the user knows them: git sees
    ciphertext shards, a manifest and key files there; each commit is opened against its
    parent (one codec, which opens each tree from the last one's) and plaintext compared.
    A commit this machine cannot open lists nothing."""
    from gitmem.errors import GitmemError
    from gitmem.policy.treecheck import META_FILE

    found: dict[str, tuple[list[tuple[str, str, str]], int]] = {}
    for commit in commits:
        parents = project.repo.read_commit(commit)[1]
        if len(parents) > 1:
            continue  # a merge lists nothing, as git's log
        try:
            opened = _codec(project, codec)
            after = opened.decode(commit).files
            before = opened.decode(parents[0]).files if parents else {}
        except GitmemError:
            continue
        rows = [
            ("A" if p not in before else "D" if p not in after else "M", p, "")
            for p in sorted(set(before) | set(after))
            if before.get(p) != after.get(p) and p != META_FILE and (not only or p in only)
        ]
        found[commit] = (rows[:limit], len(rows))
    return found


def logged_files(row: dict[str, str]) -> list[tuple[str, str, str]]:
    """The files `memory_log(files=N)` names on a row: (git's letter, path, old path or "")."""
    fields = row.get("files", "").split("\0") if row.get("files") else []
    return [(fields[i], fields[i + 1], fields[i + 2]) for i in range(0, len(fields) - 2, 3)]


def _memory_log(
    project: Project, path: str | None, limit: int | None, named: str | None
) -> list[dict[str, str]]:
    repo = project.repo
    rows: list[dict[str, str]] = []
    if path:
        where = locate(project, path)
        rev = repo.resolve(where.scope.ref)
        rows = _path_log(project, where, _stored_path(project, where, rev), limit)
        if not rows:
            label, place = _named(project, where, named)
            raise NothingHere(
                f"{label} has no history {place}",
                f"{_what_exists(project, named)}; a new memory appears there after "
                f"{sync_command(project)}",
                tool_hint="search lists what exists; user-scope memory appears there after the "
                "user runs gitmem sync --user (no tool syncs it)"
                if named
                else "history without an id lists what exists; a new memory appears there "
                "after a sync (the sync tool)",
            )
        return rows  # its sealed notes opened a page at a time (memory_log_pages)
    for ref in sorted({s.ref for s in project.scopes}):
        if repo.resolve(ref):
            rows += [dict(r, ref=ref) for r in repo.log(ref, None, limit)]
    rows.sort(key=lambda r: -int(r["time"]))
    return rows[:limit] if limit else rows


# the subjects gitmem writes on its own commits (gitmem/sync/commit.py, merging.py): a history
# row showing one is gitmem's record, not a memory speaking as gitmem (MCP history warned on
# every row, round 10); any other `gitmem: …` subject is still someone's text, and warned
_OWN_SUBJECT = (
    r"gitmem: (?:\d{1,9} files? (?:changed|edited during the sync)|merge \S{1,400}"
    r"|encrypt [\w, /.-]{1,200}|store [\w, /.-]{1,200} as plaintext \(gitmem\.encrypt\))"
    r" on [\w.-]{1,64}(?: \(\d{1,9} changed\))?"
)


def gitmem_subject(subject: str) -> bool:
    """`subject` has the shape of a subject gitmem writes on its own commits."""
    import re

    return re.fullmatch(_OWN_SUBJECT, subject) is not None


MAX_SUBJECT = 1000  # characters of a commit's subject (or author) that log shows
MAX_RESOLVED = 100  # resolution trailers of one commit that log shows


def _bounded_rows(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """Commit messages are anyone's text: a subject of 30 MB, a million trailers. Each is cut
    (saying how much went) before any output, text or JSON, holds it."""
    from gitmem.core.sanitize import bounded

    for row in rows:
        row["subject"] = bounded(row["subject"], MAX_SUBJECT, say_cut=True)
        row["author"] = bounded(row["author"], MAX_SUBJECT, say_cut=True)
        resolved = [r for r in row["resolved"].split("\x1d") if r]
        if len(resolved) > MAX_RESOLVED or any(len(r) > MAX_SUBJECT for r in resolved):
            kept = [bounded(r, MAX_SUBJECT, say_cut=True) for r in resolved[:MAX_RESOLVED]]
            if len(resolved) > MAX_RESOLVED:
                kept.append(f"… {len(resolved) - MAX_RESOLVED:,} more resolutions not shown")
            row["resolved"] = "\x1d".join(kept)
    return rows


def _path_log(
    project: Project, where: RefPath, stored: list[str], limit: int | None
) -> list[dict[str, str]]:
    """Every version of one memory: both sides of a resolved conflict (the losing edit too, so
    `restore --at` can find it) and the merges that resolved it, with their trailers."""
    repo, ref = project.repo, where.scope.ref
    if not repo.resolve(ref):
        return []
    rows = repo.log(ref, stored, None, full_history=True)
    merges = _resolving_merges(project, ref, ref)
    rows += [
        r
        for r in merges
        if any(e.startswith(f"{where.in_ref} ") for e in r["resolved"].split("\x1d"))
    ]
    unique = {r["commit"]: r for r in rows}
    out = sorted(unique.values(), key=lambda r: -int(r["time"]))
    return out[:limit] if limit else out


def _resolving_merges(
    project: Project, ref: str, rev: str, limit: int | None = None
) -> list[dict[str, str]]:
    """Merges in `rev` that resolved conflicts, their trailers readable (sealed ones opened)."""
    rows = project.repo.log(rev, None, limit, resolved="")
    if ref == project.user_ref:
        _open_sealed_notes(project, rows)
    return rows


def empty_tree(project: Project) -> str:
    return project.repo.write_object("tree", b"")


def under(rel: str) -> Callable[[str], bool]:
    """The filter of `--path`: one file, or everything below a folder of the scope."""
    if not rel:
        return lambda _p: True
    return lambda p: p == rel or p.startswith(rel.rstrip("/") + "/")


def revisions(
    project: Project, scopes: list[Scope], rev: str, named: str | None = None
) -> list[tuple[Scope, str, str]]:
    """(scope, REV's commit, the ref's tip) for each scope whose history holds REV (`named`:
    the user-scope memory asked for, as the user named it).

    REV must name a commit of a memory ref: a branch commit (HEAD, main) has no memory in it,
    and comparing it would show every memory as new.
    """
    from gitmem.policy.treecheck import META_FILE

    repo = project.repo
    found: list[tuple[Scope, str, str]] = []
    for scope in scopes:
        tip = repo.resolve(scope.ref)
        old = _rev_on(project, scope, rev)
        # the remote-tracking ref's history too: `gitmem diff refs/gitmem-remotes/origin/team`
        # shows what this machine has that the remote has not (and the reverse)
        tracking = repo.resolve(project.tracking_ref(scope.ref)) if project.remote else None
        if old and tip and any(old == t or repo.is_ancestor(old, t) for t in (tip, tracking) if t):
            found.append((scope, old, tip))
    if found:
        return found
    commit = next((c for c in (_rev_on(project, s, rev) for s in scopes) if c), None)
    if commit is None:
        raise _unknown(project, scopes, rev, named)
    if not repo.resolve(f"{commit}:{META_FILE}"):
        raise UsageError(
            f"{rev!r} is a commit of your branches, not of a memory ref (refs/gitmem/*)",
            "use a commit from gitmem log, or '~N' (quoted) for N versions back",
        )
    names = ", ".join(s.name for s in scopes)
    raise UsageError(
        f"{rev!r} is not in the history of the {names} memory",
        "use a commit from gitmem log" + (" without --path" if len(scopes) == 1 else ""),
    )


def _unknown(
    project: Project, scopes: list[Scope], rev: str, named: str | None = None
) -> UsageError:
    """The line for a REV no memory ref has: for `~N` past the first version, that there is
    no earlier version (and how many there are), never a hint to try `~N` again."""
    import re

    from gitmem.core.sanitize import command_word  # a name typed or a teammate's

    repo = project.repo
    back = re.fullmatch(r"~(\d*)", rev)
    tips = [(s, t) for s in scopes for t in (repo.resolve(s.ref),) if t]
    if back and len(scopes) == 1 and not tips:
        return NothingHere(
            f"nothing synced yet for scope {scopes[0].name}: it has no versions",
            f"run {sync_command(project)} first",
        )
    if back and not tips:  # `diff ~1` before any memory was synced: "use ~N" would loop
        return NothingHere(
            f"no memory history yet: {rev} names no version",
            f"{sync_command(project)} commits your memory; then '~N' is N versions back",
        )
    if back and tips:

        def versions(tip: str) -> str:
            count = repo.count_commits(tip, first_parent=True)
            return "one version (~0)" if count == 1 else f"{count} versions (~0 to ~{count - 1})"

        if named is not None:  # user-scope memory: one store, named as the user named it
            return UsageError(
                f"no earlier version {rev} of {named}: your user scope holds "
                f"{versions(tips[0][1])}",
                f"gitmem log {command_word(named)} lists its versions",
            )
        held = "; ".join(f"{s.name} holds {versions(t)}" for s, t in tips)
        return NothingHere(
            f"no earlier version {rev} of the {', '.join(s.name for s, _ in tips)} memory: {held}",
            "gitmem log lists the versions",
        )
    if os.path.isabs(rev) and os.path.isdir(rev):  # bash read ~0 (~1 after a pushd) as a folder
        return UsageError(
            f"{rev!r} is a folder, not a revision: the shell expanded ~N (bash's directory "
            "stack: ~0 is the current folder) before gitmem saw it",
            "quote it ('~0', '~1:team/MEMORY.md'), or use a commit from gitmem log",
        )
    return UsageError(
        f"unknown revision {rev!r} in {project.root}",
        "use a commit from gitmem log, or '~N' (quoted) for N versions back",
    )


def _rev_on(project: Project, scope: Scope, rev: str) -> str | None:
    """A commit of a memory ref: a commit id, or `~N` / `@{...}` relative to the scope's ref."""
    repo = project.repo
    if rev.startswith("-"):
        return None  # never let a revision become an option of git
    if rev.startswith(("~", "^", "@")):
        return repo.resolve(scope.ref + rev + "^{commit}")
    return repo.resolve(rev + "^{commit}")


def memory_show(project: Project, spec: str, *, named: str | None = None) -> tuple[str, str, bytes]:
    """`REV:PATH` as git show takes it: (the commit, the memory as the ref stores it, its bytes
    at that commit, in plaintext). REV is a commit from gitmem log, or ~N for N versions back."""
    from gitmem.core.sanitize import command_word  # a name typed or a teammate's

    rev, sep, path = spec.partition(":")
    if not sep and spec.endswith(".md") and not spec.startswith("-"):  # the memory, no REV
        raise UsageError(
            f"{spec!r} is not REV:PATH: which version?",
            f"gitmem show {command_word('~0:' + spec)} is the last synced one, "
            f"{command_word('~1:' + spec)} the one before "
            "(or a commit from gitmem log)",
        )
    if not sep or not rev or not path:
        raise UsageError(
            f"{spec!r} is not REV:PATH",
            "e.g. gitmem show '~1:team/MEMORY.md' (REV from gitmem log)",
        )
    user = user_memory(project, path)
    if user is not None:  # user-scope memory: its versions are in the agent's store
        try:
            commit, _, data = memory_show(user[0], f"{rev}:{user[1]}", named=path)
            return commit, path, data
        finally:
            user[0].repo.close()
    where = locate(project, path)
    label, _ = _named(project, where, named)
    _, commit, _ = revisions(project, [where.scope], rev, label if named else None)[0]
    oid = _plain_file(project, where, commit)
    if oid is None:
        raise UsageError(
            f"{label} did not exist at {rev} ({commit[:10]})",
            f"gitmem log {command_word(label)} lists its versions"
            if _path_log(project, where, _stored_path(project, where, commit), 1)
            else _what_exists(project, named),
        )
    return commit, label, project.repo.read_blob(oid)


def versions(project: Project, path: str) -> list[tuple[str, bytes | None]]:
    """(commit, the memory's bytes then or None when deleted), newest first, decrypted."""
    repo = project.repo
    where = locate(project, path)
    tip = repo.resolve(where.scope.ref)
    if tip is None:
        return []
    found: list[tuple[str, bytes | None]] = []
    for commit, stored in repo.path_history(where.scope.ref, _stored_path(project, where, tip)):
        blob = _plain_from_history(project, where, commit, stored)
        found.append((commit, repo.read_blob(blob) if blob else None))
    return found


@dataclass
class Restored:
    path: Path
    commit: str
    relinked: bool = False  # its index line was brought back too
    unchanged: bool = False  # the file already held that version: nothing was written
    sync: str = "gitmem sync"  # the command that shares it (sync_command)


def restore(
    project: Project, path: str, at: str | None, force: bool, *, named: str | None = None
) -> Restored:
    """Write a memory back from history: at REV, else its newest version that still had it."""
    from gitmem.project.adapters import GEMINI_FILE, gemini_section, with_gemini_section
    from gitmem.project.filecas import replace_or_refuse
    from gitmem.project.state import current_mode, holding_lock, load_scope_state

    user = user_memory(project, path)
    if user is not None:  # user-scope memory: its versions are in the agent's store
        try:
            return restore(user[0], user[1], at, force, named=path)
        finally:
            user[0].repo.close()
    repo = project.repo
    where = locate(project, path)
    if not where.rel:
        raise UsageError(f"{path!r} is a scope, not a memory file", "name one file to restore")
    ref = where.scope.ref
    label, place = _named(project, where, named)
    if not repo.resolve(ref):
        raise NothingHere(
            f"nothing synced yet for scope {where.scope.name}", f"run {sync_command(project)} first"
        )
    blob, commit = None, None
    if at:
        commit = _rev_on(project, where.scope, at)
        if commit is None:
            raise _unknown(project, [where.scope], at, named and label)
        blob = _plain_file(project, where, commit)
    else:
        tip = repo.resolve(ref)
        for commit_id, blob_id in repo.path_history(ref, _stored_path(project, where, tip)):
            if blob_id:
                commit, blob = commit_id, _plain_from_history(project, where, commit_id, blob_id)
                break
    if blob is None or commit is None:
        raise NothingHere(
            f"{label} has no version in the history of "
            + (ref if place.startswith("on ") else "your user scope")
            + (f" at {at}" if at else ""),
            _what_exists(project, named),
        )
    target = where.scope.file(where.rel)
    _no_link_to(where, target)
    with holding_lock(repo):
        state = load_scope_state(repo.common_dir, where.scope.name)
        record = state.files.get(where.rel) if state.path == str(where.scope.path) else None
        on_disk = _current_bytes(target)
        # Gemini's GEMINI.md: the ref holds its section alone, the rest of the file is the
        # user's and stays as it is (round 21: restore wrote the section over the whole file)
        section = where.rel == GEMINI_FILE and where.rel in where.scope.extra
        if on_disk is not None and not force:
            current = repo.write_blob(gemini_section(on_disk) if section else on_disk)
            if current != (record.oid if record else None) and current != blob:
                raise UsageError(
                    f"{target} has changes not synced yet",
                    f"run {sync_command(project)} first, or pass --force to overwrite them",
                )
        data = repo.read_blob(blob)
        refuse_unsafe(where, data, f"{label} at {commit[:10]}")
        if section:
            data = with_gemini_section(on_disk or b"", gemini_section(data))  # an older whole file
        unchanged = on_disk == data
        if not unchanged:
            target.parent.mkdir(parents=True, exist_ok=True)
            # only over the bytes checked: an editor's append since is kept (#23, round 20)
            replace_or_refuse(target, on_disk, data, current_mode(target), "restoring")
        relinked = _relink(project, where, commit)
    return Restored(target, commit, relinked, unchanged, sync_command(project))


def refuse_unsafe(where: RefPath, data: bytes, what: str) -> None:
    """Refuse bytes from history the sync's policy would not write (`check_file`'s blocking
    findings: hidden or control characters, not text, unsafe YAML, over the size limit): a
    sync checks a fetched ref's tip only, so a teammate's commit whose file a later commit
    replaced passed every check, and restore wrote its escapes and bidi controls into the
    memory folder, where the next sync refused to share it (red team 11)."""
    from gitmem.policy.rules import blocking, check_file

    refused = blocking(check_file(f"{where.scope.prefix or 'scope'}/{where.rel}", data))
    if refused:
        from gitmem.core.sanitize import terminal

        raise UsageError(
            f"{terminal(what)} is refused by the sync's policy: {refused[0].code} "
            f"{terminal(refused[0].message)}; nothing was written",
            "gitmem show REV:PATH prints it escaped; restore another version",
        )


def _current_bytes(target: Path) -> bytes | None:
    """What the file holds now (None: absent); never blocking on a FIFO or reading past the
    size limit: anything but a regular memory file there is refused, left as it is."""
    from gitmem.core.fileread import NotAFile, read_regular

    try:
        return read_regular(target)
    except FileNotFoundError:
        return None
    except NotAFile:
        raise UsageError(
            f"{target} is not a regular memory file (a FIFO, a folder or over the size limit)",
            "move it out of the way, then run gitmem restore again; nothing was written",
        ) from None


def _no_link_to(where: RefPath, target: Path) -> None:
    """Refuse a restore whose file, or a folder on the way to it inside the scope, is a
    symbolic link: as sync's write-back, a restore never writes out of a memory folder."""
    from gitmem.project.confinement import link_on_the_way

    if where.rel in where.scope.extra:  # CLAUDE.local.md, outside the folder: the file itself
        link = target if target.is_symlink() else None
    else:
        link = link_on_the_way(where.scope.path, target)
    if link is not None:
        raise UsageError(
            f"{link} is a symbolic link; memory is never written through links",
            "replace the link with the real file or folder, then retry; nothing was written",
        )


def _relink(project: Project, where: RefPath, commit: str) -> bool:
    """A restored topic file gets its index line back (from the index of the same commit)
    when the index on disk lacks it: Claude Code only finds memories the index links."""
    from gitmem.project.filecas import replace_or_refuse
    from gitmem.project.state import current_mode

    folder, _, name = where.rel.rpartition("/")
    if (
        where.rel in where.scope.extra
        or name.casefold() == "memory.md"
        or not name.casefold().endswith(".md")
    ):
        return False
    index_rel = f"{folder}/MEMORY.md" if folder else "MEMORY.md"
    index_path = where.scope.path / index_rel
    if not index_path.is_file() or index_path.is_symlink():
        return False
    old = _plain_file(project, RefPath(where.scope, index_rel), commit)
    if old is None:
        return False
    from gitmem.core.fileread import NotAFile, read_regular
    from merge_drivers.links import with_entries

    try:  # the index on disk, through fileread's door (no link, no FIFO, bounded)
        current = read_regular(index_path)
    except NotAFile:
        return False
    fixed = with_entries(current, [name], [project.repo.read_blob(old)])
    if fixed == current:
        return False
    replace_or_refuse(index_path, current, fixed, current_mode(index_path), "restoring")
    return True


# -- the personal ref may be encrypted: names hidden, blobs sealed (gitmem.privacy.codec) -------------


def _stored_path(project: Project, where: RefPath, tip: str | None) -> list[str]:
    """The names a memory had on its ref: its hidden names under each key when the personal
    ref encrypts its prefix (a key rotation renames them), and its plaintext path."""
    if where.scope.ref != project.user_ref or tip is None or not where.rel:
        return [where.in_ref]
    from gitmem.privacy.codec import personal_codec

    return personal_codec(project.repo, project.user_ref).stored_paths(tip, where.in_ref)


def plain_tree(project: Project, commit: str) -> str:
    from gitmem.merge.tree import as_tree_input
    from gitmem.privacy.codec import personal_codec

    files = personal_codec(project.repo, project.user_ref).decode(commit).files
    return project.repo.write_tree(as_tree_input(files))


def _plain_file(project: Project, where: RefPath, commit: str) -> str | None:
    if where.scope.ref != project.user_ref:
        return project.repo.resolve(f"{commit}:{where.in_ref}")
    from gitmem.privacy.codec import personal_codec

    return personal_codec(project.repo, project.user_ref).decode(commit).files.get(where.in_ref)


def _plain_from_history(
    project: Project, where: RefPath, commit: str, stored: str | None
) -> str | None:
    """The plaintext blob of a version `path_history` listed: the listed blob itself on a
    plaintext ref (no process per version), else decoded from the commit."""
    if where.scope.ref != project.user_ref:
        return stored
    return _plain_file(project, where, commit) if stored else None


def _open_sealed_notes(
    project: Project, rows: list[dict[str, str]], codec: list[PersonalCodec] | None = None
) -> None:
    """Resolutions naming encrypted files are sealed in the commit message: open them here."""
    from gitmem.privacy.codec import NOTE_PREFIX

    made = [] if codec is None else codec
    for row in rows:
        if NOTE_PREFIX not in row["resolved"]:
            continue
        lines: list[str] = []
        for entry in row["resolved"].split("\x1d"):
            sealed = entry.startswith(NOTE_PREFIX)
            lines += _codec(project, made).open_note(row["commit"], entry) if sealed else [entry]
        row["resolved"] = "\x1d".join(lines)
