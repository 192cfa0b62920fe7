"""gitmem.privacy.keys in process: grant, revoke, rotate and list on a real clone's personal ref."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyrage import x25519

from gitmem.errors import UsageError
from gitmem.gitstore import Repository
from gitmem.privacy import keys
from gitmem.privacy.codec import personal_codec
from gitmem.privacy.crypto import hidden_name
from gitmem.privacy.layout import SCOPE_KEY_FILE
from gitmem.project.scopes import Project, open_project
from tests.support.personal import shard_paths
from tests.support.world import World


@pytest.fixture
def project(world: World) -> Project:
    clone = world.clone("a")
    project = open_project(Repository(clone))
    auto = project.scope("auto").path
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_text("- [A](a.md) — a\n")
    (auto / "a.md").write_text("alpha\n")
    return project


def tip_files(project: Project) -> dict[str, str]:
    tip = project.repo.resolve(project.user_ref)
    assert tip is not None
    return personal_codec(project.repo, project.user_ref).decode(tip).files


def test_grant_adds_a_recipient_without_re_encrypting_files(project: Project) -> None:
    assert keys.list_recipients(project) == []
    other = str(x25519.Identity.generate().to_public())
    first = keys.grant(project, other)
    me = keys.show_key().recipient
    assert first.recipients == [me, other]
    assert keys.list_recipients(project) == [me, other]
    again = keys.grant(project, other)
    assert again.notes and "already" in again.notes[0]
    repo = project.repo
    old, new = (
        repo.resolve(f"{first.commit}:{SCOPE_KEY_FILE}"),
        repo.resolve(f"{again.commit}:{SCOPE_KEY_FILE}"),
    )
    assert old != new  # age is randomized: a new file, the same scope key inside


def test_revoke_rotates_and_refuses_to_lock_this_machine_out(project: Project) -> None:
    from gitmem.sync import SyncOptions, run_sync

    other = str(x25519.Identity.generate().to_public())
    keys.grant(project, other)
    run_sync(project, SyncOptions(mode="sync"))
    before = tip_files(project)
    names_before = set(project.repo.list_tree(project.user_ref))
    shards_before = shard_paths(project.root, project.user_ref, "auto")
    change = keys.revoke(project, other)
    assert "revoke" in change.message and "rotate" in change.message
    assert other not in keys.list_recipients(project)
    assert tip_files(project) == before  # the same memory…
    names_after = set(project.repo.list_tree(project.user_ref))
    hidden_before = {n for n in names_before if n.startswith("auto/") and hidden_name(n[5:])}
    assert shards_before and shards_before <= hidden_before  # the manifest's shards hide too
    assert len(hidden_before - shards_before) == 2  # the two files…
    assert not hidden_before & names_after  # …and every shard, under new names
    with pytest.raises(UsageError, match="lock this machine out"):
        keys.revoke(project, keys.show_key().recipient)
    with pytest.raises(UsageError, match="not among the recipients"):
        keys.revoke(project, other)
    with pytest.raises(UsageError):
        keys.grant(project, "not-a-key")


def test_rotation_commit_says_what_happened_and_is_endorsed(project: Project) -> None:
    from gitmem.sync import SyncOptions, run_sync

    run_sync(project, SyncOptions(mode="sync"))
    old_tip = project.repo.resolve(project.user_ref)
    assert old_tip is not None
    change = keys.rotate(project)
    _, _, message = project.repo.read_commit(change.commit)
    assert message.startswith("gitmem: rotate the personal scope key")
    codec = personal_codec(project.repo, project.user_ref)
    # a machine still on the old key accepts the rotated commit: the old key endorsed the new
    assert codec.verify(change.commit, old_tip).files == codec.decode(old_tip).files


def test_key_show_without_a_key_says_how_to_make_one() -> None:
    with pytest.raises(UsageError, match="no gitmem key"):
        keys.show_key()
    made = keys.init_key()
    assert made.created and keys.show_key().recipient == made.recipient


def test_adopting_an_ssh_key_later_keeps_access_granted_to_the_age_identity(
    project: Project, tmp_path: Path
) -> None:
    import subprocess

    from gitmem.sync import SyncOptions, run_sync

    run_sync(project, SyncOptions(mode="sync"))  # encrypted to this machine's age identity
    age_recipient = keys.show_key().recipient
    key = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    adopted = keys.init_key(key)
    assert adopted.recipient.startswith("ssh-ed25519 ")
    assert "auto/a.md" in tip_files(project)  # the age identity still opens the scope key
    change = keys.rotate(project)
    assert change.recipients[0] == adopted.recipient and age_recipient in change.recipients
    assert "auto/a.md" in tip_files(project)


def test_two_rotations_before_another_machine_syncs_are_a_chain_it_follows(
    project: Project,
) -> None:
    from gitmem.merge.tree import as_tree_input
    from gitmem.privacy.crypto import DecryptError, ScopeKey
    from gitmem.privacy.keymerge import make_keyring
    from gitmem.sync import SyncOptions, run_sync

    run_sync(project, SyncOptions(mode="sync"))
    old_tip = project.repo.resolve(project.user_ref)
    assert old_tip is not None
    keys.rotate(project)
    second = keys.rotate(project).commit
    third = keys.rotate(project).commit
    fresh = personal_codec(project.repo, project.user_ref)  # what a machine still on the old key
    assert fresh.verify(second, old_tip).files == fresh.decode(old_tip).files
    assert fresh.verify(third, old_tip).files == fresh.decode(old_tip).files
    # a key no trusted key endorsed, on top of the chain, is refused as forged
    codec = personal_codec(project.repo, project.user_ref)
    decoded = codec.decode(third)
    assert decoded.keyring is not None
    forged_ring = make_keyring(project.repo, ScopeKey.generate(), decoded.keyring.recipients)
    forged_files = codec.encode(dict(decoded.files), forged_ring)
    forged_tree = project.repo.write_tree(as_tree_input(forged_files))
    forged = project.repo.write_commit(forged_tree, [third], "gitmem: 1 file changed")
    with pytest.raises(DecryptError, match="did not endorse"):
        personal_codec(project.repo, project.user_ref).verify(forged, old_tip)


def test_log_and_restore_follow_a_memory_across_key_rotations(project: Project) -> None:
    from gitmem.history.versions import memory_log, restore, versions
    from gitmem.sync import SyncOptions, run_sync

    topic = project.scope("auto").path / "a.md"
    run_sync(project, SyncOptions(mode="sync"))  # alpha, under the first key
    first = project.repo.resolve(project.user_ref)
    assert first is not None
    keys.rotate(project)
    topic.write_text("beta\n")
    run_sync(project, SyncOptions(mode="sync"))  # beta, under the second key
    keys.rotate(project)
    topic.write_text("gamma\n")
    run_sync(project, SyncOptions(mode="sync"))  # gamma, under the third
    seen = [data for _, data in versions(project, "auto/a.md") if data is not None]
    assert list(dict.fromkeys(seen)) == [b"gamma\n", b"beta\n", b"alpha\n"]
    commits = {row["commit"] for row in memory_log(project, "auto/a.md", None)}
    assert first in commits
    restore(project, "auto/a.md", first[:12], force=False)
    assert topic.read_text() == "alpha\n"
    topic.unlink()
    restore(project, "auto/a.md", None, force=False)  # the newest version: gamma
    assert topic.read_text() == "gamma\n"


def test_a_key_change_sees_a_fetch_that_landed_after_the_refs_were_first_read(
    project: Project, world: World
) -> None:
    """Refs this process read before it took the lock (opening the project does) are another
    command's past: a `status --fetch` that brought a key change made elsewhere in between
    must still stop a key change made on the old tip."""
    from gitmem.sync import SyncOptions, run_sync

    keys.grant(project, str(x25519.Identity.generate().to_public()))
    run_sync(project, SyncOptions(mode="sync"))
    repo = project.repo
    assert isinstance(repo, Repository)  # the git store's cached listing
    tip = repo.resolve(project.user_ref)
    tracking = project.tracking_ref(project.user_ref)
    assert tip is not None and repo.our_refs()[tracking] == tip  # read before the lock
    elsewhere = world.git(
        "commit-tree", f"{tip}^{{tree}}", "-p", tip, "-m", "rotated elsewhere", cwd=repo.git_dir
    ).strip()
    world.git("update-ref", tracking, elsewhere, tip, cwd=repo.git_dir)  # another process
    with pytest.raises(UsageError, match="behind"):
        keys.grant(project, str(x25519.Identity.generate().to_public()))
    assert repo.resolve(project.user_ref) == tip, "no key change on the old tip"
