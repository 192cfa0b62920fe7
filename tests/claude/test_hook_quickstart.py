"""The SessionStart hook's quick start (gitmem/hookstart.py): with nothing new it runs one fetch
and three tiny git processes and prints what the full hook prints; anything the last full run
depended on that changed sends it the full way, which behaves exactly as before."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from pathlib import Path

import pytest

from gitmem import hooks
from gitmem.gitstore.spawn import Spawned, clean_env
from gitmem.hookstart import payload_cwd
from gitmem.quickstart import FORMAT, parse_record
from gitmem.state import repository_lock
from tests.reliability.harness import SilentServer
from tests.support.quickpath import only_quick_start
from tests.support.world import Run, World, teammates_sharing


def session_start(world: World, clone: Path, cwd: Path | None = None, **env: str) -> Run:
    """The SessionStart command `gitmem hooks install` writes, run as Claude Code runs it."""
    command = hooks.hook_command(hooks.gitmem_command(), "SessionStart")
    payload = {"session_id": "s", "cwd": str(clone), "hook_event_name": "SessionStart"}
    trace = world.root / "trace"
    trace.unlink(missing_ok=True)
    proc = subprocess.run(
        ["sh", "-c", command],
        cwd=cwd or world.root,
        input=json.dumps(payload).encode(),
        capture_output=True,
        env={**world.env, "GIT_TRACE": str(trace), **env},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return Run(proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def git_commands(world: World) -> list[str]:
    lines = (world.root / "trace").read_text().splitlines()
    return [ln.split("trace: built-in: git ", 1)[1] for ln in lines if "built-in: git " in ln]


def took_quick_path(world: World) -> bool:
    return only_quick_start((world.root / "trace").read_text())


@pytest.fixture
def teammates(world: World) -> tuple[Path, Path]:
    """alice pushed team memory; bob's last session pulled it (so a record exists)."""
    alice, bob, _ = teammates_sharing(world)
    first = session_start(world, bob)
    assert not took_quick_path(world) and "alice@example.com" in first.out
    return alice, bob


def test_nothing_new_is_one_fetch_and_prints_what_the_full_hook_prints(
    world: World, teammates: tuple[Path, Path]
) -> None:
    _, bob = teammates
    quick = session_start(world, bob)
    assert took_quick_path(world)
    commands = [c.split()[0] for c in git_commands(world) if not c.startswith("upload-pack")]
    # ls-files: which in-tree memory folders the branch tracks (those are git's, not synced)
    expected = ["config", "rev-parse", "fetch", "rev-list", "for-each-ref", "ls-files"]
    assert sorted(commands) == sorted(expected)
    assert "deploy only on Tuesdays" in quick.out and "alice" not in quick.out
    common = Path(world.git("rev-parse", "--git-common-dir", cwd=bob).strip())
    (bob / common / "gitmem" / "hook-start").unlink()  # no record: the full hook runs
    full = session_start(world, bob)
    assert not took_quick_path(world)
    assert (quick.out, quick.err) == (full.out, full.err)
    session_start(world, bob)
    assert took_quick_path(world)  # the full run recorded again


def test_a_teammates_push_goes_the_full_way_and_says_who_and_what(
    world: World, teammates: tuple[Path, Path]
) -> None:
    alice, bob = teammates
    team = world.scope_path(alice, "team")
    (team / "deploys.md").write_text("---\nname: deploys\n---\nTuesdays and Thursdays.\n")
    world.ok("-C", str(alice), "push")
    run = session_start(world, bob)
    assert not took_quick_path(world)
    # one fetch: the full hook moves the tracking ref where the quick start's dry run found it
    assert [c for c in git_commands(world) if c.startswith("fetch")] == [
        c for c in git_commands(world) if c.startswith("fetch --dry-run")
    ]
    assert len([c for c in git_commands(world) if c.startswith("fetch")]) == 1
    # the full hook opens the project with the quick start's answers and records from them;
    # the refs alone are read again once the sync holds its lock (read before it, they may be
    # another sync's past)
    opening = ("rev-parse", "config", "ls-files", "for-each-ref")
    ran = [c.split()[0] for c in git_commands(world)]
    assert {name: ran.count(name) for name in opening} == {
        "rev-parse": 1,
        "config": 1,
        "ls-files": 1,
        "for-each-ref": 2,
    }, ran
    # the quick start's fetch found the move: the full hook still knows what is new
    assert "alice@example.com" in run.out and "team/deploys.md" in run.out
    assert "Thursdays" in (world.scope_path(bob, "team") / "deploys.md").read_text()
    session_start(world, bob)
    assert took_quick_path(world)


