"""Git bundles of our refs: a file that carries memory refs where no shared remote does (a
handover, an air-gapped machine, a backup). Reading a bundle into refs is a fetch
(`Transport.fetch` with the file as the remote); this part writes one, verifies one and lists
what one holds. Never writes a ref. An object of its own beside `Repository` (`Bundles(repo)`),
not one of its parts: a sync never makes a bundle, and never imports this."""

import re
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from gitmem.core.sanitize import bounded, terminal
from gitmem.errors import UsageError
from gitmem.gitstore.base import GitDir
from gitmem.gitstore.spawn import NO_ATTRIBUTES_FILE
from gitmem.gitstore.transport import git_reasons

HEADER_LIMIT = 1 << 20  # a bundle of our refs has a header of a few hundred bytes
# a header line as git bundle create writes it: `<oid> <ref>`, or `-<oid> <subject>` for a
# prerequisite (its subject is a commit's, any text); a ref holds no blank or control character
_HEAD_LINE = re.compile(
    r"(?P<need>-)?(?P<oid>[0-9a-f]{40}(?:[0-9a-f]{24})?)"
    r"(?(need)(?: [^\n]*)?| (?P<ref>[^\x00-\x20\x7f]+))"
)


class Bundles:
    def __init__(self, repo: GitDir) -> None:
        self.repo = repo

    def create_bundle(self, path: Path, refs: Sequence[str], exclude: Sequence[str] = ()) -> bool:
        """Write `refs` and the objects they need (less what `exclude`'s commits reach) to
        `path`; False when nothing is new (git refuses an empty bundle: nothing is written)."""
        args = [*NO_ATTRIBUTES_FILE, "bundle", "create", "--quiet", str(path), *refs]
        if exclude:
            args += ["--not", *exclude]
        # `path` is absolute: packed in the git folder, no `.gitattributes` of the work tree
        proc = self.repo.git(*args, check=False, in_git_dir=path.is_absolute())
        if proc.returncode == 0:
            return True
        reasons = git_reasons(proc.stderr)
        if "empty bundle" in reasons:
            return False
        raise UsageError(
            f"cannot write the bundle {path}: {reasons}",
            "check the folder exists and is writable, then retry",
        )

    def verify_bundle(self, path: Path) -> str | None:
        """Why `path` is not a bundle this repository can take (not a bundle, a missing
        prerequisite, a pack that does not read back), or None when it is."""
        proc = self.repo.git("bundle", "verify", str(path), check=False)
        if proc.returncode != 0:
            return git_reasons(proc.stderr)
        return None

    def bundle_header(self, path: Path) -> "BundleHeader":
        """What the bundle's header says it holds (its refs) and needs (its prerequisites),
        read from the file itself (bounded: a header is a few lines)."""
        try:
            with open(path, "rb") as fh:
                head = fh.read(HEADER_LIMIT)
        except OSError as exc:
            raise UsageError(
                f"cannot read the bundle {path}: {exc.strerror}",
                "give a file made by gitmem bundle create",
            ) from None
        lines = head.split(b"\n")
        if lines[0] not in (b"# v2 git bundle", b"# v3 git bundle"):
            raise UsageError(
                f"{path} is not a git bundle", "give a file made by gitmem bundle create"
            )
        heads: dict[str, str] = {}
        needs: list[str] = []
        for raw in lines[1:-1]:
            if not raw:
                return BundleHeader(heads, tuple(needs))
            line = raw.decode("utf-8", "replace")
            if line.startswith("@"):  # a v3 capability
                continue
            # read as git reads it, or refused: git takes the ref after any blank and trims
            # the line, and the last of a name wins, so a reader of its own checked one tip
            # while git fetched another (red team 15)
            found = _HEAD_LINE.fullmatch(line)
            if found is None or (found["ref"] is not None and found["ref"] in heads):
                raise UsageError(
                    f"refusing the bundle {path}: its header line "
                    f"'{terminal(bounded(line, 120))}' is not one gitmem bundle create writes"
                    + (" (a ref named twice)" if found is not None else ""),
                    "ask the sender for a bundle made by gitmem bundle create (nothing was "
                    "written)",
                )
            if found["need"]:
                needs.append(found["oid"])
            elif found["ref"].startswith("refs/"):
                heads[found["ref"]] = found["oid"]
        raise UsageError(
            f"{path} is not a git bundle (its header does not end)",
            "give a file made by gitmem bundle create",
        )


class BundleHeader(NamedTuple):
    heads: dict[str, str]  # ref -> commit id
    needs: tuple[str, ...]  # commits the receiver must have (an incremental bundle)
