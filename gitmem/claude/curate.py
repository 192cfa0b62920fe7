"""gitmem curate: tidy a scope's MEMORY.md so what matters most is what Claude Code loads.

Every memory gets one line (`- [Title](file.md) — description`; topic files with no line get
one). An index within Claude Code's load limits (200 lines, 25,000 characters) keeps the order
it was written in; over them, entries are ordered, within each run of entries, by score =
confidence × link rank × recency, and the lowest-scored entries move to MEMORY-archive.md — and come back when there is room. The
entries that move, and why, are said in the archive. Topic files with the same content fold
into one entry. Headings, paragraphs, code and comments stay where they were written.

- confidence: the topic file's `confidence:` (0–1), else 0.5;
- link rank: PageRank over the links between topic files (the index itself left out, so
  curating does not change it), scaled so that the average memory scores 1;
- recency: halves every RECENCY_HALF_LIFE days before the newest memory of the folder (from
  the scope ref's history, else `modified:`/`updated:`, else the file's mtime). A plain bullet
  with no topic file is scored neutrally, and among equal scores the later line counts as newer
  (Claude Code itself drops the newest lines of an index that is too long).

Nothing depends on the clock or on the previous run's order, so a second run changes nothing.
Writes only MEMORY.md and MEMORY-archive.md of the folder, atomically, and only over the
bytes it read (a file edited meanwhile is refused, not overwritten). Never deletes a file.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.errors import GitmemError, UsageError
from gitmem.project.paths import SUBAGENT_SCOPES
from merge_drivers.archive import (
    ARCHIVE_HEADER,
    ARCHIVE_LINK,
    ARCHIVE_NAME,
    MAX_CHARS,
    MAX_LINES,
    places,
    places_block,
    places_text,
)
from merge_drivers.indexdoc import START, Index, Item, Key, Node, measure, parse, render
from merge_drivers.rank import NEUTRAL_CONFIDENCE, rank_fields

if TYPE_CHECKING:
    from gitmem.project.scopes import Project


INDEX_NAME = "MEMORY.md"
RECENCY_HALF_LIFE = 90.0  # days
DAY = 86400.0
DUPLICATES_HEADING = "## Same content as another memory"
_ARCHIVE_TITLE = ARCHIVE_HEADER.split("\n", 1)[0]


@dataclass
class Candidate:
    """One index entry, wherever it is now (index, archive, or only a topic file)."""

    item: Item
    section: str  # the heading line it sits under ("" before any heading)
    where: int  # 0 archive, 1 index, 2 new: ties go to what was in the index, then the later
    position: int
    score: float = 0.0
    duplicate_of: str | None = None
    slot: int = -1  # index entries: their place in the index's layout
    # when its line was written (the ref's `git blame`; unknown: not synced yet, the newest):
    # of entries that score alike (plain bullets: no topic), the oldest go first — by value,
    # not by their place (#24)
    written: float = float("inf")


@dataclass
class CurateResult:
    folder: Path
    index_before: str | None
    index_after: str
    archive_before: str | None
    archive_after: str | None
    moved: list[str] = field(default_factory=list)  # to the archive
    restored: list[str] = field(default_factory=list)  # back from the archive
    added: list[str] = field(default_factory=list)  # topic files that had no line
    folded: list[str] = field(default_factory=list)  # "b.md (same content as a.md)"
    lines: int = 0
    chars: int = 0

    @property
    def changed(self) -> bool:
        return (self.index_before or "") != self.index_after or (self.archive_before or "") != (
            self.archive_after or ""
        )

    @property
    def within_caps(self) -> bool:
        return self.lines <= MAX_LINES and self.chars <= MAX_CHARS

    def diff(self) -> str:
        from merge_drivers.diff import unified_diff  # bounded: a teammate's index may be huge

        out: list[str] = []
        for name, before, after in (
            (INDEX_NAME, self.index_before, self.index_after),
            (ARCHIVE_NAME, self.archive_before, self.archive_after),
        ):
            if (before or "") == (after or ""):
                continue
            out += unified_diff(
                (before or "").splitlines(True),
                (after or "").splitlines(True),
                f"a/{name}",
                f"b/{name}",
            )
        return "".join(line if line.endswith("\n") else line + "\n" for line in out)


def _first_line(item: Item) -> str:
    return item.text.split("\n", 1)[0]


def _topic_bytes(path: Path) -> bytes:
    """A topic file's bytes as the graph read them; empty when it is no longer a regular
    file within the limit (the graph read it empty then too)."""
    from gitmem.core.fileread import NotAFile, read_regular

    try:
        return read_regular(path)
    except (OSError, NotAFile):
        return b""


def _read(path: Path) -> str | None:
    from gitmem.core.fileread import NotAFile, read_regular

    try:  # checked on the file opened: a link or FIFO swapped in after a check is no file
        return read_regular(path).decode("utf-8")
    except FileNotFoundError:
        return None
    except NotAFile as exc:
        raise UsageError(
            f"{path} is {exc.what}, not a memory file",
            "replace it with the file itself, then rerun gitmem curate; nothing was written",
        ) from None
    except UnicodeDecodeError:
        raise UsageError(
            f"{path} is not UTF-8 text", "fix the file's encoding, then rerun gitmem curate"
        ) from None


def past_limits(folder: Path) -> str | None:
    """How the folder's MEMORY.md goes past what Claude Code loads ("250 lines; Claude Code
    loads the first 200"), or None: within them, absent, or no text (the sync names those)."""
    try:
        text = _read(folder / "MEMORY.md")
    except UsageError:
        return None
    if text is None:
        return None
    lines, chars = measure(parse(text).items)
    if lines > MAX_LINES:
        return f"{lines} lines; Claude Code loads the first {MAX_LINES}"
    if chars > MAX_CHARS:
        return f"{chars:,} characters; Claude Code cuts at {MAX_CHARS:,}"
    return None


