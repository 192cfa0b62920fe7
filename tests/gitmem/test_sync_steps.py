"""The parts of a sync, in-process on both stores (the in-memory store, and real git): the
fetch plan names exact refs; a ref the remote lost is pruned and pushed back; the session
retries a rejected push with back-off on an injected clock (no sleep); plain and sealed views
are chosen per ref."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gitmem.gitstore import PushOutcome, Repository
from gitmem.project.scopes import TEAM_REF, Project, open_project
from gitmem.sync import SyncOptions, run_sync
from gitmem.sync.fetchpush import fetch_plan
from gitmem.sync.ledger import SyncRun
from gitmem.sync.session import MAX_BACKOFF, ROUND_FLOOR, backoff
from gitmem.sync.snapshot import Snapshots
from gitmem.sync.start import SyncStart
from gitmem.sync.views import PlainView, SealedView
from tests.fakes.memory import MemoryStore
from tests.fakes.memoryrepo import MemoryRepository
from tests.gitmem.test_usecases import (
    git_template,  # noqa: F401 (a fixture used here)
    read,
    topic,
)
from tests.support.world import git

WHO = ("Ann Example", "ann@example.com")
URL = "memory://example.com/acme/project.git"

Clones = Callable[[str], Project]


class Remote:
    """The remote both clones share, on either store: its refs, and a ref deleted on it."""

    def __init__(self, server: MemoryStore | None, bare: Path | None) -> None:
        self.server, self.bare = server, bare

    def refs(self) -> dict[str, str]:
        if self.server is not None:
            return dict(self.server.references)
        out = git("for-each-ref", "--format=%(refname) %(objectname)", cwd=self.bare)
        return dict(line.split(" ") for line in out.splitlines())

    def delete(self, ref: str) -> None:
        if self.server is not None:
            del self.server.references[ref]
        else:
            git("update-ref", "-d", ref, cwd=self.bare)


@pytest.fixture(params=["memory", "git"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Clones, Remote]]:
    """Clones sharing one remote: in memory (the loopback transport: no process, no
    network), or real git repositories cloned from a bare remote (git_template)."""
    opened: list[Any] = []
    if request.param == "memory":
        server = MemoryStore()
        remote = Remote(server, None)

        def make(name: str) -> Project:
            repo = MemoryRepository(tmp_path / name, WHO)
            repo.add_remote("origin", server, URL)
            opened.append(repo)
            return open_project(repo)

    else:
        template: Path = request.getfixturevalue("git_template")
        shutil.copytree(template / "remote.git", tmp_path / "remote.git", symlinks=True)
        remote = Remote(None, tmp_path / "remote.git")

        def make(name: str) -> Project:
            # a third clone and more: another copy of clone b (the template has a and b)
            source = template / name if name in ("a", "b") else template / "b"
            shutil.copytree(source, tmp_path / name, symlinks=True)
            config = tmp_path / name / ".git" / "config"
            old = str(template / "remote.git")
            config.write_text(config.read_text().replace(old, str(tmp_path / "remote.git")))
            repo = Repository(tmp_path / name)
            opened.append(repo)
            return open_project(repo)

    yield make, remote
    for repo in opened:
        repo.close()


@pytest.fixture
def clone(store: tuple[Clones, Remote]) -> Clones:
    return store[0]


@pytest.fixture
def remote(store: tuple[Clones, Remote]) -> Remote:
    return store[1]


def write(project: Project, rel: str, text: str) -> None:
    path = project.scope("team").path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def sync(project: Project, mode: str = "sync", **options: Any) -> Any:
    return run_sync(project, SyncOptions(mode=mode, lock_wait=5, **options))


def test_the_fetch_plan_names_exact_refs_only(clone: Clones) -> None:
    project = clone("a")
    refs = [TEAM_REF, project.user_ref]
    plan = fetch_plan(project, refs)
    assert plan == {
        "origin": [
            f"+refs/gitmem/team:{project.tracking_ref(TEAM_REF)}",
            f"+{project.user_ref}:{project.tracking_ref(project.user_ref)}",
        ]
    }
    assert not any("*" in spec or spec.startswith("^") for spec in plan["origin"])


def test_a_team_ref_the_remote_lost_is_pushed_back(clone: Clones, remote: Remote) -> None:
    a, b = clone("a"), clone("b")
    write(a, "MEMORY.md", "- [Deploys](deploys.md) — Tuesdays\n")
    write(a, "deploys.md", "Tuesdays only.\n")
    sync(a)
    sync(b)
    tip = remote.refs()[TEAM_REF]
    remote.delete(TEAM_REF)  # a teammate deleted it on the remote
    result = sync(b)
    assert any("no longer had refs/gitmem/team" in n for n in result.refs[TEAM_REF].notes)
    assert result.refs[TEAM_REF].pushed and remote.refs()[TEAM_REF] == tip
    again = sync(b)
    assert not any("no longer had" in n for r in again.refs.values() for n in r.notes)


def test_a_pull_prunes_the_tracking_ref_and_pushes_nothing(clone: Clones, remote: Remote) -> None:
    a = clone("a")
    write(a, "MEMORY.md", "- x\n")
    sync(a)
    remote.delete(TEAM_REF)
    result = sync(a, "pull")
    assert any("gitmem sync publishes it again" in n for n in result.refs[TEAM_REF].notes)
    assert TEAM_REF not in remote.refs()
    assert a.repo.resolve(a.tracking_ref(TEAM_REF)) is None  # pruned: the push sees it gone
    sync(a)
    assert TEAM_REF in remote.refs()


def test_a_rejected_push_backs_off_on_the_injected_clock(
    clone: Clones, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = clone("a")
    write(a, "MEMORY.md", "- x\n")
    sync(a)
    write(a, "MEMORY.md", "- x\n- y\n")
    a.repo.config_set("gitmem.writerRefs", "false")  # the retry on the team ref itself
    kind = type(a.repo)
    real = kind.push
    rejections = 3

    def rejecting(self: Any, remote: str, refspecs: Any, **kw: Any) -> PushOutcome:
        nonlocal rejections
        if rejections:
            rejections -= 1
            dst = refspecs[0].partition(":")[2]
            return PushOutcome(False, (f"{dst} fetch first",), "rejected")
        return real(self, remote, refspecs, **kw)

    monkeypatch.setattr(kind, "push", rejecting)
    fetched: list[list[str]] = []
    real_fetch = kind.start_fetch

    def fetching(self: Any, remote: str, specs: list[str], timeout: Any = None) -> Any:
        fetched.append([spec.partition(":")[0].lstrip("+") for spec in specs])
        return real_fetch(self, remote, specs, timeout)

    monkeypatch.setattr(kind, "start_fetch", fetching)
    snapshots = 0
    real_take = Snapshots.take

    def take(self: Snapshots) -> Any:
        nonlocal snapshots
        snapshots += 1
        return real_take(self)

    monkeypatch.setattr(Snapshots, "take", take)
    ticks = iter(range(1000))
    waits: list[float] = []
    # the injected clock: every reading a quarter second later, so each round "took" 0.25 s
    result = sync(a, "sync", sleep=waits.append, clock=lambda: next(ticks) * 0.25)
    assert result.retries == 3 and rejections == 0
    assert len(waits) == 3 and all(0 <= w < 2 * k * 0.25 for k, w in enumerate(waits, 1))
    assert result.refs[TEAM_REF].pushed
    # a retry fetches only the ref the push saw rejected, and does not read the folders again
    first = sorted(ref for refs in fetched[:-3] for ref in refs)  # the first round: both refs
    assert first == sorted([TEAM_REF, a.user_ref]) and fetched[-3:] == [[TEAM_REF]] * 3
    assert snapshots == 1


@pytest.mark.parametrize("mode", ["push", "sync"])
def test_an_edit_made_while_a_retry_merges_the_same_file_is_kept_and_published(
    clone: Clones, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """The retry round does not read the folders again; a file edited meanwhile that the merge
    also changes is not overwritten by the write-back but merged in a full round, and pushed."""
    a, b = clone("a"), clone("b")
    write(a, "build.md", topic("build", "one", "two", "three", "four"))
    sync(a, "push")
    sync(b, "pull")
    write(b, "build.md", topic("build", "one", "two, from b", "three", "four"))
    b.repo.config_set("gitmem.writerRefs", "false")  # the retry on the team ref itself
    kind = type(b.repo)
    real = kind.push
    calls = 0

    def racing(self: Any, remote: str, refspecs: Any, **kw: Any) -> PushOutcome:
        nonlocal calls
        calls += 1
        if calls == 1:  # a teammate lands an edit of the same file, and b's user edits it again
            write(a, "build.md", topic("build", "one, from a", "two", "three", "four"))
            sync(a, "push")
            write(b, "build.md", topic("build", "one", "two, from b", "three", "four, by hand"))
        return real(self, remote, refspecs, **kw)

    monkeypatch.setattr(kind, "push", racing)
    result = sync(b, mode, sleep=lambda _: None)
    monkeypatch.setattr(kind, "push", real)
    assert result.retries >= 1 and result.refs[TEAM_REF].pushed
    every = topic("build", "one, from a", "two, from b", "three", "four, by hand")
    assert read(b, "build.md") == every
    sync(a)
    assert read(a, "build.md") == every


def test_push_first_retries_at_once_then_backs_off(
    clone: Clones, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`gitmem push` pushes before fetching: its first rejection fetches and merges at once."""
    a = clone("a")
    write(a, "MEMORY.md", "- x\n")
    sync(a)
    write(a, "MEMORY.md", "- x\n- y\n")
    a.repo.config_set("gitmem.writerRefs", "false")  # the retry on the team ref itself
    kind = type(a.repo)
    real = kind.push
    calls = 0

    def once(self: Any, remote: str, refspecs: Any, **kw: Any) -> PushOutcome:
        nonlocal calls
        calls += 1
        if calls == 1:
            return PushOutcome(False, (f"{refspecs[0].partition(':')[2]} fetch first",), "x")
        return real(self, remote, refspecs, **kw)

    monkeypatch.setattr(kind, "push", once)
    waits: list[float] = []
    result = sync(a, "push", sleep=waits.append)
    assert result.retries == 1 and waits == []


