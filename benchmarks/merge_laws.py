"""`python -m benchmarks.merge_laws [--cases N] [--seed S]`: how often the index merge breaks
three-replica convergence and idempotence on the property tests' generator, beyond the 300
derandomized cases CI runs. Prints one line of counts; exits 0 (a measurement, not a test).

The generator draws texts from a handful of near-identical sentences and bullets, so its rates
are an upper bound for real memory (docs/merge.md, Known limits, says which cases no merge can
converge on). `impossible` counts the cases the convergence property leaves out
(`unconvergeable`, benchmarks/mergecases.py), `impossible_not_converged` those of them whose orders really disagree; `repeated_*` the failing
cases where the base or a replica writes a line twice (a link to one target counts as one line):
the repeated-text class of docs/merge.md, Known limits, counted apart from the rest.

`--list` prints each failing draw instead of the counts, one JSON object a line (its number,
what fails, whether it writes a line twice, its four texts): the cases to class by hand.

`--record` writes the draws the tests pin counts of (RECORDED) beside the generator (RECORD):
`measure` merges those stored draws instead of drawing them again (drawing is over half of the
cost) while the record is of today's generator."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import lzma
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings

from benchmarks.mergecases import INDEX, merge3, repeats, unconvergeable
from benchmarks.strategies import four_way
from merge_drivers import merge_file

STRATEGIES = Path(__file__).resolve().with_name("strategies.py")
RECORD = STRATEGIES.with_name("laws_15_draws.json.xz")
# the draws the pinned counts merge: tests/merge_drivers/test_laws_15.py (3,000 a seed) and
# test_properties.py's test_the_cases_left_out_of_convergence_stay_counted (300)
RECORDED = {3000: (1, 2, 3), 300: (1, 2)}
CHECKED = 50  # the first draws a recorded seed is checked against, drawn afresh


Case = tuple[bytes, bytes, bytes, bytes]


class _Enough(Exception):
    """Raised inside the generator's loop to stop it after the first draws (`first`)."""


def draws(cases: int, at: int, first: int = 0) -> list[Case]:
    """The four-way cases of seed `at`, in the order drawn; `first`: only the first that many
    of the `cases` (the same ones: one seed and one size draw one sequence)."""
    got: list[Case] = []

    @seed(at)
    @settings(
        max_examples=cases,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    @given(four_way())
    def one(case: Case) -> None:
        if first and len(got) >= first:
            raise _Enough
        got.append(case)

    with contextlib.suppress(_Enough):
        one()
    return got


def count(cases: list[Case]) -> dict[str, int]:
    """The counts of `measure` over these cases (a case drawn twice is merged once and counted
    twice, as drawn)."""
    counts = dict.fromkeys(
        (
            "cases",
            "impossible",
            "impossible_not_converged",
            "not_converged",
            "not_idempotent",
            "repeated_not_converged",  # of those, the cases that write a line twice (class 1)
            "repeated_not_idempotent",
        ),
        0,
    )
    seen: dict[Case, dict[str, int]] = {}
    for case in cases:
        if case not in seen:
            seen[case] = _laws(case)
        for name, n in seen[case].items():
            counts[name] += n
    return counts


def failing(cases: list[Case]) -> list[dict[str, object]]:
    """The draws `count` counts as not converged or not idempotent (the impossible ones left
    out, as there), each once, in draw order: its number, what fails, whether it writes a line
    twice (class 1) and its four texts — what a class is read from (docs/merge.md, Known
    limits)."""
    out: list[dict[str, object]] = []
    seen: set[Case] = set()
    for n, case in enumerate(cases):
        if case in seen:
            continue
        seen.add(case)
        got = _laws(case)
        if got.get("not_converged") or got.get("not_idempotent"):
            out.append(
                {
                    "draw": n,
                    "not_converged": bool(got["not_converged"]),
                    "not_idempotent": bool(got["not_idempotent"]),
                    "repeated": bool(
                        got["repeated_not_converged"] or got["repeated_not_idempotent"]
                    ),
                    "texts": dict(zip(("base", "a", "b", "c"), map(_text, case), strict=True)),
                }
            )
    return out


def _laws(case: Case) -> dict[str, int]:
    base, a, b, c = case
    counts = {"cases": 1}
    m = merge_file(INDEX, base, a, b).data
    assert m is not None
    r1, r2, r3 = merge3(base, a, b, c, m)  # m merged once: a ninth of the count's merges
    if unconvergeable(base, a, b, c):  # left out of the property: how many really fail
        counts["impossible"] = 1
        counts["impossible_not_converged"] = not (r1 == r2 == r3)
        return counts
    repeated = any(repeats(x) for x in case)
    counts["not_converged"] = not (r1 == r2 == r3)
    counts["repeated_not_converged"] = repeated and not (r1 == r2 == r3)
    again = merge_file(INDEX, base, m, a).data, merge_file(INDEX, base, b, m).data
    counts["not_idempotent"] = again != (m, m)
    counts["repeated_not_idempotent"] = repeated and again != (m, m)
    return counts


def measure(cases: int, at: int) -> dict[str, int]:
    """The counts of the first `cases` draws of seed `at`: the recorded draws where they are
    today's (RECORD), else drawn here."""
    return count(recorded(cases, at) or draws(cases, at))


def generator() -> str:
    """The generator's source, which the draws follow. Not hypothesis's version: a release
    that draws otherwise is caught by the first draws (`recorded`), one that does not keeps
    the record (and the pinned counts) as they are."""
    return f"strategies {hashlib.sha256(STRATEGIES.read_bytes()).hexdigest()[:16]}"


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def record(path: Path = RECORD) -> None:
    """The draws of each size and seed of RECORDED, with the generator they came from."""
    payload = {
        "generator": generator(),
        "draws": {
            f"{cases}/{at}": [[_text(x) for x in case] for case in draws(cases, at)]
            for cases, seeds in RECORDED.items()
            for at in seeds
        },
    }
    path.write_bytes(lzma.compress(json.dumps(payload, separators=(",", ":")).encode()))


def recorded(cases: int, at: int, path: Path = RECORD) -> list[Case] | None:
    """The stored draws of `draws(cases, at)`, or None when there are none of that size and
    seed or they may not be today's: the record is of another generator source, or one of
    its first draws differs from a fresh one (another hypothesis engine)."""
    try:
        payload = json.loads(lzma.decompress(path.read_bytes()))
    except (OSError, ValueError, lzma.LZMAError):
        return None
    stored = payload.get("draws", {}).get(f"{cases}/{at}")
    if payload.get("generator") != generator() or not stored:
        return None
    got = [tuple(x.encode("utf-8", "surrogateescape") for x in case) for case in stored]
    got4 = [(b, x, y, z) for b, x, y, z in got]
    if got4[:CHECKED] != draws(cases, at, first=CHECKED):
        return None
    return got4


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.merge_laws", description=__doc__)
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--record", action="store_true", help=f"write the draws tests read to {RECORD.name}"
    )
    parser.add_argument(
        "--list",
        action="store_true",
        help="print each failing draw (its number, what fails, its four texts), one JSON a line",
    )
    args = parser.parse_args(argv)
    if args.list:
        for row in failing(recorded(args.cases, args.seed) or draws(args.cases, args.seed)):
            print(json.dumps({"seed": args.seed, **row}, ensure_ascii=False))
        return 0
    if args.record:
        record()
        print(f"wrote {RECORD}")
        return 0
    print(json.dumps({"seed": args.seed, **measure(args.cases, args.seed)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
