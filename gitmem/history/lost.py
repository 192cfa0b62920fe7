"""gitmem lost / restore --lost N: the edits merges resolved against, one at a time.

A merge where both sides changed the same lines keeps one version in the file and records its
decision in the merge commit (`Gitmem-Resolved: PATH SUBJECT: WINNER (WHY)`, sealed on the
encrypted personal ref). Each decision where one side's edit lost is a *lost edit*, numbered
in the order the merges were made (1 is the oldest; numbers stay as history grows).

`gitmem sync` tells each lost edit (and each deletion an edit elsewhere undid) once, to the
machines that held it, naming who wrote it and on which machine (`losses_to_tell`).

Bringing one back touches nothing else: the lost edit is the difference between the merged
file and the losing side's file, only where the decision was (its lines, entry or field),
and it is applied onto the file as it is now where those merged lines still stand untouched
(a 3-way apply: base the merged file, ours the file now), so edits made since — later
entries, other lines, even next to it — stay. When those same lines changed since, it is
refused (nothing written), with the command that shows the edit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.core import jsondata
from gitmem.errors import UsageError
from gitmem.project.adapters import GEMINI_FILE, gemini_section, with_gemini_section
from merge_drivers.diff import BoundedMatcher, unified_diff
from merge_drivers.model import DESCRIPTION_DECIDED, HOOK_DECIDED, LOSING_REASONS

if TYPE_CHECKING:
    from gitmem.gitstore.store import Store
    from gitmem.project.scopes import Project, Scope


LOSING = LOSING_REASONS  # the reasons a resolution gives when one side's edit lost
MAX_MERGES = 500  # resolving merges read per ref


@dataclass(frozen=True)
class LostEdit:
    number: int
    ref: str
    merge: str  # the merge commit that resolved against it
    time: int
    path: str  # as the ref stores it: team/deploy.md
    subject: str  # "lines 4-4", "entry api.md", "field description", "file"
    why: str  # "tie-break", "newer", ...
    lost_side: str  # the merge's parent whose edit lost
    author: str  # who wrote the lost edit (the losing side's newest commit that changed it)
    winner: str  # who wrote the version kept
    author_host: str = ""  # the machine the lost edit's gitmem commit names ("": none)
    winner_host: str = ""
    author_email: str = ""
    winner_email: str = ""
    agent: str = ""  # of a user-scope store: the agent, whose own edits `number` counts
    lost_path: str = ""  # where the losing side holds it when the kept side renamed it
    was: str = ""  # of an entry decision: the name the losing side's line links (renamed since)

    @property
    def label(self) -> str:
        """How a command names it: `N`, or `AGENT:N` of the user scope (each agent's store
        numbers its own: round 23, one numbering across agents gave an edit another number
        once another agent's merge came in before it, or an agent was turned off)."""
        return f"{self.agent}:{self.number}" if self.agent else str(self.number)

    @property
    def shows(self) -> str:
        """The command that shows it."""
        return f"gitmem lost --user {self.label}" if self.agent else f"gitmem lost {self.number}"

    def as_json(self) -> dict[str, object]:
        return {
            **({"agent": self.agent, "id": self.label} if self.agent else {}),
            "number": self.number,
            "ref": self.ref,
            "merge": self.merge,
            "time": self.time,
            "path": self.path,
            "where": self.subject,
            "why": self.why,
            "author": self.author,
            "author_host": self.author_host,
            "author_email": self.author_email,
            "kept": self.winner,
            "kept_host": self.winner_host,
            "kept_email": self.winner_email,
        }


def lost_edits(project: Project) -> list[LostEdit]:
    """Every lost edit of the memory refs, oldest first, numbered from 1."""
    out = []
    for n, decision in enumerate(_decisions(project), 1):
        time, merge, ref, path, subject, why, lost, kept, lost_path, was = decision
        writer = _writer(project, ref, lost_path, lost, kept, "", "", "", subject)
        winner = _writer(project, ref, path, kept, lost, "", "", "", subject)
        out.append(
            LostEdit(
                n,
                ref,
                merge,
                time,
                path,
                subject,
                why,
                lost,
                writer.name,
                winner.name,
                writer.host,
                winner.host,
                writer.email,
                winner.email,
                lost_path=lost_path if lost_path != path else "",
                was=was,
            )
        )
    return out


def _decisions(
    project: Project,
) -> list[tuple[int, str, str, str, str, str, str, str, str, str]]:
    """(time, merge, ref, path, subject, why, losing parent, kept parent, the path the losing
    parent holds it at, the old name of an entry's renamed file) of every decision against an edit in the memory refs' merges, in the
    order `gitmem lost` numbers them."""
    from gitmem.history.versions import _resolving_merges

    repo = project.repo
    found: list[tuple[int, str, str, str, str, str, str, str, str, str]] = []
    for ref in sorted({s.ref for s in project.scopes if s.ref}):
        if not repo.resolve(ref):
            continue
        for row in _resolving_merges(project, ref, ref, MAX_MERGES):
            parents = repo.read_commit(row["commit"])[1]
            if len(parents) != 2:
                continue
            moved = _carried(row["resolved"])
            renamed = _renamed(row["resolved"])
            for res in filter(None, row["resolved"].split("\x1d")):
                what, _, outcome = res.rpartition(": ")
                side, _, why = outcome.partition(" ")
                why = why.strip("()")
                if side not in ("ours", "theirs") or why not in LOSING:
                    continue
                path, _, subject = what.partition(" ")
                lost, kept = (parents[1], parents[0]) if side == "ours" else parents
                at = _held_at(project, path, lost, moved)
                was = (
                    renamed.get(subject.partition(" ")[2], "")
                    if subject.startswith("entry ")
                    else ""
                )
                found.append(
                    (
                        int(row["time"]),
                        row["commit"],
                        ref,
                        path,
                        subject or "file",
                        why,
                        lost,
                        kept,
                        at,
                        was,
                    )
                )
    found.sort(key=lambda f: (f[0], f[1], f[3], f[4]))
    return found


_CARRIED = re.compile(r"(.+) renamed to (.+): edits carried")


def _carried(resolved: str) -> dict[str, str]:
    """{new path: old path} of the topic files a merge's one side renamed while the other
    edited them (`merge.tree._carry_renames`): the editing side holds it at the old path."""
    return {m[2]: m[1] for res in resolved.split("\x1d") if (m := _CARRIED.fullmatch(res))}


_FOLLOWED = re.compile(r".+: links follow the rename (.+)")


def _renamed(resolved: str) -> dict[str, str]:
    """{new name: old name} of the topic files a merge renamed (`merge.tree`'s
    `links follow the rename A → B`): the losing side's index line may link the old name."""
    out: dict[str, str] = {}
    for res in resolved.split("\x1d"):
        if m := _FOLLOWED.fullmatch(res):
            for pair in m[1].split(", "):
                old, sep, new = pair.partition(" → ")
                if sep:
                    out[new] = old
    return out


def _held_at(project: Project, path: str, side: str, moved: Mapping[str, str]) -> str:
    """Where `side` holds the file the merge wrote at `path`: its old name when the other side
    renamed it (round 23 soak: read at the new name, the lost edit was an empty diff and
    `restore --lost` emptied the file). Read only when the merge carried a rename."""
    old = moved.get(path)
    if old is None:
        return path
    from gitmem.history.versions import _plain_file, locate

    return path if _plain_file(project, locate(project, path), side) else old


def is_user_store(project: Project) -> bool:
    """Whether `project` is an agent's user-scope store (gitmem.project.userscope.user_project:
    one scope named `user`), whose lost edits `gitmem lost --user` lists."""
    from gitmem.project.userscope import USER_SCOPE

    return len(project.scopes) == 1 and project.scopes[0].name == USER_SCOPE


def user_lost_edits(
    env: Mapping[str, str], repo: Store | None = None, uid: str | None = None
) -> list[tuple[str, Project, LostEdit]]:
    """(agent, its store, lost edit) of the user scope of every enabled agent, oldest first,
    each numbered within its agent's store (`LostEdit.label`: `gemini:1`; round 22: the sync
    told `gitmem lost 1` of an edit of ~/.gemini/GEMINI.md that `gitmem lost` never listed).
    `repo`: whose config (`user_projects`)."""
    from gitmem.project.userscope import user_projects

    found = []
    for agent, store in user_projects(repo, env, uid):
        edits = lost_edits(store)
        found += [(agent, store, replace(e, agent=agent)) for e in edits]
        if not edits:
            store.repo.close()
    found.sort(key=lambda f: (f[2].time, f[2].merge, f[2].path, f[2].subject))
    return found


def find_user(
    env: Mapping[str, str], number: int, agent: str = "", repo: Store | None = None
) -> tuple[str, Project, LostEdit]:
    """User-scope lost edit `agent:number` (`user_lost_edits`); `number` alone when one agent
    has an edit of that number; else the one line saying there is none, or which to name."""
    edits = user_lost_edits(env, repo)
    named = f"{agent}:{number}" if agent else str(number)
    found = [f for f in edits if f[2].number == number and agent in ("", f[0])]
    if len(found) == 1:
        return found[0]
    if found:  # two agents' stores each have an edit of that number: which one is meant
        labels = ", ".join(_label_shown(a, e, env) for a, _, e in sorted(found, key=lambda f: f[0]))
        raise UsageError(
            f"lost edit {number} of your user-scope memory is one of several: {labels}",
            f"name it with its agent: gitmem lost --user {found[0][2].label}",
        )
    mine = [e for a, _, e in edits if agent in ("", a)]
    raise UsageError(
        f"no lost edit {named} of your user-scope memory"
        + (f" (there are {len(mine)})" if mine else " (there are none)"),
        "gitmem lost --user lists them with their numbers (AGENT:N)",
    )


def _label_shown(agent: str, edit: LostEdit, env: Mapping[str, str]) -> str:
    """`gemini:1 (~/.gemini/GEMINI.md)`: an edit's label and its file as the user knows it."""
    from gitmem.project.userscope import shown_user

    return f"{edit.label} ({shown_user(agent, edit.path, env)})"


def find(project: Project, number: int) -> LostEdit:
    edits = lost_edits(project)
    for edit in edits:
        if edit.number == number:
            return edit
    raise UsageError(
        f"no lost edit {number}"
        + (
            f" (they are numbered 1 to {len(edits)})"
            if len(edits) > 1
            else " (there is only 1)"
            if edits
            else " (there are none)"
        ),
        "gitmem lost lists them with their numbers",
    )


def _text(project: Project, path: str, commit: str) -> str:
    from gitmem.history.versions import _plain_file, locate

    where = locate(project, path)
    oid = _plain_file(project, where, commit)
    data = project.repo.read_blob(oid) if oid else b""
    # Gemini's GEMINI.md: only its section is memory, even of a whole file an older gitmem
    # stored; its lost edits are of the section's lines (round 22)
    if where.rel == GEMINI_FILE:  # its section alone, even of a whole file an older gitmem stored
        data = gemini_section(data)
    return data.decode("utf-8", "replace")


_HOOK_DECIDED = re.compile(re.escape(HOOK_DECIDED).replace(re.escape("{name}"), "(.+)"))


def _partner(path: str, subject: str) -> str | None:
    """The other file of a hook and description decided together: its writer may have
    written the version there (the winner changed the description, the loser the hook)."""
    folder = path.rpartition("/")[0]
    prefix = f"{folder}/" if folder else ""
    m = _HOOK_DECIDED.fullmatch(subject)
    if m:
        return prefix + m[1]
    return prefix + "MEMORY.md" if subject == DESCRIPTION_DECIDED else None


def _selected(subject: str, merged: list[str], lost: list[str]) -> list[tuple[int, int, int, int]]:
    """The changes from the merged lines to the losing side's that the decision was about."""
    ops = [
        (i1, i2, j1, j2)
        for tag, i1, i2, j1, j2 in BoundedMatcher(merged, lost).get_opcodes()
        if tag != "equal"
    ]
    m = re.fullmatch(r"lines (\d+)-(\d+)", subject)
    if m:
        lo, hi = int(m[1]) - 1, int(m[2])
        return [o for o in ops if (o[0] < hi and o[1] > lo) or (o[0] == o[1] and lo <= o[0] <= hi)]
    m = re.fullmatch(r"lines after (\d+)", subject)
    if m:
        at = int(m[1])
        return [o for o in ops if o[0] <= at <= o[1]]
    # a line-keyed decision (an entry, a field) is about its own line: lines rewritten one for
    # one are each their own change (round 22: a neighbour's line edited too came back with it)
    ops = [
        (i1 + k, i1 + k + 1, j1 + k, j1 + k + 1) if i2 - i1 == j2 - j1 else (i1, i2, j1, j2)
        for i1, i2, j1, j2 in ops
        for k in range(i2 - i1 if i2 - i1 == j2 - j1 else 1)
    ]
    m = _HOOK_DECIDED.fullmatch(subject)
    if m:  # the index line of that topic file
        return [
            o
            for o in ops
            if any(f"]({m[1]})" in ln for ln in merged[o[0] : o[1]] + lost[o[2] : o[3]])
        ]
    if subject == DESCRIPTION_DECIDED:
        subject = "field description"
    word = subject.partition(" ")[2]
    if subject.startswith("entry ") and word:
        return [o for o in ops if any(word in ln for ln in merged[o[0] : o[1]] + lost[o[2] : o[3]])]
    if subject.startswith("field ") and word:
        key = re.compile(rf"\s*{re.escape(word)}\s*:")
        return [
            o for o in ops if any(key.match(ln) for ln in merged[o[0] : o[1]] + lost[o[2] : o[3]])
        ]
    return ops  # the whole file


def lost_versions(project: Project, edit: LostEdit) -> tuple[str, str]:
    """(the file as the merge left it, the same with only the lost edit put back)."""
    merged, lost, ops = _lost_change(project, edit)
    return "".join(merged), "".join(_apply(merged, ops, lost, merged) or merged)


def _lost_change(
    project: Project, edit: LostEdit
) -> tuple[list[str], list[str], list[tuple[int, int, int, int]]]:
    merged = _text(project, edit.path, edit.merge).splitlines(True)
    lost = _text(project, edit.lost_path or edit.path, edit.lost_side).splitlines(True)
    if edit.was:  # its line, renamed and maybe moved since: the line itself, where it is now
        name = edit.subject.partition(" ")[2]
        lost = [ln.replace(f"]({edit.was})", f"]({name})") for ln in lost]
        mine = [i for i, ln in enumerate(merged) if f"]({name})" in ln]
        theirs = [j for j, ln in enumerate(lost) if f"]({name})" in ln]
        if len(mine) == 1 and len(theirs) == 1:
            return merged, lost, [(mine[0], mine[0] + 1, theirs[0], theirs[0] + 1)]
    return merged, lost, _selected(edit.subject, merged, lost)


def _apply(
    merged: list[str], ops: list[tuple[int, int, int, int]], lost: list[str], now: list[str]
) -> list[str] | None:
    """`now` with each change of `ops` (merged[i1:i2] -> lost[j1:j2]) made where those merged
    lines are in `now`, untouched; None when one of them changed since (or is gone)."""
    pos: dict[int, int] = {}
    for a, b, size in BoundedMatcher(merged, now).get_matching_blocks():
        for k in range(size):
            pos[a + k] = b + k
    out = list(now)
    for i1, i2, j1, j2 in reversed(ops):
        if i2 > i1:
            at = [pos.get(i) for i in range(i1, i2)]
            first = at[0]
            if first is None or at != list(range(first, first + len(at))):
                return None
            start, end = first, first + len(at)
        elif i1 - 1 in pos:
            start = end = pos[i1 - 1] + 1
        elif i1 in pos or i1 == 0:
            start = end = pos.get(i1, 0)
        else:
            return None
        out[start:end] = lost[j1:j2]
    return out


def _holds(
    merged: list[str], ops: list[tuple[int, int, int, int]], lost: list[str], now: list[str]
) -> bool:
    """`now` already holds the lost edit: the lost lines stand where it would put them."""
    back, ranges, shift = list(merged), [], 0
    for i1, i2, j1, j2 in ops:
        back[i1 + shift : i2 + shift] = lost[j1:j2]
        ranges.append((i1 + shift, i1 + shift + j2 - j1))
        shift += (j2 - j1) - (i2 - i1)
    pos: dict[int, int] = {}
    for a, b, size in BoundedMatcher(back, now).get_matching_blocks():
        for k in range(size):
            pos[a + k] = b + k
    for start, end in ranges:
        at = [pos.get(i) for i in range(start, end)]
        first = at[0] if at else None
        if at and (first is None or at != list(range(first, first + len(at)))):
            return False
    return True


def show_lost(project: Project, edit: LostEdit) -> str:
    """The lost edit as a diff of the merged file (what `restore --lost` would apply)."""
    from gitmem.project.scopes import shown

    merged, back = lost_versions(project, edit)
    name = shown(edit.path)
    return "".join(
        line if line.endswith("\n") else line + "\n"
        for line in unified_diff(
            merged.splitlines(True), back.splitlines(True), f"a/{name}", f"b/{name}"
        )
    )


@dataclass(frozen=True)
class Brought:
    edit: LostEdit
    path: Path
    changed: bool


def restore_lost(project: Project, number: int, edit: LostEdit | None = None) -> Brought:
    """Apply lost edit `number` (`edit`: the one already found) onto the memory file as it is
    now (3-way); nothing else. Onto GEMINI.md's section alone: the rest is the user's."""
    from gitmem.history.versions import locate
    from gitmem.project.state import current_mode

    edit = edit or find(project, number)
    where = locate(project, edit.path)
    section = where.rel == GEMINI_FILE
    target = where.scope.path / where.rel
    for name, file in where.scope.outside:  # CLAUDE.local.md lives outside its folder
        if name == where.rel:
            target = file
    merged, lost, ops = _lost_change(project, edit)
    from gitmem.core.fileread import NotAFile, read_regular

    read: bytes | None = None  # the bytes the edit applies onto: only those are replaced
    try:  # checked on the file opened: a link or FIFO swapped in after a check is no file
        read = read_regular(target)
        now = (gemini_section(read) if section else read).decode("utf-8")
    except NotAFile as exc:
        raise UsageError(
            f"{target} is {exc.what}, not a memory file", "replace it with the file"
        ) from None
    except FileNotFoundError:
        _moved_since(project, where.scope, where.rel, edit.path, number)
        now = "".join(merged)  # deleted since: the edit applies to the file the merge left
    except UnicodeDecodeError:
        raise UsageError(f"{target} is not UTF-8 text", "fix its encoding, then retry") from None
    result = _apply(merged, ops, lost, now.splitlines(True))
    if result is None and _holds(merged, ops, lost, now.splitlines(True)):
        return Brought(edit, target, False)
    if result is None:
        raise UsageError(
            f"lost edit {edit.label} ({edit.path} {edit.subject}) no longer applies: those "
            "lines changed since; nothing written",
            f"see it with {edit.shows} and edit {target} by hand",
        )
    data = "".join(result)
    if data == now:
        return Brought(edit, target, False)
    from gitmem.history.versions import refuse_unsafe
    from gitmem.project.filecas import replace_or_refuse

    out = data.encode("utf-8")
    if section:  # the section put back in its place, every other byte of the file as it is
        out = with_gemini_section(read or b"", out)
    refuse_unsafe(where, out, f"lost edit {edit.label}")
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = current_mode(target)
    replace_or_refuse(target, read, out, mode, f"bringing back lost edit {edit.label}")
    return Brought(edit, target, True)


def _moved_since(project: Project, scope: Scope, rel: str, path: str, number: int) -> None:
    """A lost edit whose file is gone while another memory folder holds a memory of its name
    (promoted or demoted since: auto, team and each agents/NAME have their own, and a move
    keeps the name within them): written back in place it would be a second copy of that
    memory. Every folder has its index: a MEMORY.md is never read as moved."""
    if rel.rpartition("/")[2] == "MEMORY.md":
        return
    own, inner = (
        (f"agents/{rel.partition('/')[0]}", rel.partition("/")[2])
        if scope.name == "agents"
        else (scope.prefix, rel)
    )
    for label, folder in _memory_homes(project):
        if label != own and inner and (folder / inner).is_file():
            moved = f"{label}/{inner}"
            from gitmem.core.sanitize import command_word

            raise UsageError(
                f"lost edit {number} is of {path}, gone since, and {moved} holds a memory of "
                "its name now (promoted or demoted?): nothing written",
                f"see it with gitmem lost {number} and apply it to {moved} by hand, or run "
                f"gitmem restore {command_word(path)} first to have both",
            )


def _memory_homes(project: Project) -> list[tuple[str, Path]]:
    """(label, folder) of each folder promote and demote move memories between: auto, team,
    and agents/NAME for each agent's folder (gitmem/commands/promote.py)."""
    homes: list[tuple[str, Path]] = []
    for scope in project.scopes:
        if scope.name in ("auto", "team"):
            homes.append((scope.prefix, scope.path))
        elif scope.name == "agents" and scope.path.is_dir() and not scope.path.is_symlink():
            homes += [
                (f"agents/{d.name}", d)
                for d in sorted(scope.path.iterdir())
                if d.is_dir() and not d.is_symlink()
            ]
    return homes


# -- what a sync tells: each edit a merge resolved against, once, with who wrote it --------------

# the reasons of a resolution, as a sentence says them (a trailer keeps its short word)
SAID = {
    "tie-break": "a tie: same confidence, same date; every machine keeps the same one of the two",
    "greater bytes": "a tie: same confidence, same date; every machine keeps the same one of the two",
    "newer": "newer",
    "more confident": "more confident",
    "clean beats damaged": "the other held conflict markers",
}
KEPT_OVER_DELETION = "modified beats deleted"
TOLD_FILE = "told-lost.json"  # edits already told, so no sync tells one twice
MAX_TOLD = 2000  # the edits remembered as told (oldest forgotten first)
MAX_TOLD_MERGES = 200  # resolving merges a sync reads for what to tell
MAX_HOST = 64  # characters of a machine's name kept from a commit subject
MAX_EMAIL = 254  # characters of an author's e-mail kept (the longest an address may be)
_HOST = re.compile(r" on (\S+?)(?: \(\d+ changed\))?$")


def plainly(resolution: str) -> str:
    """A resolution as its trailer says it (`PATH SUBJECT: SIDE (WHY)`), a tie said plainly."""
    what, sep, outcome = resolution.rpartition(": ")
    side, _, why = outcome.partition(" ")
    if not sep or why not in ("(tie-break)", "(greater bytes)"):
        return resolution
    return f"{what}: {side} ({SAID['tie-break']})"


@dataclass(frozen=True)
class Writer:
    """Who made a version: the commit that last changed the path on that side, its author,
    and the machine its gitmem message names (`gitmem: … on HOST`; "" when it names none)."""

    commit: str
    name: str
    host: str
    here: bool = False  # this machine and this git user (name and e-mail)
    email: str = ""
    # the same name on a machine of the same name, but another e-mail: the e-mail tells them
    # apart (two people sharing a machine's name and a first name; one account, two users)
    twin: bool = False

    def said(self) -> str:
        if self.here:
            return f"you ({self.name}) here"
        who = f"{self.name} <{self.email}>" if self.twin and self.email else self.name
        return f"{who} on {self.host}" if self.host else who

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "email": self.email,
            "host": self.host,
            "commit": self.commit,
            "here": self.here,
        }