def _edit_git_config(world: World, bob: Path) -> dict[str, str]:
    world.git("config", "user.name", "Robert", cwd=bob)
    return {}


def _another_claude_config_dir(world: World, bob: Path) -> dict[str, str]:
    return {"CLAUDE_CONFIG_DIR": str(world.root / "elsewhere")}


def _user_settings_written(world: World, bob: Path) -> dict[str, str]:
    settings = world.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{"model": "opus"}\n')
    return {}


def _team_folder_wiped(world: World, bob: Path) -> dict[str, str]:
    team = world.scope_path(bob, "team")
    for path in team.iterdir():
        path.unlink()
    team.rmdir()
    return {}


def _local_ref_moved(world: World, bob: Path) -> dict[str, str]:
    auto = world.scope_path(bob, "auto")
    auto.mkdir(parents=True, exist_ok=True)
    (auto / "MEMORY.md").write_text("- [Mine](mine.md) — mine\n")
    (auto / "mine.md").write_text("mine\n")
    world.ok("-C", str(bob), "push")
    return {}


@pytest.mark.parametrize(
    "change",
    [
        _edit_git_config,
        _another_claude_config_dir,
        _user_settings_written,
        _team_folder_wiped,
        _local_ref_moved,
    ],
)
def test_what_the_last_run_depended_on_changed_so_the_hook_runs_in_full(
    world: World, teammates: tuple[Path, Path], change: object
) -> None:
    _, bob = teammates
    assert callable(change)
    env = change(world, bob)
    run = session_start(world, bob, **env)
    assert not took_quick_path(world), change
    if change is _team_folder_wiped:  # the full pull brings the memory back from the ref
        assert (world.scope_path(bob, "team") / "deploys.md").exists()
    if change is not _another_claude_config_dir:
        assert "deploy only on Tuesdays" in run.out


def _trust(world: World, project: Path, trusted: bool = True) -> None:
    """What Claude Code's trust dialog writes (with the rest it rewrites at every start)."""
    state = {"numStartups": time.time_ns(), "projects": {str(project): {}}}
    state["projects"][str(project)]["hasTrustDialogAccepted"] = trusted  # type: ignore[index]
    (world.home / ".claude.json").write_text(json.dumps(state))


def test_trusting_the_workspace_runs_the_hook_in_full_when_its_settings_move_memory(
    world: World, teammates: tuple[Path, Path]
) -> None:
    """Project settings apply only once the workspace is trusted (~/.claude.json): when they
    name autoMemoryDirectory, trusting it moves the auto folder, so the quick start must not
    answer for the old one. Without such a setting, ~/.claude.json (rewritten by Claude Code
    at every start) changes nothing gitmem reads: the hook stays quick."""
    _, bob = teammates
    _trust(world, world.root / "someone-else")
    session_start(world, bob)
    assert took_quick_path(world)
    moved = world.root / "bob-memory"
    (bob / ".claude").mkdir()
    (bob / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(moved)}))
    session_start(world, bob)
    assert not took_quick_path(world)  # the project settings changed
    session_start(world, bob)
    assert took_quick_path(world)  # not trusted: the settings do not apply yet
    _trust(world, bob)
    session_start(world, bob)
    assert not took_quick_path(world)
    assert world.scope_path(bob, "auto") == moved
    # Claude Code rewrites the file at every start: the same answer keeps the hook quick
    for _ in range(2):
        _trust(world, bob)
        session_start(world, bob)
        assert took_quick_path(world)
    _trust(world, bob, trusted=False)  # the answer changed: the folder moves back
    session_start(world, bob)
    assert not took_quick_path(world)
    assert world.scope_path(bob, "auto") != moved
    (world.home / ".claude.json").write_text("{not json")  # unreadable: not trusted, as before
    session_start(world, bob)
    assert took_quick_path(world)


