"""Nothing of one machine is committed: no tracked symbolic link leads outside the repository."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_tracked_symlink_points_outside_the_repository() -> None:
    listing = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-s", "-z"],
        capture_output=True,
        check=True,
    ).stdout.decode()
    outside = []
    for record in filter(None, listing.split("\0")):
        meta, path = record.split("\t", 1)
        if not meta.startswith("120000"):
            continue
        target = os.readlink(ROOT / path) if (ROOT / path).is_symlink() else ""
        resolved = (ROOT / path).parent.joinpath(target).resolve()
        if os.path.isabs(target) or not resolved.is_relative_to(ROOT):
            outside.append(f"{path} -> {target}")
    assert outside == []
