"""Red-team round: a hostile team ref's tree and history (charter rule 4).

A teammate who can push writes the team ref with plain git: names git itself would warn about,
modes, links and gitlinks, names that are one file on another system, a history that is long or
wide. The other teammate's sync must refuse what is unsafe (nothing written outside the team
folder, nothing of it taken), print names only escaped, and stay within bounded time.
"""

from __future__ import annotations

import os
import subprocess
import time
import unicodedata

import pytest

from tests.support.teammates import Shared
from tests.support.world import World, folder_bytes

TEAM = "refs/gitmem/team"


def _quoted(name: bytes) -> str:
    """fast-import's C-style quoting of a path."""
    out = []
    for b in name:
        ch = chr(b)
        if ch in '"\\':
            out.append("\\" + ch)
        elif b < 0x20 or b >= 0x7F:
            out.append(f"\\{b:03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _plant(world: World, entries: list[tuple[str, bytes, bytes]], parents: int = 1) -> str:
    """A commit on top of the remote's team tip adding `entries` (mode, path, data), made with
    git fast-import in the bare remote; the new tip."""
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    lines = [f"commit {TEAM}\ncommitter Mallory <m@example.com> 1700000000 +0000\n"]
    lines.append("data 22\ngitmem: 1 file changed\n")
    lines.append(f"from {tip}\n")
    for mode, path, data in entries:
        if mode == "160000":
            lines.append(f"M 160000 {tip} {_quoted(path)}\n")
        else:
            lines.append(f"M {mode} inline {_quoted(path)}\ndata {len(data)}\n")
            lines.append(data.decode("latin-1") + "\n")
    script = "".join(lines).encode("latin-1")
    proc = subprocess.run(
        ["git", "fast-import", "--quiet", "--force"],
        cwd=world.remote,
        input=script,
        capture_output=True,
        env=world.env,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return world.plumb(world.remote, "rev-parse", TEAM)


NAMES: dict[str, tuple[str, bytes, bytes]] = {
    "dotdot": ("100644", b"team/../../escape.md", b"x\n"),
    "dotgit": ("100644", b"team/.git/hooks/x.md", b"x\n"),
    "dotgit-case": ("100644", b"team/.GiT/x.md", b"x\n"),
    "dotgit-space": ("100644", b"team/.git /x.md", b"x\n"),
    "newline": ("100644", b"team/a\nb.md", b"x\n"),
    "escape": ("100644", b"team/\x1b]8;;http:evil\x07x.md", b"x\n"),
    "backslash": ("100644", b"team/..\\..\\x.md", b"x\n"),
    "bidi": ("100644", "team/read\u202egnp.md".encode(), b"x\n"),
    "not-utf8": ("100644", b"team/\xff\xfe.md", b"x\n"),
    "long-part": ("100644", b"team/" + b"a" * 300 + b".md", b"x\n"),
    "long-path": ("100644", b"team/" + b"d/" * 900 + b"x.md", b"x\n"),
    "symlink": ("120000", b"team/link.md", b"../../../.ssh/id_ed25519"),
    "exec": ("100755", b"team/run.md", b"#!/bin/sh\necho pwned\n"),
    "gitlink": ("160000", b"team/sub.md", b""),
    "not-memory": ("100644", b"team/evil.sh", b"echo\n"),
    "top-level": ("100644", b"hooks/pre-commit.md", b"x\n"),
}


@pytest.mark.parametrize("kind", sorted(NAMES))
def test_a_hostile_name_or_mode_in_the_team_ref_is_refused_and_never_written(
    synced: Shared, kind: str
) -> None:
    world, _alice, bob, _team = synced
    bob_team = world.scope_path(bob, "team")
    before = folder_bytes(bob_team)
    home_before = sorted(p for p in world.root.rglob("*") if "escape" in p.name)
    mode, path, data = NAMES[kind]
    _plant(world, [(mode, path, data)])

    run = world.gitmem("-C", str(bob), "sync")

    shown = run.out + run.err
    assert "\x1b" not in shown and "\u202e" not in shown, shown
    assert "Traceback" not in shown, shown
    assert sorted(p for p in world.root.rglob("*") if "escape" in p.name) == home_before
    for p in bob_team.rglob("*"):
        assert not p.is_symlink() and not (p.is_file() and os.access(p, os.X_OK)), p
    if kind == "exec":  # a memory all the same: taken, but never as a program
        assert run.code == 0, shown
        return
    assert folder_bytes(bob_team) == before, (kind, run.code, shown)
    assert run.code == 2 and "refused" in shown, (kind, run.code, shown)


def test_names_one_file_apart_on_another_system_are_reported_by_validate(pushed: Shared) -> None:
    """`café.md` composed and decomposed are two git names and one file on macOS (as `A.md`
    and `a.md` are): validate warns of both, as of letter case (GM107)."""
    world, _alice, _bob, _team = pushed
    nfc = unicodedata.normalize("NFC", "team/café.md").encode()
    nfd = unicodedata.normalize("NFD", "team/café.md").encode()
    _plant(world, [("100644", nfc, b"one\n"), ("100644", nfd, b"two\n")])
    run = world.gitmem("-C", str(world.remote), "validate", TEAM)
    assert "GM107" in run.out, run.out + run.err
    _plant(world, [("100644", b"team/Deploys.md", b"three\n")])
    run = world.gitmem("-C", str(world.remote), "validate", TEAM)
    assert run.out.count("GM107") >= 2, run.out


@pytest.mark.parametrize("shape", ["octopus", "long"])
def test_a_wide_or_long_team_history_is_judged_in_bounded_time(synced: Shared, shape: str) -> None:
    """An octopus merge of 400 parents, or 3,000 tiny commits, pushed onto the team ref: the
    teammate's sync judges every new commit (docs/design.md §6) within seconds (the octopus
    refused since round 23: more parents than gitmem's history has)."""
    world, _alice, bob, _team = synced
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    tree = world.plumb(world.remote, "rev-parse", f"{tip}^{{tree}}")
    env = {
        **world.env,
        "GIT_AUTHOR_DATE": "1700000000 +0000",
        "GIT_COMMITTER_DATE": "1700000000 +0000",
    }

    def commit(parents: list[str], msg: str) -> str:
        args = ["git", "commit-tree", tree, "-m", msg]
        for p in parents:
            args += ["-p", p]
        return subprocess.run(
            args, cwd=world.remote, env=env, capture_output=True, text=True, check=True
        ).stdout.strip()

    if shape == "octopus":
        side = [commit([tip], f"side {i}") for i in range(400)]
        new = commit(side, "gitmem: merge")
    else:
        script = [f"reset {TEAM}\nfrom {tip}\n"]
        for i in range(3000):
            script.append(
                f"commit {TEAM}\ncommitter M <m@x> {1700000000 + i} +0000\ndata 6\nc{i:04}\n"
                f"M 100644 inline team/n{i % 7}.md\ndata {len(str(i)) + 1}\n{i}\n\n"
            )
        subprocess.run(
            ["git", "fast-import", "--quiet", "--force"],
            cwd=world.remote,
            input="".join(script).encode(),
            env=world.env,
            check=True,
        )
        new = world.plumb(world.remote, "rev-parse", TEAM)
    world.plumb(world.remote, "update-ref", TEAM, new)
    started = time.monotonic()
    run = world.gitmem("-C", str(bob), "sync", timeout=300)
    took = time.monotonic() - started
    if shape == "octopus":  # round 23: more parents than gitmem writes, refused at the gate
        assert run.code == 2 and "merges 400 parents" in run.err, run.err
    else:
        assert run.code in (0, 1, 3), run.err
    assert took < 60, took
    assert "Traceback" not in run.err


HOSTILE = "\x1b]0;pwned\x07\x1b]8;;http:evil\x07\u202e\x1b[2J\r\x08\U000e0041"


def _raw(text: str) -> list[str]:
    return [
        c
        for c in text
        if (unicodedata.category(c) in ("Cc", "Cf") and c not in "\n\t") or ord(c) >= 0xE0000
    ]


DEPLOYS = "---\nname: deploys\n---\nMondays now.\n"


def test_a_teammates_commit_metadata_reaches_no_output_raw(synced: Shared) -> None:
    """Author name and e-mail, subject, body and Gitmem-Resolved trailers carrying terminal
    escapes, bidi controls, carriage returns and Unicode tags: every command that shows who
    changed what (sync's report, log, log --json, history, status, the SessionStart hook's
    lines for the agent, query --author) shows them escaped or removed, never raw."""
    world, _alice, bob, _team = synced
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    message = (
        f"gitmem: 1 file changed {HOSTILE}\n\nbody {HOSTILE}\n\n"
        f"Gitmem-Resolved: team/deploys.md {HOSTILE}: theirs (newer)\n"
    )
    script = (
        f"commit {TEAM}\nauthor Mal{HOSTILE}lory <m{HOSTILE}@example.com> 1700000000 +0000\n"
        f"committer Mal{HOSTILE} <m@example.com> 1700000000 +0000\n"
        f"data {len(message.encode())}\n{message}\nfrom {tip}\n"
        f"M 100644 inline team/deploys.md\ndata {len(DEPLOYS)}\n{DEPLOYS}\n"
    )
    proc = subprocess.run(
        ["git", "fast-import", "--quiet", "--force"],
        cwd=world.remote,
        input=script.encode(),
        capture_output=True,
        env=world.env,
    )
    assert proc.returncode == 0, proc.stderr.decode()

    for args in (
        ["sync"],
        ["log"],
        ["log", "--json"],
        ["log", "-p"],
        ["status"],
        ["status", "--json"],
        ["pull", "--hook"],
        ["query", "--author", "Mal", "--format", "full"],
        ["query", "--search", "deploys", "--format", "json"],
        ["lost"],
    ):
        run = world.gitmem("-C", str(bob), *args)
        assert "Traceback" not in run.err, (args, run.err)
        assert not _raw(run.out + run.err), (args, run.out + run.err)
    assert "Mondays now." in (world.scope_path(bob, "team") / "deploys.md").read_text()


def test_a_servers_flood_of_remote_lines_is_bounded_and_escaped(world: World) -> None:
    """A server (a pre-receive hook) that answers a push with 200,000 `remote:` lines, one
    line of a megabyte, escapes and carriage returns: gitmem's error says why in a few
    lines, escaped, never the flood."""
    alice = world.clone("alice")
    hook = world.remote / "hooks" / "pre-receive"
    hook.write_text(
        "#!/bin/sh\ncat >/dev/null\n"
        "i=0; yes 'remote flood \\033]0;pwned\\007 line' | head -n 200000 >&2\n"
        "head -c 1000000 /dev/zero | tr '\\0' 'x' >&2\n"
        "printf '\\r\\033[2Jdenied by policy\\n' >&2\nexit 1\n"
    )
    hook.chmod(0o755)
    from tests.support.world import write_files

    write_files(world.scope_path(alice), {"MEMORY.md": "- a note\n"})
    run = world.gitmem("-C", str(alice), "push")
    assert run.code == 3, run.err
    assert not _raw(run.out + run.err), run.err[:500]
    assert len(run.out + run.err) < 20_000, len(run.out + run.err)


@pytest.mark.parametrize(
    "meta",
    [
        'version = 1\nkey = "' + "k" * 500_000 + '"\n',
        'version = 1\nkey = "x"\naliases = [' + ", ".join(f'"a{i}"' for i in range(20_000)) + "]\n",
        'version = 1\nkey = "evil\x1b]0;pwn\x07\u202eexample.com/x/y"\n',
    ],
    ids=["huge-key", "many-aliases", "escapes"],
)
def test_a_foreign_project_key_is_named_in_one_bounded_escaped_line(
    synced: Shared, meta: str
) -> None:
    """The team ref's gitmem.toml is outside text: a key of half a megabyte was echoed whole
    in the refusal (worked before: a 500 KB error line), and every alias of thousands."""
    world, _alice, bob, _team = synced
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    data = meta.encode()
    script = (
        (
            f"commit {TEAM}\ncommitter M <m@x> 1700000000 +0000\ndata 2\nx\nfrom {tip}\n"
            f"M 100644 inline gitmem.toml\ndata {len(data)}\n"
        ).encode()
        + data
        + b"\n"
    )
    subprocess.run(
        ["git", "fast-import", "--quiet", "--force"],
        cwd=world.remote,
        input=script,
        env=world.env,
        check=True,
    )
    run = world.gitmem("-C", str(bob), "sync")
    # over 64 KiB, gitmem.toml is refused for its size before its key is read (red team 17)
    said = "bytes (limit 65536)" if len(data) > 65536 else "holds memory of project"
    assert run.code == 2 and said in run.err, run.err[:300]
    assert len(run.out + run.err) < 2_000, len(run.out + run.err)
    assert not _raw(run.out + run.err)


@pytest.mark.parametrize("fmt", ["github", "json", "text"])
def test_validate_in_ci_prints_hostile_names_and_text_escaped_in_every_format(
    pushed: Shared, fmt: str
) -> None:
    """validate runs in CI on teammates' refs: a name holding a bidi override, an escape
    sequence or a newline followed by a workflow command (`::add-mask::`, `::stop-commands::`)
    must neither reach the log raw nor start a workflow command line of its own."""
    world, _alice, _bob, _team = pushed
    _plant(
        world,
        [
            ("100644", "team/read\u202egnp.md".encode(), b"x\n"),
            ("100644", b"team/x\n::stop-commands::pwn\n.md", b"x\n"),
            ("100644", b"team/\x1b]0;t\x07,line=9::y.md", b"x\n"),
            ("100644", b"team/body.md", "ok\n\x1b[2J\u202e\n::warning::fake\n".encode()),
        ],
    )
    run = world.gitmem("-C", str(world.remote), "validate", "--format", fmt, TEAM)
    assert run.code in (1, 2), run.err
    assert not _raw(run.out + run.err), (run.out + run.err)[:800]
    if fmt == "github":
        commands = [ln for ln in run.out.splitlines() if ln.startswith("::")]
        assert commands and all(ln.startswith(("::error ", "::warning ")) for ln in commands)


def test_a_commit_of_megabytes_of_metadata_costs_each_door_once(synced: Shared) -> None:
    """A team commit whose author name is 200 KB and whose message holds a megabyte and
    20,000 Gitmem-Resolved trailers: sync's report repeated the name per file (a 2 MB line
    for a 2 MB name) and `gitmem view` cleaned the name once per trailer (23 s for 20,000;
    past 5 minutes for 200,000) — worked before. Each door now shows a bounded line."""
    world, _alice, bob, _team = synced
    tip = world.plumb(world.remote, "rev-parse", TEAM)
    message = (
        "gitmem: merge "
        + "A" * 1_000_000
        + "\n\n"
        + "".join(
            f"Gitmem-Resolved: team/deploys.md entry {i}: theirs (newer)\n" for i in range(20_000)
        )
    ).encode()
    body = DEPLOYS.encode()
    script = (
        (
            f"commit {TEAM}\nauthor {'M' * 200_000} <m@x> 1700000000 +0000\n"
            f"committer M <m@x> 1700000000 +0000\ndata {len(message)}\n"
        ).encode()
        + message
        + (f"\nfrom {tip}\nM 100644 inline team/deploys.md\ndata {len(body)}\n").encode()
        + body
        + b"\n"
    )
    subprocess.run(
        ["git", "fast-import", "--quiet", "--force"],
        cwd=world.remote,
        input=script,
        env=world.env,
        check=True,
    )
    for args, most in ((["sync"], 2_000), (["pull", "--hook"], 10_000), (["view"], 2_000)):
        started = time.monotonic()
        run = world.gitmem("-C", str(bob), *args, timeout=120)
        took = time.monotonic() - started
        assert run.code == 0, (args, run.err[:300])
        assert len(run.out + run.err) < most, (args, len(run.out + run.err))
        assert took < 30, (args, took)
    page = (bob / ".git" / "gitmem" / "view.html").read_text()
    assert len(page) < 500_000, len(page)
