"""Rollback of personal memory (docs/design.md §5): anyone with push access may put back an
older tree of the personal ref, or an older ciphertext of one file. Both still open with the
current key; the sealed manifest's generation and ciphertext ids make them refusable.

Real clones, a real bare remote; the attacker uses plain git in a third clone.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from gitmem.gitstore import Repository
from gitmem.privacy.crypto import hidden_name, load_machine_key, seal_json, unlock_scope_key
from gitmem.privacy.layout import MANIFEST, PERSONAL_PREFIXES, SCOPE_KEY_FILE
from gitmem.privacy.rollback import manifest_value, read_manifest
from gitmem.privacy.shards import manifest_files
from tests.e2e.test_encryption import granted_pair, user_tip, write_personal
from tests.support.personal import USER_REF, shard_paths
from tests.support.pristine import Pristine, built_once
from tests.support.world import World, folder_bytes

TRACKING = "refs/gitmem-remotes/origin/users/tester@example.com"


class Mallory:
    """A teammate with push access and plain git, but not the victim's key."""

    def __init__(self, world: World) -> None:
        self.clone = world.clone("mallory")
        self.env = {**world.env, "GIT_INDEX_FILE": str(world.root / "mallory.index")}

    def g(self, *args: str, data: bytes | None = None) -> str:
        return subprocess.run(
            ["git", *args],
            cwd=self.clone,
            env=self.env,
            input=data,
            capture_output=True,
            check=True,
        ).stdout.decode()

    def fetch(self) -> str:
        self.g("fetch", "-q", "origin", f"+{USER_REF}:refs/seen/tip")
        return self.g("rev-parse", "refs/seen/tip").strip()

    def push_tree(self, tree: str) -> str:
        """A new commit with `tree` on top of the victim's tip: a fast-forward, no force."""
        tip = self.fetch()
        commit = self.g("commit-tree", tree, "-p", tip, "-m", "gitmem: 1 file changed").strip()
        self.g("push", "-q", "origin", f"{commit}:{USER_REF}")
        return commit

    def entries(self, rev: str) -> dict[str, str]:
        out = self.g("ls-tree", "-r", rev)
        return {line.split("\t", 1)[1]: line.split()[2] for line in out.splitlines()}

    def tree_of(self, files: dict[str, str]) -> str:
        self.g("read-tree", "--empty")
        for path, oid in files.items():
            self.g("update-index", "--add", "--cacheinfo", f"100644,{oid},{path}")
        return self.g("write-tree").strip()


def victim_with_history(world: World) -> tuple[Path, Path, str]:
    """A victim who synced twice: an old state (one note), then a newer one (edited, added)."""
    a = world.clone("a")
    auto = write_personal(world, a)
    (auto / "note.md").write_text("version 1\n")
    world.ok("-C", str(a), "sync")
    old = user_tip(world, a)
    (auto / "note.md").write_text("version 2\n")
    (auto / "newer.md").write_text("learned after the old state\n")
    world.ok("-C", str(a), "sync")
    (world.root / "old-tip").write_text(old)
    return a, auto, old


