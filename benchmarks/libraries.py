"""The libraries of gitmem's original design, measured for what gitmem would use them for:
`python -m benchmarks.libraries [PYTHON]` (PYTHON: an interpreter that has dulwich, pygit2,
networkx, markdown-it-py and cryptography, e.g. a scratch venv; default: this one).

Two questions per library: what importing it adds to a start (every gitmem command starts a
Python), and, for the object stores, what writing a snapshot of 1,000 memory files costs
(blobs + trees) against gitmem's own loose-object writer and against git. Runs alternate;
the table shows medians of the same run. Prints Markdown for docs/history/performance.md.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 9
IMPORTS = {
    "python -c pass": "pass",
    "pygit2": "import pygit2",
    "dulwich (repo + objects)": "import dulwich.repo, dulwich.objects",
    "networkx": "import networkx",
    "markdown-it-py": "import markdown_it; markdown_it.MarkdownIt()",
    "cryptography (AES-SIV)": "from cryptography.hazmat.primitives.ciphers.aead import AESSIV",
    "gitmem's git layer": "import gitmem.gitstore.repository",
}
FILES = 1000
SNAPSHOT = {
    "gitmem (loose objects, in-process)": """
from gitmem.gitstore import Repository, BLOB_MODE
r = Repository(R)
r.write_tree({f"team/m{i}.md": (BLOB_MODE, r.write_blob(DATA[i])) for i in range(N)})
""",
    "pygit2 (in-process)": """
import pygit2
r = pygit2.Repository(R)
b = r.TreeBuilder()
sub = r.TreeBuilder()
for i in range(N):
    sub.insert(f"m{i}.md", r.create_blob(DATA[i]), pygit2.GIT_FILEMODE_BLOB)
b.insert("team", sub.write(), pygit2.GIT_FILEMODE_TREE)
b.write()
""",
    "dulwich (in-process)": """
from dulwich.repo import Repo
from dulwich.objects import Blob, Tree
r = Repo(R)
sub = Tree()
for i in range(N):
    blob = Blob.from_string(DATA[i])
    r.object_store.add_object(blob)
    sub.add(f"m{i}.md".encode(), 0o100644, blob.id)
r.object_store.add_object(sub)
top = Tree()
top.add(b"team", 0o040000, sub.id)
r.object_store.add_object(top)
""",
    "git (temp index: update-index --add + write-tree)": """
import os, subprocess
env = dict(os.environ, GIT_INDEX_FILE=R + "/idx")
subprocess.run(["git", "-C", R, "--work-tree", R + "/w", "add", "-A"], env=env, check=True)
subprocess.run(["git", "-C", R, "write-tree"], env=env, check=True, capture_output=True)
""",
}


def timed(python: str, code: str) -> float:
    start = time.perf_counter()
    subprocess.run([python, "-c", code], check=True, capture_output=True)
    return time.perf_counter() - start


def medians(python: str, programs: dict[str, str], fresh: bool = False) -> dict[str, float]:
    runs: dict[str, list[float]] = {name: [] for name in programs}
    for n in range(RUNS):
        order = list(programs.items())
        for name, code in order if n % 2 == 0 else reversed(order):
            if fresh:  # each run writes into a new repository (nothing already there)
                with tempfile.TemporaryDirectory() as tmp:
                    runs[name].append(timed(python, _snapshot_program(code, Path(tmp))))
            else:
                runs[name].append(timed(python, code))
    return {name: statistics.median(values) for name, values in runs.items()}


def _snapshot_program(code: str, tmp: Path) -> str:
    repo = tmp / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    work = repo / "w" / "team"
    work.mkdir(parents=True)
    for i in range(FILES):
        (work / f"m{i}.md").write_bytes(_data(i))
    prelude = (
        f"R = {str(repo)!r}\nN = {FILES}\n"
        f"DATA = [b'---\\nname: memory %d\\n---\\nA remembered fact, %d.\\n' % (i, i) for i in range(N)]\n"
    )
    return prelude + code


def _data(i: int) -> bytes:
    return b"---\nname: memory %d\n---\nA remembered fact, %d.\n" % (i, i)


def main() -> None:
    python = sys.argv[1] if len(sys.argv) > 1 else sys.executable
    base = medians(python, IMPORTS)
    print("| import | median | over `python -c pass` |\n|---|---:|---:|")
    for name, value in base.items():
        extra = value - base["python -c pass"]
        print(
            f"| {name} | {value * 1000:.0f} ms | {'' if name == 'python -c pass' else f'+{extra * 1000:.0f} ms'} |"
        )
    print(f"\n| snapshot of {FILES:,} files (process included) | median |\n|---|---:|")
    for name, value in medians(python, SNAPSHOT, fresh=True).items():
        print(f"| {name} | {value * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
