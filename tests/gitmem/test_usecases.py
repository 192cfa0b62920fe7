"""The use cases in-process — sync (pull, push, sync), status, log, diff and restore — run by ONE
suite against the real git store and the in-memory one (git-bug's repository tests are the
model): every test body runs twice, and both runs must give the same answers.

Transport: the in-memory clone fetches from and pushes to a loopback remote (another
MemoryStore) with git's rules — refspec globs, a push without force rejected unless it
fast-forwards. We chose that over stopping at the transport boundary because the logic worth
testing lives on both sides of it: the push-first path and its retry after a rejection, the
remote-tracking refs moved only after an accepted push, the merge of what a fetch brought.
The git run shows the loopback keeps git's rules; the subprocess suites (tests/e2e,
tests/reliability) keep covering the real protocol, hostile remotes and crashes.

Folders, sync state and the lock are real files under the temporary HOME in both runs: only
what git would do differs. Each git run copies a session-wide template (a bare remote and two
clones) instead of cloning again.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gitmem.commands.memorydiff import memory_diff
from gitmem.commands.status import project_status
from gitmem.errors import GitmemError, UntrustedTreeError
from gitmem.gitstore import BLOB_MODE, Repository
from gitmem.history.versions import memory_log, restore, versions
from gitmem.policy.rules import MAX_BLOB_BYTES
from gitmem.policy.treecheck import META_FILE
from gitmem.project.scopes import TEAM_REF, Project, open_project
from gitmem.sync import SyncOptions, SyncResult, run_sync
from gitmem.sync.folders import materialize, snapshot
from tests.fakes.memory import MemoryStore
from tests.fakes.memoryrepo import MemoryRepository
from tests.support.world import git, isolated_env

WHO = ("Ann Example", "ann@example.com")
URL = "memory://example.com/acme/project.git"

Clones = Callable[[str], Project]


@pytest.fixture(scope="session")
def git_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bare remote with one commit on main, and clones a and b of it."""
    root = tmp_path_factory.mktemp("usecase-template")
    env = isolated_env(root / "home")
    remote = root / "remote.git"
    git("init", "-q", "--bare", "-b", "main", str(remote), env=env)
    for name in ("a", "b"):
        clone = root / name
        if name == "a":
            git("init", "-q", "-b", "main", str(clone), env=env)
            (clone / "README.md").write_text("# project\n")
            for key, value in zip(("user.name", "user.email"), WHO, strict=True):
                git("config", key, value, cwd=clone, env=env)
            git("add", "README.md", cwd=clone, env=env)
            git("commit", "-qm", "init", cwd=clone, env=env)
            git("remote", "add", "origin", str(remote), cwd=clone, env=env)
            git("push", "-q", "origin", "main", cwd=clone, env=env)
        else:
            git("clone", "-q", str(remote), str(clone), env=env)
            for key, value in zip(("user.name", "user.email"), WHO, strict=True):
                git("config", key, value, cwd=clone, env=env)
    return root


@pytest.fixture(params=["git", "memory"])
def clone(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Clones]:
    """`clone("a")`: a project whose remote the other clone shares, on either store."""
    opened: list[Repository | MemoryRepository] = []
    if request.param == "git":
        template: Path = request.getfixturevalue("git_template")
        shutil.copytree(template / "remote.git", tmp_path / "remote.git", symlinks=True)

        def make(name: str) -> Project:
            shutil.copytree(template / name, tmp_path / name, symlinks=True)
            config = tmp_path / name / ".git" / "config"
            old = str(template / "remote.git")
            config.write_text(config.read_text().replace(old, str(tmp_path / "remote.git")))
            repo = Repository(tmp_path / name)
            opened.append(repo)
            return open_project(repo)

    else:
        server = MemoryStore()

        def make(name: str) -> Project:
            repo = MemoryRepository(tmp_path / name, WHO)
            repo.add_remote("origin", server, URL)
            opened.append(repo)
            return open_project(repo)  # the same door: both meet `Store`

    yield make
    for repo in opened:
        repo.close()


