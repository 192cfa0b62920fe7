"""One policy for every door of the history (the CLI's log, show, diff, restore, promote and
the MCP tools) on a machine your personal memory is not granted to yet (round 22)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gitmem.project.scopes import Project


@contextmanager
def sealed_here(project: Project, path: str | None) -> Iterator[None]:
    """One policy for the history doors (log, show, diff, restore, promote) on a machine your
    personal memory is not granted to yet: their "nothing here" error says why and how to get
    it. Round 22: `log auto/x.md`, `show '~0:auto/x.md'` and `restore auto/x.md` said "run
    gitmem sync first" and promote "gitmem pull first", which change nothing: the memory is on
    the ref, sealed with a key this machine lacks. Asked only when an error is raised."""
    from gitmem.errors import NothingHere

    try:
        yield
    except NothingHere as exc:  # other errors (a branch's commit as REV) keep their own hint
        unread = not_granted_here(project, path)
        if unread and path is not None:  # a personal memory: the key is the whole answer
            exc.hint = exc.tool_hint = unread  # the MCP tools' too: one wording at every door
        elif unread:  # every scope: the others' hint stands, and why personal memory is missing
            exc.hint = f"{exc.hint}; {unread}" if exc.hint else unread
            exc.tool_hint = f"{exc.tool_hint}; {unread}" if exc.tool_hint else None
        raise


def not_granted_here(project: Project, path: str | None = None) -> str | None:
    """`NOT_GRANTED; gitmem key grant …` when nothing of the personal memory is readable here
    (its ref never written on this machine, its key not granted to it) and `path`, if given,
    names a personal memory; else None."""
    from gitmem.errors import GitmemError
    from gitmem.project.userscope import is_user_project

    if is_user_project(project) or project.repo.resolve(project.user_ref):
        return None
    if path is not None:
        from gitmem.history.versions import locate

        try:
            if locate(project, path).scope.ref != project.user_ref:
                return None
        except GitmemError:
            return None
    from gitmem.commands.doctor import personal_key_step

    try:
        step = personal_key_step(project)
    except GitmemError:
        return None
    from gitmem.privacy.layout import NOT_GRANTED

    return f"{NOT_GRANTED}; {step}" if step else None
