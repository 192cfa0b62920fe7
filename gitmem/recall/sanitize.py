"""Memory text made safe to put in an agent's context: what a person would not see goes.

A teammate's memory is untrusted text. Invisible characters (zero-width, bidi overrides and
isolates, tag characters that spell hidden ASCII, variation selectors, other format controls)
can hide or reorder instructions a reader never sees, and terminal control bytes can drive a
terminal; both are removed. Tabs and newlines stay; nothing else is changed.
"""

from __future__ import annotations

import re
import unicodedata

# C0/C1 controls but tab and newline; DEL
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f"
# bidi embeddings/overrides/isolates and marks, zero-width and joiners, word joiner and the
# invisible operators, BOM, interlinear annotations, tag characters, variation selectors
_INVISIBLE = (
    "\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef"
)
_STRIP = re.compile(f"[{_CONTROLS}{_INVISIBLE}]")


def clean(text: str) -> str:
    """`text` without control and invisible characters (see the module docstring); line ends
    made `\\n`. A format character (category Cf) not listed is removed too."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _STRIP.sub("", text)
    if text.isascii():
        return text
    return "".join(c for c in text if unicodedata.category(c) != "Cf")