def entry_text(text: str) -> str:
    """A title or description as an index entry shows it: one line, no hidden characters, no
    bracket a Markdown link could open. Frontmatter is YAML: a double-quoted `name:` of plain
    ASCII (`"\\e]0;x\\a"`, `"\\u202e"`, `"\\U000E0041"`, `"a\\n- [k](/etc/passwd)"`) decodes to
    escapes, bidi controls, Unicode tags, a second line or a link out of the folder, which the
    file's own bytes never showed the pull's checks (red team 11)."""
    from gitmem.core.sanitize import for_agent

    return (
        " ".join(for_agent(text, opens_file=False)[0].split()).replace("[", "(").replace("]", ")")
    )


def index_line_for(rel: str, data: bytes) -> str:
    """The index line Claude Code writes for a topic file: `- [Title](file.md) — description`."""
    from gitmem.claude.graph import describe_memory

    node, body = describe_memory(rel, data)
    hook = node.description
    if not hook:
        hook = next((ln.strip("# ").strip() for ln in body.splitlines() if ln.strip()), "")
    hook = entry_text(hook)[:150]
    return f"- [{entry_text(node.title)}]({rel})" + (f" — {hook}" if hook else "")


def plan(
    folder: Path,
    change_times: Mapping[str, float] | None = None,
    progress: Callable[[int], None] | None = None,
    exclude: frozenset[str] = frozenset(),
    reorder: bool = False,
    line_times: Mapping[str, float] | None = None,
) -> CurateResult:
    """What curate would write for `folder` (nothing is written); the top-level names `exclude`
    are another scope's folder nested in this one (`team/` in the auto folder): not ours.
    `reorder` sorts best first even an index within the caps. `line_times`: when each line of
    the index was committed (`Repository.line_times`), the rank of entries that score alike."""
    from gitmem.claude.graph import build_graph

    index_text = _read(folder / INDEX_NAME)
    archive_text = _read(folder / ARCHIVE_NAME)
    index = parse(index_text or "")
    graph, g = build_graph(folder, progress, exclude)
    # an index or archive of a folder below is that folder's, never a memory of this one
    indexes = [p for p in graph.nodes if posixpath.basename(p) in (INDEX_NAME, ARCHIVE_NAME)]
    topics = {p: n for p, n in graph.nodes.items() if p not in indexes}
    g.remove_nodes_from(indexes)
    from gitmem.claude.graph import pagerank

    ranks = pagerank(g)
    datas = {p: _topic_bytes(folder / p) for p in topics}

    # every entry: index first (in order), then the archive's, then topic files with none
    candidates: list[Candidate] = []
    known: set[Key] = set()
    section = ""
    layout: list[Item | None] = []  # the index's other items; None marks an entry slot
    for it in index.items:
        if it.kind == "head":
            section = it.text
        if it.kind == "entry" and _norm_target(it) != ARCHIVE_NAME.casefold():
            if it.key in known:
                continue  # the same line twice: one entry
            known.add(it.key)
            cand = Candidate(it, section, 1, len(candidates), slot=len(layout))
            cand.written = (line_times or {}).get(_first_line(it).rstrip(), cand.written)
            candidates.append(cand)
            layout.append(None)
        elif it.kind != "entry":
            layout.append(it)
    sections_in_index = {it.text for it in index.items if it.kind == "head"}
    archived_keys: set[Key] = set()
    for it, sec in _archive_entries(archive_text or ""):
        if it.key in known:
            continue
        known.add(it.key)
        archived_keys.add(it.key)
        home = sec if sec in sections_in_index else ""
        candidates.append(Candidate(it, home, 0, len(candidates)))
    targets = {_norm_target(c.item) for c in candidates}
    added = []
    for rel in sorted(topics):
        if rel.casefold() not in targets and rel.casefold().removeprefix("./") not in targets:
            line = index_line_for(rel, datas[rel])
            item = parse(line + "\n").items[0]
            candidates.append(Candidate(item, "", 2, len(candidates)))
            added.append(rel)

    # scores
    newest = max(
        (t for t in (_time_of(p, datas[p], folder, change_times) for p in topics) if t), default=0
    )
    n = max(1, len(ranks))
    by_target = {p.casefold(): p for p in topics}
    for c in candidates:
        topic = by_target.get(_norm_target(c.item).removeprefix("./"))
        if topic is None:
            c.score = NEUTRAL_CONFIDENCE * 1.0 * 0.5
            continue
        confidence, _ = rank_fields(datas[topic])
        when = _time_of(topic, datas[topic], folder, change_times)
        recency = 0.5 ** ((newest - when) / DAY / RECENCY_HALF_LIFE) if when else 0.25
        link = ranks.get(topic, 1.0 / n) * n
        conf = NEUTRAL_CONFIDENCE if confidence is None else confidence
        c.score = conf * link * recency

    # duplicates: topic files with the same bytes fold into the best-scored one
    folded = []
    by_hash: dict[str, list[Candidate]] = {}
    for c in candidates:
        topic = by_target.get(_norm_target(c.item).removeprefix("./"))
        if topic is not None:
            digest = hashlib.sha256(datas[topic].strip()).hexdigest()
            by_hash.setdefault(digest, []).append(c)
    for group in by_hash.values():
        if len(group) < 2:
            continue
        keep = max(group, key=_order_key)
        for c in group:
            if c is not keep:
                c.duplicate_of = keep.item.target or _first_line(keep.item)
                folded.append(f"{c.item.target} (same content as {c.duplicate_of})")

    # keep the best within the caps; the rest goes to the archive
    live = [c for c in candidates if c.duplicate_of is None]
    spill_order = sorted(live, key=_order_key)
    duplicates = any(c.duplicate_of for c in candidates)
    # an index within the caps keeps the order it was written in; over them, each run is
    # sorted best first and the fewest lowest-scored entries move to the archive that bring
    # it within the caps. Fewer entries never make it longer, so the least number is found
    # by halving (a few renders), not one entry at a time: that rendered the whole index
    # once per entry moved, minutes for a scope of 5,000 topic files (red team 6)
    sort = reorder

    def attempt(k: int) -> tuple[str, int, int]:
        kept = set(map(id, live)) - set(map(id, spill_order[:k]))
        text = _render(index, layout, candidates, kept, bool(k) or duplicates, sort)
        return (text, *measure(parse(text).items))

    index_after, lines, chars = attempt(0)
    if not sort and not (lines <= MAX_LINES and chars <= MAX_CHARS):
        sort = True
        index_after, lines, chars = attempt(0)
    low, high = 0, len(spill_order)  # attempt(low) is over the caps; find the least that fits
    if not (lines <= MAX_LINES and chars <= MAX_CHARS) and high:
        best = attempt(high)
        while high - low > 1:
            mid = (low + high) // 2
            tried = attempt(mid)
            if tried[1] <= MAX_LINES and tried[2] <= MAX_CHARS:
                high, best = mid, tried
            else:
                low = mid
        index_after, lines, chars = best
        low = high
    moved_now = spill_order[:low]
    kept = set(map(id, live)) - set(map(id, moved_now))
    archived = [c for c in candidates if id(c) not in kept]
    archive_after = _archive(archived, len(moved_now)) if archived else None
    if archive_after is not None:
        archive_after += _records(index, archived, archive_text)
    if archive_after is None and archive_text is not None:
        archive_after = ARCHIVE_HEADER  # every entry came back: an empty archive, not a deletion
    return CurateResult(
        folder,
        index_text,
        index_after,
        archive_text,
        archive_after,
        moved=[_first_line(c.item) for c in archived if c.where != 0 and not c.duplicate_of],
        restored=[_first_line(c.item) for c in candidates if c.where == 0 and id(c) in kept],
        added=added,
        folded=folded,
        lines=lines,
        chars=chars,
    )


