"""gitmem.privacy.crypto and gitmem.privacy.codec in process: the sealing laws, and the codec on a real repo."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.core.choices import encrypt_mode
from gitmem.errors import EXIT_GIT, UsageError
from gitmem.gitstore import Repository
from gitmem.gitstore.base import TreeEntry
from gitmem.merge.tree import as_tree_input
from gitmem.policy.rules import check_name
from gitmem.privacy.codec import PersonalCodec
from gitmem.privacy.crypto import (
    DecryptError,
    ScopeKey,
    canonical_recipient,
    create_machine_key,
    endorse,
    endorsed_by,
    lock_scope_key,
    parse_recipient,
    stored_name,
    unlock_scope_key,
)
from gitmem.privacy.keymerge import make_keyring
from gitmem.privacy.layout import NoAccess
from tests.support.world import World

KEY = ScopeKey(bytes(range(64)))
paths = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), min_size=1
).map(lambda s: "auto/" + s)


@settings(max_examples=60, deadline=None)
@given(path=paths, data=st.binary(max_size=4096))
def test_sealing_is_deterministic_and_opens_only_at_its_path(path: str, data: bytes) -> None:
    sealed = KEY.seal(path, data)
    assert sealed == KEY.seal(path, data)  # no churn: same file, same blob
    assert data not in sealed or len(data) < 4
    assert KEY.open(path, sealed) == data
    with pytest.raises(ValueError):
        KEY.open(path + "x", sealed)  # moved to another path
    with pytest.raises(ValueError):
        ScopeKey(bytes(64)).open(path, sealed)  # another key


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=512), where=st.integers(min_value=0), bit=st.integers(0, 7))
def test_any_flipped_bit_or_truncation_fails_to_open(data: bytes, where: int, bit: int) -> None:
    sealed = bytearray(KEY.seal("auto/a.md", data))
    i = where % len(sealed)
    sealed[i] ^= 1 << bit
    with pytest.raises(ValueError):
        KEY.open("auto/a.md", bytes(sealed))
    with pytest.raises(ValueError):
        KEY.open("auto/a.md", KEY.seal("auto/a.md", data)[: max(0, i - 1)])


def test_names_are_hidden_keyed_and_distinct_from_the_content_key() -> None:
    name = KEY.name("auto/MEMORY.md")
    assert len(name) == 64 and set(name) <= set("0123456789abcdef")
    assert name != ScopeKey(bytes(64)).name("auto/MEMORY.md")
    assert name != KEY.name("local/MEMORY.md")
    assert "MEMORY" not in name
    # the three derived keys are independent: the key id reveals neither
    assert KEY.key_id not in name and len(KEY.key_id) == 32
    assert ScopeKey.generate().secret != ScopeKey.generate().secret


def test_endorsement_proves_the_old_key_chose_the_new_one() -> None:
    new = ScopeKey.generate()
    proof = endorse(KEY, new)
    assert endorsed_by(KEY, new.key_id, proof)
    assert not endorsed_by(KEY, ScopeKey.generate().key_id, proof)
    assert not endorsed_by(ScopeKey.generate(), new.key_id, proof)
    assert not endorsed_by(KEY, new.key_id, None)


def test_scope_key_opens_only_for_its_recipients() -> None:
    me = create_machine_key()
    other_world_key = ScopeKey.generate()
    locked = lock_scope_key(other_world_key, [me.recipient])
    assert unlock_scope_key(locked, me).secret == other_world_key.secret
    from pyrage import x25519

    stranger = x25519.Identity.generate()
    locked = lock_scope_key(other_world_key, [str(stranger.to_public())])
    with pytest.raises(NoAccess):
        unlock_scope_key(locked, me)
    with pytest.raises(NoAccess):
        unlock_scope_key(locked, None)


def test_recipients_are_parsed_from_age_ssh_and_pub_files(tmp_path: Path) -> None:
    import subprocess

    key = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    line = (tmp_path / "id_ed25519.pub").read_text().strip()
    assert canonical_recipient(str(tmp_path / "id_ed25519.pub")) == " ".join(line.split()[:2])
    assert canonical_recipient(line) == " ".join(line.split()[:2])  # the comment is dropped
    age = create_machine_key().recipient
    assert canonical_recipient(age) == age
    for bad in ("age1notakey", "ssh-ed25519 AAAAnot", "hello", ""):
        with pytest.raises(UsageError):
            parse_recipient(bad)


def test_identity_file_is_private(tmp_path: Path) -> None:
    made = create_machine_key()
    assert Path(made.where).stat().st_mode & 0o777 == 0o600
    assert made.recipient.startswith("age1")
    assert create_machine_key().recipient == made.recipient  # kept, never replaced


@pytest.mark.parametrize(
    ("value", "mode"),
    [(None, "personal"), ("on", "personal"), ("LOCAL", "local"), ("false", "off"), ("off", "off")],
)
def test_encrypt_setting(value: str | None, mode: str) -> None:
    assert encrypt_mode(value) == mode


def test_bad_encrypt_setting_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match=r"gitmem\.encrypt"):
        encrypt_mode("sometimes")


# -- the codec on a real object store ----------------------------------------------------------


@pytest.fixture
def repo(world: World) -> Repository:
    return Repository(world.clone("a"))


def commit(repo: Repository, files: dict[str, str]) -> str:
    return repo.write_commit(repo.write_tree(as_tree_input(files)), [], "test")


def plain(repo: Repository, files: dict[str, bytes]) -> dict[str, str]:
    return {p: repo.write_blob(data) for p, data in files.items()}


def test_codec_round_trip_hides_names_and_reuses_ciphertext(repo: Repository) -> None:
    codec = PersonalCodec(repo, "refs/gitmem/users/x", ("auto", "local"))
    files = plain(repo, {"gitmem.toml": b"v", "auto/MEMORY.md": b"- a\n", "local/r/n.md": b"n\n"})
    stored = codec.encode(files, None)
    assert len(codec.notes) == 1 and "new key" in codec.notes[0]
    assert not any(p.endswith(".md") for p in stored)
    assert {"keys/scope.age", "keys/recipients", "auto/manifest", "local/manifest"} <= set(stored)
    tip = commit(repo, stored)
    fresh = PersonalCodec(repo, "refs/gitmem/users/x", ("auto", "local"))
    decoded = fresh.decode(tip)
    assert decoded.files == files and decoded.sealed == {"auto", "local"}
    assert decoded.keyring is not None
    again = fresh.encode(dict(files), decoded.keyring)
    assert again == stored  # deterministic: nothing re-written, nothing churned
    codec.save()


def test_codec_refuses_every_kind_of_tampering(repo: Repository) -> None:
    codec = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
    files = plain(repo, {"gitmem.toml": b"v", "auto/a.md": b"alpha\n", "auto/b.md": b"beta\n"})
    stored = codec.encode(files, None)
    hidden = sorted(p for p in stored if p.startswith("auto/") and p != "auto/manifest")
    forgeries = {
        "plaintext": {**stored, "auto/evil.md": repo.write_blob(b"curl | sh")},
        "moved": {**stored, hidden[0]: stored[hidden[1]]},
        "flipped": {**stored, hidden[0]: repo.write_blob(b"\x00" * 40)},
        "no manifest": {p: o for p, o in stored.items() if p != "auto/manifest"},
        "manifest swapped": {**stored, "auto/manifest": stored[hidden[0]]},
        "file removed": {p: o for p, o in stored.items() if p != hidden[0]},
    }
    for what, tree in forgeries.items():
        bad = commit(repo, tree)
        with pytest.raises(DecryptError) as caught:
            PersonalCodec(repo, "refs/gitmem/users/x", ("auto",)).decode(bad)
        assert bad[:12] in caught.value.message, what
        assert caught.value.exit_code == EXIT_GIT


def test_warm_caches_skip_no_check_that_refuses_tampering(repo: Repository) -> None:
    """The shortcuts (saved (path, ciphertext) pairs, the plaintext of a tree encoded in this
    run) apply only to exactly what was verified or written: every forgery is still refused,
    by the codec that encoded and by a fresh one reading the saved cache."""
    codec = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
    files = plain(repo, {"gitmem.toml": b"v", "auto/a.md": b"alpha\n", "auto/b.md": b"beta\n"})
    stored = codec.encode(files, None)
    codec.save()
    assert codec.decode(commit(repo, stored)).files == files
    hidden = sorted(p for p in stored if p.startswith("auto/") and p != "auto/manifest")
    forgeries = {
        "moved": {**stored, hidden[0]: stored[hidden[1]]},
        "swapped": {**stored, hidden[0]: stored[hidden[1]], hidden[1]: stored[hidden[0]]},
        "flipped": {**stored, hidden[0]: repo.write_blob(b"\x00" * 40)},
        "file removed": {p: o for p, o in stored.items() if p != hidden[0]},
        "manifest swapped": {**stored, "auto/manifest": stored[hidden[0]]},
    }
    for tree in forgeries.values():
        bad = commit(repo, tree)
        for reader in (codec, PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))):
            with pytest.raises(DecryptError, match=bad[:12]):
                reader.decode(bad)
    # a cached plaintext id whose object is gone is opened again, not trusted blindly
    gone = files["auto/a.md"]
    for store in (repo.common_dir / "objects", Path(str(repo.private_objects()))):
        (store / gone[:2] / gone[2:]).unlink(missing_ok=True)  # gitmem's own, red team 15
    assert repo.object_type(gone) is None
    fresh = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
    assert fresh.decode(commit(repo, stored)).files == files
    assert repo.read_blob(gone) == b"alpha\n"


def count_listings(repo: Repository, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The trees `repo.list_tree` is asked for from now on (a whole listing of the ref)."""
    listed: list[str] = []
    real_list_tree = repo.list_tree

    def counted(treeish: str, sizes: bool = False) -> dict[str, TreeEntry]:
        listed.append(treeish)
        return real_list_tree(treeish, sizes)

    monkeypatch.setattr(repo, "list_tree", counted)
    return listed


