"""Three things a user noticed in round 18 (docs/testing.md "Round 18b"): `gitmem log` named no
files, `status --user --json` joined two paths into one `path` string, and `validate --format
github` annotated `file=team/deploy.md`, no file of the checked-out branch. Each failed before
its fix."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.test_ux_newcomer11 import hub_world
from tests.support.world import World, write_files


def _commit_on(world: World, clone: Path, ref: str, names: dict[bytes, bytes]) -> None:
    """A commit on `ref` whose team folder also holds `names` (as a teammate's may)."""
    tip = world.plumb(clone, "rev-parse", ref)
    held = world.plumb(clone, "ls-tree", "-z", f"{tip}:team").encode().split(b"\0")
    rows = [row for row in held if row]
    for name, body in names.items():
        oid = world.plumb(clone, "hash-object", "-w", "--stdin", data=body)
        rows.append(b"100644 blob " + oid.encode() + b"\t" + name)
    team = world.plumb(clone, "mktree", "-z", data=b"".join(row + b"\0" for row in rows))
    others = world.plumb(clone, "ls-tree", tip).splitlines()
    kept = [row for row in others if not row.endswith("\tteam")] + [f"040000 tree {team}\tteam"]
    top = world.plumb(clone, "mktree", data="".join(f"{row}\n" for row in kept).encode())
    new = world.plumb(clone, "commit-tree", top, "-p", tip, "-m", "a teammate's commit")
    world.git("update-ref", ref, new, tip, cwd=clone)


def test_log_names_each_commits_files_with_gits_letters_bounded_and_escaped(
    world: World,
) -> None:
    """`gitmem log` said "2 files changed" and no more: finding a deleted memory took `gitmem
    diff '~N'` guesses. Each commit now lists its files as `git log --name-status` does (A, M,
    D, R), at most 20 and "… and N more", names escaped as everywhere else; `--json` the same
    (`files`, `files_more`); `--oneline` stays one line a commit."""
    clone = world.clone("p")
    team = world.scope_path(clone, "team")
    write_files(team, {"deploy.md": "Tuesdays\n", "build.md": "make all\n"})
    world.ok("sync", cwd=clone)
    (team / "deploy.md").unlink()
    (team / "build.md").write_text("make all -j4\n")
    world.ok("sync", cwd=clone)
    write_files(team, {f"n{i:02}.md": f"note {i}\n" for i in range(30)})
    world.ok("sync", cwd=clone)
    _commit_on(world, clone, "refs/gitmem/team", {b"x\x1b]0;pwn\x07.md": b"hi\n"})

    out = world.ok("log", "--no-pager", cwd=clone)
    assert "    A team/x\\033]0;pwn\\007.md\n" in out, out
    assert "\x1b" not in out and "\x07" not in out, out
    assert "    D team/deploy.md\n    M team/build.md\n" in out or (
        "    M team/build.md\n    D team/deploy.md\n" in out
    ), out
    assert "    A team/build.md\n" in out and "    A team/deploy.md\n" in out, out
    assert out.count("    A team/n") == 20 and "    … and 10 more\n" in out, out

    rows = json.loads(world.ok("log", "--json", cwd=clone))
    newest, big, edit, first = rows[0], rows[1], rows[2], rows[3]
    assert newest["files"] == [{"status": "A", "path": "team/x\x1b]0;pwn\x07.md"}], newest
    assert len(big["files"]) == 20 and big["files_more"] == 10, big
    assert sorted((f["status"], f["path"]) for f in edit["files"]) == [
        ("D", "team/deploy.md"),
        ("M", "team/build.md"),
    ], edit
    # the ref's own settings file too: log names what the commit changed, as git's does
    assert {f["path"] for f in first["files"]} >= {"team/build.md", "team/deploy.md"}, first
    assert first["files_more"] == 0

    one = world.ok("log", "--oneline", "--no-pager", cwd=clone)
    assert len(one.splitlines()) == len(rows), one
    # one memory's log: its own commits, each naming what it changed
    mine = world.ok("log", "--no-pager", "team/deploy.md", cwd=clone)
    assert "    D team/deploy.md\n" in mine and "    A team/deploy.md\n" in mine, mine
    assert "build.md" not in mine and "gitmem.toml" not in out, mine


def test_a_renamed_memory_is_one_r_line_old_and_new(world: World) -> None:
    clone = world.clone("p")
    team = world.scope_path(clone, "team")
    write_files(team, {"deploy.md": "Deploy on Tuesdays after the freeze lifts.\n"})
    world.ok("sync", cwd=clone)
    (team / "deploy.md").rename(team / "release.md")
    world.ok("sync", cwd=clone)
    out = world.ok("log", "-1", "--no-pager", cwd=clone)
    assert "    R team/deploy.md -> team/release.md\n" in out, out
    row = json.loads(world.ok("log", "-1", "--json", cwd=clone))[0]
    assert row["files"] == [{"status": "R", "path": "team/release.md", "from": "team/deploy.md"}], (
        row
    )


def test_status_user_json_gives_paths_as_a_list_and_path_the_first(tmp_path: Path) -> None:
    """`status --user --json` gave `"path": "/…/.claude/CLAUDE.md, /…/.claude/agent-memory"`:
    no program can split that (a path may hold ", "). `path` is now the first place and
    `paths` the list; the text still names each from `~/`."""
    world, proj, _hub = hub_world(tmp_path)
    world.ok("-C", str(proj), "sync")
    row = json.loads(world.ok("status", "--user", "--json", cwd=world.home))["scopes"][0]
    home = world.home / ".claude"
    assert row["paths"] == [str(home / "CLAUDE.md"), str(home / "agent-memory")], row
    assert row["path"] == str(home / "CLAUDE.md"), row
    text = world.ok("status", "--user", cwd=world.home)
    assert "          ~/.claude/CLAUDE.md, ~/.claude/agent-memory\n" in text, text
    # the personal ref's names are sealed (shards, a manifest, key files): log opens them
    log = world.ok("-C", str(proj), "log", "--no-pager")
    assert "    A auto/MEMORY.md\n    A auto/b.md\n" in log, log
    assert "keys/" not in log and "manifest" not in log, log
    # a project's status rows have `paths` too: the one folder
    scopes = json.loads(world.ok("-C", str(proj), "status", "--json"))["scopes"]
    assert all(s["paths"] == [s["path"]] for s in scopes), scopes


def test_validate_github_names_the_ref_not_a_file_of_the_checkout(world: World) -> None:
    """`validate --format github` on a ref annotated `file=team/d.md,line=1`: GitHub pinned
    it on a path of the checked-out branch that is not there (or another file of that name).
    A finding on a ref now names no file: its title holds the code, the ref and the path. A
    file checked on disk (`--files`) keeps `file=` and `line=`."""
    clone = world.clone("p")
    write_files(world.scope_path(clone, "team"), {"MEMORY.md": "- [D](d.md)\n", "d.md": "Tue\n"})
    world.ok("sync", cwd=clone)
    run = world.gitmem("validate", "--format", "github", "refs/gitmem/team", cwd=clone)
    lines = [ln for ln in run.out.splitlines() if ln.startswith("::")]
    assert run.code == 0 and lines, run
    assert all("file=" not in ln.split("::")[1] for ln in lines), lines
    assert "::warning title=GM121 refs/gitmem/team team/d.md%3A1::" in run.out, run
    on_disk = world.gitmem(
        "validate", "--format", "github", "--files", "d.md", cwd=world.scope_path(clone, "team")
    )
    assert "::warning file=d.md,line=1,title=GM121::" in on_disk.out, on_disk
