"""3-way merge of two gitmem trees: path rules here, file contents by `merge_drivers`.

Symmetric by construction: nothing here depends on which side is "ours" except the labels
of the resolutions it reports.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Protocol

from gitmem.gitstore.objects import as_tree_input as as_tree_input  # their home: the git layer
from gitmem.gitstore.objects import blobs as blobs
from gitmem.gitstore.store import Objects

META_FILE = "gitmem.toml"


class TreeMerge:
    def __init__(self, files: dict[str, str], resolutions: list[str] | None = None) -> None:
        self.files = files  # path -> blob id
        self.resolutions: list[str] = [] if resolutions is None else resolutions


class _LazyFolder(Mapping[str, bytes]):
    """The files of one folder of one side, read from git only when a resolver asks."""

    def __init__(self, repo: Objects, files: Mapping[str, str], folder: str) -> None:
        self._repo = repo
        prefix = f"{folder}/" if folder else ""
        self._oids = {
            p[len(prefix) :]: oid
            for p, oid in files.items()
            if p.startswith(prefix) and "/" not in p[len(prefix) :]
        }

    def __getitem__(self, name: str) -> bytes:
        return self._repo.read_blob(self._oids[name])

    def __iter__(self) -> Iterator[str]:
        return iter(self._oids)

    def __len__(self) -> int:
        return len(self._oids)


Ages = Callable[[str], Mapping[str, float]]  # path -> {line: commit time that wrote it}


class _LazyAges(Mapping[str, float]):
    """One side's line ages of one file (`SideInfo.ages`), asked of git only when the index
    merge needs them: when it overflows the caps."""

    def __init__(self, ages: Ages, path: str) -> None:
        self._ages, self._path = ages, path
        self._read: Mapping[str, float] | None = None

    def _all(self) -> Mapping[str, float]:
        if self._read is None:
            self._read = {}  # asked once: what git cannot say, the merge ranks without
            self._read = self._ages(self._path)
        return self._read

    def __getitem__(self, line: str) -> float:
        return self._all()[line]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def _in(times: Mapping[str, float], folder: str) -> dict[str, float]:
    """The times of the files directly in `folder`, by file name."""
    prefix = f"{folder}/" if folder else ""
    return {
        p[len(prefix) :]: t
        for p, t in times.items()
        if p.startswith(prefix) and "/" not in p[len(prefix) :]
    }


def _fold(files: Mapping[str, str]) -> dict[str, list[str]]:
    """Paths by the name they are merged under: only `MEMORY.md` folds letter case (Claude Code
    may write `memory.md`); `API.md` and `api.md` are two files (design §4)."""
    groups: dict[str, list[str]] = {}
    for path in files:
        folder, slash, name = path.rpartition("/")
        key = f"{folder}{slash}{name.casefold()}" if name.casefold() == "memory.md" else path
        groups.setdefault(key, []).append(path)
    return groups


def merge_trees(
    repo: Objects,
    base: Mapping[str, str],
    ours: Mapping[str, str],
    theirs: Mapping[str, str],
    ours_times: Mapping[str, float] | None = None,
    theirs_times: Mapping[str, float] | None = None,
    ages: tuple[Ages, Ages] | None = None,
) -> TreeMerge:
    """Merge {path: blob id} maps. Two spellings of one folder's `MEMORY.md` are one index
    (canonical spelling: the smallest); other paths that differ by case stay two files. A file one side renamed
    takes the other side's edits to its new name; an index line and its topic file are kept or
    dropped together. `ages` (ours, theirs): the commit time of each line of a path, read
    only for an index over the caps (its archive ranks plain bullets by them)."""
    from merge_drivers import SideInfo, merge_file

    ours_times, theirs_times = ours_times or {}, theirs_times or {}
    result = TreeMerge({})
    extras: dict[str, bytes] = {}
    base, ours, theirs = dict(base), dict(ours), dict(theirs)
    reused = _carry_reused(repo, base, ours, theirs) + _carry_reused(repo, base, theirs, ours)
    moves = (_moves(repo, base, ours), _moves(repo, base, theirs))
    renamed = (
        reused + _carry_renames(repo, base, ours, theirs) + _carry_renames(repo, base, theirs, ours)
    )
    renamed += _follow_renames(repo, moves, base, ours, theirs)
    kept_modified: list[tuple[str, Mapping[str, str]]] = []  # modified beats deleted: which side
    sides: dict[str, tuple[tuple[_LazyFolder, dict[str, float]], ...]] = {}
    fb, fo, ft = _fold(base), _fold(ours), _fold(theirs)
    for folded in sorted(set(fb) | set(fo) | set(ft)):
        spellings = sorted(set(fo.get(folded, [])) | set(ft.get(folded, [])))
        path = spellings[0] if spellings else fb[folded][0]
        b = _one(repo, base, fb.get(folded, []))
        o = _one(repo, ours, fo.get(folded, []))
        t = _one(repo, theirs, ft.get(folded, []))
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        index = path.rsplit("/", 1)[-1].casefold() == "memory.md"
        if o == t or b in (o, t):
            kept = o if b == t else t
            if not (index and kept and o != t and _big(repo, kept)):
                if kept is not None:
                    result.files[path] = kept
                continue
        if path == META_FILE:
            kept = o if o is not None else t  # keys were checked before merging
            if kept is not None:
                result.files[path] = kept
            continue
        if folder not in sides:  # one view per folder and side, not one per file (#22)
            sides[folder] = tuple(
                (_LazyFolder(repo, files, folder), _in(times, folder))
                for files, times in ((ours, ours_times), (theirs, theirs_times))
            )
        (o_files, o_times), (t_files, t_times) = sides[folder]
        o_ages = t_ages = base_info = None
        if index:  # the archive's ranks: lines' ages, and the entries the base had archived
            if ages is not None:
                o_ages, t_ages = _LazyAges(ages[0], path), _LazyAges(ages[1], path)
            base_info = SideInfo(siblings=_LazyFolder(repo, base, folder))
        merged = merge_file(
            path,
            repo.read_blob(b) if b else None,
            repo.read_blob(o) if o else None,
            repo.read_blob(t) if t else None,
            SideInfo(ours_times.get(path), o_files, o_times, o_ages),
            SideInfo(theirs_times.get(path), t_files, t_times, t_ages),
            base_info=base_info,
        )
        result.resolutions.extend(str(r) for r in merged.resolutions)
        if merged.data is not None:
            result.files[path] = repo.write_blob(merged.data)
            for r in merged.resolutions:  # deleted or emptied, against an edit: one decision
                if r.subject == "file" and r.reason == "modified beats deleted":
                    kept_modified.append((path, ours if r.winner == "ours" else theirs))
        for extra_path, extra_data in merged.extra_files.items():
            # complete bytes (e.g. MEMORY-archive.md): they replace any merge of that path
            extras[f"{folder}/{extra_path}" if folder else extra_path] = extra_data
    for extra_path, extra_data in extras.items():
        result.files[extra_path] = repo.write_blob(extra_data)
    result.resolutions.extend(renamed)
    _keep_links(repo, result, base, ours, theirs, kept_modified)
    _decide_together(repo, result, base, (ours, ours_times), (theirs, theirs_times))
    _separate_file_folder_clashes(result.files)
    _relink_everywhere(repo, result, _separate_fold_clashes(result.files, ours, theirs))
    return result


def _moves(repo: Objects, base: Mapping[str, str], side: Mapping[str, str]) -> dict[str, str]:
    """Topic files `side` renamed: {old path: new path}, in one folder — the same bytes, or,
    for a few files (at most 100 pairs compared), ≥ 60 % alike."""
    gone = [p for p in base if p not in side and _topic_path(p)]
    new = [p for p in side if p not in base and _topic_path(p)]
    if not gone or not new:
        return {}
    by_oid: dict[str, list[str]] = {}
    for p in sorted(new):
        by_oid.setdefault(side[p], []).append(p)
    out: dict[str, str] = {}
    taken: set[str] = set()
    for old in sorted(gone):
        folder = old.rpartition("/")[0]
        same = [p for p in by_oid.get(base[old], []) if p.rpartition("/")[0] == folder]
        if same and same[0] not in taken:
            out[old] = same[0]
            taken.add(same[0])
    rest_gone = [p for p in sorted(gone) if p not in out]
    rest_new = [p for p in sorted(new) if p not in taken]
    if rest_gone and len(rest_gone) * len(rest_new) <= 100:
        likeness = Likeness(repo)
        for old in rest_gone:
            folder = old.rpartition("/")[0]
            near = [p for p in rest_new if p.rpartition("/")[0] == folder and p not in taken]
            target = _most_similar(likeness, base[old], side, near)
            if target is not None:
                out[old] = target
                taken.add(target)
    return out


def _topic_path(path: str) -> bool:
    name = path.rsplit("/", 1)[-1].casefold()
    return name.endswith(".md") and name not in ("memory.md", "memory-archive.md")


def _big(repo: Objects, oid: str) -> bool:
    """Whether an index blob may be over Claude Code's load caps: then the merge caps it."""
    data = repo.read_blob(oid)
    return data.count(b"\n") >= 200 or len(data) > 25_000