def team(project: Project) -> Path:
    return project.scope("team").path


def write(project: Project, rel: str, text: str) -> None:
    path = team(project) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def read(project: Project, rel: str) -> str | None:
    path = team(project) / rel
    return path.read_text(encoding="utf-8") if path.is_file() else None


def sync(project: Project, mode: str = "sync") -> SyncResult:
    return run_sync(project, SyncOptions(mode=mode, lock_wait=5))


def refused_by(project: Project) -> GitmemError:
    """The one refusal of a sync whose team ref the remote made unacceptable: the personal ref
    still synced, the team ref was set aside (SyncResult.refused)."""
    result = sync(project)
    assert len(result.refused) == 1 and result.refs[TEAM_REF].refused, result
    return result.refused[0]


def sharing(clone: Clones, rel: str, text: str) -> tuple[Project, Project]:
    """Clones a and b, both holding team file `rel` (a pushed it, b pulled it)."""
    a, b = clone("a"), clone("b")
    write(a, rel, text)
    sync(a)
    sync(b)
    return a, b


def on_remote(project: Project) -> dict[str, str]:
    """The team files the remote holds, as far as this clone last saw it."""
    repo = project.repo
    tip = repo.resolve(project.tracking_ref(TEAM_REF))
    if tip is None:
        return {}
    return {
        p.removeprefix("team/"): repo.read_blob(e.oid).decode()
        for p, e in repo.list_tree(tip).items()
        if p.startswith("team/")
    }


TOPIC = "---\nname: {n}\ndescription: {n} notes\ntype: project\n---\n{body}"


def topic(name: str, *lines: str) -> str:
    return TOPIC.format(n=name, body="".join(f"{ln}\n" for ln in lines))


# -- push and pull ------------------------------------------------------------------------------


def test_push_publishes_new_changed_and_deleted_files(clone: Clones) -> None:
    a, b = clone("a"), clone("b")
    write(a, "build.md", topic("build", "use make"))
    write(a, "notes/deploy.md", topic("deploy", "tag first"))
    first = sync(a, "push")
    assert first.refs[TEAM_REF].pushed
    assert sorted(first.refs[TEAM_REF].local_changes) == [
        "A team/build.md",
        "A team/notes/deploy.md",
    ]
    assert on_remote(a) == {
        "build.md": topic("build", "use make"),
        "notes/deploy.md": topic("deploy", "tag first"),
    }
    pulled = sync(b, "pull")
    assert sorted(pulled.refs[TEAM_REF].pulled) == ["team/build.md", "team/notes/deploy.md"]
    assert read(b, "build.md") == topic("build", "use make")

    write(a, "build.md", topic("build", "use make -j2"))
    (team(a) / "notes" / "deploy.md").unlink()
    second = sync(a, "push")
    assert sorted(second.refs[TEAM_REF].local_changes) == [
        "D team/notes/deploy.md",
        "M team/build.md",
    ]
    assert on_remote(a) == {"build.md": topic("build", "use make -j2")}
    sync(b, "pull")
    assert read(b, "build.md") == topic("build", "use make -j2")
    assert read(b, "notes/deploy.md") is None, "a deletion travels"
    assert not sync(a, "push").refs[TEAM_REF].local_changes, "nothing new: nothing committed"


def test_pull_never_overwrites_a_local_edit(clone: Clones) -> None:
    a, b = clone("a"), clone("b")
    write(a, "build.md", topic("build", "one", "two", "three"))
    write(a, "style.md", topic("style", "tabs"))
    sync(a, "push")
    sync(b, "pull")
    write(a, "build.md", topic("build", "one", "two", "three, from a"))
    write(a, "style.md", topic("style", "spaces"))
    sync(a, "push")
    write(b, "build.md", topic("build", "one, from b", "two", "three"))  # not synced yet
    result = sync(b, "pull")
    assert read(b, "build.md") == topic("build", "one, from b", "two", "three, from a")
    assert read(b, "style.md") == topic("style", "spaces"), "the untouched file is updated"
    assert "M team/build.md" in result.refs[TEAM_REF].local_changes
    assert not result.refs[TEAM_REF].pushed, "pull does not push"


