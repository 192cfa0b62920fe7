"""Pure merge functions for memory files: bytes in, bytes out plus resolutions.

Never touches the file system, the clock or the environment, so that merges are deterministic,
symmetric (swap ours/theirs -> same bytes), idempotent and total. Imports stay minimal: the git
merge driver runs this once per conflicting file.
"""

from __future__ import annotations

from merge_drivers.model import MergeResult, Resolution, SideInfo

__all__ = ["MergeResult", "Resolution", "SideInfo", "merge_file"]

_NO_INFO = SideInfo()


def merge_file(
    path: str,
    base: bytes | None,
    ours: bytes | None,
    theirs: bytes | None,
    ours_info: SideInfo | None = None,
    theirs_info: SideInfo | None = None,
    *,
    inline_archive: bool = False,
    base_info: SideInfo | None = None,
) -> MergeResult:
    """Merge one path 3-way. None means absent on that side (never existed, or deleted).

    Total: always returns a result, never conflict markers. Added on both sides -> merged with
    an empty base; deleted on one side and unchanged on the other -> deleted; deleted against
    modified -> modified. A version left blank (whitespace only) where the base held text is a
    deletion against an edit (the edit kept whole, "modified beats deleted" on the file) and
    against a deletion (deleted); so is a topic body blanked under the base's own frontmatter,
    and two edits that together remove every line merge to a removal (None). `MergeResult.extra_files` holds other files of the same folder the
    merge rewrote (`MEMORY-archive.md`). `inline_archive=True` (the git driver, which can
    write only one file) parks index overflow in an HTML comment at the end of the index
    instead. `base_info` (optional) is what the caller knows of the base: the index merge
    reads the base's `MEMORY-archive.md` from its `siblings` (entries the base had archived
    are not brought in by this merge).
    """
    oi = ours_info or _NO_INFO
    ti = theirs_info or _NO_INFO
    if ours == theirs:
        return MergeResult(ours)
    if ours is not None and theirs is not None and not (base or b"").strip():
        # over a blank base, a side that wrote only blanks wrote nothing: the other side's
        # text as it stands (`''`/`alpha`/`\n` gave `\nalpha`, and merged again with `alpha`,
        # `alpha`: not idempotent; #24, round 22)
        if not ours.strip() and theirs.strip():
            ours = base
        elif not theirs.strip() and ours.strip():
            theirs = base
    if ours == base or theirs == base:
        kept, info = (theirs, ti) if ours == base else (ours, oi)
        if kept is not None and _over_caps(path, kept):  # the merge archives the overflow
            from merge_drivers.index import merge_index

            # a new index (no base: a second machine's first sync) is arranged as written,
            # not as items new to an empty base (sorted by text, its title no longer first)
            return merge_index(
                path,
                base if base and base.strip() else kept,
                kept,
                kept,
                info,
                info,
                True,
                inline_archive,
                base_info=base_info,
            )
        return MergeResult(kept)
    eo, et = _emptied(path, base, ours), _emptied(path, base, theirs)
    if eo and et:  # both blanked it: the greater blank
        return MergeResult(max(ours or b"", theirs or b""))
    if eo or et:  # emptied is deleted (#24); emptied and deleted: deleted
        ours, theirs = None if eo else ours, None if et else theirs
        if ours is None and theirs is None:
            return MergeResult(None)
    if ours is None or theirs is None:
        kept, side = (theirs, "theirs") if ours is None else (ours, "ours")
        return MergeResult(kept, (Resolution(path, "file", side, "modified beats deleted"),))
    from merge_drivers.dispatch import merge_contents

    if not (base or b"").strip():
        base = _shared_title(path, ours, theirs)
    result = merge_contents(
        path, base or b"", ours, theirs, oi, ti, inline_archive=inline_archive, base_info=base_info
    )
    if result.data is not None and not result.data.strip() and _emptied(path, base, result.data):
        # two edits that together removed every line: the file is removed, as a blanked
        # one is, so that (edit, edit) and then a removal ends as (removal, edit) then edit
        return MergeResult(None, result.resolutions, result.extra_files, result.conflicted)
    return result


def _shared_title(path: str, ours: bytes, theirs: bytes) -> bytes:
    """Two indexes written apart (no base: each machine wrote memory before its first sync)
    that open with the same `# ` title: the title is their base, so it stays first — as items
    new to an empty base it was sorted among the sections (#24, everyday round 12). Empty
    for anything else; symmetric (the line both sides share)."""
    if path.rsplit("/", 1)[-1].casefold() != "memory.md":
        return b""
    first_o, first_t = ours.split(b"\n", 1)[0], theirs.split(b"\n", 1)[0]
    if first_o != first_t or not first_o.startswith(b"# "):
        return b""
    if first_o.strip() in (ours.strip(), theirs.strip()):  # a side that is only the title
        return b""  # added nothing: merged (and capped) as before
    return first_o + b"\n"


def _emptied(path: str, base: bytes | None, side: bytes | None) -> bool:
    """A version that only blanks out a file the base held text in: a deletion, decided as one
    (against an edit, the edit is kept whole, not the few blocks it changed). Not `MEMORY.md`:
    an index emptied is all its entries deleted, each against its edit (an entry edited
    elsewhere stays; taking the whole index back took `merge_laws --seed 1` 20/6 → 23/7)."""
    if side is None or base is None or not base.strip():
        return False
    if path.rsplit("/", 1)[-1].casefold() == "memory.md":
        return False
    if not side.strip():
        return True
    return side.startswith(b"---") and _body_emptied(base, side)


def _body_emptied(base: bytes, side: bytes) -> bool:
    """A topic file whose body was blanked under the base's own frontmatter, byte for byte: the
    memory removed, its header left behind — a deletion like a blanked file (#24). A side that
    also changed its frontmatter (`status: retired`) made an edit, merged as one."""
    from merge_drivers.yamlsafe import fence

    try:
        b, s = base.decode(), side.decode()
    except UnicodeDecodeError:
        return False
    bspan, sspan = fence(b), fence(s)
    if bspan is None or sspan is None:
        return False
    bl, sl = b.split("\n"), s.split("\n")
    head = sl[: sspan[1] + 1]
    return (
        head == bl[: bspan[1] + 1]
        and not "\n".join(sl[sspan[1] + 1 :]).strip()
        and bool("\n".join(bl[bspan[1] + 1 :]).strip())
    )


def _over_caps(path: str, data: bytes) -> bool:
    """An index over Claude Code's load caps (cheap for anything else)."""
    if path.rsplit("/", 1)[-1].casefold() != "memory.md":
        return False
    from merge_drivers.binary import is_binary
    from merge_drivers.dispatch import MAX_STRUCTURED, MAX_STRUCTURED_LINES
    from merge_drivers.index import over_caps

    if len(data) > MAX_STRUCTURED or data.count(b"\n") > MAX_STRUCTURED_LINES:
        return False  # not an index any more: merged as lines, never parsed
    try:
        return not is_binary(data) and over_caps(data)
    except UnicodeDecodeError:
        return False
