"""Real-corpus shapes end to end (round 11): memory folders written the way the public projects
in shared/corpus/real/ write theirs (SOURCES.tsv names no licence, so the texts here are our
own, in their shapes: a notes-style MEMORY.md over Claude Code's 200 lines under an H1 title
(ActorForth's), a link index with nested `metadata:` topics (gantry's), agent memory with a
table and a fence (breaker's)), synced across two machines of one person and a teammate over
`git daemon` on 127.0.0.1, with Claude Code's everyday edits made concurrently."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from merge_drivers import merge_file
from tests.support.servers import git_daemon
from tests.support.world import World, folder_bytes, write_files

ROOT = Path(__file__).resolve().parents[2]
DRIVER = f"{sys.executable} -m gitmem.merge.gitdriver %O %A %B %L %P"


def notes_index(sections: int = 16, per: int = 13) -> str:
    """A notes-style MEMORY.md (plain bullets under `##` sections, an H1 title), over 200 lines."""
    out = ["# Forthwright Memory", ""]
    for s in range(sections):
        out.append(f"## Section {chr(ord('P') - s)} — area {s}")  # titles not in text order
        out += [
            f"- fact {s}.{i}: the VM keeps {s * per + i} words on the stack" for i in range(per)
        ]
        out.append("")
    return "\n".join(out)


def _every_line_kept(original: str, index: str, archive: str) -> None:
    for line in original.splitlines():
        if line.strip():
            assert line in index or line in archive, line


def _headings(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.startswith("#")]


def test_a_new_index_over_the_caps_keeps_its_layout_on_the_second_machine(world: World) -> None:
    """The class: an index over the caps that only one side has (no base: a second machine's or
    a teammate's first sync, either direction) was merged as new items over an empty base —
    its sections sorted by text and its H1 title moved under the first of them."""
    text = notes_index()
    assert len(text.splitlines()) > 200
    data = text.encode()
    for base, ours, theirs in ((None, None, data), (None, data, None), (b"", b"", data)):
        out = merge_file("MEMORY.md", base, ours, theirs)
        assert out.data is not None
        merged = out.data.decode()
        assert merged.startswith("# Forthwright Memory\n"), merged[:200]
        kept = [h for h in _headings(text) if h in _headings(merged)]
        assert [h for h in _headings(merged) if h in kept] == kept  # the sections as written
        assert len(merged.splitlines()) <= 200

    a, b = world.clone("a"), world.clone("b")
    write_files(world.scope_path(a), {"MEMORY.md": text})
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    got = folder_bytes(world.scope_path(b))
    index, archive = got["MEMORY.md"].decode(), got["MEMORY-archive.md"].decode()
    assert index.startswith("# Forthwright Memory\n\n## Section P"), index[:200]
    order = [h for h in _headings(text) if h in index]
    assert [h for h in _headings(index) if h in order] == order  # the sections as written
    _every_line_kept(text, index, archive)
    world.ok("-C", str(a), "sync")
    assert folder_bytes(world.scope_path(a)) == got


GANTRY_INDEX = (
    "- [No compat shims](feedback_no_compat.md) — active development; breaking changes are fine\n"
    "- [Notification UX](notification-ux-redesign.md) — mobile-first trim of permission copy\n"
    "- [Flaky heartbeat test](flaky-heartbeat.md) — times out under load, passes alone\n"
    "- [Memory lives in the repo](memory-in-repo.md) — STANDING: shared notes in .claude/memory/\n"
)
TOPIC = (
    "---\nname: {n}\ndescription: {d}\nmetadata: \n  node_type: memory\n  type: {t}\n---\n\n{b}\n"
)
GANTRY = {
    "MEMORY.md": GANTRY_INDEX,
    "feedback_no_compat.md": TOPIC.format(
        n="feedback_no_compat", d="no backward compatibility", t="feedback", b="Do not flag it."
    ),
    "notification-ux-redesign.md": TOPIC.format(
        n="notification-ux-redesign",
        d="Mobile-first trim of permission/receipt copy",
        t="project",
        b="Shipped 2026-06-01: outcome-led, emoji glyph 🔐, one dim context line.\n\n"
        "- Permission prompt: `🔐 Allow {label}?` + tool input lines\n"
        "- Receipts: one line, `✓ done` and the elapsed time",
    ),
    "flaky-heartbeat.md": TOPIC.format(
        n="flaky-heartbeat", d="times out under load", t="project", b="Re-run it idle first."
    ),
    "memory-in-repo.md": TOPIC.format(
        n="memory-in-repo",
        d="STANDING — shared memory lives in the repo",
        t="feedback",
        b="Shared dev memory MUST live in `.claude/memory/` so the whole team\nshares it.\n\n"
        "**Why:** one machine's memory is not shared.\n\n"
        "**How to apply:** add the one-line pointer to MEMORY.md.",
    ),
}
KNOWN_STATE = (
    "---\nname: known-state\ndescription: Confirmed doc/code alignment\ntype: project\n---\n\n"
    "# Known state\n\n## Confirmed Correct\n\n"
    "| Doc | State | Checked |\n|---|---|---|\n| messages.md | correct | 2026-04-10 |\n"
    "| ordering.md | correct | 2026-04-10 |\n\n"
    "## Facts\n\n- `ShieldActive` no longer exists; shield is a timed floor wall.\n"
    "- Cells have 8 behaviours.\n\n```toml\n[profile.dev]\nopt-level = 1\n```\n"
)


def test_a_team_corpus_through_three_clones_over_git_daemon(world: World) -> None:
    """Two machines of one person (a, b) and a teammate (c), a `git daemon` remote: the
    everyday edits of Claude Code made concurrently, synced in two orders; every replica the
    same bytes, every edit's words kept, deletions and renames honoured, the structure kept,
    and validate, graph and query agree with it."""
    srv = world.root / "srv"
    srv.mkdir()
    world.git("clone", "-q", "--bare", str(world.remote), str(srv / "proj.git"))
    with git_daemon(srv, world.env) as url:
        a = world.clone("a", f"{url}/proj.git")
        b = world.clone("b", f"{url}/proj.git")
        c = world.clone("c", f"{url}/proj.git", email="teammate@example.com")
        for x in (a, b, c):
            world.ok("-C", str(x), "init")
        auto = {x: world.scope_path(x) for x in (a, b)}
        agents = {x: world.scope_path(x, "agents") for x in (a, b, c)}
        write_files(auto[a], GANTRY)
        write_files(agents[a], {"guard-docs/known-state.md": KNOWN_STATE})
        for x in (a, b, c, a):
            world.ok("-C", str(x), "sync")

        # a: a new memory (index bullet + topic file), a topic's body and description edited
        write_files(
            auto[a],
            {
                "MEMORY.md": GANTRY_INDEX + "- [Retry budget](retry-budget.md) — three a turn\n",
                "retry-budget.md": TOPIC.format(
                    n="retry-budget", d="three a turn", t="feedback", b="The fourth escalates."
                ),
            },
        )
        topic = auto[a] / "memory-in-repo.md"
        topic.write_text(
            topic.read_text()
            .replace("description: STANDING —", "description: STANDING (reaffirmed) —")
            .replace("not shared.", "not shared, even as a recall cache.")
        )
        # b: a topic renamed with its link, a stale memory deleted, another line of the topic
        (auto[b] / "notification-ux-redesign.md").rename(auto[b] / "notification-ux.md")
        (auto[b] / "feedback_no_compat.md").unlink()
        index = auto[b] / "MEMORY.md"
        index.write_text(
            "".join(
                ln.replace("(notification-ux-redesign.md)", "(notification-ux.md)")
                for ln in index.read_text().splitlines(True)
                if "feedback_no_compat" not in ln
            )
        )
        topic = auto[b] / "memory-in-repo.md"
        topic.write_text(topic.read_text().replace("the whole team\n", "the whole team (humans)\n"))
        # a and c on agent memory: a table row against reordered sections and an edited fact
        ks = agents[a] / "guard-docs/known-state.md"
        ks.write_text(
            ks.read_text().replace(
                "| ordering.md | correct | 2026-04-10 |\n",
                "| ordering.md | correct | 2026-04-10 |\n| effects.md | stale | 2026-04-15 |\n",
            )
        )
        ks = agents[c] / "guard-docs/known-state.md"
        t = ks.read_text()
        table, facts = t.index("## Confirmed Correct"), t.index("## Facts")
        fence = t.index("\n```toml")
        t = t[:table] + t[facts:fence] + "\n" + t[table:facts].rstrip("\n") + t[fence:]
        ks.write_text(t.replace("8 behaviours", "10 behaviours"))

        for x in (c, b, a, c, b):
            world.ok("-C", str(x), "sync")

    assert folder_bytes(auto[a]) == folder_bytes(auto[b])
    assert folder_bytes(agents[a]) == folder_bytes(agents[b]) == folder_bytes(agents[c])
    mine, team = folder_bytes(auto[a]), folder_bytes(agents[a])
    assert "feedback_no_compat.md" not in mine and "notification-ux-redesign.md" not in mine
    everything = "\n".join(v.decode() for v in [*mine.values(), *team.values()])
    for words in (
        "[Retry budget](retry-budget.md)",
        "The fourth escalates.",
        "STANDING (reaffirmed)",
        "even as a recall cache.",
        "the whole team (humans)",
        "](notification-ux.md)",
        "| effects.md | stale | 2026-04-15 |",
        "10 behaviours",
        "🔐 Allow {label}?",
    ):
        assert words in everything, words
    assert (
        "notification-ux-redesign.md)" not in everything and "feedback_no_compat" not in everything
    )
    assert "<<<<<<<" not in everything and ">>>>>>>" not in everything
    for name, data in [*mine.items(), *team.items()]:
        text = data.decode()
        if text.startswith("---\n"):
            assert isinstance(yaml.safe_load(text.split("---\n")[1]), dict), name
        assert text.count("```") % 2 == 0, name
    merged = team["guard-docs/known-state.md"].decode()
    assert "| messages.md | correct | 2026-04-10 |\n| ordering.md | correct | 2026-04-10 |\n" in (
        merged
    ), merged  # the table not split by the other side's move
    assert world.gitmem("-C", str(a), "validate").code == 0
    graph = world.ok("-C", str(a), "graph")
    assert "notification-ux-redesign" not in graph and "feedback_no_compat" not in graph, graph
    for words, where in (("retry", "auto/retry-budget.md"), ("ShieldActive", "known-state.md")):
        assert where in world.ok("-C", str(b), "query", "--search", words)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


def _git_merged(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    base: dict[str, str],
    ours: dict[str, str],
    theirs: dict[str, str],
) -> dict[str, dict[str, bytes]]:
    """`git merge` with gitmem's drivers of a branch that wrote `ours` and one that wrote
    `theirs` over `base` (folder mem/), both directions: each result by the branch merged into."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for name in ("index", "frontmatter"):
        _git(repo, "config", f"merge.gitmem-{name}.driver", DRIVER)
    _git(repo, "config", "user.name", "T")
    _git(repo, "config", "user.email", "t@example.com")
    (repo / ".git/info/attributes").write_text(
        "mem/*.md merge=gitmem-frontmatter\nmem/MEMORY.md merge=gitmem-index\n"
    )

    def commit(files: dict[str, str], message: str) -> None:
        write_files(repo / "mem", files)
        (repo / "README").write_text("project\n")  # a root commit even without memory
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", message)

    commit(base, "base")
    _git(repo, "branch", "left")
    commit(ours, "ours")
    _git(repo, "checkout", "-q", "left")
    commit(theirs, "theirs")
    out = {}
    for into, other in (("main", "left"), ("left", "main")):
        _git(repo, "checkout", "-q", into)
        start = _git(repo, "rev-parse", "HEAD").strip()
        subprocess.run(
            ["git", "-C", str(repo), "merge", "-q", "--no-edit", other],
            capture_output=True,
        )
        out[into] = folder_bytes(repo / "mem")
        _git(repo, "reset", "-q", "--hard", start)
    return out


def test_the_drivers_give_what_sync_gives(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same two-sided edits (an index bullet each; a topic's description and body) merged by
    `git merge` with the drivers installed, both directions, and by `gitmem sync`: same bytes."""
    base = {"MEMORY.md": GANTRY_INDEX, "memory-in-repo.md": GANTRY["memory-in-repo.md"]}
    ours = {
        "MEMORY.md": GANTRY_INDEX + "- [Retry budget](retry-budget.md) — three a turn\n",
        "memory-in-repo.md": base["memory-in-repo.md"].replace("STANDING —", "STANDING (again) —"),
    }
    theirs = {
        "MEMORY.md": GANTRY_INDEX.replace("passes alone", "passes alone (re-run idle)"),
        "memory-in-repo.md": base["memory-in-repo.md"].replace("not shared.", "never shared."),
    }
    a, b = world.clone("a"), world.clone("b")
    fa, fb = world.scope_path(a), world.scope_path(b)
    write_files(fa, base)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    write_files(fa, ours)
    write_files(fb, theirs)
    for x in (a, b, a):
        world.ok("-C", str(x), "sync")
    synced = folder_bytes(fa)
    assert synced == folder_bytes(fb)

    for into, got in _git_merged(tmp_path, monkeypatch, base, ours, theirs).items():
        assert got == synced, into


RULE = (
    "---\ndescription: Python tooling and test conventions\nglobs: {globs}\n"
    "alwaysApply: false\n---\n\n## Python environment\n\nUse uv.\n"
)


def test_validate_reports_frontmatter_that_is_not_yaml(world: World) -> None:
    """The class: frontmatter no YAML reader loads (a Cursor-style rule's `globs: *.py` is an
    alias to no anchor; a description with `: ` unquoted) passed `validate` clean of any YAML
    finding — only "lacks name, type" — while no agent could read its fields. GM123 names the
    line; the quoted form, as projects-orchestrator's rule writes it, passes."""
    a = world.clone("a")
    team = world.scope_path(a, "team")
    write_files(
        team,
        {
            "MEMORY.md": "- [Python](python.md) — tooling\n- [Colon](colon.md) — a hook\n",
            "python.md": RULE.format(globs="*.py"),
            "colon.md": "---\nname: colon\ndescription: fix: quote it\ntype: feedback\n---\nx\n",
        },
    )
    world.ok("-C", str(a), "sync")
    out = world.gitmem("-C", str(a), "validate")
    assert out.code == 0, out.err  # a warning: synced, and said
    assert "team/python.md:3: GM123" in out.out, out.out
    assert "team/colon.md:3: GM123" in out.out, out.out
    write_files(
        team,
        {
            "python.md": RULE.format(globs='["**/*.py", "pyproject.toml"]'),
            "colon.md": '---\nname: colon\ndescription: "fix: quote it"\ntype: feedback\n---\nx\n',
        },
    )
    world.ok("-C", str(a), "sync")
    assert "GM123" not in world.ok("-C", str(a), "validate")
