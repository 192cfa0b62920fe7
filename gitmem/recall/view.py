"""`gitmem view`: the memory graph as one self-contained HTML page.

Everything is inlined (the data as JSON, a small hand-written force layout, the style): the page
loads nothing, and its Content-Security-Policy (`default-src 'none'`, the one script and the one
style allowed by their hashes) forbids it to. Nodes are sized by PageRank, coloured by
community, team memory (team, agents) drawn solid and personal memory (auto, local) ringed; a
search box filters them; a click shows the memory's text (always as text: the page never parses
a memory as HTML) and its history (who changed it, when, and the merge resolutions gitmem made).
Reads the index, the files and the refs; writes only the page.
"""

from __future__ import annotations

import base64
import hashlib
import json
import posixpath
import re
from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING, Any

from gitmem.recall.searchindex import (
    NO_REF,
    Place,
    ScopeSpot,
    refreshed,
    rows_where,
    synced_user_store,
)

if TYPE_CHECKING:
    from gitmem.project.scopes import Project

MAX_NODES = 1_500  # the most linked-to; a larger project is shown in part (the page says so)
MAX_TEXT = 20_000  # characters of one memory's text on the page
MAX_HISTORY = 20  # changes listed per memory
MAX_LINE = 1_000  # characters of an index's line searched on the page
MAX_COMMITS = 5_000  # commits read per ref
TEAM_SCOPES = frozenset({"team", "agents"})


# files named alike in every scope (an index, an agent's instructions): labelled by their id,
# scope shown (`user/CLAUDE.md` and a team's `CLAUDE.md` were both "CLAUDE")
GENERIC_NAMES = frozenset(
    ("memory.md", "memory-archive.md", "claude.md", "claude.local.md", "agents.md", "gemini.md")
)


def page_data(place: Place, project: Callable[[], Project] | None) -> dict[str, Any]:
    """Nodes (with text and history) and links of every scope, as the page's script reads them."""
    from gitmem.claude.graph import LinkGraph, communities_of
    from gitmem.recall.contextsafe import clean
    from gitmem.recall.query import about, full_text, is_index, pointer_lists, shown_id

    db = refreshed(place)
    rows = rows_where(db, "SELECT * FROM memory ORDER BY rank DESC, scope, path")
    # round 22 (recall22b): an index of pointers only is drawn (its lines find what they point
    # to) but no memory: flagged `list`, never counted nor listed, as gitmem query's listings
    lists = set(pointer_lists(db))
    total = sum(1 for r in rows if int(r["id"]) not in lists)
    rows = rows[:MAX_NODES]
    at = {(r["scope"], r["path"]): i for i, r in enumerate(rows)}
    g = LinkGraph(range(len(rows)))
    edges: list[list[int]] = []
    for i, r in enumerate(rows):
        for target in json.loads(r["links_to"] or "[]"):
            j = at.get((r["scope"], target))
            if j is not None:
                edges.append([i, j])
                g.add_edge(i, j)
    community = {n: c for c, members in enumerate(communities_of(g)) for n in members}
    history, resolutions = _histories(place, project) if project else ({}, {})
    nodes = []
    for i, r in enumerate(rows):
        memory_id = shown_id(r["scope"], r["path"])
        hit_text = full_text(_as_hit(r), _no_project)
        node: dict[str, Any] = {"list": True} if int(r["id"]) in lists else {}
        if is_index(r["scope"], r["path"]):
            # a search finds an index's lines, and shows the memories they point to (round 21:
            # one rule with gitmem query, gitmem.recall.query._pointed_to); round 22: the lines
            # about one memory together (its words may be on two of them)
            lines = hit_text.splitlines()
            node["points"] = [
                [clean("\n".join(lines[n][:MAX_LINE] for n in told)).lower(), j]
                for target, told in about(
                    r["path"], lines, json.loads(r["links_to"] or "[]")
                ).items()
                if (j := at.get((r["scope"], target))) is not None
            ]
        nodes.append(
            {
                **node,
                "id": memory_id,
                "scope": r["scope"],
                "team": r["scope"] in TEAM_SCOPES,
                "title": clean(
                    memory_id
                    if posixpath.basename(r["path"]).lower() in GENERIC_NAMES
                    else r["title"] or posixpath.basename(r["path"])
                ),
                "type": r["type"],
                "description": clean(r["description"] or ""),
                "tags": json.loads(r["tags"] or "[]"),
                "pagerank": r["rank"],
                "community": community.get(i, 0),
                "file": r["file"],
                "text": clean(hit_text[:MAX_TEXT]),
                "history": history.get(memory_id, [])[:MAX_HISTORY],
                "resolutions": resolutions.get(memory_id, [])[:MAX_HISTORY],
            }
        )
    return {"nodes": nodes, "edges": edges, "total": total, "root": place.root}


def _as_hit(row: Any) -> Any:
    from gitmem.recall.query import Hit

    return Hit(
        row["scope"], row["path"], row["file"], "", None, None, [], None, None, None, 0.0, 0.0, []
    )


