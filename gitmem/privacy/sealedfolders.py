"""Which personal folders a ref stores sealed: what gitmem.encrypt wants, what a tip holds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitmem.core.choices import ENCRYPT_MODES, encrypt_mode

# the sync's commit step asks known_in_form on every run: read while the fetch runs, not after
from gitmem.privacy.ciphercache import CipherCache
from gitmem.privacy.layout import MANIFEST, PERSONAL_PREFIXES

if TYPE_CHECKING:
    from collections.abc import Iterable, Set

    from gitmem.gitstore.store import Store


def sealed_prefixes(repo: Store) -> tuple[str, ...]:
    return ENCRYPT_MODES[encrypt_mode(repo.config_get("gitmem.encrypt"))]


def wanted_prefixes(repo: Store) -> tuple[str, ...]:
    """The prefixes the personal ref stores sealed: gitmem.encrypt's, and local always (the
    local scope is never written in plaintext, whatever gitmem.encrypt says)."""
    return tuple(dict.fromkeys([*sealed_prefixes(repo), "local"]))


def known_in_form(repo: Store, tip: str) -> bool:
    """Whether `tip` was recorded as already in the wanted form (cipher-form.json: the tip and
    the prefixes it was checked for, the inputs of PersonalCodec.rewrite_reason's first
    answer): then nothing is to be re-written, and nothing of the codec need be loaded."""
    return CipherCache(repo.common_dir).form == [tip, *wanted_prefixes(repo)]


def tip_folders(repo: Store, tree: str) -> tuple[set[str], set[str]]:
    """The personal folders of a tip's tree that hold files, and those sealed: read from the
    folders' names, with no listing of the whole tree."""
    present: set[str] = set()
    sealed: set[str] = set()
    for prefix in PERSONAL_PREFIXES:
        names = repo.folder_names(tree, prefix) or []
        if MANIFEST in names:
            sealed.add(prefix)
        if len(names) > (MANIFEST in names):  # a sealed folder's manifest alone: empty
            present.add(prefix)
    return present, sealed


def form_change(present: set[str], sealed: Set[str], wanted: Iterable[str]) -> str | None:
    """Why a tip whose folders `present` hold files, `sealed` of them encrypted, is not in the
    form `gitmem.encrypt` wants (None: it is)."""
    should = present & set(wanted)
    if sealed == should:
        return None
    if should - sealed:
        return f"encrypt {', '.join(sorted(should - sealed))}"
    return f"store {', '.join(sorted(sealed - should))} as plaintext (gitmem.encrypt)"
