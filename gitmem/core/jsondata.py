"""JSON read from anything not ours alone (a hook's stdin, a settings file of the repository, a
state file a `.git` from an archive may hold): `json.loads`, with nesting too deep for it (a
`RecursionError`, which no `except ValueError` catches: exit 4 from a hook that must never
fail) reported as the decode error it is (red team 17)."""

from __future__ import annotations

import json
from typing import Any


def loads(data: str | bytes | bytearray) -> Any:
    try:
        return json.loads(data)
    except RecursionError:
        raise json.JSONDecodeError("nested too deep", "", 0) from None
