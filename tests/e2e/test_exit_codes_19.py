"""Every command's bad input: one line (what, where, how to fix), the documented exit code
(README "Exit codes"), nothing half-written, and `--json` the same outcome (round 19).

One settled world (a clone with memory synced) serves the table; the rows that change the
world (a fork's remote, a file-size limit) build their own."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.world import REPO_ROOT, Run, World, folder_bytes, write_files

PERSONAL = "refs/gitmem/users/tester@example.com"


@pytest.fixture(scope="module")
def settled(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> World:
    import shutil

    world = World(tmp_path_factory.mktemp("exits19"))
    shutil.copytree(_remote_template, world.remote, symlinks=True)
    a = world.clone("a")
    write_files(world.scope_path(a), {"MEMORY.md": "- [Plan](plan.md) — the plan\n"})
    write_files(world.scope_path(a), {"plan.md": "---\nname: plan\n---\nthe plan\n"})
    write_files(world.scope_path(a, "team"), {"fact.md": "a team fact\n"})
    world.ok("-C", str(a), "sync")
    world.clone("noremote")
    world.git("remote", "remove", "origin", cwd=world.root / "noremote")
    (world.root / "plain").mkdir()
    return world


def one_line(run: Run, code: int, words: tuple[str, ...]) -> None:
    """The error's shape: `gitmem: error: WHAT WHERE` and at most a `hint:` (how to fix)."""
    assert run.code == code, (run.code, run.out, run.err)
    lines = run.err.strip().splitlines()
    assert lines and lines[0].startswith("gitmem: error: "), run.err
    assert len(lines) <= 2 and (len(lines) == 1 or lines[1].startswith("hint: ")), run.err
    assert "Traceback" not in run.err
    for word in words:
        assert word in lines[0], lines[0]


def state(world: World, clone: Path) -> tuple[str, str, dict[str, bytes], dict[str, bytes]]:
    """What a refused command must leave as it was: our refs here and on the remote, the
    memory folders."""
    refs = world.git("for-each-ref", "refs/gitmem", "refs/gitmem-remotes", cwd=clone)
    remote = world.git("for-each-ref", "refs/gitmem", cwd=world.remote)
    auto = world.scope_path(clone)
    return refs, remote, folder_bytes(auto), folder_bytes(world.scope_path(clone, "team"))


# (where: a, noremote or plain; the command; its exit code; words of the error's line)
# every row runs twice, with `--json` and without: the same code and the same line
BAD_INPUT: list[tuple[str, tuple[str, ...], int, tuple[str, ...]]] = [
    ("plain", ("sync",), 2, ("not a git repository",)),
    ("plain", ("log",), 2, ("not a git repository",)),
    ("noremote", ("pull",), 2, ("has no git remote to pull memory from",)),
    ("noremote", ("adopt",), 2, ("has no git remote",)),
    ("a", ("sync", "--scope", "nope"), 2, ("unknown scope 'nope'",)),
    ("a", ("pull", "--scope", "nope"), 2, ("unknown scope 'nope'",)),
    ("a", ("push", "--remote", "nope"), 2, ("no remote named 'nope'",)),
    ("a", ("sync", "--dry-run", "--remote", "nope"), 2, ("no remote named 'nope'",)),
    ("a", ("log", "nope.md"), 2, ("no memory 'nope.md'",)),
    ("a", ("log", "--", "../x"), 2, ("'../x' is not a path inside a memory folder",)),
    ("a", ("diff", "badrev"), 2, ("unknown revision 'badrev'",)),
    ("a", ("show", "badrev:auto/plan.md"), 2, ("unknown revision 'badrev'",)),
    ("a", ("show", "~9:auto/plan.md"), 2, ("no earlier version ~9",)),
    ("a", ("show", "~0:../../etc/passwd"), 2, ("not a path inside a memory folder",)),
    ("a", ("restore", "auto/nope.md"), 2, ("auto/nope.md has no version",)),
    ("a", ("lost", "99"), 2, ("no lost edit 99",)),
    ("a", ("promote", "auto/plan.md", "--to", "nope"), 2, ("not 'nope'",)),
    ("a", ("demote", "team/nope.md"), 2, ("no memory team/nope.md",)),
    ("a", ("graph", "--scope", "nope"), 2, ("invalid choice: 'nope'",)),
    ("a", ("query", "--since", "garbage"), 2, ("--since 'garbage'",)),
    ("a", ("validate", "refs/gitmem/nope"), 2, ("no ref or revision 'refs/gitmem/nope'",)),
    ("a", ("bundle", "unbundle", "/nonexistent/x.bundle"), 2, ("no bundle file at",)),
    ("a", ("key", "grant", "nobody"), 2, ("not a recipient: 'nobody'",)),
    ("a", ("unpublish", "nope"), 2, ("cannot unpublish 'nope'",)),
    ("a", ("config", "gitmem.nope"), 2, ("unknown setting 'gitmem.nope'",)),
    ("a", ("view", "--out", "/nonexistent/dir/x.html"), 2, ("cannot write in /nonexistent",)),
    ("a", ("hooks", "install", "--bogus"), 2, ("unrecognized arguments: --bogus",)),
    ("a", ("uninstall", "--bogus"), 2, ("unrecognized arguments: --bogus",)),
    ("a", ("mcp", "--bogus"), 2, ("unrecognized arguments: --bogus",)),
    ("a", ("record",), 2, ("required: --title",)),
]