def test_a_decode_from_a_checked_commit_reads_only_what_differs_and_refuses_forgeries(
    repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit decoded after another of the same run is read from the two trees' changed
    folders (no listing of the whole ref), yet every forgery a whole decode refuses is refused
    (a moved, flipped, older or removed ciphertext, a swapped manifest), and an honest change
    gives what a fresh whole decode gives."""
    writer = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
    names = {f"auto/{i}.md": f"file {i}\n".encode() for i in range(20)}
    v1 = writer.encode(plain(repo, {"gitmem.toml": b"v", **names}), None)
    keyring = writer.last_keyring
    edited = {**names, "auto/3.md": b"edited\n", "auto/new.md": b"new\n"}
    del edited["auto/5.md"]
    v2_files = plain(repo, {"gitmem.toml": b"v", **edited})
    v2 = writer.encode(v2_files, keyring)
    key = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",)).decode(commit(repo, v1))
    assert key.keyring is not None
    three = "auto/" + stored_name(key.keyring.key.name("auto/3.md"))
    name7 = key.keyring.key.name("auto/7.md")
    seven = "auto/" + stored_name(name7)
    without7 = {p: o for p, o in v2.items() if p != seven}
    other = "00" if not name7.startswith("00") else "ff"
    forgeries = {
        # the layout (docs/design.md §5): one folder, one layout, each name in its subfolder
        "one name in the flat layout": {**without7, f"auto/{name7}": v2[seven]},
        "a name stored in both layouts": {**v2, f"auto/{name7}": v2[seven]},
        "moved to another subfolder": {**without7, f"auto/{other}/{name7[2:]}": v2[seven]},
        "planted in a subfolder": {**v2, "auto/ab/" + "cd" * 31: v2[seven]},
        "older ciphertext put back": {**v2, three: v1[three]},
        "moved": {**v2, seven: v2[three]},
        "flipped": {**v2, seven: repo.write_blob(b"\x00" * 40)},
        "removed": {p: o for p, o in v2.items() if p != seven},
        "manifest swapped": {**v2, "auto/manifest": v2[seven]},
        "planted": {**v2, "auto/" + "ab" * 20: v2[seven]},
        "plaintext": {**v2, "auto/evil.md": repo.write_blob(b"x")},
    }
    listed = count_listings(repo, monkeypatch)
    for what, tree in forgeries.items():
        reader = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
        reader.decode(commit(repo, v1))  # the checked commit: listed whole
        listed.clear()
        bad = commit(repo, tree)
        with pytest.raises(DecryptError, match=bad[:12]):
            reader.decode(bad)
        assert not listed, what  # refused from the changed folders alone
    reader = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
    reader.decode(commit(repo, v1))
    listed.clear()
    tip = commit(repo, v2)
    assert reader.decode(tip).files == v2_files
    assert not listed
    assert PersonalCodec(repo, "refs/gitmem/users/x", ("auto",)).decode(tip).files == v2_files
    # the next run starts from the commit this one decoded last, recorded by save()
    first = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
    first.decode(commit(repo, v1))
    first.save()
    for what, tree in forgeries.items():
        listed.clear()
        bad = commit(repo, tree)
        with pytest.raises(DecryptError, match=bad[:12]):
            PersonalCodec(repo, "refs/gitmem/users/x", ("auto",)).decode(bad)
        assert not listed, what
    assert PersonalCodec(repo, "refs/gitmem/users/x", ("auto",)).decode(tip).files == v2_files
    assert not listed
    record = repo.common_dir / "gitmem" / "decoded.json"
    for damaged in (b"{", b'{"version": 1}', record.read_bytes().replace(b"\nauto/", b"\nx/", 1)):
        record.write_bytes(damaged)  # unreadable or inconsistent: the whole ref is listed
        assert PersonalCodec(repo, "refs/gitmem/users/x", ("auto",)).decode(tip).files == v2_files


def test_a_commit_this_run_encoded_is_known_to_be_in_form_without_opening_it(
    repo: Repository,
) -> None:
    codec = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
    files = plain(repo, {"gitmem.toml": b"v", "auto/a.md": b"alpha\n"})
    tip = commit(repo, codec.encode(files, None))
    assert codec.decode(tip).files == files
    codec.save()
    fresh = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
    assert fresh.rewrite_reason(tip) is None and not fresh._decoded  # nothing opened
    # the same files in plaintext are not: the next sync re-writes them encrypted
    assert fresh.rewrite_reason(commit(repo, files)) == "encrypt auto"


@pytest.mark.parametrize("wanted", [(), ("local",), ("auto",), ("auto", "local")])
def test_the_form_read_from_folder_names_is_the_decoded_form(
    repo: Repository, wanted: tuple[str, ...]
) -> None:
    """rewrite_reason of a tip not opened in this run reads the folders' names (no listing
    of the whole tip): the same answer as from the decoded tip, for every layout."""
    layouts = {
        "plain": {"gitmem.toml": b"v", "auto/a.md": b"a\n", "local/r/n.md": b"n\n"},
        "auto only": {"gitmem.toml": b"v", "auto/a.md": b"a\n"},
        "nothing": {"gitmem.toml": b"v"},
    }
    for sealing in [(), ("auto",), ("local",), ("auto", "local")]:
        writer = PersonalCodec(repo, "refs/gitmem/users/x", sealing)
        for files in layouts.values():
            full = commit(repo, writer.encode(plain(repo, files), None))
            # and the same with every file removed: a sealed folder keeps an empty manifest
            emptied = writer.encode(plain(repo, {"gitmem.toml": b"v"}), writer.last_keyring)
            for tip in (full, commit(repo, emptied)):
                by_names = PersonalCodec(repo, "refs/gitmem/users/x", wanted).rewrite_reason(tip)
                opened = PersonalCodec(repo, "refs/gitmem/users/x", wanted)
                opened.decode(tip)
                assert by_names == opened.rewrite_reason(tip), (sealing, files, tip == full)


def test_verify_refuses_plaintext_and_unendorsed_keys_after_encryption(repo: Repository) -> None:
    codec = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
    files = plain(repo, {"gitmem.toml": b"v", "auto/a.md": b"alpha\n"})
    ours = commit(repo, codec.encode(files, None))
    ring = codec.decode(ours).keyring
    assert ring is not None
    plaintext = commit(repo, files)
    with pytest.raises(DecryptError, match="plaintext"):
        codec.verify(plaintext, ours)
    machine = codec.machine()
    assert machine is not None
    # a teammate makes a key of their own, encrypted to our public recipient: refused
    rogue = make_keyring(repo, ScopeKey.generate(), [machine.recipient])
    forged = commit(repo, codec.encode(dict(files), rogue))
    with pytest.raises(DecryptError, match="did not endorse"):
        codec.verify(forged, ours)
    # a rotation endorsed by our key is accepted
    new = ScopeKey.generate()
    rotated = make_keyring(repo, new, ring.recipients, endorse(ring.key, new))
    assert codec.verify(commit(repo, codec.encode(dict(files), rotated)), ours).files == files


names = st.text(
    st.characters(whitelist_categories=("Ll", "Lu", "Nd", "Lo"), whitelist_characters="-_ é😀"),
    min_size=1,
    max_size=12,
).filter(lambda n: n.strip(" .") == n)
trees = st.dictionaries(
    st.tuples(st.sampled_from(["auto", "local"]), st.lists(names, min_size=0, max_size=2), names)
    .map(lambda t: "/".join([t[0], *t[1], t[2] + ".md"]))
    .filter(lambda p: not check_name(p)),  # a name any OS holds (no `LPT0.md`: GM101)
    st.binary(max_size=300),
    min_size=1,
    max_size=8,
)


@settings(max_examples=25, deadline=None)
@given(files=trees)
def test_codec_round_trips_any_tree_and_hides_every_name(files: dict[str, bytes]) -> None:
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:  # a fresh repository for each example
        subprocess.run(["git", "init", "-q", tmp], check=True)
        repo = Repository(Path(tmp))
        codec = PersonalCodec(repo, "refs/gitmem/users/x", ("auto", "local"))
        plain_files = plain(repo, files)
        stored = codec.encode(dict(plain_files), None)
        for path in files:  # no file name reaches the tree (folders: hidden in the hex names)
            leaf = path.rsplit("/", 1)[-1]
            assert not any(leaf in p for p in stored)
        tip = commit(repo, stored)
        decoded = PersonalCodec(repo, "refs/gitmem/users/x", ("auto", "local")).decode(tip)
        assert decoded.files == plain_files
        assert codec.encode(dict(decoded.files), decoded.keyring) == stored


def test_machines_first_identity_made_by_many_gitmems_at_once_is_one_identity() -> None:
    import os
    import subprocess
    import sys

    code = "from gitmem.privacy.crypto import create_machine_key as c; print(c().recipient)"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code], stdout=subprocess.PIPE, env=os.environ.copy()
        )
        for _ in range(6)
    ]
    recipients = {p.communicate()[0].decode().strip() for p in procs}
    assert len(recipients) == 1, recipients
    assert recipients == {create_machine_key().recipient}


@settings(max_examples=15, deadline=None)
@given(
    count=st.integers(1, 400),
    edits=st.lists(st.tuples(st.integers(0, 450), st.sampled_from("mad")), max_size=12),
)
def test_the_manifest_in_shards_changes_and_opens_only_the_buckets_edited(
    count: int, edits: list[tuple[int, str]]
) -> None:
    """A sealed folder's manifest is a record and one shard per non-empty bucket of hidden
    names (gitmem/privacy/shards.py): an encode re-writes only the shards of the buckets it
    edited, a decode from a commit it checked opens only those, and what it gives is what a
    whole decode gives; an older shard put back is refused."""
    import subprocess
    import tempfile

    from gitmem.privacy import codec as codec_module
    from gitmem.privacy.shards import open_shards as real
    from gitmem.privacy.shards import shard_name, shard_of

    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["git", "init", "-q", tmp], check=True)
        repo = Repository(Path(tmp))
        files = {f"auto/{i}.md": f"file {i}\n".encode() for i in range(count)}
        writer = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
        v1 = writer.encode(plain(repo, {"gitmem.toml": b"v", **files}), None)
        ring = writer.last_keyring
        assert ring is not None
        key = ring.key
        after = dict(files)
        for i, how in edits:
            path = f"auto/{i}.md"
            if how == "d":
                after.pop(path, None)
            else:
                after[path] = f"{how} {i}\n".encode()
        v2_files = plain(repo, {"gitmem.toml": b"v", **after})
        v2 = writer.encode(v2_files, ring)

        def stored(tree: dict[str, str], paths: dict[str, bytes]) -> dict[str, str]:
            buckets = {shard_of(key.name(p)) for p in paths}
            return {b: tree[f"auto/{stored_name(shard_name(key, 'auto', b))}"] for b in buckets}

        s1, s2 = stored(v1, files), stored(v2, after)
        edited = {shard_of(key.name(p)) for p in files.keys() ^ after.keys()}
        edited |= {
            shard_of(key.name(p)) for p in files.keys() & after.keys() if files[p] != after[p]
        }
        assert {b for b in s1.keys() | s2.keys() if s1.get(b) != s2.get(b)} == edited & (
            s1.keys() | s2.keys()
        )
        assert len(v2) == len(after) + len(s2) + 1 + len(ring.files) + 1  # and gitmem.toml

        opened: list[str] = []

        def counted(
            repo_: Repository, key_: ScopeKey, prefix: str, wanted: Mapping[str, str]
        ) -> tuple[dict[str, str], dict[str, str]]:
            opened.extend(wanted)
            return real(repo_, key_, prefix, wanted)

        c1, c2 = commit(repo, v1), commit(repo, v2)
        reader = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
        reader.decode(c1)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(codec_module, "open_shards", counted)
            assert reader.decode(c2).files == v2_files
        assert set(opened) == {b for b in s2 if s1.get(b) != s2[b]}
        fresh = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
        assert fresh.decode(c2).files == v2_files
        for b in sorted(b for b in s1.keys() & s2.keys() if s1[b] != s2[b])[:2]:
            older = {**v2, f"auto/{stored_name(shard_name(key, 'auto', b))}": s1[b]}
            for decoder in (PersonalCodec(repo, "refs/gitmem/users/x", ("auto",)), reader):
                with pytest.raises(DecryptError, match="lists a part"):
                    decoder.decode(commit(repo, older))


def test_the_decoded_record_takes_a_journal_of_what_moved_and_reads_as_a_whole_one(
    repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that decodes a commit near the recorded one writes what moved (decoded-journal
    .json), not the whole record; the next run starts from both, without listing the ref; a
    journal over another record file, or a damaged one, is not read (the record alone is a
    commit checked before: still a start)."""
    writer = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
    names = {f"auto/{i}.md": f"file {i}\n".encode() for i in range(60)}
    v1 = writer.encode(plain(repo, {"gitmem.toml": b"v", **names}), None)
    keyring = writer.last_keyring
    edited = {**names, "auto/3.md": b"edited\n", "auto/new.md": b"new\n"}
    del edited["auto/5.md"]
    v2_files = plain(repo, {"gitmem.toml": b"v", **edited})
    c1, c2 = commit(repo, v1), commit(repo, writer.encode(v2_files, keyring))
    first = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
    first.decode(c1)
    first.save()
    record = repo.common_dir / "gitmem" / "decoded.json"
    journal = repo.common_dir / "gitmem" / "decoded-journal.json"
    whole = record.read_bytes()
    second = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
    assert second.decode(c2).files == v2_files
    second.save()
    assert record.read_bytes() == whole  # the record left alone, the 3 moved in the journal
    moved = json.loads(journal.read_bytes())["opened"]["auto"]
    assert moved[2].count("\0") == 2 * 4 - 1 and moved[3] == ["auto/5.md"]  # 3.md, new.md
    listed = count_listings(repo, monkeypatch)
    third = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
    assert third._load_base() is not None and third._stored_tree == repo.read_commit(c2)[0]
    assert PersonalCodec(repo, "refs/gitmem/users/x", ("auto",)).decode(c2).files == v2_files
    assert not listed
    # over another record file (the same bytes: an older gitmem re-wrote it): not read
    record.unlink()
    record.write_bytes(whole)
    fourth = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
    assert fourth._load_base() is not None and fourth._stored_tree == repo.read_commit(c1)[0]
    assert PersonalCodec(repo, "refs/gitmem/users/x", ("auto",)).decode(c2).files == v2_files
    for damaged in (b"{", b'{"version": 1}', journal.read_bytes()[:-9]):
        journal.write_bytes(damaged)
        assert PersonalCodec(repo, "refs/gitmem/users/x", ("auto",)).decode(c2).files == v2_files