def test_the_payloads_folder_decides_even_from_another_cwd(
    world: World, teammates: tuple[Path, Path]
) -> None:
    _, bob = teammates
    carol = world.clone("carol", email="carol@example.com")
    run = session_start(world, carol, cwd=bob)  # Claude Code started in bob, payload: carol
    assert not took_quick_path(world)  # carol has no record yet
    assert "alice@example.com" in run.out  # carol's first pull: what alice pushed
    session_start(world, carol, cwd=bob)
    assert took_quick_path(world)


def test_a_lock_held_goes_the_full_way_and_says_so(
    world: World, teammates: tuple[Path, Path]
) -> None:
    _, bob = teammates
    common = (bob / world.git("rev-parse", "--git-common-dir", cwd=bob).strip()).resolve()
    with repository_lock(common, wait=0):
        run = session_start(world, bob)
    assert "another gitmem" in run.err and len(run.err.splitlines()) == 1


def test_the_installed_command_imports_nothing_from_the_project(
    world: World, teammates: tuple[Path, Path]
) -> None:
    _, bob = teammates
    planted = world.root / "ran"
    bomb = f"open({str(planted)!r}, 'w').write('planted code ran')\n"
    for folder in (bob, world.root):
        for name in ("gitmem", "site", "os"):
            (folder / name).mkdir(exist_ok=True)
            (folder / name / "__init__.py").write_text(bomb)
            (folder / name / "hookstart.py").write_text(bomb)
        (folder / "sitecustomize.py").write_text(bomb)
        (folder / "site.py").write_text(bomb)
    for cwd in (bob, world.root):
        run = session_start(world, bob, cwd=cwd, PYTHONPATH=".", PYTHONSTARTUP=str(bob / "site.py"))
        assert "deploy only on Tuesdays" in run.out
        os.remove(bob / ".git" / "gitmem" / "hook-start")  # and once the full way
        session_start(world, bob, cwd=cwd, PYTHONPATH=".")
    assert not planted.exists()


def test_the_installed_command_is_recognized_and_absolute() -> None:
    command = hooks.gitmem_command()
    words = shlex.split(command)
    assert os.path.isabs(words[0]) and words[1:3] == ["-I", "-S"]
    for event in hooks.EVENTS:
        line = hooks.hook_command(command, event)
        assert [hooks.is_gitmem_hook(line, e) for e in hooks.EVENTS] == [
            e == event for e in hooks.EVENTS
        ]


def test_a_hung_fetch_is_killed_at_the_deadline(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with SilentServer() as silent:
        url = f"git://127.0.0.1:{silent.port}/x"
        start = time.monotonic()
        fetch = Spawned(["fetch", "-q", url, "main"], str(tmp_path), clean_env())
        with pytest.raises(TimeoutError):
            fetch.finish(start + 1.0)
        assert time.monotonic() - start < 3
        assert silent.accepted
    with pytest.raises(ChildProcessError):
        os.waitpid(fetch.pid, os.WNOHANG)  # reaped: nothing left behind


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (b"", "here"),
        (b'{"session_id": "s"}', "here"),
        (b'{"cwd": "THERE"}', "there"),
        (b'{"cwd" :\n "THERE", "x": 1}', "there"),
        (b'{"cwd": "/no/such/folder"}', "here"),  # not a folder: the full hook uses its own
        (b'{"cwd": ""}', "here"),
        (b'{"cwd": "THERE\\"x"}', None),  # an escape: the full hook parses it
        (b'{"cwd": "THERE", "tool": {"cwd": "/x"}}', None),  # twice
        (b'{"cwd": 3}', None),
        (b'{"cwd": "\xff"}', None),
        (b'{"cwd": "THERE', None),
    ],
)
def test_the_payloads_cwd_is_read_or_left_to_the_full_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, payload: bytes, expected: str | None
) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    monkeypatch.chdir(here)
    got = payload_cwd(payload.replace(b"THERE", str(there).encode()))
    assert got == {"here": str(here), "there": str(there), None: None}[expected]