def _carry_renames(
    repo: Objects, base: dict[str, str], side: dict[str, str], other: dict[str, str]
) -> list[str]:
    """A topic file `side` moved (gone from its path, the same or similar bytes at a new one)
    while `other` edited it: `other`'s version goes to the new name, so the merge there carries
    its edits and the old path is not brought back. Returns the resolutions."""
    gone = [p for p in base if p not in side and p in other and other[p] != base[p]]
    new = [p for p in side if p not in base and p not in other]
    out: list[str] = []
    likeness = Likeness(repo)
    for old in gone:
        if not old.endswith(".md") or old.rsplit("/", 1)[-1].casefold() == "memory.md":
            continue
        folder = old.rsplit("/", 1)[0] if "/" in old else ""
        candidates = [p for p in new if (p.rsplit("/", 1)[0] if "/" in p else "") == folder]
        target = _most_similar(likeness, base[old], side, candidates)
        if target is None:
            continue
        new.remove(target)
        other[target] = other.pop(old)  # merged 3-way against the base at the new name
        base[target] = base[old]
        out.append(f"{old} renamed to {target}: edits carried")
    return out


def _carry_reused(
    repo: Objects, base: dict[str, str], side: dict[str, str], other: dict[str, str]
) -> list[str]:
    """A name `side` gave to another memory after moving its own away (`a.md` → `b.md`, then
    `x.md` → `a.md`): at `a.md` the side holds `x`'s text, not an edit of `a`'s. `other`'s
    versions follow the memories, not the names — its `a` to `b`, its `x` to `a` — and its
    links and the base's with them (round 23: merged by name, `a`'s edit was spliced into
    `x`'s text and `x`'s edit lost). Only where the side's `a.md` is more alike a file the
    side deleted than `a`'s own text, and, if `other` edited `a`, was found at a new name; at
    most a few files compared (`Likeness` bounds them). Returns the resolutions."""
    gone = [p for p in sorted(base) if p not in side and _topic_path(p)]
    if not gone:
        return []  # nothing moved away: no name can have been given again
    likeness = Likeness(repo)
    changed = [
        p
        for p in sorted(base)
        if _topic_path(p) and p in side and p in other and side[p] != base[p]
    ]
    if len(changed) * len(gone) > 100:
        return []
    new = [p for p in sorted(side) if p not in base and p not in other and _topic_path(p)]
    moves: dict[str, str] = {}  # the base's links follow these
    relink: dict[str, str] = {}  # and the other side's these (not where it renamed alike)
    out: list[str] = []
    for p in changed:
        folder = p.rpartition("/")[0]
        own = likeness.ratio(base[p], side[p])
        if own is None or own >= 0.9:
            continue  # its own memory, edited
        was = [g for g in gone if g.rpartition("/")[0] == folder and g not in moves]
        source = _most_similar(likeness, side[p], base, was)
        if source is None or (likeness.ratio(side[p], base[source]) or 0.0) <= own:
            continue  # more alike its own text than the file the side moved away
        alike = source not in other and (likeness.ratio(other[p], base[source]) or 0.0) > (
            likeness.ratio(other[p], base[p]) or 0.0
        )
        if alike:  # both gave the name again (a merge merged again with the side): `a` merged
            # 3-way at its new name on both, its base `a`'s, links already the new ones
            near = [
                q for q in side if q not in base and q in other and q.rpartition("/")[0] == folder
            ]
            moved = _most_similar(likeness, base[p], side, sorted(near))
            if moved is not None:
                base[moved], moves[p] = base[p], moved
            base[p], moves[source] = base[source], p
            continue
        if other[p] != base[p]:  # the other side edited `a`: it follows `a` where it went
            near = [q for q in new if q.rpartition("/")[0] == folder]
            moved = _most_similar(likeness, base[p], side, near)
            if moved is None:
                continue
            new.remove(moved)
            other[moved], base[moved] = other[p], base[p]
            moves[p] = relink[p] = moved
            out.append(f"{p} renamed to {moved}: edits carried")
        base[p] = base[source]
        if source in other:
            other[p] = other.pop(source)
        else:
            del other[p]  # the other side deleted `x`: deleted at its new name
        moves[source] = relink[source] = p
        out.append(f"{source} renamed to {p} (a name given again): edits carried")
    for files, by in ((base, moves), (other, relink)):
        for path in sorted(files) if by else ():
            if path.casefold().endswith(".md"):
                data = repo.read_blob(files[path])
                fixed, followed = retarget(data, path, by)
                if fixed != data:
                    files[path] = repo.write_blob(fixed)
                    if files is other:
                        out.append(f"{path}: links follow the rename {', '.join(sorted(followed))}")
    return out


