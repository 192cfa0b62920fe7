"""Chooses the resolver for a path whose contents both sides changed, and keeps merges total.

Formatting marks (BOM, line endings) are taken off first and put back after, in one style, so a
formatting-only change never beats a real edit. Markdown that decodes goes to its resolver;
any other text — undecodable bytes, a NUL, huge files — merges line by line on bytes; only true
binary takes the whole winning file, flagged `conflicted` so the git driver lets git report it.
A resolver that fails is visible: a resolution line says so, and its input merges as lines.
"""

from __future__ import annotations

from merge_drivers.binary import is_binary
from merge_drivers.model import MergeResult, Resolution, SideInfo
from merge_drivers.style import dress, merged_style, plain
from merge_drivers.text import merge_text, merge_whole

MAX_STRUCTURED = 4 << 20  # larger files are merged as lines, not parsed
MAX_STRUCTURED_LINES = 20_000  # 100 times what Claude Code loads of an index


def kind_of(path: str) -> str:
    """ "index", "archive", "topic" or "text", from the path alone."""
    name = path.rsplit("/", 1)[-1].casefold()
    if name == "memory.md":
        return "index"
    if name == "memory-archive.md":
        return "archive"
    if name.endswith((".md", ".markdown")):
        return "topic"
    return "text"


def _readable(*datas: bytes) -> bool:
    """UTF-8 without NUL: what the Markdown resolvers parse."""
    for d in datas:
        if b"\0" in d:
            return False
        try:
            d.decode()
        except UnicodeDecodeError:
            return False
    return True


def merge_contents(
    path: str,
    base: bytes,
    ours: bytes,
    theirs: bytes,
    ours_info: SideInfo,
    theirs_info: SideInfo,
    inline_archive: bool = False,
    base_info: SideInfo | None = None,
) -> MergeResult:
    if is_binary(base) or is_binary(ours) or is_binary(theirs):
        return merge_whole(path, ours, theirs, ours_info, theirs_info)
    style = merged_style(base, ours, theirs)
    pb, po, pt = plain(base), plain(ours), plain(theirs)
    if po == pt or pt == pb:  # the other side changed formatting only (or nothing)
        return MergeResult(dress(po, style))
    if po == pb:
        return MergeResult(dress(pt, style))
    dropped: list[Resolution] = []
    if _without_markers(pb) is None:  # markers the base had are the file's text
        for side in ("ours", "theirs"):
            cleaned = _without_markers(po if side == "ours" else pt)
            if cleaned is not None:
                po, pt = (cleaned, pt) if side == "ours" else (po, cleaned)
                dropped.append(
                    Resolution(path, "file", "both", f"conflict markers of {side} dropped")
                )
    result = _merge_plain(path, pb, po, pt, ours_info, theirs_info, inline_archive, base_info)
    data = None if result.data is None else dress(result.data, style)
    return MergeResult(data, (*dropped, *result.resolutions), result.extra_files, result.conflicted)


def _without_markers(data: bytes) -> bytes | None:
    """`data` without the marker lines of the conflict blocks a `git merge` left in it (both
    sides' lines kept, a diff3 base section dropped), or None when it holds no block or one
    that is not closed: a side that carries markers would spread them to every machine."""
    if b"<<<<<<<" not in data:
        return None
    out: list[bytes] = []
    state = ""  # "", "ours", "base", "theirs"
    found = False
    for line in data.splitlines(True):
        mark, rest = line[:7], line[7:8]
        marker = rest in (b" ", b"\n", b"\r", b"")
        if mark == b"<<<<<<<" and marker and not state:
            state = "ours"
        elif mark == b"|||||||" and marker and state == "ours":
            state = "base"
        elif line.rstrip(b"\r\n") == b"=======" and state in ("ours", "base"):
            state = "theirs"
        elif mark == b">>>>>>>" and marker and state == "theirs":
            state, found = "", True
        elif state != "base":
            out.append(line)
    return b"".join(out) if found and not state else None


def _merge_plain(
    path: str,
    base: bytes,
    ours: bytes,
    theirs: bytes,
    ours_info: SideInfo,
    theirs_info: SideInfo,
    inline_archive: bool,
    base_info: SideInfo | None = None,
) -> MergeResult:
    kind = kind_of(path)
    if (
        max(len(base), len(ours), len(theirs)) > MAX_STRUCTURED
        or max(x.count(b"\n") for x in (base, ours, theirs)) > MAX_STRUCTURED_LINES
        or not _readable(base, ours, theirs)
    ):
        kind = "text"
    failed: Resolution | None = None
    try:
        if kind in ("index", "archive"):
            from merge_drivers.index import merge_index

            return merge_index(
                path,
                base,
                ours,
                theirs,
                ours_info,
                theirs_info,
                caps=kind == "index",
                inline_archive=inline_archive,
                base_info=base_info,
            )
        if kind == "topic":
            from merge_drivers.frontmatter import merge_topic

            return merge_topic(path, base, ours, theirs, ours_info, theirs_info)
    except Exception as e:  # a resolver bug must not cost the user a merge, nor hide
        what = f"{type(e).__name__}: {e}"[:120]
        failed = Resolution(path, "file", "both", f"{kind} merge failed ({what}), merged as lines")
    result = merge_text(path, base, ours, theirs, ours_info, theirs_info)
    notes = [failed] if failed is not None else []
    if kind == "text":  # a memory that did not decode (Markdown, goose's text): say where
        notes += _undecodable(path, {"base": base, "ours": ours, "theirs": theirs})
    if not notes:
        return result
    return MergeResult(result.data, (*notes, *result.resolutions), None, result.conflicted)


def _undecodable(path: str, versions: dict[str, bytes]) -> list[Resolution]:
    """One note per first bad byte of a file that is not UTF-8 (an editor that saved Latin-1):
    its offset and the versions that hold it — one line however many of base, ours and theirs
    do (the same byte in three versions was three lines, #24). The merge itself went line by
    line on the bytes, every byte kept."""
    bad: dict[tuple[int, str], list[str]] = {}
    for side, data in versions.items():
        try:
            data.decode()
        except UnicodeDecodeError as e:
            bad.setdefault((e.start, data[e.start : e.start + 1].hex()), []).append(side)
    return [
        Resolution(
            path,
            f"byte {at} of {_held(sides)} (0x{byte})",
            "both",
            "not UTF-8: merged line by line on its bytes, every byte kept",
        )
        for (at, byte), sides in sorted(bad.items())
    ]


def _held(sides: list[str]) -> str:
    """The versions that hold one bad byte: `ours`, `base and theirs`, `every version`."""
    return "every version" if len(sides) == 3 else " and ".join(sides)
