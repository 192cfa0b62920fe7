"""The personal ref as sync sees it: plaintext to merge, ciphertext on the ref (docs/design.md §5).

`PersonalCodec.decode` turns a commit of the personal ref into plaintext files (refusing any
blob that does not open); `encode` turns merged plaintext back into the tree the ref holds.
Sync merges plaintext with the same engine as any other scope. Ciphertext ids are cached by
(path, plaintext id), so an unchanged file is neither re-encrypted nor re-decrypted.
"""

from collections.abc import Callable
from typing import NamedTuple

from gitmem.core import jsondata
from gitmem.core.limits import MAX_BLOB_BYTES
from gitmem.core.statedir import state_dir
from gitmem.errors import GitmemError
from gitmem.gitstore.objects import blobs
from gitmem.gitstore.store import Store
from gitmem.gitstore.treediff import Change
from gitmem.policy.rules import MAX_DEPTH, Finding, blocking, check_name
from gitmem.policy.treecheck import MAX_TREE_BYTES
from gitmem.privacy.ciphercache import PRIVATE, CipherCache, file_stamp
from gitmem.privacy.crypto import (
    FAN_CHARS,
    FANNED,
    FLAT,
    MIXED,
    DecryptError,
    Keyring,
    MachineKey,
    ScopeKey,
    create_machine_key,
    endorsed_by,
    hidden_name,
    load_machine_key,
    open_json,
    split_tree,
    stored_name,
    unlock_scope_key,
)
from gitmem.privacy.firstcontact import first_contact
from gitmem.privacy.keymerge import make_keyring
from gitmem.privacy.layout import (
    ENDORSEMENT_FILE,
    KEY_DIR,
    MANIFEST,
    PERSONAL_PREFIXES,
    RECIPIENTS_FILE,
    SCOPE_KEY_FILE,
    NoAccess,
)
from gitmem.privacy.rollback import read_manifest, rollback_hint, rolled_back
from gitmem.privacy.sealedfolders import form_change, tip_folders, wanted_prefixes
from gitmem.privacy.shards import (
    SHARD_CHARS,
    buckets,
    is_sharded,
    open_record,
    open_shards,
    read_record,
    seal_record,
    seal_shards,
    shard_name,
)

NOTE_PREFIX = "sealed:"
MAX_ROTATIONS = 64  # key changes followed back to the last key this machine trusted
# manifests of a folder read back from the ref's history when a seal starts where no commit
# decoded in the run sealed it (encryption back on): the newest of them is where it continues
MAX_HISTORY_MANIFESTS = 32
MAX_KEYS_FOLLOWED = 256  # key files (grants, rotations) whose names `log PATH` follows
# a decode reads what changed since a commit decoded in the same run when at most this many
# files differ; more, and the tree is listed whole
MAX_INCREMENTAL = 4096
# a decode that checks at most this many entries opens them without reading the cipher cache
FEW_UNCACHED = 64
# the last commit decoded, as checked (under the state folder): the next run's first decode
# reads what differs from it instead of the whole ref
DECODED_FILE = "decoded.json"
# what changed since DECODED_FILE was written (stamped with it): a pull that moves 10 files of
# 10,000 writes their rows, not the whole record (1.9 MB); the record is re-written when the
# journal passes an eighth of it
DECODED_JOURNAL = "decoded-journal.json"
# 3: a folder's entries as NUL-joined rows, its manifest's shards; 4: and its layout; 5: the
# rows after the JSON head's line, as UTF-8 (no JSON string to unescape: 40,000 NULs written
# `\u0000` cost a pull ~3 ms to parse), the head giving each folder's length in characters
DECODED_VERSION = 5
NOTE_AD = "gitmem commit note"
FIRST_PLAINTEXT_HINT = (
    "nothing was written. If it is yours (gitmem.encrypt off on another machine, or a gitmem "
    "from before encryption), run gitmem sync once on a machine that synced it before (that "
    "encrypts it), or gitmem config encrypt off here; if not, delete it on the remote"
)
REFUSED_HINT = (
    "someone with push access rewrote your personal ref; nothing was written. "
    "Inspect it with git log, then run gitmem sync again once it is repaired"
)
# plaintext where this machine encrypted before: most often the user's own other clone or
# machine with `gitmem config encrypt off`, whose sync re-sealed nothing (a newcomer was told
# only of an attacker, and had no way out). Encryption back on there seals above the
# generation this machine synced (round 20): a sync here then takes it, no steps here.
DOWNGRADE_HINT = (
    "nothing was written. If it is yours (gitmem config encrypt off in another clone or on "
    "another machine): run gitmem config --unset encrypt and gitmem sync there (that encrypts "
    "it again), then gitmem sync here. If not, someone with push access rewrote your personal "
    "ref: inspect it with git log"
)


class Opened:
    """One sealed folder as a decode checked it: what the next decode of a commit near it
    takes as checked where nothing differs. (A plain class, as the other records of a pull
    and a push: making a dataclass, and importing `dataclasses` with `inspect`, cost more
    than its work; docs/history/performance.md, the `pullpush2` section.)"""

    def __init__(
        self,
        manifest: str,
        gen: int,
        listed: dict[str, str],
        ciphers: dict[str, str],
        plain: dict[str, str],
        shards: dict[str, tuple[str, str]] | None = None,
        stored: bool = False,
        fanned: bool = True,
    ) -> None:
        self.manifest = manifest  # the manifest's blob id
        self.gen = gen
        self.listed = listed  # path -> hidden name
        self.ciphers = ciphers  # path -> ciphertext id (each checked against the manifest)
        self.plain = plain  # path -> plaintext id
        # bucket -> (hidden name, ciphertext id) of the manifest's shards (empty: one blob,
        # formats 1 and 2; gitmem/privacy/shards.py)
        self.shards: dict[str, tuple[str, str]] = {} if shards is None else shards
        # read from the last run's record (DECODED_FILE): its plaintexts are not yet known to
        # this run's restorer (a plaintext pruned by gc is opened again from its ciphertext)
        self.stored = stored
        self.fanned = fanned  # its hidden names stored as `ab/<62 hex>` (False: flat, older)


class Split(NamedTuple):
    """A tree of the personal ref as `split_tree` gives it: the files outside sealed folders
    (path -> blob id), each sealed folder's entries (hidden name, or another name as stored,
    -> blob id) and its layout."""

    rest: dict[str, str]
    parts: dict[str, dict[str, str]]
    layouts: dict[str, str]

    def listing(self) -> dict[str, str]:
        """The tree's files again: path -> blob id."""
        out = dict(self.rest)
        for prefix, names in self.parts.items():
            fanned = self.layouts.get(prefix) == FANNED
            out.update(
                {
                    f"{prefix}/{stored_name(n) if fanned and len(n) == 64 else n}": o
                    for n, o in names.items()
                }
            )
        return out

    def changed(self, changes: list[Change]) -> "Split | None":
        """This split with `changes` (a tree diff from its tree) applied, the entries that did
        not change copied in C; None where the changes could make `split_tree` answer
        otherwise than by entry (a sealed folder gained or lost its manifest, or an entry in
        the other layout): the caller splits the whole listing then."""
        rest = dict(self.rest)
        parts = {p: dict(n) for p, n in self.parts.items()}
        touched: set[str] = set()
        for change in changes:
            top, _, rel = change.path.partition("/")
            names = parts.get(top)
            if names is None:
                if top in PERSONAL_PREFIXES and rel == MANIFEST:
                    return None  # a folder sealed now: split whole
                if change.new is None:
                    rest.pop(change.path, None)
                else:
                    rest[change.path] = change.new.oid
                continue
            if rel == MANIFEST and change.new is None:
                return None  # no longer sealed
            if len(rel) == 65 and rel[FAN_CHARS] == "/":
                if self.layouts[top] != FANNED:
                    return None
                rel = rel[:FAN_CHARS] + rel[FAN_CHARS + 1 :]
            elif len(rel) == 64 and self.layouts[top] != FLAT:
                return None
            touched.add(top)
            if change.new is None:
                names.pop(rel, None)
            else:
                names[rel] = change.new.oid
        for top in touched:  # a fanned folder whose fanned entries are all gone is flat
            if self.layouts[top] == FANNED and not any(len(n) == 64 for n in parts[top]):
                return None
        return Split(rest, parts, dict(self.layouts))


