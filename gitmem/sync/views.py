"""A ref as the steps of a sync see it: its files in plaintext, and a tree written from them.

Two views behind one interface, chosen per ref (`RefViews.of`): the team ref is plain (what
git holds is what the merge reads); this user's personal ref is sealed — ciphertext on the ref,
plaintext for the merge, names of encrypted files kept out of commit messages
(docs/design.md §5). The steps never ask which one they hold.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from gitmem.errors import GitmemError
from gitmem.gitstore.objects import as_tree_input, blobs
from gitmem.gitstore.store import Store
from gitmem.project.scopes import Project

if TYPE_CHECKING:
    from gitmem.privacy.codec import PersonalCodec
    from gitmem.privacy.crypto import Keyring


class RefView(Protocol):
    sealed: bool

    def files(self, commit: str) -> dict[str, str]:
        """path -> plaintext blob id of the commit's tree."""
        ...

    def times(self, commit: str, times: dict[str, float]) -> dict[str, float]:
        """The change times of `commit`'s paths, by plaintext path."""
        ...

    def keyring(self, commit: str | None) -> Keyring | None:
        """The key ring a new commit on top of `commit` encrypts with (None: plain)."""
        ...

    def merged_keyring(self, base: str | None, local: str, remote: str) -> Keyring | None: ...

    def tree(self, files: dict[str, str], keyring: Keyring | None) -> str:
        """The tree the ref holds for these plaintext files."""
        ...

    def hidden(self, text: str) -> bool:
        """Whether `text` (a path or a resolution) names a file whose name is encrypted:
        commit messages travel in plaintext."""
        ...

    def changed_files(self, old: str, new: str) -> dict[str, tuple[str | None, str | None]] | None:
        """{plaintext path: (blob id in commit `old`, in `new`), None: not there} of the files
        that differ, when the view reads them from its decodes; None: the trees' diff says."""
        ...


class PlainView:
    sealed = False

    def __init__(self, repo: Store) -> None:
        self.repo = repo

    def files(self, commit: str) -> dict[str, str]:
        return blobs(self.repo.list_tree(commit))

    def times(self, commit: str, times: dict[str, float]) -> dict[str, float]:
        return times

    def keyring(self, commit: str | None) -> Keyring | None:
        return None

    def merged_keyring(self, base: str | None, local: str, remote: str) -> Keyring | None:
        return None

    def tree(self, files: dict[str, str], keyring: Keyring | None) -> str:
        return self.repo.write_tree(as_tree_input(files))

    def hidden(self, text: str) -> bool:
        return False

    def changed_files(self, old: str, new: str) -> dict[str, tuple[str | None, str | None]] | None:
        return None  # the trees' own diff (hidden names would not say which file moved)


class SealedView:
    sealed = True

    def __init__(self, repo: Store, codec: PersonalCodec) -> None:
        self.repo, self.codec = repo, codec

    def files(self, commit: str) -> dict[str, str]:
        # a copy, as PlainView's: a caller that edits it (a merge of displaced edits) must
        # not edit the codec's decode of `commit`, which later steps read again
        return dict(self.codec.decode(commit).files)

    def times(self, commit: str, times: dict[str, float]) -> dict[str, float]:
        return self.codec.plain_times(commit, times)

    def keyring(self, commit: str | None) -> Keyring | None:
        return None if commit is None else self.codec.decode(commit).keyring

    def merged_keyring(self, base: str | None, local: str, remote: str) -> Keyring | None:
        return self.codec.merged_keyring(base, local, remote)

    def tree(self, files: dict[str, str], keyring: Keyring | None) -> str:
        return self.repo.write_tree(as_tree_input(self.codec.encode(files, keyring)))

    def hidden(self, text: str) -> bool:
        return text.split("/", 1)[0] in self.codec.wanted

    def changed_files(self, old: str, new: str) -> dict[str, tuple[str | None, str | None]] | None:
        """From the two commits' plaintext (each decoded from the one checked before it: a
        pull decoded both already), compared in C: a pull's write-back moves the files that
        changed, as it does for a plain ref, instead of comparing every file's record."""
        try:
            before, after = self.files(old), self.files(new)
        except GitmemError:
            return None  # the commit the folder held does not open now: the tip read whole
        moved = {p for p, _ in before.items() ^ after.items()}
        return {p: (before.get(p), after.get(p)) for p in moved}


class RefViews:
    """The view of each ref of a run; the personal codec made when first needed, once."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.codec: PersonalCodec | None = None  # made by the first sealed view asked for
        self._plain = PlainView(project.repo)
        self._sealed: SealedView | None = None

    def of(self, ref: str) -> RefView:
        if ref != self.project.user_ref:
            return self._plain
        if self._sealed is None:
            self._sealed = SealedView(self.project.repo, self.codec_for(ref))
        return self._sealed

    def sealed(self, ref: str) -> bool:
        """Whether `ref`'s view is the sealed one (without making it: no codec loaded)."""
        return ref == self.project.user_ref

    def codec_for(self, ref: str) -> PersonalCodec:
        if self.codec is None:
            from gitmem.privacy.codec import personal_codec

            self.codec = personal_codec(self.project.repo, ref)
            self.codec.user_scope = self.project.key.startswith("user:")  # userscope.user_key
            if self.codec.user_scope:
                from gitmem.privacy.keys import granted_elsewhere

                project = self.project
                self.codec.granted_elsewhere = lambda: granted_elsewhere(project)
            elif self.project.hub:
                repo = self.project.repo

                def own_hub() -> bool:  # asked only when a grant is named: no import before
                    from gitmem.core.userdirs import users_own

                    return users_own(repo, "gitmem.hub") is not None

                # `gitmem key grant` here grants the user scope too (a hub of the user's own)
                self.codec.grants_user_scope = own_hub
            if self.project.remote is not None or self.project.hub:
                route = self.project.route(ref)
                from gitmem.core.sanitize import shown_url

                # named in refusals: a hub's URL without the credentials it may hold
                self.codec.remote_ref = (shown_url(route.remote), route.name)
        return self.codec