def test_the_caches_naming_personal_files_are_readable_by_the_user_alone(
    repo: Repository,
) -> None:
    """The cipher cache, its journal and form, the decoded record and its journal hold the
    personal files' names: written 0600, new or not (one an older gitmem left 0644 is
    tightened when it is next written)."""
    import stat

    folder = repo.common_dir / "gitmem"
    folder.mkdir(parents=True, exist_ok=True)
    older = [folder / "cipher-cache.json", folder / "decoded.json"]
    for path in older:  # as an older gitmem left them
        path.write_bytes(b"{}")
        path.chmod(0o644)
    writer = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
    names = {f"auto/{i}.md": f"file {i}\n".encode() for i in range(20)}
    v1 = writer.encode(plain(repo, {"gitmem.toml": b"v", **names}), None)
    c1 = commit(repo, v1)
    edited = plain(repo, {"gitmem.toml": b"v", **names, "auto/3.md": b"e\n"})
    v2 = writer.encode(edited, writer.last_keyring)
    writer.save()
    c2 = commit(repo, v2)
    for tip in (c1, c2):  # the record, then a journal over it
        reader = PersonalCodec(repo, "refs/gitmem/users/x", ("auto",))
        reader.decode(tip)
        reader.save()
    written = {
        p.name: stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir() if p.suffix == ".json"
    }
    assert set(written) >= {
        "cipher-cache.json",
        "cipher-journal.json",
        "cipher-form.json",
        "decoded.json",
        "decoded-journal.json",
    }
    assert set(written.values()) == {0o600}, written


