"""`python -m benchmarks.peak -- COMMAND...` or `python -m benchmarks.peak raw-push CLONE FOLDER REF`:
run one side in this fresh process and print the peak memory of the process tree it started, in
KiB (`getrusage(RUSAGE_CHILDREN).ru_maxrss`: the largest resident set of any descendant waited
for — this process itself, with its imports, is not counted)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    if argv[:1] == ["raw-push"]:
        from benchmarks.rawgit import RawPush

        clone, folder, ref = argv[1:4]
        RawPush(os.environ, Path(clone), Path(folder), ref).push()
    else:
        command = argv[1:] if argv[:1] == ["--"] else argv
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