def _no_project() -> Project:
    raise RuntimeError("the page shows files on disk")


def _histories(
    place: Place, project: Callable[[], Project]
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, list[dict[str, Any]]]]:
    """Per memory id: its changes (time, author, subject), newest first; and the merge
    resolutions that named it (time, author, what was kept and why)."""
    from gitmem.core.sanitize import bounded
    from gitmem.history.versions import memory_log
    from gitmem.recall.contextsafe import clean

    def shown(text: str) -> str:  # outside text, cut before it is cleaned: one line's worth
        return clean(bounded(text, 200))

    proj = project()
    changes: dict[str, list[dict[str, Any]]] = {}
    for spot in place.scopes:
        if spot.ref != NO_REF:
            _changes_of(proj, spot, changes, shown)
            continue
        # a user scope (~/.claude/CLAUDE.md): its history is in the store `sync --user`
        # keeps, as `gitmem log user/CLAUDE.md` reads it; every one was "not yet synced"
        found = synced_user_store(proj, spot)
        if found is None:
            continue
        try:
            _changes_of(found[0], found[1], changes, shown, ".root/")
        finally:
            found[0].repo.close()
    resolved: dict[str, list[dict[str, Any]]] = {}
    for row in memory_log(proj, None, 500):
        for entry in row.get("resolved", "").split("\x1d"):
            if not entry.strip():
                continue
            path = entry.split(" ", 1)[0]
            memory_id = "CLAUDE.local.md" if path.endswith("/.root/CLAUDE.local.md") else path
            listed = resolved.setdefault(memory_id, [])
            if len(listed) >= MAX_HISTORY:
                continue  # 20,000 trailers in one commit: the page lists the first ones
            listed.append(
                {
                    "time": int(row["time"]),
                    "author": shown(row["author"]),
                    "resolution": shown(entry),
                    "commit": row["commit"][:12],
                }
            )
    return changes, resolved


def _changes_of(
    proj: Project,
    spot: ScopeSpot,
    changes: dict[str, list[dict[str, Any]]],
    shown: Callable[[str], str],
    hidden: str = "",
) -> None:
    """Add the changes of `spot`'s ref to `changes`, per memory id, newest first; `hidden`: a
    folder the store keeps the scope's root files in (`.root/CLAUDE.md` is `CLAUDE.md`)."""
    from gitmem.recall.query import shown_id
    from gitmem.recall.searchindex import plain_names

    repo = proj.repo
    tip = repo.resolve(spot.ref)
    if tip is None:
        return
    names = plain_names(proj, spot, tip)
    start = spot.prefix + "/"
    # hidden names sit in the sealed top folder (a user scope's store: `local/`, not
    # `local/claude/`), as history_rows reads them
    stored_start = start if names is None else spot.prefix.partition("/")[0] + "/"
    for c in repo.commits_touching(None, tip, limit=MAX_COMMITS):
        for stored in c.paths:
            if not stored.startswith(stored_start):
                continue
            plain = names.get(stored) if names is not None else stored
            if plain is None:
                continue
            memory_id = shown_id(spot.name, plain[len(start) :].removeprefix(hidden))
            listed = changes.setdefault(memory_id, [])
            if len(listed) >= MAX_HISTORY:
                continue  # newest first: the page shows these
            listed.append(
                {
                    "time": int(c.time),
                    "author": shown(c.author),
                    "subject": shown(c.subject),
                    "commit": c.oid[:12],
                }
            )


def _embedded_json(data: Any) -> str:
    """JSON that cannot end its <script> element or open a comment inside it."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _digest(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def render(data: dict[str, Any]) -> str:
    """The page: the template with the data, the script and the style inlined."""
    folder = resources.files("gitmem.recall")
    template = (folder / "view.html").read_text("utf-8")
    script = (folder / "view.js").read_text("utf-8")
    style = (folder / "view.css").read_text("utf-8")
    csp = (
        "default-src 'none'; "
        f"script-src 'sha256-{_digest(script)}'; "
        f"style-src 'sha256-{_digest(style)}'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    parts = {"CSP": csp, "STYLE": style, "DATA": _embedded_json(data), "SCRIPT": script}
    # one pass over the template: a memory's text holding `{{SCRIPT}}` stays text (a chain
    # of replaces would put the script into the data, and break the page)
    return re.sub(r"\{\{(CSP|STYLE|DATA|SCRIPT)\}\}", lambda m: parts[m.group(1)], template)


def page_path(place: Place) -> str:
    """Where the page goes unless told: the repository's gitmem folder. The page holds every
    personal memory in plaintext; a default in the folder gitmem ran in (the working tree)
    left it untracked there, one `git add -A` away from the branch and the remote."""
    import os

    return os.path.join(place.common_dir, "gitmem", "view.html")


PAGE_NAME = "view.html"
_PAGE_MARK = "<title>gitmem — memory graph</title>".encode()


def out_path(place: Place, out: str | None) -> str:
    """Where `--out` puts the page, read as a newcomer types it: `~/x.html` quoted (or
    `--out=~/x.html`, which no shell expands) is under the home folder, not a folder named
    `~` here; a folder (existing, or typed with a trailing slash) gets view.html in it."""
    import os

    if not out:
        return page_path(place)
    path = os.path.expanduser(out)
    if path.endswith(("/", os.sep)) or os.path.isdir(path):
        path = os.path.join(path, PAGE_NAME)
    return path


def _not_in_the_work_tree(place: Place, out: str) -> None:
    """Charter 1: the working tree is the user's. The page holds every personal memory in
    plaintext: written there (`--out page.html` at the top of a clone) it was one `git add -A`
    from the branch and the remote. Its git folder (the default's) is not the working tree."""
    import os
    from pathlib import Path

    from gitmem.core.userdirs import tilde
    from gitmem.errors import UsageError
    from gitmem.project.confinement import within

    if not place.root:
        return
    target = Path(
        os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(out))), os.path.basename(out))
    )
    root = Path(os.path.realpath(place.root))
    gits = [Path(os.path.realpath(d)) for d in (place.git_dir, place.common_dir)]
    if within(target, root) and not any(within(target, g) for g in gits):
        raise UsageError(
            f"{out} lies in the git working tree of {tilde(root)}: the page holds every memory, "
            "personal ones in plaintext, and a commit would publish it",
            "give --out outside the working tree, e.g. --out ~/memory.html (the default is "
            ".git/gitmem/view.html); nothing was written",
        )


