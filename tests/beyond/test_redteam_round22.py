"""Red team, round 22 (charter rules 4 and 5; docs/reliability.md "Red team, round 22"): each
test is an attack that worked before this round and fails without its fix.

The class closed first: **git fetches, pushes or names a folder on its own terms, from the
repository's config, inside gitmem's work.** A partial clone fetches a missing object from
within whatever git reads it, with the remote's own `uploadpack` (a program, on a local path:
round 7's door, reopened); `push.pushOption` and `remote.<name>.mirror` turned every push into
a failure; a remote named `gitmem-bundle`, `gitmem-hub` or `gitmem-refused` shared gitmem's own
folder of refs under refs/gitmem-remotes/.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitmem.errors import GitmemError
from tests.support.teammates import Shared


def _new_team_memory(synced: Shared, name: str = "n.md") -> None:
    (synced.team / name).write_text(f"---\nname: {name}\n---\nnew from alice\n")
    synced.world.ok("-C", str(synced.alice), "sync")


def _partial_clone(synced: Shared) -> None:
    world, bob = synced.world, synced.bob
    world.git("config", "uploadpack.allowFilter", "true", cwd=world.remote)
    for key, value in (
        ("core.repositoryformatversion", "1"),
        ("extensions.partialClone", "origin"),
        ("remote.origin.promisor", "true"),
        ("remote.origin.partialclonefilter", "blob:none"),
    ):
        world.git("config", key, value, cwd=bob)


def evil_upload_pack(synced: Shared) -> Path:
    """bob's `remote.origin.uploadpack`: a program that notes it ran (the file it returns)."""
    ran = synced.world.root / "ran"
    evil = synced.world.root / "evil-upload-pack"
    evil.write_text(f'#!/bin/sh\necho "$@" >> {ran}\nexec git-upload-pack "$@"\n')
    evil.chmod(0o755)
    synced.world.git("config", "remote.origin.uploadpack", str(evil), cwd=synced.bob)
    return ran


def test_a_partial_clones_lazy_fetch_runs_no_program_the_repository_names(
    synced: Shared,
) -> None:
    """Worked: `extensions.partialClone = origin` and `remote.origin.uploadpack = ./evil` in
    an archive's `.git/config` (origin a local path): gitmem's fetch passes
    `--upload-pack=git-upload-pack`, but was filtered (`partialclonefilter`), and git fetched
    each missing blob on its own while the gate read it — running `evil` at bob's next sync.
    Now refused at the opening in one line (exit 2), nothing run, nothing written."""
    world, bob = synced.world, synced.bob
    _new_team_memory(synced)
    bobs = world.scope_path(bob, "team")
    _partial_clone(synced)
    ran = evil_upload_pack(synced)
    run = world.gitmem("-C", str(bob), "sync", timeout=30)
    assert run.code == 2, run.err + run.out
    assert "remote.origin.uploadpack names" in run.err and "partial clone" in run.err
    assert run.err.count("\n") == 2  # the line and its hint
    assert not ran.exists()
    assert not (bobs / "n.md").exists()


def test_a_partial_clone_takes_every_object_of_its_memory_in_its_own_fetch(
    synced: Shared,
) -> None:
    """Worked (a round trip more, through the remote's own settings): the memory fetch took
    `--filter=blob:none` from the config and git fetched the blobs lazily, again, while the
    gate read them. Now `--no-filter`: every object of the memory ref arrives whole."""
    world, bob = synced.world, synced.bob
    _new_team_memory(synced, "whole.md")
    _partial_clone(synced)
    trace = world.root / "trace.json"
    world.env["GIT_TRACE2_EVENT"] = str(trace)
    try:
        world.ok("-C", str(bob), "sync")
    finally:
        del world.env["GIT_TRACE2_EVENT"]
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    fetches = [e["argv"] for e in events if e["event"] == "start" and "fetch" in e["argv"]]
    assert fetches and all("--refmap=" in argv for argv in fetches), fetches  # gitmem's own
    missing = world.git(
        "rev-list", "--objects", "--missing=print", "refs/gitmem/team", cwd=bob
    ).splitlines()
    assert not [line for line in missing if line.startswith("?")]
    assert (world.scope_path(bob, "team") / "whole.md").exists()


