"""A newcomer's day, fifteenth round, beyond one project and one agent: a project renamed on its
forge, a fork beside its upstream, the user scope and other agents' scopes named as status
--user names them, "personal" meaning both personal scopes. Each failed before its fix
(docs/history/testing.md "Newcomer walk, round 15")."""

from __future__ import annotations

import shlex
from pathlib import Path

from tests.support.world import World, write_files


def _renamed_project(tmp_path: Path) -> tuple[World, Path, Path]:
    """Alice's memory on the project's remote; then the repository is renamed (a new URL) and
    Bob clones it under the new name: the refs came along, recorded under the old name."""
    world = World(tmp_path)
    world.make_remote("shop.git")
    alice = world.clone("alice/shop", url=str(tmp_path / "shop.git"))
    write_files(
        world.scope_path(alice, "team"), {"MEMORY.md": "- [D](deploy.md)\n", "deploy.md": "Tue\n"}
    )
    world.ok("sync", cwd=alice)
    (tmp_path / "shop.git").rename(tmp_path / "shop-app.git")
    bob = world.clone("bob/shop-app", url=str(tmp_path / "shop-app.git"), email="bob@example.com")
    return world, alice, bob


def test_the_adopt_hint_runs_as_printed_in_the_clone(tmp_path: Path) -> None:
    """The refusal of a ref recorded under another URL named `gitmem -C /abs/path adopt`
    (unquoted: a path with a space broke it), where every other hint names the command as
    typed in the clone. Now `gitmem adopt`, which run as printed there adopts, and the
    memory arrives."""
    world, _, bob = _renamed_project(tmp_path)
    refused = world.gitmem("sync", cwd=bob)
    assert refused.code == 2, refused
    hint = refused.err.split("hint: ", 1)[1]
    assert "gitmem -C" not in hint and str(bob) not in hint, hint
    command = hint.split("run once: ", 1)[1].split(" — ", 1)[0]
    assert command == "gitmem adopt", hint
    assert "adopted: " in world.ok(*shlex.split(command)[1:], cwd=bob)
    world.ok("sync", cwd=bob)
    assert (world.scope_path(bob, "team") / "deploy.md").read_text() == "Tue\n"


def test_personal_and_shared_name_both_of_their_scopes(tmp_path: Path) -> None:
    """`--scope personal` was answered "did you mean auto?": the personal ref holds auto AND
    local (init says "personal memory (auto, local)"), and a query of auto alone misses the
    subagents' local memory. The hint names both, and following it finds both."""
    world = World(tmp_path)
    world.make_remote()
    clone = world.clone("p")
    write_files(
        world.scope_path(clone), {"MEMORY.md": "- [R](redis.md)\n", "redis.md": "redis 5s\n"}
    )
    write_files(clone / ".claude" / "agent-memory-local" / "dev", {"redis.md": "redis local\n"})
    for command in (("query", "redis"), ("sync", "--dry-run")):
        for word, meant in (("personal", "auto and local"), ("shared", "team and agents")):
            run = world.gitmem(*command, "--scope", word, cwd=clone)
            assert run.code == 2 and f"hint: did you mean {meant} (" in run.err, run
    found = world.ok("query", "redis", "--scope", "auto", "--scope", "local", cwd=clone)
    assert "auto/redis.md" in found and "local/dev/redis.md" in found, found
    # a door that takes one scope: the one a memory is written to
    record = world.gitmem("record", "--scope", "personal", "--title", "X", "y", cwd=clone)
    assert record.code == 2 and "did you mean '--scope auto'?" in record.err, record


def test_user_scopes_as_status_user_names_them(tmp_path: Path) -> None:
    """`status --user` and `sync --user` name the user scopes by agent (`user claude:`,
    `claude 1 file …`); query names them `user`, `user-codex`. `query --scope claude` got
    the list without `user`, and `sync --scope claude|codex|user-codex` or `record --scope
    codex` the project's scopes only, never where user memory syncs. Now query says user,
    and the project doors say user memory syncs apart, with gitmem sync --user."""
    world = World(tmp_path)
    world.make_remote()
    clone = world.clone("p")
    world.git("config", "--global", "gitmem.agents", "claude,codex")
    run = world.gitmem("query", "--scope", "claude", "x", cwd=clone)
    assert run.code == 2 and "hint: did you mean user (" in run.err, run
    for command in (("sync", "--dry-run"), ("record", "--title", "X", "y")):
        for word in ("claude", "codex", "user-codex"):
            run = world.gitmem(*command, "--scope", word, cwd=clone)
            assert run.code == 2 and "with gitmem sync --user" in run.err, (word, run)


