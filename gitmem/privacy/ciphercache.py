"""The cipher cache of the personal ref: which ciphertext each plaintext got, per key and path.

An unchanged file is neither re-encrypted nor re-decrypted (gitmem/privacy/codec.py). The pairs
are kept in two files: the whole cache, and a journal of the pairs changed since it was
written, so a pull that changes 10 pairs of 10,000 writes a journal of ~10 lines instead of
the whole cache (1.1 MB at 10,000 files), and the cache is re-written only when the journal
has grown past an eighth of it (or the scope key changed).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from gitmem.core import jsondata
from gitmem.core.statedir import read_own, state_dir

# the pairs name the user's personal files: readable by the user alone (an existing file
# written by an older gitmem is tightened on its next write)
PRIVATE = 0o600


class CipherCache:
    """Last known (plaintext id, ciphertext id) per key and path, under <common-dir>/gitmem/."""

    def __init__(self, common_dir: Path) -> None:
        self.path = state_dir(common_dir) / "cipher-cache.json"
        # what a sync with nothing new asks (is the tip in the wanted form?) is kept apart
        # from the pairs (a line per file): it need not read ten thousand of them to know
        self.form_path = self.path.parent / "cipher-form.json"
        self.journal_path = self.path.parent / "cipher-journal.json"
        self._journal: dict[str, dict[str, list[str]]] = {}  # pairs changed since the cache
        self._whole = False  # the cache itself must be re-written (a new key)
        self.objects = common_dir / "objects"
        self.private = self.path.parent / "objects"  # GitDir.private_objects
        self._pairs: dict[str, dict[str, list[str]]] | None = None
        self._pairs_dirty = False
        self.form: list[str] = []  # [tip, *prefixes]: a tip already in the wanted form
        self.migrated = ""  # the last plaintext commit re-written encrypted (still in history)
        self.dirty = False
        try:
            raw = jsondata.loads(read_own(self.form_path))
            if raw.get("version") == 1:
                self.form = [str(x) for x in raw.get("form", [])]
                self.migrated = str(raw.get("migrated", ""))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self._load(with_form=True)  # written by an older gitmem: all in one file
            self.dirty = self.path.exists()  # split it on the next save

    @property
    def loaded(self) -> bool:
        """Whether the pairs were read (or set) in this run: asking them costs nothing more."""
        return self._pairs is not None

    @property
    def pairs(self) -> dict[str, dict[str, list[str]]]:
        if self._pairs is None:
            self._load(with_form=False)
        assert self._pairs is not None
        return self._pairs

    @pairs.setter
    def pairs(self, value: dict[str, dict[str, list[str]]]) -> None:
        self._pairs = value
        self._pairs_dirty = self._whole = True
        self._journal = {}

    def _load(self, with_form: bool) -> None:
        self._pairs = {}
        try:
            raw = jsondata.loads(read_own(self.path))
            if raw.get("version") == 1:
                self._pairs = raw["keys"]
                if with_form:
                    self.form = list(raw.get("form", []))
                    self.migrated = str(raw.get("migrated", ""))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass
        try:  # the pairs changed since: over the cache's (a pair is a path's newest)
            raw = jsondata.loads(read_own(self.journal_path))
            if raw.get("version") == 1 and raw.get("base") == file_stamp(self.path):
                for key_id, known in raw["keys"].items():
                    self._pairs.setdefault(key_id, {}).update(known)
                self._journal = raw["keys"]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass

    def loose(self, oid: str) -> bool:
        """A loose object of the repository, or of gitmem's private ones (a sealed object
        written by a run whose ref did not move: not published yet)."""
        tail = Path(oid[:2], oid[2:])
        return (self.objects / tail).exists() or (self.private / tail).exists()

    def get(self, key_id: str, path: str) -> tuple[str, str] | None:
        pair = self.pairs.get(key_id, {}).get(path)
        return (pair[0], pair[1]) if pair and len(pair) == 2 else None

    def put(self, key_id: str, path: str, plain: str, cipher: str) -> None:
        if key_id not in self.pairs and self.pairs:
            self.pairs = {}  # a new scope key (rotation): the old key's pairs serve no one
        known = self.pairs.setdefault(key_id, {})
        if known.get(path) != [plain, cipher]:
            known[path] = [plain, cipher]
            self._journal.setdefault(key_id, {})[path] = [plain, cipher]
            self.dirty = self._pairs_dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        from gitmem.core.nolinks import write_no_links

        common = self.path.parent.parent  # never through a link below the git directory
        small = {"version": 1, "form": self.form, "migrated": self.migrated}
        if self._pairs_dirty:  # the pairs first: the form file is only ever a shortcut
            journaled = sum(map(len, self._journal.values()))
            if self._whole or journaled * 8 > sum(map(len, self.pairs.values())):
                data = json.dumps({**small, "keys": self.pairs}).encode()
                write_no_links(common, self.path, data, PRIVATE, durable=False)
                self._journal, self._whole = {}, False
            journal = {"version": 1, "base": file_stamp(self.path), "keys": self._journal}
            write_no_links(
                common, self.journal_path, json.dumps(journal).encode(), PRIVATE, durable=False
            )
        write_no_links(common, self.form_path, json.dumps(small).encode(), PRIVATE, durable=False)
        self.dirty = self._pairs_dirty = False


def file_stamp(path: Path) -> list[int]:
    """What names a file as written, for a journal kept over it: a journal over another file
    (re-written since, by an older gitmem that knows no journal), or none, is not read."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return []
    return [st.st_ino, st.st_size, st.st_mtime_ns]