@pytest.mark.parametrize(
    "tokens",
    [
        [],
        ["something else"],
        [FORMAT, "dir", "2", "/x"],  # truncated
        [FORMAT, "dir", "x", "/x"],  # no count
        [FORMAT, "dir", "1", "/x"],  # missing tags
    ],
)
def test_a_damaged_record_is_no_record(tokens: list[str]) -> None:
    assert parse_record(tokens) is None


def test_a_record_reads_back() -> None:
    tokens = [FORMAT]
    for tag, values in [
        ("dir", ["/r"]),
        ("where", ["/r/.git\n/r\n"]),
        ("config", ["1:2:3"]),
        ("timeout", ["5.0"]),
        ("lock", ["/r/.git/gitmem/lock"]),
        ("fetch", ["/r", "--git-dir", "/r/.git", "fetch", "origin"]),
        ("env", ["HOME", "/h"]),
        ("env", ["CLAUDE_CONFIG_DIR"]),
        ("team", []),
        ("refs", [""]),
    ]:
        tokens += [tag, str(len(values)), *values]
    record = parse_record(tokens)
    assert record is not None
    assert record["env"] == [["HOME", "/h"], ["CLAUDE_CONFIG_DIR"]]
    assert record["team"] == [[]] and record["refs"] == [[""]]


TRUSTED = '{"projects": {"ROOT": {"hasTrustDialogAccepted": true}}}'


@pytest.mark.parametrize(
    "content",
    [
        None,
        "{not json",
        "[]",
        '{"projects": []}',
        '{"projects": {}}',
        '{"projects": {"ROOT": {}}}',
        '{"projects": {"ROOT": {"hasTrustDialogAccepted": "true"}}}',
        '{"projects": {"ROOT": {"hasTrustDialogAccepted": false}}}',
        TRUSTED,
        '{"projects": {"ROOT/": {"hasTrustDialogAccepted": true}}}',
        '{"projects": {"ROOT": {"hasTrustDialogAccepted": true}}, "x": "\udcff"}',
    ],
)
@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16"])
def test_the_trust_answer_is_read_one_way(
    tmp_path: Path, content: str | None, encoding: str
) -> None:
    """The quick start and the full hook (gitmem/identity.py) read the trust answer with one
    function: trusted only for `true` under the exact workspace key in strict UTF-8 text —
    never for a byte-order mark or UTF-16 (json.loads of bytes would take them: a record
    made so said trusted where the full run said not), a string "true", or a trailing slash."""
    from gitmem.identity import _workspace_trusted
    from gitmem.quickstart import trust_answer

    root = tmp_path / "project"
    state = tmp_path / ".claude.json"
    if content is not None:
        text = content.replace("ROOT", str(root))
        errors = "surrogateescape" if encoding.startswith("utf-8") else "surrogatepass"
        state.write_bytes(text.encode(encoding, errors))  # "\udcff": a byte not UTF-8
    trusted = content == TRUSTED and encoding == "utf-8"
    assert trust_answer(str(state), str(root)) == ("1" if trusted else "0")
    assert _workspace_trusted(root, {"CLAUDE_CONFIG_DIR": str(tmp_path)}) is trusted


def test_a_state_file_too_large_to_read_quickly_is_a_doubt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gitmem import quickstart

    state = tmp_path / ".claude.json"
    state.write_text(json.dumps({"projects": {"/p": {"hasTrustDialogAccepted": True}}}))
    assert quickstart.trust_answer(str(state), "/p") == "1"
    monkeypatch.setattr(quickstart, "TRUST_LIMIT", 8)
    assert quickstart.trust_answer(str(state), "/p") == "?"  # never equal to a recorded answer
