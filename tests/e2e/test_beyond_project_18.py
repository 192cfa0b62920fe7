"""Round 18: memory beyond one project, walked as docs/agents.md tells it — two machines (two
HOMEs, each its own key), one hub served by `git daemon` on 127.0.0.1, Codex and goose enabled,
a subagent with `memory: user`; then recall finds that memory, its history and its deletions
from a project on the second machine."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support.servers import git_daemon
from tests.support.world import World, write_files

pytestmark = pytest.mark.slow

STYLE = (
    "---\nname: Style\ndescription: house style\ntype: feedback\n---\n"
    "Tabs, never spaces; check kerberos tickets in reviews.\n"
)


def test_user_scope_and_adapters_on_two_machines_then_recall_in_a_project(
    tmp_path: Path,
) -> None:
    served = tmp_path / "served"
    served.mkdir()
    a, b = World(tmp_path / "a"), World(tmp_path / "b")
    a.git("init", "-q", "--bare", str(served / "hub.git"))
    a.git("init", "-q", "--bare", str(served / "shop.git"))
    with git_daemon(served, a.env) as url:
        for w in (a, b):  # docs/agents.md: one global hub, the agents enabled for you
            w.git("config", "--global", "gitmem.hub", f"{url}/hub.git")
            w.git("config", "--global", "gitmem.agents", "claude,codex,goose")
        shop_a = a.clone("shop", url=f"{url}/shop.git")
        a.git("commit", "-q", "--allow-empty", "-m", "init", cwd=shop_a)
        a.git("push", "-q", "origin", "HEAD", cwd=shop_a)
        write_files(
            a.home / ".claude",
            {
                "CLAUDE.md": "# Me\n- prefer small commits\n",
                "agent-memory/reviewer/MEMORY.md": "- [Style](style.md) — house style\n",
                "agent-memory/reviewer/style.md": STYLE,
            },
        )
        write_files(  # the subagent whose memory that is
            shop_a / ".claude/agents",
            {
                "reviewer.md": "---\nname: reviewer\ndescription: reviews\nmemory: user\n---\nReview.\n"
            },
        )
        write_files(
            a.home / ".codex/memories", {"MEMORY.md": "# Codex memory\n\n- pnpm, not npm\n"}
        )
        write_files(
            a.home / ".config/goose/memory",
            {"tools.txt": "# tools\nprefer ripgrep\n\nalways run make lint\n"},
        )
        out = a.ok("sync", cwd=shop_a)  # a project's sync carries the user scope too
        assert "~/.codex/memories/MEMORY.md" in out and "~/.config/goose/memory/tools.txt" in out

        # the second machine, a key of its own: told the grant to run, then granted
        shop_b = b.clone("shop", url=f"{url}/shop.git")
        out = b.ok("sync", cwd=shop_b)
        assert "gitmem key grant --user" in out
        a.ok("key", "grant", "--user", b.ok("key", "show").strip())
        a.ok("sync", "--user")
        b.ok("sync", "--user")
        assert (b.home / ".claude/agent-memory/reviewer/style.md").read_text() == STYLE

        # both machines edit the Codex and goose memory; both edits stand on both
        codex, goose = ".codex/memories/MEMORY.md", ".config/goose/memory/tools.txt"
        (a.home / codex).write_text("# Codex memory\n\n- pnpm, not npm\n- from a: node 22\n")
        (b.home / codex).write_text("# Codex memory\n\n- pnpm, not npm\n- from b: fly deploys\n")
        (a.home / goose).write_text(
            "# tools\nprefer ripgrep\n\nalways run make lint\n\nfrom a: use uv\n"
        )
        (b.home / goose).write_text("# tools\nprefer ripgrep (rg)\n\nalways run make lint\n")
        b.ok("sync", "--user")
        a.ok("sync", "--user")
        b.ok("sync", "--user")
        for w in (a, b):
            assert "from a: node 22" in (w.home / codex).read_text()
            assert "from b: fly deploys" in (w.home / codex).read_text()
            assert (w.home / goose).read_text() == (
                "# tools\nprefer ripgrep (rg)\n\nalways run make lint\n\nfrom a: use uv\n"
            )

        # recall on the second machine, in the project: the user scope beside the project's
        found = json.loads(b.ok("-C", str(shop_b), "query", "pnpm", "--format", "json"))
        assert [(n["id"], n["title"]) for n in found["nodes"]] == [
            ("user-codex/MEMORY.md", "Codex memory")
        ]
        assert "user-goose/tools.txt" in b.ok("-C", str(shop_b), "query", "ripgrep")
        hook = b.ok("-C", str(shop_b), "recall", "--prompt", "kerberos tickets in review")
        assert "user/reviewer/style.md" in hook and "Tabs, never spaces" in hook

        # a user memory deleted on one machine: --deleted and its history reach it
        shutil.rmtree(b.home / ".claude/agent-memory/reviewer")
        b.ok("sync", "--user")
        gone = b.ok("-C", str(shop_b), "query", "--deleted", "--scope", "user", "--format", "full")
        assert "user/reviewer/style.md" in gone and "check kerberos tickets" in gone
        told = b.ok("-C", str(shop_b), "log", "user/reviewer/style.md").splitlines()
        assert len(told) == 4 and told[1::2] == [
            "    D user/reviewer/style.md",
            "    A user/reviewer/style.md",
        ], told
        assert "user/reviewer/style.md" in b.ok(
            "-C",
            str(shop_b),
            "query",
            "--scope",
            "user",
            "--deleted",
            "--author",
            "tester@example.com",
        )
        a.ok("sync", "--user")  # the deletion reaches the first machine, nothing else goes
        assert not (a.home / ".claude/agent-memory/reviewer/style.md").exists()
        assert (a.home / ".claude/CLAUDE.md").read_text() == "# Me\n- prefer small commits\n"


def test_a_refused_project_ref_leaves_the_user_scope_synced(tmp_path: Path) -> None:
    """The second machine's first sync met no personal ref (nothing personal written yet);
    the first machine then granted it the project's personal memory too, unasked. The second
    machine's next sync refuses that ref ("never asked for", exit 3) — by design. Before: that
    refusal returned before the user scope, which the sync carries after the project's refs,
    so `~/.claude/CLAUDE.md` never arrived either. After: the user scope still syncs."""
    hub = tmp_path / "hub.git"
    a, b = World(tmp_path / "a"), World(tmp_path / "b")
    a.git("init", "-q", "--bare", str(hub))
    remote = a.make_remote()
    for w in (a, b):
        w.git("config", "--global", "gitmem.hub", str(hub))
    shop_a = a.clone("shop", url=str(remote))
    write_files(a.home / ".claude", {"CLAUDE.md": "# Me\n- prefer small commits\n"})
    a.ok("sync", cwd=shop_a)
    shop_b = b.clone("shop", url=str(remote))
    assert "gitmem key grant --user" in b.ok("sync", cwd=shop_b)
    key = b.ok("key", "show").strip()
    a.ok("key", "grant", "--user", key)
    write_files(a.scope_path(shop_a, "auto"), {"MEMORY.md": "- [N](n.md) — n\n", "n.md": "N.\n"})
    a.ok("key", "grant", key, cwd=shop_a)
    a.ok("sync", cwd=shop_a)

    run = b.gitmem("sync", cwd=shop_b)
    assert run.code == 3 and "never asked for" in run.err  # the project's personal ref
    assert "user claude:" in run.out, run.out
    assert (b.home / ".claude/CLAUDE.md").read_text() == "# Me\n- prefer small commits\n"