def test_backoff_widens_with_rejections_in_units_of_the_round_and_is_bounded() -> None:
    for rejections in range(1, 30):
        for round_seconds in (0.0, 0.01, 0.3, 4.0, 60.0):
            window = min(MAX_BACKOFF, 2 * rejections * max(ROUND_FLOOR, round_seconds))
            assert backoff(rejections, round_seconds, 0.0) == 0.0
            assert backoff(rejections, round_seconds, 0.999) == pytest.approx(window * 0.999)
            waits = [backoff(rejections, round_seconds) for _ in range(20)]
            assert all(0 <= w < window for w in waits)
            assert len(set(waits)) > 1  # jittered: writers rejected together do not retry together
    assert backoff(3, 0.3, 0.5) > backoff(2, 0.3, 0.5) > backoff(1, 0.3, 0.5)
    assert backoff(1, 2.0, 0.5) > backoff(
        1, 0.2, 0.5
    )  # a slower round (a loaded remote) waits longer


def test_views_are_chosen_per_ref(clone: Clones) -> None:
    a = clone("a")
    run = SyncRun(a, SyncOptions())
    assert isinstance(run.views.of(TEAM_REF), PlainView)
    assert run.views.of(TEAM_REF) is run.views.of(TEAM_REF)
    assert run.views.codec is None  # the personal codec is made only when a sealed view is
    plain = run.views.of(TEAM_REF)
    files = {"team/MEMORY.md": a.repo.write_blob(b"- x\n")}
    tree = plain.tree(files, plain.keyring(None))
    commit = a.repo.write_commit(tree, [], "t")
    assert plain.files(commit) == files and not plain.hidden("team/MEMORY.md")
    sealed = run.views.of(a.user_ref)
    assert isinstance(sealed, SealedView) and sealed.sealed and run.views.codec is not None


