"""Red-team round, charter rule 5: personal memory leaves the machine only encrypted, by any route.

Each route starts from a clone that synced its personal memory once (a key made on the way,
docs/design.md §5), then takes one more way out: another remote, a renamed remote, the hub set,
changed and unset, a linked worktree, unpublish and --undo, a bundle file. After each, every
object the receiving side holds (packs inflated) is searched for the memory's text and names.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.personal import remote_objects
from tests.support.pristine import Pristine, built_once
from tests.support.world import World, write_files

SECRET = "the-personal-plaintext-marker"
NAME = "private-topic-name"
PERSONAL = {
    "MEMORY.md": f"- [Mine]({NAME}.md) — {SECRET} index\n",
    f"{NAME}.md": f"---\nname: mine\ndescription: {SECRET}\ntype: user\n---\n{SECRET} body\n",
    "team/MEMORY.md": "- [Deploy](deploy.md) — how we deploy\n",
    "team/deploy.md": "Tuesdays.\n",
}
LOCAL = {"CLAUDE.local.md": f"{SECRET} local\n"}


def _leaks(blob: bytes) -> list[str]:
    return [s for s in (SECRET, NAME) if s.encode() in blob]


def _bundle_objects(world: World, bundle: Path) -> bytes:
    """Every object a bundle file carries, inflated (what its receiver can read)."""
    probe = world.root / "bundle-probe.git"
    world.git("init", "-q", "--bare", str(probe))
    world.git("bundle", "unbundle", str(bundle), cwd=probe)
    return remote_objects(probe)


def _synced(world: World) -> Path:
    a = world.clone("a")
    write_files(world.scope_path(a), PERSONAL)
    write_files(a, LOCAL)
    world.ok("-C", str(a), "sync")
    assert not _leaks(remote_objects(world.remote))
    return a


@pytest.fixture(scope="module")
def _synced_once(tmp_path_factory: pytest.TempPathFactory, _remote_template: Path) -> Pristine:
    return built_once(tmp_path_factory, _remote_template, "privacy-a", _synced)


@pytest.fixture
def synced(_synced_once: Pristine, monkeypatch: pytest.MonkeyPatch) -> tuple[World, Path]:
    """`_synced(world)` (the opening of 21 tests), built once a module and handed back as
    built (#23): the world and its clone `a`."""
    world = _synced_once.fresh(monkeypatch)
    return world, world.root / "a"


ROUTES = [
    "second-remote",
    "gitmem.remote",
    "renamed",
    "hub",
    "hub-changed-unset",
    "worktree",
    "unpublish-undo",
    "bundle",
    "bundle-before-any-sync",
]


@pytest.mark.parametrize("route", ROUTES)
def test_personal_memory_leaves_only_encrypted_by_every_route(
    request: pytest.FixtureRequest, route: str
) -> None:
    if route == "bundle-before-any-sync":  # nothing synced yet: no key on this machine
        world: World = request.getfixturevalue("world")
        a = world.clone("a")
        write_files(world.scope_path(a), PERSONAL)
        write_files(a, LOCAL)
    else:
        world, a = request.getfixturevalue("synced")
    more = {f"{NAME}-2.md": f"{SECRET} second\n"}
    write_files(world.scope_path(a), more)
    receivers: list[Path] = [world.remote]
    if route in ("second-remote", "gitmem.remote"):
        other = world.make_remote("other.git")
        world.git("remote", "add", "backup", str(other), cwd=a)
        if route == "second-remote":
            run = world.gitmem("-C", str(a), "sync", "--remote", "backup")
        else:
            world.git("config", "gitmem.remote", "backup", cwd=a)
            run = world.gitmem("-C", str(a), "sync")
        # another repository (its own history) gets no team memory of this project (red team
        # 17: a fork); the personal ref still goes there, which is the route under test
        assert run.code == 3 and "has none: not pushed there" in run.err, run.err  # partly done
        assert "refs/gitmem/users/" in world.git("--git-dir", str(other), "for-each-ref")
        world.ok(
            "-C", str(a), "adopt", *(["--remote", "backup"] if route == "second-remote" else [])
        )
        receivers.append(other)
    elif route == "renamed":
        world.git("remote", "rename", "origin", "upstream", cwd=a)
        world.ok("-C", str(a), "sync")
    elif route in ("hub", "hub-changed-unset"):
        hub = world.root / "hub.git"
        world.git("init", "-q", "--bare", str(hub))
        world.git("config", "gitmem.hub", str(hub), cwd=a)
        world.ok("-C", str(a), "sync")
        receivers.append(hub)
        if route == "hub-changed-unset":
            hub2 = world.root / "hub2.git"
            world.git("init", "-q", "--bare", str(hub2))
            world.git("config", "gitmem.hub", str(hub2), cwd=a)
            write_files(world.scope_path(a), {f"{NAME}-3.md": f"{SECRET} third\n"})
            world.ok("-C", str(a), "sync")
            world.git("config", "--unset", "gitmem.hub", cwd=a)
            write_files(world.scope_path(a), {f"{NAME}-4.md": f"{SECRET} fourth\n"})
            world.ok("-C", str(a), "sync")
            receivers.append(hub2)
    elif route == "worktree":
        tree = world.root / "linked"
        world.git("worktree", "add", "-q", "-b", "side", str(tree), cwd=a)
        write_files(tree, LOCAL)  # the linked worktree's own CLAUDE.local.md
        world.ok("-C", str(tree), "sync")
    elif route == "unpublish-undo":
        world.ok("-C", str(a), "unpublish", "personal")
        write_files(world.scope_path(a), {f"{NAME}-3.md": f"{SECRET} while off\n"})
        world.ok("-C", str(a), "sync")
        world.ok("-C", str(a), "unpublish", "--undo", "personal")
        world.ok("-C", str(a), "sync")
    else:
        bundle = world.root / "memory.bundle"
        run = world.gitmem("-C", str(a), "bundle", "create", str(bundle))
        assert run.code in (0, 2), run.err
        assert SECRET not in run.out + run.err
        assert bundle.exists() or route == "bundle-before-any-sync"
        if bundle.exists():
            objects = _bundle_objects(world, bundle)
            assert b"keys/scope.age" in objects or b"scope.age" in objects  # sealed, not absent
            assert not _leaks(objects), route
    for receiver in receivers:
        refs = world.git("for-each-ref", "--format=%(refname)", "refs/gitmem", cwd=receiver)
        assert "/users/" in refs or route == "bundle-before-any-sync", (
            route,
            receiver,
        )  # the personal ref did travel there
        assert not _leaks(remote_objects(receiver)), (route, receiver)


@pytest.mark.parametrize("on_top", [True, False], ids=["on-top", "unrelated"])
@pytest.mark.parametrize(
    "door", ["pinned", "renamed", "new-remote-name", "tracking-dropped", "bundle"]
)
def test_a_key_ring_planted_after_the_first_sync_is_refused_whatever_the_tracking_ref(
    synced: tuple[World, Path], door: str, on_top: bool
) -> None:
    """Someone who can push replaces your personal ref with a scope key sealed to you and to
    themselves (on top of your tip, or as a new history: most forges let anyone who can push
    force a non-branch ref). Your sync must never re-encrypt your memory under it — also when
    the remote-tracking ref that pins your last key is gone: the remote renamed, the same URL
    under a new remote name, the tracking ref dropped."""
    from pyrage import x25519

    from gitmem.gitstore import Repository
    from gitmem.privacy.crypto import ScopeKey, lock_scope_key, seal_json
    from gitmem.privacy.layout import RECIPIENTS_FILE, SCOPE_KEY_FILE
    from tests.support.personal import USER_REF

    world, a = synced
    mine = world.ok("key", "show").strip()
    planter = str(x25519.Identity.generate().to_public())
    remote = Repository(world.remote)
    tip = remote.resolve(USER_REF)
    assert tip is not None
    key = ScopeKey.generate()
    tree = remote.write_tree(
        {
            "gitmem.toml": ("100644", remote.list_tree(tip)["gitmem.toml"].oid),
            SCOPE_KEY_FILE: ("100644", remote.write_blob(lock_scope_key(key, [mine, planter]))),
            RECIPIENTS_FILE: (
                "100644",
                remote.write_blob(seal_json(key, RECIPIENTS_FILE, [mine, planter])),
            ),
        }
    )
    planted = remote.write_commit(tree, [tip] if on_top else [], "gitmem: rotate key")
    remote.publish(planted)  # the planter's objects, where its raw update-ref finds them
    world.plumb(world.remote, "update-ref", USER_REF, planted)
    if door == "renamed":
        world.git("remote", "rename", "origin", "upstream", cwd=a)
    elif door == "new-remote-name":
        world.git("remote", "add", "mirror", str(world.remote), cwd=a)
        world.git("config", "gitmem.remote", "mirror", cwd=a)
    elif door == "tracking-dropped":
        for ref in world.git(
            "for-each-ref", "--format=%(refname)", "refs/gitmem-remotes", cwd=a
        ).split():
            world.git("update-ref", "-d", ref, cwd=a)
    write_files(world.scope_path(a), {f"{NAME}-new.md": f"{SECRET} after the plant\n"})
    if door == "bundle":  # handed over as a file (offline handover), then a sync
        bundle = world.root / "planted.bundle"
        world.git("bundle", "create", str(bundle), USER_REF, cwd=world.remote)
        run = world.gitmem("-C", str(a), "bundle", "unbundle", str(bundle))
        assert run.code != 0, (run.out, run.err)
        mine_now = world.plumb(a, "rev-parse", USER_REF)
        assert world.plumb(a, "rev-parse", f"{mine_now}:keys/scope.age") != world.plumb(
            world.remote, "rev-parse", f"{planted}:keys/scope.age"
        )

    run = world.gitmem("-C", str(a), "sync")

    assert world.plumb(world.remote, "rev-parse", USER_REF) == planted, (
        f"pushed under the planted key: {run.code} {run.out} {run.err}"
    )
    assert run.code == 3, (run.code, run.out, run.err)
    assert not _leaks(remote_objects(world.remote))


def test_the_view_page_and_the_recall_index_never_sit_where_a_commit_takes_them(
    synced: tuple[World, Path],
) -> None:
    """`gitmem view` wrote every personal memory in plaintext to ./gitmem-memory.html: in the
    working tree, untracked and not ignored, one `git add -A` from the branch (worked before).
    The page now goes to .git/gitmem/, and it and the recall index (which holds the same
    text) are readable by their owner only, as an older index is made on its next use."""
    import os
    import stat

    world, a = synced
    world.ok("-C", str(a), "query", "--search", SECRET)
    index = a / ".git" / "gitmem" / "recall.sqlite"
    os.chmod(index, 0o644)  # as an older gitmem left it
    out = world.ok("-C", str(a), "view")
    assert world.git("status", "--porcelain", "--untracked-files=all", cwd=a) == ""
    page = a / ".git" / "gitmem" / "view.html"
    assert str(page) in out and SECRET in page.read_text()
    for path in (page, index, *index.parent.glob("recall.sqlite-*")):
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path
    world.ok("-C", str(a), "view", "--out", str(world.root / "mine.html"))
    assert stat.S_IMODE((world.root / "mine.html").stat().st_mode) == 0o600


@pytest.mark.parametrize("folder", ["notes", "scratch"], ids=["tracked", "untracked"])
def test_a_committed_setting_that_moves_auto_memory_into_the_tree_never_stages_it(
    synced: tuple[World, Path], folder: str
) -> None:
    """The repository's author commits `.claude/settings.json` with `autoMemoryDirectory`
    inside the working tree (honoured in a trusted workspace). Your personal memory from your
    other machines must not land where `git add -A` publishes it: a tracked folder is left to
    git, an untracked one is excluded from git status before anything is written."""
    import json

    world, a = synced
    files = {".claude/settings.json": json.dumps({"autoMemoryDirectory": folder})}
    if folder == "notes":
        files |= {"notes/README.md": "# Notes\n", "notes/MEMORY.md": "# tracked index\n"}
    write_files(a, files)
    world.git("add", *files, cwd=a)
    world.git("commit", "-qm", "settings", cwd=a)
    world.git("push", "-q", "origin", "main", cwd=a)
    b = world.clone("b")  # the same person (one machine key), a trusted workspace
    (world.home / ".claude.json").write_text(
        json.dumps({"projects": {str(b): {"hasTrustDialogAccepted": True}}})
    )
    assert world.scope_path(b) == b / folder

    world.ok("-C", str(b), "sync")

    world.git("add", "-A", cwd=b)
    staged = world.git("diff", "--cached", "--name-only", cwd=b)
    assert staged == "", staged
    tracked = world.git("grep", "-l", SECRET, "HEAD", cwd=b, check=False)
    assert tracked == "", tracked


def test_the_default_page_is_never_written_through_a_link_in_the_git_folder(
    synced: tuple[World, Path],
) -> None:
    """A clone that came as an archive may hold `.git/gitmem` as a link to a folder of the
    packer's choosing (world-readable, synced elsewhere): the page of personal memory is
    refused there, never written through it."""
    import os

    world, a = synced
    elsewhere = world.root / "shared-folder"
    elsewhere.mkdir()
    gm = a / ".git" / "gitmem"
    os.symlink(elsewhere, gm / "view.html")
    run = world.gitmem("-C", str(a), "view")
    assert run.code == 2 and "link" in run.err, run.out + run.err
    assert list(elsewhere.iterdir()) == []
