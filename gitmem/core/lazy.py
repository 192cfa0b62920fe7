"""A package's names loaded on first use (PEP 562), so importing the package costs nothing.

`gitmem.gitstore` and `gitmem.sync` re-export names from their parts; a command that needs one
part (the sync's start, whose fetch runs while the rest loads) must not import all of them."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def exports(package: str, parts: Mapping[str, str]) -> Callable[[str], object]:
    """The module `__getattr__` of `package`: `parts` maps each exported name to the part
    (module of the package) that defines it; a name is imported once, then cached."""

    def load(name: str) -> object:
        part = parts.get(name)
        if part is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{part}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return load
