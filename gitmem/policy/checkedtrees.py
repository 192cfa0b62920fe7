"""The last fetched tree of each ref that passed every check of a pull, with what the
whole-tree rules count of it (`gitmem/policy/treecheck.py` `Checked`): the next fetched tip of that
ref is checked along its changes from it. Kept in `<common-dir>/gitmem/checked.json`; a
missing or unreadable file only means the next check reads the whole tree (it is written whole
but not flushed: a crash may leave it so, or as it was), and so does a file
written under other rules: a tree that passed an older gitmem's policy may hold what this one
refuses, and only the changed entries are checked along changes.

Beside them, in `refused.json`, the last tips whose tree the policy refused (round 20: a hostile
ref left on the remote cost every later sync its whole bounded walk again, 2.5 s for one of
1,000,000 files): the same tip under the same rules is refused again at once, in the same
words. Only the tree's own verdict is kept (not the project key, signatures or seal checks,
which depend on this clone's settings); a new tip or other rules check again, and nothing
refused is ever recorded as passed."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from gitmem.core import jsondata
from gitmem.core.nolinks import write_no_links
from gitmem.core.statedir import read_own, state_dir
from gitmem.policy.treecheck import Checked


def _file(common_dir: Path) -> Path:
    return state_dir(common_dir) / "checked.json"


POLICY = "policy"  # the key of the rules' stamp (a ref's name starts with refs/)


# every module a check of a fetched tree runs (its policy, limits and tree walks, the raw-name
# walk of git's tree objects, the object reader that sizes blobs, the YAML and index rules):
# tests/gitmem/test_checked_stamp.py traces a check and fails when one it runs is not here
RULES = (
    "gitmem/policy/checkedtrees.py",
    "gitmem/core/__init__.py",
    "gitmem/core/sanitize.py",
    "gitmem/core/namefold.py",
    "gitmem/errors.py",
    "gitmem/policy/rules.py",
    "gitmem/core/limits.py",
    "gitmem/core/statedir.py",  # where a check reads gitmem's own objects from (red team 15)
    "gitmem/project/refmeta.py",
    "gitmem/policy/secrets.py",
    "gitmem/policy/treecheck.py",
    "gitmem/gitstore/base.py",
    "gitmem/gitstore/catfile.py",
    "gitmem/gitstore/digest.py",
    "gitmem/gitstore/objects.py",
    "gitmem/gitstore/process.py",
    "gitmem/gitstore/spawn.py",
    "gitmem/gitstore/treediff.py",
    "merge_drivers/__init__.py",
    "merge_drivers/archive.py",
    "merge_drivers/binary.py",
    "merge_drivers/indexdoc.py",
    "merge_drivers/model.py",
    "merge_drivers/rank.py",
    "merge_drivers/yamlsafe.py",
)


@functools.cache
def policy_stamp() -> str:
    """The rules a kept tree passed: a digest of the code that decides a refusal (`RULES`,
    read as files: nothing more is imported). Any change to them, an upgrade or an edit,
    makes every kept tree one to check whole again."""
    import gitmem
    from gitmem.gitstore.digest import digest

    # built-in SHA-256 (gitstore/digest.py): OpenSSL's load (~4 ms) is paid by no pull
    root = Path(str(gitmem.__file__)).parent.parent  # gitmem/ and merge_drivers/ side by side
    stamp = digest("sha256", gitmem.__version__.encode())
    for name in RULES:
        try:
            data = (root / name).read_bytes()
        except OSError:
            data = b"missing"  # an install without sources: its version above stamps it
        stamp.update(name.encode() + b"\0" + digest("sha256", data).digest())
    return stamp.hexdigest()[:16]


def _load(common_dir: Path) -> dict[str, object]:
    try:
        raw = jsondata.loads(read_own(_file(common_dir)))
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict) or raw.get(POLICY) != policy_stamp():
        return {}  # unreadable, or kept under other rules
    return raw


def load_checked(common_dir: Path, ref: str) -> Checked | None:
    """What passed last on `ref` (a remote-tracking ref), or None."""
    found = _load(common_dir).get(ref)
    if not isinstance(found, list) or len(found) != len(Checked._fields):
        return None
    tree, *counts, sealed = found
    if not isinstance(tree, str) or not all(isinstance(n, int) for n in counts):
        return None
    files, entries, blob_bytes, tree_bytes = (int(str(n)) for n in counts)
    return Checked(tree, files, entries, blob_bytes, tree_bytes, sealed is True)


def save_checked(common_dir: Path, ref: str, checked: Checked) -> None:
    """Record that `checked` passed on `ref` (inside the repository lock)."""
    known = _load(common_dir)
    if known.get(ref) == list(checked):
        return
    known[ref] = list(checked)
    known[POLICY] = policy_stamp()
    # a cache, renamed into place whole but not flushed (issue 23, perf14: one fsync fewer on
    # every pull that brings something): a crash may leave it empty, zero-filled (unreadable:
    # the next check reads the whole tree) or as it was (an older tree that passed: the next
    # check goes along more changes, and `_pin` vouches for less); never a tree that did not pass
    write_no_links(
        common_dir,
        _file(common_dir),
        json.dumps(known, sort_keys=True).encode(),
        durable=False,
    )


# refused tips kept: a hostile remote may push a new refused tip every sync, each checked once
# and the oldest forgotten; each reason cut (its one line is the policy's, already bounded)
MAX_REFUSED = 32
MAX_REASON = 2048
# the error's kind ("tampered" or "untrusted"), its message, hint and hint in the MCP tools'
# words (round 21: the kept refusal had lost it, and a later `sync` tool call said no fix)
Refusal = tuple[str, str, str | None, str | None]


def _refused_file(common_dir: Path) -> Path:
    return state_dir(common_dir) / "refused.json"


def _load_refused(common_dir: Path) -> list[list[object]]:
    try:
        raw = jsondata.loads(read_own(_refused_file(common_dir)))
    except (OSError, ValueError):
        return []
    if not isinstance(raw, dict) or raw.get(POLICY) != policy_stamp():
        return []  # unreadable, or refused under other rules: checked again
    tips = raw.get("tips")
    return (
        [t for t in tips if isinstance(t, list) and len(t) == 6] if isinstance(tips, list) else []
    )


def load_refused(common_dir: Path, where: str, commit: str) -> Refusal | None:
    """How the policy refused `commit` as `where` under the current rules, or None."""
    for name, tip, kind, message, hint, tool_hint in _load_refused(common_dir):
        if name == where and tip == commit and isinstance(kind, str) and isinstance(message, str):
            return kind, message, _text(hint), _text(tool_hint)
    return None


# the kind of a tip refused for a commit of more parents than memory history has (sync/gatecheck)
WIDE = "wide"


def refused_as(common_dir: Path, where: str, kind: str) -> str | None:
    """The last tip refused as `where` for `kind` under the current rules, or None."""
    found = [t[1] for t in _load_refused(common_dir) if t[0] == where and t[2] == kind]
    return found[-1] if found and isinstance(found[-1], str) else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def save_refused(common_dir: Path, where: str, commit: str, refusal: Refusal) -> None:
    """Record that the policy refused `commit` as `where` (inside the repository lock)."""
    kind, message, *hints = refusal
    cut = [None if h is None else h[:MAX_REASON] for h in hints]
    entry: list[object] = [where, commit, kind, message[:MAX_REASON], *cut]
    tips = [t for t in _load_refused(common_dir) if t[:2] != [where, commit]]
    tips = [*tips, entry][-MAX_REFUSED:]
    write_no_links(
        common_dir,
        _refused_file(common_dir),
        json.dumps({POLICY: policy_stamp(), "tips": tips}, sort_keys=True).encode(),
        0o600,
        durable=False,  # a cache: lost, the next sync checks the tip again
    )
