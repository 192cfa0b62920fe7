"""Round 21 (issue 24): renames, splits and moves decided together — bytes in, bytes out, both
directions, merged again with either side; multi-file cases through `gitmem.merge.tree`, three
machines in every order."""

from __future__ import annotations

from gitmem.gitstore import Repository
from tests.merge_drivers.test_topic_20 import IDX, OLD, TTL, VB, merged
from tests.merge_drivers.test_topic_20 import repo as repo  # the fixture

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
