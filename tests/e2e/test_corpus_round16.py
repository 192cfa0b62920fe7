"""Real corpora, round 16: the people and agents who wrote the memory folders of
shared/corpus/real/ (SOURCES.tsv names no licence, so the texts here are our own, in their
shapes: ActorForth's notes-style MEMORY.md under an H1 title, gantry's link index with nested
`metadata:` topics, Bevy-style agent memory), their everyday edits made concurrently on three
machines (three HOMEs, one bare remote) and synced in different orders; every replica the same
bytes, every edit's words kept, and the read commands over the result (docs/testing.md, Real
corpora, round 16)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from merge_drivers import merge_file
from tests.support.world import World, folder_bytes, write_files

# -- a section reorganised (sorted under a new heading) while another machine adds to it ------

NOTES = (
    "# Forthwright Memory\n\n"
    "## Project Context\n"
    "- Homoiconic, stack-based, actor-concurrent language targeting BEAM\n"
    "- Current: Erlang implementation, fully self-hosted compiler toolchain\n\n"
    "## Known Issues\n"
    "- Product type constructor sig_in must be `lists:reverse(FieldTypes)`\n"
    "- Stale beam files: `rebar3 clean && rebar3 compile` if edits don't take effect\n"
    "- Type registry (ETS) is global, shared across all server instances\n"
    "- Pre-existing `sub_clause_test_` failure on version3 needs investigation\n\n"
    "## User Preferences\n"
    "- Prefers minimalistic, simple design\n"
)
ISSUES = NOTES.split("## Known Issues\n")[1].split("\n\n")[0].split("\n")
# a human sorts the section's bullets under a new `### Open` heading ...
REGROUPED = NOTES.replace(
    "## Known Issues\n" + "\n".join(ISSUES),
    "## Known Issues\n\n### Open\n" + "\n".join(sorted(ISSUES)),
)
# ... while an agent on another machine adds an issue at the end of the section
ADDED = NOTES.replace(
    "\n\n## User Preferences", "\n- New: the server leaks a mailbox on crash\n\n## User Preferences"
)


def _issues_in(text: str) -> list[str]:
    return [line for line in text.splitlines() if line in ISSUES]


def test_a_section_sorted_under_a_new_heading_keeps_its_order_beside_an_addition() -> None:
    """The class: base bullets a side regrouped under a heading it wrote were filed in the
    base's order (`merge_drivers.index._in_regrouper_order`) — the human's sort was lost with no
    `resolved` line, though the heading stayed. Both merge orders, and the merge merged again."""
    for ours, theirs in ((REGROUPED, ADDED), (ADDED, REGROUPED)):
        out = merge_file("MEMORY.md", NOTES.encode(), ours.encode(), theirs.encode())
        assert out.data is not None
        merged = out.data.decode()
        assert _issues_in(merged) == sorted(ISSUES), merged
        assert "### Open\n" in merged
        assert "- New: the server leaks a mailbox on crash\n" in merged
        assert merged.index("## Known Issues") < merged.index("leaks a mailbox")
        assert merged.index("leaks a mailbox") < merged.index("## User Preferences")
        for side in (REGROUPED, ADDED):  # a replica that merged already: nothing moves
            again = merge_file("MEMORY.md", NOTES.encode(), merged.encode(), side.encode())
            assert again.data == out.data
    swapped = merge_file("MEMORY.md", NOTES.encode(), ADDED.encode(), REGROUPED.encode())
    assert (
        swapped.data
        == merge_file("MEMORY.md", NOTES.encode(), REGROUPED.encode(), ADDED.encode()).data
    )


def test_bullets_both_sides_regrouped_keep_one_order_whatever_the_merge_order() -> None:
    """Two machines file the same bullets under headings of their own, in different orders:
    neither side's order is the other's, so the base's decides (a function of the base and
    each side alone): both merge orders give the same bytes."""
    other = NOTES.replace(
        "## Known Issues\n" + "\n".join(ISSUES),
        "## Known Issues\n\n### Triage\n" + "\n".join(reversed(ISSUES)),
    )
    a = merge_file("MEMORY.md", NOTES.encode(), REGROUPED.encode(), other.encode())
    b = merge_file("MEMORY.md", NOTES.encode(), other.encode(), REGROUPED.encode())
    assert a.data == b.data
    assert a.data is not None
    for line in ISSUES:
        assert line in a.data.decode()


# -- three machines (three HOMEs), one bare remote, built once per module ----------------------

INDEX = (
    "- [No compat shims](feedback_no_compat.md) — active development; don't flag breaking changes\n"
    "- [Memory lives in the repo](memory-in-repo.md) — STANDING: shared notes in .claude/memory/\n"
    "- [Flaky heartbeat test](flaky-heartbeat.md) — times out under load, passes alone\n"
    "- [Roadmap](roadmap.md) — the four directions and what guides follow-up work\n"
)
TOPIC = (
    "---\nname: {n}\ndescription: {d}\nmetadata: \n  node_type: memory\n  type: {t}\n---\n\n{b}\n"
)
GANTRY = {
    "MEMORY.md": INDEX,
    "feedback_no_compat.md": TOPIC.format(
        n="feedback_no_compat", d="no backward compatibility", t="feedback", b="Do not flag it."
    ),
    "memory-in-repo.md": TOPIC.format(
        n="memory-in-repo",
        d="STANDING: shared memory lives in the repo",
        t="feedback",
        b="Shared dev memory MUST live in `.claude/memory/` so the whole team\nshares it.\n\n"
        "**Why:** one machine's memory is not shared.",
    ),
    "flaky-heartbeat.md": TOPIC.format(
        n="flaky-heartbeat", d="times out under load", t="project", b="Re-run it idle first."
    ),
    "roadmap.md": "---\nname: Roadmap\ndescription: the four directions\ntype: project\n---\n\n"
    "- **Fact:** four directions delivered, all merged.\n"
    "  **Why:** an interface is a projection of the data model.\n",
}


@dataclass
class Machine:
    world: World
    clone: Path

    def sync(self) -> str:
        run = self.world.gitmem("-C", str(self.clone), "sync")
        assert run.code == 0, run.err + run.out
        return run.out + run.err

    def run(self, *args: str) -> tuple[int, str]:
        run = self.world.gitmem("-C", str(self.clone), *args)
        return run.code, run.out + run.err

    @property
    def agents(self) -> Path:
        return self.clone / ".claude" / "agent-memory"


def _machines(root: Path) -> list[Machine]:
    out = []
    for name in ("m1", "m2", "m3"):
        w = World(root / name)
        if not (root / "m1" / "remote.git").exists():
            w.make_remote()
        clone = w.root / "clone"
        if not clone.exists():
            w.clone("clone", str(root / "m1" / "remote.git"), email=f"{name}@example.com")
        out.append(Machine(w, clone))
    return out


@pytest.fixture(scope="module")
def _pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Three machines synced twice over the seeded folders, and a copy of them: each test
    puts the copy back at the same place (the sync state names its folders' paths)."""
    root = tmp_path_factory.mktemp("three") / "w"
    ms = _machines(root)
    for m in ms:
        assert m.run("init")[0] == 0
    write_files(ms[0].agents, {f"gantry/{k}": v for k, v in GANTRY.items()})
    write_files(ms[0].agents, {"forth/MEMORY.md": NOTES})
    for m in ms + ms:
        m.sync()
    pristine = root.parent / "pristine"
    shutil.copytree(root, pristine, symlinks=True)
    return root, pristine


