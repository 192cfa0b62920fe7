"""The keys/ folder of a personal-ref merge (docs/design.md §5): both sides' key changes kept.

Two machines may change the keyring before either pushes (a grant here, a revoke or a rotation
there). Taking one side's keyring whole would silently undo the other's change — a revoked
machine could open what comes next. So the recipients merge like a set against the base
(added on either side: in; removed on either side: out), and when the key the merge keeps was
ever given to a removed recipient, the merge rotates to a new key, endorsed by that key, so
every machine that trusted it follows (PersonalCodec._endorsed_chain).
"""

from __future__ import annotations

from gitmem.gitstore.store import Store
from gitmem.privacy.crypto import Keyring, ScopeKey, endorse, endorsed_by, lock_scope_key, seal_json
from gitmem.privacy.layout import ENDORSEMENT_FILE, RECIPIENTS_FILE, SCOPE_KEY_FILE


def merge_keyrings(
    repo: Store,
    base: Keyring | None,
    ours: Keyring,
    theirs: Keyring,
    notes: list[str],
    ours_follows: bool = False,
) -> Keyring:
    """The keyring of a merge of `ours` (local) and `theirs` (the remote's, published).
    `ours_follows`: a chain of endorsements leads from theirs to ours through our unpushed
    commits (several rotations here since the last push)."""
    if ours.files == theirs.files:
        return theirs
    kept = ours if ours_follows else _newest(repo, ours, theirs)
    if base is None:  # unrelated histories: no base to tell a removal from an addition
        return kept
    removed = (set(base.recipients) - set(ours.recipients)) | (
        set(base.recipients) - set(theirs.recipients)
    )
    wanted = [
        r
        for r in dict.fromkeys([*kept.recipients, *theirs.recipients, *ours.recipients])
        if r not in removed
    ]
    for ring in (kept, theirs, ours):  # a side that already holds the result: no new file
        if ring.key.key_id == kept.key.key_id and set(ring.recipients) == set(wanted):
            return ring
    if removed & set(_ever_opened(base, ours, theirs, kept)):
        key = ScopeKey.generate()
        note = (
            "another machine changed your personal key while this one did too: rotated it "
            f"again so that no revoked machine can open what comes next ({len(wanted)} recipients)"
        )
        if note not in notes:
            notes.append(note)
        return make_keyring(repo, key, wanted, endorse(kept.key, key))
    endorsement = kept.files.get(ENDORSEMENT_FILE)
    return make_keyring(
        repo, kept.key, wanted, repo.read_blob(endorsement) if endorsement else None
    )


def _newest(repo: Store, ours: Keyring, theirs: Keyring) -> Keyring:
    """The key to keep: ours when it is a rotation of theirs not pushed yet, else theirs (the
    published one: concurrent rotations converge on what the remote already holds)."""
    if ours.key.key_id == theirs.key.key_id:
        return theirs
    signed = ours.files.get(ENDORSEMENT_FILE)
    if endorsed_by(theirs.key, ours.key.key_id, repo.read_blob(signed) if signed else None):
        return ours
    return theirs


def _ever_opened(base: Keyring, ours: Keyring, theirs: Keyring, kept: Keyring) -> list[str]:
    """Every recipient that was given the kept key, in any of the three keyrings."""
    return [
        r
        for ring in (base, ours, theirs)
        if ring.key.key_id == kept.key.key_id
        for r in ring.recipients
    ]


def make_keyring(
    repo: Store,
    key: ScopeKey,
    recipients: list[str],
    endorsement: bytes | None = None,
) -> Keyring:
    files = {
        SCOPE_KEY_FILE: repo.write_blob(lock_scope_key(key, recipients)),
        RECIPIENTS_FILE: repo.write_blob(seal_json(key, RECIPIENTS_FILE, recipients)),
    }
    if endorsement is not None:
        files[ENDORSEMENT_FILE] = repo.write_blob(endorsement)
    return Keyring(key, files, recipients)