@dataclass(frozen=True)
class Loss:
    """One edit a merge resolved against that this machine is told about: a lost edit
    (`kind` "lost", numbered as `gitmem lost` numbers it), or a deletion undone by an edit
    elsewhere (`kind` "kept": modified beats deleted)."""

    kind: str
    ref: str
    merge: str
    path: str
    subject: str
    why: str
    writer: Writer  # who wrote the edit (or the deletion) that lost
    winner: Writer  # who wrote the version kept
    number: int | None = None
    agent: str = ""  # of a user-scope store: `gitmem lost --user AGENT:N` lists it

    @property
    def commands(self) -> tuple[str, str]:
        """The commands that show it and bring it back."""
        if self.agent:
            label = f"{self.agent}:{self.number}"
            return f"gitmem lost --user {label}", f"gitmem restore --user --lost {label}"
        return f"gitmem lost {self.number}", f"gitmem restore --lost {self.number}"

    def text(self) -> str:
        """The line a sync prints after `lost: ` or `kept: `."""
        from gitmem.core.sanitize import command_word  # the path is a teammate's file name
        from gitmem.project.scopes import shown

        path = shown(self.path)
        where = f" ({self.subject})" if self.subject and self.subject != "file" else ""
        if self.kind == "kept":
            deleted = "deleted here" if self.writer.here else f"deleted by {self.writer.said()}"
            return (
                f"{path}{where} — {deleted}, edited by {self.winner.said()}: the edit is kept; "
                f"gitmem log {command_word(path)} shows both, delete it again (then gitmem sync) "
                "to drop it"
            )
        why = SAID.get(self.why, self.why)
        how = (
            f"{self.commands[0]} shows it, {self.commands[1]} brings it back"
            if self.number is not None
            else f"gitmem log {command_word(path)} shows it"
        )
        return (
            f"{path}{where} — the edit by {self.writer.said()} lost to the version by "
            f"{self.winner.said()} ({why}); {how}"
        )

    def as_json(self) -> dict[str, object]:
        from gitmem.core.sanitize import command_word
        from gitmem.project.scopes import shown

        path = shown(self.path)
        return {
            "kind": self.kind,
            "ref": self.ref,
            "merge": self.merge,
            "path": path,
            "where": self.subject,
            "why": self.why,
            "writer": self.writer.as_json(),
            "kept": self.winner.as_json(),
            "number": self.number,
            "show": self.commands[0] if self.number else f"gitmem log {command_word(path)}",
            "restore": self.commands[1] if self.number else None,
        }