def test_a_renamed_project_on_the_hub_is_not_said_deleted(tmp_path: Path) -> None:
    """The hub keeps each project's personal memory under its URL's key. After the forge's
    rename and `git remote set-url`, the sync said "the remote no longer had … (deleted
    there): pushing ours back" — alarming, and untrue. Now it says the URL changed, where
    the old copy is, and pushes under the new name, the memory intact."""
    world = World(tmp_path)
    old, new = tmp_path / "shop.git", tmp_path / "shop-app.git"
    world.make_remote(old.name)
    alice = world.clone("alice/shop", url=str(old))
    hub = tmp_path / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    write_files(world.scope_path(alice), {"MEMORY.md": "- [B](b.md)\n", "b.md": "mine\n"})
    world.ok("sync", cwd=alice)
    old.rename(new)  # renamed on the forge
    world.git("remote", "set-url", "origin", str(new), cwd=alice)
    out = world.ok("sync", cwd=alice)
    assert "deleted there" not in out, out
    assert "it was synced as 'file:/" in out and "before (a repository renamed or moved)" in out
    assert "the copy under the old URL stays on the hub" in out, out
    names = world.git("for-each-ref", "--format=%(refname)", cwd=hub).split()
    assert len([n for n in names if "/projects/file" in n]) == 2, names
    assert (world.scope_path(alice) / "b.md").read_text() == "mine\n"


def test_tilde_n_is_n_versions_back_as_the_help_and_guide_say(tmp_path: Path) -> None:
    """The guide's `gitmem diff '~1'  # what the last sync changed; '~N': N syncs ago`, and
    the help's "N syncs ago": a sync that merged made two versions (the edits, then the
    merge), and `diff '~1'` after it left out half of what that sync changed. The help, the hints
    and the guide now say versions, as gitmem log lists them; '~2' holds both."""
    world = World(tmp_path)
    world.make_remote()
    a, b = world.clone("a"), world.clone("b")
    write_files(world.scope_path(a, "team"), {"deploy.md": "Tue\n"})
    for clone in (a, b):
        world.ok("sync", cwd=clone)
    write_files(world.scope_path(b, "team"), {"MEMORY.md": "- from b\n"})
    world.ok("sync", cwd=b)
    write_files(world.scope_path(a, "team"), {"notes.md": "from a\n"})
    world.ok("sync", cwd=a)  # one sync, two versions: a's notes.md and b's MEMORY.md
    last = world.ok("diff", "~1", "--path", "team", cwd=a)
    assert ("+- from b" in last) != ("+from a" in last), last
    both = world.ok("diff", "~2", "--path", "team", cwd=a)
    assert "+- from b" in both and "+from a" in both, both
    assert "N versions back" in world.ok("diff", "--help", cwd=a)
    guide = world.ok("guide", "6", cwd=a)
    assert "syncs ago" not in guide and "'~N': N versions back, as log lists them" in guide


def _guide_faq(world: World, clone: Path, question: str) -> str:
    guide = world.ok("guide", "11", cwd=clone)
    assert f"**{question}" in guide, f"the guide is silent on {question!r}"
    return guide.split(f"**{question}", 1)[1].split("\n\n", 1)[0]


