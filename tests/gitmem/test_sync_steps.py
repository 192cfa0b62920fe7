"""The parts of a sync, in-process on both stores (real git, and the in-memory store): the
fetch plan names exact refs; a ref the remote lost is pruned and pushed back; the session
retries a rejected push with back-off on an injected clock (no sleep); plain and sealed views
are chosen per ref."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from gitmem.gitstore import PushOutcome, Repository
from gitmem.gitstore.memory import MemoryStore
from gitmem.gitstore.memoryrepo import MemoryRepository
from gitmem.scopes import TEAM_REF, Project, open_project
from gitmem.sync import SyncOptions, run_sync
from gitmem.sync.ledger import SyncRun
from gitmem.sync.session import backoff
from gitmem.sync.transport import fetch_plan
from gitmem.sync.views import PlainView, SealedView

WHO = ("Ann Example", "ann@example.com")
URL = "memory://example.com/acme/project.git"

Clones = Callable[[str], Project]


@pytest.fixture
def server() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def clone(tmp_path: Path, server: MemoryStore) -> Iterator[Clones]:
    """In-memory clones sharing `server` (the loopback transport: no process, no network)."""
    opened: list[MemoryRepository] = []

    def make(name: str) -> Project:
        repo = MemoryRepository(tmp_path / name, WHO)
        repo.add_remote("origin", server, URL)
        opened.append(repo)
        return open_project(cast(Repository, repo))

    yield make
    for repo in opened:
        repo.close()


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


def test_a_team_ref_the_remote_lost_is_pushed_back(clone: Clones, server: MemoryStore) -> None:
    a, b = clone("a"), clone("b")
    write(a, "MEMORY.md", "- [Deploys](deploys.md) — Tuesdays\n")
    write(a, "deploys.md", "Tuesdays only.\n")
    sync(a)
    sync(b)
    tip = server.references.pop(TEAM_REF)  # a teammate deleted it on the remote
    result = sync(b)
    assert any("no longer had refs/gitmem/team" in n for n in result.refs[TEAM_REF].notes)
    assert result.refs[TEAM_REF].pushed and server.references[TEAM_REF] == tip
    again = sync(b)
    assert not any("no longer had" in n for r in again.refs.values() for n in r.notes)


def test_a_pull_prunes_the_tracking_ref_and_pushes_nothing(
    clone: Clones, server: MemoryStore
) -> None:
    a = clone("a")
    write(a, "MEMORY.md", "- x\n")
    sync(a)
    server.references.pop(TEAM_REF)
    result = sync(a, "pull")
    assert any("gitmem sync publishes it again" in n for n in result.refs[TEAM_REF].notes)
    assert TEAM_REF not in server.references
    assert a.repo.resolve(a.tracking_ref(TEAM_REF)) is None  # pruned: the push sees it gone
    sync(a, "push")
    assert TEAM_REF in server.references


def test_a_rejected_push_backs_off_on_the_injected_clock(
    clone: Clones, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = clone("a")
    write(a, "MEMORY.md", "- x\n")
    sync(a)
    write(a, "MEMORY.md", "- x\n- y\n")
    real = MemoryRepository.push
    rejections = 3

    def rejecting(self: MemoryRepository, remote: str, refspecs: Any, **kw: Any) -> PushOutcome:
        nonlocal rejections
        if rejections:
            rejections -= 1
            dst = refspecs[0].partition(":")[2]
            return PushOutcome(False, (f"{dst} fetch first",), "rejected")
        return real(self, remote, refspecs, **kw)

    monkeypatch.setattr(MemoryRepository, "push", rejecting)
    waits: list[float] = []
    result = sync(a, "sync", sleep=waits.append)
    assert result.retries == 3 and rejections == 0
    assert len(waits) == 3 and all(0 < w <= 2.0 for w in waits)
    assert result.refs[TEAM_REF].pushed


def test_push_first_retries_at_once_then_backs_off(
    clone: Clones, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`gitmem push` pushes before fetching: its first rejection fetches and merges at once."""
    a = clone("a")
    write(a, "MEMORY.md", "- x\n")
    sync(a)
    write(a, "MEMORY.md", "- x\n- y\n")
    real = MemoryRepository.push
    calls = 0

    def once(self: MemoryRepository, remote: str, refspecs: Any, **kw: Any) -> PushOutcome:
        nonlocal calls
        calls += 1
        if calls == 1:
            return PushOutcome(False, (f"{refspecs[0].partition(':')[2]} fetch first",), "x")
        return real(self, remote, refspecs, **kw)

    monkeypatch.setattr(MemoryRepository, "push", once)
    waits: list[float] = []
    result = sync(a, "push", sleep=waits.append)
    assert result.retries == 1 and waits == []


def test_backoff_doubles_and_is_bounded() -> None:
    for round_no in range(12):
        waits = [backoff(round_no) for _ in range(20)]
        assert all(0 <= w <= min(2.0, 0.05 * 2**round_no) for w in waits)
        assert len(set(waits)) > 1  # jittered: writers rejected together do not retry together


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
