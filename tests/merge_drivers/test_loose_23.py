"""Round 23's loose ends in the merge (#24): the "one character is one word" rule defined once,
and an index entry naming its topic by a plain file name renamed beside a hook edit."""

from __future__ import annotations

import re

import pytest

from merge_drivers import fine, indexpairs
from tests.merge_drivers.test_everyday_20 import sub
from tests.support.sweep import check_case, in_every_order

I = ".claude/memory/MEMORY.md"  # noqa: E741


def test_one_definition_of_the_scripts_written_without_spaces_reads_bytes_and_text_alike() -> None:
    """`fine` reads bytes, the index merge text: both from `fine.NO_SPACES_RANGES`, so every
    character is a word of its own in both or in neither (two copies drifted apart before)."""
    assert indexpairs._WORD.pattern == f"[{fine.NO_SPACES}]|[^\\s{fine.NO_SPACES}]+"
    as_bytes = re.compile(b"(?:" + fine._NO_SPACES + b")")
    as_text = re.compile(f"[{fine.NO_SPACES}]")
    for cp in range(0x80, 0x10000):
        if 0xD800 <= cp < 0xE000:
            continue
        c = chr(cp)
        assert bool(as_bytes.fullmatch(c.encode())) == bool(as_text.fullmatch(c)), hex(cp)
    assert as_text.fullmatch("中") and as_text.fullmatch("ก") and as_text.fullmatch("Ａ")
    assert not as_text.fullmatch("é") and not as_bytes.fullmatch("é".encode())
    # a range that is not aligned on lead bytes is read as exactly that range
    odd = re.compile(b"(?:" + fine.utf8_alternatives("\u0e35".encode(), "\u3010".encode()) + b")")
    for cp in (0x0E34, 0x0E35, 0x0FFF, 0x1000, 0x2FFF, 0x3010, 0x3011):
        assert bool(odd.fullmatch(chr(cp).encode())) == (0x0E35 <= cp <= 0x3010), hex(cp)


INDEX = """# Project memory

- {a} hardware, boot model, address map, and Phase 1 status.
- {b} the verified build, sign, and flash playbook plus hard won gotchas.
"""
# every way an entry names its file by a plain name (bold: d1670f43; these two were left)
FORMS = {
    "backtick and colon": ("`{}`:", "`{}`:"),
    "plain name and dash": ("{} —", "{} —"),
    "backtick and dash": ("`{}` —", "`{}` —"),
    "bold": ("**{}** —", "**{}** —"),
}


def _index(form: str, overview: str) -> bytes:
    a, b = FORMS[form]
    return INDEX.format(a=a.format(overview), b=b.format("learnings.md")).encode()


@pytest.mark.parametrize("form", sorted(FORMS))
def test_an_entry_named_by_its_file_renamed_beside_a_hook_edit_is_one_line(form: str) -> None:
    """`` `api.md`: hook `` and `api.md — hook` renamed on one side, a word of the hook edited
    on the other: one line with the new name and the edit, both directions, idempotent (it
    was two lines: the new name, and the old one with the edit)."""
    base = _index(form, "project_overview.md")
    renamed = _index(form, "overview.md")
    edit = ("Phase 1 status", "Phase 2 status")
    check_case((I, base, renamed, sub(base, edit), sub(renamed, edit)))


@pytest.mark.parametrize("form", ["backtick and colon", "plain name and dash"])
def test_a_plain_name_renamed_and_two_hook_words_on_three_machines_is_one_line(form: str) -> None:
    base = _index(form, "project_overview.md")
    got = in_every_order(
        I,
        base,
        _index(form, "overview.md"),
        sub(base, ("Phase 1 status", "Phase 2 status")),
        sub(base, ("boot model", "boot ROM model")),
    )
    assert got == sub(
        _index(form, "overview.md"),
        ("Phase 1 status", "Phase 2 status"),
        ("boot model", "boot ROM model"),
    )
