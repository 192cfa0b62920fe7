"""A newcomer's day, twelfth round: project folders named as the user knows them (relative to
the work tree, else `~/`) by every command that names one; one wording, from one place, for a
machine that cannot open the personal memory; `query --scope user` outside a clone; a secret
given in a sentence. Each failed before its fix (docs/history/testing.md "Newcomer, round 12")."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gitmem.policy.secrets import scan_secrets
from tests.support.world import World, write_files

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "real"


def test_every_command_names_a_project_folder_as_the_user_knows_it(tmp_path: Path) -> None:
    """init, status, doctor, curate, graph and restore printed the scope folders absolute
    (`/home/ann/.claude/projects/-home-ann-p/memory`, `/home/ann/p/.claude/agent-memory`)
    where `sync --user` already said `~/…`: each now names them as `core.userdirs.tilde` does
    (relative to the work tree inside it, else `~/`); the JSON keeps absolute paths."""
    world = World(tmp_path)
    world.make_remote()
    proj = world.clone("p")
    auto = world.scope_path(proj, "auto")
    write_files(auto, {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "b\n"})
    short = "~/" + str(auto.relative_to(world.home))
    init = world.ok("-C", str(proj), "init")
    assert f"  auto    {short}  ->  " in init, init
    assert "  agents  .claude/agent-memory  ->  " in init, init
    world.ok("-C", str(proj), "sync")
    status = world.ok("-C", str(proj), "status")
    assert f"\n          {short}\n" in status and "\n          .claude/agent-memory\n" in status
    doctor = world.gitmem("-C", str(proj), "doctor").out
    assert f"folder auto: {short}: 2 files" in doctor, doctor
    assert "folder agents: .claude/agent-memory: 0 files" in doctor, doctor
    curate = world.ok("-C", str(proj), "curate")
    assert curate.startswith(f"{short}/MEMORY.md is already curated"), curate
    graph = world.ok("-C", str(proj), "graph")
    assert graph.splitlines()[0].endswith(f" in {short}"), graph
    (auto / "b.md").unlink()
    restore = world.ok("-C", str(proj), "restore", "auto/b.md")
    assert restore.startswith(f"restored {short}/b.md from "), restore
    for text in (init, status, doctor, curate, graph, restore):
        body = text.replace(str(world.remote), "")  # the remote's URL is named as given
        assert str(world.home) not in body and str(proj) not in body, text
    as_json = json.loads(world.ok("-C", str(proj), "status", "--json"))
    assert str(auto) in [s["path"] for s in as_json["scopes"]], as_json


def test_a_machine_that_cannot_open_the_personal_memory_is_told_one_way(tmp_path: Path) -> None:
    """A second machine, synced but not granted: sync said "encrypted with a key this machine
    does not have; on a machine that has it run: …", status "read your encrypted personal
    memory here: on a machine that has the key: … and gitmem sync there, then gitmem sync
    here", query "this machine has no key for it" (it had one), doctor "a key this machine
    lacks". One sentence and one step now (privacy/layout.py), as the guide's table lists."""
    world = World(tmp_path)
    world.make_remote()
    proj = world.clone("p")
    write_files(world.scope_path(proj, "auto"), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "b\n"})
    world.ok("-C", str(proj), "sync")
    laptop = World(tmp_path / "laptop")
    there = laptop.clone("p", url=str(world.remote))
    sync = laptop.ok("-C", str(there), "sync")
    (recipient,) = re.findall(r"gitmem key grant '([^']+)'", sync)
    said = (
        "your personal memory is encrypted with a key this machine does not have; on a machine "
        f"that has it run: gitmem key grant '{recipient}', then gitmem sync there and here"
    )
    assert said in sync, sync
    assert f"next: {said}\n" in laptop.ok("-C", str(there), "status")
    query = laptop.gitmem("-C", str(there), "query", "--search", "b")
    assert query.err == f"no memory found; {said}\n", query.err
    doctor = laptop.gitmem("-C", str(there), "doctor").out
    step = said.split("; ", 1)[1]
    assert f"PROBLEM key: {said.split(';')[0]}\n        fix: {step}\n" in doctor, doctor
    world.ok("-C", str(proj), "key", "grant", recipient)  # the step, as said, works
    world.ok("-C", str(proj), "sync")
    laptop.ok("-C", str(there), "sync")
    assert (laptop.scope_path(there, "auto") / "b.md").read_text() == "b\n"


