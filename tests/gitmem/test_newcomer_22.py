"""What the round-22 newcomer walk tripped on (a fresh HOME that read only the README and the
guide), each fixed as a class; each test failed before its fix. Real git, bare remotes, a
temporary HOME; two HOMEs for a second machine."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gitmem.cli import main
from tests.support.personal import laptop_not_granted
from tests.support.world import World, write_files


@pytest.mark.parametrize(
    ("argv", "before", "fixed"),
    [
        # was: "--json is an option of init, status, … not of status" (it is status's)
        (["--json", "status"], "--json", "gitmem status --json"),
        (["--dry-run", "sync"], "--dry-run", "gitmem sync --dry-run"),
        # was: "unknown command 'origin'"
        (["--remote", "origin", "status"], "--remote", "gitmem status --remote origin"),
        # was: "unknown command '3'"
        (["-n", "3", "log"], "-n", "gitmem log -n 3"),
        # a group's options are its subcommand's; -C stays where it may stand
        (["--json", "key", "show"], "--json", "gitmem key show --json"),
        (["-C", "my proj", "--fetch", "status"], "--fetch", "gitmem -C 'my proj' status --fetch"),
    ],
)
def test_a_command_s_option_typed_before_the_command_says_where_it_goes(
    argv: list[str], before: str, fixed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2, err
    assert err[0].startswith(f"gitmem: error: {before} stands before the command "), err
    assert err[1].startswith(f"hint: {fixed} (only -C, --memory-dir and --debug"), err
    assert "unknown command" not in err[0] and "not of" not in err[1], err


def test_options_that_may_stand_before_the_command_and_unknown_commands_keep_their_answers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["frob"]) == 2
    assert "unknown command 'frob'" in capsys.readouterr().err
    assert main(["-C", ".", "status", "--jsn"]) == 2
    assert "did you mean --json?" in capsys.readouterr().err
    assert main(["status", "--scope", "team"]) == 2  # after the command: that command's answer
    assert "--scope is an option of" in capsys.readouterr().err
    assert main(["--fetch"]) == 2  # no command at all: was "see 'gitmem --help'"
    hint = capsys.readouterr().err.splitlines()[1]
    assert hint.startswith("hint: --fetch is an option of status: it goes after the command"), hint
    assert "(gitmem status --fetch;" in hint, hint


def test_a_laptop_without_the_key_is_told_the_grant_at_every_history_door(
    tmp_path: Path,
) -> None:
    """A second machine of the same person, before the grant: `log auto/b.md`, `show`,
    `restore`, `promote` said "run gitmem sync first" / "gitmem pull first" (which changes
    nothing), and `gitmem log` listed the team's history alone, as if the personal memory had
    none. Each now names the key this machine lacks and the grant, as sync and query do."""
    desk, here, laptop, there, recipient = made = laptop_not_granted(tmp_path)
    grant = made.grant

    for args in (
        ("log", "auto/b.md"),
        ("log", "--json", "auto/b.md"),
        ("show", "~0:auto/b.md"),
        ("restore", "auto/b.md"),
        ("promote", "auto/b.md"),
    ):
        run = laptop.gitmem("-C", str(there), *args)
        assert run.code == 2, (args, run.out, run.err)
        hint = run.err.splitlines()[-1]
        assert hint.startswith("hint: your personal memory is encrypted with a key this machine"), (
            args,
            run.err,
        )
        assert grant in hint and "sync first" not in hint and "pull first" not in hint, hint

    # a key change here said "is behind origin: run gitmem sync first", which never changes it
    for args in (("key", "rotate"), ("key", "grant", recipient)):
        run = laptop.gitmem("-C", str(there), *args)
        assert run.code == 2, (args, run.out, run.err)
        what, hint = run.err.splitlines()
        assert what.endswith(f"does not have: a key {args[1]} needs it"), what
        assert (
            hint == f"hint: on a machine that has it run: {grant}, then gitmem sync there and here"
        )

    run = laptop.gitmem("-C", str(there), "log")
    assert run.code == 0 and "A team/t.md" in run.out, run.out + run.err
    assert run.err.startswith("note: your personal memory's history is not listed: "), run.err
    assert grant in run.err, run.err
    # an error that is not "nothing here" keeps its own hint (a branch's commit named as REV)
    run = laptop.gitmem("-C", str(there), "show", "HEAD:auto/b.md")
    assert run.code == 2 and "key grant" not in run.err and "gitmem log" in run.err, run.err
    # a team memory's error keeps its own hint; the desk, which has the key, is told nothing new
    run = laptop.gitmem("-C", str(there), "log", "team/nope.md")
    assert run.code == 2 and "key grant" not in run.err, run.err
    run = desk.gitmem("-C", str(here), "log")
    assert run.code == 0 and run.err == "", run.err
    desk.ok("-C", str(here), "key", "grant", recipient)  # where the key is, the grant works


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        # each said only "see 'gitmem … --help'"
        (["sync", "--scope"], "--scope SCOPE: only this scope (auto, team, agents, local)"),
        (["status", "--remote"], "--remote NAME: the remote to sync through"),
        (["-C"], "-C PATH: run as if gitmem was started in PATH"),
        (["completion"], "SHELL: bash, zsh or fish"),
        (["key", "grant"], "RECIPIENT: age1…, an ssh public key or a .pub file"),
    ],
)
def test_a_missing_argument_is_answered_with_what_it_takes(
    argv: list[str], hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and err[1].startswith(f"hint: {hint}"), err
    assert err[1].endswith(" --help')"), err


def test_the_git_folder_hint_names_a_checkout_path_with_a_space_as_a_shell_reads_it(
    world: World,
) -> None:
    """`gitmem status` in `my proj é/.git` said "run gitmem in its working tree (-C /…/my proj
    é)": a path with a space, unquoted, is three words in a shell. Quoted now, it runs."""
    import shlex
    import subprocess

    a = world.clone("my proj é")
    run = world.gitmem("status", cwd=a / ".git")
    assert run.code == 2, run.err
    (quoted,) = re.findall(r"\(-C ('[^']+')\)", run.err)
    assert quoted == shlex.quote(str(a)), run.err
    shown = subprocess.run(
        ["sh", "-c", f"cd {quoted} && pwd -P"], check=True, capture_output=True, text=True
    )
    assert shown.stdout.strip() == str(a.resolve()), shown


