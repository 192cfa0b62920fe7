"""The checks of a fetched tip this clone does not hold yet, before any of it is merged or
written: the tree's policy, the project it belongs to, signatures, and the personal ref's seal; a
refused ref is put back and set aside. Also the ref's identity file (gitmem.toml) and adopting a
key as an alias. `RemoteGate` (sync/gate.py) decides which tips need them and loads this module
at the first that does: a sync whose fetched tips are all held never imports the policy."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping

from gitmem.core.limits import MAX_PARENTS
from gitmem.core.sanitize import command_word
from gitmem.errors import ConcurrentUpdate, GitError, TamperedRef, UntrustedTreeError
from gitmem.gitstore.objects import as_tree_input, blobs
from gitmem.policy.checkedtrees import (
    WIDE,
    load_checked,
    load_refused,
    save_checked,
    save_refused,
)
from gitmem.policy.rules import (
    Finding,
    must_be_signed,
    read_as_text,
    signature_findings,
)
from gitmem.policy.treecheck import (
    META_FILE,
    Checked,
    RefMeta,
    check_tree,
    merged_meta,
    parse_meta,
    render_meta,
)
from gitmem.project.scopes import GITMEM_PREFIX, TEAM_REF, refused_hold
from gitmem.sync.ledger import SyncRun
from gitmem.sync.report import rewritten_note

# findings of a pulled tree told, never blocking: secrets and instructions that reach the
# agent, and text that is not UTF-8 (merged on its bytes: re-save it as UTF-8)
NOTED = ("GM113", "GM140", "GM150")
# the kind (refused.json) of a writer tip refused as another project's: the key it was not
# of follows (#23, round 22)
OTHER_PROJECT = "other-project:"
# the kind of a writer tip refused for its signatures (`gitmem.requireSigned`): its kept
# refusal is asked of git again, never of the cache alone (keys change outside gitmem)
UNSIGNED = "unsigned"
# new commits whose parents are read through the object reader (no walk of git's) before a tip
# passes; past them (a long new history) one `rev-list --min-parents` asks git for the rest
WIDE_WALK = 256


class TipChecks:
    """The checks of one sync's fetched tips, and the identity file (gitmem.toml) a merge or
    an adoption writes."""

    def __init__(self, run: SyncRun) -> None:
        self.run = run
        self.project, self.repo, self.opts = run.project, run.repo, run.opts
        self.result, self.views, self.ledger = run.result, run.views, run.ledger
        self._wide: set[str] = set()  # tips refused for a commit of too many parents

    def check(self, ref: str, tracking: str, commit: str, local: str | None, writer: bool) -> bool:
        """Validate the fetched tip `commit` of `tracking` (of `ref`; `writer`: one of its
        writer refs, sync/writers.py) that the local ref (`local`) does not hold; False when
        it was refused."""
        try:
            where = self.project.source_name(ref)
            since = load_checked(self.repo.common_dir, tracking)
            if writer:
                where = self._writer_where(tracking)
                # a writer tip is the team's tree with a few files changed: checked along them
                since = since or load_checked(self.repo.common_dir, self.project.tracking_ref(ref))
            meta, findings, counts = self._tree(commit, where, since, local)
            if not meta.knows(self.project.key) and not self.opts.force_key:
                error = UntrustedTreeError(*self._other_project(ref, meta, commit, where))
                if writer:  # kept as the tree's refusal is: a held tip is told it again
                    self._keep(where, commit, f"{OTHER_PROJECT}{self.project.key}", error)
                raise error
            if local is not None and not self.opts.force_key:
                self._not_two_projects(ref, meta, local, commit, where)
            unsigned = self._unsigned(ref, commit, local, where)
            if unsigned is not None:
                if writer:  # kept as the tree's refusal is: a held tip is told again
                    self._keep(where, commit, UNSIGNED, unsigned)
                raise unsigned
            if self.views.of(ref).sealed:
                pin = self._pin(ref, local, since)
                if not self._plain_personal(pin, counts, since):
                    self._verify_personal(ref, commit, local, pin)
        except (UntrustedTreeError, TamperedRef) as exc:
            # an octopus is never held as a commit (a held tip is a ref git walks at every
            # fetch): a main ref's is marked by its tree, and not fetched while the remote
            # lists it (`wide_unfetched`); a writer ref's listing never fetches a held tip
            hold = commit
            if commit in self._wide and not writer:
                hold = self.repo.read_commit(commit)[0]
            if writer:  # its tracking ref dropped: never merged; its tip held (`told_again`)
                self.repo.delete_ref(tracking, commit)
                self._hold(tracking, hold)
                self.result.refused.append(exc)
                return False
            self._unfetch(ref, commit)
            self._hold(tracking, hold)
            # one hostile ref must not hold the others back: set it aside (nothing of it
            # written, nothing of ours committed or pushed on it) and say so after the rest
            self.run.locked.add(ref)
            self.result.refused.append(exc)
            report = self.result.report(ref)
            report.refused = True
            # nothing of it was merged: the fetch's "rewritten; merged" note is untrue now
            report.notes[:] = [n for n in report.notes if n != rewritten_note(ref)]
            if not self.run.open_refs():
                raise self.result.refused[0] from None  # nothing else to sync
            return False
        self.run.checked.add(commit)
        self._hold(tracking, None)  # a tip passed: nothing refused is held for it any more
        if counts is not None:  # the next tip of this ref is checked along its changes
            save_checked(self.repo.common_dir, tracking, counts)
        notes = self.result.report(ref).notes
        for finding in findings:  # new content that reaches the agent: say so, never block
            if finding.code in NOTED:
                notes.append(
                    f"pulled {finding} (gitmem validate {command_word(ref)} shows all findings)"
                )
            if finding.code == "GM113":
                self._not_utf8(ref, finding)
        return True

    def _unsigned(
        self, ref: str, commit: str, local: str | None, where: str
    ) -> UntrustedTreeError | None:
        """The refusal of `commit` (of `ref`, shown as `where`) for commits since `local` git
        does not verify, under `gitmem.requireSigned`; None when it is off or all verify."""
        if not must_be_signed(ref, self.repo.config_get("gitmem.requireSigned")):
            return None
        unsigned = signature_findings(self.repo.unverified_commits(commit, local), ref)
        if not unsigned:
            return None
        return UntrustedTreeError(
            f"{where}: {unsigned[0].message}"
            + (f" (and {len(unsigned) - 1} more)" if len(unsigned) > 1 else ""),
            "gitmem.requireSigned is on: ask its author to sign (git config "
            "user.signingKey) or add their key to gpg.ssh.allowedSignersFile; "
            "nothing was written",
        )

    def told_unfetched(self, ref: str, commit: str) -> bool:
        """The remote still lists `commit`, the wide tip of `ref` refused before and not
        fetched again (`sync/start.wide_unfetched`): its kept refusal said again and `ref` set
        aside, nothing fetched nor walked. False when that refusal is not kept any more."""
        known = self._kept_refusal(self.project.source_name(ref), commit)
        if known is None:
            return False
        self.run.locked.add(ref)
        self.result.refused.append(known)
        self.result.report(ref).refused = True
        if not self.run.open_refs():
            raise known
        return True

    def _writer_where(self, tracking: str) -> str:
        return f"{self.project.remote}/{GITMEM_PREFIX}{tracking.split('/', 3)[3]}"

    def told_again(self, ref: str, tracking: str, commit: str) -> bool:
        """The held refused writer tip `commit` of `tracking` (of `ref`), listed again by the
        remote: its kept refusal said again (refused.json), nothing fetched nor walked. None
        kept (other rules, or forgotten): the hold let go, so the next sync takes the tip
        anew and checks it under today's rules (its objects are here: no fetch)."""
        known = self._kept_refusal(self._writer_where(tracking), commit)
        if known is None:
            self._hold(tracking, None)
            return False
        self.result.refused.append(known)
        return True

    def _kept_refusal(self, where: str, commit: str) -> UntrustedTreeError | TamperedRef | None:
        """The refusal of `commit` as `where` kept under the current rules, as an error. One
        of another project's key holds for this project's key, without --force-key (#23)."""
        known = load_refused(self.repo.common_dir, where, commit)
        if known is None:
            return None
        kind, message, hint, tool_hint = known
        if kind == WIDE:
            self._wide.add(commit)  # never held (`check`)
        if kind == UNSIGNED:  # asked again (one `git log`): a signer allowed since lets it in,
            # and `requireSigned` turned off too (red team 23: never kept, the held tip was
            # let go and taken anew every other sync, refused on one and silent on the next)
            return self._unsigned(TEAM_REF, commit, self.repo.resolve(TEAM_REF), where)
        if kind.startswith(OTHER_PROJECT) and (
            self.opts.force_key or kind != OTHER_PROJECT + self.project.key
        ):
            return None
        error = TamperedRef if kind == "tampered" else UntrustedTreeError
        return error(message, hint, tool_hint=tool_hint)

    def _keep(self, where: str, commit: str, kind: str, exc: UntrustedTreeError) -> None:
        """Keep the refusal of `commit` as `where` (refused.json), told again without a walk."""
        save_refused(
            self.repo.common_dir, where, commit, (kind, exc.message, exc.hint, exc.tool_hint)
        )

    def _tree(
        self, commit: str, where: str, since: Checked | None, local: str | None
    ) -> tuple[RefMeta, list[Finding], Checked | None]:
        """The policy's check of `commit`'s tree (`check_tree`); a tip it refused before under
        the same rules is refused again in the same words without a walk (round 20: a
        1,000,000-file tree left on the remote cost every later sync 2.5 s)."""
        common = self.repo.common_dir
        known = self._kept_refusal(where, commit)
        if known is not None:
            raise known
        try:
            self._not_too_wide(commit, where, local)
        except UntrustedTreeError as exc:
            save_refused(common, where, commit, (WIDE, exc.message, exc.hint, exc.tool_hint))
            raise
        try:
            return check_tree(self.repo, commit, where, since=since, ours=lambda: self._ours(local))
        except (UntrustedTreeError, TamperedRef) as exc:
            kind = "tampered" if isinstance(exc, TamperedRef) else "untrusted"
            save_refused(common, where, commit, (kind, exc.message, exc.hint, exc.tool_hint))
            raise

    def _not_too_wide(self, commit: str, where: str, local: str | None) -> None:
        """Refuse `commit` when a commit of its new history has more than MAX_PARENTS parents,
        found by reading commits (the object reader: git walks nothing) down to one we hold or
        one we had fetched (the tip before this fetch); past WIDE_WALK of them, git is asked
        of the rest once (`rev-list --min-parents`, linear on a history of plain commits)."""
        known = {c for c in (local, *self.run.fetched_from.values()) if c}
        todo, seen = [commit], set(known)
        wide: str | None = None
        while todo and wide is None and len(seen) - len(known) < WIDE_WALK:
            oid = todo.pop()
            if oid in seen:
                continue
            seen.add(oid)
            try:
                parents = self.repo.read_commit(oid)[1]
            except GitError:  # a tag, tree or blob: check_tree refuses it for what it is
                continue
            if len(parents) > MAX_PARENTS:
                wide = oid
            todo.extend(parents)
        if todo and wide is None:  # a long new history: git reads the rest
            wide = self.repo.first_wide(todo, sorted(known), MAX_PARENTS + 1)
        if wide is None:
            return
        count = len(self.repo.read_commit(wide)[1])
        self._wide.add(commit)  # never held by a ref: git would walk it at every fetch
        raise UntrustedTreeError(
            f"{where}: commit {wide[:12]} merges {count} parents (gitmem's history merges "
            f"{MAX_PARENTS}): refused before git walks it",
            f"not history gitmem writes: ask who pushed {where} to put back its last tip "
            "gitmem wrote (your memory here stays as it was)",
        )

    def _not_utf8(self, ref: str, finding: Finding) -> None:
        """A pulled file that is text but not UTF-8 (GM113), for the --json report: its path
        and the offset of its first bad byte (the finding carries it)."""
        if finding.offset is not None:
            self.result.report(ref).not_utf8.append((finding.path, finding.offset))

    def _ours(self, local: str | None) -> tuple[frozenset[str], frozenset[str]]:
        """The blob ids and paths of our tree that passed as memory text and names (what a
        check of a whole fetched tree need not look at again; never our ciphertext): listed
        only when the whole tree is checked."""
        return read_as_text(blobs(self.repo.list_tree(local)) if local else {})

    def _pin(self, ref: str, local: str | None, since: Checked | None) -> str | None:
        """The remote's last state this machine vouches for, which the personal checks compare
        the fetched tip with (the first contact, rollback, key endorsements): the tracking
        ref before this fetch when this machine merged it (the local ref holds it) or it
        passed these checks (`since`, the tree checked.json keeps, is its tree). A tracking
        ref moved by a fetch that checks nothing (status --fetch) vouches for nothing: then
        the newest commit it shares with the local ref, or none (a first contact)."""
        pin = previous = self.run.fetched_from.get(ref)
        if previous is not None and previous != local and not self._vouched(previous, since):
            merged = local is not None and self.repo.is_ancestor(previous, local)
            if not merged:
                pin = self.repo.merge_base(local, previous) if local is not None else None
        self.run.pins[ref] = pin  # where a refused fetch puts the tracking ref back
        return pin

    def _vouched(self, commit: str, since: Checked | None) -> bool:
        """`commit`'s tree is the last of its ref that passed the checks here."""
        return since is not None and self.repo.read_commit(commit)[0] == since.tree

    def _plain_personal(
        self, pinned: str | None, counts: Checked | None, since: Checked | None
    ) -> bool:
        """The fetched personal tip holds no key, no sealed folder and no local/, and so did
        the tip fetched before it (the pin of the personal checks; none: a first contact,
        checked whole): the personal checks have
        nothing to open, and their content checks are the policy's, which just ran on every
        changed file. Only for a tree checked along its changes (`counts` from `since`)."""
        if counts is None or since is None or counts.auto_sealed:
            return False
        repo = self.repo
        if any(repo.tree_entry(counts.tree, top) for top in ("keys", "local")):
            return False
        if pinned is None:
            # a first contact (the tracking ref dropped, checked.json kept): plaintext where
            # this machine encrypts is refused there, never taken as a history synced here
            return False
        pinned_tree = repo.read_commit(pinned)[0]
        if any(repo.tree_entry(pinned_tree, top) for top in ("keys", "local")):
            return False
        if pinned_tree == since.tree:
            return not since.auto_sealed
        return repo.tree_entry(pinned_tree, "auto/manifest") is None

    def _other_project(
        self, ref: str, meta: RefMeta, commit: str, where: str = ""
    ) -> tuple[str, str]:
        """The refusal of a ref recorded under another key, with the exact command that
        accepts it, named as every hint names one: as typed in the clone (no `-C` with an
        absolute path a newcomer must read past). A path (file:…) and a served URL (host/…) of one repository cannot be
        told from two projects by their names: the server's layout is not in the URL. A
        personal ref sealed with a key this machine is not granted yet cannot be adopted
        (adopt writes our key into it): the grant comes first, then adopt."""
        project = self.project
        from gitmem.project.refmeta import shown_keys

        names = shown_keys((meta.key, *meta.aliases))
        option = (
            f" --remote {command_word(project.remote or '')}" if project.remote != "origin" else ""
        )
        local = [k for k in (meta.key, *meta.aliases, project.key) if k.startswith("file:")]
        why = (
            "a path and a URL of one repository are two spellings gitmem cannot match; "
            if local and len(local) < len({meta.key, *meta.aliases, project.key})
            else ""
        )
        grant = self._grant_first(ref, commit)
        return (
            f"{where or project.source_name(ref)} holds memory of project {names}, "
            f"not of this one ({project.key!r})",
            f"{why}if it is this project, {grant}run once: gitmem adopt{option} — it adds "
            f"{project.key!r} as an alias on the ref, and teammates keep syncing under both "
            "spellings",
        )

    def _not_two_projects(
        self, ref: str, meta: RefMeta, local: str, commit: str, where: str
    ) -> None:
        """Refused: the local ref is memory of another project than the fetched one — keyed
        to neither this clone's key nor any the fetched ref knows (red team 16: after `git
        remote set-url origin` to another project's remote, the two projects' memories were
        merged file by file and pushed there, and theirs written into our folders). A moved
        repository's ref keeps its old key (known to ours: adopted), histories that share a
        commit are one memory, and a remote that has no memory ref yet takes ours as before."""
        from gitmem.project.refmeta import meta_at, shown_keys, unclaimed

        ours = meta_at(self.repo, local)
        if ours is None or unclaimed(ours) or ours.knows(self.project.key):
            return
        if any(meta.knows(k) for k in (ours.key, *ours.aliases)):
            return
        if self.repo.merge_base(local, commit) is not None:
            return  # one memory history under two spellings (a path, then its URL): merged
        option = (
            f" --remote {command_word(self.project.remote or '')}"
            if self.project.remote != "origin"
            else ""
        )
        raise UntrustedTreeError(
            f"{where or self.project.source_name(ref)} holds memory of project "
            f"{shown_keys((meta.key, *meta.aliases))}, and {ref} here of project "
            f"{shown_keys((ours.key, *ours.aliases))}: two projects' memory, not merged",
            f"if the remote's URL was changed by mistake, set it back (git remote set-url); "
            f"if both are this project, run once: gitmem adopt{option}; nothing was written",
        )

    def _grant_first(self, ref: str, commit: str) -> str:
        """The grant step before adopt, when `ref` is sealed with a key this machine cannot
        open yet (recorded as asked for, as a sync that meets such a key records it); else ""."""
        if not self.views.of(ref).sealed:
            return ""
        from gitmem.privacy.layout import SCOPE_KEY_FILE

        codec = self.views.codec_for(ref)
        tree = self.repo.read_commit(commit)[0]
        if not self.repo.tree_entry(tree, SCOPE_KEY_FILE) or codec.scope_key(tree) is not None:
            return ""
        from gitmem.privacy.firstcontact import asked_to_be_granted

        machine = codec.machine(create=True)
        assert machine is not None
        asked_to_be_granted(self.repo.common_dir, machine.recipient, commit)
        return (
            "this machine cannot open it yet: first, on a machine that has its key: "
            f"gitmem key grant '{machine.recipient}' and gitmem sync; then here "
        )

    def _verify_personal(self, ref: str, commit: str, local: str | None, pin: str | None) -> None:
        """Open the fetched personal commit with our key before any of it is merged."""
        from gitmem.privacy.layout import NoAccess

        codec = self.views.codec_for(ref)
        try:
            where = self.project.source_name(ref)
            for finding in codec.check_fetched(commit, pin, local, where):
                if finding.code in NOTED:  # as for plaintext: said, never blocking
                    self.result.report(ref).notes.append(
                        f"pulled {finding} (gitmem validate {command_word(ref)} shows all findings)"
                    )
                if finding.code == "GM113":
                    self._not_utf8(ref, finding)
        except NoAccess:  # a DecryptError goes up: _check_remote un-fetches and refuses
            self.set_aside_without_key(ref, commit)

    def set_aside_without_key(self, ref: str, commit: str | None) -> None:
        """`ref` is sealed with a key this machine lacks (the fetched tip, or the local one
        its edits would be committed on): set aside while the other refs sync, its files left
        on disk, the note naming the grant; `commit`: the tip this machine asks to be granted
        at (first contact)."""
        from gitmem.privacy.firstcontact import asked_to_be_granted

        codec = self.views.codec_for(ref)
        self.run.locked.add(ref)
        report = self.result.report(ref)
        report.no_key = True
        line = codec.grant_line()
        if line not in report.notes:
            report.notes.append(line)
        if commit is not None:
            machine = codec.machine(create=True)
            assert machine is not None
            # the key this machine is granted next is the one it asked for (first contact)
            asked_to_be_granted(self.repo.common_dir, machine.recipient, commit)

    def release(self, tracking: str) -> None:
        """Nothing refused is held for `tracking` any more (RemoteGate: its tip passed,
        is one we hold, or is gone)."""
        self._hold(tracking, None)

    def _hold(self, tracking: str, refused: str | None) -> None:
        """Hold `refused` (None: nothing) as the last refused tip of `tracking`: the remote's
        objects stay reachable, so the next fetch of the same tip finds them at once. The ref
        is only ever read by git (none of gitmem's code merges or pushes it); from our refs'
        cache, no process unless it moves."""
        held = refused_hold(tracking)
        old = self.repo.resolve(held)
        if old == refused:
            return
        with contextlib.suppress(ConcurrentUpdate):  # another gitmem's move: it holds one
            if refused is None:
                self.repo.delete_refs({held: old} if old else {})
            else:
                self.repo.update_ref(held, refused, old, "gitmem: refused remote tip held")

    def _unfetch(self, ref: str, refused: str) -> None:
        """Put the remote-tracking ref back where it was: a refused fetch leaves no trace;
        where a check vouched for it (`_pin`: not where a fetch that checks nothing left it)."""
        tracking = self.project.tracking_ref(ref)
        previous = self.run.pins.get(ref, self.run.fetched_from.get(ref))
        if previous:
            self.repo.update_ref(tracking, previous, refused, "gitmem: refused remote tree")
        else:
            self.repo.delete_ref(tracking, refused)

    def meta_of(self, files: Mapping[str, str]) -> RefMeta | None:
        oid = files.get(META_FILE)
        return parse_meta(self.repo.read_blob(oid, keep=True)) if oid else None

    def set_meta(self, files: dict[str, str], metas: list[RefMeta], adopt: bool) -> None:
        """gitmem.toml for `files`: the union of `metas`' identities (ours added on adopt)."""
        if not metas:
            metas = [RefMeta(1, self.project.key)]
        meta = merged_meta(metas, self.project.key if adopt else None)
        files[META_FILE] = self.repo.write_blob(render_meta(meta.key, meta.aliases))

    def adopt_key(self, commit: str) -> str:
        """The remote's commit, with our key added as an alias (never replacing its key)."""
        tree, _, _ = self.repo.read_commit(commit)
        files = blobs(self.repo.list_tree(tree))
        meta = self.meta_of(files)
        if meta is not None and meta.knows(self.project.key):
            return commit
        self.set_meta(files, [meta] if meta else [], adopt=True)
        new_tree = self.repo.write_tree(as_tree_input(files))
        if new_tree == tree:
            return commit
        return self.repo.write_commit(
            new_tree, [commit], f"gitmem: adopt {self.project.key} as an alias of this project"
        )