@pytest.fixture
def three(_pristine: tuple[Path, Path]) -> Iterator[list[Machine]]:
    root, pristine = _pristine
    shutil.rmtree(root)
    shutil.copytree(pristine, root, symlinks=True)
    yield _machines(root)


def _same_everywhere(ms: list[Machine]) -> dict[str, bytes]:
    got = [folder_bytes(m.agents) for m in ms]
    assert got[0] == got[1] == got[2]
    return got[0]


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


@pytest.mark.slow
@pytest.mark.parametrize("order", [(0, 1, 2, 0, 1, 2), (2, 1, 0, 2, 1, 0)])
def test_everyday_edits_of_three_machines_converge_with_every_word(
    three: list[Machine], order: tuple[int, ...]
) -> None:
    """An agent appends a learned bullet and an index line and raises `confidence:`; a human
    rewords a hook, fixes a word in the body, edits a topic another machine renames (and its
    link), and a file one machine deletes is edited on another: every replica the same bytes,
    every edit's words kept, the deletion told (`kept:`), and validate passes."""
    g1, g2, g3 = (m.agents / "gantry" for m in three)
    (g1 / "MEMORY.md").write_text(INDEX + "- [Retry budget](retry-budget.md) — three a turn\n")
    (g1 / "retry-budget.md").write_text(
        TOPIC.format(n="retry-budget", d="three a turn", t="feedback", b="The fourth escalates.")
    )
    _edit(
        g1 / "memory-in-repo.md", "shares it.\n", "shares it.\n- Learned: read MEMORY.md first.\n"
    )
    _edit(g1 / "roadmap.md", "type: project\n", "type: project\nconfidence: 0.9\n")
    _edit(g2 / "MEMORY.md", "don't flag breaking changes", "pre-1.0; never ask for shims")
    _edit(g2 / "roadmap.md", "an interface is a projection", "an interface is the projection")
    _edit(g2 / "flaky-heartbeat.md", "Re-run it idle first.", "Re-run it idle first; 2x slower.")
    (g3 / "memory-in-repo.md").rename(g3 / "shared-memory.md")
    _edit(g3 / "MEMORY.md", "(memory-in-repo.md)", "(shared-memory.md)")
    (g3 / "flaky-heartbeat.md").unlink()
    _edit(
        g3 / "MEMORY.md",
        "- [Flaky heartbeat test](flaky-heartbeat.md) — times out under load, passes alone\n",
        "",
    )
    told = "".join(three[i].sync() for i in order)

    got = _same_everywhere(three)
    index = got["gantry/MEMORY.md"].decode()
    assert "(shared-memory.md)" in index and "(memory-in-repo.md)" not in index
    assert "pre-1.0; never ask for shims" in index and "Retry budget" in index
    assert "memory-in-repo.md" not in " ".join(got)
    renamed = got["gantry/shared-memory.md"].decode()
    assert "- Learned: read MEMORY.md first." in renamed and "**Why:**" in renamed
    roadmap = got["gantry/roadmap.md"].decode()
    assert "confidence: 0.9" in roadmap and "an interface is the projection" in roadmap
    assert "2x slower" in got["gantry/flaky-heartbeat.md"].decode()  # modified beats deleted
    assert "kept: agents/gantry/flaky-heartbeat.md" in told
    assert got["forth/MEMORY.md"] == NOTES.encode()
    code, out = three[0].run("validate")
    assert code == 0, out


