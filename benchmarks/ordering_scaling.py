"""How the ordering engine scales: `Properties.satisfies` and `ordered_permutation`.

Run with `.venv/bin/python benchmarks/ordering_scaling.py` (or `make bench`); `--quick`
stops at size 300. Three axes are varied one at a time, the other two held at 10:

* orderings - how many orderings the rows satisfy;
* columns   - the length of each ordering, hence of the requirements;
* classes   - how many equivalence classes are known (plus one constant per five).

The workload, for `n` orderings of `L` columns, `m` classes and `k = m // 5` constants:

* ordering i is `[s_i, k_0, k_1, c_0, ..., c_{L-1}]`: a distinct leading column, two
  constants (which renormalisation strips), then a shared tail. Every ordering keeps a
  different expression in the lead, so the engine has `n` leading expressions to track;
* class j < L is `(c_j, d_j)`; the other classes `(u_j, v_j)` are unrelated to the
  orderings. Requirements are written with the non-representatives `d_j`;
* `sat ok`   - `[s_last, k_0, d_0, ..., c_{L-1}]`: every key is matched;
* `sat fail` - the same with the last key DESC: fails only at the very end;
* `perm`     - `ordered_permutation` over every column of the longest (last) ordering,
  aliases included, in shuffled order.

Timings are medians over a few repeats, in milliseconds. Every query runs on a fresh
copy of the properties (`dataclasses.replace`) so the lazily built class index is part
of the cost, as it is for a plan node seen once. Two build times are reported:

* `build api`  - one `with_ordering` / `with_equality` / `with_constant` per fact, each of
  which renormalises (run once when it takes over half a second, and skipped when
  extrapolation from the previous size says it would exceed a few seconds);
* `build bulk` - `dataclasses.replace(Properties(), ...)` and one `.renormalized()`; the
  queries run on these properties (checked equal to the API-built ones whenever both exist).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sortlint.ordering import (  # noqa: E402
    Constant,
    EquivalenceClass,
    Expr,
    OrderingFact,
    Properties,
    SortKey,
    SortOptions,
)

SIZES = (10, 30, 100, 300, 1000)
QUICK_SIZES = (10, 30, 100, 300)
SMALL = 10
AXES = ("orderings", "columns", "classes")
# Skip an API build whose extrapolated time exceeds this many seconds.
API_BUILD_BUDGET = 4.0
POLYNOMIAL_EXPONENT = 3.0

ASC = SortOptions()
DESC = SortOptions(descending=True)


# --- the workload --------------------------------------------------------------------


@dataclasses.dataclass
class Workload:
    orderings: list[list[SortKey]]
    classes: list[tuple[Expr, Expr]]
    constants: list[tuple[Expr, Expr]]  # (column, literal value)
    sat_ok: list[SortKey]
    sat_fail: list[SortKey]
    perm: list[Expr]


def make_workload(n_orderings: int, n_columns: int, n_classes: int) -> Workload:
    col = Expr.column
    n_constants = max(2, n_classes // 5)
    constants = [(col(f"k_{j}"), Expr.parse(str(j))) for j in range(n_constants)]
    tail = [col(f"c_{j}") for j in range(n_columns)]
    alias = {}
    classes = []
    for j in range(n_classes):
        if j < n_columns:
            classes.append((tail[j], col(f"d_{j}")))
            alias[tail[j]] = col(f"d_{j}")
        else:
            classes.append((col(f"u_{j}"), col(f"v_{j}")))
    shape = [constants[0][0], constants[1][0], *tail]
    orderings = [
        [SortKey(e, ASC) for e in [col(f"s_{i}"), *shape]] for i in range(n_orderings)
    ]
    written = [alias.get(key.expr, key.expr) for key in orderings[-1]]
    sat_ok = [SortKey(e, ASC) for e in written]
    sat_fail = sat_ok[:-1] + [SortKey(sat_ok[-1].expr, DESC)]
    perm = list(written)
    random.Random(n_orderings * 1_000_003 + n_columns * 1009 + n_classes).shuffle(perm)
    return Workload(orderings, classes, constants, sat_ok, sat_fail, perm)


def build_api(w: Workload) -> Properties:
    props = Properties()
    for keys in w.orderings:
        props = props.with_ordering(keys)
    for left, right in w.classes:
        props = props.with_equality(left, right)
    for expr, value in w.constants:
        props = props.with_constant(expr, value)
    return props


def build_bulk(w: Workload) -> Properties:
    return dataclasses.replace(
        Properties(),
        orderings=tuple(OrderingFact(tuple(keys)) for keys in w.orderings),
        classes=tuple(EquivalenceClass((left, right)) for left, right in w.classes),
        constants={expr: Constant(value) for expr, value in w.constants},
        not_null=frozenset(expr for expr, _ in w.constants),
    ).renormalized()


def check(props: Properties, w: Workload) -> None:
    """The workload means what it says: a benchmark of wrong answers is worthless."""
    ok = props.satisfaction(w.sat_ok)
    assert ok.complete, "sat ok should be satisfied"
    fail = props.satisfaction(w.sat_fail)
    assert fail.satisfied == len(w.sat_fail) - 1, "sat fail should fail at the last key"
    assert props.ordered_permutation(w.perm).mode == "Sorted", "perm should be Sorted"


# --- measuring -----------------------------------------------------------------------


def median_ms(run, repeats: int, setup=None, cheap_ms: float | None = None) -> float:
    """Median wall time of `run(setup())`, garbage collection off while timing (as
    `timeit` does). With `cheap_ms`, stop after one run unless it took less than that."""
    times = []
    for _ in range(repeats):
        arg = setup() if setup else None
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            run(arg)
            times.append((time.perf_counter() - start) * 1000)
        finally:
            gc.enable()
        if cheap_ms is not None and times[0] >= cheap_ms:
            break
    return statistics.median(times)


def measure(size_of: dict[str, int], repeats: int, api_estimate_s: float | None) -> dict:
    w = make_workload(size_of["orderings"], size_of["columns"], size_of["classes"])
    row: dict[str, float | str | None] = {}
    props = None

    def bulk(_):
        nonlocal props
        props = build_bulk(w)

    row["build bulk"] = median_ms(bulk, repeats)
    if api_estimate_s is not None and api_estimate_s > API_BUILD_BUDGET:
        row["build api"] = f"skip~{api_estimate_s:.0f}s"
    else:
        api_props = None

        def api(_):
            nonlocal api_props
            api_props = build_api(w)

        row["build api"] = median_ms(api, repeats, cheap_ms=500)
        assert api_props == props, "bulk build differs from the public-API build"
    check(props, w)

    def fresh():
        return dataclasses.replace(props)  # no cached class index

    row["sat ok"] = median_ms(lambda p: p.satisfies(w.sat_ok), repeats, fresh)
    row["sat fail"] = median_ms(lambda p: p.satisfies(w.sat_fail), repeats, fresh)
    row["perm"] = median_ms(lambda p: p.ordered_permutation(w.perm), repeats, fresh)
    return row


COLUMNS = ("build api", "build bulk", "sat ok", "sat fail", "perm")


def fmt(value) -> str:
    if isinstance(value, str):
        return value
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.3f}"


def exponent(sizes, values) -> tuple[float, int, int] | None:
    """Slope of log(time) against log(size) between the two largest measured sizes."""
    points = [(s, v) for s, v in zip(sizes, values) if isinstance(v, float) and v > 0]
    if len(points) < 2:
        return None
    (s1, v1), (s2, v2) = points[-2], points[-1]
    return math.log(v2 / v1) / math.log(s2 / s1), s1, s2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes up to 300 only")
    args = parser.parse_args()
    sizes = QUICK_SIZES if args.quick else SIZES
    repeats = 3 if args.quick else 5

    started = time.perf_counter()
    print(f"sortlint ordering engine scaling  (python {sys.version.split()[0]}, "
          f"median of {repeats} runs, times in ms; others held at {SMALL})")
    print()
    header = ("axis", "size", *COLUMNS)
    widths = [9, 9, 10, 10, 9, 9, 9]
    line = "  ".join(h.rjust(w) if i else h.ljust(w) for i, (h, w) in enumerate(zip(header, widths)))
    print(line)
    print("-" * len(line))

    results: dict[str, list[dict]] = {}
    for axis in AXES:
        results[axis] = []
        previous_api: tuple[int, float] | None = None
        api_exponent = 3.0  # pessimistic until measured
        for size in sizes:
            size_of = {a: SMALL for a in AXES}
            size_of[axis] = size
            estimate = None
            if previous_api is not None:
                prev_size, prev_ms = previous_api
                estimate = prev_ms / 1000 * (size / prev_size) ** max(api_exponent, 1.0)
            row = measure(size_of, repeats, estimate)
            results[axis].append(row)
            if isinstance(row["build api"], float):
                if previous_api is not None and previous_api[1] > 0 and row["build api"] > 0:
                    api_exponent = math.log(row["build api"] / previous_api[1]) / math.log(
                        size / previous_api[0]
                    )
                previous_api = (size, row["build api"])
            cells = [axis, str(size), *(fmt(row[c]) for c in COLUMNS)]
            print("  ".join(c.rjust(w) if i else c.ljust(w)
                            for i, (c, w) in enumerate(zip(cells, widths))), flush=True)
        print()

    print("growth exponent: slope of log(time) vs log(size) between the two largest sizes")
    print()
    print("  ".join(h.rjust(w) if i else h.ljust(w)
                    for i, (h, w) in enumerate(zip(("axis", "sizes", *COLUMNS), widths))))
    summary = []
    footnotes = []
    for axis in AXES:
        cells = [axis, f"{sizes[-2]}>{sizes[-1]}"]
        slopes: dict[str, float] = {}
        for column in COLUMNS:
            found = exponent(sizes, [row[column] for row in results[axis]])
            if found is None:
                cells.append("n/a")
                continue
            slope, s1, s2 = found
            slopes[column] = slope
            mark = ""
            if (s1, s2) != sizes[-2:]:
                mark = "*" * (len(footnotes) + 1)
                footnotes.append(f"{mark} {axis} / {column}: between {s1} and {s2} "
                                 f"(larger sizes skipped)")
            cells.append(f"{slope:.2f}{mark}")
        print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))))
        summary.append((axis, slopes))
    for note in footnotes:
        print(note)
    print()
    for axis, slopes in summary:
        queries = max(slopes[c] for c in ("sat ok", "sat fail", "perm"))
        builds = max(slopes[c] for c in ("build api", "build bulk") if c in slopes)
        verdict = "polynomial" if max(queries, builds) < POLYNOMIAL_EXPONENT else "NOT polynomial"
        print(f"{axis:9}: queries ~ size^{queries:.2f}, builds ~ size^{builds:.2f} "
              f"-> growth is {verdict} (exponent < {POLYNOMIAL_EXPONENT:.0f})")
    print()
    print(f"total {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