def test_bash_completes_an_option_s_values_the_scopes_choices_and_remotes(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`gitmem sync --scope <TAB>` and `status --remote <TAB>` offered the folder's files (the
    option's value completed as a path). Now the scopes, an option's choices, the remotes."""
    from tests.e2e.test_ux_completion import complete

    a = world.clone("a")
    world.git("remote", "add", "fork", str(world.remote), cwd=a)
    script = tmp_path / "gitmem.bash"
    script.write_text(world.ok("completion", "bash"))

    monkeypatch.chdir(a)  # `git remote` answers for the folder the shell is in

    def offered(*words: str) -> list[str]:
        return complete(script, "gitmem", *words)

    assert offered("sync", "--scope", "") == ["auto", "team", "agents", "local"]
    assert offered("-C", ".", "pull", "--scope", "a") == ["auto", "agents"]
    assert offered("record", "--scope", "t") == ["team"]
    assert offered("log", "--color", "") == ["auto", "always", "never"]
    assert offered("status", "--remote", "") == ["fork", "origin"]
    assert "README.md" in offered("restore", "--at", "")  # a free value: still a path
    fish = world.ok("completion", "fish")
    assert "-l scope -x -a 'auto team agents local'" in fish, fish
    assert "-l remote -x -a '(git remote 2>/dev/null)'" in fish, fish


def test_init_remote_records_the_choice_every_refusal_names(world: World) -> None:
    """Two remotes, none origin, none tracked: sync refused with "choose one: gitmem init
    --remote NAME (records gitmem.remote)", but `init --remote a` recorded nothing (the remote
    named was taken for a guess) and the sync refused again — a loop. And a bare `init` said
    "next: gitmem sync", the command that refuses. Now init names the choice, and records it."""
    a = world.clone("a")
    world.git("remote", "rename", "origin", "one", cwd=a)
    world.git("config", "--unset", "branch.main.remote", cwd=a)
    world.git("remote", "add", "two", str(world.remote), cwd=a)

    said = world.ok("-C", str(a), "init").splitlines()
    assert said[-1] == (
        "next: gitmem init --remote NAME (records gitmem.remote), or git config "
        "checkout.defaultRemote NAME, then gitmem sync"
    ), said
    assert world.git("config", "gitmem.remote", cwd=a, check=False).strip() == ""
    assert world.gitmem("-C", str(a), "sync").code == 2

    said = world.ok("-C", str(a), "init", "--remote", "two").splitlines()
    assert said[0].endswith("(remote: two, user: tester@example.com)"), said
    assert said[-1] == "next: gitmem sync" and not any("choose one" in s for s in said), said
    assert world.git("config", "gitmem.remote", cwd=a).strip() == "two"
    world.ok("-C", str(a), "sync")
    assert "remote two " in world.ok("-C", str(a), "status").splitlines()[0]


def test_doctor_names_a_settings_file_that_is_not_json_once(world: World) -> None:
    """doctor said "PROBLEM hooks: /…/settings.local.json: /…/settings.local.json is not valid
    JSON (…)": the file twice, the round-21 class of a ref named twice."""
    a = world.clone("a")
    settings = a / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text("{bad json\n")
    run = world.gitmem("-C", str(a), "doctor")
    assert run.code == 1, run.out + run.err
    (line,) = [ln for ln in run.out.splitlines() if ln.startswith("PROBLEM hooks:")]
    assert line.count(str(settings)) == 1 and "is not valid JSON" in line, line


