"""The team ref's writer refs in-process (gitmem/sync/writers.py), on both stores: a beaten
push lands on the clone's own writer ref with no retry; the next sync of anyone folds it in;
its owner alone deletes it; a reader past the cap is told; whatever the order the clones sync
in, they converge byte for byte."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.project.scopes import TEAM_REF, Project, open_project
from gitmem.project.writerrefs import writer_id
from tests.fakes.memory import MemoryStore
from tests.fakes.memoryrepo import MemoryRepository, memory_repository
from tests.gitmem.test_sync_steps import (  # noqa: F401 (fixtures used here)
    URL,
    WHO,
    Clones,
    Remote,
    store,
    sync,
    write,
)
from tests.gitmem.test_usecases import git_template  # noqa: F401 (a fixture used here)

WRITERS = "refs/gitmem/writers/team/"


@pytest.fixture
def pair(store: tuple[Clones, Remote]) -> tuple[Clones, Remote]:  # noqa: F811
    """Clones sharing one remote, on both stores (test_sync_steps.store)."""
    return store


def writer_refs(remote: Remote) -> dict[str, str]:
    return {r: o for r, o in remote.refs().items() if r.startswith(WRITERS)}


def files(project: Project) -> dict[str, bytes]:
    folder = project.scope("team").path
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_beaten_push_lands_on_its_own_ref_is_folded_and_retired_by_its_owner(
    pair: tuple[Clones, Remote],
) -> None:
    clone, remote = pair
    a, b = clone("a"), clone("b")
    write(a, "MEMORY.md", "- [Seed](seed.md) — seed\n")
    write(a, "seed.md", "# seed\n")
    sync(a)
    sync(b)
    write(a, "from-a.md", "# a\n")
    write(b, "from-b.md", "# b\n")
    sync(a, "push")
    result = sync(b, "push")
    own = WRITERS + writer_id(b.repo)
    assert result.retries == 0 and result.refs[TEAM_REF].pushed
    assert writer_refs(remote) == {own: b.repo.resolve(TEAM_REF)}
    assert any(f"landed on {own}" in n for n in result.refs[TEAM_REF].notes)
    folded = sync(a)  # a reader merges it in, and publishes the team ref that holds it
    assert "team/from-b.md" in folded.refs[TEAM_REF].pulled
    assert own in writer_refs(remote), "never deleted by anyone but its owner"
    tip = remote.refs()[TEAM_REF]
    assert a.repo.is_ancestor(writer_refs(remote)[own], tip)
    sync(b)
    assert writer_refs(remote) == {}
    assert b.repo.resolve(TEAM_REF) == a.repo.resolve(TEAM_REF) == tip
    assert files(a) == files(b)
    message = a.repo.read_commit(tip)[2]
    assert f"gitmem: merge origin/writers/team/{writer_id(b.repo)}" in message


def test_writer_refs_off_keeps_one_team_ref(pair: tuple[Clones, Remote]) -> None:
    clone, remote = pair
    a, b = clone("a"), clone("b")
    write(a, "seed.md", "# seed\n")
    sync(a)
    sync(b)
    b.repo.config_set("gitmem.writerRefs", "false")
    write(a, "from-a.md", "# a\n")
    write(b, "from-b.md", "# b\n")
    sync(a, "push")
    result = sync(b, "push", sleep=lambda _: None)
    assert result.retries >= 1 and writer_refs(remote) == {}


def memory_clones(tmp: Path, count: int) -> list[Project]:
    server = MemoryStore()
    out = []
    for i in range(count):
        repo = MemoryRepository(tmp / f"c{i}", WHO)
        repo.add_remote("origin", server, URL)
        out.append(open_project(repo))
    return out


def landed(tmp: Path, count: int) -> tuple[list[Project], MemoryStore]:
    """`count` clones of one team memory; each added a file of its own and pushed, the first
    on the team ref, every other one beaten to it: on its own writer ref."""
    projects = memory_clones(tmp, count)
    write(projects[0], "MEMORY.md", "- [Seed](seed.md) — seed\n")
    write(projects[0], "seed.md", "# seed\none\ntwo\n")
    sync(projects[0])
    for p in projects[1:]:
        sync(p)
    for i, p in enumerate(projects):
        write(p, f"from-{i}.md", f"# {i}\n")
        write(p, "seed.md", f"# seed\none\ntwo\nthree, by {i}\n")  # one file edited by all
    for p in projects:
        sync(p, "push")
    repo = memory_repository(projects[0].repo)
    server = repo._server("origin")
    return projects, server


def test_a_reader_past_the_cap_is_told_and_folds_the_rest_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gitmem.sync.writers as writers

    monkeypatch.setattr(writers, "MAX_WRITER_REFS", 2)
    projects, server = landed(tmp_path, 5)
    assert len([r for r in server.references if r.startswith(WRITERS)]) == 4
    reader = memory_clones(tmp_path / "reader", 1)[0]
    memory_repository(reader.repo).add_remote("origin", server, URL)
    result = sync(reader, "pull")
    assert any("holds 4 writer refs" in n and "read 2" in n for n in result.refs[TEAM_REF].notes)
    seen = {p.name for p in reader.scope("team").path.iterdir()}
    assert len({f"from-{i}.md" for i in range(1, 5)} & seen) == 2
    for p in projects:  # each folds two more and retires its own once held
        sync(p)
    for p in projects:
        sync(p)
    assert not [r for r in server.references if r.startswith(WRITERS)]
    sync(reader, "pull")
    assert {f"from-{i}.md" for i in range(5)} <= {
        p.name for p in reader.scope("team").path.iterdir()
    }


@settings(max_examples=6, deadline=None)
@given(order=st.permutations(range(4)), count=st.integers(3, 4))
def test_clones_converge_byte_for_byte_whatever_order_they_sync_in(
    tmp_path_factory: pytest.TempPathFactory, order: list[int], count: int
) -> None:
    tmp = tmp_path_factory.mktemp("writers")
    projects, server = landed(tmp, count)
    for i in [i for i in order if i < count]:
        sync(projects[i])
    for p in projects:
        sync(p)
    for p in projects:
        sync(p, "pull")
    assert not [r for r in server.references if r.startswith(WRITERS)]
    assert len({p.repo.resolve(TEAM_REF) for p in projects}) == 1
    first = files(projects[0])
    assert all(files(p) == first for p in projects[1:])
    assert {f"from-{i}.md" for i in range(count)} <= set(first)


def test_an_older_client_sees_a_landed_write_once_a_newer_one_folded_it(tmp_path: Path) -> None:
    projects, server = landed(tmp_path, 2)
    old = memory_clones(tmp_path / "old", 1)[0]
    memory_repository(old.repo).add_remote("origin", server, URL)
    old.repo.config_set("gitmem.writerRefs", "false")  # fetches the team ref only, as before
    sync(old, "pull")
    assert not (old.scope("team").path / "from-1.md").exists()
    sync(projects[0])  # a newer client's sync folds the writer ref into the team ref
    sync(old, "pull")
    assert (old.scope("team").path / "from-1.md").read_text() == "# 1\n"


def test_a_merged_writer_ref_its_owner_never_deletes_costs_no_check_on_later_syncs(
    pair: tuple[Clones, Remote], monkeypatch: pytest.MonkeyPatch
) -> None:
    clone, remote = pair
    a, b = clone("a"), clone("b")
    write(a, "seed.md", "# seed\n")
    sync(a)
    sync(b)
    write(a, "from-a.md", "# a\n")
    write(b, "from-b.md", "# b\n")
    sync(a, "push")
    sync(b, "push")  # lands on b's writer ref; b never syncs again (a teammate who left)
    (tip,) = writer_refs(remote).values()
    sync(a)  # folds it
    asked: list[str] = []
    kind = type(a.repo)
    real_ancestor, real_unreached = kind.is_ancestor, kind.unreached

    def ancestor(self: object, x: str, y: str) -> bool:
        asked.append(x)
        return real_ancestor(self, x, y)  # type: ignore[arg-type]

    def unreached(self: object, prefix: str, into: list[str]) -> dict[str, str]:
        asked.append(f"unreached {prefix}")
        return real_unreached(self, prefix, into)  # type: ignore[arg-type]

    monkeypatch.setattr(kind, "is_ancestor", ancestor)
    monkeypatch.setattr(kind, "unreached", unreached)
    sync(a)  # finds the team ref holds it: one question for all the writer refs
    assert tip not in asked
    assert [q for q in asked if q.startswith("unreached")] == [
        "unreached refs/gitmem-remotes/origin/writers/team/"
    ]
    asked.clear()
    for _ in range(2):
        sync(a)
    assert tip not in asked and not [q for q in asked if q.startswith("unreached")]
    assert list(writer_refs(remote).values()) == [tip], "never deleted but by its owner"


def test_a_fold_beaten_by_a_teammates_fold_takes_theirs_and_lands_nothing(
    pair: tuple[Clones, Remote],
) -> None:
    """Two clones fold the same writer ref at once; the one whose push is beaten has no edit
    of its own: it takes the teammate's fold, and lands no second fold of the same edits on a
    writer ref (which would leave the two clones on different merges of them)."""
    clone, remote = pair
    a, b = clone("a"), clone("b")
    write(a, "MEMORY.md", "- [Seed](seed.md) — seed\n")
    write(a, "seed.md", "# seed\n")
    sync(a)
    sync(b)
    write(a, "from-a.md", "# a\n")
    write(b, "from-b.md", "# b\n")
    sync(a, "push")
    sync(b, "push")  # beaten: lands on b's writer ref
    assert list(writer_refs(remote)) == [WRITERS + writer_id(b.repo)]
    sync(a, "pull")  # a folds b's writer ref here, and has not pushed its fold yet
    sync(b)  # b folds it too, lands its fold on the team ref first, and retires its ref
    tip = remote.refs()[TEAM_REF]
    assert writer_refs(remote) == {}
    sync(a, "push")  # a's fold is beaten, with nothing of a's own in it
    assert writer_refs(remote) == {}, "no second fold landed"
    assert remote.refs()[TEAM_REF] == tip
    assert a.repo.resolve(TEAM_REF) == b.repo.resolve(TEAM_REF) == tip
    assert files(a) == files(b)
    assert {"from-a.md", "from-b.md"} <= set(files(a))


def three_writers_landed(
    clone: Clones, ids: list[str], contested: bool = False
) -> tuple[list[Project], Project]:
    """A seed clone and three writers with the writer ids `ids`: each adds a memory (its file
    and its index entry) and edits its own line of a shared file (`contested`: and one line
    all of them edit); the seed pushes first, the three are beaten to it and land on their
    writer refs."""
    seed = clone("seed")
    write(seed, "MEMORY.md", "- [Seed](seed.md) — seed\n")
    write(seed, "seed.md", "# seed\none\ntwo\nthree\nfour\nfive\nsix\n")
    sync(seed)
    writers = []
    for i, wid in enumerate(ids):
        project = clone(f"w{i}")
        folder = project.repo.common_dir / "gitmem"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "writer-id").write_text(wid + "\n")
        sync(project)
        writers.append(project)
    write(seed, "from-seed.md", "# seed's own\n")
    for i, project in enumerate(writers):
        lines = ["# seed", "one", "two", "three", "four", "five", "six"]
        lines[2 * i + 1] += f", by {i}"  # its own line: no winner needed
        if contested:
            lines[6] = f"six, last edited by {i}"  # one line all edit: a winner
        write(project, "seed.md", "\n".join(lines) + "\n")
        write(project, f"from-{i}.md", f"# {i}\n")
        index = project.scope("team").path / "MEMORY.md"
        index.write_text(index.read_text() + f"- [From {i}](from-{i}.md) — by writer {i}\n")
    sync(seed, "push")
    for project in writers:
        result = sync(project, "push")
        assert any("landed on" in n for n in result.refs[TEAM_REF].notes)
    return writers, seed


def test_writer_tips_are_folded_in_one_pass_and_the_team_ref_moves_once(
    pair: tuple[Clones, Remote], monkeypatch: pytest.MonkeyPatch
) -> None:
    clone, remote = pair
    three_writers_landed(clone, ["a" * 16, "b" * 16, "c" * 16])
    tips = writer_refs(remote)
    assert len(tips) == 3
    reader = clone("reader")
    moves: list[tuple[str, str]] = []
    kind = type(reader.repo)
    real = kind.update_ref

    def update_ref(self: object, ref: str, new: str, old: str | None, message: str = "") -> None:
        moves.append((ref, message))
        real(self, ref, new, old, message)  # type: ignore[arg-type]

    monkeypatch.setattr(kind, "update_ref", update_ref)
    sync(reader, "pull")
    folds = [m for r, m in moves if r == TEAM_REF and "writer refs" in m]
    assert folds == ["gitmem: merge writer refs"], moves
    team = reader.repo.resolve(TEAM_REF)
    assert team is not None
    assert all(reader.repo.is_ancestor(tip, team) for tip in tips.values())
    text = (reader.scope("team").path / "seed.md").read_text()
    assert text == "# seed\none, by 0\ntwo\nthree, by 1\nfour\nfive, by 2\nsix\n"
    assert {"from-seed.md", "from-0.md", "from-1.md", "from-2.md"} <= set(files(reader))


def test_a_fold_is_the_same_bytes_whatever_order_the_writer_tips_come_in(
    tmp_path: Path,
) -> None:
    """The fold takes the tips in the order of their names: every order of three writers'
    names (so every order of the fold) gives the reader the same files, byte for byte."""
    import itertools

    seen: dict[str, bytes] | None = None
    for n, perm in enumerate(itertools.permutations(["1" * 16, "2" * 16, "3" * 16])):
        server = MemoryStore()

        def clone(name: str, tmp: Path = tmp_path / f"p{n}", srv: MemoryStore = server) -> Project:
            repo = MemoryRepository(tmp / name, WHO)
            repo.add_remote("origin", srv, URL)
            return open_project(repo)

        three_writers_landed(clone, list(perm))
        reader = clone("reader")
        sync(reader, "pull")
        got = files(reader)
        assert {"from-0.md", "from-1.md", "from-2.md", "from-seed.md"} <= set(got)
        assert seen is None or got == seen, f"order {perm} folded other bytes"
        seen = got


@pytest.mark.slow
@pytest.mark.parametrize("order", [(0, 1, 2), (2, 0, 1), (1, 2, 0)])
def test_three_real_clones_fold_in_any_order_and_converge(
    pair: tuple[Clones, Remote], order: tuple[int, int, int]
) -> None:
    """Three clones that each landed on a writer ref fold the others' tips in turn, in
    `order`, with a fold pushed or beaten on the way: all end on one team tip and one folder,
    byte for byte, and every writer ref is retired by its owner."""
    clone, remote = pair
    writers, seed = three_writers_landed(clone, ["d" * 16, "e" * 16, "f" * 16])
    for i in order:
        sync(writers[i])
    for project in [*writers, seed]:
        sync(project)
    for project in [*writers, seed]:
        sync(project, "pull")
    assert writer_refs(remote) == {}
    everyone = [*writers, seed]
    assert len({p.repo.resolve(TEAM_REF) for p in everyone}) == 1
    first = files(seed)
    assert all(files(p) == first for p in writers)
    assert (
        seed.scope("team").path / "seed.md"
    ).read_text() == "# seed\none, by 0\ntwo\nthree, by 1\nfour\nfive, by 2\nsix\n"


def test_past_the_cap_a_sync_fetches_no_more_writer_refs_than_it_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over the cap, the next fetch asks for the first MAX_WRITER_REFS unread writer refs by
    name (each a glob of one name: a deleted one fails nothing), not the glob of them all;
    status says the pace; the glob is back once the backlog is under the cap."""
    import gitmem.commands.doctor as doctor
    import gitmem.project.writerrefs as names
    import gitmem.sync.writers as writers
    from gitmem.commands.doctor import next_steps
    from gitmem.commands.status import project_status
    from gitmem.sync.start import writer_specs

    monkeypatch.setattr(writers, "MAX_WRITER_REFS", 2)
    monkeypatch.setattr(names, "MAX_WRITER_REFS", 2)
    monkeypatch.setattr(doctor, "MAX_WRITER_REFS", 2)
    _, server = landed(tmp_path, 6)
    on_remote = sorted(r for r in server.references if r.startswith(WRITERS))
    assert len(on_remote) == 5
    reader = memory_clones(tmp_path / "reader", 1)[0]
    memory_repository(reader.repo).add_remote("origin", server, URL)
    glob = names.listing_specs(reader)  # the glob, listed in the connection (round 19)
    assert writer_specs(reader, [TEAM_REF]) == {TEAM_REF: glob}  # nothing known yet
    sync(reader, "pull")  # fetches all five (the glob), reads two
    specs = writer_specs(reader, [TEAM_REF])[TEAM_REF]
    unread = [
        r
        for r in on_remote
        if not reader.repo.is_ancestor(server.references[r], reader.repo.resolve(TEAM_REF) or "")
    ]
    assert len(unread) == 3
    assert specs == [
        f"+{name}*:refs/gitmem-remotes/origin/writers/team/{name[len(WRITERS) :]}*"
        for name in unread[:2]
    ]
    steps = next_steps(reader, project_status(reader))
    assert any("2 a sync" in step for step in steps), steps
    sync(reader, "pull")  # reads those two
    assert writer_specs(reader, [TEAM_REF]) == {TEAM_REF: glob}  # one left: the glob again
    sync(reader, "pull")
    assert {f"from-{i}.md" for i in range(6)} <= {
        p.name for p in reader.scope("team").path.iterdir()
    }