@pytest.mark.parametrize("writer_refs", ["true", "false"])
def test_concurrent_edits_merge_through_a_rejected_push(clone: Clones, writer_refs: str) -> None:
    a, b = clone("a"), clone("b")
    b.repo.config_set("gitmem.writerRefs", writer_refs)
    write(a, "build.md", topic("build", "one", "two", "three"))
    sync(a, "push")
    sync(b, "pull")
    write(a, "build.md", topic("build", "one, from a", "two", "three"))
    write(b, "build.md", topic("build", "one", "two", "three, from b"))
    write(b, "new.md", topic("new", "only b"))
    assert sync(a, "push").retries == 0
    # pushes first, is rejected; then lands on its own writer ref at once (merged by the next
    # sync of anyone: docs/design.md §3), or, writer refs off, fetches, merges, pushes again
    second = sync(b, "push")
    assert second.retries == (0 if writer_refs == "true" else 1)
    assert second.refs[TEAM_REF].pushed
    both = topic("build", "one, from a", "two", "three, from b")
    if writer_refs == "false":
        assert read(b, "build.md") == both
    sync(a)
    assert read(a, "build.md") == both and read(a, "new.md") == topic("new", "only b")
    sync(b)
    assert read(b, "build.md") == both
    assert on_remote(a) == on_remote(b)


def test_a_skipped_file_is_never_published_as_deleted(clone: Clones) -> None:
    a, b = clone("a"), clone("b")
    write(a, "build.md", topic("build", "use make"))
    write(a, "other.md", topic("other", "x"))
    sync(a, "push")
    sync(b, "pull")
    target = team(a) / "build.md"
    target.unlink()
    target.symlink_to(team(a) / "other.md")  # a link is never synced
    result = sync(a)
    assert any("build.md" in s and "symbolic link" in s for s in result.skipped)
    assert "build.md" in on_remote(a), "the ref keeps the last synced version"
    assert target.is_symlink(), "and the link is left alone"
    sync(b)
    assert read(b, "build.md") == topic("build", "use make")


# -- status -------------------------------------------------------------------------------------


def test_status_counts_files_changes_and_commits_ahead_and_behind(clone: Clones) -> None:
    a, b = clone("a"), clone("b")
    write(a, "one.md", topic("one", "1"))
    write(a, "two.md", topic("two", "2"))
    rows = {s.name: s for s in project_status(a).scopes}
    row = rows["team"]
    assert (row.files, row.changed, row.ahead, row.behind) == (2, 2, 0, 0)
    assert row.ref == TEAM_REF and row.synced and not row.encrypted
    assert row.privacy.startswith("plaintext, readable by everyone who can fetch origin")
    assert rows["auto"].encrypted and rows["auto"].privacy == "encrypted"
    assert rows["local"].encrypted and rows["local"].ref == a.user_ref  # sealed, so it syncs
    sync(a)
    row = {s.name: s for s in project_status(a).scopes}["team"]
    assert (row.files, row.changed, row.ahead, row.behind) == (2, 0, 0, 0)
    sync(b)
    write(b, "one.md", topic("one", "1, edited"))
    sync(b)
    stale = {s.name: s for s in project_status(a).scopes}["team"]
    assert stale.behind == 0, "without a fetch, status reports the last fetch"
    fresh = project_status(a, fetch=True)
    row = {s.name: s for s in fresh.scopes}["team"]
    assert fresh.fetched and (row.ahead, row.behind, row.changed) == (0, 1, 0)
    write(a, "three.md", topic("three", "3"))
    (team(a) / "two.md").unlink()
    row = {s.name: s for s in project_status(a).scopes}["team"]
    assert (row.files, row.changed) == (2, 2)


