"""The personal ref during a sync: plaintext for the merge, ciphertext on the ref
(docs/design.md §5).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitmem.scopes import Scope
from gitmem.sync.ledger import SyncBase
from gitmem.treemerge import as_tree_input, blobs

if TYPE_CHECKING:
    from gitmem.crypto import Keyring
    from gitmem.privacy import PersonalCodec


class PersonalRefs(SyncBase):
    """How the steps read and write a ref that may be encrypted."""

    # -- the personal ref: plaintext for the merge, ciphertext on the ref ----------------------

    def _open_refs(self) -> list[tuple[str, list[Scope]]]:
        return [(ref, scopes) for ref, scopes in self.by_ref.items() if ref not in self.locked]

    def _sealed(self, ref: str) -> bool:
        return ref == self.project.user_ref

    def _hidden(self, ref: str, text: str) -> bool:
        """True when `text` (a path or a resolution) names a file of an encrypted prefix:
        commit messages travel in plaintext."""
        return self._sealed(ref) and text.split("/", 1)[0] in self._codec_for(ref).wanted

    def _codec_for(self, ref: str) -> PersonalCodec:
        if self._codec is None:
            from gitmem.privacy import personal_codec

            self._codec = personal_codec(self.repo, ref)
            if self.project.remote is not None or self.project.hub:
                route = self.project.route(ref)
                self._codec.remote_ref = (route.remote, route.name)
        return self._codec

    def _files(self, ref: str, commit: str) -> dict[str, str]:
        if not self._sealed(ref):
            return blobs(self.repo.list_tree(commit))
        return self._codec_for(ref).decode(commit).files

    def _times(self, ref: str, commit: str, times: dict[str, float]) -> dict[str, float]:
        return self._codec_for(ref).plain_times(commit, times) if self._sealed(ref) else times

    def _keyring(self, ref: str, commit: str | None) -> Keyring | None:
        if not self._sealed(ref) or commit is None:
            return None
        return self._codec_for(ref).decode(commit).keyring

    def _merged_keyring(
        self, ref: str, base: str | None, local: str, remote: str
    ) -> Keyring | None:
        if not self._sealed(ref):
            return None
        return self._codec_for(ref).merged_keyring(base, local, remote)

    def _tree(self, ref: str, files: dict[str, str], keyring: Keyring | None) -> str:
        if self._sealed(ref):
            files = self._codec_for(ref).encode(files, keyring)
        return self.repo.write_tree(as_tree_input(files))