class Decoded:
    def __init__(
        self,
        files: dict[str, str],
        keyring: Keyring | None,
        sealed: frozenset[str] = frozenset(),
        gens: dict[str, int] | None = None,
        manifests: dict[str, str] | None = None,
        tree: str = "",
        split: Split | None = None,
        opened: dict[str, Opened] | None = None,
        key_id: str = "",
        stored: bool = False,
        flat: frozenset[str] = frozenset(),
        start: str = "",
        fresh: list[str] | None = None,
    ) -> None:
        self.files = files  # plaintext: gitmem.toml and prefix/path -> blob id
        self.keyring = keyring
        self.sealed = sealed  # prefixes that were encrypted in the commit
        self.gens: dict[str, int] = {} if gens is None else gens  # prefix -> its generation
        # prefix -> manifest blob id
        self.manifests: dict[str, str] = {} if manifests is None else manifests
        # what an incremental decode starts from (empty for what encode made): the tree's
        # files as `split_tree` gives them, kept split (a decode from here applies the tree
        # diff's changes to copies, not a split of the whole listing again)
        self.tree = tree  # the commit's tree
        self.split = split
        # sealed prefix -> its check
        self.opened: dict[str, Opened] = {} if opened is None else opened
        self.key_id = key_id  # the scope key the sealed folders were checked with
        self.stored = stored  # the last run's record: a start for a decode, not a decode
        self.flat = flat  # sealed prefixes in the flat layout (an older gitmem's)
        # the tree of the decode this one started from ("": listed whole), and the files whose
        # plaintext id it did not carry from there (opened, or files outside the sealed
        # folders that differ): every other file is as the decode of `start` held it
        self.start = start
        self.fresh: list[str] = [] if fresh is None else fresh

    def tops(self) -> set[str]:
        """The top folders `files` holds files in: from the split where there is one (the
        files outside sealed folders, and the sealed folders holding any), not a walk over
        every plaintext path."""
        if self.split is None:
            return {p.split("/", 1)[0] for p in self.files if "/" in p}
        tops = {p.split("/", 1)[0] for p in self.split.rest if "/" in p}
        tops.discard(KEY_DIR)  # the key files are not among `files`
        return tops | {prefix for prefix, o in self.opened.items() if o.plain}


class Newest(NamedTuple):
    gen: int
    key_id: str
    ciphers: dict[str, str]  # path -> ciphertext id
    manifest: str  # the manifest's blob id
    listed: dict[str, str]  # path -> hidden name
    shards: dict[str, tuple[str, str]]  # bucket -> (hidden name, ciphertext id)