def test_a_fork_beside_its_upstream_as_the_guide_says(tmp_path: Path) -> None:
    """The guide was silent on forks: a clone of a fork syncs with the fork (`origin`), which
    a forge's fork leaves without `refs/gitmem/*`, so the team's memory never came. Its
    answer, run as written: the team's memory arrives, and nothing reaches the fork."""
    world = World(tmp_path)
    world.make_remote()
    alice = world.clone("alice")
    write_files(world.scope_path(alice, "team"), {"deploy.md": "Tue\n"})
    world.ok("sync", cwd=alice)
    fork = tmp_path / "fork.git"
    world.git("clone", "-q", "--bare", str(world.remote), str(fork))  # branches, tags only
    bob = world.clone("bob", url=str(fork), email="bob@example.com")
    world.git("remote", "add", "upstream", str(world.remote), cwd=bob)
    answer = _guide_faq(world, bob, "A fork, or a clone with two remotes?")
    command = next(c for c in answer.split("`") if c == "gitmem init --remote upstream")
    world.ok(*shlex.split(command)[1:], cwd=bob)
    world.ok("sync", cwd=bob)
    assert (world.scope_path(bob, "team") / "deploy.md").read_text() == "Tue\n"
    assert world.git("ls-remote", str(fork), "refs/gitmem/*") == ""


def test_a_renamed_repository_as_the_guide_says(tmp_path: Path) -> None:
    """The guide was silent on a repository renamed on its forge. As it now says: a clone
    that synced before keeps syncing after `git remote set-url`; a clone made under the new
    URL is refused once, `gitmem adopt` there, and both sync on."""
    world, alice, bob = _renamed_project(tmp_path)
    answer = _guide_faq(world, alice, "The repository was renamed or moved (a new URL)?")
    assert "git remote set-url origin NEW_URL" in answer and "`gitmem adopt`" in answer
    world.git("remote", "set-url", "origin", str(tmp_path / "shop-app.git"), cwd=alice)
    world.ok("sync", cwd=alice)
    assert world.gitmem("sync", cwd=bob).code == 2
    world.ok("adopt", cwd=bob)
    write_files(world.scope_path(bob, "team"), {"new.md": "from bob\n"})
    world.ok("sync", cwd=bob)
    world.ok("sync", cwd=alice)
    assert (world.scope_path(alice, "team") / "new.md").read_text() == "from bob\n"


def test_record_names_its_folders_as_every_other_command_does(tmp_path: Path) -> None:
    """`record` said `recorded auto/x.md (/home/ann/.claude/projects/…/x.md)` and its
    subagent hint `/home/ann/src/p/.claude/agent-memory-local/AGENT/`, where restore,
    promote, init and status say `~/.claude/…` and `.claude/agent-memory-local`."""
    world = World(tmp_path)
    world.make_remote()
    clone = world.clone("p")
    out = world.ok("record", "--title", "Deploy window", "Tuesdays.", cwd=clone)
    assert out.startswith("recorded auto/deploy_window.md (~/"), out
    run = world.gitmem("record", "--scope", "local", "--title", "Lint", "ruff", cwd=clone)
    assert run.code == 2 and "(.claude/agent-memory-local/AGENT/ is what" in run.err, run
    out = world.ok(
        "record", "--scope", "local", "--file", "dev/lint.md", "--title", "L", "ruff", cwd=clone
    )
    assert "(.claude/agent-memory-local/dev/lint.md)" in out, out
    assert str(tmp_path) not in out + run.err