@pytest.mark.slow
def test_a_regrouped_notes_index_through_three_machines_and_every_read_command(
    three: list[Machine], tmp_path: Path
) -> None:
    """The notes index sorted under a new heading on one machine while another adds an issue,
    synced in turn: the sort and the addition on every replica; then the read commands over
    the result answer without error, and curate and graph read each subagent's folder as its
    own index (before: curate planned a `MEMORY.md` over the scope's root listing each
    agent's index as a memory, and graph listed those indexes as orphans)."""
    m1, m2, m3 = three
    (m1.agents / "forth" / "MEMORY.md").write_text(REGROUPED)
    (m2.agents / "forth" / "MEMORY.md").write_text(ADDED)
    for m in (m1, m2, m3, m1):
        m.sync()
    merged = _same_everywhere(three)["forth/MEMORY.md"].decode()
    assert _issues_in(merged) == sorted(ISSUES) and "leaks a mailbox" in merged

    for args in (
        ("status",),
        ("log",),
        ("diff",),
        ("query", "heartbeat"),
        ("recall", "--prompt", "why does the heartbeat test time out?"),
        ("doctor",),
        ("validate",),
        ("view", "--out", str(tmp_path / "page.html")),
    ):
        code, out = m3.run(*args)
        assert code == 0, (args, out)
        assert "Traceback" not in out
    code, out = m3.run("graph", "--scope", "agents")
    assert code == 0, out
    orphans = out.split("orphans")[1].split("dangling")[0] if "orphans" in out else ""
    assert "MEMORY.md" not in orphans, out
    code, out = m3.run("curate", "--scope", "agents", "--yes")
    assert code == 0, out
    assert not (m3.agents / "MEMORY.md").exists()  # no index over the agents' folders
    assert "forth/MEMORY.md is already curated" in out
    code, again = m3.run("curate", "--scope", "agents", "--dry-run")
    assert code == 0 and "dry run" not in again, again  # a second run changes nothing
