"""Realistic memory folders for the benchmarks, shaped after the real files in shared/corpus/real/.

File sizes are drawn from the real topic files' sizes, bodies are cut from their text and
frontmatter comes in both real shapes (flat, nested `metadata:`). Everything is seeded, so a run
is reproducible. Without the corpus (a checkout without shared/ beside it) a small built-in text
stands in: the shapes stay plausible and the benchmarks still run.
"""

from __future__ import annotations

import os
import random
import shutil
from dataclasses import dataclass
from pathlib import Path


def find_corpus() -> Path:
    """`shared/corpus/real` beside the checkout, or beside a folder holding it (a worktree's
    checkout, in a folder of worktrees beside it, is one folder deeper); benchmarks and tests
    both find it here (round 20: four copies of this walk, one of them stopping one level up)."""
    root = Path(__file__).resolve().parents[1]
    found = (p / "shared" / "corpus" / "real" for p in root.parents)
    return next((p for p in found if p.is_dir()), root.parent / "shared" / "corpus" / "real")


REAL_CORPUS = find_corpus()
CORPUS = Path(os.environ.get("GITMEM_BENCH_CORPUS") or REAL_CORPUS)
FALLBACK_SIZES = (168, 431, 811, 1080, 1538, 2056, 2669, 3016, 4750, 7109, 14224)
FALLBACK_BODY = (
    "Run the tests with the project's own command before pushing; CI runs the same script.\n"
    "**Why:** a green local run that skipped the linters hid two failures last week.\n"
    "**How to apply:** use `.ci/run`, never a bare pytest, when the change touches config.\n"
)
INDEX_LINES = 150  # under Claude Code's 200-line cap of MEMORY.md


@dataclass(frozen=True)
class Shapes:
    sizes: tuple[int, ...]  # bytes of real topic files
    body: str  # real topic-file bodies, concatenated


def load_shapes(corpus: Path = CORPUS) -> Shapes:
    """Sizes and text of the real topic files (not indexes, not settings)."""
    sizes: list[int] = []
    bodies: list[str] = []
    for path in sorted(corpus.glob("*/*")) if corpus.is_dir() else []:
        name = path.name
        if "MEMORY.md" in name or not name.endswith(".md"):
            continue
        text = path.read_text("utf-8", "replace")
        sizes.append(len(text.encode()))
        bodies.append(_strip_frontmatter(text))
    if not sizes:
        return Shapes(FALLBACK_SIZES, FALLBACK_BODY * 200)
    return Shapes(tuple(sizes), "\n".join(bodies))


def corpus_root() -> Path | None:
    """The real corpus, or None on a machine without it."""
    return REAL_CORPUS if REAL_CORPUS.is_dir() else None


def lay_out_corpus(folder: Path) -> dict[str, Path]:
    """Each real memory file of the corpus as a memory of `folder` (its leading dot dropped:
    a dot-file is no memory), one sub-folder per source repository; name -> source file."""
    root = corpus_root()
    assert root is not None
    placed: dict[str, Path] = {}
    for source in sorted(root.glob("*/*")):
        name = source.name.lstrip(".").split("@", 1)[0]
        if not name.endswith(".md"):
            continue
        rel = f"{source.parent.name}/{name}"
        if rel in placed:
            continue  # versions of one file (@ours, @theirs): the first stands for them
        (folder / source.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, folder / rel)
        (folder / rel).chmod(0o644)
        placed[rel] = source
    return placed


def auto_folder(clone: Path) -> Path:
    """The folder of `clone`'s personal (auto) scope, as this process's HOME places it."""
    from gitmem.gitstore import Repository
    from gitmem.project.scopes import open_project

    return open_project(Repository(str(clone))).scope("auto").path


def _strip_frontmatter(text: str) -> str:
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end != -1:
            return text[end + 5 :]
    return text


def topic_name(i: int) -> str:
    return f"topic-{i:05d}.md"


def topic_file(shapes: Shapes, rng: random.Random, i: int) -> bytes:
    size = rng.choice(shapes.sizes)
    start = rng.randrange(max(1, len(shapes.body) - size))
    start = shapes.body.find("\n", start) + 1  # whole lines, as a person writes them
    body = shapes.body[start : start + size].rsplit("\n", 1)[0] or FALLBACK_BODY
    kind = ("feedback", "project", "reference", "user")[i % 4]
    if i % 3 == 0:  # the nested shape, with the real trailing space after `metadata:`
        front = f"---\nname: topic {i}\ndescription: memory {i}\nmetadata: \n  type: {kind}\n---\n"
    else:
        front = f"---\nname: topic {i}\ndescription: memory {i}\ntype: {kind}\n---\n"
    return f"{front}\n{body}\n\nSeen first in session {i}.\n".encode()


def index_file(count: int) -> bytes:
    lines = [
        f"- [Topic {i}]({topic_name(i)}) — memory {i}, one line as Claude Code writes it"
        for i in range(min(count, INDEX_LINES))
    ]
    return ("\n".join(lines) + "\n").encode()


def write_memory(folder: Path, files: int, seed: int = 1, shapes: Shapes | None = None) -> None:
    """A memory folder of `files` files: MEMORY.md plus `files - 1` topic files (os.write: 50,000
    files in a couple of seconds)."""
    shapes = shapes or load_shapes()
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    _write(os.path.join(folder, "MEMORY.md"), index_file(files - 1))
    for i in range(files - 1):
        _write(os.path.join(folder, topic_name(i)), topic_file(shapes, rng, i))


def _write(path: str, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def append_note(path: Path, note: str) -> None:
    """What an agent does most: add a line to a memory."""
    with open(path, "ab") as fh:
        fh.write(f"\n{note}\n".encode())


def add_index_entry(path: Path, target: str, hook: str) -> None:
    with open(path, "ab") as fh:
        fh.write(f"- [{target}]({target}) — {hook}\n".encode())