def test_status_of_a_folder_that_vanished_promises_a_restore(clone: Clones) -> None:
    a = clone("a")
    write(a, "one.md", topic("one", "1"))
    sync(a)
    shutil.rmtree(team(a))
    row = {s.name: s for s in project_status(a).scopes}["team"]
    assert row.missing and row.files == 1 and "restores it" in row.note
    result = sync(a)
    assert read(a, "one.md") == topic("one", "1") and "team/one.md" in result.refs[TEAM_REF].pulled


# -- history: log, diff, restore ----------------------------------------------------------------


def conflicting_history(clone: Clones) -> tuple[Project, Project]:
    """build.md edited on the same line by a and b: b's sync resolves the conflict."""
    a, b = sharing(clone, "build.md", topic("build", "use make"))
    write(a, "build.md", topic("build", "use make -j2"))
    sync(a)
    write(b, "build.md", topic("build", "use ninja"))
    result = sync(b)
    assert any(r.startswith("team/build.md") for r in result.refs[TEAM_REF].resolutions)
    sync(a)
    return a, b


def test_log_shows_both_sides_of_a_resolved_conflict_and_the_merge(clone: Clones) -> None:
    a, b = conflicting_history(clone)
    rows = memory_log(b, "team/build.md", None)
    merges = [r for r in rows if r["resolved"]]
    assert len(merges) == 1 and "team/build.md" in merges[0]["resolved"]
    assert merges[0]["subject"].startswith("gitmem: merge origin/refs/gitmem/team")
    texts = {
        b.repo.read_blob(oid).decode()
        for commit in (r["commit"] for r in rows)
        if (oid := b.repo.resolve(f"{commit}:team/build.md"))
    }
    for line in ("use make\n", "use make -j2\n", "use ninja\n"):
        assert any(t.endswith(line) for t in texts), f"the version with {line!r} is in the log"
    assert rows == sorted(rows, key=lambda r: -int(r["time"]))
    everything = memory_log(b, None, None)
    assert {r["ref"] for r in everything} == {TEAM_REF}
    assert len(memory_log(b, None, 2)) == 2
    assert [r["commit"] for r in memory_log(a, "team/build.md", None)] == [
        r["commit"] for r in rows
    ], "both clones tell the same history"


def test_versions_and_restore_bring_back_the_losing_edit(clone: Clones) -> None:
    a, b = conflicting_history(clone)
    kept = read(b, "build.md")
    assert kept is not None
    found = versions(b, "team/build.md")
    texts = [data.decode() for _, data in found if data is not None]
    loser = next(
        t for t in (topic("build", "use make -j2"), topic("build", "use ninja")) if t != kept
    )
    assert loser in texts and kept in texts and texts[0] == kept, "newest first"
    assert versions(a, "team/build.md") == found, "the other clone has the same history"
    at = next(commit for commit, data in found if data is not None and data.decode() == loser)
    restored = restore(b, "team/build.md", at, force=False)
    assert restored.commit == at and not restored.unchanged
    assert read(b, "build.md") == loser
    again = restore(b, "team/build.md", at, force=False)
    assert again.unchanged


def test_restore_refuses_to_overwrite_an_unsynced_edit_and_brings_back_a_deleted_file(
    clone: Clones,
) -> None:
    a = clone("a")
    write(a, "build.md", topic("build", "use make"))
    sync(a)
    write(a, "build.md", topic("build", "unsynced"))
    from gitmem.errors import UsageError

    with pytest.raises(UsageError, match="changes not synced yet"):
        restore(a, "team/build.md", None, force=False)
    assert read(a, "build.md") == topic("build", "unsynced")
    (team(a) / "build.md").unlink()
    sync(a)
    restored = restore(a, "team/build.md", None, force=False)
    assert read(a, "build.md") == topic("build", "use make") and not restored.unchanged


