"""`python -m benchmarks.merge_laws [--cases N] [--seed S]`: how often the index merge breaks
three-replica convergence and idempotence on the property tests' generator, beyond the 300
derandomized cases CI runs. Prints one line of counts; exits 0 (a measurement, not a test).

The generator draws texts from a handful of near-identical sentences and bullets, so its rates
are an upper bound for real memory (docs/merge.md, Known limits, says which cases no merge can
converge on). `impossible` counts the cases the convergence property leaves out
(`_unconvergeable`), `impossible_not_converged` those of them whose orders really disagree; `repeated_*` the failing
cases where the base or a replica writes a line twice (a link to one target counts as one line):
the repeated-text class of docs/merge.md, Known limits, counted apart from the rest."""

from __future__ import annotations

import argparse
import json

from hypothesis import HealthCheck, Phase, given, seed, settings

from merge_drivers import merge_file
from tests.merge_drivers.strategies import four_way
from tests.merge_drivers.test_properties import _merge3, _repeats, _unconvergeable

INDEX = "team/MEMORY.md"


def measure(cases: int, at: int) -> dict[str, int]:
    counts = {
        "cases": 0,
        "impossible": 0,
        "impossible_not_converged": 0,
        "not_converged": 0,
        "not_idempotent": 0,
        "repeated_not_converged": 0,  # of those, the cases that write a line twice (class 1)
        "repeated_not_idempotent": 0,
    }

    @seed(at)
    @settings(
        max_examples=cases,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    @given(four_way())
    def one(case: tuple[bytes, bytes, bytes, bytes]) -> None:
        base, a, b, c = case
        counts["cases"] += 1
        r1, r2, r3 = _merge3(base, a, b, c)
        if _unconvergeable(base, a, b, c):  # left out of the property: how many really fail
            counts["impossible"] += 1
            counts["impossible_not_converged"] += not (r1 == r2 == r3)
            return
        repeated = any(_repeats(x) for x in case)
        counts["not_converged"] += not (r1 == r2 == r3)
        counts["repeated_not_converged"] += repeated and not (r1 == r2 == r3)
        m = merge_file(INDEX, base, a, b).data
        assert m is not None
        again = merge_file(INDEX, base, m, a).data, merge_file(INDEX, base, b, m).data
        counts["not_idempotent"] += again != (m, m)
        counts["repeated_not_idempotent"] += repeated and again != (m, m)

    one()
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.merge_laws", description=__doc__)
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print(json.dumps({"seed": args.seed, **measure(args.cases, args.seed)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
