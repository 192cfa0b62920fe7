"""Round 20 (issue 24): the parts that belong together, decided together — bytes in, bytes out,
both directions, merged again with either side, three machines in every order.

A topic file renamed on one side while the other edits or links it: before the folder merge,
every file of the folder links the new name in base, ours and theirs (`tree._follow_renames`),
so the index entry comes out once at the new name, the other side's edits land in the renamed
file, and no link is left dangling."""

from __future__ import annotations

import itertools
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from gitmem.gitstore import Repository
from gitmem.merge.tree import merge_trees

IDX = (
    "# Memory\n\n"
    "- [seo webhookLogs TTL](seo-webhooklogs-ttl.md) — internal webhook-dedup ledger, 30-day TTL\n"
    "- [Verify the branch first](verify-branch.md) — pin the tree before ANY code claim\n"
)
TTL = (
    "---\nname: seo-webhooklogs-ttl\ndescription: internal webhook-dedup ledger, 30-day TTL\n"
    "type: project\n---\n\nwebhookLogs expire after 30 days (ttlPolicies.js:29-31).\n\n"
    "Log absence is not proof the webhook never fired.\n"
)
VB = (
    "---\nname: verify-branch\ndescription: pin the tree before ANY code claim\ntype: feedback\n"
    "---\n\nMeasure the distance to the target tree first.\n"
)
BASE = {"MEMORY.md": IDX, "seo-webhooklogs-ttl.md": TTL, "verify-branch.md": VB}
OLD, NEW = "seo-webhooklogs-ttl.md", "seo-webhook-ledger.md"
# the renamer: the file under a new name, the entry's title and link with it
RENAMED = {
    "MEMORY.md": IDX.replace(f"[seo webhookLogs TTL]({OLD})", f"[seo webhook dedup ledger]({NEW})"),
    NEW: TTL,
    "verify-branch.md": VB,
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repository:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    return Repository(tmp_path / "r")


def merged(
    repo: Repository, base: Mapping[str, str], *sides: Mapping[str, str]
) -> tuple[dict[str, str], list[str]]:
    """The folder merged as sync merges it: two sides both directions and merged again with
    either (the same files), three in every order (the same files). The files and the first
    merge's resolutions."""

    def tree(files: Mapping[str, str]) -> dict[str, str]:
        return {f"m/{p}": repo.write_blob(d.encode()) for p, d in files.items()}

    z = tree(base)
    ss = [tree(s) for s in sides]
    first = merge_trees(repo, z, ss[0], ss[1])
    out = first.files
    if len(ss) == 2:
        assert merge_trees(repo, z, ss[1], ss[0]).files == out  # symmetric
        for s in ss:  # idempotent
            assert merge_trees(repo, z, out, s).files == out
            assert merge_trees(repo, z, s, out).files == out
    else:
        outs = [
            merge_trees(repo, z, merge_trees(repo, z, ss[i], ss[j]).files, ss[k]).files
            for i, j, k in itertools.permutations(range(3))
        ]
        assert all(o == outs[0] for o in outs), outs
        out = outs[0]
    files = {p.removeprefix("m/"): repo.read_blob(o).decode() for p, o in out.items()}
    return files, first.resolutions


def test_a_topic_renamed_with_its_entry_vs_its_hook_and_body_edited_is_one_entry(
    repo: Repository,
) -> None:
    """Round 19's not-signed case through the folder merge: the renamer changed the entry's
    title and link, the other side its hook and a sentence of the file: one entry, at the new
    name, with the new title and the new hook; the sentence in the renamed file."""
    edited = {
        "MEMORY.md": IDX.replace("internal webhook-dedup ledger", "webhook-dedup ledger"),
        OLD: TTL.replace("is not proof", "is never proof"),
        "verify-branch.md": VB,
    }
    out, told = merged(repo, BASE, RENAMED, edited)
    assert out == {
        "MEMORY.md": (
            "# Memory\n\n"
            f"- [seo webhook dedup ledger]({NEW}) — webhook-dedup ledger, 30-day TTL\n"
            "- [Verify the branch first](verify-branch.md) — pin the tree before ANY code claim\n"
        ),
        NEW: TTL.replace("is not proof", "is never proof"),
        "verify-branch.md": VB,
    }
    assert f"m/{OLD} renamed to m/{NEW}: edits carried" in told
    assert f"m/MEMORY.md: links follow the rename {OLD} → {NEW}" in told


def test_a_link_to_the_old_name_written_or_left_anywhere_follows_the_rename(
    repo: Repository,
) -> None:
    """The other side wrote a link to the old name in another topic file (inline, with an
    anchor, and as a reference definition); the renamer left one of its own files linking the
    old name: every link names the new file."""
    renamer = dict(RENAMED, **{"verify-branch.md": VB + f"\nFirst read [the ledger]({OLD}).\n"})
    base = dict(BASE, **{"verify-branch.md": VB + f"\nFirst read [the ledger]({OLD}).\n"})
    linker = dict(
        base,
        **{
            "verify-branch.md": VB
            + f"\nFirst read [the ledger]({OLD}).\nThen [its TTL](./{OLD}#ttl) and [TTL][1].\n\n"
            f"[1]: {OLD}\n"
        },
    )
    out, _ = merged(repo, base, renamer, linker)
    assert out["verify-branch.md"] == VB + (
        f"\nFirst read [the ledger]({NEW}).\nThen [its TTL]({NEW}#ttl) and [TTL][1].\n\n[1]: {NEW}\n"
    )
    assert OLD not in "".join(out.values()) and set(out) == {"MEMORY.md", NEW, "verify-branch.md"}


def test_a_rename_another_machines_index_edit_and_a_third_machines_body_edit_converge(
    repo: Repository,
) -> None:
    """Three machines: the rename, a hook edited on the other entry with an entry appended, a
    line added to the renamed file under its old name: every order the same files, each edit
    once."""
    appended = "- [Redis noise](redis-noise.md) — client budget, not the server\n"
    second = {
        "MEMORY.md": IDX.replace("ANY code claim", "any claim") + appended,
        OLD: TTL,
        "verify-branch.md": VB,
        "redis-noise.md": "---\nname: redis-noise\n---\n\nSee [the ledger](seo-webhooklogs-ttl.md).\n",
    }
    third = dict(BASE, **{OLD: TTL + "- staging4 keeps 7 days\n"})
    out, _ = merged(repo, BASE, RENAMED, second, third)
    assert out == {
        "MEMORY.md": (
            "# Memory\n\n"
            f"- [seo webhook dedup ledger]({NEW}) — internal webhook-dedup ledger, 30-day TTL\n"
            "- [Verify the branch first](verify-branch.md) — pin the tree before any claim\n"
            + appended
        ),
        NEW: TTL + "- staging4 keeps 7 days\n",
        "verify-branch.md": VB,
        "redis-noise.md": f"---\nname: redis-noise\n---\n\nSee [the ledger]({NEW}).\n",
    }


def test_a_rename_both_sides_made_alike_merges_the_new_name_on_the_old_names_base(
    repo: Repository,
) -> None:
    """Both renamed it the same way and each edited another line: the file merges 3-way at
    the new name (before: two files added, merged on an empty base, both versions of the
    body one after the other)."""
    one = dict(RENAMED, **{NEW: TTL.replace("30 days (", "thirty days (")})
    two = dict(RENAMED, **{NEW: TTL.replace("is not proof", "is never proof")})
    out, _ = merged(repo, BASE, one, two)
    assert out[NEW] == TTL.replace("30 days (", "thirty days (").replace(
        "is not proof", "is never proof"
    )
    assert out["MEMORY.md"] == RENAMED["MEMORY.md"]


def test_two_different_renames_of_one_file_are_left_to_the_plain_rules(repo: Repository) -> None:
    """One side named it `a.md`, the other `b.md`: which name a link means is not known, so
    no link is rewritten: both files stand (nothing lost); the entry is one, its link the
    greater name's (the index merge's tie-break) — `a.md` is left without an index line."""
    a = {
        "MEMORY.md": IDX.replace(f"({OLD})", "(a.md)"),
        "a.md": TTL,
        "verify-branch.md": VB,
    }
    b = {
        "MEMORY.md": IDX.replace(f"({OLD})", "(b.md)"),
        "b.md": TTL,
        "verify-branch.md": VB,
    }
    out, told = merged(repo, BASE, a, b)
    assert out["a.md"] == out["b.md"] == TTL and OLD not in out
    assert "(a.md)" not in out["MEMORY.md"] and out["MEMORY.md"].count("(b.md)") == 1
    assert not any("links follow" in r for r in told)
