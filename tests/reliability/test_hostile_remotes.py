"""A remote serving hostile trees on refs/gitmem/*: pull refuses with one clear line and writes
nothing at all — not outside the scope folders, not inside them, not even the other ref's
legitimate news. `gitmem validate` reports each kind with its code, and the pre-receive
template rejects each in a real bare repository (the ref is not created), each well under a
second. Every tree is crafted with real git plumbing in the bare remote.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.reliability.conftest import Record, Sizes
from tests.reliability.harness import Plumbing, broken_gitmem_refs
from tests.support.pristine import Pristine, built_once_in, existing_world
from tests.support.world import BUILD_AND_DEPLOY, REPO_ROOT, TOPIC, World, write_files

TEAM = "refs/gitmem/team"
USER = "refs/gitmem/users/tester@example.com"
BOMB = (
    "---\nname: bomb\ndescription: billion laughs\ntype: project\n"
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(
        f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
    + "---\nbody\n"
)
PYTHON_TAG = (
    "---\nname: tag\ndescription: x\ntype: project\n"
    'run: !!python/object/apply:os.system ["touch /tmp/gitmem-pwned"]\n---\nbody\n'
)


def snapshot_disk(*roots: Path) -> dict[str, object]:
    """Every path under the roots (links as links, .git folders skipped) with its bytes."""
    seen: dict[str, object] = {}
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d != ".git" and not d.endswith(".git")]
            for name in dirnames + filenames:
                path = Path(dirpath) / name
                if path.is_symlink():
                    seen[str(path)] = ("link", os.readlink(path))
                elif path.is_file():
                    seen[str(path)] = path.read_bytes()
                else:
                    seen[str(path)] = "dir"
    return seen


@dataclass
class Scene:
    world: World
    clone: Path  # the victim, which pulls
    other: Path  # a teammate who pushes legitimate news
    remote: Plumbing
    folders: dict[str, Path]

    def root_entries(self, ref: str) -> list[tuple[str, str, str]]:
        return self.remote.entries(self.remote.tree_of(self.remote.resolve(ref) or ""))

    def subtree(self, ref: str, top: str) -> str:
        oid = next(o for m, o, n in self.root_entries(ref) if n == top)
        return oid

    def publish(self, ref: str, root_tree: str) -> str:
        """Point the remote's ref at a commit of `root_tree` built on its current tip."""
        tip = self.remote.resolve(ref)
        commit = self.remote.commit(root_tree, [tip] if tip else [], "gitmem: 1 file changed")
        self.remote.set_ref(ref, commit)
        return commit

    def with_entries(self, ref: str, top: str, extra: list[tuple[str, str, bytes | str]]) -> str:
        """The ref's root tree with `extra` entries added to its `top` folder."""
        inner = self.remote.entries(self.subtree(ref, top))
        new_inner = self.remote.tree([*inner, *extra])
        root = [(m, new_inner if n == top else o, n) for m, o, n in self.root_entries(ref)]
        return self.remote.tree(root)

    def with_literal(self, ref: str, top: str, extra: list[tuple[str, str, bytes]]) -> str:
        inner = [(m, o, n.encode()) for m, o, n in self.remote.entries(self.subtree(ref, top))]
        entries = sorted([*inner, *extra], key=lambda e: e[2] + (b"/" if e[0] == "40000" else b""))
        new_inner = self.remote.literal_tree(entries)
        root = [(m, new_inner if n == top else o, n) for m, o, n in self.root_entries(ref)]
        return self.remote.tree(root)


def _two_synced_clones(root: Path) -> None:
    world = World(root)
    world.make_remote()
    a, b = world.clone("a"), world.clone("b")
    fa = write_files(world.scope_path(a, "auto"), BUILD_AND_DEPLOY)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    _hooked_server(world)
    (root.parent / "auto-folder").write_text(str(fa))


@pytest.fixture(scope="session")
def synced_world(tmp_path_factory: pytest.TempPathFactory) -> Pristine:
    """Two clones synced through a bare remote, built once. Every path inside (remote URLs,
    scope folders, sync state) names its root, so each test gets it back at that same place
    (tests/support/pristine: only what the previous test changed is put back)."""
    return built_once_in(tmp_path_factory, "hostile", _two_synced_clones)