@pytest.mark.parametrize(
    ("key", "value"), [("push.pushOption", "ci.skip"), ("remote.origin.mirror", "true")]
)
def test_the_repositorys_push_settings_fail_no_push_of_memory(
    synced: Shared, key: str, value: str
) -> None:
    """Worked: `push.pushOption` (to a server that takes none: "the receiving end does not
    support push options") or `remote.origin.mirror` ("--mirror can't be combined with
    refspecs") in `.git/config` failed every sync's push, exit 3, the hint blaming the
    network. Now gitmem's push clears both."""
    world, bob = synced.world, synced.bob
    world.git("config", key, value, cwd=bob)
    (world.scope_path(bob, "team") / "deploys.md").write_text(
        "---\nname: deploys\n---\nTuesdays only.\nBOB'S LINE\n"
    )
    run = world.gitmem("-C", str(bob), "sync")
    assert run.code == 0 and "pushed to origin" in run.out, run.err + run.out
    shown = world.git("show", "refs/gitmem/team:team/deploys.md", cwd=world.remote)
    assert "BOB'S LINE" in shown


@pytest.mark.parametrize("name", ["gitmem-bundle", "gitmem-hub", "gitmem-refused/origin"])
def test_a_remote_named_as_gitmems_own_folder_of_refs_is_refused(synced: Shared, name: str) -> None:
    """Worked: a remote named `gitmem-bundle` had its tracking refs in the folder an unbundle
    writes: bob's unbundle of carol's bundle moved `refs/gitmem-remotes/gitmem-bundle/team`,
    `status` said "ahead 0" of a merge never pushed and the next sync called the remote
    force-pushed; `gitmem-refused/origin` is the hold of origin's refused tips. Now one line
    (exit 2) naming the remote and `git remote rename`; no ref moved."""
    world, bob = synced.world, synced.bob
    before = world.git("for-each-ref", cwd=bob)
    world.git("remote", "rename", "origin", name, cwd=bob)
    for args in (("sync",), ("status",), ("sync", "--remote", name)):
        run = world.gitmem("-C", str(bob), *args)
        assert run.code == 2, run.err + run.out
        assert f"the remote '{name}' has the name of gitmem's own folder of refs" in run.err
        assert f"git remote rename {name} NAME" in run.err
    moved = world.git("for-each-ref", cwd=bob).replace(f"refs/remotes/{name}/", "")
    assert moved == before.replace("refs/remotes/origin/", "")


def test_a_remote_whose_name_only_begins_alike_still_syncs(synced: Shared) -> None:
    world, bob = synced.world, synced.bob
    world.git("remote", "rename", "origin", "gitmem-hubs", cwd=bob)
    assert world.gitmem("-C", str(bob), "sync").code == 0


def test_an_included_file_that_is_not_a_file_is_refused_in_one_line(synced: Shared) -> None:
    """Worked: `include.path = /dev/stdin` in `.git/config`: a local remote's `upload-pack`
    read its own protocol pipe as config and every sync's fetch failed, exit 3, "check the
    remote URL". Now refused at the opening, as round 21's named files are: one line naming
    the setting, exit 2. (A FIFO or /dev/zero that applies holds `git config --list` itself:
    bounded by the opening's timeout, round 10.)"""
    world, bob = synced.world, synced.bob
    _new_team_memory(synced)
    bobs = world.scope_path(bob, "team")
    world.git("config", "include.path", "/dev/stdin", cwd=bob)
    run = world.gitmem("-C", str(bob), "sync", timeout=30)
    assert run.code == 2, run.err + run.out
    assert "include.path names /dev/stdin, not a regular file" in run.err
    assert run.err.count("\n") == 2
    assert not (bobs / "n.md").exists()


# -- the class closed second: names one reads as one ----------------------------------------

CYRILLIC_E = "d\u0435ploys.md"  # `dеploys.md`: a Cyrillic е


