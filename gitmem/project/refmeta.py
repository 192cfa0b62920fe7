"""`gitmem.toml`, the identity file of a gitmem ref: read, written and merged."""

import re
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from gitmem.gitstore.store import Store

FORMAT_VERSION = 1
META_FILE = "gitmem.toml"


class RefMeta(NamedTuple):
    version: int
    key: str
    aliases: tuple[str, ...] = ()  # other spellings the project is known by (docs/design.md §2)

    def knows(self, key: str) -> bool:
        """`key` names this ref's project: it is the key or an alias — or the ref was only ever
        keyed by a path (`local:…`, made before the repository had a remote) and `key` is a
        remote's: the first remote such memory is pushed to names its project, so a second
        machine syncs it as it is (docs/guide.md §3, "No remote yet?")."""
        from gitmem.project.identity import same_project

        if any(same_project(key, k) for k in (self.key, *self.aliases)):
            return True
        return unclaimed(self) and not key.startswith(LOCAL_PREFIX)

    def with_alias(self, key: str) -> "RefMeta":
        """This identity with `key` added as an alias (the key itself never changes)."""
        if key == self.key or key in self.aliases:
            return self
        return RefMeta(self.version, self.key, tuple(sorted({*self.aliases, key})))


LOCAL_PREFIX = "local:"  # the key of a repository without a remote (gitmem/project/identity.py)


def unclaimed(meta: RefMeta) -> bool:
    """Every name of the ref is a path: it was made where there was no remote yet."""
    return all(k.startswith(LOCAL_PREFIX) for k in (meta.key, *meta.aliases))


def rekeyed(meta: RefMeta, key: str) -> RefMeta | None:
    """The identity a ref should carry once it syncs through a remote keyed `key`: an
    unclaimed ref (made before there was a remote) gets `key` as an alias, so that its
    gitmem.toml names the project from then on; None when nothing is to change. The sync's
    commit (gitmem/sync/commit.py) adds the alias on the first commit after `git remote add`."""
    if key.startswith(LOCAL_PREFIX) or not unclaimed(meta):
        return None
    return meta.with_alias(key)


class MetaError(ValueError):
    """gitmem.toml cannot be read."""


# a project known by a few URLs writes a few hundred bytes: room for hundreds of aliases
MAX_META_BYTES = 64 * 1024
# a string runs to its closing quote or, unclosed, to the line's end (`\\.?`: a last lone
# backslash too): it always matches where it starts, so a line is read once. Round 20: with
# `"(…)*"` an unclosed string was read again from each quote after it: 64 KiB of `"\` (a
# teammate's gitmem.toml within its cap) cost 60 s a read
_QUOTED = re.compile(r'"((?:[^"\\]|\\.?)*)("?)')


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_meta(data: bytes) -> RefMeta:
    """gitmem.toml: `version = 1`, `key = "..."` and `aliases = ["...", ...]` (written by us)."""
    values: dict[str, str] = {}
    aliases: tuple[str, ...] = ()
    if len(data) > MAX_META_BYTES:
        # red team 17: 100,000 aliases (2.4 MB) cost a teammate's first pull 11 s, and every
        # merge carried them on (aliases are a union)
        raise MetaError(f"{META_FILE} is {len(data)} bytes (limit {MAX_META_BYTES})")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MetaError(f"{META_FILE} is not UTF-8") from exc
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, value = line.partition("=")
        if not sep:
            raise MetaError(f"{META_FILE}: cannot read line {line[:40]!r}")
        value = value.strip()
        if name.strip() == "aliases":
            if not (value.startswith("[") and value.endswith("]")):
                raise MetaError(f"{META_FILE}: aliases is not a list")
            quoted = _QUOTED.findall(value)
            if any(not closed for _, closed in quoted):
                raise MetaError(f"{META_FILE}: aliases holds an unclosed string")
            aliases = tuple(_unquote(m) for m, _ in quoted)
            continue
        if value.startswith('"') and value.endswith('"') and len(value) >= 2:
            value = _unquote(value[1:-1])
        values[name.strip()] = value
    try:
        return RefMeta(int(values["version"]), values["key"], aliases)
    except (KeyError, ValueError) as exc:
        raise MetaError(f"{META_FILE} lacks a version or key") from exc


MAX_SHOWN_KEY = 80  # characters of one project key in a message
MAX_SHOWN_KEYS = 3  # keys named in one message, then how many more


def shown_keys(keys: tuple[str, ...] | list[str]) -> str:
    """Project keys as a message names them, bounded: a ref's gitmem.toml is outside text and
    may hold a key of half a megabyte or a thousand aliases (escaped by repr, each cut)."""
    cut = [repr(k if len(k) <= MAX_SHOWN_KEY else k[:MAX_SHOWN_KEY] + "…") for k in keys]
    more = len(cut) - MAX_SHOWN_KEYS
    return " or ".join(cut[:MAX_SHOWN_KEYS]) + (f" (and {more} more)" if more > 0 else "")


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
    key = min(m.key for m in metas)
    known = {k for m in metas for k in (m.key, *m.aliases)}
    if adopt:
        known.add(adopt)
    version = max(m.version for m in metas)
    return RefMeta(version, key, tuple(sorted(known - {key})))


def meta_at(repo: "Store", commit: str) -> RefMeta | None:
    """The gitmem.toml of `commit` (None: no such file, or one that cannot be read)."""
    oid = repo.tree_entry(repo.read_commit(commit)[0], META_FILE)
    try:
        return parse_meta(repo.read_blob(oid)) if oid else None
    except MetaError:
        return None