class Blobs(Protocol):
    def read_blob(self, oid: str) -> bytes: ...


class Likeness:
    """How alike two blobs are, for rename detection, at a bounded cost (charter 4). difflib on
    their bytes cost 0.7 s for a crafted pair of 4 KiB and 74 s for 20 KB, and a sync compared up
    to 50 such pairs (red team 11). Now: their words (first 20,000 bytes) as bags first — an
    upper bound of any ordered match, so a pair that cannot reach the threshold costs one pass —
    then in order: difflib on the words up to `EXACT` word pairs (a few KiB each: every memory
    file of the corpus), past it on their lines through `merge_drivers/diff.BoundedMatcher`. One
    search spends at most `BUDGET` pairs; past it nothing more is compared: a rename missed is an
    add and a delete, merged as such (nothing lost), never a wrong pairing."""

    EXACT = 4_000_000  # word pairs: ~0.5 s at worst (a crafted three-word text), 2,000 words each
    BUDGET = 10_000_000  # pairs a search may compare: ~1.5 s at worst
    _WORDS = re.compile(rb"\w+|\s+|[^\w\s]+")

    def __init__(self, repo: Blobs) -> None:
        self.repo, self.left = repo, self.BUDGET
        self._seen: dict[str, tuple[bytes, list[bytes], Counter[bytes]]] = {}

    def _read(self, oid: str) -> tuple[bytes, list[bytes], Counter[bytes]]:
        if oid not in self._seen:
            data = self.repo.read_blob(oid)[:20000]
            words = self._WORDS.findall(data)
            self._seen[oid] = (data, words, Counter(words))
        return self._seen[oid]

    def ratio(self, a: str, b: str, at_least: float = 0.6) -> float | None:
        """1.0 for the same blob; 0.0 when the bags alone say it is below `at_least`; None
        once the budget is spent."""
        if a == b:
            return 1.0
        (da, wa, ca), (db, wb, cb) = self._read(a), self._read(b)
        if da == db:
            return 1.0
        total = len(wa) + len(wb)
        if total == 0:
            return 0.0
        small, large = (ca, cb) if len(ca) <= len(cb) else (cb, ca)
        common = sum(min(n, large[w]) for w, n in small.items() if w in large)
        if 2 * common < at_least * total:
            return 0.0  # ordered, they can only match less
        from difflib import SequenceMatcher

        from merge_drivers.diff import BoundedMatcher

        cost = len(wa) * len(wb)
        if cost <= self.EXACT:
            matcher: SequenceMatcher[bytes] = SequenceMatcher(None, wa, wb, False)
        else:
            la, lb = da.splitlines(keepends=True), db.splitlines(keepends=True)
            cost, matcher = min(len(la) * len(lb), self.EXACT), BoundedMatcher(la, lb)
        if cost > self.left:
            self.left = 0
            return None
        self.left -= cost
        return matcher.ratio()