def test_hooks_install_in_a_bare_repository_says_it_is_one(world: World) -> None:
    """In a bare repository (the bare-plus-worktrees layout, or the remote itself) `hooks
    install --claude` said "--project needs a git repository: none found here" — it is one,
    without the working tree Claude Code reads its settings in."""
    run = world.gitmem("-C", str(world.remote), "hooks", "install", "--claude")
    assert run.code == 2, run.out + run.err
    what, hint = run.err.splitlines()
    assert what.startswith(f"gitmem: error: {world.remote} is a bare repository: "), what
    assert f"git -C {world.remote} worktree add PATH" in hint and "--user" in hint, hint
    assert not (world.remote / ".claude").exists()


def test_a_remote_asking_for_a_password_is_told_as_such(world: World) -> None:
    """An https remote that asks for credentials (no helper set): gitmem lets git prompt for
    nothing, and said "check the remote URL and your access (git fetch works?)" — it does, by
    asking. The hint now names the prompt gitmem never shows, and the two ways out."""
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class AsksForAPassword(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="shop"')
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), AsksForAPassword)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        a = world.clone("a")
        url = f"http://127.0.0.1:{server.server_address[1]}/acme/shop.git"
        world.git("remote", "set-url", "origin", url, cwd=a)
        run = world.gitmem("-C", str(a), "sync")
        checks = world.gitmem("-C", str(a), "doctor").out
    finally:
        server.shutdown()
        server.server_close()
    assert run.code == 3, run.out + run.err
    what, hint = run.err.strip().splitlines()[-2:]
    assert "could not read Username" in what, what
    assert hint.startswith(
        "hint: the remote asks for a user name and password, and gitmem never"
    ), hint
    assert "git fetch works?" not in hint and "credential.helper" in hint, hint
    assert "fix: the remote asks for a user name and password" in checks, checks


def test_a_memory_s_log_lists_no_merge_that_only_brought_it_along(world: World) -> None:
    """`gitmem log auto/notes.md` listed, above the commit that added the file, the merge that
    followed it ("merge origin/…", no file under it): a merge that took this memory from one
    side unchanged is no version of it (git's --simplify-merges). Merges that resolved it stay."""
    a, b = world.clone("a"), world.clone("b")
    for scope in ("auto", "team"):  # the personal ref, sealed, showed it
        write_files(world.scope_path(a, scope), {"MEMORY.md": "- [X](x.md) — x\n", "x.md": "x\n"})
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    (world.scope_path(a) / "x.md").write_text("x again\n")
    world.ok("-C", str(a), "sync")
    write_files(world.scope_path(b), {"notes.md": "y\n"})
    world.ok("-C", str(b), "sync")  # b's commit, then the merge with a's
    rows = json.loads(world.ok("-C", str(b), "log", "--json", "auto/notes.md"))
    assert [r["files"] for r in rows] == [[{"status": "A", "path": "auto/notes.md"}]], rows
    # a memory both changed: the losing edit and the merge that resolved it are listed
    (world.scope_path(a, "team") / "x.md").write_text("x from a\n")
    (world.scope_path(b, "team") / "x.md").write_text("x from b\n")
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    rows = json.loads(world.ok("-C", str(b), "log", "--json", "team/x.md"))
    assert any(r["resolved"] for r in rows), rows
    assert sum(r["files"] == [{"status": "M", "path": "team/x.md"}] for r in rows) == 2, rows
