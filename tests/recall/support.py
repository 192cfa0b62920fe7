"""What the recall tests share: the real corpus laid out as memory folders, JSON queries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.corpus import corpus_root, lay_out_corpus
from tests.support.world import World

__all__ = ["corpus_root", "ids", "lay_out_corpus", "query"]


def query(world: World, clone: Path, *args: str) -> dict[str, Any]:
    out = world.ok("-C", str(clone), "query", *args, "--format", "json")
    data: dict[str, Any] = json.loads(out)
    return data


def ids(result: dict[str, Any]) -> list[str]:
    return [n["id"] for n in result["nodes"]]