def _most_similar(
    likeness: Likeness, base_oid: str, side: Mapping[str, str], candidates: list[str]
) -> str | None:
    if len(candidates) > 50:
        return None  # bounded cost: a mass rename is left to the plain rules
    best: tuple[float, str] | None = None
    for path in sorted(candidates):
        ratio = likeness.ratio(base_oid, side[path])
        if ratio is None:
            return None  # past the budget: no pairing rather than one from half the candidates
        if ratio >= 0.6 and (best is None or ratio > best[0]):
            best = (ratio, path)
    return None if best is None else best[1]


def closest_version(repo: Objects, oid: str, versions: Collection[str]) -> str | None:
    """Of the versions a path once had, the one a file edited since (without sync state: a
    clone made again over an old folder) most likely started from: the most similar (ties to
    the smaller id), when the file still says at least half of that version's body lines.
    None otherwise — a file written apart under the same name (two machines each creating
    `fresh.md`, a planted tip) is new, not an edit — or past a bounded cost."""
    if not versions or len(versions) > 50:
        return None
    likeness = Likeness(repo)
    scored = []
    for v in sorted(versions):
        ratio = likeness.ratio(v, oid, at_least=0.0)  # the most alike, however little
        if ratio is None:
            return None  # past the budget (crafted history): no base guessed, nothing lost
        scored.append((-ratio, v))
    best = min(scored)[1]  # the most alike; ties to the smaller id
    said = _body_lines(repo.read_blob(best))
    kept = set(_body_lines(repo.read_blob(oid)))
    return best if said and 2 * sum(line in kept for line in said) >= len(said) else None