def test_the_one_pass_fold_makes_the_trees_of_one_merge_a_tip(
    pair: tuple[Clones, Remote], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fold in one pass (files and change times carried in memory between its merges)
    makes the same tree as the ordinary merge run once a tip, a ref update each (as before),
    also where the writers edited one line alike (a winner by recency, then bytes)."""
    from gitmem.sync.integrate import Integrate

    clone, _ = pair
    three_writers_landed(clone, ["7" * 16, "8" * 16, "9" * 16], contested=True)
    one_pass = clone("one-pass")
    sync(one_pass, "pull")

    def once_a_tip(self: Integrate, ref: str, tips: list[tuple[str, str]]) -> None:
        for source, tip in tips:
            self.integrate(ref, tip=tip, source=source)

    monkeypatch.setattr(Integrate, "fold", once_a_tip)
    each = clone("each")
    sync(each, "pull")
    trees = [p.repo.read_commit(p.repo.resolve(TEAM_REF) or "")[0] for p in (one_pass, each)]
    assert trees[0] == trees[1]
    assert files(one_pass) == files(each)


class Killed(BaseException):
    """A process killed where it stood (nothing after it runs: no except, no finally of ours)."""


def test_a_fold_killed_midway_moves_nothing_and_the_next_sync_folds_all(
    pair: tuple[Clones, Remote], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed after its first merge of three, the fold has moved no ref (it moves the team
    ref once, at the end): the local team ref holds none of the writer tips, the remote
    still holds all of them, and the next sync folds all three."""
    from gitmem.sync.integrate import Integrate

    clone, remote = pair
    three_writers_landed(clone, ["4" * 16, "5" * 16, "6" * 16])
    tips = writer_refs(remote)
    reader = clone("reader")
    real = Integrate._merge
    merges: list[str] = []

    def dies_on_the_second(self: Integrate, *args: Any, **kwargs: Any) -> Any:
        merges.append(args[2])
        if len(merges) == 2:
            raise Killed
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Integrate, "_merge", dies_on_the_second)
    with pytest.raises(Killed):
        sync(reader, "pull")
    monkeypatch.undo()
    team = reader.repo.resolve(TEAM_REF)
    assert len(merges) == 2
    assert team is None or not any(reader.repo.is_ancestor(t, team) for t in tips.values())
    assert writer_refs(remote) == tips
    reader.repo.forget_refs()
    sync(reader)
    team = reader.repo.resolve(TEAM_REF)
    assert team is not None
    assert all(reader.repo.is_ancestor(t, team) for t in tips.values())
    assert {"from-0.md", "from-1.md", "from-2.md"} <= set(files(reader))


