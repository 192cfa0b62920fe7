"""Any text syncs (issue 24): a memory file an editor saved as Latin-1 (`caf\\xe9`) is pushed,
pulled and merged line by line on its bytes through `gitmem sync` with two and three real
clones, every byte kept; each machine that reads it is told which file and which byte, once
(`--json`: `not_utf8` with path and offset), validate warns (GM113), the remote gate and the
pre-receive hook accept it; what reaches an agent holds no raw bad byte. UTF-16 and binary
content are still refused with one line, and "kept changing" is said only of a file that did.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.claude.test_hook_mode import hook
from tests.support.personal import USER_REF, personal_paths
from tests.support.pristine import Pristine, built_once
from tests.support.world import REPO_ROOT, World, folder_bytes

BASE = b"# Notes\n\n- one\n- two\n- three\n- four\n"


def synced(world: World, *names: str, scope: str = "team") -> tuple[list[Path], list[Path]]:
    """Clones that synced a team index `BASE` (the first wrote it): clones and folders."""
    clones = [world.clone(n) for n in names]
    folders = [world.scope_path(c, scope) for c in clones]
    folders[0].mkdir(parents=True)
    (folders[0] / "MEMORY.md").write_bytes(BASE)
    for clone in clones:
        world.ok("-C", str(clone), "sync")
    return clones, folders


# a world, its clones a and b, their team folders
AB = tuple[World, tuple[Path, Path], tuple[Path, Path]]


@pytest.fixture(scope="module")
def _ab(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    """`synced(world, "a", "b")` built once for the module's tests of two clones (#23)."""
    return built_once(tmp_path_factory, _remote_template, "a-b", lambda w: synced(w, "a", "b"))


@pytest.fixture
def ab(_ab: Pristine, monkeypatch: pytest.MonkeyPatch) -> AB:
    world = _ab.fresh(monkeypatch)
    a, b = world.root / "a", world.root / "b"
    return world, (a, b), (world.scope_path(a, "team"), world.scope_path(b, "team"))


def sync(world: World, clone: Path, *args: str) -> str:
    run = world.gitmem("-C", str(clone), "sync", *args)
    assert run.code == 0, run
    assert "kept changing" not in run.out + run.err, run
    return run.out


def test_a_latin1_byte_on_one_side_and_an_edit_on_the_other_converge(ab: AB) -> None:
    world, (a, b), (ta, tb) = ab
    (ta / "MEMORY.md").write_bytes(BASE.replace(b"- one", b"- caf\xe9 one"))
    (tb / "MEMORY.md").write_bytes(BASE.replace(b"- four", b"- four, five"))

    pushed = json.loads(sync(world, a, "--json"))
    team = next(r for r in pushed["refs"] if r["ref"] == "refs/gitmem/team")
    at = BASE.index(b"- one") + 5
    assert team["not_utf8"] == [{"path": "team/MEMORY.md", "offset": at}], team
    assert team["local_changes"] == [{"status": "M", "path": "team/MEMORY.md"}], team
    [note] = [n for n in team["notes"] if "not UTF-8" in n]
    assert note.startswith(f"team: MEMORY.md is not UTF-8 (first bad byte 0xE9 at byte {at},")
    merged = sync(world, b)
    assert f"resolved team/MEMORY.md byte {at} of theirs (0xe9)" in merged, merged
    assert "pulled team/MEMORY.md:3: GM113 warning" in merged, merged
    sync(world, a)

    want = BASE.replace(b"- one", b"- caf\xe9 one").replace(b"- four", b"- four, five")
    assert folder_bytes(ta) == folder_bytes(tb) == {"MEMORY.md": want}
    assert "not UTF-8" not in sync(world, a) + sync(world, b), "said when read, not every sync"
    check = world.gitmem("-C", str(a), "validate")
    assert check.code == 0 and "team/MEMORY.md:3: GM113 warning" in check.out, check
    assert world.gitmem("-C", str(a), "validate", "--strict").code == 1