@pytest.fixture(scope="module")
def _victim(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    """`victim_with_history` built once for the module (#23), restored for each test."""
    return built_once(tmp_path_factory, _remote_template, "victim", victim_with_history)


@pytest.fixture
def victim(_victim: Pristine, monkeypatch: pytest.MonkeyPatch) -> tuple[World, Path, Path, str]:
    """The world, the victim's clone, its auto folder and the older state's tip."""
    world = _victim.fresh(monkeypatch)
    a = world.root / "a"
    return world, a, world.scope_path(a), (world.root / "old-tip").read_text()


def _seed(world: World) -> None:
    seed = world.clone("seed")
    write_personal(world, seed)
    world.ok("-C", str(seed), "sync")


@pytest.fixture(scope="module")
def _seeded(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    """A clone whose personal memory synced once, built once for the module (#23)."""
    return built_once(tmp_path_factory, _remote_template, "seed", _seed)


def personal_bytes(auto: Path) -> dict[str, bytes]:
    return {p: data for p, data in folder_bytes(auto).items() if not p.startswith("team/")}


def assert_refused(world: World, a: Path, auto: Path, attack: str, words: str) -> None:
    before_disk, before_ref = personal_bytes(auto), user_tip(world, a)
    for _ in range(2):  # and again: the refused tip was not taken as the last one synced
        run = world.gitmem("-C", str(a), "sync")
        assert run.code == 3, run.out + run.err  # as a forged commit (TamperedRef)
        error = [line for line in run.err.splitlines() if line.startswith("gitmem: error:")]
        assert len(error) == 1 and attack[:12] in error[0] and words in error[0], run.err
        assert any(line.startswith("hint: ") for line in run.err.splitlines())
        assert personal_bytes(auto) == before_disk  # nothing deleted, nothing reverted
        assert user_tip(world, a) == before_ref
        assert world.git("rev-parse", TRACKING, cwd=a).strip() == before_ref


@pytest.mark.slow
def test_an_older_tree_put_back_on_top_of_the_tip_is_refused_and_team_still_syncs(
    victim: tuple[World, Path, Path, str],
) -> None:
    world, a, auto, old = victim
    b = world.clone("b", email="teammate@example.com")
    team_b = world.scope_path(b, "team")
    team_b.mkdir(parents=True, exist_ok=True)
    (team_b / "shared.md").write_text("team fact\n")
    world.ok("-C", str(b), "sync")
    mallory = Mallory(world)
    mallory.fetch()
    attack = mallory.push_tree(mallory.g("rev-parse", f"{old}^{{tree}}").strip())

    assert_refused(world, a, auto, attack, "older state put back")
    assert (auto / "newer.md").read_text() == "learned after the old state\n"
    # the other ref still synced
    assert (world.scope_path(a, "team") / "shared.md").read_text() == "team fact\n"
    # the hint's repair, as written: the newer state is back on the remote, and syncs again
    hint = world.gitmem("-C", str(a), "sync").err.split("To put it back: ", 1)[1]
    command = hint.split(", then", 1)[0].replace("<remote>", "origin").split()
    assert command[:2] == ["git", "push"]
    world.git(*command[1:], cwd=a)
    assert world.git("rev-parse", USER_REF, cwd=world.remote).strip() == user_tip(world, a)
    assert world.gitmem("-C", str(a), "sync").code == 0
    assert (auto / "newer.md").exists()


@pytest.mark.slow
def test_an_older_tree_fetched_by_status_first_is_still_refused(
    victim: tuple[World, Path, Path, str],
) -> None:
    """`status --fetch` moves the tracking ref, the pin of these checks, and checks nothing:
    a replay it fetched is not the state this machine synced last (gitmem/sync/gate.py `_pin`)."""
    world, a, auto, old = victim
    mallory = Mallory(world)
    attack = mallory.push_tree(mallory.g("rev-parse", f"{old}^{{tree}}").strip())
    world.ok("-C", str(a), "status", "--fetch")
    assert world.git("rev-parse", TRACKING, cwd=a).strip() == attack

    assert_refused(world, a, auto, attack, "older state put back")
    assert (auto / "newer.md").read_text() == "learned after the old state\n"


@pytest.mark.slow
@pytest.mark.parametrize("prefix", ["auto", "local"])
def test_one_older_ciphertext_put_back_is_refused(world: World, prefix: str) -> None:
    a = world.clone("a")
    auto = write_personal(world, a)
    folder = auto if prefix == "auto" else a / ".claude" / "agent-memory-local" / "reviewer"
    name = "note.md" if prefix == "auto" else "scratch-pad.md"
    (folder / name).write_text("version 1\n")
    world.ok("-C", str(a), "sync")
    old = user_tip(world, a)
    (folder / name).write_text("version 2\n")
    world.ok("-C", str(a), "sync")
    mallory = Mallory(world)
    tip = mallory.fetch()
    now, then = mallory.entries(tip), mallory.entries(old)
    swapped = [p for p in now if p.startswith(prefix + "/") and then.get(p) not in (None, now[p])]
    swapped.remove(f"{prefix}/{MANIFEST}")
    [shard] = shard_paths(a, tip, prefix) & set(swapped)  # the part of the manifest listing it
    swapped.remove(shard)
    assert len(swapped) == 1  # the one file that changed: its older ciphertext
    attack = mallory.push_tree(mallory.tree_of({**now, swapped[0]: then[swapped[0]]}))
    assert_refused(world, a, auto, attack, "not the version its encrypted manifest lists")
    # with the older shard that lists it (or that shard alone): the record lists another
    for older in ({swapped[0]: then[swapped[0]], shard: then[shard]}, {shard: then[shard]}):
        attack = mallory.push_tree(mallory.tree_of({**now, **older}))
        assert_refused(world, a, auto, attack, "lists a part the folder does not hold")
    assert (folder / name).read_text() == "version 2\n"


@pytest.mark.slow
def test_a_sealed_folder_dropped_whole_is_refused_but_deleting_every_file_syncs(
    victim: tuple[World, Path, Path, str],
) -> None:
    world, a, auto, _ = victim
    mallory = Mallory(world)
    now = mallory.entries(mallory.fetch())
    kept = {p: o for p, o in now.items() if not p.startswith("auto/")}
    attack = mallory.push_tree(mallory.tree_of(kept))
    assert_refused(world, a, auto, attack, "drops the encrypted folder auto/")

    # the honest way to delete everything: an (empty) manifest of a newer generation
    mallory.g("push", "-q", "-f", "origin", f"{user_tip(world, a)}:{USER_REF}")  # repaired
    world.ok("-C", str(a), "sync")
    a2 = world.clone("a2")
    world.ok("-C", str(a2), "sync")  # the same person's second clone
    auto2 = world.scope_path(a2)
    assert (auto2 / "newer.md").exists()
    for f in list(auto.iterdir()):
        f.unlink()
    world.ok("-C", str(a), "sync")
    assert (auto / "MEMORY.md").exists() is False
    run = world.gitmem("-C", str(a2), "sync")
    assert run.code == 0, run.out + run.err
    assert folder_bytes(auto2) == {}


def flat(files: dict[str, str]) -> dict[str, str]:
    """The same tree in the flat layout of a gitmem from before the fan-out: every hidden
    name `auto/<64 hex>` instead of `auto/ab/<62 hex>` (the blobs are the same)."""
    out = {}
    for path, oid in files.items():
        top, _, rel = path.partition("/")
        name = hidden_name(rel) if top in PERSONAL_PREFIXES else None
        out[f"{top}/{name}" if name else path] = oid
    return out


def downgrade(repo: Path, world: World, form: int = 1) -> str:
    """What an older gitmem wrote, in the flat layout of before the fan-out: the same files,
    each folder's manifest in one blob — of format 1 (files only: before generations) or 2
    (generation and ciphertext ids: before the manifest's shards, gitmem/privacy/shards.py)
    and no shards — or, form 3, the manifest in shards as they are."""
    m = Mallory.__new__(Mallory)
    m.clone, m.env = repo, {**world.env, "GIT_INDEX_FILE": str(world.root / "v1.index")}
    tip = m.g("rev-parse", USER_REF).strip()
    files = m.entries(tip)
    store = Repository(repo)
    key = unlock_scope_key(store.read_blob(files[SCOPE_KEY_FILE]), load_machine_key())
    for prefix in ("auto", "local") if form < 3 else ():
        path = f"{prefix}/{MANIFEST}"
        for shard in shard_paths(repo, tip, prefix):
            del files[shard]
        listed, gen, ciphers, _ = manifest_files(store, key, prefix, files[path])
        assert ciphers is not None
        value = {"files": listed, "v": 1} if form == 1 else manifest_value(listed, ciphers, gen)
        files[path] = m.g("hash-object", "-w", "--stdin", data=seal_json(key, path, value)).strip()
    tree = m.tree_of(flat(files))
    return m.g("commit-tree", tree, "-p", tip, "-m", "gitmem: written by an older gitmem").strip()


def hidden_paths(world: World, repo: Path, rev: str) -> list[str]:
    names = world.git("ls-tree", "-r", "--name-only", rev, cwd=repo).split()
    return [n for n in names if n.startswith(("auto/", "local/")) and not n.endswith(MANIFEST)]


@pytest.mark.slow
@pytest.mark.parametrize("form", [1, 2, 3])
def test_manifests_of_older_formats_open_and_are_upgraded_on_the_next_change(
    _seeded: Pristine, monkeypatch: pytest.MonkeyPatch, form: int
) -> None:
    """A ref written by an older gitmem (a manifest without generations, or in one blob
    without shards, or in shards: each in the flat layout of hidden names) opens on first
    contact and after; the next change writes it in shards, fanned out, a generation above,
    and a clone that synced the older form takes it."""
    world = _seeded.fresh(monkeypatch)
    seed = world.root / "seed"
    v1 = downgrade(seed, world, form)
    assert bool(shard_paths(seed, v1, "auto")) is False or form == 3
    flat_names = hidden_paths(world, seed, v1)
    assert flat_names and all(len(n.split("/")[1]) == 64 for n in flat_names)
    world.git("push", "-q", "-f", "origin", f"{v1}:{USER_REF}", cwd=seed)
    b, c = world.clone("b"), world.clone("c")  # first contact with an older gitmem's ref
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(c), "sync")
    auto_b = world.scope_path(b)
    assert (auto_b / "deploy-secrets.md").exists()
    (auto_b / "deploy-secrets.md").write_text("---\nname: deploy\n---\nedited on b\n")
    world.ok("-C", str(b), "sync")
    tip = user_tip(world, b)
    manifest = world.git("rev-parse", f"{tip}:auto/{MANIFEST}", cwd=b).strip()
    assert manifest != world.git("rev-parse", f"{v1}:auto/{MANIFEST}", cwd=b).strip()
    assert shard_paths(b, tip, "auto")  # re-written in shards
    assert all(  # and fanned out, local/ too (only auto/ changed)
        re.fullmatch(r"(auto|local)/[0-9a-f]{2}/[0-9a-f]{62}", n)
        for n in hidden_paths(world, b, tip)
    )
    run = world.gitmem("-C", str(c), "sync")  # c synced the older tree last
    assert run.code == 0, run.out + run.err
    assert "edited on b" in (world.scope_path(c) / "deploy-secrets.md").read_text()
    if form >= 2:  # its generation vouched: the older form put back is an older state
        mallory = Mallory(world)
        attack = mallory.push_tree(mallory.g("rev-parse", f"{v1}^{{tree}}").strip())
        assert_refused(world, c, world.scope_path(c), attack, "older state put back")


@pytest.mark.parametrize(
    "value",
    [
        {"files": [], "v": 1},
        {"files": {}, "gen": -1},
        {"files": {}, "gen": True},
        {"files": {}, "gen": "3"},
        {"files": {}, "gen": 1, "blobs": ["x"]},
        {"files": {}, "gen": 1, "blobs": {"a/x": 1}},
        {"v": 2},
    ],
)
def test_a_malformed_manifest_is_not_read(value: object) -> None:
    with pytest.raises((TypeError, KeyError)):
        read_manifest(json.loads(json.dumps(value)))


def test_a_manifest_of_each_format_is_read() -> None:
    assert read_manifest({"files": {"auto/a.md": "n"}, "v": 1}) == ({"auto/a.md": "n"}, 0, None)
    both = {"files": {"auto/a.md": "n"}, "blobs": {"auto/a.md": "c"}, "gen": 7, "v": 2}
    assert read_manifest(both) == ({"auto/a.md": "n"}, 7, {"auto/a.md": "c"})


@pytest.mark.slow
def test_two_machines_of_the_victim_editing_at_once_converge_and_both_refuse_a_replay(
    world: World,
) -> None:
    wb, a, b = granted_pair(world)
    auto_a, auto_b = world.scope_path(a), wb.scope_path(b)
    before = user_tip(world, a)
    (auto_a / "from-a.md").write_text("written on machine a\n")
    (auto_b / "from-b.md").write_text("written on machine b\n")
    world.ok("-C", str(a), "sync")
    wb.ok("-C", str(b), "sync")  # its push is rejected, it merges a's generation with its own
    world.ok("-C", str(a), "sync")
    assert personal_bytes(auto_a) == personal_bytes(auto_b)
    assert {"from-a.md", "from-b.md"} <= set(personal_bytes(auto_a))
    mallory = Mallory(world)
    attack = mallory.push_tree(mallory.g("rev-parse", f"{before}^{{tree}}").strip())
    assert_refused(world, a, auto_a, attack, "older state put back")
    assert_refused(wb, b, auto_b, attack, "older state put back")


@pytest.mark.parametrize(
    ("ours", "theirs", "refused"),
    [
        ({"auto": (3, "m3")}, {"auto": (4, "m4")}, None),  # newer
        ({"auto": (3, "m3")}, {"auto": (3, "m3")}, None),  # unchanged
        ({"auto": (3, "m3")}, {"auto": (3, "mX")}, "generation 3, not above 3"),  # same age
        ({"auto": (3, "m3")}, {"auto": (2, "m2")}, "generation 2, not above 3"),  # older
        ({"auto": (3, "m3")}, {"auto": (0, "v1")}, "generation 0, not above 3"),  # no generation
        ({"auto": (3, "m3")}, {}, "drops the encrypted folder auto/"),
        ({"auto": (0, "v1")}, {"auto": (0, "v1b")}, None),  # before generations: first use
        ({"auto": (0, "v1")}, {}, None),
        ({"other": (3, "m3")}, {}, None),  # a folder this machine does not seal
        ({"auto": (5, "a"), "local": (2, "l")}, {"auto": (6, "b"), "local": (1, "k")}, "local/"),
    ],
)
def test_what_counts_as_an_older_state(
    ours: dict[str, tuple[int, str]], theirs: dict[str, tuple[int, str]], refused: str | None
) -> None:
    from gitmem.privacy.codec import Decoded
    from gitmem.privacy.rollback import rolled_back

    def decoded(sides: dict[str, tuple[int, str]]) -> Decoded:
        gens = {p: g for p, (g, _) in sides.items()}
        return Decoded({}, None, frozenset(sides), gens, {p: m for p, (_, m) in sides.items()})

    why = rolled_back(decoded(ours), decoded(theirs), ("auto", "local"))
    assert (why is None) if refused is None else (why is not None and refused in why), why
