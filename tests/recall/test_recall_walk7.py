"""Recall walked as its users live it (round 7): each class found, fixed and kept fixed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.recall.support import ids, query
from tests.support.world import World, write_files

# a real memory's text (8nk9567f6c-prog/bianju-workbench) and Japanese and Korean runs
CJK_BODY = "新工作流——每10集一卡，先验收再大纲再正文\n日本語のメモを残す\n배포를 화요일에 한다\n"


@pytest.fixture
def cjk(project: tuple[World, Path]) -> tuple[World, Path]:
    world, clone = project
    write_files(
        world.scope_path(clone, "team"),
        {
            "workflow.md": "---\nname: 工作流\ntype: feedback\n---\n" + CJK_BODY,
            "other.md": "---\nname: other\ntype: project\n---\n工作 and 流程 apart\n",
        },
    )
    return world, clone


def test_a_cjk_word_inside_a_longer_run_is_found(cjk: tuple[World, Path]) -> None:
    """CLASS: scripts written without spaces (Chinese, Japanese, Korean's particles). FTS5's
    unicode61 took `新工作流` as one token: `工作流` found nothing. Every contiguous piece of a
    run is found now, and characters that are not neighbours are not a match."""
    world, clone = cjk
    run = "先验收再大纲再正文"
    pieces = {run[i:j] for i in range(len(run)) for j in range(i + 2, min(len(run), i + 4) + 1)}
    for piece in [*sorted(pieces), "工作流", "一卡", "メモ", "日本語", "배포"]:
        assert "team/workflow.md" in ids(query(world, clone, "--search", piece)), piece
    # 工作 and 流 are in other.md, but never as 工作流: a phrase, not a bag of characters
    assert ids(query(world, clone, "--search", "工作流")) == ["team/workflow.md"]
    assert ids(query(world, clone, "--search", "收验")) == []
    # mixed with a Latin word, and with digits inside the run
    assert ids(query(world, clone, "--search", "每10集 先验收")) == ["team/workflow.md"]


def test_a_cjk_prompt_recalls_its_memory(cjk: tuple[World, Path]) -> None:
    """The UserPromptSubmit hook: a prompt in Chinese is one run of characters with no space;
    its words (two characters are a word) find the memory that holds them."""
    world, clone = cjk
    out = world.ok("-C", str(clone), "recall", "--prompt", "下一卡的验收流程是什么？")
    assert "team/workflow.md" in out
    out = world.ok("-C", str(clone), "recall", "--prompt", "大纲")
    assert "team/workflow.md" in out