def test_the_owner_never_deletes_a_writer_tip_nobody_folded(
    pair: tuple[Clones, Remote], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The owner deletes its writer ref under the lease of the tip the team ref holds: moved
    on the remote meanwhile to a tip nobody folded (between the owner's fetch and its delete),
    the ref stays, and so does the owner's view of it."""
    from gitmem.sync.writers import WriterRefs

    clone, remote = pair
    a, b = clone("a"), clone("b")
    write(a, "seed.md", "# seed\n")
    sync(a)
    sync(b)
    write(a, "from-a.md", "# a\n")
    write(b, "from-b.md", "# b\n")
    sync(a, "push")
    sync(b, "push")  # lands on b's writer ref
    own = WRITERS + writer_id(b.repo)
    folded = writer_refs(remote)[own]
    sync(a)  # folds it: the remote's team ref holds it now
    team = remote.refs()[TEAM_REF]
    # a commit of the remote's the team ref does not hold: the writer ref's next tip
    server, bare = remote.server, remote.bare
    if server is not None:
        unfolded = server.write_commit(server.read_commit(team)[0], [team], "later, unfolded")
    else:
        from tests.support.world import git

        who = ("-c", "user.name=w", "-c", "user.email=w@example.com")
        unfolded = git(*who, "commit-tree", f"{team}^{{tree}}", "-p", team, "-m", "later", cwd=bare)
        unfolded = unfolded.strip()

    def moved() -> None:
        if server is not None:
            server.references[own] = unfolded
        else:
            git("update-ref", own, unfolded, cwd=bare)

    real = WriterRefs.retire

    def moved_first(self: WriterRefs) -> None:
        moved()  # after this sync's fetch saw `folded`, before its delete
        real(self)

    monkeypatch.setattr(WriterRefs, "retire", moved_first)
    sync(b)
    assert writer_refs(remote) == {own: unfolded}, "a tip nobody folded is never deleted"
    tracking = "refs/gitmem-remotes/origin/writers/team/" + writer_id(b.repo)
    assert b.repo.resolve(tracking) == folded  # kept: its next sync sees the ref again
