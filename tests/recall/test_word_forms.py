"""query: a word finds its other forms, though FTS5's porter stemmer parts them (`deploy` is
indexed `deploi`, `deployment` `deploy`: neither prefix found the other)."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.recall.support import corpus_root, ids, lay_out_corpus, query
from tests.support.world import World, write_files

PAIRS = [
    ("deploy", "deployment"),
    ("test", "testing"),
    ("migrate", "migration"),
    ("configure", "configuration"),
    ("verify", "verification"),
    ("deploy", "deployments"),
]


@pytest.mark.parametrize(("one", "other"), PAIRS)
def test_each_form_finds_the_memory_holding_the_other(
    project: tuple[World, Path], one: str, other: str
) -> None:
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(
        auto,
        {
            "a.md": f"# A\n\nwe {one} on fridays\n",
            "b.md": f"# B\n\nthe {other} runbook\n",
            "c.md": "# C\n\nnothing of the kind: deplore, attest, immigrant, verily\n",
        },
    )
    for word in (one, other):
        found = ids(query(world, clone, "--search", word))
        assert sorted(found) == ["auto/a.md", "auto/b.md"], word
        # not only as the last (prefix) word: a word before another too
        found = ids(query(world, clone, "--search", f"{word} fridays"))
        assert found == ["auto/a.md"], word


@pytest.mark.skipif(corpus_root() is None, reason="the real corpus is not on this machine")
def test_word_forms_on_the_real_corpus_keep_the_obvious_file_first(
    project: tuple[World, Path],
) -> None:
    world, clone = project
    auto = world.scope_path(clone, "auto")
    lay_out_corpus(auto)
    deploy = ids(query(world, clone, "--search", "deploy"))
    deployment = ids(query(world, clone, "--search", "deployment"))
    assert deploy and deployment
    # each form finds what the other finds (the same memories, the forms being one word)
    assert set(deploy) == set(deployment)
    assert "gotchas" in " ".join(ids(query(world, clone, "--search", "gotchas"))[:1])


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    stem=st.text(string.ascii_lowercase, min_size=3, max_size=9),
    end=st.sampled_from(["", "y", "ies", "ied", "ment", "ing", "ation", "ed", "s", "er"]),
)
def test_a_word_always_finds_the_memory_that_holds_it(
    project: tuple[World, Path], stem: str, end: str
) -> None:
    world, clone = project
    auto = world.scope_path(clone, "auto")
    word = stem + end
    write_files(auto, {"held.md": f"# Held\n\nit says {word} here\n"})
    assert "auto/held.md" in ids(query(world, clone, "--search", word))
    assert "auto/held.md" in ids(query(world, clone, "--search", f"{word} here"))