def test_diff_shows_disk_changes_and_changes_since_a_revision(clone: Clones) -> None:
    a = clone("a")
    write(a, "build.md", topic("build", "use make"))
    write(a, "gone.md", topic("gone", "bye"))
    sync(a)
    first = a.repo.resolve(TEAM_REF)
    assert first is not None
    assert memory_diff(a, None, None) == "", "nothing changed since the sync"
    write(a, "build.md", topic("build", "use ninja"))
    (team(a) / "gone.md").unlink()
    on_disk = memory_diff(a, None, None)
    for line in (
        "--- a/team/build.md",
        "+++ b/team/build.md",
        "-use make",
        "+use ninja",
        "+++ /dev/null",
        "-bye",
    ):
        assert line in on_disk.splitlines(), line
    only = memory_diff(a, None, "team/build.md")
    assert "+use ninja" in only and "gone.md" not in only
    sync(a)
    since = memory_diff(a, first, "team/build.md")
    assert "-use make" in since.splitlines() and "+use ninja" in since.splitlines()
    assert "gone.md" not in since
    relative = memory_diff(a, "~1", None)
    assert "+use ninja" in relative.splitlines() and "-bye" in relative.splitlines()


def test_a_file_with_no_history_is_said_so(clone: Clones) -> None:
    a = clone("a")
    write(a, "build.md", topic("build", "use make"))
    sync(a)
    from gitmem.errors import UsageError

    with pytest.raises(UsageError, match="has no history"):
        memory_log(a, "team/never.md", None)
    with pytest.raises(UsageError, match="not a path inside a memory folder"):
        memory_log(a, "team/../x.md", None)


def test_the_in_memory_project_matches_git_on_identity(clone: Clones) -> None:
    a = clone("a")
    assert a.uid == "ann@example.com" and a.remote == "origin"
    assert team(a).is_relative_to(Path(os.environ["HOME"]))


# -- the check of a fetched tree, and the folder's compare-and-swap ----------------------------


def push_raw(project: Project, files: dict[str, tuple[str, bytes]]) -> None:
    """Put a hand-made commit on the remote's team ref, as a broken or hostile tool would."""
    repo = project.repo
    tip = repo.resolve(TEAM_REF)
    tree = repo.write_tree({p: (mode, repo.write_blob(data)) for p, (mode, data) in files.items()})
    commit = repo.write_commit(tree, [tip] if tip else [], "hand-made")
    repo.update_ref(TEAM_REF, commit, tip)
    assert repo.push("origin", [f"{TEAM_REF}:{TEAM_REF}"]).ok


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        (("team/evil.md", ("120000", b"/etc/passwd")), "GM103"),
        (("team/big.md", (BLOB_MODE, b"x" * (MAX_BLOB_BYTES + 1))), "GM10"),
        (("team/.git/config", (BLOB_MODE, b"[core]\n")), "GM1"),
    ],
    ids=["link", "too-big", "dot-git"],
)
def test_a_hostile_remote_tree_is_refused_and_nothing_is_written(
    clone: Clones, entry: tuple[str, tuple[str, bytes]], why: str
) -> None:
    a, b = sharing(clone, "build.md", topic("build", "use make"))
    meta = b.repo.read_blob(b.repo.list_tree(TEAM_REF)[META_FILE].oid)
    path, value = entry
    push_raw(
        b, {META_FILE: (BLOB_MODE, meta), "team/build.md": (BLOB_MODE, b"changed\n"), path: value}
    )
    tracking = a.repo.resolve(a.tracking_ref(TEAM_REF))
    refused = refused_by(a)
    assert isinstance(refused, UntrustedTreeError) and re.search(why, str(refused)), refused
    assert read(a, "build.md") == topic("build", "use make"), "nothing of it reached the disk"
    assert a.repo.resolve(a.tracking_ref(TEAM_REF)) == tracking, "the fetch is undone"


