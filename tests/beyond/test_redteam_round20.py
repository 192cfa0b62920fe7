"""Red team, round 20 (charter rules 4 and 5; docs/reliability.md "Red team, round 20"): each
test is an attack that worked before this round and fails without its fix.

The class closed: a regular expression read again from every place it could start, over text
that is not ours (a teammate's gitmem.toml and frontmatter, a committed hook command, a
settings file) — quadratic, where every check must cost in proportion to what it reads. Each
pattern now matches wherever it starts (an open string runs to the end) or its scan is
bounded; each test feeds the cap's worth of the text that cost most before.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from gitmem.claude.hooks import is_gitmem_hook
from gitmem.project.adapters import gemini_memory_name
from gitmem.project.refmeta import MetaError, parse_meta, render_meta
from merge_drivers.together import _with_description as with_description
from merge_drivers.together import description
from tests.support.teammates import Shared
from tests.support.world import REPO_ROOT

# seconds: every input below is read in milliseconds now; before, each took 14 s to minutes
LINEAR = 2.0


def _timed(fn: Callable[..., object], *args: object) -> float:
    start = time.perf_counter()
    with contextlib.suppress(MetaError):
        fn(*args)
    return time.perf_counter() - start


def test_a_gitmem_toml_of_unclosed_strings_is_read_once() -> None:
    """Worked (cost): `aliases = ["\\"\\"…` — strings never closed, 64 KiB within the file's
    cap — was read again from each quote: 16 KB 3.7 s, 32 KB 17 s, 64 KB 60 s, at each read of
    a teammate's ref. Now an open string runs to the line's end and is refused (GM109's
    MetaError), in milliseconds."""
    hostile = ('version = 1\nkey = "k"\naliases = [' + '"\\' * 32_000 + "]\n").encode()
    assert len(hostile) <= 64 * 1024
    with pytest.raises(MetaError, match="unclosed string"):
        parse_meta(hostile)
    assert _timed(parse_meta, hostile) < LINEAR
    # what gitmem writes still reads back, escapes and all
    written = render_meta("host/o/r", ('a"b', "c\\d", "e"))
    assert parse_meta(written).aliases == ('a"b', "c\\d", "e")


def test_a_teammates_gitmem_toml_with_an_open_string_is_refused_at_the_gate(
    synced: Shared,
) -> None:
    """End to end: a teammate's team ref whose gitmem.toml holds an alias never closed was
    taken (the open string read as no alias, after its cost); now the ref is refused in one
    line, as an unreadable gitmem.toml is, and bob's team folder is left as it was."""
    world, alice, bob = synced.world, synced.alice, synced.bob
    team = world.scope_path(bob, "team")
    before = sorted(p.relative_to(team).as_posix() for p in team.rglob("*"))
    tip = world.plumb(alice, "rev-parse", "refs/gitmem/team")
    meta = world.plumb(alice, "show", f"{tip}:gitmem.toml") + '\naliases = ["\\"\\"\\"]\n'
    blob = world.plumb(alice, "hash-object", "-w", "--stdin", data=meta.encode())
    old = world.plumb(alice, "rev-parse", f"{tip}:gitmem.toml")
    listing = world.plumb(alice, "ls-tree", tip).replace(old, blob) + "\n"
    tree = world.plumb(alice, "mktree", data=listing.encode())
    commit = world.plumb(alice, "commit-tree", tree, "-p", tip, "-m", "open alias")
    world.git("push", "-q", str(world.remote), f"{commit}:refs/gitmem/team", cwd=alice)
    run = world.gitmem("-C", str(bob), "sync")
    assert run.code == 2 and "unclosed string" in run.err, run.err
    assert sorted(p.relative_to(team).as_posix() for p in team.rglob("*")) == before