def _body_lines(data: bytes) -> list[bytes]:
    """The non-blank lines after the frontmatter (which a template makes alike), trailing
    whitespace aside."""
    from merge_drivers.yamlsafe import fence

    lines = data.split(b"\n")
    span = fence(data.decode("utf-8", "replace"))
    body = lines[span[1] + 1 :] if span else lines
    return [x.rstrip() for x in body if x.strip()]


def _keep_links(
    repo: Objects,
    result: TreeMerge,
    base: Mapping[str, str],
    ours: Mapping[str, str],
    theirs: Mapping[str, str],
    kept_modified: list[tuple[str, Mapping[str, str]]],
) -> None:
    """No orphan: a topic file kept as "modified beats deleted" gets its index line back. No
    dangling link: a file an index line names comes back when a side still has it."""
    from merge_drivers.links import linked, with_entries

    by_folder: dict[str, list[str]] = {}
    for path, _ in kept_modified:
        folder, _, name = path.rpartition("/")
        if name.casefold() != "memory.md":
            by_folder.setdefault(folder, []).append(name)
    for folder, names in sorted(by_folder.items()):
        index_path = f"{folder}/MEMORY.md" if folder else "MEMORY.md"
        if index_path not in result.files:
            continue
        sources = [repo.read_blob(m[index_path]) for m in (ours, theirs, base) if index_path in m]
        data = repo.read_blob(result.files[index_path])
        fixed = with_entries(data, names, sources)
        if fixed != data:
            result.files[index_path] = repo.write_blob(fixed)
            result.resolutions.extend(f"{folder}/{n}: index line kept with its file" for n in names)
    for index_path in sorted(p for p in result.files if p.rsplit("/", 1)[-1] == "MEMORY.md"):
        folder = index_path.rsplit("/", 1)[0] if "/" in index_path else ""
        kept: dict[int, dict[str, str]] = {}  # each side's index read once, not once per link
        for name in linked(repo.read_blob(result.files[index_path])):
            path = f"{folder}/{name}" if folder else name
            if path in result.files or "/" in name or name.startswith("."):
                continue
            holder = theirs if path in theirs else ours if path in ours else None
            deleter = ours if holder is theirs else theirs
            if holder is None:
                continue
            if id(deleter) not in kept:
                kept[id(deleter)] = _links(repo, deleter, index_path)
            if name in kept[id(deleter)]:
                continue  # the side that deleted the file kept its line: its own choice
            result.files[path] = holder[path]
            result.resolutions.append(f"{path}: file kept with its index line")