def _order_key(c: Candidate) -> tuple[float, int, float, int]:
    """Lowest first: score, then what was archived before, then the line written first (the
    ref's history), then the earlier line."""
    return (round(c.score, 12), c.where if c.where < 2 else 1, c.written, c.position)


def _norm_target(item: Item) -> str:
    return (item.target or "").strip().casefold().removeprefix("./") if item.target else item.key[2]


def _time_of(
    rel: str, data: bytes, folder: Path, change_times: Mapping[str, float] | None
) -> float | None:
    """The ref's last change, else the frontmatter's, else the file's mtime — the first that is
    not from the future (FUTURE_SLACK): a teammate's commit dated 3000 was "the newest memory",
    every other one ~1,000 years older, all with recency 0, and theirs kept in the index (red
    team 16). Honest times never reach the clock's test, so a second run changes nothing."""
    import time

    from gitmem.core.limits import FUTURE_SLACK

    limit = time.time() + FUTURE_SLACK
    if change_times and rel in change_times and change_times[rel] <= limit:
        return change_times[rel]
    _, recency = rank_fields(data)
    if recency is not None and recency <= limit:
        return recency
    try:
        mtime = (folder / rel).stat().st_mtime
    except OSError:
        return None
    return mtime if mtime <= limit else None


def _archive_entries(text: str) -> list[tuple[Item, str]]:
    out: list[tuple[Item, str]] = []
    section = ""
    for it in parse(text).items:
        if it.kind == "head":
            section = "" if it.text.strip() == _ARCHIVE_TITLE else it.text
        elif it.kind == "entry":
            out.append((it, "" if section == DUPLICATES_HEADING else section))
    return out