@pytest.mark.parametrize(
    "name",
    [CYRILLIC_E, "\uff44eploys.md", "DEPL\u041eYS.md"],
    ids=["cyrillic", "fullwidth", "case"],
)
def test_a_teammates_name_that_reads_as_another_is_refused(synced: Shared, name: str) -> None:
    """Worked: alice's tree holds `deploys.md`; a teammate added `dеploys.md` (a Cyrillic е)
    and pointed the index at it: two files on every file system, one name to whoever reads
    the index or the list of arrivals ("A team/dеploys.md" beside the real one). Now GM107 at
    the gate, as names one file on macOS and Windows are: nothing merged."""
    world, bob = synced.world, synced.bob
    mallory = world.clone("mallory", email="mallory@example.com")
    world.git("fetch", "-q", "origin", "refs/gitmem/team:refs/gitmem/team", cwd=mallory)
    blob = world.plumb(mallory, "hash-object", "-w", "--stdin", data=b"---\nname: d\n---\nx\n")
    tree = world.plumb(
        mallory,
        "mktree",
        data=world.plumb(mallory, "ls-tree", "refs/gitmem/team:team").encode()
        + f"\n100644 blob {blob}\t{name}\n".encode(),
    )
    top = world.plumb(mallory, "ls-tree", "refs/gitmem/team").replace(
        world.plumb(mallory, "rev-parse", "refs/gitmem/team:team"), tree
    )
    commit = world.plumb(
        mallory,
        "commit-tree",
        world.plumb(mallory, "mktree", data=top.encode() + b"\n"),
        "-p",
        "refs/gitmem/team",
        "-m",
        "lookalike",
    )
    assert world.push(mallory, world.remote, f"{commit}:refs/gitmem/team").returncode == 0
    run = world.gitmem("-C", str(bob), "sync")
    assert run.code == 2, run.err + run.out
    assert "GM107" in run.err
    assert not (world.scope_path(bob, "team") / name).exists()


def test_a_local_name_that_reads_as_another_waits_and_one_with_a_diacritic_syncs(
    synced: Shared,
) -> None:
    """The same fold at the folder's door: bob's agent wrote `dеploys.md` beside
    `deploys.md` — it waits for a rename, said once, never pushed; `résumé.md` beside
    `resume.md` is two names a reader tells apart, and both sync."""
    world, bob = synced.world, synced.bob
    team = world.scope_path(bob, "team")
    for name in (CYRILLIC_E, "resume.md", "r\u00e9sum\u00e9.md"):
        (team / name).write_text("---\nname: n\n---\nx\n")
    run = world.gitmem("-C", str(bob), "sync")
    assert run.code == 0, run.err + run.out
    assert "GM107: read as deploys.md" in run.err
    names = world.git("ls-tree", "--name-only", "-z", "refs/gitmem/team:team", cwd=bob).split("\0")
    assert {"resume.md", "r\u00e9sum\u00e9.md"} <= set(names) and CYRILLIC_E not in names


# -- cost: a tree of more files than the policy takes, under the shape's bound -------------


def test_a_tree_of_too_many_files_is_refused_before_it_is_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Worked: 300,004 files in one folder of a teammate's writer ref (under the shape walk's
    400,000 files-and-folders) were listed with their sizes, `ls-tree -r -t -l`, before
    GM105 refused them: 23 s of bob's sync (0.8 s after, in-process, the same tree). Now the
    shape walk bounds the files apart and nothing is listed. Here at a bound of 10."""
    from gitmem.gitstore import BLOB_MODE
    from gitmem.policy import treecheck
    from gitmem.project.refmeta import render_meta
    from tests.support.stores import git_repository

    monkeypatch.setattr(treecheck, "MAX_FILES", 10)
    with git_repository(tmp_path, "sha1", ("T", "t@example.com")) as store:
        blob = store.write_blob(b"---\nname: n\n---\nx\n")
        files = {f"team/big/f{i}.md": (BLOB_MODE, blob) for i in range(11)}
        files["gitmem.toml"] = (BLOB_MODE, store.write_blob(render_meta("example.com/t/p")))
        commit = store.write_commit(store.write_tree(files), [], "flood", when=1_700_000_000)

        def listed(*_args: object) -> None:
            raise AssertionError("listed whole before the bound refused it")

        monkeypatch.setattr(store, "list_tree_and_paths", listed)
        with pytest.raises(GitmemError, match="GM105 error: over 10 files"):
            treecheck.check_tree(store, commit, "refs/gitmem/team")
