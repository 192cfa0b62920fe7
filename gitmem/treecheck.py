"""Checks a ref's tree before anything of it is merged or written to disk.

A remote tree is untrusted: a teammate's broken tool or a malicious push can put anything on
`refs/gitmem/*`. Nothing here writes; a finding raises UntrustedTreeError with the path.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from gitmem.errors import UntrustedTreeError
from gitmem.gitstore import BLOB_MODE, EXEC_MODE, Repository, TreeEntry

FORMAT_VERSION = 1
META_FILE = "gitmem.toml"
MAX_BLOB_BYTES = 4 * 1024 * 1024
MAX_TOTAL_BYTES = 512 * 1024 * 1024
MAX_FILES = 200_000
MAX_DEPTH = 12
MAX_PATH_BYTES = 1024
_CONTROL = re.compile(r"[\x00-\x1f\x7f\\]")
_FORBIDDEN_PARTS = {"", ".", "..", ".git"}


@dataclass(frozen=True)
class RefMeta:
    version: int
    key: str
    aliases: tuple[str, ...] = ()  # other spellings the project is known by (DESIGN §2)

    def knows(self, key: str) -> bool:
        return key == self.key or key in self.aliases


_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_meta(data: bytes) -> RefMeta:
    """gitmem.toml: `version = 1`, `key = "..."` and `aliases = ["...", ...]` (written by us)."""
    values: dict[str, str] = {}
    aliases: tuple[str, ...] = ()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UntrustedTreeError(f"{META_FILE} is not UTF-8") from exc
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, value = line.partition("=")
        if not sep:
            raise UntrustedTreeError(f"{META_FILE}: cannot read line {line[:40]!r}")
        value = value.strip()
        if name.strip() == "aliases":
            if not (value.startswith("[") and value.endswith("]")):
                raise UntrustedTreeError(f"{META_FILE}: aliases is not a list")
            aliases = tuple(_unquote(m) for m in _QUOTED.findall(value))
            continue
        if value.startswith('"') and value.endswith('"') and len(value) >= 2:
            value = value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        values[name.strip()] = value
    try:
        return RefMeta(int(values["version"]), values["key"], aliases)
    except (KeyError, ValueError) as exc:
        raise UntrustedTreeError(f"{META_FILE} lacks a version or key") from exc


def render_meta(key: str, aliases: tuple[str, ...] = ()) -> bytes:
    lines = [
        "# gitmem ref: memory files synced by gitmem; do not edit by hand",
        f"version = {FORMAT_VERSION}",
        f"key = {_quote(key)}",
    ]
    if aliases:
        lines.append(f"aliases = [{', '.join(_quote(a) for a in aliases)}]")
    return ("\n".join(lines) + "\n").encode()


def merged_meta(metas: list[RefMeta], adopt: str | None = None) -> RefMeta:
    """One identity for a merge of refs: every key and alias survives, so no spelling that was
    ever accepted is refused later (no ping-pong); the key is the one they share, else the
    least (symmetric). `adopt` adds our key as an alias; it never replaces the key."""
    keys = {m.key for m in metas}
    key = min(keys)
    known = {k for m in metas for k in (m.key, *m.aliases)}
    if adopt:
        known.add(adopt)
    version = max(m.version for m in metas)
    return RefMeta(version, key, tuple(sorted(known - {key})))


def check_path(path: str) -> str | None:
    """Why `path` may not come from a remote, or None."""
    if len(path.encode("utf-8", "surrogateescape")) > MAX_PATH_BYTES:
        return "path too long"
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return "path is not valid UTF-8"
    if path.startswith("/") or _CONTROL.search(path):
        return "absolute path or control character"
    parts = path.split("/")
    if len(parts) > MAX_DEPTH:
        return f"deeper than {MAX_DEPTH} folders"
    for part in parts:
        if part.casefold().rstrip(". ") in _FORBIDDEN_PARTS or part in _FORBIDDEN_PARTS:
            return f"forbidden path component {part!r}"
    return None


def check_tree(
    repo: Repository,
    commit: str,
    ref: str,
    allowed_tops: frozenset[str],
    known: frozenset[str] = frozenset(),
) -> RefMeta:
    """Validate the commit a ref points at; return its metadata or raise UntrustedTreeError.

    `known`: blob ids already in local history, whose contents need no second look."""
    kind = repo.object_type(commit)
    if kind != "commit":
        raise UntrustedTreeError(
            f"{ref} points at a {kind or 'missing object'}, not a gitmem commit",
            "ask whoever pushed it to delete it, or run gitmem validate",
        )
    entries = repo.list_tree(commit, sizes=True)
    meta = entries.get(META_FILE)
    if meta is None:
        raise UntrustedTreeError(
            f"{ref} is not a gitmem ref (no {META_FILE} at its root)",
            "someone pushed another tool's data there; gitmem will not merge it",
        )
    check_entries(entries, ref, allowed_tops)
    check_names(repo.tree_paths(commit), ref)
    try:
        parsed = parse_meta(repo.read_blob(meta.oid))
    except UntrustedTreeError as exc:
        raise UntrustedTreeError(
            f"{ref}: {exc.message}", "the ref was refused; nothing was written"
        ) from None
    for path, entry in entries.items():
        if path.lower().endswith(".md") and entry.oid not in known:
            why = unsafe_frontmatter(repo.read_blob(entry.oid))
            if why:
                raise UntrustedTreeError(
                    f"{ref}:{path!r}: {why}", "the ref was refused; nothing was written"
                )
    if parsed.version > FORMAT_VERSION:
        raise UntrustedTreeError(
            f"{ref} uses gitmem format {parsed.version}; this gitmem reads {FORMAT_VERSION}",
            "upgrade gitmem (pip install -U gitmem)",
        )
    return parsed


def check_names(paths: list[str], ref: str) -> None:
    """One name, one entry: no path twice, no file that is also a folder (git fsck's
    duplicateEntries; such a tree has no faithful checkout, so gitmem will not guess one)."""
    seen: set[str] = set()
    for path in paths:
        if path in seen:
            raise UntrustedTreeError(
                f"{ref}:{path!r} is named twice in one folder (a file and a folder, or two files)",
                "the ref was not written by gitmem; it was refused",
            )
        seen.add(path)


def unsafe_frontmatter(data: bytes) -> str | None:
    """Why a Markdown file's YAML frontmatter may not come from a remote, or None.

    Anchors are what a YAML bomb (billion laughs) needs and tags are how YAML loaders run code;
    gitmem and Claude Code never write either. Aliases alone expand nothing and stay allowed."""
    if not data.startswith(b"---"):
        return None
    lines = data.decode("utf-8", "replace").splitlines()
    if lines[0].strip() != "---":
        return None
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        return None
    front = "\n".join(lines[1:end])
    if "&" not in front and "!" not in front:
        return None  # no anchor or tag can be there: skip the YAML import
    import yaml

    try:
        for token in yaml.scan(front, Loader=yaml.SafeLoader):
            if isinstance(token, yaml.AnchorToken):
                return "YAML anchor in the frontmatter (a YAML bomb needs them)"
            if isinstance(token, yaml.TagToken):
                return "YAML tag in the frontmatter"
    except yaml.YAMLError:
        return None  # not YAML at all: merged as plain text, never loaded
    return None


def check_entries(entries: Mapping[str, TreeEntry], ref: str, allowed_tops: frozenset[str]) -> None:
    if len(entries) > MAX_FILES:
        raise UntrustedTreeError(f"{ref} holds {len(entries)} files (limit {MAX_FILES})")
    total = 0
    for path, entry in entries.items():
        where = f"{ref}:{path!r}"
        if entry.mode not in (BLOB_MODE, EXEC_MODE) or entry.kind != "blob":
            what = {"120000": "a symbolic link", "160000": "a submodule"}.get(
                entry.mode, entry.kind
            )
            raise UntrustedTreeError(
                f"{where} is {what}; memory refs hold plain files only",
                "the ref was not written by gitmem; it was refused",
            )
        why = check_path(path)
        if why:
            raise UntrustedTreeError(f"{where}: {why}", "the ref was refused; nothing was written")
        top = path.split("/", 1)[0]
        if top not in allowed_tops:
            raise UntrustedTreeError(
                f"{where}: unexpected top-level entry {top!r}",
                "the ref was refused; nothing was written",
            )
        size = entry.size or 0
        if size > MAX_BLOB_BYTES:
            raise UntrustedTreeError(
                f"{where} is {size} bytes (limit {MAX_BLOB_BYTES})",
                "the ref was refused; nothing was written",
            )
        total += size
    if total > MAX_TOTAL_BYTES:
        raise UntrustedTreeError(f"{ref} holds {total} bytes (limit {MAX_TOTAL_BYTES})")
