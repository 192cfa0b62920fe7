"""3-way merge of two gitmem trees: path rules here, file contents by `merge_drivers`.

Symmetric by construction: nothing here depends on which side is "ours" except the labels
of the resolutions it reports.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from gitmem.gitstore import BLOB_MODE, Repository, TreeEntry

META_FILE = "gitmem.toml"


@dataclass
class TreeMerge:
    files: dict[str, str]  # path -> blob id
    resolutions: list[str] = field(default_factory=list)


class _LazyFolder(Mapping[str, bytes]):
    """The files of one folder of one side, read from git only when a resolver asks."""

    def __init__(self, repo: Repository, files: Mapping[str, str], folder: str) -> None:
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


def blobs(entries: Mapping[str, TreeEntry]) -> dict[str, str]:
    return {p: e.oid for p, e in entries.items()}


def _fold(files: Mapping[str, str]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for path in files:
        groups.setdefault(path.casefold(), []).append(path)
    return groups


def merge_trees(
    repo: Repository,
    base: Mapping[str, str],
    ours: Mapping[str, str],
    theirs: Mapping[str, str],
    ours_times: Mapping[str, float] | None = None,
    theirs_times: Mapping[str, float] | None = None,
) -> TreeMerge:
    """Merge {path: blob id} maps. Paths differing only by case are one file (canonical spelling:
    the smallest), so the result never holds two spellings of one path."""
    from merge_drivers import SideInfo, merge_file

    ours_times, theirs_times = ours_times or {}, theirs_times or {}
    result = TreeMerge({})
    extras: dict[str, bytes] = {}
    fb, fo, ft = _fold(base), _fold(ours), _fold(theirs)
    for folded in sorted(set(fb) | set(fo) | set(ft)):
        spellings = sorted(set(fo.get(folded, [])) | set(ft.get(folded, [])))
        path = spellings[0] if spellings else fb[folded][0]
        b = _one(repo, base, fb.get(folded, []))
        o = _one(repo, ours, fo.get(folded, []))
        t = _one(repo, theirs, ft.get(folded, []))
        if o == t or t == b:
            if o is not None:
                result.files[path] = o
            continue
        if o == b:
            if t is not None:
                result.files[path] = t
            continue
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        if path == META_FILE:
            kept = o if o is not None else t  # keys were checked before merging
            if kept is not None:
                result.files[path] = kept
            continue
        merged = merge_file(
            path,
            repo.read_blob(b) if b else None,
            repo.read_blob(o) if o else None,
            repo.read_blob(t) if t else None,
            SideInfo(ours_times.get(path), _LazyFolder(repo, ours, folder)),
            SideInfo(theirs_times.get(path), _LazyFolder(repo, theirs, folder)),
        )
        result.resolutions.extend(str(r) for r in merged.resolutions)
        if merged.data is not None:
            result.files[path] = repo.write_blob(merged.data)
        for extra_path, extra_data in merged.extra_files.items():
            # complete bytes (e.g. MEMORY-archive.md): they replace any merge of that path
            extras[f"{folder}/{extra_path}" if folder else extra_path] = extra_data
    for extra_path, extra_data in extras.items():
        result.files[extra_path] = repo.write_blob(extra_data)
    _separate_file_folder_clashes(result.files)
    return result


def _separate_file_folder_clashes(files: dict[str, str]) -> None:
    """One side made `x` a file, the other a folder `x/…`: keep both, the file as `x.conflict`."""
    folders = {p.rsplit("/", 1)[0] for p in files if "/" in p}
    expanded: set[str] = set()
    for folder in folders:
        parts = folder.split("/")
        expanded.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    for path in sorted(p for p in files if p in expanded):
        files[f"{path}.conflict"] = files.pop(path)


def _one(repo: Repository, files: Mapping[str, str], spellings: list[str]) -> str | None:
    """One side's blob for a case-folded path; two spellings on one side are merged 2-way."""
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


def as_tree_input(files: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    return {p: (BLOB_MODE, oid) for p, oid in files.items()}
