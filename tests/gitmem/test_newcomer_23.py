"""What the round-23 newcomer walk tripped on (a fresh HOME that read only the README and the
guide), each fixed as a class; each test failed before its fix. Real git, bare remotes, a
temporary HOME. The wording policy: a usage error's hint names what works (the command line, or
what the command takes), and ends with where the rest is ("see 'gitmem … --help'")."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gitmem.cli import main
from tests.support.personal import laptop_not_granted
from tests.support.world import World, write_files


def two_lines(capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert not out and len(lines) == 2, (out, err)
    return lines[0], lines[1]


def test_a_group_alone_takes_its_listing_subcommand_s_options(world: World) -> None:
    """`gitmem key --json` was refused ("--json goes after the subcommand"), though `gitmem key`
    alone is `gitmem key list`: a group alone now runs its default with every option typed."""
    a = world.clone("a")
    write_files(world.scope_path(a), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "b\n"})
    world.ok("-C", str(a), "sync")  # the personal ref, sealed for this machine's key
    listed = world.ok("-C", str(a), "key", "list", "--json")
    assert json.loads(listed)[0]["this_machine"] is True, listed
    assert json.loads(world.ok("-C", str(a), "key", "--json")) == json.loads(listed)
    assert json.loads(world.ok("key", "-C", str(a), "--json")) == json.loads(listed)
    hooks = json.loads(world.ok("-C", str(a), "hooks", "--json"))
    assert [h["where"] for h in hooks] == ["project", "user"], hooks
    # a subcommand, a mistyped one and the group's help keep their answers
    assert json.loads(world.ok("-C", str(a), "key", "show", "--json"))["recipient"]
    run = world.gitmem("-C", str(a), "key", "grnat")
    assert run.code == 2 and "did you mean 'gitmem key grant'?" in run.err, run.err
    assert "usage: gitmem key [-h]" in world.ok("key", "--help")


def test_a_group_without_a_default_names_what_each_subcommand_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`gitmem bundle` said only "see 'gitmem bundle --help'"."""
    assert main(["bundle"]) == 2
    what, hint = two_lines(capsys)
    assert what == "gitmem: error: gitmem bundle needs a subcommand: create, unbundle"
    assert hint.startswith("hint: gitmem bundle create: commit your memory and write"), hint
    assert "; gitmem bundle unbundle: merge a bundle's memory refs" in hint, hint
    assert hint.endswith("(see 'gitmem bundle --help')"), hint


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        # each said "see 'gitmem … --help'" alone
        (["sync", "origin"], "a remote is named with --remote: gitmem sync --remote origin "),
        (
            ["-C", ".", "push", "--scope", "team", "origin", "main"],
            "a remote is named with --remote: gitmem -C . push --scope team --remote origin "
            "(see 'gitmem push --help'; memory syncs on refs/gitmem/*, never a branch: no main)",
        ),
        (
            ["status", "extra"],
            "gitmem status takes no argument; options: --remote NAME, --json, --fetch, --user ",
        ),
        (["log", "a", "b"], "gitmem log takes PATH; options: --max-count N, --oneline, --json"),
        (["key", "grant", "a", "b"], "gitmem key grant takes RECIPIENT; options: --user, --json"),
        (["uninstall", "--purge"], "gitmem uninstall takes no argument; options: --user, --json"),
        # git's options typed out of habit: what gitmem does instead
        (["pull", "--rebase"], "--rebase is git's, not gitmem pull's: gitmem merges memory refs"),
        (["log", "--grep", "x"], "--grep is git's, not gitmem log's: gitmem query WORDS finds"),
        (["log", "-p"], "-p is git's, not gitmem log's: gitmem log lists each commit's files;"),
        (["status", "-s"], "-s is git's, not gitmem status's: gitmem status --json gives"),
        (["log", "--all"], "--all is git's, not gitmem log's: gitmem log lists every scope's"),
        (["push", "--force"], "--force is git's, not gitmem push's: gitmem never force-pushes"),
        (["sync", "-s"], "gitmem sync takes no argument; options: --remote NAME"),  # status's
    ],
)
def test_a_word_a_command_does_not_take_is_answered_with_what_it_takes(
    argv: list[str], hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`pull --rebase` was told "did you mean --verbose?", `log --all` "--all is an option of
    validate"; the rest only "see --help". Now the line that works or what the command takes."""
    assert main(argv) == 2
    what, said = two_lines(capsys)
    assert what.startswith("gitmem: error: unrecognized arguments: "), what
    assert said.startswith(f"hint: {hint}"), said
    assert said.endswith(" --help')") or said.endswith("no main)"), said
    assert "did you mean" not in said and "is an option of" not in said, said


def test_restore_without_a_path_says_what_it_takes(capsys: pytest.CaptureFixture[str]) -> None:
    """`gitmem restore` said "see 'gitmem restore --help'" alone."""
    assert main(["restore"]) == 2
    what, hint = two_lines(capsys)
    assert what.endswith("required: PATH (or --lost N) (gitmem restore)"), what
    assert hint.startswith("hint: PATH: the memory to bring back (gitmem restore auto/NAME.md"), (
        hint
    )
    assert "--lost N: one edit a merge resolved against (gitmem lost lists them)" in hint, hint


def test_status_in_a_bare_repository_names_steps_that_work_there(world: World) -> None:
    """`gitmem status` in a bare repository (the remote itself) said "next: add a remote to
    share memory" (it is the one others share through) and "next: … gitmem hooks install
    --claude", which refuses there; doctor's fix was the same refused command."""
    world.clone("a")  # the remote has a commit
    said = world.ok("-C", str(world.remote), "status").splitlines()
    steps = [s for s in said if s.startswith("next: ")]
    assert steps[0].startswith("next: a bare repository without a remote is one others clone"), (
        steps
    )
    assert steps[-1].endswith(
        "gitmem hooks install --claude --user (a bare repository has no working tree)"
    ), steps
    run = world.gitmem("-C", str(world.remote), "doctor")
    assert "fix: gitmem hooks install --claude --user (a bare" in run.out, run.out
    world.ok("-C", str(world.remote), "hooks", "install", "--claude", "--user")  # the step works
    assert "hooks install" not in world.ok("-C", str(world.remote), "status")


def test_a_laptop_without_the_key_is_told_lost_edits_of_personal_memory_are_not_listed(
    tmp_path: Path,
) -> None:
    """`gitmem lost` on a second machine before the grant said "no lost edits" alone, as if
    the personal memory had none (`log` says so since round 22): the same note, text and JSON."""
    made = laptop_not_granted(tmp_path)
    desk, here, laptop, there = made.desk, made.here, made.laptop, made.there
    for args in (("lost",), ("lost", "--json")):
        run = laptop.gitmem("-C", str(there), *args)
        assert run.code == 0, run.out + run.err
        assert run.err.startswith("note: your personal memory's lost edits are not listed: "), run
        assert made.grant in run.err, run.err
    run = desk.gitmem("-C", str(here), "lost")
    assert run.code == 0 and run.err == "", run.err


@pytest.mark.parametrize(
    ("argv", "same_as"),
    [
        (["help", "sync"], ["sync", "--help"]),
        (["help"], ["--help"]),
        (["help", "key", "grant"], ["key", "grant", "--help"]),
        (["-C", ".", "help", "log"], ["-C", ".", "log", "--help"]),
    ],
)
def test_help_command_is_git_s_spelling_of_command_help(
    argv: list[str], same_as: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`gitmem help sync` said "unknown command 'help'" (git's own spelling)."""
    assert main(same_as) == 0
    expected = capsys.readouterr().out
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert out == expected and out.startswith("usage: gitmem") and not err, (out, err)


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["completion", "powershell"], "hint: SHELL: bash, zsh or fish (see"),
        (["log", "--color", "x"], "hint: --color auto|always|never: colour the output"),
    ],
)
def test_a_choice_with_none_close_names_the_choices(
    argv: list[str], hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`gitmem completion powershell` said only "see 'gitmem completion --help'"."""
    assert main(argv) == 2
    what, said = two_lines(capsys)
    assert ": invalid choice: " in what and said.startswith(hint), said
    assert said.endswith(" --help')"), said


def test_promote_of_a_missing_memory_names_where_the_names_are_listed(world: World) -> None:
    """`gitmem promote auto/x.md` of no such file said "check the name with gitmem status",
    which counts a scope's files and names none. The query that lists them is named now."""
    a = world.clone("a")
    write_files(world.scope_path(a), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "b\n"})
    run = world.gitmem("-C", str(a), "promote", "auto/x.md")
    assert run.code == 2, run.out + run.err
    hint = run.err.splitlines()[-1]
    assert hint.startswith("hint: gitmem query --scope auto --recent 20 lists its memories"), hint
    assert "gitmem status" not in hint, hint
    listed = world.ok("-C", str(a), "query", "--scope", "auto", "--recent", "20")
    assert "auto/b.md" in listed, listed  # the step named lists the memory that is there


