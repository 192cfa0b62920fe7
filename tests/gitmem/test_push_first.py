"""`gitmem push` pushes first and fetches only when the push is rejected (docs/design.md §3);
`sync` and `pull` fetch first. Either way nothing is lost."""

from __future__ import annotations

import pytest

from gitmem.cli import main
from gitmem.gitstore.transport import Transport
from tests.support.world import World, folder_bytes


def cli(*args: str) -> int:
    return main(list(args))


@pytest.fixture
def fetches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every fetch of the team ref started, in the foreground (`fetch`) or beside the folder
    scan: a round trip. (A ref the remote never had — here the personal ref, with no personal
    memory yet — is fetched by a process of its own started at the same moment, not a round.)"""
    calls: list[str] = []
    real, real_start = Transport.fetch, Transport.start_fetch

    def counted(self: Transport, remote: str, *args: object, **kwargs: object) -> tuple[str, ...]:
        if "refs/gitmem/team" in str(args[:1]):
            calls.append(remote)
        return real(self, remote, *args, **kwargs)  # type: ignore[arg-type]

    def counted_start(self: Transport, remote: str, *args: object, **kwargs: object) -> object:
        if "refs/gitmem/team" in str(args[:1]):
            calls.append(remote)
        return real_start(self, remote, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Transport, "fetch", counted)
    monkeypatch.setattr(Transport, "start_fetch", counted_start)
    return calls


def test_push_with_nobody_ahead_does_not_fetch(world: World, fetches: list[str]) -> None:
    a = world.clone("a")
    da = world.scope_path(a, "team")
    da.mkdir(parents=True)
    (da / "one.md").write_text("one\n")
    assert cli("-C", str(a), "sync") == 0
    fetches.clear()
    (da / "two.md").write_text("two\n")
    assert cli("-C", str(a), "push") == 0
    assert fetches == []
    shown = world.git("show", "refs/gitmem/team:team/two.md", cwd=world.remote)
    assert shown == "two\n"


def test_a_rejected_push_fetches_merges_and_pushes(world: World, fetches: list[str]) -> None:
    a, b = world.clone("a"), world.clone("b")
    world.git("config", "gitmem.writerRefs", "false", cwd=a)  # the retry on the team ref
    da, db = world.scope_path(a, "team"), world.scope_path(b, "team")
    da.mkdir(parents=True)
    (da / "notes.md").write_text("1\n2\n3\n")
    assert cli("-C", str(a), "sync") == 0
    assert cli("-C", str(b), "sync") == 0
    (db / "notes.md").write_text("1 from b\n2\n3\n")
    assert cli("-C", str(b), "push") == 0
    fetches.clear()
    (da / "notes.md").write_text("1\n2\n3 from a\n")
    assert cli("-C", str(a), "push") == 0
    assert len(fetches) == 1, "one fetch, after the rejection"
    assert (da / "notes.md").read_text() == "1 from b\n2\n3 from a\n"
    assert cli("-C", str(b), "sync") == 0
    assert folder_bytes(da) == folder_bytes(db)


def test_sync_and_pull_fetch_first(world: World, fetches: list[str]) -> None:
    a = world.clone("a")
    assert cli("-C", str(a), "sync") == 0
    (world.scope_path(a, "team")).mkdir(parents=True, exist_ok=True)
    (world.scope_path(a, "team") / "one.md").write_text("one\n")
    assert cli("-C", str(a), "sync") == 0  # the team ref is on the remote now
    fetches.clear()
    assert cli("-C", str(a), "pull") == 0
    assert len(fetches) == 1
    assert cli("-C", str(a), "sync") == 0
    assert len(fetches) == 2


def test_a_rejected_push_lands_on_its_writer_ref_without_a_fetch(
    world: World, fetches: list[str]
) -> None:
    """Writer refs on (the default): the rejected push lands at once on the clone's writer
    ref, no fetch; the next sync of either clone folds it, and both converge."""
    a, b = world.clone("a"), world.clone("b")
    da, db = world.scope_path(a, "team"), world.scope_path(b, "team")
    da.mkdir(parents=True)
    (da / "notes.md").write_text("1\n2\n3\n")
    assert cli("-C", str(a), "sync") == 0
    assert cli("-C", str(b), "sync") == 0
    (db / "notes.md").write_text("1 from b\n2\n3\n")
    assert cli("-C", str(b), "push") == 0
    fetches.clear()
    (da / "notes.md").write_text("1\n2\n3 from a\n")
    assert cli("-C", str(a), "push") == 0
    assert fetches == [], "landed on the writer ref: no fetch"
    landed = world.git(
        "for-each-ref", "--format=%(refname)", "refs/gitmem/writers/", cwd=world.remote
    )
    assert len(landed.split()) == 1
    assert cli("-C", str(b), "sync") == 0
    assert cli("-C", str(a), "sync") == 0
    assert (da / "notes.md").read_text() == "1 from b\n2\n3 from a\n"
    assert folder_bytes(da) == folder_bytes(db)
