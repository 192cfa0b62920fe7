"""Talking to remotes through the git CLI, so credential helpers, ssh config and proxies behave
exactly as for `git push`. Never prompts: hooks and CI have no one to answer."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from gitmem.errors import RemoteError
from gitmem.gitstore.base import GitDir
from gitmem.gitstore.process import last_line

# rejections that mean "someone pushed first": fetch, merge and push again
RETRYABLE_PUSH = (
    "fetch first",
    "non-fast-forward",
    "stale info",
    "atomic push failed",
    "atomic transaction failed",
    "cannot lock ref",
    "failed to update ref",
    "failed to lock",
    "incorrect old value",
)


@dataclass(frozen=True)
class PushOutcome:
    ok: bool
    rejected: tuple[str, ...] = ()  # refs rejected as non-fast-forward / stale: fetch and retry
    message: str = ""


class Transport(GitDir):
    def _transport(
        self, args: Sequence[str], timeout: float | None
    ) -> subprocess.CompletedProcess[bytes]:
        return self.git(*args, check=False, timeout=timeout, env={"GIT_TERMINAL_PROMPT": "0"})

    def fetch(self, remote: str, refspecs: Sequence[str], timeout: float | None = None) -> None:
        args = ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-gc"]
        proc = self._transport([*args, remote, *refspecs], timeout)
        if proc.returncode != 0:
            raise RemoteError(
                f"cannot fetch from {remote}: {last_line(proc.stderr)}",
                "check the remote URL and your access (git fetch works?), then retry",
            )

    def push(
        self,
        remote: str,
        refspecs: Sequence[str],
        timeout: float | None = None,
        atomic: bool = True,
    ) -> PushOutcome:
        args = ["push", "--porcelain", "--no-verify"] + (["--atomic"] if atomic else [])
        proc = self._transport([*args, remote, *refspecs], timeout)
        out = proc.stdout.decode("utf-8", "replace")
        err = proc.stderr.decode("utf-8", "replace")
        if atomic and "does not support --atomic" in err:
            return self.push(remote, refspecs, timeout, atomic=False)
        if proc.returncode == 0:
            return PushOutcome(True)
        rejected: list[str] = []
        other: list[str] = []
        for line in out.splitlines():
            if line.startswith("!"):
                fields = line.split("\t")
                dst = fields[1].split(":")[-1] if len(fields) > 1 else "?"
                reason = fields[2] if len(fields) > 2 else ""
                retryable = any(w in reason for w in RETRYABLE_PUSH)
                (rejected if retryable else other).append(f"{dst} {reason}".strip())
        if rejected and not other:
            return PushOutcome(False, tuple(rejected), last_line(proc.stderr))
        detail = "; ".join(other) or last_line(proc.stderr)
        raise RemoteError(
            f"cannot push to {remote}: {detail}",
            "check your access to the remote and any server hooks, then retry",
        )

    def ls_remote(
        self, remote: str, patterns: Sequence[str], timeout: float | None = None
    ) -> dict[str, str]:
        proc = self._transport(["ls-remote", remote, *patterns], timeout)
        if proc.returncode != 0:
            raise RemoteError(
                f"cannot reach {remote}: {last_line(proc.stderr)}",
                "check the remote URL and your access, then retry",
            )
        result = {}
        for line in proc.stdout.decode().splitlines():
            oid, ref = line.split("\t", 1)
            result[ref] = oid
        return result