def test_an_https_remote_that_refuses_the_connection_is_told_as_the_network_s(
    world: World,
) -> None:
    """An https remote whose server is down: curl says "Failed to connect to … Couldn't connect
    to server", which gitmem did not read as unreached, and told "check the remote URL and your
    access (git fetch works?)" (sync, status --fetch) — as if the key or the URL were wrong."""
    import socket

    with socket.socket() as probe:  # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    a = world.clone("a")
    world.git("remote", "set-url", "origin", f"http://127.0.0.1:{port}/acme/shop.git", cwd=a)
    for args in (("sync",), ("status", "--fetch")):
        run = world.gitmem("-C", str(a), *args)
        assert run.code == 3, (args, run.out, run.err)
        what, hint = run.err.strip().splitlines()[-2:]
        assert "Failed to connect to 127.0.0.1" in what, what
        assert hint.startswith("hint: the network or the server did not answer: nothing"), hint
        assert "git fetch works?" not in hint, hint


def test_every_exit_code_gitmem_returns_is_in_its_help_and_man_page(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """141 (a reader gone: `gitmem log | head`) was returned, and in the README, but neither
    `gitmem --help` nor the man page's EXIT STATUS named it."""
    from gitmem import errors
    from gitmem.cli import build_parser
    from gitmem.cli.manpage import render

    codes = {v for k, v in vars(errors).items() if k.startswith("EXIT_") and isinstance(v, int)}
    assert {0, 1, 2, 3, 4, 130, 141} <= codes | {0}, codes
    assert main(["--help"]) == 0
    epilog = capsys.readouterr().out.split("Exit codes: ", 1)[1]
    page = render(build_parser()).split(".SH EXIT STATUS", 1)[1]
    for code in codes | {0}:
        assert f"{code} " in epilog, (code, epilog)
        assert f"\\fB{code}\\fR" in page, (code, page)


def test_a_key_changed_between_asking_and_the_grant_is_named_as_changed(tmp_path: Path) -> None:
    """The laptop asked for a grant; the desk ran `key rotate`, then the grant. The laptop's
    first sync was refused, rightly (it cannot tell the new key from a planted one), saying the
    key "the key this machine asked to be granted did not open for" the desk — which it did:
    the desk read as a stranger. It now says the key changed since, and how to take it."""
    made = laptop_not_granted(tmp_path)
    desk, here, laptop, there = made.desk, made.here, made.laptop, made.there
    desk.ok("-C", str(here), "key", "rotate")
    desk.ok("-C", str(here), "sync")
    desk.ok("-C", str(here), "key", "grant", made.recipient)
    desk.ok("-C", str(here), "sync")
    run = laptop.gitmem("-C", str(there), "sync")
    assert run.code == 3, run.out + run.err
    what, hint = run.err.strip().splitlines()[-2:]
    assert what.endswith(
        ", and it is not the key this machine asked to be granted (changed since by a key "
        "rotate or revoke, or planted)"
    ), what
    assert "did not open for" not in what, what
    (trust,) = re.findall(r"run (gitmem key trust \S+), then gitmem sync", hint)
    laptop.ok("-C", str(there), *trust.split()[1:])  # the step named takes it
    laptop.ok("-C", str(there), "sync")
    assert (laptop.scope_path(there) / "b.md").read_text() == "b\n"


def test_validate_in_a_ci_checkout_names_the_remote_step_that_works(world: World) -> None:
    """A CI checkout fetches no refs/gitmem/*: `gitmem validate` said "fetch them first" (how?)
    and `gitmem validate team` "name a ref such as refs/gitmem/team" — the ref it was given.
    Both now name `validate --remote origin`, which checks what origin holds; and a hub that
    lacks the personal ref was reported as "origin has no refs/gitmem/users/…"."""
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- [T](t.md) — t\n", "t.md": "t\n"})
    world.ok("-C", str(a), "sync")
    ci = world.clone("ci")
    for typed in ((), ("team",)):
        run = world.gitmem("-C", str(ci), "validate", *typed)
        assert run.code == 2, run.out + run.err
        hint = run.err.splitlines()[-1]
        step = f"gitmem validate --remote origin{''.join(' ' + t for t in typed)}"
        assert hint.startswith(f"hint: {step} checks what origin holds"), hint
        assert "fetch them first" not in hint and "such as refs/gitmem/team" not in hint, hint
        checked = world.gitmem("-C", str(ci), *step.split()[1:])
        assert checked.code == 0 and "in 1 ref" in checked.out, checked.out + checked.err
    # a revision, not a memory ref's name: no remote step for it
    run = world.gitmem("-C", str(ci), "validate", "HEAD~5")
    assert run.code == 2 and "--remote" not in run.err, run.err

    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "gitmem.hub", str(hub), cwd=ci)
    run = world.gitmem("-C", str(ci), "validate", "--remote", "origin")
    assert run.code == 2, run.out + run.err
    what, hint = run.err.splitlines()
    assert what == f"gitmem: error: the hub ({hub}) has no refs/gitmem/users/tester@example.com"
    assert hint.startswith("hint: gitmem sync pushes your personal memory there"), hint


