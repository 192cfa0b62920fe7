"""Round 19: a project moved to a new URL keeps its memory — two machines (two HOMEs, each its
own key), one hub and the project's old and new remotes served by `git daemon` on 127.0.0.1,
the repository moved as a host moves one (its refs, memory refs included, copied whole), each
machine following with `git remote set-url`, one of them after an edit made under the old URL."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.personal import same_identity, two_machines_one_hub
from tests.support.servers import git_daemon
from tests.support.world import World, write_files

pytestmark = pytest.mark.slow

FACT = (
    "---\nname: Deploys\ndescription: how we deploy\ntype: project\n---\nfly deploy, never ssh.\n"
)


def test_a_moved_repository_keeps_its_personal_memory_through_the_hub(tmp_path: Path) -> None:
    served = tmp_path / "served"
    served.mkdir()
    a, b = World(tmp_path / "a"), World(tmp_path / "b")
    for name in ("hub", "old", "new"):
        a.git("init", "-q", "--bare", str(served / f"{name}.git"))
    with git_daemon(served, a.env) as url:
        for w in (a, b):
            w.git("config", "--global", "gitmem.hub", f"{url}/hub.git")
        shop_a = a.clone("shop", url=f"{url}/old.git")
        a.git("commit", "-q", "--allow-empty", "-m", "init", cwd=shop_a)
        a.git("push", "-q", "origin", "HEAD", cwd=shop_a)
        auto_a = a.scope_path(shop_a)
        write_files(
            auto_a,
            {
                "MEMORY.md": "- [Deploys](deploys.md) — how we deploy\n",
                "deploys.md": FACT,
                "team/MEMORY.md": "- the team's fact\n",
            },
        )
        a.ok("sync", cwd=shop_a)
        shop_b = b.clone("shop", url=f"{url}/old.git")
        b.gitmem("sync", cwd=shop_b)  # no key for the personal memory yet: the grant
        a.ok("key", "grant", b.ok("key", "show").strip(), cwd=shop_a)
        a.ok("sync", cwd=shop_a)
        b.ok("sync", cwd=shop_b)
        auto_b = b.scope_path(shop_b)
        assert (auto_b / "deploys.md").read_text() == FACT

        # the host moves the repository: every ref, the memory refs too, under a new URL
        a.git("push", "-q", "--mirror", str(served / "new.git"), cwd=served / "old.git")
        a.git("remote", "set-url", "origin", f"{url}/new.git", cwd=shop_a)
        out = a.ok("sync", cwd=shop_a)
        assert "renamed or moved" in out and "pushing ours there" in out

        # the second machine edits under the old URL, then follows the move
        (auto_b / "MEMORY.md").write_text(
            "- [Deploys](deploys.md) — how we deploy\n- staging first, from b\n"
        )
        b.ok("sync", cwd=shop_b)
        b.git("remote", "set-url", "origin", f"{url}/new.git", cwd=shop_b)
        run = b.gitmem("sync", cwd=shop_b)
        # was: refused as an older state put back (exit 3), the copy under the new URL
        # compared with the one this machine synced under the old
        assert run.code == 0, run.err
        assert "force-pushed" not in run.out and "renamed or moved" in run.out
        assert "nothing lost" in run.out

        a.ok("sync", cwd=shop_a)
        assert "staging first, from b" in (auto_a / "MEMORY.md").read_text()

        # a team edit after the move carries the new URL as a name of the project
        (auto_a / "team/MEMORY.md").write_text("- the team's fact\n- after the move\n")
        a.ok("sync", cwd=shop_a)

        # a fresh clone of the new URL takes it all (was: the personal memory on the hub
        # refused as another project's, keyed to the old URL alone; exit 2)
        fresh = a.clone("fresh", url=f"{url}/new.git")
        run = a.gitmem("sync", cwd=fresh)
        assert run.code == 0, run.err
        auto_fresh = a.scope_path(fresh)
        assert (auto_fresh / "deploys.md").read_text() == FACT
        assert "staging first, from b" in (auto_fresh / "MEMORY.md").read_text()
        assert "after the move" in (auto_fresh / "team/MEMORY.md").read_text()


def test_a_key_granted_here_is_trusted_by_this_machines_other_clones(tmp_path: Path) -> None:
    from pyrage import x25519

    w = World(tmp_path)
    w.make_remote()
    first = w.clone("first")
    write_files(w.scope_path(first), {"MEMORY.md": "- [Deploys](deploys.md) — how\n"})
    w.ok("sync", cwd=first)
    laptop = str(x25519.Identity.generate().to_public())
    w.ok("key", "grant", laptop, cwd=first)
    w.ok("sync", cwd=first)
    assert laptop in w.ok("key", "trusted")
    # a second clone on this machine: the key granted here is no stranger (was: refused,
    # exit 3, "its key also opens for age1…, which this machine never asked for")
    second = w.clone("second")
    run = w.gitmem("sync", cwd=second)
    assert run.code == 0, run.err
    assert "Deploys" in (w.scope_path(second) / "MEMORY.md").read_text()
    w.ok("key", "revoke", laptop, cwd=first)  # revoked: trusted no more
    assert laptop not in w.ok("key", "trusted")


def test_codex_global_agents_md_follows_the_person_through_the_hub(tmp_path: Path) -> None:
    """Codex's global guidance ($CODEX_HOME/AGENTS.md, read in every repository: the peer of
    ~/.claude/CLAUDE.md) is user memory of the codex adapter: through the hub, encrypted, both
    machines' additions kept. The second machine holds the same identity (no grant)."""
    a, b, hub = two_machines_one_hub(tmp_path, "claude,codex")
    guide = "# Working agreements\n\n- Always run the tests after a change\n"
    write_files(a.home / ".codex", {"AGENTS.md": guide})
    out = a.ok("sync", "--user")
    assert "~/.codex/AGENTS.md" in out
    ref = "refs/gitmem/projects/user%3Acodex/users/tester@example.com"
    assert "AGENTS" not in a.git("ls-tree", "-r", "--name-only", ref, cwd=hub)  # names sealed
    assert a.git("grep", "-c", "Working agreements", ref, cwd=hub, check=False) == ""
    assert "~/.codex/AGENTS.md" in a.ok("status", "--user")
    same_identity(a, b)
    b.ok("sync", "--user")
    mine_b = b.home / ".codex/AGENTS.md"
    assert mine_b.read_text() == guide
    mine_b.write_text(guide + "- prefer pnpm\n")
    b.ok("sync", "--user")
    (a.home / ".codex/AGENTS.md").write_text(guide + "- small commits\n")
    a.ok("sync", "--user")
    b.ok("sync", "--user")
    for w in (a, b):
        text = (w.home / ".codex/AGENTS.md").read_text()
        assert "- prefer pnpm\n" in text and "- small commits\n" in text, text
    write_files(b.home / ".claude/agent-memory/reviewer", {"style.md": "# Style\n- tabs\n"})
    for _ in range(2):  # outside a clone; the second along the index's stat check (was:
        # "Bad file descriptor", exit 2: the user scope's folder listed twice, its check read twice)
        found = b.ok("query", "--scope", "user-codex", "pnpm", cwd=tmp_path)
        assert "user-codex/AGENTS.md" in found, found


