"""The personal ref's older name on the hub, merged into its name now and then retired.

A hub keeps each project's personal refs under `projects/<project>/users/<uid>`. The project
was once named by the spelling of its URL; it is now named by `identity.project_identity`, so
every Azure DevOps spelling (ssh, visualstudio.com, any case) is one folder. Someone who synced
under a non-https spelling left a ref under the old name that no newer sync read: memory
pushed there by a machine that never syncs again would stay out of sight. So a sync of the
personal ref through the hub fetches the old name too (a glob: no round trip when it is gone),
checks it at the personal ref's gate, merges it in with the ordinary merge, and once the hub's
ref under the new name holds its tip, deletes it under a lease (never forced: a machine still
on an older gitmem that pushed there meanwhile keeps its push, merged on the next sync).
"""

from __future__ import annotations

from gitmem.project.hubnames import old_name, tracking
from gitmem.sync.gate import RemoteGate
from gitmem.sync.integrate import Integrate
from gitmem.sync.ledger import SyncRun


class OldHubName:
    """The sync's part: check and merge what the old name holds, retire it once held."""

    def __init__(self, run: SyncRun, gate: RemoteGate, integrate: Integrate) -> None:
        self.run, self.gate, self.integrate = run, gate, integrate
        self.project, self.repo = run.project, run.repo
        ref = self.project.user_ref
        self.on = ref in run.by_ref and old_name(self.project) is not None
        self.passed: str | None = None

    def check(self) -> None:
        self.passed = None
        ref = self.project.user_ref
        if not self.on or ref in self.run.locked:
            return
        held = tracking(self.project)
        tip = self.repo.resolve(held)
        if tip is not None and self.gate.check(ref, tracking=held):
            self.passed = tip

    def fold(self) -> None:
        if self.passed is not None:
            self.integrate.integrate(
                self.project.user_ref, tip=self.passed, source="hub (old name)"
            )

    def retire(self) -> None:
        """Delete the old name on the hub (and its tracking ref) once the new name holds it."""
        project, repo = self.project, self.repo
        if self.passed is None or project.hub is None:
            return
        now = repo.resolve(project.tracking_ref(project.user_ref))
        if now is None or (now != self.passed and not repo.is_ancestor(self.passed, now)):
            return
        name = old_name(project)
        assert name is not None
        if repo.delete_remote_ref(project.hub, name, self.passed, self.run.opts.timeout) is None:
            repo.delete_ref(tracking(project), self.passed)
            self.run.result.report(project.user_ref).notes.append(
                "merged your personal memory from the hub's older name of this project "
                f"({name}) and removed that name"
            )