def test_the_sealed_view_gives_a_pull_its_changed_files_and_copies_it_may_edit(
    clone: Clones,
) -> None:
    """The write-back moves only what changed between two commits of a sealed ref (hidden
    names say nothing: the view compares the plaintext); what `files` gives is the caller's
    to edit, never the codec's decode that later steps read again."""
    a = clone("a")
    run = SyncRun(a, SyncOptions())
    sealed, plain = run.views.of(a.user_ref), run.views.of(TEAM_REF)
    blob = a.repo.write_blob
    files = {f"auto/{i}.md": blob(f"note {i}\n".encode()) for i in range(50)}
    first = a.repo.write_commit(sealed.tree(files, None), [], "t")
    edited = {**files, "auto/3.md": blob(b"edited\n"), "auto/new.md": blob(b"new\n")}
    del edited["auto/7.md"]
    second = a.repo.write_commit(sealed.tree(edited, sealed.keyring(first)), [first], "t")
    assert sealed.changed_files(first, second) == {
        "auto/3.md": (files["auto/3.md"], edited["auto/3.md"]),
        "auto/new.md": (None, edited["auto/new.md"]),
        "auto/7.md": (files["auto/7.md"], None),
    }
    assert sealed.changed_files(second, second) == {}
    mine = sealed.files(second)
    mine.clear()
    assert sealed.files(second) == edited
    assert plain.changed_files(first, second) is None  # a plain ref's trees say it