def test_the_clone_that_moved_is_told_to_adopt_and_its_adopt_takes(tmp_path: Path) -> None:
    """No hub: the team and personal refs moved with the repository keep the old URL's key;
    the clone that follows with set-url holds both tips already, so its sync says "up to
    date". doctor names the refusal a new clone of the new URL would meet, and adopt — which
    said "this machine cannot write it" and changed nothing — adds the new key to both."""
    w = World(tmp_path)
    old = w.make_remote("old.git")
    new = tmp_path / "new.git"
    shop = w.clone("shop", str(old))
    write_files(w.scope_path(shop), {"MEMORY.md": "- mine\n", "team/MEMORY.md": "- ours\n"})
    w.ok("sync", cwd=shop)
    w.git("clone", "-q", "--mirror", str(old), str(new))  # the host moves it, refs and all
    w.git("remote", "set-url", "origin", str(new), cwd=shop)
    assert "up to date" in w.ok("sync", cwd=shop)
    told = w.gitmem("doctor", cwd=shop).out
    assert "advice  moved: refs/gitmem/team on origin is recorded as memory of" in told, told
    assert "fix: gitmem adopt" in told
    out = w.ok("adopt", cwd=shop)
    assert out.count(": adopted: ") == 2 and "cannot write" not in out, out
    assert "moved:" not in w.gitmem("doctor", cwd=shop).out
    fresh = w.clone("fresh", str(new))
    run = w.gitmem("sync", cwd=fresh)
    assert run.code == 0, run.err
    assert (w.scope_path(fresh) / "team/MEMORY.md").read_text() == "- ours\n"
    assert (w.scope_path(fresh) / "MEMORY.md").read_text() == "- mine\n"


def test_gemini_memory_is_synced_under_the_name_its_settings_give(tmp_path: Path) -> None:
    """Gemini CLI's `context.fileName` (settings.json, comments allowed) renames its global
    memory file: save_memory writes ~/.gemini/AGENTS.md then, and that is what syncs (was:
    a GEMINI.md nobody wrote, the facts never left). A machine without the setting keeps it
    as GEMINI.md: one memory, its name on each machine Gemini's."""
    a, b, _ = two_machines_one_hub(tmp_path, "claude,gemini")
    settings = '{\n  // one name for every agent\n  "context": {"fileName": ["AGENTS.md", "GEMINI.md"]}\n}\n'
    facts = "## Gemini Added Memories\n- deploys go through fly\n"
    write_files(a.home / ".gemini", {"settings.json": settings, "AGENTS.md": facts})
    assert "~/.gemini/AGENTS.md" in a.ok("sync", "--user")
    same_identity(a, b)
    b.ok("sync", "--user")
    assert (b.home / ".gemini/GEMINI.md").read_text() == facts
    (b.home / ".gemini/GEMINI.md").write_text(facts + "- staging first\n")
    b.ok("sync", "--user")
    a.ok("sync", "--user")
    assert (a.home / ".gemini/AGENTS.md").read_text() == facts + "- staging first\n"
    assert not (a.home / ".gemini/GEMINI.md").exists()


@pytest.mark.parametrize(
    "name", ['"../escape.md"', '"sub/x.md"', '".hidden.md"', '"notes.txt"', "[]", "7"]
)
def test_a_gemini_file_name_that_is_no_plain_markdown_name_is_not_followed(
    tmp_path: Path, name: str
) -> None:
    from gitmem.project.adapters import gemini_memory_name

    (tmp_path / "settings.json").write_text('{"context": {"fileName": ' + name + "}}")
    assert gemini_memory_name(tmp_path) == "GEMINI.md"
