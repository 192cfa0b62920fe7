"""gitmem.records behaves as the standard dataclasses for every shape gitmem declares."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from typing import TYPE_CHECKING, Any

import pytest

import gitmem
from gitmem import records

if TYPE_CHECKING:  # as gitmem's modules import it: mypy sees the standard decorator
    from dataclasses import dataclass as lean_dataclass
    from dataclasses import field as lean_field
else:
    from gitmem.records import dataclass as lean_dataclass
    from gitmem.records import field as lean_field


def _pair(frozen: bool = False, order: bool = False) -> tuple[Any, Any]:
    """The same class declared with both decorators."""
    made = []
    for deco, fld in (
        (dataclasses.dataclass, dataclasses.field),
        (records.dataclass, records.field),
    ):

        @deco(frozen=frozen, order=order)
        class Rec:
            name: str
            size: int
            note: str = ""
            tags: list[str] = fld(default_factory=list)
            seen: frozenset[str] = frozenset()
            label: str = fld(default="x")

            def describe(self) -> str:
                return f"{self.name}:{self.size}"

        made.append(Rec)
    return made[0], made[1]


ARGS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    (("a", 1), {}),
    (("a", 1, "n"), {}),
    ((), {"name": "b", "size": 2, "tags": ["t"], "label": "y"}),
    (("a", 1), {"seen": frozenset({"s"})}),
]


@pytest.mark.parametrize(("frozen", "order"), [(False, False), (True, False), (True, True)])
def test_records_construct_compare_hash_and_print_like_dataclasses(
    frozen: bool, order: bool
) -> None:
    std, lean = _pair(frozen, order)
    for args, kwargs in ARGS:
        a, b = std(*args, **kwargs), lean(*args, **kwargs)
        assert repr(a) == repr(b)
        assert dataclasses.asdict(a) == records.asdict(b)
        assert b == lean(*args, **kwargs) and b != lean("other", 9)
        assert b.describe() == a.describe()
        assert (b == a) is False  # different classes never compare equal
        if frozen:
            # a frozen record hashes by value, and fails to hash a list as the standard one does
            for x, y in ((a, b),):
                try:
                    expected: Any = hash(x)
                except TypeError as exc:
                    expected = type(exc)
                try:
                    got: Any = hash(y)
                except TypeError as exc:
                    got = type(exc)
                assert (got is TypeError) == (expected is TypeError)
            hashable = lean("a", 1, tags=())
            assert hash(hashable) == hash(lean("a", 1, tags=()))
            with pytest.raises(AttributeError):
                b.name = "changed"
            with pytest.raises(AttributeError):
                del b.name
        else:
            with pytest.raises(TypeError):
                hash(b)
            b.name = "changed"
            assert b.name == "changed"
    assert lean("a", 1).tags is not lean("a", 1).tags  # a fresh list each time
    assert lean.label == "x" and lean.note == "" and not hasattr(lean, "tags")
    with pytest.raises(TypeError):
        lean("a")  # a field without default is required
    if order:
        assert sorted([lean("b", 1), lean("a", 2)]) == [lean("a", 2), lean("b", 1)]
        assert (lean("a", 1) < lean("a", 2)) == (std("a", 1) < std("a", 2))


def test_replace_and_nested_asdict() -> None:
    @lean_dataclass(frozen=True)
    class Inner:
        oid: str

    @lean_dataclass
    class Outer:
        inner: Inner
        many: list[Inner] = lean_field(default_factory=list)
        by_name: dict[str, Inner] = lean_field(default_factory=dict)

    outer = Outer(Inner("1"), [Inner("2")], {"k": Inner("3")})
    assert records.asdict(outer) == {
        "inner": {"oid": "1"},
        "many": [{"oid": "2"}],
        "by_name": {"k": {"oid": "3"}},
    }
    changed = records.replace(outer, inner=Inner("9"))
    assert changed.inner == Inner("9") and changed.many is outer.many and outer.inner.oid == "1"
    with pytest.raises(TypeError):
        records.replace(outer, nope=1)


def test_a_non_default_field_after_a_default_is_refused() -> None:
    with pytest.raises(TypeError):

        @records.dataclass
        class Bad:
            a: int = 0
            b: int


def test_gitmem_records_construct_as_declared() -> None:
    """Every record class of gitmem imports and has the fields it annotates."""
    found = 0
    for info in pkgutil.walk_packages(gitmem.__path__, "gitmem."):
        if info.name.startswith("gitmem.cli") or info.name == "gitmem.__main__":
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and hasattr(value, "__record_fields__"):
                assert value.__record_fields__ == tuple(value.__annotations__), value
                found += 1
    assert found >= 20


def test_a_field_left_out_of_repr_and_comparison_is_left_out_as_in_dataclasses() -> None:
    """`field(repr=False, compare=False)`: the sync state's cached copy of the index records is
    neither printed nor compared (two states with the same files are equal)."""
    made: list[Any] = []
    for deco, fld in (
        (dataclasses.dataclass, dataclasses.field),
        (records.dataclass, records.field),
    ):

        @deco
        class State:
            path: str
            cache: dict[str, int] | None = fld(default=None, repr=False, compare=False)

        made.append(State)
    standard, lean = made
    for cls in (standard, lean):
        assert cls("p", {"a": 1}) == cls("p", None)
        assert cls("p") != cls("q")
        assert "cache" not in repr(cls("p", {"a": 1}))
    assert repr(standard("p")).split("(", 1)[1] == repr(lean("p")).split("(", 1)[1]