def test_diff_of_a_memory_that_is_nowhere_says_so_not_no_changes(world: World) -> None:
    """`gitmem diff --path auto/buidl.md` (a typo) said "no changes": read as "synced"."""
    a = world.clone("a")
    write_files(world.scope_path(a), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "b\n"})
    world.ok("-C", str(a), "sync")
    for args in (("--path", "auto/bb.md"), ("auto/bb.md",), ("--json", "auto/bb.md")):
        run = world.gitmem("-C", str(a), "diff", *args)
        assert run.code == 2, (args, run.out, run.err)
        what, hint = run.err.splitlines()
        assert what.startswith("gitmem: error: no memory auto/bb.md on disk ("), what
        assert hint.startswith("hint: gitmem query --scope auto --recent 20 lists"), hint
    assert world.ok("-C", str(a), "diff", "auto/b.md") == "no changes\n"  # one that is there
    (world.scope_path(a) / "b.md").unlink()  # deleted since the sync: a change, not an error
    assert "deleted file mode" in world.ok("-C", str(a), "diff", "auto/b.md")
    (world.scope_path(a) / "new.md").write_text("n\n")  # new since: the same
    assert "new file mode" in world.ok("-C", str(a), "diff", "--path", "auto/new.md")


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["log", "-n", "0"], "hint: -n N: show at most N commits"),
        (["restore", "--lost", "0"], "hint: --lost N: bring back lost edit N alone"),
        (["lost", "x"], "hint: N: show this lost edit"),
        (["log", "-0"], "hint: -N (or -n N): show at most N commits"),
    ],
)
def test_a_value_refused_names_what_the_argument_takes(
    argv: list[str], hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`gitmem log -n 0` said "'0' is not a whole number of 1 or more", hint "see --help"."""
    assert main(argv) == 2
    what, said = two_lines(capsys)
    assert "is not a whole number of 1 or more" in what and said.startswith(hint), said
    assert said.endswith(" --help')"), said


def test_promote_s_compare_command_runs_in_a_checkout_with_a_space(world: World) -> None:
    """`promote auto/y.md --to agents/rev` onto another y.md hinted "compare: diff /…/y.md
    /…/my proj é/.claude/…/y.md": the in-tree path unquoted, three words in a shell."""
    import shlex
    import subprocess

    a = world.clone("my proj é")
    write_files(world.scope_path(a), {"y.md": "mine\n"})
    write_files(a / ".claude" / "agent-memory" / "rev", {"y.md": "other\n"})
    run = world.gitmem("-C", str(a), "promote", "auto/y.md", "--to", "agents/rev")
    assert run.code == 2, run.out + run.err
    (command,) = re.findall(r"compare: (diff .+)$", run.err.splitlines()[-1])
    compared = subprocess.run(shlex.split(command), capture_output=True, text=True)
    assert compared.returncode == 1 and "< mine" in compared.stdout, compared  # it ran


def test_help_and_a_group_s_default_find_the_command_past_a_folder_of_that_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """-C's value is no command: `gitmem -C help help log` is log's help, `-C key key --json`
    runs key list in the folder named key (the word was looked up by its first occurrence)."""
    from gitmem.cli.common import command_at

    assert command_at(["-C", "help", "help", "log"]) == 2
    assert command_at(["--memory-dir", "key", "key"]) == 2
    assert command_at(["-C", "x"]) is None
    monkeypatch.chdir(tmp_path)
    (tmp_path / "help").mkdir()
    assert main(["-C", "help", "help", "log"]) == 0
    assert capsys.readouterr().out.startswith("usage: gitmem log ")


def test_init_in_a_bare_repository_without_a_remote_names_a_clone_of_it(world: World) -> None:
    """`gitmem init` in the bare repository others clone said "to share it: git remote add
    origin URL" and "next: gitmem sync (commits on this machine until you add a remote)"."""
    world.clone("a")
    said = world.ok("-C", str(world.remote), "init").splitlines()
    assert "note: no git remote: a bare repository without a remote is one others clone" in (
        "\n".join(said)
    ), said
    assert said[-1] == "next: in a clone of it: gitmem init, then gitmem sync", said
    assert not any("until you add a remote" in s for s in said), said


def test_a_private_key_or_a_missing_file_given_to_key_grant_is_named_as_such(
    world: World,
) -> None:
    """`key grant ~/.ssh/id_ed25519` (the private key, the .pub forgotten) said "not a
    recipient: '-----BEGIN OPENSSH PRIVATE KEY-----'"; a mistyped .pub path "not a recipient:
    PATH". Now: it is a private key (never read further, never shown) and the grant that
    works; no such file."""
    import shlex
    import subprocess

    a = world.clone("a")
    write_files(world.scope_path(a), {"MEMORY.md": "- [B](b.md) — b\n", "b.md": "b\n"})
    world.ok("-C", str(a), "sync")
    key = world.root / "my keys" / "id_ed25519"
    key.parent.mkdir()
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "", "-f", str(key)], check=True
    )
    secret = key.read_text()
    run = world.gitmem("-C", str(a), "key", "grant", str(key))
    assert run.code == 2, run.out + run.err
    what, hint = run.err.splitlines()
    assert what == (
        f"gitmem: error: {key} is a private key: it never leaves this machine, and a grant "
        "takes a public one"
    ), what
    assert hint == f"hint: gitmem key grant {shlex.quote(str(key) + '.pub')}", hint
    assert "PRIVATE" not in run.err and secret.splitlines()[1][:20] not in run.err, run.err
    world.ok("-C", str(a), *shlex.split(hint.removeprefix("hint: gitmem ")))  # it works
    assert "ssh-ed25519" in world.ok("-C", str(a), "key", "list")

    key.with_name("id_ed25519.pub").unlink()  # no .pub beside it: how to make the public key
    run = world.gitmem("-C", str(a), "key", "grant", str(key))
    assert run.err.splitlines()[1] == (
        f'hint: gitmem key grant "$(ssh-keygen -y -f {shlex.quote(str(key))})"'
    ), run.err
    run = world.gitmem("-C", str(a), "key", "revoke", str(world.root / "nope.pub"))
    assert run.code == 2 and f"no file '{world.root / 'nope.pub'}'" in run.err, run.err