@pytest.fixture
def scene(synced_world: Pristine) -> Scene:
    root = synced_world.restore()
    world = existing_world(root)
    fa = Path((root.parent / "auto-folder").read_text())
    a, b = root / "a", root / "b"
    return Scene(world, a, b, Plumbing(world.remote, world.env), {"auto": fa, "team": fa / "team"})


def legit_news(scene: Scene, on: str) -> None:
    """The teammate pushes an honest new memory on `on` (auto or team) before the attack."""
    folder = scene.world.scope_path(scene.other, on)
    (folder / "news.md").write_text("honest news\n")
    scene.world.ok("-C", str(scene.other), "push", "--scope", on)


def key_blob(scene: Scene) -> str:
    return next(o for m, o, n in scene.root_entries(TEAM) if n == "gitmem.toml")


Attack = Callable[[Scene], tuple[str, str]]  # -> (ref, root tree or object to point the ref at)


def _team(extra: Callable[[Plumbing], list[tuple[str, str, bytes | str]]]) -> Attack:
    return lambda s: (TEAM, s.with_entries(TEAM, "team", extra(s.remote)))


def _team_literal(name: bytes) -> Attack:
    return lambda s: (TEAM, s.with_literal(TEAM, "team", [("100644", s.remote.blob(b"x\n"), name)]))


def _dotdot(s: Scene) -> tuple[str, str]:
    leaf = s.remote.tree([("100644", s.remote.blob(b"escaped\n"), "escaped.md")])
    return TEAM, s.with_entries(TEAM, "team", [("40000", s.remote.nest(leaf, [".."] * 7), "..")])


def _dotgit(s: Scene) -> tuple[str, str]:
    hook = s.remote.blob(b"#!/bin/sh\ntouch /tmp/gitmem-pwned\n")
    leaf = s.remote.tree([("100755", hook, "post-checkout")])
    return TEAM, s.with_entries(TEAM, "team", [("40000", s.remote.nest(leaf, ["hooks"]), ".GIT")])


def _agents_dotgit(s: Scene) -> tuple[str, str]:
    hook = s.remote.tree([("100644", s.remote.blob(b"[core]\n\thooksPath = /tmp\n"), "config")])
    agents = s.remote.tree([("40000", s.remote.nest(hook, ["planner"]), ".git")])
    root = [*s.root_entries(TEAM), ("40000", agents, "agents")]
    return TEAM, s.remote.tree(root)


def _file_and_folder(s: Scene) -> tuple[str, str]:
    inner = s.remote.tree([("100644", s.remote.blob(b"below\n"), "below.md")])
    return TEAM, s.with_entries(
        TEAM,
        "team",
        [("100644", s.remote.blob(b"file\n"), "clash.md"), ("40000", inner, "clash.md")],
    )


def _twice(s: Scene) -> tuple[str, str]:
    return TEAM, s.with_entries(
        TEAM,
        "team",
        [
            ("100644", s.remote.blob(b"one\n"), "twice.md"),
            ("100644", s.remote.blob(b"two\n"), "twice.md"),
        ],
    )


def _deep(levels: int) -> Attack:
    def attack(s: Scene) -> tuple[str, str]:
        leaf = s.remote.tree([("100644", s.remote.blob(b"deep\n"), "deep.md")])
        return TEAM, s.with_entries(
            TEAM, "team", [("40000", s.remote.nest(leaf, ["d"] * (levels - 1)), "d")]
        )

    return attack


def _huge(s: Scene, mib: int) -> tuple[str, str]:
    data = (b"0123456789abcdef" * 65536) * mib + b"!"
    return TEAM, s.with_entries(TEAM, "team", [("100644", s.remote.blob(data), "huge.md")])


def _root_with(meta: bytes | None) -> Attack:
    def attack(s: Scene) -> tuple[str, str]:
        entries = [e for e in s.root_entries(TEAM) if e[2] != "gitmem.toml"]
        if meta is not None:
            entries.append(("100644", s.remote.blob(meta), "gitmem.toml"))
        return TEAM, s.remote.tree(entries)

    return attack


def _unexpected_top(s: Scene) -> tuple[str, str]:
    evil = s.remote.tree([("100644", s.remote.blob(b"x\n"), "x.md")])
    return TEAM, s.remote.tree([*s.root_entries(TEAM), ("40000", evil, "auto")])