def _render(
    index: Index,
    layout: list[Item | None],
    candidates: list[Candidate],
    kept: set[int],
    archive_needed: bool,
    sort: bool = True,
) -> str:
    """The index with the kept entries, each run of entries sorted best first (`sort`; else
    in the order written, new ones after). An entry stays
    in its run; one coming back from the archive joins the last run of its section (else the
    last run); a new one joins the last run."""
    run_of_slot: dict[int, int] = {}
    gaps: list[list[str]] = []
    section_last_run: dict[str, int] = {}
    slot_gap = {c.slot: c.item.gap for c in candidates if c.slot >= 0}
    section = ""
    for pos, it in enumerate(layout):
        if it is None:
            if pos == 0 or layout[pos - 1] is not None:
                gaps.append([])
            gaps[-1].append(slot_gap[pos])
            run_of_slot[pos] = section_last_run[section] = len(gaps) - 1
        elif it.kind == "head":
            section = it.text
    members: dict[int, list[Candidate]] = {}
    for c in candidates:
        if id(c) not in kept or c.duplicate_of:
            continue
        if c.slot >= 0:
            run = run_of_slot[c.slot]
        elif c.where == 0 and c.section in section_last_run:
            run = section_last_run[c.section]
        else:
            run = len(gaps) - 1  # -1: no run at all, a new one at the end
        members.setdefault(run, []).append(c)
    out: list[Item] = []
    for pos, it in enumerate(layout):
        if it is not None:
            out.append(it)
        elif pos == 0 or layout[pos - 1] is not None:
            run = run_of_slot[pos]
            out += _sorted_run(members.get(run, []), gaps[run], sort)
    if -1 in members:
        out += _sorted_run(members[-1], ["\n" if out else ""], sort)
    if archive_needed:
        link = parse(ARCHIVE_LINK + "\n").items[0]
        link.gap = "\n" if out else ""
        at = len(out)
        while at and out[at - 1].kind == "block" and out[at - 1].text.lstrip().startswith("<!--"):
            at -= 1
        out.insert(at, link)
    return render(out, index.tail if layout else "", True)