def test_a_dry_run_without_a_key_names_no_placeholder(tmp_path: Path) -> None:
    """`sync --user --dry-run` on a machine with no key told to run `gitmem key grant --user
    '<what gitmem key show prints here>'` (and `key show` fails there): it names the key
    init that prints the recipient, as every other no-key step does."""
    world = World(tmp_path)
    hub = tmp_path / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    write_files(world.home / ".claude", {"CLAUDE.md": "- mine\n"})
    world.ok("sync", "--user")
    laptop = World(tmp_path / "laptop")
    laptop.git("config", "--global", "gitmem.hub", str(hub))
    write_files(laptop.home / ".claude", {"CLAUDE.md": "- the laptop's\n"})
    dry = laptop.gitmem("sync", "--user", "--dry-run")
    assert "<" not in dry.out and "key show" not in dry.out, dry.out
    assert (
        "a key this machine does not have; gitmem key init here, then on a machine that has "
        "the key gitmem key grant --user RECIPIENT (the recipient it printed)"
    ) in dry.out, dry.out


def test_query_of_the_user_scope_works_outside_a_clone(tmp_path: Path) -> None:
    """`gitmem query --scope user` in `~` was refused ("not a git repository") with a hint to
    run it in a clone, though the user scope needs none: it searches the user scope's own
    store; a query of a project's memory outside a clone names it as the way."""
    world = World(tmp_path)
    hub = tmp_path / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    write_files(world.home / ".claude", {"CLAUDE.md": "# Me\n- always tabs in Makefiles\n"})
    world.ok("sync", "--user", cwd=world.home)
    found = world.ok("query", "--scope", "user", "--search", "tabs", cwd=world.home)
    assert found.startswith("[memory] user/CLAUDE.md"), found
    as_json = json.loads(world.ok("query", "--scope", "user", "--recent", "--json", cwd=world.home))
    assert [n["id"] for n in as_json["nodes"]] == ["user/CLAUDE.md"], as_json
    assert sorted(p.name for p in world.home.iterdir()) == [
        ".claude",
        ".config",
        ".gitconfig",
        ".local",
    ]
    project = world.gitmem("query", "--search", "tabs", cwd=world.home)
    assert project.code == 2 and "gitmem query --scope user" in project.err, project.err


SAID_IN_A_SENTENCE = [
    "the password is hunter2",
    "The staging password is Tr0ub4dor&3 for now.",
    "- password: hunter2",
    'the db password was "s3cr3t!x".',
    "the deploy token is 8f3a9c2e1b7d4e5f6a",
    "Our shared secret is Zx81-Qq7p-Lm2k-Rt5w, ask Ann before rotating it.",
]
ORDINARY = [
    "the password is stored in vault",
    "the password is $DB_PASSWORD",
    "password: see 1Password",
    "passwords are hashed with bcrypt",
    "the password is at least 12 characters",
    "the password is in ~/.pgpass",
    "the sort key is created_at",
    "the key is 2024-01-01",
    "Password reset: 24h",
    "a token is `args[token.index]`",
    "pwd: 3.0-",
    "the token is refreshed every hour",
]