def _ref_to(kind: str) -> Attack:
    def attack(s: Scene) -> tuple[str, str]:
        tip = s.remote.resolve(TEAM) or ""
        if kind == "blob":
            return TEAM, "!" + s.remote.blob(b"not a commit\n")
        if kind == "tree":
            return TEAM, "!" + s.remote.tree_of(tip)
        # a tag of a new, otherwise well-formed commit: not something gitmem ever writes
        news = s.remote.commit(
            s.with_entries(TEAM, "team", [("100644", s.remote.blob(b"tagged\n"), "tagged.md")]),
            [tip],
        )
        tag = s.remote._git(
            "mktag",
            input=(
                f"object {news}\ntype commit\ntag v1\ntagger Eve <eve@example.com> 0 +0000\n\nhi\n"
            ).encode(),
        )
        return TEAM, "!" + tag

    return attack


def _users_symlink(s: Scene) -> tuple[str, str]:
    link = ("120000", s.remote.blob(b"../../../../../.ssh/authorized_keys"), "keys.md")
    return USER, s.with_entries(USER, "auto", [link])


def _planted_git_repo(s: Scene) -> tuple[str, str]:
    """`agents/x/{HEAD,config,objects/..}`: written under .claude/agent-memory/x/, its config
    would run `core.fsmonitor` on the next `git status` there."""
    p = s.remote
    objects = p.nest(p.tree([("100644", p.blob(b"x"), "cdef")]), ["ab"])
    repo = p.tree(
        [
            ("100644", p.blob(b"ref: refs/heads/main\n"), "HEAD"),
            ("100644", p.blob(b"[core]\n\tfsmonitor = touch /tmp/gitmem-pwned\n"), "config"),
            ("40000", objects, "objects"),
        ]
    )
    agents = p.tree([("40000", repo, "x")])
    return TEAM, p.tree([*s.root_entries(TEAM), ("40000", agents, "agents")])


def _personal_root(change: Callable[[Scene, list[tuple[str, str, str]]], list]) -> Attack:  # type: ignore[type-arg]
    def attack(s: Scene) -> tuple[str, str]:
        return USER, s.remote.tree(change(s, list(s.root_entries(USER))))

    return attack