@pytest.mark.parametrize(
    ("where", "args", "code", "words"), BAD_INPUT, ids=[" ".join(r[1]) for r in BAD_INPUT]
)
def test_bad_input_is_one_line_its_code_and_nothing_written(
    settled: World, where: str, args: tuple[str, ...], code: int, words: tuple[str, ...]
) -> None:
    a = settled.root / "a"
    before = state(settled, a)
    run = settled.gitmem("-C", str(settled.root / where), *args)
    one_line(run, code, words)
    assert state(settled, a) == before
    as_json = settled.gitmem("-C", str(settled.root / where), *args, "--json")
    if "unrecognized arguments:" in as_json.err and "--json" in as_json.err:
        return  # a command that does not report (mcp, record's required title first)
    assert (as_json.code, as_json.err) == (run.code, run.err)
    assert as_json.out == "", as_json.out  # no half-printed JSON document
    assert state(settled, a) == before


def test_a_sync_partly_done_exits_3_and_json_lists_the_refusal(world: World) -> None:
    """`sync --remote fork`: the personal ref goes, the team ref (another project's memory) is
    set aside unpushed. It exited 2, the code of bad input, for a sync that had pushed: a ref
    of ours set aside is partly done, 3 (README "Exit codes"); `--json` lists the refusal."""
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"plan.md": "the team's plan\n"})
    world.ok("-C", str(a), "sync")
    fork = world.root / "fork.git"
    world.git("clone", "-q", "--bare", str(world.remote), str(fork))  # branches, no memory refs
    world.git("remote", "add", "fork", str(fork), cwd=a)
    write_files(world.scope_path(a), {"mine.md": "my own\n"})

    run = world.gitmem("-C", str(a), "sync", "--remote", "fork", "--json")

    one_line(run, 3, ("has none: not pushed there",))
    report = json.loads(run.out)
    assert [e["message"] for e in report["errors"]] == [run.err.splitlines()[0][15:]]
    refs = world.git("for-each-ref", "--format=%(refname)", cwd=fork).split()
    assert PERSONAL in refs and "refs/gitmem/team" not in refs
    for mode in ("sync", "push"):  # the personal ref pushed: the team ref alone is left
        again = world.gitmem("-C", str(a), mode, "--remote", "fork")
        assert again.code == 3 and again.err == run.err, again.err
    dry = world.gitmem("-C", str(a), "sync", "--remote", "fork", "--dry-run")
    assert dry.code == 0, dry.err  # a dry run does nothing, so nothing is partly done


def test_adopt_tells_a_refused_ref_and_its_code(world: World) -> None:
    """A team ref no gitmem can accept (planted by anyone who can push): adopt synced the
    personal ref, said nothing of the team's and exited 0. Now the refusal's line after its
    report and its code, as `sync` (2: the remote's bad input), `--json` listing it."""
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"plan.md": "the team's plan\n"})
    world.ok("-C", str(a), "sync")
    team = world.git("rev-parse", "refs/gitmem/team", cwd=world.remote).strip()
    deep = "team/" + "d/" * 20 + "x.md"
    world.plumb(
        world.remote,
        "fast-import",
        "--quiet",
        data=(
            f"commit refs/gitmem/team\ncommitter Eve <eve@example.com> 1700000000 +0000\n"
            f"data 4\ndeep\nfrom {team}\nM 100644 inline {deep}\ndata 2\nx\n\n"
        ).encode(),
    )
    write_files(world.scope_path(a), {"mine.md": "my own\n"})

    run = world.gitmem("-C", str(a), "adopt", "--json")

    one_line(run, 2, ("origin/refs/gitmem/team: ", "GM102"))
    report = json.loads(run.out)
    assert [e["message"] for e in report["errors"]] == [run.err.splitlines()[0][15:]]
    # the refused ref is told by its error alone (it said "nothing to adopt" first)
    assert not [line for line in report["adopted"] if "refs/gitmem/team" in line], report
    assert [line for line in report["adopted"] if PERSONAL in line], report
    text = world.gitmem("-C", str(a), "adopt")
    one_line(text, 2, ("origin/refs/gitmem/team: ", "GM102"))
    assert "refs/gitmem/team: nothing to adopt" not in text.out, text.out
    assert f"{PERSONAL}: nothing to adopt" in text.out, text.out
    assert "mine.md" not in str(folder_bytes(world.scope_path(a, "team")))
    assert world.git("rev-parse", "refs/gitmem/team", cwd=a).strip() == team  # not taken
    personal = world.git("rev-parse", PERSONAL, cwd=a).strip()
    assert world.git("rev-parse", PERSONAL, cwd=world.remote).strip() == personal  # pushed


