"""gitmem promote / demote: move a memory between a personal scope and a shared one.

The topic file moves with its index line: added to the target's MEMORY.md (the line the source
index had, else one made from the file's frontmatter), taken out of the source's. The order of
the writes never loses the memory: target file, target index, source index, then the source
file goes. A push right after records the move in both refs' history (the personal ref drops
it, the team ref gains it); without a remote, the next sync does.

Refuses when the target already holds a different file of that name, and — before moving
anything — a memory the pre-push secret scan would block (exit 1, as `sync` does). Never
touches anything outside the two memory folders.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.errors import GitmemError, NothingHere, SecretsFound, UsageError

if TYPE_CHECKING:
    from gitmem.project.scopes import Project


INDEX_NAME = "MEMORY.md"
PERSONAL = ("auto",)
SHARED = ("team", "agents")


@dataclass(frozen=True)
class MemoryHome:
    """A memory folder that has its own MEMORY.md: a scope, or one agent's folder in `agents`."""

    scope: str
    folder: Path
    label: str  # "auto", "team", "agents/reviewer"


@dataclass
class Moved:
    source: str  # "auto/build.md"
    target: str  # "team/build.md"
    index_line: str
    pushed: bool = False
    notes: list[str] = field(default_factory=list)


def home_of(project: Project, name: str) -> MemoryHome:
    """`auto`, `team`, or `agents/<name>` as a folder."""
    scope, _, agent = name.partition("/")
    if scope == "agents":
        if not agent or "/" in agent or agent in (".", "..") or agent.startswith("."):
            raise UsageError(
                f"{name!r} names no agent folder", "use --to agents/NAME (one folder name)"
            )
        return MemoryHome("agents", project.scope("agents").path / agent.replace(":", "-"), name)
    if scope not in ("auto", "team") or agent:
        raise UsageError(f"unknown memory scope {name!r}", "use auto, team or agents/NAME")
    return MemoryHome(scope, project.scope(scope).path, scope)


def _source(project: Project, path: str) -> tuple[MemoryHome, str]:
    from gitmem.history.versions import locate

    where = locate(project, path)
    rel = where.rel
    if where.scope.name not in (
        "auto",
        "team",
        "agents",
    ):  # local: a subagent's own, or CLAUDE.local.md
        raise UsageError(
            f"{where.scope.name}/{rel} is {where.scope.name} memory (personal, on your own "
            "ref): promote and demote move memory between auto, team and "
            "agents/NAME",
            "to share it, copy it into a shared folder (gitmem status lists them) and sync",
        )
    if where.scope.name == "agents":
        agent, _, rel = rel.partition("/")
        home = home_of(project, f"agents/{agent}")
    else:
        home = home_of(project, where.scope.name)
    from gitmem.policy.rules import INDEX_NAMES

    # an index's names in any folder (`sub/MEMORY.md`, `MEMORY-archive.md`): moved, the target
    # read it as its index (red team 15)
    if not rel or not rel.endswith(".md") or rel.rsplit("/", 1)[-1].casefold() in INDEX_NAMES:
        raise UsageError(
            f"{path!r} is not a topic file (a .md memory other than MEMORY.md)",
            "name one file, e.g. auto/build.md",
        )
    parts = rel.split("/")
    if rel.startswith("/") or any(p in ("", ".", "..") or p.startswith(".") for p in parts):
        raise UsageError(
            f"{path!r} leads out of its memory folder or into a hidden one",
            "name a memory inside the scope, e.g. auto/build.md",
        )
    return home, rel


def _check_direction(direction: str, src: MemoryHome, rel: str, to: str) -> None:
    """One accurate line for each pair of scopes a promote or demote cannot move between,
    about the memory named first ("team/x.md is already shared"), then the target."""
    here = f"{src.label}/{rel}"
    target = to.partition("/")[0]
    if direction == "promote" and src.scope != "auto":
        then = (
            f"; to move it to {to}: gitmem demote {here}, then gitmem promote auto/{rel} --to {to}"
            if target in SHARED and to != src.label
            else ""
        )
        raise UsageError(
            f"{here} is already shared ({src.label} memory): promote shares personal (auto) memory",
            f"to make it yours again: gitmem demote {here}{then}",
        )
    if direction == "promote" and target not in SHARED:
        raise UsageError(
            f"{here} is already in auto: promote shares it with team or agents/NAME"
            if to == "auto"
            else f"promote shares {here} with team or agents/NAME, not {to!r}",
            "use --to team (or --to agents/NAME)",
        )
    if direction == "demote" and src.scope not in SHARED:
        raise UsageError(
            f"{here} is already personal (auto memory): demote takes team or agents memory back",
            f"to share it: gitmem promote {here}",
        )
    if direction == "demote" and to not in PERSONAL:
        where = " (where it is)" if to == src.label else " (shared)" if target in SHARED else ""
        raise UsageError(
            f"demote takes {here} back to your personal memory, auto, not {to!r}{where}",
            "use --to auto (the default)",
        )


