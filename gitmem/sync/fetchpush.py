"""Fetch and push for a sync: only our refs, never forced; a refusal for good fails at once
with the server's reason, a rejection because someone pushed first is retried.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

from gitmem.core.sanitize import command_word, shown_url
from gitmem.errors import RemoteError, SecretsFound
from gitmem.gitstore import PushOutcome
from gitmem.gitstore.store import Fetching
from gitmem.gitstore.transport import NO_MESSAGE, unreached
from gitmem.project.scopes import GITMEM_PREFIX, HUB_FETCH_HINT, Project
from gitmem.project.state import holding_lock
from gitmem.project.writerrefs import fetch_spec, listed_by_fetch, unglobbable
from gitmem.sync.gate import RemoteGate, too_wide
from gitmem.sync.ledger import SyncRun
from gitmem.sync.report import SyncOptions, rewritten_note
from gitmem.sync.start import (
    DEFAULT_TIMEOUT,
    begin_fetch,
    fetch_plan,
    wide_unfetched,
    writer_specs,
)

__all__ = ["Exchange", "fetch_plan", "fetch_tracking"]

# a push of one commit reads what it adds from its trees' changed folders up to this many
# changed entries; more, and `log` lists them (one process)
OUTGOING_CHANGES = 4096


class Exchange:
    """The sync's exchange with the remote: fetch our refs, push them without force (git's
    own transport is gitmem.gitstore.transport.Transport)."""

    def __init__(self, run: SyncRun, gate: RemoteGate) -> None:
        self.run, self.gate = run, gate
        self.project, self.repo, self.opts = run.project, run.repo, run.opts
        self.result, self.views, self.ledger = run.result, run.views, run.ledger
        self.rejected: list[str] = []  # refs the last push saw rejected (someone pushed first)
        self._extra: dict[str, list[str]] | None = None
        self._listing = False  # the fetch running lists the writer refs (`listed_by_fetch`)
        # (local, known) -> the commits a push publishes, with their changes
        self._changes: dict[
            tuple[str, str | None],
            list[tuple[str, dict[str, str]]] | list[tuple[str, dict[str, tuple[str, str]]]],
        ]
        self._changes = {}

    @property
    def extra(self) -> dict[str, list[str]]:
        """ref -> glob refspecs fetched with it (its writer refs: sync/writers.py); read when
        a fetch first needs them (a push that is not rejected never does)."""
        start = self.opts.start
        if (
            self._extra is None
            and start is not None
            and start.fetching is not None
            and start.refs == list(self.run.by_ref)
        ):
            self._extra = dict(start.extra)  # the early fetch's: its writer refs listed once
        if self._extra is None:
            self._extra = writer_specs(self.project, self.run.by_ref, self.opts.timeout)
        return self._extra

    # -- 2. transport ------------------------------------------------------------------------

    def by_remote(self, refs: Iterable[str]) -> dict[str, list[str]]:
        """Our refs grouped by the remote that holds them (the project's, or the hub)."""
        groups: dict[str, list[str]] = {}
        for ref in refs:
            groups.setdefault(self.project.route(ref).remote, []).append(ref)
        return groups

    def fetch(self, prune: bool = True, refs: Iterable[str] | None = None) -> None:
        self.finish_fetch(self.start_fetch(refs), prune)

    def start_fetch(self, refs: Iterable[str] | None = None) -> list[Fetching]:
        """Start fetching our refs (or only `refs`: those a push saw rejected) from every
        remote that holds them (in parallel, and in parallel with whatever the caller does
        until `finish_fetch`). The first round's fetch may have been started with the lock
        (`SyncOptions.start`): then that one is taken over."""
        wanted = list(self.run.by_ref if refs is None else refs)
        self._listing = any(
            spec.startswith("^") for ref in wanted for spec in self.extra.get(ref, [])
        )
        start = self.opts.start
        if refs is None and start is not None:
            early = start.take_fetch(wanted, self.opts.timeout, self.extra)
            if early is not None:
                self.run.fetched_from = dict(start.fetched_from)
                return early
        if refs is None:
            self.run.fetched_from = {}
        known = {ref: self.repo.resolve(self.project.tracking_ref(ref)) for ref in wanted}
        self.run.fetched_from.update(known)
        return begin_fetch(self.project, known, self.opts.timeout, self.extra)

    def _wide_listed(self, wide: dict[str, str]) -> None:
        """Refs whose refused wide tip the fetch listed but did not fetch (`fetch_plan`): still
        that tip there, refused again in the same words with nothing fetched nor walked;
        moved or gone, the hold let go and the new tip fetched by name (one more round trip,
        only then)."""
        from gitmem.gitstore.transport import advertised

        listing = advertised(self.repo.common_dir, "refs/", exact=True)
        for ref, commit in wide.items():
            route = self.project.route(ref)
            tip = (listing or {}).get(route.name)
            if listing is not None and tip == commit and self.gate.told_unfetched(ref, commit):
                continue
            self.gate.checks().release(route.tracking)
            if listing is None or tip is not None:
                spec = f"+{route.name}:{route.tracking}"
                self.repo.fetch(route.remote, [spec], self.opts.timeout)

    def cancel_fetch(self, pending: list[Fetching]) -> None:
        for fetch in pending:
            fetch.cancel()

    def finish_fetch(self, pending: list[Fetching], prune: bool = True) -> None:
        missing: set[tuple[str, str]] = set()  # (remote, what the remote calls the ref)
        try:
            for i, fetch in enumerate(pending):
                try:
                    with self.slow(f"fetching memory from {shown_url(fetch.remote)}"):
                        missing.update((fetch.remote, name) for name in fetch.finish())
                except RemoteError as exc:
                    told = self._hub_error(exc, pending)
                    if not self._set_aside(fetch.remote, told, pending[:i] + pending[i + 1 :]):
                        raise told from None
        except BaseException:
            self.cancel_fetch(pending)
            raise
        if prune:
            self._prune(missing)
        wide = wide_unfetched(self.project, self.run.fetched_from)
        if wide:
            self._wide_listed(wide)
        if self._listing:  # the writer refs listed in the fetch's connection: changed ones fetched
            listed_by_fetch(self.project, self.opts.timeout)
        elif (
            self.project.remote,
            fetch_spec(self.project).lstrip("+").partition(":")[0],
        ) in missing:
            unglobbable(self.project, self.opts.timeout)  # names git refused: listed instead
        for ref, old in self.run.fetched_from.items():
            new = self.repo.resolve(self.project.tracking_ref(ref))
            if (
                old
                and new
                and old != new
                and not too_wide(self.repo, new)  # refused at the gate, never walked
                and not self.repo.is_ancestor(old, new)
            ):
                moved = self._renamed(self.project.route(ref).label, old)
                if moved:  # the old name's tip vouches for the new name's history only as far
                    # as they share it: the personal checks (rollback) start from there
                    self.run.fetched_from[ref] = self.repo.merge_base(old, new)
                self.result.report(ref).notes.append(
                    # not rewritten: the hub's copy under the project's new URL, and the one
                    # this clone synced under the old (round 19: told as a force-push)
                    f"the hub's copy under this project's URL is not the one synced here as "
                    f"{moved} before (a repository renamed or moved): merged, nothing lost"
                    if moved
                    else rewritten_note(ref)
                )

    def _hub_error(self, exc: RemoteError, pending: list[Fetching]) -> RemoteError:
        """The hub is a setting, not a remote `git fetch` knows: say which one to check."""
        if self.project.hub and any(f.remote == self.project.hub for f in pending):
            hub = shown_url(self.project.hub)
            if exc.message.startswith(f"cannot fetch from {hub}:"):
                told = exc.message.replace(f"from {hub}", f"from the hub {hub}", 1)
                return RemoteError(told, HUB_FETCH_HINT)
        return exc

    def _set_aside(self, remote: str, exc: RemoteError, others: list[Fetching]) -> bool:
        """A hub that cannot be reached must not hold the project's own refs back (nor the
        project's remote the hub's): when another remote's fetch is under way, the refs of
        the unreachable one are set aside (nothing merged or pushed on them) and said after
        the rest, as a refused ref is. False when nothing else is synced."""
        refs = [r for r in self.run.by_ref if self.project.route(r).remote == remote]
        if not others or not refs:
            return False
        for ref in refs:
            self.run.locked.add(ref)
            self.result.report(ref).unreached = True
        self.result.refused.append(exc)
        return bool(self.run.open_refs())

    def _prune(self, missing: set[tuple[str, str]]) -> None:
        """Drop the tracking ref of each ref the remote no longer has (deleted there): the
        push then sees the remote without it and pushes ours back, so new clones get it.
        Tracking refs a glob fetch of an older gitmem brought (`team-1`…) are dropped too."""
        for ref in self.run.by_ref:
            route = self.project.route(ref)
            folder = route.tracking.rsplit("/", 1)[0] + "/"
            for name, oid in self.repo.refs(folder).items():
                # the glob caught longer names (another user's id with ours as prefix)
                if name != route.tracking and name.startswith(route.tracking):
                    self.repo.delete_ref(name, oid)
            if (route.remote, route.name) not in missing:
                continue
            known = self.repo.resolve(route.tracking)
            if known is None:
                continue  # never on the remote yet (a first sync), or pruned before
            self.repo.delete_ref(route.tracking, known)
            renamed = self._renamed(route.label, known)
            if renamed:  # not deleted: the hub has it under the project's old URL
                there = (
                    "gitmem sync puts it there"
                    if self.opts.mode == "pull"
                    else "pushing ours there; the copy under the old URL stays on the hub"
                )
                note = (
                    "the hub has no memory under this project's URL yet: it was synced as "
                    f"{renamed} before (a repository renamed or moved); {there}"
                )
            else:
                if self.opts.mode != "pull" and self.repo.resolve(ref):
                    self.result.report(ref).pushed_back = route.name  # told at the end
                    continue
                again = (
                    "gitmem sync publishes it again"
                    if self.opts.mode == "pull"
                    else "nothing here to push back"
                )
                note = f"the remote no longer had {route.name} (deleted there): {again}"
            self.result.report(ref).notes.append(note)

    def _renamed(self, label: str, known: str) -> str | None:
        """The project's name the hub's copy was last synced under, when it is not this
        project's now (its remote's URL changed): the hub keeps each project's personal ref
        under the URL's key, so the copy under the new one is missing, not deleted."""
        if label != "hub":
            return None
        from gitmem.project.refmeta import META_FILE, MetaError, parse_meta, shown_keys

        oid = self.repo.resolve(f"{known}:{META_FILE}")
        if oid is None:
            return None
        try:
            meta = parse_meta(self.repo.read_blob(oid, keep=True))
        except MetaError:
            return None
        return None if meta.knows(self.project.key) else shown_keys((meta.key, *meta.aliases))

    def push(self) -> bool:
        """Push every ref that moved, without force; False when one must fetch and retry.

        Not one atomic push: a team ref blocked by a squatter must not hold the personal ref
        back. A ref refused for good (in the way, a hook, a host that takes only branches)
        fails at once with the server's reason: retrying cannot help."""
        pending: dict[str, tuple[str, str | None]] = {}
        for ref, _ in self.run.open_refs():
            local = self.repo.resolve(ref)
            known = self.repo.resolve(self.project.tracking_ref(ref))
            if local and local != known:
                pending[ref] = (local, known)
        self._other_projects_kept(pending)
        if not self.opts.no_verify:
            self._scan_commits(pending)
        self._refuse_plaintext(pending)
        done = True
        self.rejected = []
        failures: list[RemoteError] = []
        pushed: list[str] = []
        for remote, refs in self.by_remote(pending).items():
            routes = {self.project.route(ref).name: ref for ref in refs}
            label = self.project.route(refs[0]).label
            specs = [f"{ref}:{name}" for name, ref in routes.items()]
            try:
                with self.slow(f"pushing memory to {label}"):
                    outcome = self.repo.push(
                        remote,
                        specs,
                        timeout=self.opts.timeout,
                        sealed_only=all(self.views.of(ref).sealed for ref in refs),
                    )
            except RemoteError as exc:  # nothing reached the server (no access, a 403 proxy...)
                forbidden = any(
                    w in exc.message.lower() for w in ("403", "forbidden", "not allowed")
                )
                hint = self._refused_hint(label, exc.hint) if forbidden else exc.hint
                if remote == self.project.remote and not unreached(exc.message):
                    # a reader of the project, not a writer (a network down says nothing of it)
                    hint = (
                        f"{hint}; without push access to {label}: gitmem pull keeps your memory up to date"
                        + (
                            ""
                            if self.project.hub
                            else ", and a hub takes your personal memory (git config --global gitmem.hub URL)"
                        )
                    )
                failures.append(RemoteError(exc.message, hint))
                for ref in refs:
                    self.result.report(ref).unpushed = True
                continue
            accepted = set(routes) if outcome.ok else set(outcome.accepted)
            pushed += [routes[name] for name in accepted & set(routes)]
            if outcome.refused:
                failures.append(self._refusal(remote, label, outcome))
                for name in outcome.refused:
                    if name in routes:
                        self.result.report(routes[name]).unpushed = True
            done &= outcome.ok or not outcome.rejected  # only "someone pushed first" retries
            if not outcome.ok:
                names = {r.split(" ", 1)[0] for r in outcome.rejected}
                self.rejected += [routes[n] for n in routes if n in names]
        # the remote now holds each pushed oid: move our view of it from where we last saw it,
        # every tracking ref in one git (one transaction; CAS on each)
        moves = [(self.project.tracking_ref(ref), *pending[ref]) for ref in pushed]
        self.repo.update_refs(moves, "gitmem: pushed")
        for ref in pushed:
            self.result.report(ref).pushed = True
        if failures:
            raise failures[0]
        return done

    def _scan_commits(self, pending: dict[str, tuple[str, str | None]]) -> None:
        """Every commit a push publishes is scanned, not only its tip: a secret one commit added
        and a later one removed stays in the remote's history for good. Each blob once;
        ciphertext and key files are not text."""
        if not pending:  # nothing to publish (a sync with nothing new): nothing to import
            return
        from gitmem.policy.commits import secrets_in_commits
        from gitmem.policy.secrets import ALLOW_HINT, user_allow_list

        allow = user_allow_list(self.repo.config())
        hits: list[str] = []
        for local, known in pending.values():
            changes = self._commit_changes(local, known)
            for commit, path, match in secrets_in_commits(
                changes,
                self.repo.read_blob,
                allow.fingerprints,
                skip=lambda path: not path.endswith((".md", ".txt")),
            ):
                hits.append(f"{path}:{match.line} {match.message} (commit {commit[:12]})")
        if hits:
            raise SecretsFound(
                f"refusing to push {len(hits)} likely secret{'s' if len(hits) > 1 else ''}: "
                + "; ".join(hits[:5])
                + (f"; and {len(hits) - 5} more" if len(hits) > 5 else ""),
                "drop the commits that hold them from the local ref (a later commit that removes "
                f"a secret still publishes it); {ALLOW_HINT}; or push anyway with --no-verify",
            )

    def _outgoing(
        self, local: str, known: str | None
    ) -> list[tuple[str, dict[str, str]]] | list[tuple[str, dict[str, tuple[str, str]]]]:
        """The commits a push of `local` publishes over `known` (the remote's tip), each with
        the entries it adds or changes. One commit on top of `known` (what a sync commits) is
        read in-process from the two trees' changed folders (gitstore/treediff.py); anything
        else (several commits, a merge, a first push, a diff past its bounds) by `log`, one
        process (`Repository.commit_changes`)."""
        if known:
            tree, parents, _ = self.repo.read_commit(local)
            if parents == [known]:
                from gitmem.policy.rules import MAX_DEPTH
                from gitmem.policy.treecheck import MAX_TREE_BYTES

                diff = self.repo.tree_changes(
                    self.repo.read_commit(known)[0],
                    tree,
                    OUTGOING_CHANGES,
                    MAX_DEPTH,
                    MAX_TREE_BYTES,
                )
                if diff is not None:
                    added = {c.path: c.new.oid for c in diff.changes if c.new is not None}
                    return [(local, added)]
        return self.repo.commit_changes(local, [known] if known else [])

    def _commit_changes(
        self, local: str, known: str | None
    ) -> list[tuple[str, dict[str, str]]] | list[tuple[str, dict[str, tuple[str, str]]]]:
        """`_outgoing`, read once for the secret scan and the plaintext check."""
        key = (local, known)
        if key not in self._changes:
            self._changes[key] = self._outgoing(local, known)
        return self._changes[key]

    def _other_projects_kept(self, pending: dict[str, tuple[str, str | None]]) -> None:
        """A remote with no memory ref yet gets no memory of another project: a local ref whose
        gitmem.toml names neither this remote's project nor a path (made before there was a
        remote) is set aside, said in one line (red team 17: after `origin` became the user's
        fork, the first sync published the upstream team's memory on the fork — the
        remote's URL names the project a ref belongs to, as a fetch's check holds). The rest
        syncs; `gitmem adopt` (sync --force-key) pushes it all the same."""
        if self.opts.force_key:
            return
        from gitmem.errors import UntrustedTreeError
        from gitmem.project.refmeta import meta_at, shown_keys, unclaimed

        for ref, (local, known) in list(pending.items()):
            hub = self.project.route(ref).remote != self.project.remote
            if known is not None and not hub:
                continue  # the remote has it (checked by the fetch)
            meta = meta_at(self.repo, local)
            if meta is None or unclaimed(meta) or meta.knows(self.project.key):
                continue
            if hub:
                # the hub keeps it under this project's key, the user's own and sealed: it is
                # keyed so (round 19: after `set-url` to the moved repository it went to the
                # new name under the old key only, and the next machine's fetch refused it)
                pending[ref] = (self._rekeyed(ref, local), known)
                continue
            if ref == self.project.user_ref:
                # the user's own memory, sealed, follows the remote the user named (red team
                # 18: after `set-url` to a fork it stayed behind, "up to date", exit 2)
                pending[ref] = (self._rekeyed(ref, local), known)
                report = self.result.report(ref)
                report.pushed_back = ""  # the note below says where it goes
                report.notes.append(
                    f"{self.project.remote} ({self.project.key}) had none of your personal "
                    f"memory, last synced with {shown_keys((meta.key,))}: pushed there, encrypted"
                )
                continue
            del pending[ref]
            self.run.locked.add(ref)
            report = self.result.report(ref)
            report.unpushed = True
            report.pushed_back = ""
            option = (
                f" --remote {command_word(self.project.remote or '')}"
                if self.project.remote != "origin"
                else ""
            )
            self.result.refused.append(
                UntrustedTreeError(
                    f"{ref} here is memory of project {shown_keys((meta.key, *meta.aliases))}, "
                    f"and {self.project.remote} ({self.project.key}) has none: not pushed "
                    "there (a fork's remote gets no other project's memory)",
                    "to sync it with its project: gitmem sync --remote NAME (that project's "
                    "remote; git config gitmem.remote NAME keeps it); if "
                    f"{self.project.remote} is that project too: gitmem adopt{option}",
                )
            )
        if not self.run.open_refs() and self.result.refused:
            raise self.result.refused[0]

    def _rekeyed(self, ref: str, local: str) -> str:
        """`local` with this remote's project key added as an alias (the gate's `adopt_key`, as
        a sync adopting a remote's tip writes it), the ref moved to it by compare-and-swap: the
        user's other machines, syncing with this remote, take it as this project's memory."""
        new = self.gate.adopt_key(local)
        if new != local:
            self.repo.update_refs([(ref, new, local)], "gitmem: adopt")
        return new

    def _refuse_plaintext(self, pending: dict[str, tuple[str, str | None]]) -> None:
        """No commit a push publishes holds a plaintext file in a sealed folder (one holding
        a manifest): the policy's GM160, which the gate applies to what a fetch brings, at
        the door out too, whatever made the commit (a commit path that took a folder inside a
        sealed one for a plaintext one pushed user memory in the clear; --no-verify or not)."""
        if not pending:
            return  # nothing leaves: no rule to load (a sync with nothing new)
        from gitmem.errors import TamperedRef
        from gitmem.policy.rules import encrypted_name

        repo = self.repo
        for ref, (local, known) in pending.items():
            if not self.views.of(ref).sealed:
                continue
            for commit, changed in self._commit_changes(local, known):
                tree = repo.read_commit(commit)[0]
                sealed = frozenset(
                    top for top in ("auto", "local") if repo.tree_entry(tree, f"{top}/manifest")
                )
                bad = [p for p in changed if p.split("/", 1)[0] in sealed]
                bad = [p for p in bad if not encrypted_name(p, sealed)]
                if bad:
                    raise TamperedRef(
                        f"refusing to push {ref}: commit {commit[:12]} holds "
                        f"{len(bad)} plaintext file{'s' if len(bad) > 1 else ''} in an "
                        "encrypted folder (GM160)",
                        "nothing was pushed; run gitmem doctor, and report this: a gitmem "
                        "commit must never hold them",
                    )

    def _refusal(self, remote: str, label: str, outcome: PushOutcome) -> RemoteError:
        """One line for a push the server refused for good, and the way out."""
        for name, blocker in outcome.blockers.items():
            return RemoteError(
                f"cannot push {name} to {label}: the ref {blocker} is in the way "
                "(someone pushed a ref below ours; retrying cannot help)",
                f"if it is not memory you need, remove it: git push {command_word(shown_url(remote))} "
                f"--delete {command_word(blocker)}",
            )
        names = ", ".join(outcome.refused)
        why = "; ".join(dict.fromkeys(outcome.refused.values()))
        quiet = why in outcome.message or outcome.message == NO_MESSAGE
        detail = why if quiet else f"{why} ({outcome.message})"
        return RemoteError(
            f"{label} refused {names}: {detail}",
            self._refused_hint(label, "check the server's hooks and your permissions, then retry"),
        )

    def _refused_hint(self, label: str, default: str | None) -> str | None:
        if self.project.ref_prefix != GITMEM_PREFIX:
            return default
        return (
            f"if {label} accepts only branches, keep memory on a branch namespace: "
            "git config gitmem.refPrefix refs/heads/gitmem/ (then gitmem sync)"
            + (f"; otherwise {default}" if default else "")
        )

    @contextlib.contextmanager
    def slow(self, what: str, after: float = 2.0) -> Iterator[None]:
        """Say what we wait for when the network is slow (on a terminal only: `notice`)."""
        if self.opts.notice is None:
            yield
            return
        import threading

        timer = threading.Timer(
            after, self.opts.notice, [f"{what}… (gives up after {self.opts.timeout:.0f} s)"]
        )
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()


def fetch_tracking(project: Project, timeout: float = DEFAULT_TIMEOUT) -> None:
    """Bring the remote-tracking refs up to date (`status --fetch`): merges and writes nothing.

    What arrives is checked when a sync merges it, as any fetched tip is. A ref deleted on the
    remote keeps its tracking ref (status tells "deleted there"); the next sync prunes it and
    pushes the ref back.
    """
    # the team ref's writer refs come with it (Exchange.extra): status names the unfolded ones
    run = SyncRun(project, SyncOptions(mode="pull", timeout=timeout))
    transport = Exchange(run, RemoteGate(run))
    if transport.run.by_ref:
        with holding_lock(project.repo, transport.opts.lock_wait):  # the checks' pin: read here
            transport.fetch(prune=False)
