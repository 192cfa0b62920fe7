"""Every commit, not the tip: what each commit new in a push (or in a ref's whole history)
adds, checked once. A secret added by one commit and removed by the next is still in the
history a push publishes; a name full of instructions added and removed between two pushes was
still on the server.

Cost stays linear in what is new: one `git log --raw` lists what each commit adds, each blob
is read and checked once (deduplicated by object id, across commits and against the tip's
whole check), each added name once a commit. Never writes; never runs code from the tree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from gitmem.gitstore.store import Store
from gitmem.policy.rules import (
    ALWAYS_ENCRYPTED,
    ERROR,
    KEY_FILES,
    MANIFEST,
    MAX_BLOB_BYTES,
    Entry,
    Finding,
    check_changed,
    encrypted_name,
)
from gitmem.policy.secrets import Match, scan_secrets
from gitmem.project.refmeta import META_FILE

_KINDS = {"160000": "commit", "040000": "tree"}
MAX_LISTED = 4 * 200_000  # entries the new commits may add in all (four trees of MAX_FILES)


def intermediate_findings(
    repo: Store,
    tip: str,
    ref: str,
    exclude: Sequence[str],
    checked: frozenset[str] = frozenset(),
    reported: Iterable[Finding] = (),
) -> list[tuple[str, list[Finding]]]:
    """(commit, its errors) for each commit of `tip` not reachable from `exclude` whose
    additions break the policy, oldest first: what it adds or changes is checked as the whole
    check checks an entry (names, kinds, content, secrets, hidden characters). `checked`:
    blob ids already read as memory text (the tip's whole check, the old tip's tree), not read
    again; `reported`: findings already shown (the tip's), not repeated. Errors only: a style
    warning of a commit since replaced helps no one."""
    changes = repo.commit_changes(tip, exclude)
    listed = sum(len(added) for _, added in changes)
    if listed > MAX_LISTED:  # fail closed: a few commits re-adding one huge tree again and again
        why = f"its new commits add {listed} entries (limit {MAX_LISTED}): too many to check"
        return [(tip, [Finding(ref, 0, "GM105", why)])]
    oids = sorted({oid for _, added in changes for mode, oid in added.values()})
    sizes = repo.blob_sizes(oids) if oids else {}
    seen = set(checked)
    shown = {(f.path, f.code, f.message) for f in reported}
    entries_seen: set[tuple[str, str]] = set()  # (path, oid) checked in an earlier commit
    out: list[tuple[str, list[Finding]]] = []
    read = _Prefetched(repo, changes, sizes)
    for commit, all_added in changes:
        added = {p: v for p, v in all_added.items() if (p, v[1]) not in entries_seen}
        entries_seen.update((p, v[1]) for p, v in added.items())
        if not added:
            continue
        # the layout (sealed or not) matters only to what is under auto/: a commit's tree is
        # read for it only then (10,000 commits: three `cat-file` round trips each, 35 s)
        sealed = any(p.startswith("auto/") for p in added) and (
            repo.tree_entry(repo.read_commit(commit)[0], f"auto/{MANIFEST}") is not None
        )
        encrypted = ALWAYS_ENCRYPTED | ({"auto"} if sealed else frozenset())
        entries = {
            path: Entry(mode, _KINDS.get(mode, "blob"), oid, sizes.get(oid))
            for path, (mode, oid) in added.items()
        }
        found = check_changed(entries, 0, 0, sealed, ref, read, known=seen)  # no copy a commit
        seen.update(
            e.oid
            for p, e in entries.items()
            if not encrypted_name(p, encrypted) and p not in KEY_FILES and p != META_FILE
        )
        fresh = []
        for f in found:
            key = (f.path, f.code, f.message)
            if f.severity == ERROR and key not in shown:
                shown.add(key)
                fresh.append(f)
        if fresh:
            out.append((commit, fresh))
    return out


class _Prefetched:
    """`read_blob` for the commits' checks, the blobs they add read ahead in pipelined batches
    (`Store.read_blobs`) in the order the commits come: one round trip per batch instead of
    one per blob. A batch holds at most PREFETCH_BLOBS blobs and PREFETCH_BYTES bytes (a blob
    over the file limit is never read ahead: its check reads none of it)."""

    def __init__(
        self,
        repo: Store,
        changes: Sequence[tuple[str, Mapping[str, tuple[str, str]]]],
        sizes: Mapping[str, int],
    ) -> None:
        self.repo, self.sizes = repo, sizes
        order = (oid for _, added in changes for mode, oid in added.values() if mode[:3] == "100")
        self.order = [o for o in dict.fromkeys(order) if sizes.get(o, 0) <= MAX_BLOB_BYTES]
        self.at = {oid: i for i, oid in enumerate(self.order)}
        self.held: dict[str, bytes] = {}

    def __call__(self, oid: str) -> bytes:
        data = self.held.get(oid)
        if data is not None:
            return data
        start = self.at.get(oid)
        if start is None:
            return self.repo.read_blob(oid)
        batch: list[str] = []
        total = 0
        for o in self.order[start : start + PREFETCH_BLOBS]:
            total += self.sizes.get(o, 0)
            if batch and total > PREFETCH_BYTES:
                break
            batch.append(o)
        self.held = self.repo.read_blobs(batch)  # the last batch's blobs: read already
        data = self.held.get(oid)
        return self.repo.read_blob(oid) if data is None else data


PREFETCH_BLOBS = 512
PREFETCH_BYTES = 16 << 20


def secrets_in_commits(
    changes: Iterable[tuple[str, Mapping[str, str] | Mapping[str, tuple[str, str]]]],
    read: Callable[[str], bytes],
    allowed: Iterable[str] = (),
    skip: Callable[[str], bool] = lambda path: False,
) -> list[tuple[str, str, Match]]:
    """(commit, path, match) of every likely secret in the blobs each commit adds — the
    commits a push will publish, oldest first (`Repository.commit_changes(new tip, [the
    remote's tip])` gives them as {path: (mode, oid)}; {path: oid} is enough here). Each
    blob is scanned once, however many commits or paths hold it; `allowed`: the user's
    fingerprints (secretscan.user_allow_list); `skip`: paths never read as text (ciphertext,
    key files). A secret a later commit removes is still found: the history holds it."""
    allow = frozenset(allowed)
    scanned: dict[str, list[Match]] = {}
    hits: list[tuple[str, str, Match]] = []
    for commit, added in changes:
        for path, value in sorted(added.items()):
            oid = value if isinstance(value, str) else value[1]
            if skip(path):
                continue
            if oid not in scanned:
                data = read(oid)
                text = "" if len(data) > MAX_BLOB_BYTES else data.decode("utf-8", "replace")
                scanned[oid] = scan_secrets(text, allow)
            hits.extend((commit, path, m) for m in scanned[oid])
    return hits


def paths_between(repo: Store, old: str | None, new: str, limit: int = 4096) -> list[str]:
    """The memory files that differ between two checked tips (`old` None: all of `new`),
    sorted: what a session-start summary may name. Never the paths of the commits in between
    (a name added and removed between two syncs was never checked: `hookcontext.changes_line`).
    Empty when the change is too large to list within `limit` entries."""
    from gitmem.policy.rules import MAX_DEPTH

    new_tree = repo.read_commit(new)[0]
    old_tree = repo.read_commit(old)[0] if old else repo.write_object("tree", b"")
    diff = repo.tree_changes(old_tree, new_tree, limit, MAX_DEPTH, 16 * 1024 * 1024)
    if diff is None:
        return []
    return sorted(c.path for c in diff.changes if c.path.endswith(".md"))