def _not_over_another_file(out: str) -> None:
    """`--out` naming an existing file that no `gitmem view` wrote (a typo for `~/.gitconfig`,
    a report) replaced it with the page: refused; an earlier page is written over."""
    from gitmem.errors import UsageError

    try:
        with open(out, "rb") as fh:
            head = fh.read(4096)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return
    except OSError:
        head = b""
    if _PAGE_MARK not in head:
        raise UsageError(
            f"{out} exists and is not a page gitmem view wrote",
            "give another --out (or move that file away); nothing was written",
        )


def _not_in_a_scope(place: Place, out: str) -> None:
    """The page holds every memory, personal ones in plaintext: never written into a scope
    folder (red team 7: `--out` in the team folder put it where the next sync publishes it,
    as `page.md` a memory file like any other), nor over a scope's own file."""
    import os
    from pathlib import Path

    from gitmem.errors import UsageError
    from gitmem.project.confinement import within

    folder = os.path.realpath(os.path.dirname(os.path.abspath(out)))
    target = os.path.join(folder, os.path.basename(out))
    for spot in place.scopes:
        files = [os.path.realpath(path) for _, path in spot.outside]
        if within(Path(target), Path(os.path.realpath(spot.path))) or target in files:
            raise UsageError(
                f"{out} lies in the {spot.name} scope's memory ({spot.path}): the page holds "
                "every memory, personal ones in plaintext, and a sync would take it",
                "give --out outside every memory folder (the default is .git/gitmem/view.html)",
            )


def _working_tree_of(folder: str) -> str | None:
    """The git working tree `folder` lies in (a `.git` folder or file beside it or above it),
    or None; a folder inside a `.git` is no working tree (the default page lives there)."""
    import os

    while True:
        if os.path.basename(folder) == ".git":
            return None
        if os.path.lexists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _not_in_a_working_tree(out: str) -> None:
    """The page holds personal memory in plaintext: never written into a git working tree —
    this project's or another's (a site published from its branch) — where it is one
    `git add -A` from a branch and its remote (red team 14: `--out page.html` did that; the
    option's own help said the default keeps out of the working tree for this reason)."""
    import os

    from gitmem.errors import UsageError

    folder = os.path.realpath(os.path.dirname(os.path.abspath(out)))
    tree = _working_tree_of(folder)
    if tree is not None:
        raise UsageError(
            f"{out} lies in the git working tree {tree}: the page holds every memory, "
            "personal ones in plaintext, one git add from a branch",
            "give --out outside every working tree (the default is .git/gitmem/view.html); "
            "nothing was written",
        )


def write_page(place: Place, project: Callable[[], Project] | None, out: str) -> int:
    """Write the page to `out` (atomically, readable by its owner only: it holds personal
    memory); the number of memories drawn."""
    from pathlib import Path

    from gitmem.project.state import write_atomic

    _not_in_a_scope(place, out)
    _not_in_the_work_tree(place, out)
    if out != page_path(place):
        _not_in_a_working_tree(out)  # another repository's tree: a site published from it
    if not Path(out).is_symlink():  # a link: refused below, by name
        _not_over_another_file(out)
    data = page_data(place, project)
    target = Path(out)
    if target.is_symlink():
        from gitmem.errors import UsageError

        raise UsageError(f"{out} is a symbolic link", "choose another --out; nothing was written")
    page = render(data).encode("utf-8")
    if out == page_path(place):  # the git folder (it may have come in an archive): no link
        from gitmem.core.nolinks import write_no_links

        write_no_links(Path(place.common_dir), target, page, 0o600)
    else:
        write_atomic(target.absolute(), page, 0o600)
    return sum(1 for node in data["nodes"] if not node.get("list"))
