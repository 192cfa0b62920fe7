"""gitmem key …: this machine's identity and who may open the personal ref (docs/design.md §5).

grant, revoke and rotate write one commit on the local personal ref (compare-and-swap, under
the repository lock); the next `gitmem sync` publishes it. Never prints, never exits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gitmem.errors import UsageError
from gitmem.gitstore.objects import as_tree_input
from gitmem.policy.treecheck import META_FILE, render_meta
from gitmem.privacy.codec import REFUSED_HINT, Decoded, PersonalCodec, personal_codec
from gitmem.privacy.crypto import (
    DecryptError,
    ScopeKey,
    canonical_recipient,
    create_machine_key,
    endorse,
    load_machine_key,
)
from gitmem.privacy.keymerge import make_keyring
from gitmem.privacy.layout import ENDORSEMENT_FILE, NoAccess, grant_step
from gitmem.project.scopes import Project, hostname
from gitmem.project.state import holding_lock

PUBLISH_HINT = "run gitmem sync to publish it"


@dataclass
class MachineIdentity:
    recipient: str
    where: str
    created: bool = False


@dataclass
class KeyChange:
    commit: str
    recipients: list[str]
    message: str
    notes: list[str] = field(default_factory=list)


def init_key(ssh_key: Path | None = None) -> MachineIdentity:
    """Make this machine's age identity, or adopt an SSH key; an existing identity is kept."""
    existed = load_machine_key() is not None and ssh_key is None
    key = create_machine_key(ssh_key)
    return MachineIdentity(key.recipient, key.where, created=not existed)


def show_key() -> MachineIdentity:
    key = load_machine_key()
    if key is None:
        raise UsageError(
            "this machine has no gitmem key yet",
            "run gitmem key init (or, in a clone, gitmem sync)",
        )
    return MachineIdentity(key.recipient, key.where)


def granted_elsewhere(project: Project) -> list[str]:
    """The machines the person's other user-scope stores on this machine are granted to
    (their local refs, as a sync verified them), for a store's first key: a grant is one per
    machine, not one per agent (newcomer 12: enabling a second agent asked for a second
    grant of every machine). A store this machine cannot open adds no one."""
    import os

    from gitmem.errors import GitmemError
    from gitmem.gitstore import Repository
    from gitmem.project.userscope import store_dir

    here = os.path.realpath(project.repo.common_dir)
    found: list[str] = []
    base = store_dir(os.environ)
    for store in sorted(base.glob("*.git")) if base.is_dir() else []:
        if os.path.realpath(store) == here or not (store / "HEAD").is_file():
            continue
        try:
            with Repository(store) as repo:
                found += list_recipients(project._replace(repo=repo, remote=None, hub=None))
        except GitmemError:
            continue  # not granted here, or damaged: its own sync says so
    return list(dict.fromkeys(found))


def list_recipients(project: Project) -> list[str]:
    """Who may open the personal ref: only its key list is read and opened (one `ls-tree` of
    `keys/`), not the whole ref's tree and manifests."""
    from gitmem.errors import GitError
    from gitmem.privacy.crypto import open_json
    from gitmem.privacy.layout import KEY_DIR, RECIPIENTS_FILE, SCOPE_KEY_FILE

    repo = project.repo
    tip = repo.resolve(project.user_ref)
    fetched = tip is None and project.remote is not None
    if fetched:  # nothing synced here yet, but a sync may have fetched the remote's
        tip = repo.resolve(project.tracking_ref(project.user_ref))
    if tip is None:
        return []
    try:
        listed = repo.list_tree(f"{tip}:{KEY_DIR}")
    except GitError:
        return []  # no key list: a plaintext personal ref
    keyfiles = {f"{KEY_DIR}/{path}": entry.oid for path, entry in listed.items()}
    if SCOPE_KEY_FILE not in keyfiles or RECIPIENTS_FILE not in keyfiles:
        return []
    try:
        key = personal_codec(repo, project.user_ref).unlock(keyfiles[SCOPE_KEY_FILE])
    except NoAccess:
        label = project.route(project.user_ref).label if fetched else None
        raise _not_granted(project, label) from None
    try:
        return list(
            open_json(key, RECIPIENTS_FILE, repo.read_blob(keyfiles[RECIPIENTS_FILE], keep=True))
        )
    except ValueError:
        raise DecryptError(
            f"{RECIPIENTS_FILE} in commit {tip[:12]} of {project.user_ref} does not decrypt",
            REFUSED_HINT,
        ) from None


