"""Round 21 (issue 24): renames, splits and moves decided together — bytes in, bytes out, both
directions, merged again with either side; multi-file cases through `gitmem.merge.tree`, three
machines in every order."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitmem.gitstore import Repository
from merge_drivers import merge_file
from tests.merge_drivers.test_topic_20 import BASE, IDX, NEW, OLD, RENAMED, TTL, VB, merged
from tests.merge_drivers.test_topic_20 import repo as repo  # the fixture
from tests.support.gitmerge import (
    MEMORY,
    TOPICS_AND_INDEX,
    commit_all,
    driver_repo,
    git,
    merged_both_directions,
)
from tests.support.world import write_files

# --- two machines rename one topic file to two names ------------------------------------------


def _renamed_to(name: str, title: str, body: str = TTL) -> dict[str, str]:
    return {
        "MEMORY.md": IDX.replace(f"[seo webhookLogs TTL]({OLD})", f"[{title}]({name})"),
        name: body,
        "verify-branch.md": VB + f"\nFirst read [the ledger]({name}).\n",
    }


BASE_LINKED = {
    "MEMORY.md": IDX,
    OLD: TTL,
    "verify-branch.md": VB + f"\nFirst read [the ledger]({OLD}).\n",
}


def test_two_different_renames_of_one_file_are_decided_once(repo: Repository) -> None:
    """One side named it `webhook-ledger.md` and edited a sentence, the other `dedup-ttl.md`
    and edited another: one file, at the first name in sort order, both edits in it, indexed
    once under the title its renamer gave it, every link naming it (before: both files,
    `dedup-ttl.md` without an index line)."""
    a = _renamed_to(
        "webhook-ledger.md", "webhook ledger", TTL.replace("30 days (", "thirty days (")
    )
    b = _renamed_to("dedup-ttl.md", "dedup TTL", TTL.replace("is not proof", "is never proof"))
    out, told = merged(repo, BASE_LINKED, a, b)
    both = TTL.replace("30 days (", "thirty days (").replace("is not proof", "is never proof")
    assert set(out) == {"MEMORY.md", "dedup-ttl.md", "verify-branch.md"}
    assert out["dedup-ttl.md"] == both
    assert out["MEMORY.md"] == IDX.replace(
        f"[seo webhookLogs TTL]({OLD})", "[dedup TTL](dedup-ttl.md)"
    )
    assert out["verify-branch.md"] == VB + "\nFirst read [the ledger](dedup-ttl.md).\n"
    assert (
        f"m/{OLD} renamed to m/webhook-ledger.md and to m/dedup-ttl.md: kept once as m/dedup-ttl.md"
        in told
    )


def test_two_renames_and_a_third_machines_edit_converge(repo: Repository) -> None:
    """Three machines: two renames and an edit under the old name — every order the same
    files, the edit in the one file kept."""
    a = _renamed_to("webhook-ledger.md", "webhook ledger")
    b = _renamed_to("dedup-ttl.md", "dedup TTL")
    c = dict(BASE_LINKED, **{OLD: TTL + "- staging4 keeps 7 days\n"})
    out, _ = merged(repo, BASE_LINKED, a, b, c)
    assert set(out) == {"MEMORY.md", "dedup-ttl.md", "verify-branch.md"}
    assert out["dedup-ttl.md"] == TTL + "- staging4 keeps 7 days\n"
    assert out["MEMORY.md"].count("(dedup-ttl.md)") == 1


# --- the lone MEMORY.md git driver: a topic renamed on one side, its hook edited on the other ---

HOOK_EDITED = {
    "MEMORY.md": IDX.replace("internal webhook-dedup ledger", "webhook-dedup ledger"),
    OLD: TTL.replace("is not proof", "is never proof"),
    "verify-branch.md": VB,
}


def _driver_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Base on main's parent; main renames the topic (file, entry title and link), `left`
    edits its hook and a sentence."""
    repo = driver_repo(tmp_path, monkeypatch, TOPICS_AND_INDEX)
    mem = repo / MEMORY

    def write(files: dict[str, str]) -> None:
        for p in mem.glob("*"):
            p.unlink()
        write_files(mem, files)

    write(BASE)
    commit_all(repo, "base")
    git(repo, "branch", "left")
    write(RENAMED)
    commit_all(repo, "rename")
    git(repo, "checkout", "-q", "left")
    write(HOOK_EDITED)
    commit_all(repo, "edit")
    return repo