def _sorted_run(members: list[Candidate], gaps: list[str], sort: bool = True) -> list[Item]:
    """Best score first (`sort`, else as they come); equal scores keep their order (stable),
    so a second run moves nothing."""
    ordered = sorted(members, key=lambda c: -round(c.score, 12)) if sort else members
    out = []
    for i, c in enumerate(ordered):
        gap = gaps[i] if i < len(gaps) else (gaps[-1] if gaps and i else "")
        out.append(Item(c.item.kind, c.item.key, c.item.text, gap, c.item.target))
    return out


def _records(index: Index, archived: list[Candidate], before: str | None) -> str:
    """Where each archived entry stood (`archive.places_text`, as a merge that archives writes
    it): an entry moved now, after the live item before it in the index as it was; one
    archived earlier keeps its record. A merge reads the curated side with each back there,
    as it reads a merge's archive (#24: curate wrote none, so they were read at the top)."""
    moved = {c.item.key for c in archived if c.where == 1 and not c.duplicate_of}
    nodes: dict[Key, Node] = {}
    for it in index.items:
        if _norm_target(it) != ARCHIVE_NAME.casefold():
            nodes.setdefault(it.key, Node(it.kind, it.text, it.gap, it.target, START))
    lines = places_text(list(nodes), nodes, moved, False).split("\n")[2:-1]
    now = {line.partition("\t")[0] for line in lines}
    earlier = {c.item.target for c in archived if c.where == 0 and not c.duplicate_of}
    kept = places(before or "")
    lines += [f"{t}\t{kept[t]}" for t in sorted(earlier - now) if t in kept]
    return places_block(lines, True)


def _archive(archived: list[Candidate], moved_now: int) -> str:
    by_section: dict[str, list[Candidate]] = {}
    for c in archived:
        key = DUPLICATES_HEADING if c.duplicate_of else c.section
        by_section.setdefault(key, []).append(c)
    out = [ARCHIVE_HEADER]
    out.append(
        f"\ngitmem curate keeps MEMORY.md within {MAX_LINES} lines and {MAX_CHARS:,} characters: "
        "the entries below scored lowest (confidence × link rank × recency) and were moved here, "
        "to come back when there is room; none was deleted.\n"
    )
    for section in sorted(by_section, key=lambda s: (s != "", s == DUPLICATES_HEADING)):
        if section:
            out.append(f"\n{section}\n")
        out.append("\n")
        for c in sorted(by_section[section], key=lambda c: c.position):
            out.append(c.item.text + "\n")
    return "".join(out)


# -- the use case ----------------------------------------------------------------------------------


def curate_scope(
    project: Project,
    scope: str,
    progress: Callable[[int], None] | None = None,
    reorder: bool = False,
) -> CurateResult:
    """Plan curate for one scope (its own files only), with recency from its ref's history."""
    s = project.scope(scope)
    times = history_times(project, scope)
    return plan(s.path, times, progress, s.exclude, reorder, index_line_times(project, scope))