def _decide_together(
    repo: Objects,
    result: TreeMerge,
    base: Mapping[str, str],
    ours: tuple[Mapping[str, str], Mapping[str, float]],
    theirs: tuple[Mapping[str, str], Mapping[str, float]],
) -> None:
    """One decision per memory: where one side edited an index line's hook and the other its
    topic file's `description` (which the base said alike), both come from one side
    (`merge_drivers.together`). Each side's index is read once."""
    from merge_drivers.links import linked
    from merge_drivers.together import decide_together

    (of, ot), (tf, tt) = ours, theirs
    in_folder: dict[str, list[str]] | None = None  # the files of each folder, listed once
    for index_path in sorted(p for p in result.files if p.rsplit("/", 1)[-1] == "MEMORY.md"):
        if not all(index_path in m for m in (base, of, tf)):
            continue
        bi, oi, ti = base[index_path], of[index_path], tf[index_path]
        if oi == bi and ti == bi:
            continue
        folder = index_path.rsplit("/", 1)[0] if "/" in index_path else ""
        prefix = f"{folder}/" if folder else ""
        if in_folder is None:  # red team 23: each index walked every file, 10,000 folders
            # of a teammate's tree changing their MEMORY.md cost 10^9 steps (minutes)
            in_folder = {}
            for path in result.files:
                in_folder.setdefault(path.rpartition("/")[0], []).append(path)
        names = []
        for path in in_folder.get(folder, []):
            name = path[len(prefix) :]
            if not name.endswith(".md"):
                continue
            if not all(path in m for m in (base, of, tf)) or name == "MEMORY.md":
                continue
            if of[path] != base[path] or tf[path] != base[path]:
                names.append(name)  # the topic changed, and the index (above): a candidate
        if not names:
            continue
        eb, eo, et = (linked(repo.read_blob(x)) for x in (bi, oi, ti))

        def when(
            side: Mapping[str, str], times: Mapping[str, float], path: str, index: str = index_path
        ) -> float | None:
            # the time of the side's own edit: its topic file's, or (the topic as the base
            # had it) its index's — round 22: a hook edited last lost as "older" to a
            # description edited before it, the topic's old time standing for the hook
            return times.get(path) if side[path] != base[path] else times.get(index)

        index = original = repo.read_blob(result.files[index_path])
        for name in sorted(names):
            path = prefix + name
            topic = repo.read_blob(result.files[path])
            index, new_topic, note = decide_together(
                path,
                name,
                index,
                topic,
                (eb.get(name), repo.read_blob(base[path])),
                (eo.get(name), repo.read_blob(of[path]), when(of, ot, path)),
                (et.get(name), repo.read_blob(tf[path]), when(tf, tt, path)),
                index_path,
            )
            if note is None:
                continue
            result.files[path] = repo.write_blob(new_topic)
            result.resolutions.append(str(note))
        if index != original:
            result.files[index_path] = repo.write_blob(index)


def _links(repo: Objects, files: Mapping[str, str], index_path: str) -> dict[str, str]:
    from merge_drivers.links import linked

    oid = files.get(index_path)
    return linked(repo.read_blob(oid)) if oid else {}


def _separate_file_folder_clashes(files: dict[str, str]) -> None:
    """One side made `x` a file, the other a folder `x/…`: keep both, the file as `x.conflict`."""
    folders = {p.rsplit("/", 1)[0] for p in files if "/" in p}
    expanded: set[str] = set()
    for folder in folders:
        parts = folder.split("/")
        expanded.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    for path in sorted(p for p in files if p in expanded):
        files[f"{path}.conflict"] = files.pop(path)


def _separate_fold_clashes(
    files: dict[str, str], ours: Mapping[str, str], theirs: Mapping[str, str]
) -> dict[str, str]:
    """One side added `A.md`, the other `a.md` (or `Notes/…` and `notes/…`): two names, one
    file on macOS and Windows, which every door refuses (GM107). Keep both, by the paths
    alone (symmetric): the later spelling in sort order moves into the earlier folder; a name
    still one file with another gets `-2` (the first free number) before its extension. A
    pair one side already held (a tree from before the rule) is left as it was. Returns
    {old path: new path} of the files moved."""
    from gitmem.core.namefold import collisions, fold

    renamed: dict[str, str] = {}
    held = collisions(sorted(ours)).keys() | collisions(sorted(theirs)).keys()
    while clashes := {p: e for p, e in collisions(sorted(files)).items() if p not in held}:
        keys = Counter(fold(p) for p in files)
        for path, earlier in sorted(clashes.items()):
            keys[fold(path)] -= 1
            depth = earlier.count("/") + 1
            parts = path.split("/")
            moved = path
            if earlier not in files and depth < len(parts):  # a folder: into its first spelling
                moved = "/".join([earlier, *parts[depth:]])
            n = 1
            while moved == path or keys[fold(moved)] > 0:
                n += 1
                name = parts[depth - 1]
                stem, dot, ext = name.rpartition(".") if "." in name[1:] else (name, "", "")
                moved = "/".join([*parts[: depth - 1], f"{stem}-{n}{dot}{ext}", *parts[depth:]])
            keys[fold(moved)] += 1
            files[moved] = files.pop(path)
            first = next((o for o, n in renamed.items() if n == path), path)
            renamed[first] = moved
    return renamed