def test_git_merge_with_the_drivers_follows_a_rename_both_directions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`git merge` either way: git carries the sentence to the new name (its rename
    detection), the index driver reads both commits (GITHEAD_) and sees the file moved, so the
    index has one entry at the new name with the new title and the edited hook — what `gitmem
    sync` gives (test_topic_20). Before: the renamed entry with the old hook and the old entry,
    dangling, with the new one."""
    repo = _driver_repo(tmp_path, monkeypatch)
    mem = repo / MEMORY

    def read() -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in sorted(mem.iterdir())}

    out = merged_both_directions(repo, read)
    assert (
        out[0]
        == out[1]
        == {
            "MEMORY.md": (
                "# Memory\n\n"
                f"- [seo webhook dedup ledger]({NEW}) — webhook-dedup ledger, 30-day TTL\n"
                "- [Verify the branch first](verify-branch.md) — pin the tree before ANY code claim\n"
            ).encode(),
            NEW: TTL.replace("is not proof", "is never proof").encode(),
            "verify-branch.md": VB.encode(),
        }
    )


def test_the_driver_without_theirs_keeps_the_edited_hook_on_the_old_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When git does not say which commit is "theirs" (a single cherry-pick, merge-tree), the
    driver has only the three index versions: a rename is not known from a deletion and a new
    entry, so both entries stand — the edited hook is never lost, on the old link (which
    dangles once git renamed the file). Both directions give the same bytes."""
    from gitmem.merge.gitdriver import main

    files = [tmp_path / x for x in "OAB"]
    monkeypatch.chdir(tmp_path)
    outs = []
    for a, b in ((RENAMED, HOOK_EDITED), (HOOK_EDITED, RENAMED)):
        for name, data in zip(files, (IDX, a["MEMORY.md"], b["MEMORY.md"]), strict=True):
            name.write_text(data)
        assert main([*map(str, files), "7", f"{MEMORY}/MEMORY.md"]) == 0
        outs.append(files[1].read_text())
    assert outs[0] == outs[1]
    assert f"[seo webhook dedup ledger]({NEW})" in outs[0]
    assert f"[seo webhookLogs TTL]({OLD}) — webhook-dedup ledger, 30-day TTL" in outs[0]


# --- a bullet split in two on one side, a word written inside the split clause on the other ---

NOTES = ".claude/memory/notes.md"
FM = b"---\nname: build\ndescription: How the project builds\ntype: project\n---\n\n"


def _two_way(base: bytes, a: bytes, b: bytes) -> bytes:
    """Merged both directions (the same bytes) and merged again with either side (no change)."""
    out = merge_file(NOTES, FM + base, FM + a, FM + b).data
    assert out is not None and merge_file(NOTES, FM + base, FM + b, FM + a).data == out
    for side in (a, b):
        assert merge_file(NOTES, FM + base, out, FM + side).data == out
        assert merge_file(NOTES, FM + base, FM + side, out).data == out
    return out[len(FM) :]


@pytest.mark.parametrize(
    ("split", "edited", "expected"),
    [
        (  # a word before the word the split re-punctuated (`make;` → `make.`)
            b"- Build with make.\n- Test with pytest.\n- Ship.\n",
            b"- Build with GNU make; test with pytest.\n- Ship.\n",
            b"- Build with GNU make.\n- Test with pytest.\n- Ship.\n",
        ),
        (  # a word after the word the split re-cased (`test` → `Test`), its clause's first
            b"- Build with make.\n- Test with pytest.\n- Ship.\n",
            b"- Build with make; test with pytest -n 2.\n- Ship.\n",
            b"- Build with make.\n- Test with pytest -n 2.\n- Ship.\n",
        ),
        (  # a split at a comma, a word inserted before it
            b"- Cache the wheels.\n- Pin the lock file.\n",
            b"- Cache the Python wheels, pin the lock file.\n",
            b"- Cache the Python wheels.\n- Pin the lock file.\n",
        ),
    ],
)
def test_a_bullet_split_in_two_keeps_a_word_written_inside_it(
    split: bytes, edited: bytes, expected: bytes
) -> None:
    """Before: `GNU` written right before the word the split changed clashed at word grain
    (punctuation is part of the word), and the split won, the word lost (`tie-break`)."""
    base = edited.replace(b"GNU ", b"").replace(b" -n 2", b"").replace(b"Python ", b"")
    assert _two_way(base, split, edited) == expected


def test_a_word_re_punctuated_by_both_and_a_sentence_each_stays_one_sides_sentence() -> None:
    """The neighbour the rule must not take: both sides dropped the period after `[a][1]` and
    wrote different text after it — one phrase edited twice (a tie-break), not two sentences
    after a sentence (round 17's acceptable case, unchanged)."""
    out = _two_way(
        b"See [a][1].\n\n[1]: https://a.example\n",
        b"See [a][1] and [b][2].\n\n[1]: https://a.example\n[2]: https://b.example\n",
        b"See [a][1] or [c][3].\n\n[1]: https://a.example\n[3]: https://c.example\n",
    )
    assert out.startswith(b"See [a][1] or [c][3].\n\n") and out.count(b"[a][1]") == 1