def losses_to_tell(
    project: Project, ref: str, before: str | None, after: str | None, made: Mapping[str, str]
) -> list[Loss]:
    """The edits that the merges new on `ref` (in before..after) resolved against and this
    machine held: this machine's side of a merge made here (`made`: merge -> that side's
    word in its trailers) whose edit lost, or an edit reachable from `before` that a merge
    made elsewhere resolved against. Each edit once: across the
    merges of this run (a retry merges again) and across runs (remembered as told)."""
    from gitmem.history.versions import _resolving_merges

    repo = project.repo
    if after is None or before == after:
        return []
    if before is None:  # a first sync commits on top of the remote's history: no merge here
        return []
    rows = _resolving_merges(project, ref, f"{before}..{after}", MAX_TOLD_MERGES)
    if not rows:
        return []
    me = repo.config_get("user.name") or ""
    my_email = repo.config_get("user.email") or ""
    from gitmem.project.scopes import hostname

    host = hostname()
    told = _told(project)
    found: list[Loss] = []
    seen: set[tuple[str, str]] = set()
    for row in sorted(rows, key=lambda r: int(r["time"])):  # oldest merge first
        parents = repo.read_commit(row["commit"])[1]
        if len(parents) != 2:
            continue
        new_here: set[tuple[str, str]] = set()
        moved = _carried(row["resolved"])
        for res in filter(None, row["resolved"].split("\x1d")):
            what, _, outcome = res.rpartition(": ")
            side, _, why = outcome.partition(" ")
            why = why.strip("()")
            kind = "lost" if why in LOSING or why in SAID else "kept"
            if side not in ("ours", "theirs") or (kind == "kept" and why != KEPT_OVER_DELETION):
                continue
            path, _, subject = what.partition(" ")
            kept, lost = parents if side == "ours" else (parents[1], parents[0])
            mine = made.get(row["commit"])  # a merge of this run: which side was this machine
            here = mine is not None
            if side == mine:
                continue  # the other side's edit lost: it never was here; its writer is told
            at = _held_at(project, path, lost, moved)
            writer = _writer(project, ref, at, lost, kept, me, host, my_email, subject)
            key = (path, writer.commit)
            if key in told or (key in seen and key not in new_here):
                continue  # told before, or by an earlier merge of this run
            if not here and not (
                writer.commit == before or repo.is_ancestor(writer.commit, before)
            ):
                continue  # a merge made elsewhere against an edit this machine never held
            seen.add(key)
            new_here.add(key)
            winner = _writer(project, ref, path, kept, lost, me, host, my_email, subject)
            found.append(
                Loss(kind, ref, row["commit"], path, subject or "file", why, writer, winner)
            )
    if any(f.kind == "lost" for f in found):
        numbers = {(d[1], d[3], d[4]): n for n, d in enumerate(_decisions(project), 1)}
        if is_user_store(project):  # numbered within the agent's store, as `lost --user`
            agent = project.key.removeprefix("user:")
            found = [replace(f, agent=agent) for f in found]
        found = [
            replace(f, number=numbers.get((f.merge, f.path, f.subject))) if f.kind == "lost" else f
            for f in found
        ]
    if found:
        _remember_told(project, [(f.path, f.writer.commit) for f in found])
    return found