def test_a_secret_given_in_a_sentence_is_found_and_ordinary_text_is_not(tmp_path: Path) -> None:
    """The secret check knew tokens by their format and `NAME=value` lines, not a password
    given in prose ("the password is hunter2"): too short for the entropy an assignment
    needs. Found now; ordinary memory text (the list, the real corpus) stays clean, and a
    sync refuses such a memory like any other secret."""
    for text in SAID_IN_A_SENTENCE:
        assert [m.message.split(" (")[0] for m in scan_secrets(text)] == [
            "secret given in a sentence"
        ], text
    for text in ORDINARY:
        assert scan_secrets(text) == [], text
    corpus = [p for p in CORPUS.rglob("*") if p.is_file()] if CORPUS.is_dir() else []
    for path in corpus:
        assert scan_secrets(path.read_text("utf-8", "replace")) == [], path
    world = World(tmp_path)
    world.make_remote()
    proj = world.clone("p")
    write_files(
        world.scope_path(proj, "team"),
        {"MEMORY.md": "- [Staging](staging.md) — staging\n", "staging.md": SAID_IN_A_SENTENCE[0]},
    )
    run = world.gitmem("-C", str(proj), "sync")
    assert "secret given in a sentence" in run.out + run.err, run
    assert "hunter2" not in world.git("--git-dir", str(world.remote), "log", "--all", "-p")


@pytest.mark.slow
def test_a_second_agent_needs_no_second_grant(tmp_path: Path) -> None:
    """Two machines of one person, the laptop granted for Claude Code's user memory; then
    Gemini enabled on both: the first machine's Gemini store got a key of its own, sealed to
    it alone, and the laptop needed a second grant (and a second round of syncs) per agent.
    A store's first key now opens for the machines the person's other user-scope memory is
    granted to, and the laptop takes it (no `key trust`, no grant): one grant per machine."""
    hub = tmp_path / "hub.git"
    desk, laptop = World(tmp_path / "desk"), World(tmp_path / "laptop")
    desk.git("init", "-q", "--bare", str(hub))
    for w in (desk, laptop):
        w.git("config", "--global", "gitmem.hub", str(hub))
    write_files(desk.home / ".claude", {"CLAUDE.md": "- claude on the desk\n"})
    desk.ok("sync", "--user")
    asked = laptop.gitmem("sync", "--user").out
    (recipient,) = set(re.findall(r"gitmem key grant --user '([^']+)'", asked))
    desk.ok("key", "grant", "--user", recipient)  # the one grant
    desk.ok("sync", "--user")
    laptop.ok("sync", "--user")
    for w in (desk, laptop):
        w.git("config", "--global", "gitmem.agents", "claude,gemini")
    saved = "## Gemini Added Memories\n- gemini on the desk\n"  # save_memory's section
    write_files(desk.home / ".gemini", {"GEMINI.md": saved})
    first = desk.ok("sync", "--user")
    assert "opened too by the 1 other machine your other user-scope memory is granted to" in first
    there = laptop.gitmem("sync", "--user")
    assert there.code == 0 and "key grant" not in there.out, there
    assert (laptop.home / ".gemini" / "GEMINI.md").read_text() == saved


def test_the_demo_says_whose_home_its_tilde_is() -> None:
    """`gitmem demo` printed `restored ~/.claude/projects/-tmp-gitmem-demo-…/testing.md` and
    `identity ~/.config/gitmem/identity` (its commands name files from `~/`, the demo's own
    temporary home) without saying so: a newcomer looked in their own ~/.claude. The demo
    now names its home first, and its memory folders from it, as the commands do."""
    import subprocess
    import sys

    from tests.support.world import REPO_ROOT

    out = subprocess.run(
        [sys.executable, "-m", "gitmem", "demo"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=120,
        check=True,
    ).stdout
    (home,) = re.findall(
        r"\n  home \(~\)      (\S+)  \(the demo's own: ~ below is this folder\)", out
    )
    assert out.index("  home (~)") < out.index("~/"), out
    assert f"{home}/" not in out and "  A's memory    ~/.claude/projects/" in out, out
