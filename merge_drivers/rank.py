"""Confidence and recency of one version of a memory file, and the side-independent order.

A `Rank` is a plain tuple compared as a whole: (confidence, recency, bytes). Missing confidence
counts as 0.5 (neutral) and missing recency as -inf, so every pair of versions is ordered and
the order never depends on which side is "ours" — the property that makes merges symmetric and,
because "take the greater" is associative, makes replicas converge whatever the merge order.
Reads no files and no clock: timestamps come from the file's frontmatter or the caller. A
frontmatter date is bounded by the version's own commit time (an input, never the clock), so a
version's rank is still a function of that version alone.
"""

from __future__ import annotations

Rank = tuple[float, float, bytes]

NEUTRAL_CONFIDENCE = 0.5
_NO_TIME = float("-inf")
_SCAN_LIMIT = 65536  # frontmatter larger than this is not scanned for rank fields
_RANK_KEYS = (b"confidence", b"modified", b"updated")
# a frontmatter date more than this many seconds after the commit that wrote it is not believed:
# the commit's time ranks that version instead (`updated: 2999` would win every conflict
# forever). A day, for any time zone; `gitmem.core.limits` takes it from here (the merge imports
# nothing of gitmem) (red team 17)
FUTURE_SLACK = 86_400.0


def _days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _digits(s: str, i: int, n: int) -> int | None:
    part = s[i : i + n]
    if len(part) != n or not part.isascii() or not part.isdigit():
        return None
    return int(part)


def parse_time(text: str) -> float | None:
    """Seconds since the epoch of an ISO-8601 date or date-time in any timezone, else None.

    Accepts `2026-07-24`, `2026-07-24T09:03:48.129Z`, `2026-07-24 09:03:48+07:00`, `…+0700`,
    with or without quotes. A date-time without zone is read as UTC.
    """
    s = text.strip().strip("'\"").strip()
    y, mo, d = _digits(s, 0, 4), _digits(s, 5, 2), _digits(s, 8, 2)
    if y is None or mo is None or d is None or s[4:5] != "-" or s[7:8] != "-":
        return None
    if not (1 <= mo <= 12 and 1 <= d <= 31):
        return None
    seconds = _days_from_civil(y, mo, d) * 86400.0
    rest = s[10:]
    if not rest:
        return seconds
    if rest[0] not in "Tt ":
        return None
    h, mi = _digits(rest, 1, 2), _digits(rest, 4, 2)
    if h is None or mi is None or rest[3:4] != ":" or h > 24 or mi > 59:
        return None
    seconds += h * 3600 + mi * 60
    i = 6
    if rest[6:7] == ":":
        sec = _digits(rest, 7, 2)
        if sec is None or sec > 60:
            return None
        seconds += sec
        i = 9
        if rest[9:10] in (".", ","):
            j = 10
            while j < len(rest) and rest[j].isdigit():
                j += 1
            if j > 10:
                seconds += float("0." + rest[10:j])
            i = j
    zone = rest[i:].strip()
    if zone in ("", "Z", "z"):
        return seconds
    if zone[0] not in "+-":
        return None
    zh = _digits(zone, 1, 2)
    zm = _digits(zone, 4, 2) if zone[3:4] == ":" else _digits(zone, 3, 2)
    if zh is None or (len(zone) > 3 and zm is None) or len(zone) not in (3, 5, 6):
        return None
    offset = zh * 3600 + (zm or 0) * 60
    return seconds - offset if zone[0] == "+" else seconds + offset


def parse_confidence(text: str) -> float | None:
    s = text.strip().strip("'\"").strip()
    try:
        value = float(s)
    except ValueError:
        return None
    if value != value or not 0.0 <= value <= 1.0:  # NaN or out of range
        return None
    return value


def frontmatter_block(data: bytes) -> bytes | None:
    """The bytes between the opening and closing `---` lines (`yamlsafe.fence`), or None."""
    if not data.startswith(b"---"):
        return None
    from merge_drivers.yamlsafe import fence

    head = data[: _SCAN_LIMIT * 2].decode("utf-8", "replace")
    span = fence(head)
    if span is None:
        return None
    lines = head.split("\n")
    block = "\n".join(lines[span[0] : span[1]])
    return block.encode() if len(block) <= _SCAN_LIMIT else None


def rank_fields(data: bytes | None) -> tuple[float | None, float | None]:
    """(confidence, recency) from a file's frontmatter, flat or nested under `metadata:`.

    `modified` and `updated` both count for recency; the later wins. A cheap line scan, not a
    YAML parse: it runs for every linked topic file of an index merge.
    """
    if not data:
        return None, None
    block = frontmatter_block(data)
    if block is None:
        return None, None
    confidence: float | None = None
    recency: float | None = None
    for raw in block.split(b"\n"):
        line = raw.strip()
        colon = line.find(b":")
        if colon <= 0 or line[:colon] not in _RANK_KEYS:
            continue
        value = line[colon + 1 :].split(b" #", 1)[0].decode("utf-8", "replace")
        if line[:colon] == b"confidence":
            confidence = parse_confidence(value)
        else:
            t = parse_time(value)
            if t is not None and (recency is None or t > recency):
                recency = t
    return confidence, recency


def rank_of(data: bytes, fields_from: bytes | None, fallback_time: float | None) -> Rank:
    """The rank of one version `data` whose confidence/recency live in `fields_from`."""
    confidence, recency = rank_fields(fields_from)
    if recency is None or (fallback_time is not None and recency > fallback_time + FUTURE_SLACK):
        recency = fallback_time  # no date, or one written ahead of its own commit
    return (
        NEUTRAL_CONFIDENCE if confidence is None else confidence,
        _NO_TIME if recency is None else recency,
        data,
    )


def reason(winner: Rank, loser: Rank) -> str:
    """Why `winner` beat `loser`, in the words a `Gitmem-Resolved:` trailer uses."""
    if winner[0] != loser[0]:
        return "more confident"
    if winner[1] != loser[1]:
        return "newer"
    return "tie-break"
