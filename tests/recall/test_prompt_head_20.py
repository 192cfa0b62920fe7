"""Round 20 (#23): a prompt over the hooks' 1 MiB bound (`core/fileread.read_stdin`) got no
recall at all — its JSON, cut at the bound, read as none. The hook now reads the head of the
prompt (`recall/prompt.cut_event`): its first words are all the search reads."""

from __future__ import annotations

import json
from pathlib import Path

from gitmem.core.limits import MAX_PAYLOAD
from gitmem.recall.prompt import cut_event
from tests.recall.test_prompt_hook_19 import PROMPTS, corpus, fixed, hook
from tests.support.world import World

__all__ = ["fixed"]  # the fixture, taken from round 19's tests


def test_a_prompt_over_the_bound_is_answered_from_its_head(fixed: tuple[World, Path]) -> None:
    world, clone = fixed
    corpus(world, clone)
    short = hook(world, clone, PROMPTS[0])
    assert "auto/deploy.md" in short
    # 2 MiB of a pasted log after the question: cut at the bound, the question still read
    long = PROMPTS[0] + " " + "log line 12:00:01 ok é\n" * (2 * MAX_PAYLOAD // 24)
    assert len(long.encode()) > 2 * MAX_PAYLOAD
    assert hook(world, clone, long) == short


def test_a_cut_event_keeps_the_whole_keys_and_the_prompts_head() -> None:
    """Cut at every place in and around the prompt (escapes, a surrogate pair, multi-byte
    characters): the keys that came whole are kept, and the prompt read is a prefix of the
    real one — never more, never a wrong character."""
    prompt = 'deploy "the" gantry\\ now\n\ttab \u00e9t\u00e9 \U0001f680 end \u2028 \x01'
    event = {"cwd": "/p", "hook_event_name": "UserPromptSubmit", "prompt": prompt, "n": [1]}
    for ascii_only in (True, False):
        text = json.dumps(event, ensure_ascii=ascii_only)
        start = text.index('"prompt"')
        for cut in range(start, len(text)):
            got = cut_event(text[:cut])
            assert got.get("cwd") == "/p" and got.get("hook_event_name") == "UserPromptSubmit"
            head = got.get("prompt", "")
            assert isinstance(head, str) and prompt.startswith(head), (cut, head)
        assert cut_event(text) == event
        # the prompt first, as json.dumps of a dict ordered so writes it: only its head
        first = json.dumps({"prompt": prompt, "cwd": "/p"}, ensure_ascii=ascii_only)
        assert cut_event(first[:30]) == {"prompt": json.loads(first[:30] + '"}')["prompt"]}
    for broken in (
        "",
        "[1, 2",
        '{"a" 1',
        '{"prompt": 12',
        '{"prompt": ["a',
        '{"x": ' + "[" * 99_999,
    ):
        assert not isinstance(cut_event(broken).get("prompt"), str), broken
