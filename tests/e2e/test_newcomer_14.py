"""A newcomer's day, fourteenth round: the hooks of a gitmem uninstalled since exit quietly;
`view --out` takes `~`, a folder, refuses another file and the working tree; `record` with too
little names the form that works, and `--scope personal` the scope meant. Each failed before
its fix (docs/history/testing.md "Newcomer walk, round 14")."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.world import REPO_ROOT, World, teammates_sharing, write_files


def _hook_commands(settings: Path) -> dict[str, str]:
    data = json.loads(settings.read_text())
    return {
        event: group["hooks"][0]["command"]
        for event, groups in data["hooks"].items()
        for group in groups
    }


def _as_claude_code_runs_it(
    world: World, command: str, event: str, clone: Path
) -> tuple[int, str, str]:
    """The hook command through a shell, the event's JSON on stdin, as Claude Code runs it."""
    payload = {"session_id": "s", "cwd": str(clone), "hook_event_name": event, "prompt": "deploy"}
    proc = subprocess.run(
        ["sh", "-c", command],
        cwd=clone,
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=world.env,
        timeout=60,
    )
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def test_hooks_left_behind_by_an_uninstalled_gitmem_exit_quietly(tmp_path: Path) -> None:
    """`pip uninstall gitmem` leaves the hooks in .claude/settings.local.json. Each ran
    `PYTHON -I /…/gitmem/launch.py pull --hook`: Python's "can't open file", exit 2 — the
    code Claude Code reads as a blocking error — at every session start and end. Now each
    exits 0 and says nothing; doctor (of a gitmem installed again) names the launcher gone,
    and the install it hints puts the hooks back on it."""
    world = World(tmp_path)
    world.make_remote()
    _, bob, _ = teammates_sharing(world)
    site = tmp_path / "venv-site"  # an installed gitmem: its own copy of the package
    shutil.copytree(
        REPO_ROOT / "gitmem", site / "gitmem", ignore=shutil.ignore_patterns("__pycache__")
    )
    launcher = site / "gitmem" / "launch.py"
    argv = [sys.executable, "-I", str(launcher), "-C", str(bob)]
    installed = subprocess.run(
        [*argv, "hooks", "install", "--claude", "--recall"],
        env=world.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert installed.returncode == 0, installed.stderr
    commands = _hook_commands(bob / ".claude" / "settings.local.json")
    assert set(commands) == {"SessionStart", "SessionEnd", "UserPromptSubmit"}, commands
    assert all(str(site) in c for c in commands.values()), commands
    code, out, err = _as_claude_code_runs_it(world, commands["SessionStart"], "SessionStart", bob)
    assert code == 0 and "deploy only on Tuesdays" in out, (code, out, err)

    shutil.rmtree(site / "gitmem")  # pip uninstall gitmem
    for event, command in commands.items():
        assert _as_claude_code_runs_it(world, command, event, bob) == (0, "", ""), event

    doctor = world.gitmem("-C", str(bob), "doctor", "--offline")
    assert doctor.code == 1, doctor
    assert f"runs {launcher}, which is not there (a moved or removed install)" in doctor.out
    world.ok("-C", str(bob), "hooks", "install", "--claude")  # the fix doctor names
    again = world.gitmem("-C", str(bob), "doctor", "--offline")
    assert "not there" not in again.out and "PROBLEM hooks" not in again.out, again.out


def _synced_clone(tmp_path: Path) -> tuple[World, Path]:
    world = World(tmp_path)
    world.make_remote()
    clone = world.clone("p")
    write_files(world.scope_path(clone), {"MEMORY.md": "- [Build](build.md)\n", "build.md": "x\n"})
    world.ok("-C", str(clone), "sync")
    return world, clone


def test_view_out_as_a_newcomer_types_it(tmp_path: Path) -> None:
    """`view --out`: `~/x.html` quoted or `--out=~/x.html` (no shell expands those) failed with
    "cannot write in …/~"; a folder with "cannot write in PARENT: Is a directory" and a hint
    about permissions; an existing file (`~/.gitconfig`) was replaced by the page; `page.html`
    in the clone put every personal memory, in plaintext, into the working tree (charter 1)."""
    world, clone = _synced_clone(tmp_path)
    for typed in ("~/mem.html", "--out=~/eq.html"):
        args = [typed] if typed.startswith("--") else ["--out", typed]
        assert world.ok("view", *args, cwd=clone).startswith("wrote ")
    assert (world.home / "mem.html").is_file() and (world.home / "eq.html").is_file()
    assert not (clone / "~").exists()
    world.ok("view", "--out", "~/mem.html", cwd=clone)  # an earlier page is written over

    pages = tmp_path / "pages"
    pages.mkdir()
    for typed in (str(pages), f"{pages}/"):
        out = world.ok("view", "--out", typed, cwd=clone)
        assert out.startswith(f"wrote {pages / 'view.html'} "), out

    gitconfig = world.home / ".gitconfig"
    before = gitconfig.read_bytes()
    refused = world.gitmem("view", "--out", str(gitconfig), cwd=clone)
    assert refused.code == 2 and refused.err.count("\n") == 2, refused
    assert f"{gitconfig} exists and is not a page gitmem view wrote" in refused.err
    assert gitconfig.read_bytes() == before

    for typed, where in (("page.html", clone), ("../page.html", clone / "src")):
        where.mkdir(exist_ok=True)
        refused = world.gitmem("view", "--out", typed, cwd=where)
        assert refused.code == 2 and "lies in the git working tree of" in refused.err, refused
        assert "nothing was written" in refused.err
    assert not (clone / "page.html").exists()
    assert world.git("status", "--porcelain", cwd=clone) == ""
    assert world.ok("view", "--out", ".git/page.html", cwd=clone).startswith("wrote ")


def test_record_and_scopes_as_a_newcomer_first_types_them(tmp_path: Path) -> None:
    """`gitmem record 'text'` said only "--title is required; see --help"; `--scope personal`
    (the docs' word: `unpublish personal`, "personal memory") got the list without the one
    meant. The hint's record runs as printed; personal is auto, shared is team."""
    world, clone = _synced_clone(tmp_path)
    run = world.gitmem("record", "Deploys happen on Tuesdays.", cwd=clone)
    assert run.code == 2 and "required: --title" in run.err, run
    hint = run.err.split("hint: ", 1)[1]
    form = hint.split(" (see ")[0]
    assert form.startswith("gitmem record --title "), hint
    assert world.ok(*shlex.split(form)[1:], cwd=clone).startswith("recorded auto/")

    record = world.gitmem("record", "--scope", "personal", "--title", "X", "y", cwd=clone)
    assert record.code == 2 and "did you mean '--scope auto'?" in record.err, record
    for command in (("query", "x"), ("sync", "--dry-run")):
        for word, meant in (("personal", "auto and local"), ("shared", "team and agents")):
            run = world.gitmem(*command, "--scope", word, cwd=clone)
            assert run.code == 2 and f"hint: did you mean {meant} (" in run.err, run


def test_hooks_install_names_every_file_it_wrote_alike(tmp_path: Path) -> None:
    """`hooks install --claude --mcp --recall` named the settings file `~/p/.claude/…` and,
    two lines down, the same file and `.mcp.json` by their absolute paths. (Round 16: files
    in the work tree from its top, as status names its folders.)"""
    world = World(tmp_path)
    world.make_remote()
    clone = world.clone("home/p")
    out = world.ok("-C", str(clone), "hooks", "install", "--claude", "--mcp", "--recall")
    assert "registered the gitmem MCP server in .mcp.json\n" in out, out
    assert "recall hook in .claude/settings.local.json\n" in out, out
    assert str(world.home) not in out, out


def test_a_copied_key_works_as_the_guide_says(tmp_path: Path) -> None:
    """Guide §4, "Copying the key instead": the identity file copied to a new machine opens the
    personal memory there, its first sync refuses (exit 3, nothing written) naming the other
    machine's key it never asked for, `key trust` with it and a sync bring the memory."""
    world = World(tmp_path / "first")
    world.make_remote()
    first = world.clone("p")
    write_files(world.scope_path(first), {"MEMORY.md": "- [Build](build.md)\n", "build.md": "x\n"})
    world.ok("-C", str(first), "sync")
    laptop = World(tmp_path / "laptop")  # granted the usual way
    laptop.remote = world.remote
    lp = laptop.clone("p")
    laptop.ok("-C", str(lp), "sync")
    other = laptop.ok("key", "show").strip()
    world.ok("-C", str(first), "key", "grant", other)
    world.ok("-C", str(first), "sync")

    copied = World(tmp_path / "copied")
    copied.remote = world.remote
    (copied.home / ".config" / "gitmem").mkdir(parents=True)
    identity = world.home / ".config" / "gitmem" / "identity"
    shutil.copy2(identity, copied.home / ".config" / "gitmem" / "identity")
    cp = copied.clone("p")
    refused = copied.gitmem("-C", str(cp), "sync")
    assert refused.code == 3 and f"gitmem key trust {other}" in refused.err, refused
    assert not (copied.scope_path(cp) / "build.md").exists()
    copied.ok("-C", str(cp), "key", "trust", other)
    copied.ok("-C", str(cp), "sync")
    assert (copied.scope_path(cp) / "build.md").read_text() == "x\n"


def test_a_teammates_first_day_as_the_guide_says(tmp_path: Path) -> None:
    """Guide §5: bob clones, syncs: the team memory arrives, alice's personal ref is neither
    fetched nor readable. His doctor said "no key yet: the first sync makes one" after his
    first sync (it had no personal memory to seal): it names the sync that makes it."""
    world = World(tmp_path / "alice")
    world.make_remote()
    alice = world.clone("p", email="alice@example.com")
    write_files(world.scope_path(alice), {"MEMORY.md": "- mine\n", "team/deploys.md": "Tue\n"})
    world.ok("-C", str(alice), "sync")
    mate = World(tmp_path / "bob")  # his own machine: HOME, key, clone
    mate.remote = world.remote
    bob = mate.clone("p", email="bob@example.com")
    out = mate.ok("-C", str(bob), "sync")
    assert "< A team/deploys.md (by Test User)" in out, out
    assert (mate.scope_path(bob, "team") / "deploys.md").read_text() == "Tue\n"
    refs = mate.git("for-each-ref", "--format=%(refname)", cwd=bob)
    assert "alice" not in refs and "refs/gitmem/team" in refs, refs
    doctor = mate.gitmem("-C", str(bob), "doctor", "--offline")
    assert "ok      key: no key yet: the first sync with personal memory makes one" in doctor.out


def test_doctor_advises_reinstalling_hooks_an_earlier_gitmem_wrote(tmp_path: Path) -> None:
    """Hooks written before the guard (`test ! -f LAUNCHER || …`) fail loudly once gitmem is
    uninstalled; doctor says so while gitmem is still there, and the fix it names adds it."""
    world = World(tmp_path)
    world.make_remote()
    clone = world.clone("home/p")
    world.ok("-C", str(clone), "hooks", "install", "--claude")
    settings = clone / ".claude" / "settings.local.json"
    data = json.loads(settings.read_text())
    for groups in data["hooks"].values():
        for group in groups:
            for hook in group["hooks"]:
                words = shlex.split(hook["command"])
                assert words[:3] == ["test", "!", "-f"] and words[4] == "||", words
                hook["command"] = shlex.join(words[5:])  # as an earlier gitmem wrote it
    settings.write_text(json.dumps(data))
    advice = "were installed by an earlier gitmem"
    before = world.gitmem("-C", str(clone), "doctor", "--offline")
    assert advice in before.out and "gitmem hooks install --claude --project" in before.out, before
    world.ok("-C", str(clone), "hooks", "install", "--claude")
    after = world.gitmem("-C", str(clone), "doctor", "--offline")
    assert advice not in after.out, after
    assert all(c.startswith("test ! -f ") for c in _hook_commands(settings).values())