def move(
    project: Project, path: str, to: str, allowed_from: tuple[str, ...], dry_run: bool = False
) -> Moved:
    """Move the memory `path` to the folder `to`; returns what moved (pushes if it can).
    `dry_run`: every check, nothing written or pushed."""
    from gitmem.claude.curate import index_line_for
    from gitmem.project.filecas import ChangedMeanwhile, remove_unchanged, replace_or_refuse
    from gitmem.project.state import current_mode
    from merge_drivers.indexdoc import parse, render

    src, rel = _source(project, path)
    _check_direction("promote" if allowed_from == PERSONAL else "demote", src, rel, to)
    dst = home_of(project, to)
    if dst.folder == src.folder:
        raise UsageError(f"{src.label}/{rel} is already in {dst.label}", "nothing to move")
    _syncable(src, dst, rel)
    _confined(src, rel, project.tree)
    _confined(dst, rel, project.tree)
    source_file = src.folder / rel
    try:
        data = _regular(source_file)
    except FileNotFoundError:
        raise NothingHere(
            f"no memory {src.label}/{rel} on disk ({source_file})",
            # status counts a scope's files, it names none (round 23)
            f"gitmem query --scope {src.label} --recent 20 lists its memories by id "
            "(one written on another machine: gitmem pull first)",
        ) from None
    _refuse_secrets(project, f"{src.label}/{rel}", f"{dst.label}/{rel}", data)
    target_file = dst.folder / rel
    there = _regular(target_file) if target_file.exists() else None
    if there is not None and there != data:
        raise UsageError(
            f"{dst.label}/{rel} already exists with other content",
            f"rename one of them, or compare: {_diff_command(source_file, target_file)}",
        )
    src_index_text, src_index_read = _read_index(src.folder / INDEX_NAME)
    src_index = parse(src_index_text)
    key = rel.casefold()
    mine = [
        it
        for it in src_index.items
        if it.kind == "entry" and (it.target or "").strip().removeprefix("./").casefold() == key
    ]
    line = mine[0].text if mine else index_line_for(rel, data)
    dst_index_text, dst_index_read = _read_index(dst.folder / INDEX_NAME)
    dst_index = parse(dst_index_text)
    has_line = any(
        it.kind == "entry" and (it.target or "").strip().removeprefix("./").casefold() == key
        for it in dst_index.items
    )
    if dry_run:
        return Moved(f"{src.label}/{rel}", f"{dst.label}/{rel}", line)
    mode = source_file.stat().st_mode & 0o777
    target_file.parent.mkdir(parents=True, exist_ok=True)
    # each file replaced only over the bytes read here (gitmem/project/filecas.py): an
    # editor's append since is kept, and the move stops there
    doing = f"moving {src.label}/{rel} to {dst.label}"
    if there is None:
        replace_or_refuse(target_file, None, data, mode, doing)
    if not has_line:
        sep = "" if not dst_index_text or dst_index_text.endswith("\n") else "\n"
        dst_index_file = dst.folder / INDEX_NAME  # its permission bits kept, as sync's write-back
        replace_or_refuse(
            dst_index_file,
            dst_index_read,
            (dst_index_text + sep + line + "\n").encode(),
            current_mode(dst_index_file),
            doing,
        )
    if mine:
        kept = [it for it in src_index.items if it not in mine]
        if kept and mine[0] is src_index.items[0]:
            kept[0].gap = ""  # the index no longer starts with a blank line
        src_index_file = src.folder / INDEX_NAME
        replace_or_refuse(
            src_index_file,
            src_index_read,
            render(kept, src_index.tail, src_index.eol).encode(),
            current_mode(src_index_file),
            doing,
        )
    try:  # an edit since the read stays where it was: the memory is then in both places
        remove_unchanged(source_file, data)
    except ChangedMeanwhile as e:  # not the generic "nothing replaced": the move was made
        raise UsageError(
            f"{source_file} changed while {doing}: it stays there with the edit{e.told()}, "
            f"and {target_file} holds it as read before (both indexes list it as moved)",
            f"compare them ({_diff_command(source_file, target_file)}), bring the edit over, then "
            "delete the one left behind",
        ) from None
    moved = Moved(f"{src.label}/{rel}", f"{dst.label}/{rel}", line)
    _record(project, moved, {src.scope, dst.scope})
    return moved