def test_a_start_taken_early_hands_its_fetch_to_the_session(
    clone: Clones, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fetch a command starts with the lock (SyncStart) is the session's first fetch: it is
    started once, before the folders are read, and what it brings is merged."""
    a, b = clone("a"), clone("b")
    write(a, "MEMORY.md", "- from a\n")
    sync(a)
    events: list[str] = []
    kind = type(b.repo)
    real_fetch, real_take = kind.start_fetch, Snapshots.take

    def fetching(self: Any, remote: str, specs: list[str], timeout: Any = None) -> Any:
        events.append("fetch")
        return real_fetch(self, remote, specs, timeout)

    def take(self: Snapshots, checks: Any = None) -> Any:
        events.append("snapshot")
        return real_take(self, checks)

    monkeypatch.setattr(kind, "start_fetch", fetching)
    monkeypatch.setattr(Snapshots, "take", take)
    start = SyncStart(b, fetch=True, timeout=30.0, lock_wait=5)
    events.append("started")
    result = sync(b, "pull", start=start, timeout=30.0)
    assert events[: events.index("started")] == ["fetch"] * events.index("started")
    assert "fetch" not in events[events.index("started") :]  # not fetched again
    assert events[-1] == "snapshot"
    assert "MEMORY.md" in " ".join(result.refs[TEAM_REF].pulled)
    assert read(b, "MEMORY.md") == "- from a\n"


def test_a_start_for_other_refs_is_not_taken(clone: Clones) -> None:
    """A start that fetched other refs than the session syncs (another scope choice, another
    timeout) is cancelled and the session fetches its own: what it merges is what it fetched."""
    a, b = clone("a"), clone("b")
    write(a, "MEMORY.md", "- from a\n")
    sync(a)
    start = SyncStart(b, ("auto",), fetch=True, timeout=30.0, lock_wait=5)
    assert TEAM_REF not in start.refs and start.refs and start.fetching is not None
    sync(b, "pull", start=start, timeout=30.0)
    assert read(b, "MEMORY.md") == "- from a\n"
    assert start.fetching is None
    SyncStart(b, lock_wait=0).release()  # the session let the lock go