def test_a_description_of_blanks_merges_in_linear_time() -> None:
    """Worked (cost, in every merge of the file): a teammate's `description:` of 16,000
    blanks then a word cost the merge driver's `(.*?)([ \\t]*)$` 2.8 s (64 KiB of them,
    the frontmatter's cap: ~45 s). The value is the same, found in one pass."""
    blanks = " " * 60_000
    topic = f"---\nname: n\ndescription: x{blanks}y  \n---\nbody\n".encode()
    assert _timed(description, topic) < LINEAR
    assert description(topic) == f"x{blanks}y"
    assert _timed(with_description, topic, "z") < LINEAR
    assert b"description: z  \n" in with_description(topic, "z")
    crlf = b"---\r\ndescription: a b \t\r\n---\r\n"
    assert description(crlf) == "a b"  # as before: the value stripped, `\r` and all


def test_a_committed_hook_command_repeating_the_boot_line_is_read_once() -> None:
    """Worked (cost): a repository's committed `.claude/settings.local.json` whose hook
    command repeats `from gitmem.hookstart import main ` — `[^'"]*` read on to the end from
    each repetition: 68 KB 2.8 s, a megabyte (within a settings file's limit) ~10 minutes of
    `doctor`, `status`, `hooks install`. The scan after `main` is bounded; the command an
    earlier gitmem installed is still known."""
    hostile = "from gitmem.hookstart import main " * 30_000  # 1 MB
    assert _timed(is_gitmem_hook, hostile, "SessionStart") < LINEAR
    assert not is_gitmem_hook(hostile, "SessionStart")
    earlier = (
        "/usr/bin/python3 -I -S -c \"import sys; sys.path.insert(0, '/opt/gm'); "
        'from gitmem.hookstart import main; sys.exit(main())" pull --hook'
    )
    assert is_gitmem_hook(earlier, "SessionStart")


@pytest.mark.parametrize(
    "settings",
    [
        '{"context": {"fileName": "' + '"\\' * 500_000,  # strings never closed: 1 MB
        '{"context": ' + "[" * 100_000,  # nested past Python's recursion limit
    ],
    ids=["open-strings", "deep"],
)
def test_gemini_settings_that_cost_or_crash_read_as_no_setting(
    tmp_path: Path, settings: str
) -> None:
    """Worked (cost, crash), at every sync, query and prompt hook with Gemini enabled:
    `~/.gemini/settings.json` of open strings cost the comment stripper 14 s for 40 KB (each
    quote read on to the end), and one nested 100,000 deep raised RecursionError out of the
    sync (no `except ValueError` catches it). Now: linear, and read as no setting (GEMINI.md)."""
    (tmp_path / "settings.json").write_text(settings)
    assert _timed(gemini_memory_name, tmp_path) < LINEAR
    assert gemini_memory_name(tmp_path) == "GEMINI.md"
    # comments and strings as Gemini CLI reads them, still
    (tmp_path / "settings.json").write_text(
        '// mine\n{"a": "x//y \\" /*", /* "q" */ "context": {"fileName": ["NOTES.md"]}}'
    )
    assert gemini_memory_name(tmp_path) == "NOTES.md"


# -- the prompt hook's payload: bounded as every hook's --------------------------------------


def _prompt_hook() -> list[str]:
    boot = (
        f"import sys; sys.path.insert(0, {str(REPO_ROOT)!r}); "
        "from gitmem.recall.prompt import main; main(); "
        # this program's peak memory (ru_maxrss would count the forking parent's too)
        "sys.stderr.write(open('/proc/self/status').read().split('VmHWM:')[1].split()[0])"
    )
    return [sys.executable, "-I", "-S", "-c", boot, "recall", "--hook"]