def test_a_tree_without_gitmem_metadata_is_not_memory(clone: Clones) -> None:
    a, b = sharing(clone, "build.md", topic("build", "use make"))
    push_raw(b, {"team/build.md": (BLOB_MODE, b"no gitmem.toml here\n")})
    assert isinstance(refused_by(a), UntrustedTreeError)
    assert read(a, "build.md") == topic("build", "use make")


def test_write_back_leaves_a_file_changed_since_the_last_sync(
    clone: Clones, tmp_path: Path
) -> None:
    repo = clone("a").repo
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "x.md").write_text("synced\n")
    (folder / "y.md").write_text("synced\n")
    snap = snapshot(repo, folder, {})
    assert snap.files["x.md"] == repo.write_blob(b"synced\n")
    (folder / "x.md").write_text("edited meanwhile\n")
    target = {"x.md": repo.write_blob(b"from the ref\n"), "y.md": repo.write_blob(b"theirs\n")}
    done = materialize(repo, folder, snap.files, target, snap.records)
    assert (folder / "x.md").read_text() == "edited meanwhile\n", "never written over"
    assert done.changed_meanwhile == {"x.md": repo.write_blob(b"edited meanwhile\n")}
    assert (folder / "y.md").read_text() == "theirs\n" and done.written == ["y.md"]
    gone = materialize(repo, folder, {"y.md": target["y.md"]}, {}, done.records)
    assert gone.deleted == ["y.md"] and not (folder / "y.md").exists()


# -- the personal ref (encrypted) and a dry run -------------------------------------------------


def test_personal_memory_travels_encrypted_and_comes_back_readable(clone: Clones) -> None:
    a, b = clone("a"), clone("b")  # one user, two clones (one HOME: one machine key)
    auto_a, auto_b = a.scope("auto").path, b.scope("auto").path
    auto_a.mkdir(parents=True)
    (auto_a / "MEMORY.md").write_text("- [Secret plan](plan.md) — the plan\n")
    (auto_a / "plan.md").write_text(topic("plan", "launch on friday"))
    result = sync(a)
    assert result.refs[a.user_ref].pushed
    tip = a.repo.resolve(a.tracking_ref(a.user_ref))
    assert tip is not None
    stored = a.repo.list_tree(tip)
    assert not any("plan" in p or "MEMORY" in p for p in stored), "names are hidden"
    assert all(b"friday" not in a.repo.read_blob(e.oid) for e in stored.values())
    sync(b)
    assert (auto_b / "plan.md").read_text() == topic("plan", "launch on friday")
    assert (auto_b / "MEMORY.md").read_text() == "- [Secret plan](plan.md) — the plan\n"
    (auto_b / "plan.md").write_text(topic("plan", "launch on monday"))
    sync(b)
    sync(a)
    assert (auto_a / "plan.md").read_text() == topic("plan", "launch on monday")
    assert [data for _, data in versions(a, "auto/plan.md")] == [
        topic("plan", "launch on monday").encode(),
        topic("plan", "launch on friday").encode(),
    ]


def test_a_dry_run_says_what_would_move_and_moves_nothing(clone: Clones) -> None:
    a, b = sharing(clone, "build.md", topic("build", "use make"))
    write(b, "build.md", topic("build", "use ninja"))
    sync(b)
    write(a, "new.md", topic("new", "fresh"))
    before = a.repo.refs("refs/gitmem")
    dry = run_sync(a, SyncOptions(mode="sync", dry_run=True))
    assert dry.dry_run and dry.refs[TEAM_REF].local_changes == ["A team/new.md"]
    assert dry.refs[TEAM_REF].remote_ahead
    assert a.repo.refs("refs/gitmem") == before and read(a, "build.md") == topic(
        "build", "use make"
    )