class PersonalCodec:
    def __init__(
        self,
        repo: Store,
        ref: str,
        wanted: tuple[str, ...],
        notes: list[str] | None = None,
        remote_ref: tuple[str, str] | None = None,
        user_scope: bool = False,
    ) -> None:
        self.repo = repo
        self.ref = ref
        self.wanted = wanted  # prefixes to encrypt on the way to the ref
        self.notes: list[str] = [] if notes is None else notes
        # (remote, its name for the ref): where the ref is fetched from, as a refusal's hint says
        self.remote_ref = remote_ref
        # the user-scope memory on the hub has keys of its own: its key commands take --user
        self.user_scope = user_scope
        # who else opens the person's memory, asked when this ref gets its first key: the
        # machines another user-scope store of the person is granted to (one grant per
        # machine, not one per agent: newcomer 12)
        self.granted_elsewhere: Callable[[], list[str]] | None = None
        # whether a grant of this (a project's) ref grants the user-scope memory too (a hub of
        # the user's own: cli/key.py), asked only when a grant is named
        self.grants_user_scope: Callable[[], bool] | None = None
        self._machine: MachineKey | None = None
        self._machine_loaded = False
        self._keys: dict[str, ScopeKey] = {}  # scope.age blob id -> key
        self._decoded: dict[str, Decoded] = {}
        self._present: set[str] = set()  # ciphertext ids seen in trees this run
        self._cache: CipherCache | None = None
        # the keys of the last encode (for its commit message)
        self.last_keyring: Keyring | None = None
        self._encoded: list[tuple[dict[str, str], Decoded]] = []
        # (key, {path: plaintext id}, {path: ciphertext id}) of cached pairs not checked to
        # exist: indexed by plaintext id only when one is missing (_reopen), not on every decode
        self._lazy: list[tuple[ScopeKey, dict[str, str], dict[str, str]]] = []
        self._lazy_index: dict[str, tuple[ScopeKey, str, str]] = {}
        # prefix -> the newest manifest opened (or written) in this run: encode keeps it when
        # nothing changed, else writes generation + 1 (and keeps its unchanged shards)
        self._newest: dict[str, Newest] = {}
        # prefixes where another manifest of the same newest generation was opened (two
        # machines each wrote one above a common parent): keeping either could look like the
        # other put back
        self._tied: set[str] = set()
        # the last commit decoded from its tree: the next starts there
        self._base: Decoded | None = None
        # the last run's record as read (DECODED_FILE): a decode of its tree starts there even
        # after another commit was decoded (verify takes it for the pinned commit, the merge
        # asks for that commit later)
        self._record: Decoded | None = None
        self._stored_tree: str | None = None  # the tree of DECODED_FILE (None: not read yet)
        # the sealed folders as DECODED_FILE itself holds them (its journal not applied), its
        # scope key and its stamp: what a journal is written against
        self._file: dict[str, Opened] = {}
        self._file_key = ""
        self._file_stamp: list[int] = []

    @property
    def cache(self) -> CipherCache:
        if self._cache is None:
            self._cache = CipherCache(self.repo.common_dir)
        return self._cache

    def machine(self, create: bool = False) -> MachineKey | None:
        if not self._machine_loaded:
            self._machine = load_machine_key()
            self._machine_loaded = True
        if self._machine is None and create:
            self._machine = create_machine_key()
        return self._machine

    # -- reading -----------------------------------------------------------------------------

    def decode(self, commit: str) -> Decoded:
        """Plaintext of a commit of the personal ref. Raises NoAccess (not granted) or
        DecryptError (a blob, the manifest or the key list does not open)."""
        done = self._decoded.get(commit)
        if done is not None:
            return done
        repo = self.repo
        root = repo.read_commit(commit)[0]
        base = self._start()
        if base is not None and base.tree == root and not base.stored:
            self._decoded[commit] = base  # the same tree: the same plaintext, checked
            return base
        record = self._record
        latest = not (record is not None and record.tree == root and base is not record)
        if not latest:
            base = record  # the tree the record holds: nothing differs from it
        split, changed = self._listing(root, base)
        listing = split.listing() if self._encoded else {}
        for tree, plain in self._encoded:
            if listing == tree:  # what encode made in this run: its plaintext, not re-opened
                self._decoded[commit] = plain
                if not self._form_change(plain):  # the next sync need not open it to know
                    self.cache.form = [commit, *self.wanted]
                    self.cache.dirty = True
                return plain
        rest, parts = split.rest, split.parts
        keyfiles = {p: o for p, o in rest.items() if p.startswith(KEY_DIR + "/")}
        files = {p: o for p, o in rest.items() if p not in keyfiles}
        where = f"commit {commit[:12]} of {self.ref}"
        if SCOPE_KEY_FILE not in keyfiles:
            if parts:
                raise DecryptError(f"{where} holds an encrypted manifest but no key", REFUSED_HINT)
            start = base.tree if changed is not None and base is not None else ""
            fresh = [p for p in changed if p in files] if changed is not None else []
            done = Decoded(files, None, tree=root, split=split, start=start, fresh=fresh)
            self._decoded[commit] = done
            if latest:
                self._base = done
            return done
        key, denied = self._commit_key(keyfiles[SCOPE_KEY_FILE])
        try:
            return self._decode_sealed(
                commit, root, base, changed, split, keyfiles, files, key, latest
            )
        except DecryptError:
            if denied is None:
                raise
            raise denied from None  # not the key it was sealed with: still not granted

    def _commit_key(self, oid: str) -> tuple[ScopeKey, NoAccess | None]:
        """The key a commit's `scope.age` (blob `oid`) holds, and None; a commit sealed before
        this machine was granted: the key granted here at the ref's tip, and the refusal that
        stands if that key opens nothing of the commit. A grant wraps the same key for one
        more machine (a revoke makes a new one): this machine's own history, decrypted by the
        key it holds, stays readable (a deleted memory, `log`, `restore`); a wrong key fails
        the manifest's authentication."""
        try:
            return self.unlock(oid), None
        except NoAccess as denied:
            tip = self.repo.resolve(self.ref)
            later = self.scope_key(self.repo.read_commit(tip)[0]) if tip else None
            if later is None:
                raise
            return later, denied

    def _decode_sealed(
        self,
        commit: str,
        root: str,
        base: Decoded | None,
        changed: set[str] | None,
        split: Split,
        keyfiles: dict[str, str],
        files: dict[str, str],
        key: ScopeKey,
        latest: bool,
    ) -> Decoded:
        repo = self.repo
        parts, layouts = split.parts, split.layouts
        where = f"commit {commit[:12]} of {self.ref}"
        same_key = changed is not None and base is not None and base.key_id == key.key_id
        recipients: list[str] = []
        if RECIPIENTS_FILE in keyfiles:
            try:
                recipients = list(
                    open_json(
                        key, RECIPIENTS_FILE, repo.read_blob(keyfiles[RECIPIENTS_FILE], keep=True)
                    )
                )
            except ValueError:
                raise DecryptError(
                    f"{RECIPIENTS_FILE} in {where} does not decrypt", REFUSED_HINT
                ) from None
        for path in files:
            top, _, name = path.partition("/")
            if top in PERSONAL_PREFIXES and hidden_name(name) is not None:
                raise DecryptError(f"{top}/manifest is missing from {where}", REFUSED_HINT)
        for prefix, layout in layouts.items():
            if layout == MIXED:
                raise DecryptError(
                    f"{prefix}/ in {where} holds hidden names in two layouts", REFUSED_HINT
                )
        gens: dict[str, int] = {}
        manifests = {prefix: names[MANIFEST] for prefix, names in parts.items()}
        checked: dict[str, Opened] = {}
        fresh = [p for p in changed if p in files] if changed is not None else []
        for prefix, names in parts.items():
            prior = base.opened.get(prefix) if same_key and base is not None else None
            moved = changed if prior is not None else None
            opened = self._open_prefix(key, prefix, dict(names), where, prior, moved, fresh)
            checked[prefix] = opened
            opened.fanned = layouts[prefix] == FANNED
            gens[prefix] = opened.gen
            files.update(opened.plain)
        done = Decoded(
            files,
            Keyring(key, keyfiles, recipients),
            frozenset(parts),
            gens,
            manifests,
            root,
            split,
            checked,
            key.key_id,
            flat=frozenset(p for p, layout in layouts.items() if layout != FANNED),
            start=base.tree if changed is not None and base is not None else "",
            fresh=fresh,
        )
        self._decoded[commit] = done
        if latest:  # the next decode starts here (one of the record's tree: from the latest)
            self._base = done
        return done

    def _start(self) -> Decoded | None:
        """What the next decode starts from: the last commit decoded in this run, else the
        last run's record (read once)."""
        if self._base is None and self._stored_tree is None:
            self._base = self._record = self._load_base()
        return self._base

    def _listing(self, root: str, base: Decoded | None) -> tuple[Split, set[str] | None]:
        """The files of tree `root`, split (`split_tree`), and the paths that differ from
        `base`'s tree (None: all listed afresh). From a decoded commit of this run (or the last
        run's record) the two trees' changed folders are read (gitstore/treediff.py), not a
        listing of the whole ref, and only their entries are split: at ten changed files of
        ten thousand that is most of a pull's decode (docs/history/performance.md)."""
        if base is not None and base.tree and base.split is not None:
            diff = self.repo.tree_changes(
                base.tree, root, MAX_INCREMENTAL, MAX_DEPTH, MAX_TREE_BYTES
            )
            if diff is not None:
                changed = {c.path for c in diff.changes}
                split = base.split.changed(diff.changes)
                if split is not None:
                    return split, changed
                listing = base.split.listing()
                for change in diff.changes:
                    if change.new is None:
                        listing.pop(change.path, None)
                    else:
                        listing[change.path] = change.new.oid
                return Split(*split_tree(listing)), changed
        return Split(*split_tree(blobs(self.repo.list_tree(root)))), None

    def scope_key(self, tree: str) -> ScopeKey | None:
        """The key a tree of the personal ref is sealed with; None: none, or not granted here."""
        oid = self.repo.tree_entry(tree, SCOPE_KEY_FILE)
        try:
            return self.unlock(oid) if oid else None
        except (GitmemError, ValueError):
            return None

    def unlock(self, oid: str) -> ScopeKey:
        key = self._keys.get(oid)
        if key is None:
            key = unlock_scope_key(self.repo.read_blob(oid, keep=True), self.machine())
            self._keys[oid] = key
        return key

    def _open_prefix(
        self,
        key: ScopeKey,
        prefix: str,
        names: dict[str, str],
        where: str,
        prior: Opened | None = None,
        changed: set[str] | None = None,
        checking: list[str] | None = None,
    ) -> Opened:
        """The plaintext of one sealed folder, and its manifest's generation. With `prior` (the
        same folder checked in a commit of this run, under the same key) and `changed` (the
        paths of the tree that differ from that commit's), an entry the manifest lists as
        `prior` did (same hidden name, same ciphertext id) at a name whose blob did not change
        passed every check below then and is taken as checked: only the others are, and
        their paths are added to `checking` (all listed, without `prior`)."""
        repo, cache = self.repo, self.cache
        manifest_path = f"{prefix}/{MANIFEST}"
        manifest_id = names.pop(MANIFEST)
        if prior is not None and prior.stored:  # its plaintexts, restorable as a decode's
            self._restorable(key, prior.plain, prior.ciphers)
            self._present.update(prior.ciphers.values())
            prior.stored = False
        if (
            prior is not None
            and changed is not None
            and prior.manifest == manifest_id
            and not any(p.startswith(prefix + "/") for p in changed)
        ):  # the folder's tree is the one checked: the same manifest, the same blobs
            self._note_newest(prefix, key.key_id, prior)
            return prior
        try:
            listed, gen, digests, shards, fresh = self._read_manifest(
                key, prefix, manifest_id, names, prior, where
            )
        except (ValueError, KeyError, TypeError):
            raise DecryptError(
                f"{manifest_path} in {where} does not decrypt", REFUSED_HINT
            ) from None
        unlisted = sorted(set(names) - set(listed.values()) - {n for n, _ in shards.values()})
        if unlisted:
            raise DecryptError(
                f"{prefix}/{unlisted[0][:40]} in {where} is not in its encrypted manifest",
                REFUSED_HINT,
            )
        out: dict[str, str] = {}
        ciphers: dict[str, str] = {}
        pending: list[str] = []  # paths whose plaintext this clone does not know yet
        todo = listed
        if prior is not None and changed is not None and digests is not None:
            parts = {n for n, _ in shards.values()}
            todo = self._unchecked(prefix, listed, digests, prior, changed, fresh, parts)
            # the others are as `prior` holds them (copied whole in C, those gone removed)
            out, ciphers = dict(prior.plain), dict(prior.ciphers)
            for path in prior.plain.keys() - listed.keys():
                del out[path], ciphers[path]
        if checking is not None:
            checking += todo
        # a few entries to check (a pull of what changed) are opened without the cipher cache: its
        # pairs only spare an AES-SIV open, and reading them all (1.1 MB at 10,000 files) costs
        # more than opening ten; the record of this decode holds them for the next one
        cached = len(todo) > FEW_UNCACHED or cache.loaded
        for path, name in todo.items():
            if not path.startswith(prefix + "/") or name not in names or key.name(path) != name:
                raise DecryptError(
                    f"{path} in {where} does not match its encrypted name", REFUSED_HINT
                )
            cipher = ciphers[path] = names[name]
            if digests is not None and digests.get(path) != cipher:
                # an older ciphertext of this path put back: it opens, but is not this version
                raise DecryptError(
                    f"{path} in {where} is not the version its encrypted manifest lists "
                    "(an older copy put back)",
                    REFUSED_HINT,
                )
            self._present.add(cipher)
            known = cache.get(key.key_id, path) if cached else None
            if known and known[1] == cipher:
                # this very ciphertext of this path opened (or was sealed) here before: its
                # name passed the checks then, and AES-SIV binds it to the path
                out[path] = known[0]
                continue
            unsafe = blocking(check_name(path))  # the manifest is authenticated, not sane
            if unsafe:
                raise DecryptError(
                    f"{prefix}/manifest in {where}: {unsafe[0].message}", REFUSED_HINT
                )
            pending.append(path)
        # a cached plaintext is not checked for here (a listing of 256 object folders at 10,000
        # files): a read that misses it (pruned by gc: it is unreachable) decrypts it again
        self._restorable(key, out, ciphers)
        for path in pending:
            cipher = ciphers[path]
            try:
                plain = repo.write_blob(key.open(path, repo.read_blob(cipher)))
            except ValueError:
                raise DecryptError(
                    f"{path} in {where} does not decrypt (tampered, moved or truncated)",
                    REFUSED_HINT,
                ) from None
            if cached:
                cache.put(key.key_id, path, plain, cipher)
            out[path] = plain
        done = Opened(manifest_id, gen, listed, ciphers, out, shards)
        self._note_newest(prefix, key.key_id, done)
        return done

    def _read_manifest(
        self,
        key: ScopeKey,
        prefix: str,
        manifest_id: str,
        names: dict[str, str],
        prior: Opened | None,
        where: str,
    ) -> tuple[
        dict[str, str], int, dict[str, str] | None, dict[str, tuple[str, str]], list[str] | None
    ]:
        """(path -> hidden name, generation, path -> ciphertext id, shards) of a sealed folder's
        manifest. A sharded one: each listed shard must be in the folder (`names`) as listed;
        a shard `prior` (checked in this run, same key) opened at the same ciphertext id holds
        the entries it held then — only the others are read and opened. ValueError, KeyError
        or TypeError when the manifest does not open or is not one. Last, the paths of the
        shards read (None: every shard or a manifest in one blob)."""
        value = open_record(key, prefix, self.repo.read_blob(manifest_id))
        if not is_sharded(value):
            return (*read_manifest(value), {}, None)
        gen, ids = read_record(value)
        shards: dict[str, tuple[str, str]] = {}
        before = prior.shards if prior is not None else {}
        for bucket, oid in ids.items():
            held = before.get(bucket)  # `prior`'s shard of this bucket, under the same key
            name = (
                held[0] if held is not None and held[1] == oid else shard_name(key, prefix, bucket)
            )
            if names.get(name) != oid:
                raise DecryptError(
                    f"{prefix}/manifest in {where} lists a part the folder does not hold "
                    "(removed, or an older copy put back)",
                    REFUSED_HINT,
                )
            shards[bucket] = (name, oid)
        kept = {b for b, pair in shards.items() if before.get(b) == pair}
        listed: dict[str, str] = {}
        digests: dict[str, str] = {}
        if kept:
            assert prior is not None
            listed = {p: n for p, n in prior.listed.items() if n[:SHARD_CHARS] in kept}
            digests = {p: prior.ciphers[p] for p in listed}
        fresh_listed, fresh_digests = open_shards(
            self.repo, key, prefix, {b: ids[b] for b in ids if b not in kept}
        )
        if fresh_listed.keys() & listed.keys():
            raise TypeError("a path in two shards")
        listed.update(fresh_listed)
        digests.update(fresh_digests)
        return listed, gen, digests, shards, list(fresh_listed) if kept else None

    @staticmethod
    def _unchecked(
        prefix: str,
        listed: dict[str, str],
        digests: dict[str, str],
        prior: Opened,
        changed: set[str],
        fresh: list[str] | None,
        parts: set[str],
    ) -> dict[str, str]:
        """The entries of `listed` that `prior` does not vouch for: listed under another
        hidden name or ciphertext id than there, new, or at a name whose blob changed. With
        `fresh` (the paths of the shards that differ from `prior`'s: a shard `prior` holds at
        the same ciphertext id holds the same entries) only those are compared; `parts`: the
        hidden names of the shards."""
        if fresh is None:
            again = {p for p, _ in listed.items() - prior.listed.items()}
            again.update(p for p, c in digests.items() - prior.ciphers.items() if p in listed)
            again.update(listed.keys() - digests.keys())  # a whole decode refuses it: let it
        else:
            names_were, ciphers_were = prior.listed, prior.ciphers
            again = {
                p
                for p in fresh
                if names_were.get(p) != listed[p] or ciphers_were.get(p) != digests.get(p)
            }
        start = prefix + "/"
        names = {hidden_name(p[len(start) :]) for p in changed if p.startswith(start)}
        names -= {*parts, None}
        if names:
            by_name = {listed[p]: p for p in fresh} if fresh is not None else {}
            if not names <= by_name.keys():  # not only files of the shards read: all
                by_name = dict(zip(listed.values(), listed.keys(), strict=True))
            again.update(by_name[n] for n in names if n in by_name)
        return {p: listed[p] for p in again}

    def _note_newest(self, prefix: str, key_id: str, done: Opened) -> None:
        """Keep the newest manifest opened in this run (encode writes the one above it)."""
        newest = self._newest.get(prefix)
        if newest is None or done.gen > newest.gen:
            self._newest[prefix] = Newest(
                done.gen, key_id, done.ciphers, done.manifest, done.listed, done.shards
            )
            self._tied.discard(prefix)
        elif done.gen == newest.gen and done.manifest != newest.manifest:
            self._tied.add(prefix)

    def _restorable(self, key: ScopeKey, plain: dict[str, str], ciphers: dict[str, str]) -> None:
        """Plaintexts `plain` may be opened again from `ciphers` if gc pruned them."""
        if not plain:
            return
        if not self._lazy:
            self.repo.add_restorer(self._reopen)
        self._lazy.append((key, plain, ciphers))
        self._lazy_index.clear()

    def _reopen(self, plain: str) -> bytes | None:
        """The plaintext `plain` again, from the ciphertext it was cached with (or None)."""
        if not self._lazy_index:  # the first plaintext missing in this run: index them all
            for key, plains, ciphers in self._lazy:
                for path, oid in plains.items():
                    self._lazy_index[oid] = (key, path, ciphers[path])
        found = self._lazy_index.get(plain)
        if found is None:
            return None
        key, path, cipher = found
        try:
            return key.open(path, self.repo.read_blob(cipher))
        except (ValueError, GitmemError):
            return None

    def verify(self, remote: str, pinned: str | None) -> Decoded:
        """Decode a fetched commit and refuse what the remote's last known state (`pinned`, the
        remote-tracking ref before this fetch) says cannot be ours: plaintext where we encrypt,
        or a scope key that the pinned key did not endorse (a key only this clone has used was
        never published: the remote's key is adopted)."""
        # first: the fetched commit is then read as what differs from it
        ours = self._checked_at(pinned) if pinned else None
        theirs = self.decode(remote)
        if (
            pinned
            and ours is not None
            and ours.stored
            and (theirs.keyring is None or theirs.keyring.key.key_id != ours.key_id)
        ):  # another key (or none): what follows asks for the pinned key itself
            ours = self._decoded_or_none(pinned)
        where = f"commit {remote[:12]} of {self.ref}"
        if ours is None:  # first contact: what the remote's key sealed is trusted on first use
            plain = sorted(
                (set(self.wanted) - theirs.sealed) & {p.split("/", 1)[0] for p in theirs.files}
            )
            if plain:  # but anyone who can push can plant plaintext, in your name
                raise DecryptError(
                    f"{where} holds plaintext under {plain[0]}/, which this machine encrypts, "
                    "and nothing here vouches for it",
                    FIRST_PLAINTEXT_HINT,
                )
            if theirs.keyring is not None:  # trusted on first use when asked for, and shown
                first_contact(
                    self.repo,
                    self.ref,
                    theirs.keyring,
                    self.machine(),
                    self.notes,
                    self.remote_ref,
                    remote,
                    " --user" if self.user_scope else "",
                    self.granted_elsewhere,
                    self._succeeds_asked,
                )
            return theirs
        if ours.keyring is None and not ours.stored:
            return theirs  # plaintext synced here before: re-written encrypted on the next push
        from gitmem.policy.rules import unsealed

        downgraded = unsealed(self.wanted, ours.sealed, theirs.sealed, theirs.files)
        if theirs.keyring is None and not downgraded:  # no key at all: every prefix is plain
            downgraded = sorted(set(self.wanted) & ours.sealed)
        if downgraded:
            raise DecryptError(
                f"{where} holds plaintext under {downgraded[0]}/, which this machine encrypts",
                DOWNGRADE_HINT,
            )
        if theirs.keyring is None:
            return theirs
        why = rolled_back(ours, theirs, self.wanted)
        if why:
            raise DecryptError(f"{where} {why}", rollback_hint(self.ref, remote))
        mine, new = ours.keyring, theirs.keyring
        if mine is None:  # the record, under the fetched commit's key: no chain to follow
            return theirs
        if mine.key.key_id != new.key.key_id and not self._endorsed_chain(
            mine.key, new, pinned, remote
        ):
            raise DecryptError(
                f"{where} is encrypted with a scope key this machine's key did not endorse",
                REFUSED_HINT,
            )
        return theirs

    def _checked_at(self, pinned: str) -> Decoded | None:
        """`pinned` as `verify` compares a fetched commit with it (None: not granted here).
        Where the last run's record (DECODED_FILE) holds pinned's tree, the record itself: its
        folders' generations and manifests and its key's id are what the comparison reads, and
        the fetched commit's decode starts from it — one decode, not two. Else pinned decoded."""
        self._start()
        record = self._record
        if record is not None and record.tree == self.repo.read_commit(pinned)[0]:
            return record
        return self._decoded_or_none(pinned)

    def _decoded_or_none(self, commit: str) -> Decoded | None:
        try:
            return self.decode(commit)
        except NoAccess:
            return None  # we could not open it then: nothing was pinned

    def _succeeds_asked(self, asked: str, remote: str, ring: Keyring) -> bool:
        """Whether `ring`'s key descends, by endorsements, from the key this machine asked to be
        granted at commit `asked`: a grant of that key to this machine, then a rotation (or
        several) before this machine's first sync. The asked-about key is the one some key
        file of asked..remote seals to this machine AND that opens the key list `asked` holds
        (only its holders made either); a planted key opens neither. Bounded as the chain."""
        try:
            entry = self.repo.list_tree(asked).get(RECIPIENTS_FILE)
            listed = self.repo.read_blob(entry.oid, keep=True) if entry else None
        except (GitmemError, ValueError):
            return False
        if listed is None:
            return False
        for _commit, blob in self.repo.path_history(f"{asked}..{remote}", SCOPE_KEY_FILE)[
            :MAX_ROTATIONS
        ]:
            if blob is None:
                continue
            try:
                key = self.unlock(blob)
                open_json(key, RECIPIENTS_FILE, listed)
            except (NoAccess, GitmemError, ValueError, TypeError):
                continue  # not sealed to this machine, or not the key asked about
            return self._endorsed_chain(key, ring, asked, remote)
        return False

    def _endorsed_chain(
        self, mine: ScopeKey, theirs: Keyring, pinned: str | None, remote: str
    ) -> bool:
        """Whether endorsements lead from `mine` (the key this machine trusted last) to
        `theirs`: each key the remote's history brought in since `pinned` is trusted once a
        trusted key endorsed it (two rotations before this machine synced are two steps).
        Bounded: the key changes of pinned..remote, at most MAX_ROTATIONS of them."""
        if endorsed_by(mine, theirs.key.key_id, self._endorsement(theirs)):
            return True
        candidates: list[tuple[ScopeKey, bytes | None]] = []
        since = f"{pinned}..{remote}" if pinned else remote
        changes = self.repo.path_history(since, SCOPE_KEY_FILE)
        for commit, blob in changes[:MAX_ROTATIONS]:
            if blob is None:
                continue
            try:
                key = self.unlock(blob)
            except NoAccess:
                continue  # a key this machine cannot open cannot vouch for anything here
            signed = self.repo.resolve(f"{commit}:{ENDORSEMENT_FILE}")
            candidates.append((key, self.repo.read_blob(signed) if signed else None))
        trusted = {mine.key_id: mine}
        grown = True
        while grown and theirs.key.key_id not in trusted:
            grown = False
            for key, endorsement in candidates:
                if key.key_id not in trusted and any(
                    endorsed_by(t, key.key_id, endorsement) for t in trusted.values()
                ):
                    trusted[key.key_id] = key
                    grown = True
        return theirs.key.key_id in trusted

    def check_fetched(
        self, commit: str, pinned: str | None, local: str | None, where: str
    ) -> list[Finding]:
        """verify(), then the policy's content checks on what the seal hid from check_tree:
        blocking findings raise UntrustedTreeError; the others are returned."""
        from collections.abc import Iterable

        from gitmem.errors import UntrustedTreeError
        from gitmem.policy.rules import check_content
        from gitmem.policy.treecheck import META_FILE, REFUSED_HINT

        decoded = self.verify(commit, pinned)
        theirs = decoded.files
        paths: Iterable[str] = theirs
        known: set[str] = set()
        if local and decoded.start and decoded.start == self.repo.read_commit(local)[0]:
            paths = decoded.fresh  # the others are as local's decode holds them: checked
        elif local:
            known = set(self.decode(local).files.values())
        noted: list[Finding] = []
        for path in paths:
            oid = theirs[path]
            if path == META_FILE or oid in known:
                continue
            found = check_content(path, self.repo.read_blob(oid))
            refused = [f for f in found if f.blocking]
            if refused:
                raise UntrustedTreeError(
                    f"{where} commit {commit[:12]}: {refused[0]}", REFUSED_HINT
                )
            noted += found
        return noted

    def merged_keyring(self, base: str | None, local: str, remote: str) -> Keyring | None:
        """The keys/ folder of a merge: both sides' grants and revocations kept
        (gitmem.privacy.keymerge)."""
        from gitmem.privacy.keymerge import merge_keyrings

        b, o, t = (self.decode(c).keyring if c else None for c in (base, local, remote))
        if o is None or t is None:
            return o or t
        follows = o.key.key_id != t.key.key_id and self._endorsed_chain(t.key, o, remote, local)
        return merge_keyrings(self.repo, b, o, t, self.notes, follows)

    def _endorsement(self, ring: Keyring) -> bytes | None:
        oid = ring.files.get(ENDORSEMENT_FILE)
        return self.repo.read_blob(oid) if oid else None

    def plain_times(self, commit: str, times: dict[str, float]) -> dict[str, float]:
        """Change times keyed by plaintext path (the log only knows the hidden names)."""
        decoded = self.decode(commit)
        if decoded.keyring is None:
            return times
        key = decoded.keyring.key
        out = dict(times)
        for path in decoded.files:
            top = path.split("/", 1)[0]
            if top not in decoded.sealed:
                continue
            name = key.name(path)
            for hidden in (f"{top}/{stored_name(name)}", f"{top}/{name}"):
                if hidden in times:
                    out[path] = times[hidden]
                    break
        return out

    def stored_path(self, commit: str, path: str) -> str:
        """Where `path` is on the ref at `commit`: its hidden name under a sealed prefix."""
        decoded = self.decode(commit)
        top = path.split("/", 1)[0]
        if decoded.keyring is None or top not in decoded.sealed:
            return path
        name = decoded.keyring.key.name(path)
        return f"{top}/{name if top in decoded.flat else stored_name(name)}"

    def stored_paths(self, rev: str, path: str) -> list[str]:
        """Every name `path` had on the ref up to `rev`: its hidden name under each key the
        history used (a rotation renames every hidden name), and its plaintext path (before
        encryption). Keys this machine cannot open are skipped; at most MAX_KEYS_FOLLOWED."""
        top = path.split("/", 1)[0]
        names = [self.stored_path(rev, path)]
        if top in PERSONAL_PREFIXES:
            for _, blob in self.repo.path_history(rev, SCOPE_KEY_FILE)[:MAX_KEYS_FOLLOWED]:
                if blob is None:
                    continue
                try:
                    name = self.unlock(blob).name(path)
                except NoAccess:
                    continue
                names += [f"{top}/{stored_name(name)}", f"{top}/{name}"]  # either layout
        names.append(path)
        return list(dict.fromkeys(names))

    def rewrite_reason(self, tip: str) -> str | None:
        """Why the tip must be re-written though no file changed (gitmem.encrypt changed,
        or a plaintext ref from before encryption), or None."""
        form = [tip, *self.wanted]
        if self.cache.form == form:
            return None
        decoded = self._decoded.get(tip)
        if decoded is not None:
            reason = self._form_change(decoded)
        else:  # from the folders' names: no listing of the whole tip
            present, sealed = tip_folders(self.repo, self.repo.read_commit(tip)[0])
            reason = form_change(present, sealed & present, self.wanted)
        if reason is None:
            self.cache.form = form
            self.cache.dirty = True
        return reason

    def _form_change(self, decoded: Decoded) -> str | None:
        present = decoded.tops()
        # an empty sealed folder (its manifest) holds nothing
        return form_change(present, decoded.sealed & present, self.wanted)

    # -- writing -----------------------------------------------------------------------------

    def encode(self, files: dict[str, str], keyring: Keyring | None) -> dict[str, str]:
        """The tree for plaintext `files`: prefixes in `wanted` sealed with `keyring` (made
        here, with one note, when the ref has none yet)."""
        groups: dict[str, dict[str, str]] = {}
        out: dict[str, str] = {}
        for path, oid in files.items():
            top = path.split("/", 1)[0]
            if top in self.wanted:
                groups.setdefault(top, {})[path] = oid
            else:
                out[path] = oid
        if keyring is not None:  # a folder once sealed keeps an (empty) manifest: dropping
            for prefix in self.wanted:  # it must not pass for an honest "all deleted"
                if prefix in self._newest and self._newest[prefix].gen > 0:
                    groups.setdefault(prefix, {})
        if groups and keyring is None:
            keyring = self.new_keyring()
        self.last_keyring = keyring
        if keyring is not None:
            out.update(keyring.files)
        for prefix, members in groups.items():
            assert keyring is not None
            out.update(self._seal_prefix(keyring.key, prefix, members))
        plain = {p: o for p, o in files.items() if not p.startswith(KEY_DIR + "/")}
        manifests = {p: out[f"{p}/{MANIFEST}"] for p in groups}
        gens = {p: self._newest[p].gen for p in groups}
        self._encoded.append(
            (dict(out), Decoded(plain, keyring, frozenset(groups), gens, manifests))
        )
        return out

    def seal_note(self, lines: list[str]) -> str:
        """Resolution lines for a commit message, sealed with the key just used to encode."""
        import base64

        assert self.last_keyring is not None
        sealed = self.last_keyring.key.seal(NOTE_AD, "\x1d".join(lines).encode("utf-8"))
        return NOTE_PREFIX + base64.b64encode(sealed).decode("ascii")

    def open_note(self, commit: str, note: str) -> list[str]:
        """The lines of a sealed note of `commit`, or one line saying they stay hidden."""
        import base64
        import binascii

        try:
            keyring = self.decode(commit).keyring
            if keyring is None:
                raise ValueError(commit)
            data = base64.b64decode(note[len(NOTE_PREFIX) :], validate=True)
            return keyring.key.open(NOTE_AD, data).decode("utf-8").split("\x1d")
        except (NoAccess, DecryptError, ValueError, binascii.Error):
            return ["(encrypted: this machine cannot open it)"]

    def _seal_prefix(self, key: ScopeKey, prefix: str, members: dict[str, str]) -> dict[str, str]:
        repo, cache = self.repo, self.cache
        out: dict[str, str] = {}
        listed: dict[str, str] = {}
        ciphers: dict[str, str] = {}
        for path, plain in members.items():
            name = key.name(path)
            listed[path] = name
            known = cache.get(key.key_id, path)
            if known and known[0] == plain and (known[1] in self._present or cache.loose(known[1])):
                cipher = known[1]
            else:
                cipher = repo.write_blob(key.seal(path, repo.read_blob(plain)))
                cache.put(key.key_id, path, plain, cipher)
            out[f"{prefix}/{stored_name(name)}"] = ciphers[path] = cipher
        newest = self._newest.get(prefix) or Newest(
            self._history_gen(prefix, key), "", {}, "", {}, {}
        )
        if not (
            newest.gen > 0
            and newest.key_id == key.key_id
            and newest.ciphers == ciphers
            and prefix not in self._tied
        ):
            # above every manifest of this ref opened here, so above both parents; a shard
            # whose entries did not change is kept (the same ciphertext: nothing to push)
            before = buckets(newest.listed) if newest.key_id == key.key_id else {}
            shards: dict[str, tuple[str, str]] = {}
            for bucket, paths in buckets(listed).items():
                old = newest.shards.get(bucket)
                if (
                    old is not None
                    and set(before.get(bucket, ())) == set(paths)
                    and all(newest.ciphers.get(p) == ciphers[p] for p in paths)
                ):
                    shards[bucket] = old
                else:
                    made = seal_shards(repo, key, prefix, listed, ciphers, paths)
                    shards[bucket] = (shard_name(key, prefix, bucket), made)
            oid = seal_record(
                repo, key, prefix, newest.gen + 1, {b: o for b, (_, o) in shards.items()}
            )
            newest = Newest(newest.gen + 1, key.key_id, ciphers, oid, listed, shards)
            self._newest[prefix] = newest
            self._tied.discard(prefix)
        out.update({f"{prefix}/{stored_name(name)}": o for name, o in newest.shards.values()})
        out[f"{prefix}/{MANIFEST}"] = newest.manifest
        return out

    def _history_gen(self, prefix: str, key: ScopeKey) -> int:
        """The newest generation of `prefix`'s manifest in the history of this ref and of the
        commits decoded in this run, for a folder none of them seals at its tip (encryption
        turned back on, here or in another clone): a seal restarting at 1 is below what a
        reader synced last, refused as an older state put back. Only a manifest that opens
        under a key this machine holds counts (none is made without one), so a pushed
        history can raise nothing; each is tried with its commit's key, then with `key` (the
        one sealing now) and the keys opened in this run: a machine granted after a manifest
        was written holds its key, though the key file of that commit did not list it yet (a
        grant wraps the same key for one more machine). At most MAX_HISTORY_MANIFESTS
        commits, one log."""
        revs = list(self._decoded)
        if not revs:
            return 0  # nothing of the ref here yet: a first sync, asking git nothing
        if self.repo.resolve(self.ref):
            revs.append(self.ref)
        newest = 0
        path = f"{prefix}/{MANIFEST}"
        found = [
            (commit, blob)
            for commit, blob in self.repo.path_history(revs, path, MAX_HISTORY_MANIFESTS)
            if blob is not None
        ]
        # history never passed the tip's checks: a blob over the bound is read by no one
        sizes = self.repo.blob_sizes([blob for _, blob in found]) if found else {}
        for commit, blob in found:
            if sizes.get(blob, MAX_BLOB_BYTES + 1) > MAX_BLOB_BYTES:
                continue
            data = self.repo.read_blob(blob)
            own = self.scope_key(self.repo.read_commit(commit)[0])
            held = {k.key_id: k for k in (*self._keys.values(), key)}
            if own is not None:
                held = {own.key_id: own, **held}  # its own first
            for candidate in held.values():
                try:
                    value = open_record(candidate, prefix, data)
                    gen = read_record(value)[0] if is_sharded(value) else read_manifest(value)[1]
                except (ValueError, KeyError, TypeError):
                    continue
                newest = max(newest, gen)
                break
        return newest

    def new_keyring(self, recipients: list[str] | None = None) -> Keyring:
        """A fresh scope key for this ref, encrypted to this machine (and `recipients`, else
        the machines `granted_elsewhere` names)."""
        made_identity = self.machine() is None
        machine = self.machine(create=True)
        assert machine is not None
        inherited = (
            self.granted_elsewhere() if recipients is None and self.granted_elsewhere else []
        )
        everyone = list(dict.fromkeys([machine.recipient, *(recipients or []), *inherited]))
        keyring = make_keyring(self.repo, ScopeKey.generate(), everyone)
        if recipients is None:
            from gitmem.core.userdirs import tilde

            # the guide's way (§4): a new machine's first sync names the grant to run here
            # (`key show` there fails while it has no key yet)
            option = " --user" if self.user_scope else ""
            others = len(set(everyone) - {machine.recipient})
            self.notes.append(
                f"encrypted your personal memory with a new key; "
                f"{'made' if made_identity else 'using'} this machine's identity "
                f"{tilde(machine.where)}; "
                + (
                    f"opened too by the {others} other machine{'s' if others != 1 else ''} "
                    "your other user-scope memory is granted to"
                    if others
                    else f"to add another machine, run gitmem sync{option} there: it prints "
                    f"the gitmem key grant{option} to run here"
                )
            )
        return keyring

    def grant_line(self) -> str:
        """The note of a sync that cannot open the ref: the grant to run elsewhere (`--user`
        for the user-scope memory on the hub, whose key is not the project's)."""
        machine = self.machine(create=True)
        assert machine is not None
        what = "user-scope memory" if self.user_scope else "personal memory"
        option = " --user" if self.user_scope else ""
        from gitmem.privacy.layout import grant_step

        both = not self.user_scope and self.grants_user_scope and self.grants_user_scope()
        also = " (your user-scope memory too: one grant)" if both else ""
        return (
            f"{self.ref}: your {what} is encrypted with a key this machine does not have; "
            f"{grant_step(machine.recipient, option, also)}"
        )

    def save(self) -> None:
        if self._cache is not None:
            self._cache.save()
        base = self._base
        if base is not None and base.opened and not base.stored and base.tree != self._stored_tree:
            self._save_base(base)

    def _save_base(self, base: Decoded) -> None:
        """Record `base` as checked, for the next run's first decode to start from."""
        import json

        from gitmem.core.nolinks import write_no_links

        assert base.split is not None
        rest = base.split.rest
        common = self.repo.common_dir
        journal = self._journal_for(base, rest)
        if journal is not None:
            data = json.dumps(journal).encode()
            write_no_links(
                common, state_dir(common) / DECODED_JOURNAL, data, PRIVATE, durable=False
            )
            self._stored_tree = base.tree
            return
        opened: dict[str, list[object]] = {}
        body: list[str] = []
        for prefix, o in base.opened.items():
            rows = _rows(o, list(o.listed))
            if rows.count("\0") != max(4 * len(o.listed) - 1, 0):
                return  # a name holding a NUL (none should): no record, the next run reads whole
            opened[prefix] = [o.manifest, o.gen, len(rows), o.shards, o.fanned]
            body.append(rows)
        value = {
            "version": DECODED_VERSION,
            "tree": base.tree,
            "key_id": base.key_id,
            "rest": rest,
            "opened": opened,
        }
        data = json.dumps(value).encode() + b"\n" + "".join(body).encode("utf-8", "surrogatepass")
        write_no_links(common, state_dir(common) / DECODED_FILE, data, PRIVATE, durable=False)
        self._stored_tree = base.tree  # (a journal left there is over another file: not read)
        self._file = {}  # not what the file holds now: a later save writes it whole

    def _journal_for(self, base: Decoded, rest: dict[str, str]) -> dict[str, object] | None:
        """What differs in `base` from DECODED_FILE as read in this run, as a journal over it
        (the entries moved, in C: set operations of the two records' items); None when the
        record is to be written whole (none read, another key or folders, a journal past an
        eighth of the record)."""
        file = self._file
        if not file or base.key_id != self._file_key or base.opened.keys() != file.keys():
            return None
        opened: dict[str, list[object]] = {}
        moved_total, held_total = 0, 0
        for prefix, o in base.opened.items():
            f = file[prefix]
            if o.fanned != f.fanned:
                return None
            moved = {p for p, _ in o.listed.items() ^ f.listed.items()}
            moved.update(p for p, _ in o.ciphers.items() ^ f.ciphers.items())
            moved.update(p for p, _ in o.plain.items() ^ f.plain.items())
            moved_total += len(moved)
            held_total += len(f.listed)
            kept = sorted(p for p in moved if p in o.listed)
            rows = _rows(o, kept)
            if rows.count("\0") != max(4 * len(kept) - 1, 0):
                return None
            gone = sorted(moved - o.listed.keys())
            opened[prefix] = [o.manifest, o.gen, rows, gone, o.shards, o.fanned]
        if moved_total * 8 > held_total:
            return None
        return {
            "version": 1,
            "base": self._file_stamp,
            "tree": base.tree,
            "key_id": base.key_id,
            "rest": rest,
            "opened": opened,
        }

    def _read_journal(
        self, opened: dict[str, Opened], stamp: list[int]
    ) -> tuple[str, str, dict[str, str]] | None:
        """DECODED_JOURNAL laid over the record's folders `opened` (edited in place): (tree,
        key id, the rest of its listing), or None (none, or over another record: `opened`
        untouched)."""

        from gitmem.core.nolinks import read_no_links

        common = self.repo.common_dir
        try:
            data = read_no_links(common, state_dir(common) / DECODED_JOURNAL)
            raw = jsondata.loads(data) if data is not None else None
            if not raw or raw["version"] != 1 or raw["base"] != stamp or not stamp:
                return None
            if raw["opened"].keys() != opened.keys() or raw["key_id"] != self._file_key:
                return None
            edits = []
            for prefix, (manifest, gen, rows, gone, shards, fanned) in raw["opened"].items():
                cells = rows.split("\0") if rows else []
                paths = cells[0::4]
                if len(cells) != 4 * len(paths) or not all(
                    isinstance(p, str) and p.startswith(f"{prefix}/") for p in [*paths, *gone]
                ):
                    return None
                shards = {str(b): (str(n), str(c)) for b, (n, c) in shards.items()}
                edits.append((prefix, str(manifest), int(gen), cells, gone, shards, fanned))
            rest, tree = _strings(raw["rest"]), str(raw["tree"])
        except (ValueError, KeyError, TypeError, AttributeError, GitmemError, OSError):
            return None
        for prefix, manifest, gen, cells, gone, shards, fanned in edits:
            o = opened[prefix]
            paths = cells[0::4]
            o.manifest, o.gen, o.shards, o.fanned = manifest, gen, shards, fanned is True
            o.listed.update(zip(paths, cells[1::4], strict=True))
            o.ciphers.update(zip(paths, cells[2::4], strict=True))
            o.plain.update(zip(paths, cells[3::4], strict=True))
            for path in gone:
                o.listed.pop(path, None)
                o.ciphers.pop(path, None)
                o.plain.pop(path, None)
        return tree, self._file_key, rest

    def _load_base(self) -> Decoded | None:
        """The commit the last run decoded last, as it was checked (DECODED_FILE), or None."""
        from itertools import repeat

        from gitmem.core.nolinks import read_no_links

        self._stored_tree = ""
        common = self.repo.common_dir
        try:
            data = read_no_links(common, state_dir(common) / DECODED_FILE)
            if data is None:
                return None
            stamp = file_stamp(state_dir(common) / DECODED_FILE)
            head, _, body = data.partition(b"\n")
            raw = jsondata.loads(head)
            if raw["version"] != DECODED_VERSION:  # an older gitmem's: decoded whole once
                return None
            listing = _strings(raw["rest"])
            text = body.decode("utf-8", "surrogatepass")
            at = 0
            opened: dict[str, Opened] = {}
            for prefix, (manifest, gen, length, shards, fanned) in raw["opened"].items():
                if not isinstance(length, int) or not 0 <= length <= len(text) - at:
                    return None  # cut short, or lengths that do not add up
                rows, at = text[at : at + length], at + length
                cells = rows.split("\0") if rows else []
                paths = cells[0::4]
                o = Opened(
                    str(manifest),
                    int(gen),
                    dict(zip(paths, cells[1::4], strict=True)),
                    dict(zip(paths, cells[2::4], strict=True)),
                    dict(zip(paths, cells[3::4], strict=True)),
                    {str(b): (str(n), str(c)) for b, (n, c) in shards.items()},
                    stored=True,
                    fanned=fanned is True,
                )
                if len(o.listed) * 4 != len(cells) or not all(
                    map(str.startswith, paths, repeat(f"{prefix}/"))
                ):  # a path twice, a row cut short, a path of another folder
                    return None
                opened[str(prefix)] = o
            if at != len(text):
                return None  # rows no folder claims
            tree, key_id = str(raw["tree"]), str(raw["key_id"])
            self._file = {
                p: Opened(
                    o.manifest,
                    o.gen,
                    dict(o.listed),
                    dict(o.ciphers),
                    dict(o.plain),
                    o.shards,
                    fanned=o.fanned,
                )
                for p, o in opened.items()
            }
            self._file_key, self._file_stamp = key_id, stamp
            journaled = self._read_journal(opened, stamp)
            if journaled is not None:
                tree, key_id, listing = journaled
            parts: dict[str, dict[str, str]] = {}
            for prefix, o in opened.items():  # keyed as split_tree keys them: hidden names
                names = dict(
                    zip(o.listed.values(), map(o.ciphers.__getitem__, o.listed), strict=True)
                )
                names.update(o.shards.values())
                names[MANIFEST] = o.manifest
                parts[prefix] = names
        except (ValueError, KeyError, TypeError, AttributeError, GitmemError, OSError):
            self._file = {}
            return None
        self._stored_tree = tree
        return Decoded(
            {},
            None,
            frozenset(opened),
            {p: o.gen for p, o in opened.items()},
            {p: o.manifest for p, o in opened.items()},
            tree=tree,
            split=Split(
                listing, parts, {p: FANNED if o.fanned else FLAT for p, o in opened.items()}
            ),
            opened=opened,
            key_id=key_id,
            stored=True,
        )


def _rows(o: Opened, paths: list[str]) -> str:
    """A folder's entries as one string: path, hidden name, ciphertext id, plaintext id of each,
    joined by NUL (no path holds one): written and split in C, where a JSON object of 10,000
    entries per field cost a pull ~0.1 s each way (docs/history/performance.md, issue 23)."""
    from itertools import chain

    return "\0".join(
        chain.from_iterable(
            zip(
                paths,
                map(o.listed.__getitem__, paths),
                map(o.ciphers.__getitem__, paths),
                map(o.plain.__getitem__, paths),
                strict=True,
            )
        )
    )


def _strings(value: object) -> dict[str, str]:
    """A JSON object of strings, or TypeError."""
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise TypeError("not an object of strings")
    return value


def personal_codec(repo: Store, ref: str) -> PersonalCodec:
    return PersonalCodec(repo, ref, wanted_prefixes(repo))