def _auto_as_file(s: Scene, root: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    return [e for e in root if e[2] != "auto"] + [("100644", s.remote.blob(b"x\n"), "auto")]


def _plaintext_local(s: Scene, root: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    notes = s.remote.tree([("100644", s.remote.blob(TOPIC.encode()), "notes.md")])
    return [e for e in root if e[2] != "local"] + [("40000", notes, "local")]


def _extra_key_file(s: Scene, root: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    keys = next(o for m, o, n in root if n == "keys")
    inner = [*s.remote.entries(keys), ("100644", s.remote.blob(b"#!/bin/sh\n"), "hook.sh")]
    return [e for e in root if e[2] != "keys"] + [("40000", s.remote.tree(inner), "keys")]


def _blob(name: str, data: bytes) -> Attack:
    return _team(lambda p: [("100644", p.blob(data), name)])


NESTED_YAML = b"---\nname: n\ndescription: d\ntype: user\nk: " + b"[" * 60_000 + b"]" * 60_000
NESTED_YAML += b"\n---\nbody\n"

ATTACKS: dict[str, Attack] = {
    "path traversal (.. folders)": _dotdot,
    "path traversal (slash inside a name)": _team_literal(b"../../../../../escaped.md"),
    "absolute path inside a name": _team_literal(b"/tmp/gitmem-escaped.md"),
    # duplicates nothing: git fsck refuses the tree, and a listing shows team/sub/new.md
    "slash inside a name (a folder that is not there)": _team_literal(b"sub/new.md"),
    ".git folder (any case)": _dotgit,
    ".git under agents/": _agents_dotgit,
    "symbolic link": _team(
        lambda p: [("120000", p.blob(b"../../../../.ssh/id_ed25519"), "key.md")]
    ),
    "symbolic link on the personal ref": _users_symlink,
    "gitlink (submodule)": _team(lambda p: [("160000", "a" * 40, "vendor")]),
    "executable hook-like file named .git": _team(lambda p: [("100755", p.blob(b"x"), ".git")]),
    "deep tree (40 levels)": _deep(40),
    "very deep tree (3000 levels)": _deep(3000),
    "bad UTF-8 file name": _team_literal(b"caf\xe9-\xff\xfe.md"),
    "newline in a file name": _team_literal(b"evil\nname.md"),
    "backslash in a file name": _team_literal(b"..\\..\\escaped.md"),
    "YAML bomb (billion laughs)": _team(lambda p: [("100644", p.blob(BOMB.encode()), "bomb.md")]),
    "YAML python tag": _team(lambda p: [("100644", p.blob(PYTHON_TAG.encode()), "tag.md")]),
    "a file and a folder with one name": _file_and_folder,
    "one name twice": _twice,
    "unexpected top-level folder": _unexpected_top,
    "no gitmem.toml (another tool's ref)": _root_with(None),
    "another project's key": _root_with(b'version = 1\nkey = "evil.example/other/project"\n'),
    "future format version": _root_with(b'version = 99\nkey = "x"\n'),
    "unreadable gitmem.toml": _root_with(b"\xff\xfe garbage without equals\n"),
    "ref pointing at a blob": _ref_to("blob"),
    "ref pointing at a tree": _ref_to("tree"),
    "ref pointing at a tag": _ref_to("tag"),
    "13 levels (one past the limit)": _deep(11),
    "planted git repository under agents/": _planted_git_repo,
    "YAML nested 120 KB deep": _blob("nested.md", NESTED_YAML),
    # text that is merely not UTF-8 (Latin-1) is pulled: tests/e2e/test_any_text.py
    "content that is not text (UTF-16)": _blob("wide.md", "caf\xe9 au lait\n".encode("utf-16")),
    "content that is not text (binary)": _blob("image.md", bytes(range(256)) * 4),
    "a name over 255 bytes": _blob("n" * 300 + ".md", b"long\n"),
    "a file that is not memory (a script)": _blob("run.sh", b"#!/bin/sh\ncurl x | sh\n"),
    "top-level auto as a file on the personal ref": _personal_root(_auto_as_file),
    "plaintext under local/ on the personal ref": _personal_root(_plaintext_local),
    "an unknown file under keys/ on the personal ref": _personal_root(_extra_key_file),
}

# the code `gitmem validate` reports for each kind (None: only pull can tell, it needs the
# project's key)
EXPECTED_CODE: dict[str, str | None] = {
    "path traversal (.. folders)": "GM101",
    "path traversal (slash inside a name)": "GM101",
    "absolute path inside a name": "GM101",
    "slash inside a name (a folder that is not there)": "GM101",
    ".git folder (any case)": "GM101",
    ".git under agents/": "GM101",
    "symbolic link": "GM103",
    "symbolic link on the personal ref": "GM103",
    "gitlink (submodule)": "GM103",
    "executable hook-like file named .git": "GM101",
    "deep tree (40 levels)": "GM102",
    "very deep tree (3000 levels)": "GM102",
    "bad UTF-8 file name": "GM101",
    "newline in a file name": "GM101",
    "backslash in a file name": "GM101",
    "YAML bomb (billion laughs)": "GM120",
    "YAML python tag": "GM120",
    "a file and a folder with one name": "GM106",
    "one name twice": "GM106",
    "unexpected top-level folder": "GM108",
    "no gitmem.toml (another tool's ref)": "GM109",
    "another project's key": None,
    "future format version": "GM110",
    "unreadable gitmem.toml": "GM109",
    "ref pointing at a blob": "GM109",
    "ref pointing at a tree": "GM109",
    "ref pointing at a tag": "GM109",
    "13 levels (one past the limit)": "GM102",
    "planted git repository under agents/": "GM104",
    "YAML nested 120 KB deep": "GM120",
    "content that is not text (UTF-16)": "GM111",
    "content that is not text (binary)": "GM111",
    "a name over 255 bytes": "GM102",
    "a file that is not memory (a script)": "GM104",
    "top-level auto as a file on the personal ref": "GM108",
    "plaintext under local/ on the personal ref": "GM160",
    "an unknown file under keys/ on the personal ref": "GM108",
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_pull_refuses_hostile_tree_and_writes_nothing(scene: Scene, attack: str) -> None:
    ref, _ = (USER, "") if "personal" in attack else (TEAM, "")
    legit_news(scene, "team" if ref == USER else "auto")  # news on the other ref still lands
    ref, tree = ATTACKS[attack](scene)
    good_tip = scene.remote.resolve(ref)
    target = tree[1:] if tree.startswith("!") else scene.publish(ref, tree)
    scene.remote.set_ref(ref, target)
    world, clone = scene.world, scene.clone
    before = snapshot_disk(world.home, clone, world.root)
    local_before = world.git("rev-parse", ref, cwd=clone)

    run = world.gitmem("-C", str(clone), "pull")

    # plaintext on an encrypted personal ref is a tampered ref (exit 3), the rest bad input
    expected = 3 if EXPECTED_CODE[attack] == "GM160" else 2
    assert run.code == expected, f"{attack}: exit {run.code}\n{run.out}{run.err}"
    lines = run.err.strip().splitlines()
    assert lines[0].startswith("gitmem: error: ") and ref.split("/")[-1] in lines[0], run.err
    assert lines[0].count(ref) == 1, f"the ref named once: {run.err}"  # round 21: twice
    assert len(lines) <= 2 and all(ln.startswith("hint: ") for ln in lines[1:]), run.err
    assert "Traceback" not in run.err
    # the hostile ref is set aside, the other one is not held back: its honest news lands
    # (the only change on disk), and of the hostile ref nothing is merged or written
    news = scene.folders["team" if ref == USER else "auto"] / "news.md"
    after = snapshot_disk(world.home, clone, world.root)
    assert after.pop(str(news), None) == b"honest news\n", f"{attack}: the other ref held back"
    assert after == before, f"{attack}: something was written"
    assert world.git("rev-parse", ref, cwd=clone) == local_before
    assert not Path("/tmp/gitmem-pwned").exists() and not Path("/tmp/gitmem-escaped.md").exists()

    # the remote is repaired (the hostile commit removed): the next sync works and brings the news
    scene.remote.set_ref(ref, good_tip or "")
    world.ok("-C", str(clone), "sync")
    assert (
        scene.folders["team" if ref == USER else "auto"] / "news.md"
    ).read_bytes() == b"honest news\n"
    # (git fsck may still flag the hostile objects the remote sent: they sit unreferenced)
    assert not broken_gitmem_refs(clone, world.env)


def test_huge_blob_is_refused_before_it_is_written(
    scene: Scene, sizes: Sizes, record: Record
) -> None:
    legit_news(scene, "auto")
    _, tree = _huge(scene, sizes.huge_blob_mib)
    scene.publish(TEAM, tree)
    before = snapshot_disk(scene.world.home, scene.clone)
    run = scene.world.gitmem("-C", str(scene.clone), "pull")
    assert run.code == 2 and "huge.md" in run.err and "limit" in run.err, run.err
    after = snapshot_disk(scene.world.home, scene.clone)
    assert after.pop(str(scene.folders["auto"] / "news.md")) == b"honest news\n"  # not held back
    assert after == before
    record(hostile_inputs_refused=len(ATTACKS) + 1, huge_blob_mib=sizes.huge_blob_mib)


def test_longer_ref_name_under_refs_gitmem_is_not_let_in(scene: Scene) -> None:
    """refs/gitmem/users/<uid>.evil matches our fetch glob; its contents must never land."""
    evil_root = scene.with_entries(
        USER, "auto", [("100644", scene.remote.blob(b"evil\n"), "evil.md")]
    )
    scene.remote.set_ref(USER + ".evil", scene.remote.commit(evil_root, [], "not yours"))
    scene.remote.set_ref("refs/gitmem/teamster", scene.remote.commit(evil_root, [], "not ours"))
    run = scene.world.gitmem("-C", str(scene.clone), "sync")
    assert run.code == 0, run.err
    assert not (scene.folders["auto"] / "evil.md").exists()
    assert not (scene.folders["team"] / "evil.md").exists()
    tracking = scene.world.git(
        "for-each-ref", "--format=%(refname)", "refs/gitmem-remotes", cwd=scene.clone
    )
    assert ".evil" not in tracking and "teamster" not in tracking


def test_pull_never_writes_through_a_symlinked_folder(scene: Scene) -> None:
    """A folder inside the scope that is a symbolic link leads outside it: what the remote sends
    for paths below it is not written there (the remote chooses those names and bytes)."""
    outside = scene.world.root / "outside"
    outside.mkdir()
    (scene.folders["team"] / "notes").symlink_to(outside)
    other_team = scene.world.scope_path(scene.other, "team")
    (other_team / "notes").mkdir()
    (other_team / "notes" / "planted.md").write_text("planted by the remote\n")
    scene.world.ok("-C", str(scene.other), "sync")
    run = scene.world.gitmem("-C", str(scene.clone), "sync")
    assert run.code == 0, run.err
    assert list(outside.iterdir()) == [], "the remote wrote outside the scope folder"
    assert "notes/planted.md" in run.err and "symbolic link" in run.err, run.err  # skipped: stderr
    again = scene.world.gitmem("-C", str(scene.clone), "sync")  # and it settles: no loop
    assert again.code == 0 and list(outside.iterdir()) == []


def test_the_collection_is_complete() -> None:
    assert len(ATTACKS) >= 30 and set(EXPECTED_CODE) == set(ATTACKS)


def plant(scene: Scene, attack: str) -> tuple[str, str, str | None]:
    """Point the remote's ref at the attack; (ref, hostile object, the good tip it replaced)."""
    ref, tree = ATTACKS[attack](scene)
    good_tip = scene.remote.resolve(ref)
    target = tree[1:] if tree.startswith("!") else scene.publish(ref, tree)
    scene.remote.set_ref(ref, target)
    return ref, target, good_tip


@pytest.mark.parametrize("attack", sorted(a for a, code in EXPECTED_CODE.items() if code))
def test_validate_reports_each_hostile_kind_with_its_code(scene: Scene, attack: str) -> None:
    ref, _, _ = plant(scene, attack)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = scene.world.gitmem("-C", str(scene.world.remote), "validate", ref)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert run.code == 1, f"{attack}: exit {run.code}\n{run.out}{run.err}"
    assert f" {EXPECTED_CODE[attack]} error" in run.out, run.out
    assert all(len(line) < 2000 for line in run.out.splitlines())  # one line each, bounded
    # CPU time of gitmem and its git processes: what a shared machine's load does not inflate
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert cpu < 1.0, f"{attack}: {cpu:.2f} s of CPU"


def _hooked_server(world: World) -> None:
    """server.git: a bare copy of the remote (good refs) with the pre-receive template
    installed, made with the synced world (a test that does not push to it never looks)."""
    server = world.root / "server.git"
    world.git("clone", "-q", "--mirror", str(world.remote), str(server))
    hook = server / "hooks" / "pre-receive"
    shutil.copy(REPO_ROOT / "templates" / "pre-receive", hook)
    os.chmod(hook, 0o755)


def hooked_server(scene: Scene) -> Path:
    """The world's server.git, its hook running this tree's gitmem."""
    scene.world.env["GITMEM"] = str(Path(sys.executable).parent / "gitmem")
    return scene.world.root / "server.git"


@pytest.mark.parametrize("attack", sorted(a for a, code in EXPECTED_CODE.items() if code))
def test_pre_receive_template_rejects_each_hostile_kind(scene: Scene, attack: str) -> None:
    server = hooked_server(scene)
    ref, target, good_tip = plant(scene, attack)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    push = subprocess.run(
        ["git", "push", str(server), f"+{target}:{ref}"],  # an attacker forces
        cwd=scene.world.remote,
        env=scene.world.env,
        capture_output=True,
        text=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert push.returncode != 0, f"{attack}: accepted\n{push.stderr}"
    assert "gitmem: rejected" in push.stderr or "GM1" in push.stderr, push.stderr
    assert scene.world.git("rev-parse", ref, cwd=server).strip() == good_tip, "the ref moved"
    # CPU time of the whole push (3,000 trees to move for the deepest kind: 0.45 s, the others
    # ~0.09): git push, the receive-pack it waits for, the hook and its gitmem, each waited for
    # by its parent. A shared machine's load does not inflate it as it did the wall (5.48 s
    # against a 5.0 s bound at a load of ~20, round 22); the test above holds validate's own
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert cpu < 2.0, f"{attack}: {cpu:.2f} s of CPU"


def test_clean_refs_pass_validate_and_the_pre_receive_template(scene: Scene) -> None:
    server = hooked_server(scene)
    for ref in (TEAM, USER):
        scene.world.git("update-ref", "-d", ref, cwd=server)
    legit_news(scene, "team")
    legit_news(scene, "auto")
    assert scene.world.gitmem("-C", str(scene.world.remote), "validate").code == 0
    for ref in (TEAM, USER):
        tip = scene.remote.resolve(ref)
        scene.world.git("push", "-q", str(server), f"{tip}:{ref}", cwd=scene.world.remote)
        assert scene.world.git("rev-parse", ref, cwd=server).strip() == tip


def test_the_check_along_changes_refuses_each_hostile_kind_as_the_whole_check(
    scene: Scene,
) -> None:
    """A pull checks a fetched tree along its changes from the last tree that passed
    (docs/history/performance.md, the pull path): over the whole collection, built on a clean tip, that
    check refuses exactly what the check of the whole tree refuses, with the same message, and
    never passes a hostile tree on its own."""
    from gitmem.errors import GitmemError
    from gitmem.gitstore import Repository
    from gitmem.policy.treecheck import Checked, _along_changes, check_tree

    def outcome(repo: Repository, commit: str, ref: str, since: Checked | None) -> object:
        try:
            meta, findings, _ = check_tree(repo, commit, ref, since=since)
        except GitmemError as exc:
            return (type(exc).__name__, exc.message)
        return ("passed", meta, [f for f in findings if f.code != "GM107"])

    with Repository(scene.world.remote) as repo:
        for attack in sorted(ATTACKS):
            ref = USER if "personal" in attack else TEAM
            good = scene.remote.resolve(ref)
            assert good is not None
            _, _, since = check_tree(repo, good, ref)
            assert since is not None, "the clean tip passes and is counted"
            hostile, target, _ = plant(scene, attack)
            assert hostile == ref
            whole = outcome(repo, target, ref, None)
            assert outcome(repo, target, ref, since) == whole, attack
            quick = _along_changes(repo, target, ref, since)
            if whole[0] != "passed":  # type: ignore[index]
                assert quick is None or any(f.blocking for f in quick[0]), attack
            scene.remote.set_ref(ref, good)


@pytest.mark.slow
def test_every_module_a_check_runs_is_in_the_stamp_of_kept_trees(scene: Scene) -> None:
    """checked.json keeps trees that passed, stamped with a digest of the code that decides a
    refusal (gitmem/policy/checkedtrees.py RULES): a module the check runs but the stamp misses (the
    raw-name walk of gitmem/gitstore/objects.py once) could change what is refused while the
    trees kept under the old code are still checked only along their changes. Every module of
    gitmem and merge_drivers that the whole check and the check along changes run, over clean
    refs and every hostile kind, is stamped."""
    from gitmem.errors import GitmemError
    from gitmem.gitstore import Repository
    from gitmem.policy.checkedtrees import RULES
    from gitmem.policy.treecheck import check_tree

    ran: set[str] = set()

    def profile(frame: object, event: str, arg: object) -> None:
        if event == "call":
            ran.add(frame.f_code.co_filename)  # type: ignore[attr-defined]

    def check(repo: Repository, commit: str, ref: str, since: object) -> object:
        sys.setprofile(profile)
        try:
            return check_tree(repo, commit, ref, since=since, ours=lambda: _ours(repo, ref))  # type: ignore[arg-type]
        except GitmemError:
            return None
        finally:
            sys.setprofile(None)

    def _ours(repo: Repository, ref: str) -> tuple[frozenset[str], frozenset[str]]:
        listed = repo.list_tree(scene.remote.resolve(ref) or "")
        return frozenset(e.oid for e in listed.values()), frozenset(listed)

    with Repository(scene.world.remote) as repo:
        for attack in sorted(ATTACKS):
            ref = USER if "personal" in attack else TEAM
            good = scene.remote.resolve(ref)
            assert good is not None
            kept = check(repo, good, ref, None)
            assert isinstance(kept, tuple) and kept[2] is not None
            _, target, _ = plant(scene, attack)
            check(repo, target, ref, None)
            check(repo, target, ref, kept[2])
            scene.remote.set_ref(ref, good)
    stamped = {str(REPO_ROOT / name) for name in RULES}
    ours = [str(REPO_ROOT / "gitmem"), str(REPO_ROOT / "merge_drivers")]
    run = {f for f in ran if f.startswith(tuple(ours))}
    assert {str(REPO_ROOT / "gitmem/gitstore/objects.py")} <= run  # the trace sees the walk
    assert sorted(run - stamped) == [], sorted(run - stamped)
    assert all((REPO_ROOT / name).is_file() for name in RULES)