def test_a_pulled_latin1_file_is_reported_with_its_offset_in_json(ab: AB) -> None:
    """The pull side of --json's not_utf8: the remote gate's GM113 finding carries the
    offset of the first bad byte (a value, not read back from the message)."""
    world, (a, b), (ta, tb) = ab
    damaged = BASE.replace(b"- three", b"- na\xefve three")
    (tb / "MEMORY.md").write_bytes(damaged)
    sync(world, b)

    pulled = json.loads(sync(world, a, "--json"))
    team = next(r for r in pulled["refs"] if r["ref"] == "refs/gitmem/team")
    at = BASE.index(b"- three") + 4
    assert team["not_utf8"] == [{"path": "team/MEMORY.md", "offset": at}], team
    assert any(f"first bad byte 0xEF at byte {at}," in n for n in team["notes"]), team
    assert folder_bytes(ta) == {"MEMORY.md": damaged}


def test_three_clones_two_different_bad_bytes_and_an_edit(world: World) -> None:
    clones, folders = synced(world, "a", "b", "c")
    edits = [(b"- one", b"- caf\xe9"), (b"- three", b"- na\xefve \x80"), (b"- four", b"- 4")]
    for folder, (old, new) in zip(folders, edits, strict=True):
        (folder / "MEMORY.md").write_bytes(BASE.replace(old, new))
    for clone in [*clones, *clones[:-1]]:
        sync(world, clone)
    want = BASE
    for old, new in edits:
        want = want.replace(old, new)
    assert all(folder_bytes(f) == {"MEMORY.md": want} for f in folders)


def test_crlf_and_latin1_through_sync(ab: AB) -> None:
    crlf = BASE.replace(b"\n", b"\r\n")
    world, (a, b), (ta, tb) = ab
    (ta / "MEMORY.md").write_bytes(crlf)
    sync(world, a)
    sync(world, b)
    (ta / "MEMORY.md").write_bytes(crlf.replace(b"- two", b"- caf\xe9 two"))
    (tb / "MEMORY.md").write_bytes(crlf + b"- five\r\n")
    for clone in (a, b, a):
        sync(world, clone)
    want = crlf.replace(b"- two", b"- caf\xe9 two") + b"- five\r\n"
    assert folder_bytes(ta) == folder_bytes(tb) == {"MEMORY.md": want}


def test_a_file_bad_only_in_the_base_comes_out_utf8(ab: AB) -> None:
    world, (a, b), (ta, tb) = ab
    latin1 = BASE.replace(b"- one", b"- caf\xe9")
    (ta / "MEMORY.md").write_bytes(latin1)
    sync(world, a)
    sync(world, b)
    (ta / "MEMORY.md").write_bytes(latin1.replace(b"\xe9", "é".encode()))  # re-saved as UTF-8
    (tb / "MEMORY.md").write_bytes(latin1.replace(b"- four", b"- four!"))
    for clone in (a, b, a):
        sync(world, clone)
    want = BASE.replace(b"- one", "- café".encode()).replace(b"- four", b"- four!")
    assert folder_bytes(ta) == folder_bytes(tb) == {"MEMORY.md": want}


def test_a_latin1_topic_file_in_the_encrypted_personal_scope(world: World) -> None:
    """Two clones of one user (one key): the sealed auto scope carries the file's bytes."""
    (a, a2), (fa, fa2) = synced(world, "a", "a2", scope="auto")
    topic = b"---\nname: caf\xe9\ndescription: d\ntype: user\n---\n- one\n- two\n- three\n"
    (fa / "cafe.md").write_bytes(topic)
    out = sync(world, a)
    assert "auto: cafe.md is not UTF-8 (first bad byte 0xE9 at byte 13, line 2" in out, out
    assert "auto/cafe.md" in personal_paths(world.remote, USER_REF)
    listed = world.plumb(world.remote, "ls-tree", "-r", "--name-only", USER_REF).split()
    assert "auto/cafe.md" not in listed and "auto/manifest" in listed, "sealed on the remote"
    sync(world, a2)
    assert (fa2 / "cafe.md").read_bytes() == topic
    (fa / "cafe.md").write_bytes(topic.replace(b"- one", b"- one \xff"))
    (fa2 / "cafe.md").write_bytes(topic + b"- four\n")
    for clone in (a, a2, a):
        sync(world, clone)
    want = topic.replace(b"- one", b"- one \xff") + b"- four\n"
    assert (fa / "cafe.md").read_bytes() == (fa2 / "cafe.md").read_bytes() == want