def curate_folders(
    project: Project,
    scope: str,
    progress: Callable[[int], None] | None = None,
    reorder: bool = False,
) -> list[CurateResult]:
    """Plan curate for each index of a scope: a subagents' scope (`SUBAGENT_SCOPES`) has one
    per agent folder, as Claude Code loads it and `record` writes it (real corpora, round 16:
    one `MEMORY.md` planned over the scope's root, listing each agent's index as a memory);
    any other scope has its one."""
    if scope not in SUBAGENT_SCOPES:
        return [curate_scope(project, scope, progress, reorder)]
    s = project.scope(scope)
    times = history_times(project, scope)
    tip = project.repo.resolve(s.ref)
    blame = tip if tip and s.ref != project.user_ref else None  # as index_line_times
    out = []
    agents = sorted(p for p in s.path.iterdir() if _agent_folder(p)) if s.path.is_dir() else []
    for folder in agents:
        mine = folder.name + "/"
        out.append(
            plan(
                folder,
                {rel.removeprefix(mine): t for rel, t in times.items() if rel.startswith(mine)},
                progress,
                reorder=reorder,
                line_times=project.repo.line_times(
                    None, blame, f"{s.prefix}/{folder.name}/{INDEX_NAME}"
                )
                if blame
                else {},
            )
        )
    return out


def _agent_folder(path: Path) -> bool:
    """A subagent's memory folder: a real folder (no link out), not hidden."""
    return not path.name.startswith(".") and path.is_dir() and not path.is_symlink()


def index_line_times(project: Project, scope: str) -> dict[str, float]:
    """When each line of the scope's `MEMORY.md` was committed on its ref (`git blame`, one
    process); none for the personal ref, whose blobs are ciphertext (as the sync's merge)."""
    s = project.scope(scope)
    tip = project.repo.resolve(s.ref)
    if not tip or s.ref == project.user_ref:
        return {}
    return project.repo.line_times(None, tip, f"{s.prefix}/{INDEX_NAME}")


def history_times(project: Project, scope: str) -> dict[str, float]:
    """When each memory of the scope last changed on its ref (one `git log`); on an encrypted
    personal ref, the hidden names are mapped back through the ref's own keys (no key: only
    frontmatter and mtimes decide)."""
    s = project.scope(scope)
    tip = project.repo.resolve(s.ref)
    if not tip:
        return {}
    times = project.repo.change_times(None, tip)
    if s.ref == project.user_ref:
        import contextlib

        from gitmem.privacy.codec import personal_codec

        # no key here: recency falls back to the files themselves
        with contextlib.suppress(GitmemError, ValueError, OSError):
            times = personal_codec(project.repo, s.ref).plain_times(tip, times)
    prefix = s.prefix + "/"
    return {
        posixpath.relpath(path, s.prefix): t
        for path, t in times.items()
        if path.startswith(prefix) and path.endswith(".md")
    }


def apply(result: CurateResult) -> None:
    """Write what `plan` decided, only over the bytes it read (else refuse: rerun curate)."""
    from gitmem.project.filecas import replace_or_refuse
    from gitmem.project.state import current_mode

    for name, before, after in (
        (INDEX_NAME, result.index_before, result.index_after),
        (ARCHIVE_NAME, result.archive_before, result.archive_after),
    ):
        if (before or "") == (after or ""):
            continue
        if _read(result.folder / name) != before:
            raise UsageError(
                f"{result.folder / name} changed while curating",
                "rerun gitmem curate; nothing was written",
            )
    result.folder.mkdir(parents=True, exist_ok=True)
    for name, before, after in (
        (ARCHIVE_NAME, result.archive_before, result.archive_after),  # archive first: no loss
        (INDEX_NAME, result.index_before, result.index_after),
    ):
        if (before or "") != (after or "") and after is not None:
            # permission bits kept (a 0600 index stays 0600); a new archive takes the index's
            target = result.folder / name
            mode = current_mode(target) or current_mode(result.folder / INDEX_NAME)
            # only over the bytes read: an editor's append since is kept (#23, round 20)
            expected = None if before is None else before.encode("utf-8")
            replace_or_refuse(target, expected, after.encode("utf-8"), mode, "curating")
