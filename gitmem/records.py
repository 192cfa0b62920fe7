"""A lean `@dataclass` for gitmem's plain records, because every command starts through them.

The standard decorator costs ~8 ms to import (inspect, ast, tokenize) and ~0.5 ms per class (it
parses each string annotation); `gitmem status` defines ~25 record classes before its first git
process, about 20 ms of a 90 ms budget. This one generates the same `__init__`, `__repr__`,
`__eq__`, `__hash__`, ordering and frozen `__setattr__`: one small `exec` per class (its
`__init__`), the rest shared functions that read the field names off the class.

Modules import it as

    if TYPE_CHECKING:
        from dataclasses import dataclass, field
    else:
        from gitmem.records import dataclass, field

so mypy checks the classes as standard dataclasses. What it supports is what gitmem uses:
`@dataclass`, `@dataclass(frozen=True, order=True)`, `field(default=...)`,
`field(default_factory=...)`, `asdict`, `replace`; no inheritance between records, no
`__post_init__`, `InitVar` or `ClassVar` (`tests/gitmem/test_records.py` compares it with the
standard decorator).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T")
_MISSING: Any = object()
_FIELDS = "__record_fields__"
_SHOWN = "__record_shown__"  # the fields repr shows
_KEY = "__record_key__"  # the tuple of the compared fields: eq, order, hash


class FrozenInstanceError(AttributeError):
    """Assigning to a field of a frozen record (as dataclasses.FrozenInstanceError)."""


class _Field:
    __slots__ = ("compare", "default", "default_factory", "repr")

    def __init__(self, default: Any, default_factory: Any, repr: bool, compare: bool) -> None:
        self.default, self.default_factory = default, default_factory
        self.repr, self.compare = repr, compare


def field(
    *,
    default: Any = _MISSING,
    default_factory: Any = _MISSING,
    repr: bool = True,
    compare: bool = True,
) -> Any:
    if default is not _MISSING and default_factory is not _MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return _Field(default, default_factory, repr, compare)


def dataclass(cls: type[T] | None = None, /, *, frozen: bool = False, order: bool = False) -> Any:
    def wrap(cls: type[T]) -> type[T]:
        return _process(cls, frozen, order)

    return wrap if cls is None else wrap(cls)


def _process(cls: type[T], frozen: bool, order: bool) -> type[T]:
    own = vars(cls)
    names = tuple(own.get("__annotations__", {}))
    params, body, scope = [], [], {"_MISSING": _MISSING, "_set": object.__setattr__}
    shown, compared = list(names), list(names)  # field(repr=False / compare=False) leaves them
    for name in names:
        value = own.get(name, _MISSING)
        if isinstance(value, _Field):
            if not value.repr:
                shown.remove(name)
            if not value.compare:
                compared.remove(name)
            if value.default_factory is not _MISSING:
                scope[f"_f_{name}"] = value.default_factory
                params.append(f"{name}=_MISSING")
                value = f"_f_{name}() if {name} is _MISSING else {name}"
                delattr(cls, name)
            else:
                setattr(cls, name, value.default)
                scope[f"_d_{name}"] = value.default
                params.append(f"{name}=_d_{name}")
                value = name
        elif value is not _MISSING:
            scope[f"_d_{name}"] = value
            params.append(f"{name}=_d_{name}")
            value = name
        else:
            if params and "=" in params[-1]:
                raise TypeError(f"non-default argument {name!r} follows default argument")
            params.append(name)
            value = name
        body.append(f"_set(self, {name!r}, {value})" if frozen else f"self.{name} = {value}")
    # only __init__ is compiled per class (its signature is the class's); the rest are shared
    # functions reading the field names off the class: compiling them cost ~0.2 ms a class
    exec(f"def __init__(self, {', '.join(params)}):\n    " + ("\n    ".join(body) or "pass"), scope)
    made: dict[str, Any] = {"__init__": scope["__init__"], "__repr__": _repr, "__eq__": _eq}
    if order:
        made.update(__lt__=_lt, __le__=_le, __gt__=_gt, __ge__=_ge)
    if "__hash__" not in own or own["__hash__"] is None:
        # as dataclasses: frozen records hash by value, mutable ones are unhashable
        made["__hash__"] = _hash if frozen else None
    if frozen:
        made.update(__setattr__=_frozen_setattr, __delattr__=_frozen_delattr)
    made[_FIELDS] = names
    made[_SHOWN] = tuple(shown)
    made[_KEY] = _key_of(tuple(compared))
    for name, value in made.items():
        if (
            name not in own
            or name in ("__hash__", _FIELDS, _SHOWN, _KEY)
            or (frozen and "attr__" in name)
        ):
            setattr(cls, name, value)
    made["__init__"].__qualname__ = f"{cls.__qualname__}.__init__"  # the shared ones keep theirs
    return cls


def _key_of(names: tuple[str, ...]) -> Callable[[object], tuple[Any, ...]]:
    """The tuple of a record's compared fields, as the standard decorator compares them."""
    if len(names) > 1:
        many: Callable[[object], tuple[Any, ...]] = attrgetter(*names)
        return many
    get = attrgetter(*names) if names else None
    return lambda record: (get(record),) if get is not None else ()


def _repr(self: object) -> str:
    shown = getattr(self.__class__, _SHOWN)
    values = ", ".join(f"{n}={getattr(self, n)!r}" for n in shown)
    return f"{self.__class__.__qualname__}({values})"


def _eq(self: object, other: object) -> Any:
    if other.__class__ is self.__class__:
        key = getattr(self.__class__, _KEY)
        return key(self) == key(other)
    return NotImplemented


def _lt(self: object, other: object) -> Any:
    if other.__class__ is self.__class__:
        key = getattr(self.__class__, _KEY)
        return key(self) < key(other)
    return NotImplemented


def _le(self: object, other: object) -> Any:
    if other.__class__ is self.__class__:
        key = getattr(self.__class__, _KEY)
        return key(self) <= key(other)
    return NotImplemented


def _gt(self: object, other: object) -> Any:
    if other.__class__ is self.__class__:
        key = getattr(self.__class__, _KEY)
        return key(self) > key(other)
    return NotImplemented


def _ge(self: object, other: object) -> Any:
    if other.__class__ is self.__class__:
        key = getattr(self.__class__, _KEY)
        return key(self) >= key(other)
    return NotImplemented


def _hash(self: object) -> int:
    return hash(getattr(self.__class__, _KEY)(self))


def _frozen_setattr(self: object, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def fields_of(record: object) -> tuple[str, ...]:
    names: tuple[str, ...] = getattr(type(record), _FIELDS)
    return names


def asdict(record: object) -> dict[str, Any]:
    """The record as plain dicts and lists, recursively (as dataclasses.asdict)."""
    return {name: _plain(getattr(record, name)) for name in fields_of(record)}


def _plain(value: Any) -> Any:
    if hasattr(type(value), _FIELDS):
        return asdict(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a NamedTuple
        return type(value)(*[_plain(v) for v in value])
    if isinstance(value, (list, tuple, set, frozenset)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return type(value)((_plain(k), _plain(v)) for k, v in value.items())
    return value


def replace(record: T, **changes: Any) -> T:
    """A copy of the record with some fields changed (as dataclasses.replace)."""
    values = {name: getattr(record, name) for name in fields_of(record)}
    unknown = set(changes) - set(values)
    if unknown:
        raise TypeError(f"{type(record).__name__} has no field {sorted(unknown)[0]!r}")
    values.update(changes)
    made: T = type(record)(**values)
    return made


__all__ = ["FrozenInstanceError", "asdict", "dataclass", "field", "replace"]