# a Markdown link's target, inline (`](x.md)`, `](<x.md>)`) or a reference definition
# (`[x]: x.md`), bounded so a hostile line costs linear time
_LINK = re.compile(rb"(\]\(\s*<?|^[ ]{0,3}\[[^\]\n]{1,999}\]:[ \t]*<?)([^\s)>#]{1,2000})", re.M)


def retarget(data: bytes, path: str, moves: Mapping[str, str]) -> tuple[bytes, set[str]]:
    """`data` (the file at `path`) with every Markdown link that resolves to an old path of
    `moves` pointing at its new path, relative to `path`; and the renames it followed."""
    import posixpath

    here = posixpath.dirname(path)
    followed: set[str] = set()

    def swap(m: re.Match[bytes]) -> bytes:
        target = m.group(2).decode("utf-8", "replace")
        if "://" in target or target.startswith(("/", "~", "\\")) or "%" in target:
            return m.group(0)
        new = moves.get(posixpath.normpath(posixpath.join(here, target)))
        if new is None:
            return m.group(0)
        followed.add(f"{posixpath.basename(target)} → {posixpath.basename(new)}")
        return m.group(1) + posixpath.relpath(new, here or ".").encode()

    if b"](" not in data and b"]:" not in data:
        return data, followed
    return _LINK.sub(swap, data), followed


def _relink_everywhere(repo: Objects, result: TreeMerge, moves: Mapping[str, str]) -> None:
    """The merge itself renamed `moves` (two spellings one file apart, round 13): every
    Markdown file of the tree whose link resolves to an old path now links the new one, the
    index included (issue #24: a rename rewrites the links to the old name in every file).
    Without it an index line named the moved spelling: dangling on Linux, and on macOS and
    Windows the other teammate's file, its case twin. By the merged bytes and the paths
    alone: symmetric. Read only when the merge renamed something."""
    if not moves:
        return
    for path in sorted(result.files):
        if not path.casefold().endswith(".md"):
            continue
        data = repo.read_blob(result.files[path])
        fixed, followed = retarget(data, path, moves)
        if fixed != data:
            result.files[path] = repo.write_blob(fixed)
            result.resolutions.append(
                f"{path}: links follow the rename {', '.join(sorted(followed))}"
            )


def _follow_renames(
    repo: Objects,
    moves: tuple[Mapping[str, str], Mapping[str, str]],
    base: dict[str, str],
    ours: dict[str, str],
    theirs: dict[str, str],
) -> list[str]:
    """A topic file one side renamed (`_moves`): before the merge, every Markdown file of its
    folder links the new name in all three versions — base, ours and theirs, the index
    included (issue #24). The index merge then reads the other side's entry for `old.md` as
    the same entry as the renamer's `new.md` (its title from the renamer, its hook edit from
    the other): one entry, not the renamed one beside the old one edited; and a link either
    side wrote or kept to the old name follows the rename instead of dangling. A rename the
    two sides made differently is decided once (`_rename_apart`, round 21); a chain of
    them is left to the plain rules. Each
    distinct blob of the folder is read once; nothing is read without a rename. Both sides
    renamed it alike (a merge merged again with the renamer): the new name merges on the old
    name's base, not as two files added. Returns the resolutions: the files whose ours or theirs version linked the old name."""
    targets: dict[str, set[str]] = {}
    for found in moves:
        for old, new in found.items():
            targets.setdefault(old, set()).add(new)
    told: dict[str, set[str]] = {}
    decided: list[str] = []
    links = dict(_rename_apart(repo, targets, moves, base, ours, theirs, decided))
    followed = {old: min(new) for old, new in targets.items() if len(new) == 1}
    for old in [o for o, n in followed.items() if n in targets]:
        del followed[old]  # a chain (a → b, b → c): which name a link means is not known
    if not followed:
        return decided
    links.update(followed)  # the old name, and the name a side gave that lost, link the kept one
    for old, new in followed.items():
        if all(found.get(old) == new for found in moves) and new not in base:
            base[new] = base[old]  # both renamed it alike: merged at the new name on its base
    folders = {old.rpartition("/")[0] for old in followed}
    fixed: dict[tuple[str, str], tuple[str, set[str]]] = {}  # (folder, blob id) -> followed
    for files in (base, ours, theirs):
        for path, oid in sorted(files.items()):
            folder, _, name = path.rpartition("/")
            if folder not in folders or not name.casefold().endswith(".md"):
                continue
            if (folder, oid) not in fixed:
                data = repo.read_blob(oid)
                new_data, names = retarget(data, path, links)
                fixed[folder, oid] = (oid if new_data == data else repo.write_blob(new_data), names)
            files[path], names = fixed[folder, oid]
            if names and files is not base:
                told.setdefault(path, set()).update(names)
    return decided + [
        f"{p}: links follow the rename {', '.join(sorted(n))}" for p, n in sorted(told.items())
    ]


