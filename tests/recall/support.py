"""What the recall tests share: the real corpus laid out as memory folders, JSON queries."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.support.world import World

REPO = Path(__file__).resolve().parents[2]
# beside the checkout, as docs/recall.md says: a worktree's checkout (/work/wt/NAME) is one
# folder deeper than the main one, and found no corpus (its tests were skipped)
CORPUS = next(
    (p / "shared" / "corpus" / "real" for p in REPO.parents if (p / "shared/corpus/real").is_dir()),
    REPO.parent / "shared" / "corpus" / "real",
)
REPO_CORPUS = REPO / "benchmarks" / "corpus"


def corpus_root() -> Path | None:
    return CORPUS if CORPUS.is_dir() else None


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


def query(world: World, clone: Path, *args: str) -> dict[str, Any]:
    out = world.ok("-C", str(clone), "query", *args, "--format", "json")
    data: dict[str, Any] = json.loads(out)
    return data


def ids(result: dict[str, Any]) -> list[str]:
    return [n["id"] for n in result["nodes"]]
