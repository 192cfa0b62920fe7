"""The seventeenth everyday round end to end (issue 24): real clones and `gitmem sync` (two and
three machines), `git merge` with the drivers both ways. The merges themselves:
tests/merge_drivers/test_everyday_17.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.world import World


@pytest.mark.slow
def test_the_seventeenth_sweep_through_gitmem_sync(world: World) -> None:
    """Every case of the sweep in one sync: two machines that wrote a side each, and a third
    that only syncs; every replica the same bytes, each what a careful human writes."""
    from tests.merge_drivers.test_everyday_17 import SWEEP
    from tests.support.mergesetup import sweep_through_sync

    sweep_through_sync(world, SWEEP)


@pytest.mark.slow
def test_the_seventeenth_sweep_through_git_merge_both_directions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.merge_drivers.test_everyday_17 import SWEEP
    from tests.support.mergesetup import sweep_through_git_merge

    sweep_through_git_merge(tmp_path, monkeypatch, SWEEP)


@pytest.mark.slow
def test_three_machines_through_gitmem_sync(world: World) -> None:
    """The round's fixes with three machines in one sync: one re-saves a CRLF file as LF while
    two edit it; a CJK paragraph edited at three places; an HTML comment's words and an emoji
    next to a rewritten word; a comment moved under a heading while two others edit it."""
    from tests.support.mergesetup import through_sync

    crlf = b"- one\r\n- two\r\n- three\r\n"
    cjk = "デプロイは金曜日の正午に行います。その後タグを付けます。\n".encode()
    comment = b"<!-- reviewed by ana on friday -->\n\n- deploy on friday\n"
    moved = b"<!-- owner: ana -->\n\n## Deploy\n\n- fly deploy\n"
    cases = [
        (
            "crlf.md",
            crlf,
            [crlf.replace(b"\r\n", b"\n"), crlf.replace(b"one", b"one!"), crlf + b"- four\r\n"],
        ),
        (
            "cjk.md",
            cjk,
            [
                cjk.replace("金曜日".encode(), "木曜日".encode()),
                cjk.replace("正午".encode(), "午後".encode()),
                cjk.replace("タグ".encode(), "リリースタグ".encode()),
            ],
        ),
        (
            "comment.md",
            comment,
            [
                comment.replace(b"by ana", b"by bo"),
                comment.replace(b"on friday -->", b"on monday -->"),
                comment.replace(b"- deploy on friday", "- deploy on thursday 🚀".encode()),
            ],
        ),
        (
            "moved.md",
            moved,
            [
                b"## Deploy\n\n<!-- owner: ana -->\n\n- fly deploy\n",
                moved.replace(b"ana", b"bo"),
                moved.replace(b"fly deploy", b"fly deploy --now"),
            ],
        ),
    ]
    assert through_sync(world, cases, 3) == [
        b"- one!\n- two\n- three\n- four\n",
        "デプロイは木曜日の午後に行います。その後リリースタグを付けます。\n".encode(),
        "<!-- reviewed by bo on monday -->\n\n- deploy on thursday 🚀\n".encode(),
        b"## Deploy\n\n<!-- owner: bo -->\n\n- fly deploy --now\n",
    ]