def _rename_apart(
    repo: Objects,
    targets: dict[str, set[str]],
    moves: tuple[Mapping[str, str], Mapping[str, str]],
    base: dict[str, str],
    ours: dict[str, str],
    theirs: dict[str, str],
    decided: list[str],
) -> Iterator[tuple[str, str]]:
    """Two sides renamed one topic file to two names (`a.md`, `b.md`): decided once, by the
    names alone (symmetric, the same in any merge order), for the first in sort order. The
    other side's file moves to it, and both renamed alike: one file merged 3-way on the old
    name's base, both sides' edits kept, one index entry, titled as the kept name's renamer
    titled it (a name and a title from two sides would contradict each other). Yields {name
    that lost: kept name} for the links to follow."""
    for old, names in sorted(targets.items()):
        if len(names) != 2:
            continue
        kept, lost = sorted(names)
        side = ours if moves[1].get(old) == kept else theirs
        if kept in side or kept in base or lost not in side or lost in base:
            continue  # that side wrote a file of the kept name too: left to the plain rules
        other = theirs if side is ours else ours
        named = {_front_name(repo.read_blob(x)) for x in (base[old], side[lost], other[kept])}
        if None not in named and len(named) == 3:
            continue  # two new memories each side wrote where it deleted one (a template makes
            # them alike the deleted one): both kept, as git keeps a rename/rename to two names
        side[kept] = side.pop(lost)
        base[kept] = base[old]  # both renamed it alike now: merged at the kept name on its base
        _retitle(repo, side, theirs if side is ours else ours, old, lost, kept)
        targets[old] = {kept}
        decided.append(f"{old} renamed to {lost} and to {kept}: kept once as {kept}")
        yield lost, kept


def _front_name(data: bytes) -> object:
    """The frontmatter's parsed `name:` value (`name_value`), None without one or when the
    file is not UTF-8."""
    from merge_drivers.frontmatter import name_value

    try:
        return name_value(data.decode("utf-8"))
    except UnicodeDecodeError:
        return None


_TITLE = re.compile(r"\s*(?:[-*+]|\d{1,9}[.)])\s+\[([^\]\n]{0,999})\]\(")


def _retitle(
    repo: Objects, side: dict[str, str], renamer: Mapping[str, str], old: str, lost: str, kept: str
) -> None:
    """`side`'s index entry for `lost` takes the title `renamer`'s entry for `kept` has."""
    folder = old.rpartition("/")[0]
    index = f"{folder}/MEMORY.md" if folder else "MEMORY.md"
    if index not in side or index not in renamer:
        return
    from merge_drivers.links import linked

    data = repo.read_blob(side[index])
    mine = linked(data).get(lost.rpartition("/")[2])
    theirs = linked(repo.read_blob(renamer[index])).get(kept.rpartition("/")[2])
    m, t = (_TITLE.match(x) if x else None for x in (mine, theirs))
    if mine and m and t and m[1] != t[1]:
        now = mine[: m.start(1)] + t[1] + mine[m.end(1) :]
        side[index] = repo.write_blob(data.replace(mine.encode(), now.encode(), 1))


def _one(repo: Objects, files: Mapping[str, str], spellings: list[str]) -> str | None:
    """One side's blob for a merged name; two spellings of `MEMORY.md` on one side merged 2-way."""
    if not spellings:
        return None
    if len(spellings) == 1:
        return files[spellings[0]]
    from merge_drivers import merge_file

    ordered = sorted(spellings)
    oid = files[ordered[0]]
    for other in ordered[1:]:
        merged = merge_file(ordered[0], None, repo.read_blob(oid), repo.read_blob(files[other]))
        oid = repo.write_blob(merged.data or b"")
    return oid
