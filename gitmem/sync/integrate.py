"""Step 4 of a sync: merge the fetched (and checked) remote tip into the local ref — a
fast-forward when one side holds the other, else a 3-way merge of the two trees read through
the ref's view (plaintext for a sealed ref), committed with a trailer per resolution."""

from __future__ import annotations

from gitmem.merge.tree import blobs, merge_trees
from gitmem.project.scopes import hostname
from gitmem.sync.gate import RemoteGate
from gitmem.sync.ledger import SyncRun


class Integrate:
    def __init__(self, run: SyncRun, gate: RemoteGate) -> None:
        self.run, self.gate = run, gate
        self.project, self.repo, self.opts = run.project, run.repo, run.opts
        self.result, self.views = run.result, run.views

    def integrate(self, ref: str, tip: str | None = None, source: str | None = None) -> None:
        """Merge the fetched tip of `ref` (or `tip`, a checked writer tip named `source`:
        sync/writers.py) into the local ref."""
        repo = self.repo
        remote_tip = tip or repo.resolve(self.project.tracking_ref(ref))
        local = repo.resolve(ref)
        if remote_tip is None or remote_tip == local:
            return
        if local is not None and repo.is_ancestor(remote_tip, local):
            return
        if (
            local is None
            or repo.is_ancestor(local, remote_tip)
            or (tip is None and not repo.has_own_commits(local, [remote_tip]))
        ):
            # a merge elsewhere that resolved against us: told at the end. Or ours holds no
            # edit the remote's lacks, only merges of what it holds (a fold of writer refs a
            # teammate's landed first, sync/writers.py): its merge, not a second one of the
            # same edits, so every clone ends on the same commit, byte for byte
            merged = remote_tip
            if self.opts.force_key:
                merged = self.gate.adopt_key(remote_tip)
        else:
            merged = self._merge_commits(ref, local, remote_tip, source)
            self.run.merged[merged] = "ours"  # its losses are this machine's to tell
        repo.update_ref(ref, merged, local, "gitmem: merge remote")

    def _merge_commits(self, ref: str, local: str, remote_tip: str, source: str | None) -> str:
        repo = self.repo
        base = repo.merge_base(local, remote_tip)
        base_files = self.views.of(ref).files(base) if base else {}
        merged = merge_trees(
            repo,
            base_files,
            self.views.of(ref).files(local),
            self.views.of(ref).files(remote_tip),
            self.views.of(ref).times(local, repo.change_times(base, local)),
            self.views.of(ref).times(remote_tip, repo.change_times(base, remote_tip)),
        )
        sides = [self.gate.meta_of(blobs(repo.list_tree(c))) for c in (local, remote_tip)]
        self.gate.set_meta(merged.files, [m for m in sides if m], adopt=self.opts.force_key)
        tree = self.views.of(ref).tree(
            merged.files, self.views.of(ref).merged_keyring(base, local, remote_tip)
        )
        report = self.result.report(ref)
        report.resolutions.extend(merged.resolutions)
        if base is None:
            report.notes.append(
                f"{ref}: local and remote histories share no commit; merged file by file"
            )
        shown = [r for r in merged.resolutions if not self.views.of(ref).hidden(r)]
        hidden = [r for r in merged.resolutions if self.views.of(ref).hidden(r)]
        if hidden:  # commit messages travel in plaintext: these name encrypted files
            shown.append(self.views.codec_for(ref).seal_note(hidden))
        trailers = "".join(f"\nGitmem-Resolved: {r}" for r in shown)
        source = source or self.project.source_name(ref)
        message = f"gitmem: merge {source} on {hostname()}\n" + (
            f"\n{trailers.lstrip()}" if trailers else ""
        )
        return repo.write_commit(tree, [local, remote_tip], message)