_STORED: dict[tuple[str, str, str], list[str]] = {}  # (ref, tip, path): its names on the ref


def _writer(
    project: Project,
    ref: str,
    path: str,
    side: str,
    other: str,
    me: str,
    host: str,
    my_email: str = "",
    subject: str = "",
) -> Writer:
    """Who wrote `path` as `side` holds it: the newest commit of `side` not in `other` that
    changed it (the side's newest commit when none names it: an encrypted name); for a hook
    and description decided together, that changed it or its partner (`_partner`)."""
    repo = project.repo
    tip = repo.resolve(ref)
    partner = _partner(path, subject)
    stored = _stored(project, ref, tip, path)
    if partner is not None:
        stored = [*stored, *_stored(project, ref, tip, partner)]
    rows = (
        repo.log(f"{other}..{side}", stored, 1)
        or repo.log(side, stored, 1)  # `side` descends from `other` (the disk's version)
        or repo.log(side, None, 1)
    )
    if not rows:
        return Writer(side, "another machine", "")
    on = made_on(rows[0]["subject"])
    name, email = rows[0]["author"], rows[0]["email"][:MAX_EMAIL]
    alike = bool(me) and name == me and on == host
    same = alike and (not my_email or email == my_email)
    return Writer(rows[0]["commit"], name, on, same, email, alike and not same)