def _syncable(src: MemoryHome, dst: MemoryHome, rel: str) -> None:
    """The name it gets in the target's tree passes the one policy: moved under a name every
    sync skips (`--to 'agents/x\u202ey'`), it left the personal folder for one it never leaves."""
    from gitmem.policy.rules import check_name

    agent = f"{dst.folder.name}/" if dst.scope == "agents" else ""
    found = check_name(f"{dst.scope}/{agent}{rel}")
    if found:
        raise UsageError(
            f"not moving {src.label}/{rel} to {dst.label}: {found[0].code} {found[0].message}",
            "choose another name (letters, digits, - and _); nothing was moved",
        )


def _regular(path: Path) -> bytes:
    """A memory file's bytes through fileread's door (no link, no FIFO, bounded, checked on
    the file opened); anything else is refused in one line."""
    from gitmem.core.fileread import NotAFile, read_regular

    try:
        return read_regular(path)
    except NotAFile as exc:
        raise UsageError(
            f"{path} is {exc.what}, not a memory file",
            "replace it with the file itself, then run the command again; nothing was written",
        ) from None


def _read_index(path: Path) -> tuple[str, bytes | None]:
    """An index's text ("" when there is none) and its bytes (None: no file)."""
    try:
        data = _regular(path)
        return data.decode("utf-8"), data
    except FileNotFoundError:
        return "", None
    except UnicodeDecodeError:
        raise UsageError(
            f"{path} is not UTF-8 text", "fix its encoding, then retry; nothing was moved"
        ) from None


def _confined(home: MemoryHome, rel: str, root: Path) -> None:
    """No symbolic link between a memory folder and the file: a link must not carry a secret
    into the team's memory, nor a write out of the folder."""
    from gitmem.project.confinement import link_on_the_way

    link = link_on_the_way(home.folder, home.folder / rel)
    if link is None and home.scope == "agents":
        link = link_on_the_way(root, home.folder)  # <root>/.claude/agent-memory/<agent>
    if link is not None:
        raise UsageError(
            f"{link} is a symbolic link; memory is never moved through links",
            "replace the link with the real file or folder, then retry; nothing was moved",
        )


def _record(project: Project, moved: Moved, scopes: set[str]) -> None:
    """Push both scopes so that each ref's history shows the move (best effort)."""
    from gitmem.sync import SyncOptions, run_sync

    if project.remote is None:
        moved.notes.append("no remote: run gitmem sync once there is one")
        return
    try:
        from gitmem.project.scopes import refuse_unchosen_remote

        refuse_unchosen_remote(project, None)  # several remotes, none chosen: never a guess
        run_sync(project, SyncOptions(mode="push", scopes=tuple(sorted(scopes))))
        moved.pushed = True
    except SecretsFound as exc:
        # another file of those scopes holds the secret: the move stands, the push waits
        raise SecretsFound(
            f"moved {moved.source} -> {moved.target} on disk, not pushed: {exc.message}",
            f"{exc.hint}; then gitmem sync",
        ) from None
    except GitmemError as exc:
        moved.notes.append(f"moved on disk, not pushed yet ({exc.message}); run gitmem sync")


def _refuse_secrets(project: Project, source: str, target: str, data: bytes) -> None:
    """The secret scan the push would run, on the memory before it moves (the same
    allow-list: the user's own configuration): a flagged memory stays where it is."""
    from gitmem.policy.secrets import ALLOW_HINT, scan_secrets, user_allow_list

    allow = user_allow_list(project.repo.config())
    if allow.path_allowed(target):
        return
    found = scan_secrets(data.decode("utf-8", "replace"), allow.fingerprints)
    if found:
        where = "; ".join(f"{source}:{m.line} {m.message}" for m in found[:3])
        raise SecretsFound(
            f"not moving {source} to {target}: its push would be refused, "
            f"{len(found)} likely secret{'s' if len(found) > 1 else ''}: {where}",
            f"remove it from {source}, then rerun gitmem promote; {ALLOW_HINT}",
        )


def promote(project: Project, path: str, to: str = "team", dry_run: bool = False) -> Moved:
    return move(project, path, to, PERSONAL, dry_run)


def demote(project: Project, path: str, to: str = "auto", dry_run: bool = False) -> Moved:
    return move(project, path, to, SHARED, dry_run)


def _diff_command(one: Path, other: Path) -> str:
    """`diff A B` as a shell reads it: an in-tree scope's folder is under the checkout's path,
    which may hold a space (round 23: "diff /my proj/… /my proj/…" was four words)."""
    import shlex

    return shlex.join(["diff", str(one), str(other)])
