"""Rollback of the personal ref: what a sealed manifest says about its own age (docs/design.md §5).

Anyone who can push may put back an older tree of the personal ref (or one older ciphertext):
it was sealed with the current key, so it opens. What only a holder of the key can write is
the manifest, so each one carries a generation (above every manifest of its parents) and the
ciphertext id of every file. A fetched commit whose manifest changed but is not newer than
the one this machine synced last, or that drops a folder it had sealed, is refused.
Manifests from before (no generation) open as generation 0 and are upgraded on the next change.
"""

from __future__ import annotations

from typing import Any, Protocol

FORMAT = 2  # "v" of a manifest with a generation and ciphertext ids; 1: files only


def read_manifest(value: Any) -> tuple[dict[str, str], int, dict[str, str] | None]:
    """(path -> hidden name, generation, path -> ciphertext id or None when not recorded) of
    an opened manifest; TypeError/KeyError when it is not one."""
    listed = value["files"]
    if not isinstance(listed, dict):
        raise TypeError("files")
    gen = value.get("gen", 0)
    if not isinstance(gen, int) or isinstance(gen, bool) or gen < 0:
        raise TypeError("gen")
    digests = value.get("blobs")
    if digests is not None and not (
        isinstance(digests, dict) and all(isinstance(v, str) for v in digests.values())
    ):
        raise TypeError("blobs")
    return listed, gen, digests


def manifest_value(listed: dict[str, str], ciphers: dict[str, str], gen: int) -> dict[str, Any]:
    return {"files": listed, "blobs": ciphers, "gen": gen, "v": FORMAT}


class Versions(Protocol):
    """What a decoded personal tree says of its sealed folders (privacy/codec.Decoded is one)."""

    @property
    def gens(self) -> dict[str, int]: ...  # prefix -> its manifest's generation

    @property
    def manifests(self) -> dict[str, str]: ...  # prefix -> manifest blob id


def rolled_back(ours: Versions, theirs: Versions, wanted: tuple[str, ...]) -> str | None:
    """Why `theirs` (fetched) is an older state than `ours` (what this machine synced last)
    put back, or None. Only manifests with a generation vouch: a ref written before them is
    trusted as it was (first use)."""
    for prefix in sorted(set(wanted) & set(ours.gens)):
        before = ours.gens[prefix]
        if before == 0:
            continue
        if prefix not in theirs.manifests:
            return f"drops the encrypted folder {prefix}/ this machine synced (generation {before})"
        if theirs.manifests[prefix] == ours.manifests[prefix]:
            continue  # unchanged: each file was checked against its listed ciphertext id
        now = theirs.gens.get(prefix, 0)
        if now <= before:
            return (
                f"holds {prefix}/manifest of generation {now}, not above {before} that this "
                "machine synced last: an older state put back"
            )
    return None


def rollback_hint(ref: str, refused: str) -> str:
    """How to put the newer state back: this machine's ref still holds it (a push that
    replaces only the refused commit, from the machine that synced last)."""
    return (
        f"nothing was written; your {ref} here still holds the newer state. To put it back: "
        f"git push --force-with-lease={ref}:{refused} <remote> {ref}:{ref}, then gitmem sync"
    )
