"""Round 21: what a user looking for a memory gets — an index file is no answer of its own (the
memories its found lines point to are, once), and the ranking judged on the real corpus: the
memory a user expects first for what they would type (docs/recall.md, round 21)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from gitmem.recall.query import Hit, Query, run
from tests.recall.support import corpus_root, ids, query
from tests.support.world import World, write_files

# the real corpus's memory folders with an index and topic files, laid out as each repository
# keeps them (its own file names: the index's links resolve)
REPOS = (
    "knacklabs__gantry",
    "tn22180__second-brain",
    "8nk9567f6c-prog__bianju-workbench",
    "VytCepas__projects-orchestrator",
    "Adam-S-Daniel__agentskills",
)
needs_corpus = pytest.mark.skipif(corpus_root() is None, reason="the real corpus is not here")


def lay_out(folder: Path) -> None:
    root = corpus_root()
    assert root is not None
    for repo in REPOS:
        for source in sorted((root / repo).iterdir()):
            name = source.name.split("@", 1)[0].rsplit("__", 1)[-1]
            if name.endswith(".md") and not source.name.endswith("@first-sync-2026-07-15"):
                (folder / repo).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, folder / repo / name)


class Searcher:
    """`gitmem query --search` in this process (a process a query would cost ~6×), under the
    world's HOME, on the real files."""

    def __init__(self, world: World, clone: Path) -> None:
        from gitmem.gitstore import Repository
        from gitmem.project.scopes import open_project
        from gitmem.recall.searchindex import locate

        self.world, self.clone = world, clone
        self.opener = lambda: open_project(Repository(str(clone)))
        with self.env():
            self.place = locate(str(clone), None, self.opener)

    def env(self) -> _Env:
        return _Env(self.world.env)

    def __call__(self, text: str) -> list[str]:
        with self.env():
            return [h.id for h in self.hits(text)]

    def hits(self, text: str) -> list[Hit]:
        return run(self.place, Query(search=text), self.opener)


class _Env:
    def __init__(self, env: dict[str, str]) -> None:
        self.env, self.saved = env, dict(os.environ)

    def __enter__(self) -> None:
        os.environ.clear()
        os.environ.update(self.env)

    def __exit__(self, *_: object) -> None:
        os.environ.clear()
        os.environ.update(self.saved)


@pytest.fixture
def corpus(project: tuple[World, Path]) -> Iterator[Searcher]:
    world, clone = project
    lay_out(world.scope_path(clone, "auto"))
    yield Searcher(world, clone)


G, T, B, V, A = (f"auto/{r}/" for r in REPOS)
# what a user types -> the memory they expect first (the class of question in the comment)
JUDGED = {
    "Memorystore": T + "seo-redis-command-timeout-noise.md",  # a word of the body
    "redis": T + "seo-redis-command-timeout-noise.md",  # a word of the title and the file name
    '"resize Redis"': T + "seo-redis-command-timeout-noise.md",  # a phrase
    "backward compatibility": G + "feedback_no_backward_compat.md",  # the description's words
    "verify branch": T + "verify-branch-before-diagnosing.md",  # the title's words
    "diagnosng": T + "verify-branch-before-diagnosing.md",  # a misspelling
    "对标": B + "benchmark-library.md",  # a CJK word inside a run
    "鉴宝": B + "benchmark-library.md",
    "workflow-10ep-card": B + "workflow-10ep-card.md",  # a file name
    "notification": G + "notification-ux-redesign.md",  # as typed, before `notify`'s stem
    "schema": V + "SCHEMA.md",  # the file named so, before the most linked-to
    "roadmap": V + "project_roadmap.md",
    "conventions": V + "feedback_conventions.md",
    "gotchas": A + "gotchas.md",
    "permission prompt": G + "notification-ux-redesign.md",
    "ADR-004": V + "project_roadmap.md",  # an identifier of the body
}


@needs_corpus
def test_what_a_user_types_finds_what_they_expect_first_and_never_an_index(
    corpus: Searcher,
) -> None:
    wrong = {}
    for typed, expected in JUDGED.items():
        found = corpus(typed)
        if not found or found[0] != expected:
            wrong[typed] = found[:3]
        # an index (MEMORY.md) is a list of pointers, never an answer; each memory once
        assert not [i for i in found if i.endswith("/MEMORY.md")], (typed, found)
        assert len(found) == len(set(found)), (typed, found)
    assert not wrong, wrong
    # the same question asked again: the same answer, in the same order
    assert corpus("redis") == corpus("redis")


@needs_corpus
def test_a_word_only_an_index_line_holds_finds_nothing_when_its_memory_is_not_kept(
    corpus: Searcher,
) -> None:
    """`heartbeat` is in gantry's MEMORY.md only, on the line of a topic file the corpus does
    not hold: no answer (the index itself was one)."""
    assert corpus("heartbeat") == []


def test_an_index_line_found_answers_with_the_memory_it_points_to_once(
    project: tuple[World, Path],
) -> None:
    """The word is on the index's line alone: the memory it points to is the answer, where the
    index stood, once (twice pointed to, found itself too); another agent's MEMORY.md (not a
    Claude Code index) stays a memory; the page's rule is the same (view.js `points`)."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(
        auto,
        {
            "MEMORY.md": "# Index\n- [Deploys](deploys.md) — zebra window, Tuesdays\n"
            "- [Rollback](rollback.md) — how to undo\n"
            "- [Deploys again](./deploys.md#when) — zebra crossing\n"
            "- [Gone](gone.md) — zebra of a deleted memory\n"
            "- [Roll back](roll%62ack.md?x) — okapi escape\n",
            "deploys.md": "---\nname: Deploys\ndescription: only on Tuesdays\n---\nWe ship.\n",
            "rollback.md": "---\nname: Rollback\ndescription: undo\n---\nzebra revert.\n",
        },
    )
    found = ids(query(world, clone, "--search", "zebra"))
    assert sorted(found) == ["auto/deploys.md", "auto/rollback.md"], found
    # a word of another line: its memory only
    assert ids(query(world, clone, "--search", "undo")) == ["auto/rollback.md"]
    # a link written percent-encoded, with a query: the file it names, as the index resolves it
    assert ids(query(world, clone, "--search", "okapi")) == ["auto/rollback.md"]
    # the index is still a memory of its own by its id
    assert ids(query(world, clone, "--id", "auto/MEMORY.md")) == ["auto/MEMORY.md"]
    # the prompt hook's context: the same rule (it printed nothing of the index's pointees)
    from gitmem.recall.prompt import pick

    searcher = Searcher(world, clone)
    with searcher.env():
        picked = [h.id for h in pick(searcher.place, "a zebra", searcher.opener)]
    assert sorted(picked) == ["auto/deploys.md", "auto/rollback.md"], picked


def test_equal_scores_put_the_newest_first(project: tuple[World, Path]) -> None:
    """Two memories saying the same (equal bm25, no links): the one changed last first,
    whatever their names' order."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    text = "---\nname: Cache\ndescription: the cache\n---\nokapi cache rule\n"
    write_files(auto, {"a1.md": text, "b2.md": text})
    os.utime(auto / "a1.md", (1_700_000_000, 1_700_000_000))
    os.utime(auto / "b2.md", (1_700_100_000, 1_700_100_000))
    assert ids(query(world, clone, "--search", "okapi")) == ["auto/b2.md", "auto/a1.md"]
    os.utime(auto / "a1.md", (1_700_200_000, 1_700_200_000))
    assert ids(query(world, clone, "--search", "okapi")) == ["auto/a1.md", "auto/b2.md"]