def _stored(project: Project, ref: str, tip: str | None, path: str) -> list[str]:
    from gitmem.history.versions import _stored_path, locate

    stored = _STORED.get((ref, tip or "", path))
    if stored is None:
        try:
            stored = _stored_path(project, locate(project, path), tip)
        except UsageError:
            stored = [path]
        if len(_STORED) > 4096:  # a long-lived process (the MCP server): bounded
            _STORED.clear()
        _STORED[(ref, tip or "", path)] = stored
    return stored


def made_on(subject: str) -> str:
    """The machine a gitmem commit's subject names (`gitmem: 2 files changed on HOST`, `… on
    HOST (3 changed)`), "" for a subject that is not gitmem's; anyone's bytes, so bounded."""
    m = _HOST.search(subject)
    return m[1][:MAX_HOST] if m and subject.startswith("gitmem: ") else ""


def _told(project: Project) -> set[tuple[str, str]]:
    import contextlib

    from gitmem.core.statedir import read_own, state_dir

    path = state_dir(project.repo.common_dir) / TOLD_FILE
    with contextlib.suppress(OSError, ValueError, TypeError):
        return {(str(p), str(c)) for p, c in jsondata.loads(read_own(path))}
    return set()


def _remember_told(project: Project, keys: list[tuple[str, str]]) -> None:
    import contextlib
    import json

    from gitmem.core.nolinks import write_no_links
    from gitmem.core.statedir import read_own, state_dir

    common = project.repo.common_dir
    path = state_dir(common) / TOLD_FILE
    old: list[list[str]] = []
    with contextlib.suppress(OSError, ValueError, TypeError):
        old = [[str(p), str(c)] for p, c in jsondata.loads(read_own(path))]
    kept = old + [[p, c] for p, c in keys if [p, c] not in old]
    with contextlib.suppress(OSError):  # a record of what was said: never fails a sync
        write_no_links(common, path, json.dumps(kept[-MAX_TOLD:]).encode())