def test_the_prompt_hooks_payload_is_read_within_the_hooks_bound(synced: Shared) -> None:
    """Worked (cost, on every prompt): the prompt hook read its stdin whole — a 27 MB prompt
    (a pasted log) took 10 s and 500 MB before the first of the 24 words it searches — and
    waited for ever on a stdin left open, where the SessionStart hook reads 1 MiB at most and
    stops after a second of silence. Now one reader for every hook (`core/fileread.read_stdin`):
    the oversize payload is no payload (no answer), an open stdin ends after its second."""
    world, bob = synced.world, synced.bob
    words = " ".join(f"w{i:07d}" for i in range(1_200_000))  # 11 MB
    event = json.dumps({"prompt": words, "cwd": str(bob), "hook_event_name": "UserPromptSubmit"})
    done = subprocess.run(
        _prompt_hook(),
        input=event.encode(),
        capture_output=True,
        cwd=bob,
        env=world.env,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout == b""
    assert int(done.stderr.decode().rsplit(None, 1)[-1]) < 100_000, done.stderr[-200:]  # KiB
    small = json.dumps({"prompt": "deploy on Friday?", "cwd": str(bob)}).encode()
    held = subprocess.Popen(
        _prompt_hook(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=bob,
        env=world.env,
    )
    assert held.stdin is not None
    held.stdin.write(small)
    held.stdin.flush()  # and left open, as a person running the hook by hand leaves it
    try:
        assert held.wait(timeout=30) == 0
    finally:
        held.kill()
        held.communicate()


def test_a_record_refused_for_its_frontmatter_says_so_not_secret() -> None:
    """Smell: `record` with 9,000 tags (a frontmatter over 64 KiB, GM120) was refused with
    the secret's hint, "a secret belongs in a secret store"."""
    from gitmem.recall.record import RecordRefused, _refuse_bad

    tags = ", ".join(f"t{i:05d}" for i in range(9_000))
    topic = f"---\nname: Tags\ntags: [{tags}]\n---\nx\n".encode()
    with pytest.raises(RecordRefused) as refused:
        _refuse_bad("team/tags.md", topic)
    assert "GM120" in refused.value.message
    assert "secret" not in (refused.value.hint or "") and "fewer tags" in (refused.value.hint or "")


def test_record_refuses_a_name_one_file_with_another_on_macos(synced: Shared) -> None:
    """Worked (an agent's `record`, MCP or CLI): `file: Deploys.md` beside the team's
    `deploys.md` was written and said "recorded"; the sync then skipped it (GM107) but pushed
    its index line, a team entry linking a file no teammate got. Now refused before a byte
    is written, as the sync's policy would (core/namefold), the other spelling named."""
    world, bob = synced.world, synced.bob
    team = world.scope_path(bob, "team")
    index = (team / "MEMORY.md").read_bytes()
    run = world.gitmem(
        "-C", str(bob), "record", "--title", "D", "--scope", "team", "--file", "Deploys.md", "x"
    )
    assert run.code == 2 and "one file with 'deploys.md'" in run.err, run.err
    assert sorted(p.name for p in team.iterdir()) == ["MEMORY.md", "deploys.md"]
    assert (team / "MEMORY.md").read_bytes() == index
    folder = world.gitmem(
        "-C", str(bob), "record", "--title", "D", "--scope", "agents", "--file", "Ops/a.md", "x"
    )
    assert folder.code == 0, folder.err  # a new folder: nothing to be one with
    again = world.gitmem(
        "-C", str(bob), "record", "--title", "E", "--scope", "agents", "--file", "ops/b.md", "y"
    )
    assert again.code == 2 and "one file with 'Ops'" in again.err, again.err


def test_a_gemini_settings_file_never_breaks_recall_for_a_claude_only_user(synced: Shared) -> None:
    """Worked (crash): recall reads every adapter's user folders to know when to confine
    again, Gemini's `settings.json` included whatever `gitmem.agents` says: nested 100,000
    deep, it made `gitmem query` an internal error (exit 4) and every prompt hook silent."""
    world, bob = synced.world, synced.bob
    (world.home / ".gemini").mkdir(exist_ok=True)
    (world.home / ".gemini" / "settings.json").write_text('{"context": ' + "[" * 100_000)
    run = world.gitmem("-C", str(bob), "query", "tuesdays")
    assert run.code == 0 and "deploys.md" in run.out, run.err


def test_a_long_name_is_refused_in_its_own_words() -> None:
    """Held (refused, GM102), in the wrong words: a teammate's 300-byte file name was "name
    longer than 1024 bytes" (the whole path's bound); now the bound that was crossed."""
    from gitmem.policy.rules import check_name

    (name,) = check_name("team/" + "a" * 297 + ".md")
    assert name.code == "GM102" and "longer than 255 bytes" in name.message, name.message
    (path,) = check_name("team/" + "/".join(["b" * 200] * 6) + ".md")
    assert path.code == "GM102" and "path longer than 1024 bytes" in path.message, path.message