def test_verify_from_the_record_refuses_what_a_decode_of_the_pinned_commit_refuses(
    repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fetched commit is verified against the last run's record where it holds the pinned
    tree (one decode, not two: the pinned commit is not opened), and refuses the same class a
    decode of the pinned commit refuses — plaintext where we seal, an older manifest put back,
    a key ours did not endorse — while an endorsed rotation and an honest edit pass; the
    content check reads only the files whose plaintext the decode did not carry from local's,
    and still refuses a blocked one among them."""
    from gitmem.errors import UntrustedTreeError

    ref = "refs/gitmem/users/x"
    writer = PersonalCodec(repo, ref, ("auto",))
    names = {f"auto/{i}.md": f"---\nname: n{i}\n---\nfile {i}\n".encode() for i in range(40)}
    v1_files = plain(repo, {"gitmem.toml": b"v", **names})
    older = commit(repo, writer.encode(v1_files, None))
    ring = writer.last_keyring
    assert ring is not None
    v2_files = plain(repo, {"gitmem.toml": b"v", **names, "auto/3.md": b"---\nname: e\n---\n"})
    pinned = commit(repo, writer.encode(v2_files, ring))
    edited = {**v2_files, "auto/4.md": repo.write_blob(b"---\nname: f\n---\nfour\n")}
    honest = commit(repo, writer.encode(edited, ring))
    binary = {**v2_files, "auto/4.md": repo.write_blob(b"\x00\x01binary\xff" * 8)}
    blocked = commit(repo, writer.encode(binary, ring))
    machine = writer.machine()
    assert machine is not None
    rogue = commit(
        repo,
        writer.encode(dict(v2_files), make_keyring(repo, ScopeKey.generate(), [machine.recipient])),
    )
    new = ScopeKey.generate()
    rotated = make_keyring(repo, new, ring.recipients, endorse(ring.key, new))
    endorsed = commit(repo, writer.encode(dict(v2_files), rotated))
    leaked = commit(repo, v2_files)

    def recorded() -> PersonalCodec:
        (repo.common_dir / "gitmem" / "decoded.json").unlink(missing_ok=True)
        (repo.common_dir / "gitmem" / "decoded-journal.json").unlink(missing_ok=True)
        first = PersonalCodec(repo, ref, ("auto",))
        first.decode(pinned)
        first.save()
        return PersonalCodec(repo, ref, ("auto",))

    for bad, why in ((leaked, "plaintext"), (older, "older state"), (rogue, "did not endorse")):
        with pytest.raises(DecryptError, match=why):
            recorded().verify(bad, pinned)
    codec = recorded()
    assert codec.verify(endorsed, pinned).files == v2_files
    checked: list[str] = []
    import gitmem.policy.rules as rules

    real = rules.check_content

    def counted(path: str, data: bytes, *args: bool) -> list[rules.Finding]:
        checked.append(path)
        return real(path, data, *args)

    monkeypatch.setattr(rules, "check_content", counted)
    codec = recorded()
    assert codec.check_fetched(honest, pinned, pinned, "here") is not None
    assert pinned not in codec._decoded  # the record served as the pinned commit
    assert codec.decode(honest).files == edited
    assert checked == ["auto/4.md"]
    with pytest.raises(UntrustedTreeError, match=r"auto/4\.md"):
        recorded().check_fetched(blocked, pinned, pinned, "here")
    # local elsewhere than the decode's start: every file not in local's is checked
    checked.clear()
    assert recorded().check_fetched(honest, pinned, older, "here") is not None
    assert sorted(checked) == ["auto/3.md", "auto/4.md"]


def test_the_decoded_record_damaged_planted_or_older_is_rebuilt_never_trusted(
    repo: Repository,
) -> None:
    """The record (its JSON head's line, then each folder's rows) is a start only when it
    reads whole and consistent: cut short, a length that does not add up, rows no folder
    claims, a row moved into another folder, an older gitmem's (version 4, all in JSON) —
    each is set aside, the ref decoded whole (the same plaintext), and the record re-written
    in this version; a planted row (a plaintext id for a ciphertext it is not) is not
    believed: the file is opened from its ciphertext where the manifest moved it."""
    ref = "refs/gitmem/users/x"
    writer = PersonalCodec(repo, ref, ("auto",))
    names = {f"auto/{i}.md": f"file {i}\n".encode() for i in range(30)}
    v1 = commit(repo, writer.encode(plain(repo, {"gitmem.toml": b"v", **names}), None))
    edited = plain(repo, {"gitmem.toml": b"v", **names, "auto/3.md": b"edited\n"})
    v2 = commit(repo, writer.encode(edited, writer.last_keyring))
    first = PersonalCodec(repo, ref, ("auto",))
    first.decode(v1)
    first.save()
    record = repo.common_dir / "gitmem" / "decoded.json"
    whole = record.read_bytes()
    head, _, body = whole.partition(b"\n")
    value = json.loads(head)
    assert value["version"] == 5 and value["opened"]["auto"][2] == len(body.decode())
    longer = json.loads(head)
    longer["opened"]["auto"][2] += 1
    v4 = {**value, "version": 4}
    v4["opened"] = {
        "auto": [*value["opened"]["auto"][:2], body.decode(), *value["opened"]["auto"][3:]]
    }
    damaged = {
        "cut short": whole[: len(whole) - 50],
        "a length beyond the rows": json.dumps(longer).encode() + b"\n" + body,
        "rows no folder claims": whole + b"\0auto/x.md\0" + b"ab" * 32 + b"\0" + b"c" * 80,
        "a row of another folder": whole.replace(b"\nauto/", b"\nauti/", 1),
        "not UTF-8": whole[:-3] + b"\xff\xfe\xfd",
        "version 4": json.dumps(v4).encode(),
    }
    for what, data in damaged.items():
        record.write_bytes(data)
        codec = PersonalCodec(repo, ref, ("auto",))
        assert codec._load_base() is None, what
        again = PersonalCodec(repo, ref, ("auto",))
        assert again.decode(v2).files == edited, what
        again.save()
        assert json.loads(record.read_bytes().partition(b"\n")[0])["version"] == 5, what
        record.write_bytes(whole)
    # planted: 3.md's plaintext id said to be 4.md's; its ciphertext moved in v2, so the
    # decode opens it and the plant is not what comes out
    cells = body.decode().split("\0")
    at = cells.index("auto/3.md")
    cells[at + 3] = edited["auto/4.md"]
    planted = "\0".join(cells)
    value["opened"]["auto"][2] = len(planted)
    record.write_bytes(json.dumps(value).encode() + b"\n" + planted.encode())
    assert PersonalCodec(repo, ref, ("auto",)).decode(v2).files == edited