def grant(project: Project, recipient: str) -> KeyChange:
    added = canonical_recipient(recipient)
    return _change(project, add=added)


def revoke(project: Project, recipient: str) -> KeyChange:
    try:
        removed = canonical_recipient(recipient)
    except UsageError as exc:  # the one to revoke is listed: name where, every kind it may be
        exc.hint = f"{exc.hint}, as gitmem key list{_option(project)} shows it"
        raise
    machine = load_machine_key()
    if machine is not None and canonical_recipient(machine.recipient) == removed:
        raise UsageError(
            "that is this machine's own key: revoking it would lock this machine out",
            "revoke it from another machine that has the key",
        )
    return _change(project, remove=removed)


def rotate(project: Project) -> KeyChange:
    return _change(project, rotate=True)


def _current(project: Project, codec: PersonalCodec | None = None) -> Decoded | None:
    tip = project.repo.resolve(project.user_ref)
    if tip is None:
        return None
    try:
        return (codec or personal_codec(project.repo, project.user_ref)).decode(tip)
    except NoAccess:
        raise _not_granted(project) from None


def _not_granted(project: Project, remote: str | None = None) -> UsageError:
    """This machine is not among the recipients; `remote`: the key exists only there so far."""
    machine = load_machine_key()
    where = f"{project.user_ref} on {remote}" if remote else project.user_ref
    return UsageError(
        f"this machine cannot open {where}: your personal memory has a key, not granted here",
        grant_step(machine.recipient if machine else None),
    )


def _change(
    project: Project, add: str | None = None, remove: str | None = None, rotate: bool = False
) -> KeyChange:
    repo, ref = project.repo, project.user_ref
    with holding_lock(repo):
        tip = repo.resolve(ref)
        tracking = repo.resolve(project.tracking_ref(ref)) if project.remote else None
        if tracking and tracking != tip and not (tip and repo.is_ancestor(tracking, tip)):
            # a key change made on an old tip could lose to a rotation made elsewhere
            raise UsageError(
                f"{ref} is behind {project.remote}: another machine changed it since",
                "run gitmem sync first, then repeat this key command",
            )
        codec = personal_codec(repo, ref)
        decoded = _current(project, codec)  # the same codec: its manifests' generations go on
        files = dict(decoded.files) if decoded else {}
        files.setdefault(META_FILE, repo.write_blob(render_meta(project.key)))
        old = decoded.keyring if decoded else None
        machine = codec.machine(create=True)
        assert machine is not None
        me = canonical_recipient(machine.recipient)
        recipients = list(old.recipients) if old else []
        if me not in recipients and remove != me:  # never lock this machine out by accident
            recipients.insert(0, me)
        notes: list[str] = []
        if add is not None:
            if add in recipients:
                notes.append(f"{add} could already open your personal memory")
            recipients = list(dict.fromkeys([*recipients, add]))
            subject = f"gitmem: grant {_short(add)} access to personal memory"
        elif remove is not None:
            if remove not in recipients:
                raise UsageError(
                    f"{_short(remove)} is not among the recipients of {ref}",
                    f"see gitmem key list{_option(project)}",
                )
            recipients = [r for r in recipients if r != remove]
            rotate = True  # what it could open stays in history; what comes next, not
            subject = f"gitmem: revoke {_short(remove)} and rotate the personal scope key"
        else:
            subject = "gitmem: rotate the personal scope key"
        if rotate or old is None:
            key = ScopeKey.generate()
            keyring = make_keyring(repo, key, recipients, endorse(old.key, key) if old else None)
        else:
            endorsement = old.files.get(ENDORSEMENT_FILE)
            keyring = make_keyring(
                repo, old.key, recipients, repo.read_blob(endorsement) if endorsement else None
            )
        tree = repo.write_tree(as_tree_input(codec.encode(files, keyring)))
        body = f"{len(recipients)} recipient{'s' if len(recipients) != 1 else ''} on {hostname()}"
        commit = repo.write_commit(tree, [tip] if tip else [], f"{subject}\n\n{body}")
        repo.update_ref(ref, commit, tip, subject)
        codec.save()
    return KeyChange(commit, recipients, subject, notes)


def _option(project: Project) -> str:
    """` --user` for the user scope's store (userscope.user_key), whose key list is its own."""
    return " --user" if project.key.startswith("user:") else ""


def _short(recipient: str) -> str:
    parts = recipient.split()
    text = parts[1] if len(parts) > 1 else recipient
    return f"{parts[0]} …{text[-12:]}" if len(parts) > 1 else f"{text[:12]}…{text[-6:]}"