def test_the_pre_receive_hook_and_the_gate_accept_latin1_and_refuse_utf16(world: World) -> None:
    hook_file = world.remote / "hooks" / "pre-receive"
    shutil.copy(REPO_ROOT / "templates" / "pre-receive", hook_file)
    os.chmod(hook_file, 0o755)
    world.env["GITMEM"] = str(Path(sys.executable).parent / "gitmem")
    (a, b), (ta, tb) = synced(world, "a", "b")
    (ta / "MEMORY.md").write_bytes(BASE + b"- caf\xe9\n")
    sync(world, a)  # through the hook
    shown = world.plumb(world.remote, "ls-tree", "-r", "refs/gitmem/team", "team/MEMORY.md")
    assert shown.split()[2] == world.plumb(a, "rev-parse", "refs/gitmem/team:team/MEMORY.md")
    sync(world, b)
    assert (tb / "MEMORY.md").read_bytes() == BASE + b"- caf\xe9\n"

    # UTF-16 planted with plain git: the hook refuses it; the gate of a sync as well
    wide = world.plumb(b, "hash-object", "-w", "--stdin", data="- one\n".encode("utf-16"))
    env = {**world.env, "GIT_INDEX_FILE": str(world.root / "planted.index")}
    tip = world.plumb(b, "rev-parse", "refs/gitmem/team")
    for args in (
        ["read-tree", tip],
        ["update-index", "--add", "--cacheinfo", f"100644,{wide},team/wide.md"],
    ):
        subprocess.run(["git", *args], cwd=b, env=env, check=True)
    tree = subprocess.run(
        ["git", "write-tree"], cwd=b, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()
    planted = world.plumb(b, "commit-tree", tree, "-p", tip, "-m", "gitmem: 1 file changed")
    push = world.push(b, world.remote, f"{planted}:refs/gitmem/team")
    assert push.returncode != 0 and "team/wide.md:1: GM111" in push.stderr, push.stderr
    hook_file.unlink()  # past the hook (a server without it): the sync's gate refuses it
    assert world.push(b, world.remote, f"{planted}:refs/gitmem/team").returncode == 0
    run = world.gitmem("-C", str(a), "sync")
    assert run.code == 2 and "GM111" in run.err and len(run.err.strip().splitlines()) <= 2, run
    assert not (ta / "wide.md").exists()


def test_a_file_refused_here_is_said_to_wait_not_to_keep_changing(ab: AB) -> None:
    """A UTF-16 file here (never synced) where a teammate's UTF-8 file of that name arrives:
    every sync said it 'kept changing during the sync'. It waits, said so; re-saved as
    UTF-8, it merges."""
    world, (a, b), (ta, tb) = ab
    (tb / "wide.md").write_bytes("- mine\n".encode("utf-16"))
    (ta / "wide.md").write_bytes(b"- theirs\n")
    sync(world, a)
    for _ in range(2):
        out = sync(world, b)
        assert "team: wide.md is not UTF-8 text (UTF-16 text" in out, out
        assert "changes to it from origin wait" in out, out
    assert (tb / "wide.md").read_bytes() == "- mine\n".encode("utf-16")
    (tb / "wide.md").write_bytes(b"- mine\n")
    sync(world, b)
    sync(world, a)
    assert (ta / "wide.md").read_bytes() == (tb / "wide.md").read_bytes()
    assert {b"- mine", b"- theirs"} <= set((ta / "wide.md").read_bytes().split(b"\n"))


def test_what_reaches_the_agent_holds_no_raw_bad_byte(ab: AB) -> None:
    """SessionStart puts the team index in the agent's context: each bad byte is U+FFFD
    (decoded with replacement), the rest of the line as written."""
    world, (a, b), (ta, _) = ab
    (ta / "MEMORY.md").write_bytes(BASE + b"- caf\xe9 au lait \x85\n")
    sync(world, a)
    run, _ = hook(world, "pull", b, "SessionStart")  # its stdout decoded strictly as UTF-8
    assert run.code == 0, run.err
    assert "- caf\ufffd au lait \ufffd" in run.out, run.out
    assert "\x85" not in run.out and not any("\udc80" <= ch <= "\udcff" for ch in run.out)


def test_every_output_door_shows_a_bad_byte_as_a_replacement_never_raw(world: World) -> None:
    """show, diff, --json and record on a Latin-1 index: no raw byte printed, no traceback;
    record adds its entry and keeps the file's bytes."""
    (a,), (ta,) = synced(world, "a")
    (ta / "MEMORY.md").write_bytes(BASE + b"- caf\xe9\n")
    sync(world, a)
    for args in (["show", "~0:team/MEMORY.md"], ["diff", "~1"]):
        run = world.gitmem("-C", str(a), *args)
        assert run.code == 0 and "- caf\ufffd" in run.out, (args, run)
    shown = json.loads(world.ok("-C", str(a), "show", "--json", "~0:team/MEMORY.md"))
    assert shown["text"].endswith("- caf\ufffd\n")
    run = world.gitmem(
        "-C", str(a), "record", "--scope", "team", "--title", "Deploys", "deploy on Tuesdays"
    )
    assert run.code == 0, run
    index = (ta / "MEMORY.md").read_bytes()
    assert index.startswith(BASE + b"- caf\xe9\n") and b"Deploys" in index, index


def test_git_merge_with_the_drivers_both_directions(world: World, tmp_path: Path) -> None:
    """Memory kept on a branch: `git merge` through the drivers merges two different bad
    bytes and CRLF + Latin-1, the same bytes whichever branch is merged into which."""
    env = {**world.env, "PYTHONPATH": str(REPO_ROOT)}
    repo = tmp_path / "repo"

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, text=True, env=env
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    world.git("init", "-q", "-b", "main", str(repo))
    driver = f"{sys.executable} -m gitmem.merge.gitdriver %O %A %B %L %P"
    for name in ("index", "frontmatter"):
        git("config", f"merge.gitmem-{name}.driver", driver)
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "attributes").write_text(
        ".claude/agent-memory/**/*.md merge=gitmem-frontmatter\n"
        ".claude/agent-memory/**/MEMORY.md merge=gitmem-index\n"
    )
    mem = repo / ".claude" / "agent-memory" / "bot"
    mem.mkdir(parents=True)
    crlf = BASE.replace(b"\n", b"\r\n")
    sides = {
        "MEMORY.md": (BASE, [(b"- one", b"- caf\xe9"), (b"- four", b"- na\xefve")]),
        "notes.md": (crlf, [(b"- two", b"- caf\xe9 two"), (b"- four", b"- four \xff")]),
    }

    def commit(k: int | None) -> None:
        for name, (base, edits) in sides.items():
            data = base if k is None else base.replace(*edits[k])
            (mem / name).write_bytes(data)
        git("add", "-A")
        git("commit", "-qm", f"side {k}")

    commit(None)
    git("branch", "left")
    commit(0)
    git("checkout", "-q", "left")
    commit(1)
    results = []
    for into, other in (("main", "left"), ("left", "main")):
        git("checkout", "-q", into)
        start = git("rev-parse", "HEAD").strip()
        git("merge", "-q", "--no-edit", other)
        results.append({name: (mem / name).read_bytes() for name in sides})
        git("reset", "-q", "--hard", start)
    assert results[0] == results[1]
    for name, (base, edits) in sides.items():
        want = base
        for old, new in edits:
            want = want.replace(old, new)
        assert results[0][name] == want, name


def test_a_latin1_file_is_still_refused_for_hidden_characters_and_secrets(world: World) -> None:
    """Syncing damaged text opens no door around the policy: a bidi override beside a Latin-1
    byte is skipped at push (GM112, said in one line), a token in a Latin-1 file stops the
    push (the secret scan reads it too); neither reaches the remote."""
    (a,), (ta,) = synced(world, "a")
    (ta / "bidi.md").write_bytes(b"- caf\xe9 \xe2\x80\xae evil\n")
    run = world.gitmem("-C", str(a), "sync")
    assert run.code == 0 and "skipped team: bidi.md (GM112: hidden characters" in run.err, run
    token = b"ghp_" + b"abcdefghijklmnopqrstuvwxyz0123456789AB"
    (ta / "token.md").write_bytes(b"- caf\xe9 " + token + b"\n")
    run = world.gitmem("-C", str(a), "push")
    assert run.code == 1 and "team/token.md:1" in run.err, run
    listed = world.plumb(world.remote, "ls-tree", "-r", "--name-only", "refs/gitmem/team")
    assert "bidi.md" not in listed and "token.md" not in listed