def size_limited(world: World, clone: Path, *args: str) -> Run:
    """gitmem under a 64 KiB file-size limit (RLIMIT_FSIZE: a full disk's cousin)."""
    proc = subprocess.run(
        [sys.executable, "-m", "gitmem", "-C", str(clone), *args],
        capture_output=True,
        env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536)),
        timeout=60,
    )
    return Run(proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def test_a_file_size_limit_is_one_line_naming_the_folder(world: World) -> None:
    """RLIMIT_FSIZE (a full disk's cousin: a tiny tmpfs needs root) under `sync`, `view` and a
    pull into a memory folder. Before: an OSError with no file ("File too large", nothing said
    of where), sqlite's "disk I/O error" (exit 4, "report it"), and the folder's note told to
    fix permissions. Now the folder and the fix: exit 2, no ref moved; the pull partly done
    (exit 3), its file not half-written."""
    a, b = world.clone("a"), world.clone("b")
    world.ok("-C", str(b), "sync")

    def limited(clone: Path, *args: str) -> Run:
        return size_limited(world, clone, *args)

    write_files(world.scope_path(a), {"big.md": os.urandom(60_000).hex() + "\n"})
    run = limited(a, "sync")
    one_line(run, 2, ("File too large: ", str(a / ".git")))
    assert "ulimit -f" in run.err
    assert PERSONAL not in world.git("for-each-ref", "refs/gitmem", cwd=world.remote)
    run = limited(a, "view", "--out", str(world.root / "page.html"))
    one_line(run, 2, ("search index", "disk I/O error"))
    assert not (world.root / "page.html").exists()

    big = "".join(f"line {i} of one long note\n" for i in range(20_000))  # packs small
    write_files(world.scope_path(a, "agents"), {"rev/big.md": big})
    world.ok("-C", str(a), "sync")
    # git's unpack under the limit: killed by SIGXFSZ ("unpack-objects died of signal 25"),
    # a full disk's cousin, whose hint named the remote URL and access (second wave)
    run = limited(b, "pull")
    one_line(run, 3, ("cannot fetch from origin: ",))
    assert "free some space" in run.err and "remote URL" not in run.err, run.err
    world.ok("-C", str(b), "status", "--fetch")
    run = limited(b, "pull", "--json")
    assert run.code == 3 and run.out.startswith("{"), (run.code, run.out, run.err)
    notes = [n for r in json.loads(run.out)["refs"] for n in r["notes"]]
    assert any("not written" in n and "free some space" in n for n in notes), notes
    assert not (world.scope_path(b, "agents") / "rev" / "big.md").exists()
    assert not [p for p in world.scope_path(b, "agents").rglob("*") if p.is_file()]


def test_the_space_hint_is_for_this_disk_not_the_servers() -> None:
    """A fetch git could not write here gets the space hint; a server's own `remote:` words of
    its disk (anyone's text) keep the remote's hint."""
    from gitmem.errors import SPACE_HINT
    from gitmem.gitstore.transport import remote_hint

    ours = "error: unable to write file .git/objects/ab/cd: No space left on device"
    assert remote_hint(ours, "check the remote") == SPACE_HINT
    theirs = "remote: fatal: write error: No space left on device; fatal: unpack failed"
    assert remote_hint(theirs, "check the remote") == "check the remote"


def test_a_file_where_a_scope_folder_should_be_is_partly_done(settled: World) -> None:
    """`team` a file in a clone the remote has team memory for: pull and sync said "skipped
    … move it away", exited 0 and `--json` listed no error while the memory went unwritten.
    Now a sync partly done (3), one line saying what and the fix, every run until it is
    fixed; once the folder holds what the ref does, a file there again is only skipped."""
    c = settled.clone("teamfile")
    team = settled.scope_path(c, "team")
    team.parent.mkdir(parents=True, exist_ok=True)
    team.write_text("not a folder\n")

    run = settled.gitmem("-C", str(c), "pull", "--json")

    one_line(run, 3, ("team memory not written here: ", "it is a file, not a folder"))
    assert "move it away" in run.err, run.err
    report = json.loads(run.out)
    assert [e["message"] for e in report["errors"]] == [run.err.splitlines()[0][15:]]
    again = settled.gitmem("-C", str(c), "sync")  # the ref moved: the folder still lacks it
    assert (again.code, again.err) == (3, run.err), again.err
    team.unlink()
    settled.ok("-C", str(c), "sync")
    assert (team / "fact.md").read_text() == "a team fact\n"
    (team / "fact.md").unlink()
    team.rmdir()
    team.write_text("not a folder\n")
    quiet = settled.gitmem("-C", str(c), "pull", "--json")
    assert quiet.code == 0 and json.loads(quiet.out)["errors"] == [], (quiet.out, quiet.err)
