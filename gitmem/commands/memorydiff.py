"""`gitmem diff`: what changed in memory on disk since the last sync, or between a revision
of a memory ref and the ref now. A use case above the sync: the disk's side is read with the
sync's own folder snapshot (so `diff` sees what the next sync would commit)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitmem.history.versions import (
    empty_tree,
    locate,
    plain_tree,
    revisions,
    under,
    user_memory,
)
from gitmem.project.scopes import shown_diff

if TYPE_CHECKING:
    from gitmem.project.scopes import Project


def memory_diff(
    project: Project, rev: str | None, path: str | None, *, named: str | None = None
) -> str:
    """Without REV: what changed on disk since the last sync. With REV: REV against the ref now."""
    from gitmem.merge.tree import as_tree_input
    from gitmem.project.state import load_scope_state
    from gitmem.sync.folders import snapshot

    user = user_memory(project, path) if path else None
    if user is not None and path:  # user-scope memory: its versions are in the agent's store
        try:
            out = memory_diff(user[0], rev, user[1], named=path)
            return _as_named(out, user[0].scopes[0].prefix, path.partition("/")[0])
        finally:
            user[0].repo.close()
    repo = project.repo
    where = locate(project, path) if path else None
    scopes = [where.scope] if where else [s for s in project.scopes if s.pushable]
    chunks: list[str] = []
    if rev:
        for scope, old, tip in revisions(project, scopes, rev, named):
            if scope.ref == project.user_ref:  # encrypted names and blobs: diff the plaintext
                old, tip = plain_tree(project, old), plain_tree(project, tip)
            chunks.append(repo.diff(old, tip, [where.in_ref if where else scope.prefix]))
        return shown_diff("".join(chunks))
    found = False  # the memory named is on disk or was at the last sync
    for scope in scopes:
        state = load_scope_state(repo.common_dir, scope.name)
        known = state.files if state.path == str(scope.path) else {}
        snap = snapshot(
            repo, scope.path, known, scope.exclude, prefix=scope.prefix, extra=scope.extra
        )
        wanted = under(where.rel if where else "")
        expected = {f"{scope.prefix}/{p}": r.oid for p, r in known.items() if wanted(p)}
        now = {f"{scope.prefix}/{p}": oid for p, oid in snap.files.items() if wanted(p)}
        found = found or bool(expected or now)
        if expected == now:
            continue
        old_tree = repo.write_tree(as_tree_input(expected)) if expected else empty_tree(project)
        new_tree = repo.write_tree(as_tree_input(now)) if now else empty_tree(project)
        chunks.append(repo.diff(old_tree, new_tree))
    if where is not None and where.rel and not found:
        # a mistyped name said "no changes", which reads as "synced" (round 23)
        from gitmem.core.sanitize import command_word
        from gitmem.errors import UsageError

        raise UsageError(
            f"no memory {where.in_ref} on disk ({where.scope.path / where.rel}) or at the last sync",
            f"gitmem query --scope {where.scope.name} --recent 20 lists its memories by id; "
            f"one deleted earlier: gitmem log {command_word(where.in_ref)}",
        )
    return shown_diff("".join(chunks))


def _as_named(diff: str, prefix: str, head: str) -> str:
    """A user-scope store's diff with its files named as recall names them (`user/CLAUDE.md`,
    not the store's `local/claude/.root/CLAUDE.md`), in the lines that name them."""
    out = []
    for line in diff.splitlines(keepends=True):
        if line.startswith(("diff --git ", "--- a/", "+++ b/")):
            for side in ("a/", "b/"):
                line = line.replace(f"{side}{prefix}/.root/", f"{side}{head}/")
                line = line.replace(f"{side}{prefix}/", f"{side}{head}/")
        out.append(line)
    return "".join(out)