def test_key_outside_a_clone_names_the_key_command_that_needs_none(world: World) -> None:
    """`gitmem key` outside a clone (a newcomer asking for this machine's key to grant it
    elsewhere) said only "run gitmem inside a clone"; `key show` answers from anywhere."""
    outside = world.root / "not a clone"
    outside.mkdir()
    world.ok("key", "init", cwd=outside)
    run = world.gitmem("key", cwd=outside)
    assert run.code == 2, run.out + run.err
    hint = run.err.splitlines()[-1]
    assert hint.endswith("; this machine's own key needs no clone: gitmem key show"), hint
    assert world.ok("key", "show", cwd=outside).startswith("age1")


@pytest.mark.parametrize(
    ("argv", "whole"),
    [
        (["push", "--force"], "--force-key"),  # git's habit: it took another project's ref
        (["sync", "--force-k"], "--force-key"),
        (["sync", "--no"], "--no-verify"),  # it published what the secret scan flags
        (["bundle", "unbundle", "--force", "x.bundle"], "--force-key"),
    ],
)
def test_an_option_that_widens_trust_or_publishing_is_never_taken_abbreviated(
    argv: list[str], whole: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """argparse took `gitmem push --force` (git's habit) as --force-key, which accepts a ref
    recorded under another project's key, and `sync --no` as --no-verify. Refused now, before
    any work: the option is taken only as typed whole."""
    assert main(argv) == 2
    what, hint = two_lines(capsys)
    assert what.startswith("gitmem: error: unrecognized arguments: "), what
    assert argv[-1] in what or argv[-2] in what, what
    assert "did you mean" in hint or "never force-pushes" in hint or whole in hint, hint
    from gitmem.cli import build_parser

    typed = build_parser([*argv[:-1], whole]).parse_args(
        [*[w for w in argv if not w.startswith("--")], whole]
    )
    assert getattr(typed, whole.removeprefix("--").replace("-", "_")) is True  # whole: taken