# --- lines appended after a line the other side moved to the end of the file -----------------

SHARED = "shared.md"
LINES = [b"e01 line 0\n", b"e02 line 4\n", b"e03 line 8\n", b"e04 line 12\n", b"e05 line 16\n"]


def test_lines_appended_at_the_end_stay_after_a_line_the_other_side_moved_there() -> None:
    """One side moved `e02 line 4` to the end, the other appended two lines: the appends stay
    at the end, after the moved line (before: `… 16, 50, 51, 4`, the appends before it)."""
    z = b"".join(LINES)
    moved = b"".join(LINES[:1] + LINES[2:] + LINES[1:2])
    appended = z + b"e02 line 50\ne03 line 51\n"
    out = merge_file(SHARED, z, moved, appended).data
    assert out == moved + b"e02 line 50\ne03 line 51\n"
    assert merge_file(SHARED, z, appended, moved).data == out
    for side in (moved, appended):
        assert merge_file(SHARED, z, out, side).data == out
        assert merge_file(SHARED, z, side, out).data == out


def test_both_sides_reorder_and_append_at_the_end_both_appends_end_the_file() -> None:
    """Each side moved a line its own way and appended one at its end: both appends after
    every line all three hold (before: one append stood between two moved lines)."""
    z = b"".join(LINES)
    a = b"".join([LINES[0], LINES[4], LINES[1], LINES[2], LINES[3]]) + b"e01 line 60\n"
    b = b"".join([LINES[0], LINES[1], LINES[3], LINES[4], LINES[2]]) + b"e02 line 52\n"
    out = merge_file(SHARED, z, a, b).data
    assert out is not None and out == merge_file(SHARED, z, b, a).data
    tail = out.splitlines(keepends=True)[-2:]
    assert sorted(tail) == [b"e01 line 60\n", b"e02 line 52\n"]
    for side in (a, b):
        assert merge_file(SHARED, z, out, side).data == out


def test_two_sides_each_deleting_one_memory_and_writing_their_own_keep_both(
    repo: Repository,
) -> None:
    """Both sides deleted one memory and each wrote a new one from the same template: rename
    detection pairs each delete with its add, and round 21 decided the two "renames" once —
    one memory's name, description and body lost to the other's (the concurrency soak, round
    22: `c04r0-0.md renamed to c02r2-0.md and to c01r1-0.md: kept once`). Three different
    `name:` fields are three memories: both new files kept, the old one gone."""

    def topic(key: str, who: str) -> str:
        return (
            f"---\nname: {key}\ndescription: memory {key} from {who}\ntype: project\n---\n\n"
            f"Body of {key}, written by {who}.\nIt says what {who} learned.\n"
        )

    def index(*keys: str) -> str:
        return "# Memory\n\n" + "".join(f"- [{k}]({k}.md) — added by {k}\n" for k in keys)

    base = {"MEMORY.md": index("c04r0-0"), "c04r0-0.md": topic("c04r0-0", "c04")}
    a = {"MEMORY.md": index("c02r2-0"), "c02r2-0.md": topic("c02r2-0", "c02")}
    b = {"MEMORY.md": index("c01r1-0"), "c01r1-0.md": topic("c01r1-0", "c01")}
    out, told = merged(repo, base, a, b)
    assert out["c02r2-0.md"] == a["c02r2-0.md"] and out["c01r1-0.md"] == b["c01r1-0.md"]
    assert "c04r0-0.md" not in out
    assert (
        "[c02r2-0](c02r2-0.md)" in out["MEMORY.md"] and "[c01r1-0](c01r1-0.md)" in out["MEMORY.md"]
    )
    assert not [t for t in told if "kept once" in t], told


def test_two_renames_that_quote_the_name_differently_are_still_one_memory(
    repo: Repository,
) -> None:
    """The `name:` fields are compared as the frontmatter parser reads them: `'x'`, `"x"` and
    `x` are one name, so two renames that each re-quoted it are still decided once (compared
    as raw bytes, the three spellings read as three memories and both files stayed)."""
    single = TTL.replace("name: seo-webhooklogs-ttl", "name: 'seo-webhooklogs-ttl'")
    double = TTL.replace("name: seo-webhooklogs-ttl", 'name: "seo-webhooklogs-ttl"')
    out, told = merged(
        repo,
        BASE_LINKED,
        _renamed_to("webhook-ledger.md", "webhook ledger", single),
        _renamed_to("dedup-ttl.md", "dedup TTL", double),
    )
    assert set(out) == {"MEMORY.md", "dedup-ttl.md", "verify-branch.md"}
    assert any("kept once as m/dedup-ttl.md" in t for t in told), told