def test_a_ref_squatted_below_ours_fails_at_once_with_the_way_out(clone: Clones) -> None:
    from gitmem.errors import RemoteError

    a, b = clone("a"), clone("b")
    squat = f"{TEAM_REF}/x"
    tree = b.repo.write_tree({"x.md": (BLOB_MODE, b.repo.write_blob(b"squat\n"))})
    commit = b.repo.write_commit(tree, [], "squat")
    b.repo.update_ref(squat, commit, None)
    assert b.repo.push("origin", [f"{squat}:{squat}"]).ok
    write(a, "build.md", topic("build", "use make"))
    # the pull half is done (the push was refused): the result carries the error, which the
    # CLI prints after the report (exit 3), rather than the sync raising it and losing the report
    (refused,) = sync(a).refused
    assert isinstance(refused, RemoteError) and "is in the way" in refused.message
    assert refused.hint is not None and f"--delete {squat}" in refused.hint
    assert read(a, "build.md") == topic("build", "use make")
    assert a.repo.resolve(TEAM_REF) is not None, "committed locally, nothing lost"


@pytest.mark.parametrize("remote_change", ["deleted", "rewritten", "same line", "added alike"])
def test_pull_keeps_a_local_edit_whatever_the_remote_did(clone: Clones, remote_change: str) -> None:
    """The classes of remote change against one unsynced local edit: the edit survives in the
    folder, or — when both sides rewrote the same line and the other side's version won — it
    is reported as lost and kept in the history, where restore finds it."""
    name = "fresh.md" if remote_change == "added alike" else "build.md"
    base = topic("build", "one", "two", "three")
    mine = topic("build", "one", "two", "three, from b")
    if remote_change == "added alike":
        a, b = clone("a"), clone("b")
        write(a, name, topic("fresh", "from a"))
        mine = topic("fresh", "from b")
    else:
        a, b = sharing(clone, name, base)
        if remote_change == "deleted":
            (team(a) / name).unlink()
        elif remote_change == "rewritten":
            write(a, name, topic("build", "one, from a", "two", "three"))
        else:
            write(a, name, topic("build", "one", "two", "three, from a"))
    sync(a, "push")
    write(b, name, mine)
    result = sync(b, "pull")
    kept = read(b, name)
    assert kept is not None
    if remote_change == "deleted":
        assert kept == mine, "modified beats deleted"
    elif remote_change == "rewritten":
        assert kept == topic("build", "one, from a", "two", "three, from b")
    elif remote_change == "added alike":
        assert "from a" in kept and "from b" in kept, "both sides of a file added twice"
    elif kept != mine:  # the same line: one version wins, the other is kept in history
        assert any(line.startswith(f"team/{name}") for line in result.refs[TEAM_REF].lost)
        assert mine.encode() in [data for _, data in versions(b, f"team/{name}")]


def test_restore_over_a_fifo_refuses_at_once_instead_of_hanging(clone: Clones) -> None:
    import contextlib
    import threading

    from gitmem.errors import UsageError

    a = clone("a")
    write(a, "build.md", topic("build", "use make"))
    sync(a)
    (team(a) / "build.md").unlink()
    os.mkfifo(team(a) / "build.md")
    raised: list[BaseException] = []

    def run() -> None:
        try:
            restore(a, "team/build.md", None, force=False)
        except BaseException as exc:
            raised.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(5)
    hung = worker.is_alive()
    while worker.is_alive():
        with contextlib.suppress(OSError):
            os.close(os.open(team(a) / "build.md", os.O_WRONLY | os.O_NONBLOCK))
        worker.join(0.1)
    assert not hung, "restore blocked on a FIFO"
    assert raised and isinstance(raised[0], UsageError), raised
    assert (team(a) / "build.md").is_fifo(), "left where it was"