def test_outside_a_clone_every_history_command_names_its_user_scope_form(
    tmp_path: Path,
) -> None:
    """With a hub, `status`, `sync` and `query` outside a clone named their user-scope form,
    each worded its own way (three copies of one rule); `log`, `diff`, `show` and `restore`,
    which the guide's FAQ says work from any folder by id, named nothing. Now one rule says
    it alike for each, and each form runs as printed where the error was."""
    world = World(tmp_path)
    hub = tmp_path / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    write_files(world.home / ".claude", {"CLAUDE.md": "- prefer tabs\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    world.ok("sync", "--user", cwd=outside)
    typed = {
        "status": ("status",),
        "sync": ("sync",),
        "query": ("query", "tabs"),
        "log": ("log",),
        "diff": ("diff",),
        "show": ("show", "~0:auto/x.md"),
        "restore": ("restore", "auto/x.md"),
    }
    for name, args in typed.items():
        run = world.gitmem(*args, cwd=outside)
        assert run.code == 2 and "not a git repository" in run.err, (name, run)
        form = run.err.split("your user-scope memory needs no clone: ", 1)[-1].strip()
        assert form.startswith(f"gitmem {name}"), (name, run.err)
        world.ok(*shlex.split(form)[1:], cwd=outside)


def test_unpublish_given_a_scope_names_the_ref_that_carries_it(tmp_path: Path) -> None:
    """`unpublish` names refs (personal, team) where every other command names scopes: a
    newcomer's `gitmem unpublish auto` got "not a memory ref; name one of: personal, team",
    which of the two carries auto unsaid. Now the one meant, and why; nothing deleted."""
    world = World(tmp_path)
    world.make_remote()
    clone = world.clone("p")
    write_files(world.scope_path(clone, "team"), {"deploy.md": "Tue\n"})
    world.ok("sync", cwd=clone)
    before = world.git("ls-remote", str(world.remote), "refs/gitmem/*")
    for typed, meant in (("auto", "personal"), ("local", "personal"), ("agents", "team")):
        for undo in ((), ("--undo",)):
            run = world.gitmem("unpublish", *undo, typed, cwd=clone)
            assert run.code == 2 and f"hint: did you mean {meant}? " in run.err, run
    run = world.gitmem("unpublish", "user", cwd=clone)
    assert run.code == 2 and "user-scope memory is no project's" in run.err, run
    assert world.git("ls-remote", str(world.remote), "refs/gitmem/*") == before


def test_backing_out_of_recall_as_a_newcomer_types_it(tmp_path: Path) -> None:
    """The undo of `hooks install --claude --mcp --recall`, typed with the same flags, was
    "unrecognized arguments: --mcp; see --help"; and `hooks uninstall`, `hooks status` and
    `uninstall` named the files by absolute path where install says `~/…` (round 14; round 16:
    in the work tree from its top, as status names its folders). Now the
    hint says uninstall --claude takes all three out, and every line names files alike."""
    world = World(tmp_path)
    world.make_remote()
    clone = world.clone("home/p")
    guide = world.ok("guide", "6", cwd=clone)  # it was silent on recall's set-up
    assert "`gitmem hooks install --claude --mcp --recall` registers the MCP" in guide
    world.ok("hooks", "install", "--claude", "--mcp", "--recall", cwd=clone)
    assert (clone / ".mcp.json").is_file() and world.git("status", "--short", cwd=clone) == ""
    run = world.gitmem("hooks", "uninstall", "--claude", "--mcp", "--recall", cwd=clone)
    assert (
        run.code == 2 and "hooks uninstall --claude takes out the sync hooks, the recall" in run.err
    )
    status = world.ok("hooks", "status", cwd=clone)
    assert " in .mcp.json" in status, status
    out = world.ok("hooks", "uninstall", "--claude", cwd=clone)
    assert "MCP approval from .claude/settings.local.json\n" in out, out
    assert "removed the gitmem MCP server from .mcp.json\n" in out, out
    assert not (clone / ".mcp.json").exists()
    world.ok("hooks", "install", "--claude", "--mcp", "--recall", cwd=clone)
    world.ok("sync", cwd=clone)
    out = world.ok("uninstall", cwd=clone)
    assert "kept: .git/gitmem (sync state" in out, out
    assert str(world.home) not in out, out


def test_the_demo_ends_with_the_next_step(tmp_path: Path) -> None:
    """`gitmem demo`, the README's first command, ended on its claim line: every other
    command a newcomer runs first ends with `next:`. Now the demo names the two commands of
    guide §3, which run as printed in a clone."""
    world = World(tmp_path)
    world.make_remote()
    clone = world.clone("p")
    out = world.ok("demo", cwd=tmp_path)
    last = out.rstrip().splitlines()[-1]
    assert (
        last == "next: in a clone of your project: gitmem init, then gitmem sync (gitmem guide 3)"
    )
    for command in ("gitmem init", "gitmem sync"):
        world.ok(*shlex.split(command)[1:], cwd=clone)
    assert "## 3. One machine" in world.ok("guide", "3", cwd=clone)
