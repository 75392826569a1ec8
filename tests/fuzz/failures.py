"""A failure found by a harness, and the classes it can fall into.

Classes (`Failure.cls`), each prefixed by the engine (`spark/`, `datafusion/`):

* `safe-schema`, `safe-rows`, `safe-order` — a safe fix (`--fix`) changed an output column's
  name or type, the rows (as a multiset), or broke the original final ORDER BY. Must never
  happen.
* `unsafe-schema`, `unsafe-rows`, `unsafe-order` — the same for `--fix --unsafe-fixes`, on data
  that satisfies every declaration of the catalog (judged only where the safe fixes alone
  changed nothing wrong).
* `safe-unanalysable`, `unsafe-unanalysable` — the engine cannot analyse the fixed text (an
  unresolved column, a type error, a parse error). Must never happen.
* `safe-error`, `unsafe-error` — the fixed query fails at run time where the original ran.
* `upstream-safe-*`, `upstream-unsafe-*` (the multi-file mode, `fuzz/multifile.py`) — a fix
  of the CTAS that writes a table another file reads changed the table it writes (schema or
  rows), or made it fail.
* `safe-plan-worse`, `unsafe-plan-worse` (Spark) — the fixed query's executed plan (AQE off)
  is worse by `Effect.worse`: a Sort, an Exchange or an ObjectHashAggregate more (a sort
  aggregate in place of a hash one counts by the Sort it needs).
* `safe-effect`, `unsafe-effect` (Spark) — the one applied finding's predicted `effect` is not
  the measured difference of the two plans (several findings' effects are not compared: they
  need not add up).
* `sl001-disproved` (DataFusion) — the query without an ORDER BY that sortlint reports as
  unnecessary (SL001) returns other rows or rows out of that order. Must never happen.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fuzz.catalogs import Catalog
from fuzz.queries import Case
from fuzz.results import Result

# The classes a correct sortlint never produces, whatever its catalog (item 5 of issue 10).
# A fix that makes Spark's plan worse is a bug too (issue 32). An `effect` mismatch is not
# here: a prediction is a model's, checked fix family by fix family in tests/engines.
NEVER = ("safe-schema", "safe-rows", "safe-order", "safe-unanalysable", "unsafe-unanalysable",
         "safe-error", "sl001-disproved", "safe-plan-worse", "unsafe-plan-worse")


@dataclass
class Failure:
    engine: str  # "spark" | "datafusion"
    kind: str  # one of the classes above, without the engine prefix
    catalog: Catalog
    case: Case
    fixed_text: str
    findings: list[dict]  # the file's findings (with their fixes) before fixing
    expected: Result
    actual: Result
    detail: str
    settings: dict = field(default_factory=dict)  # engine settings the failure was found with
    dropped: list[tuple[str, str]] = field(default_factory=list)
    # The multi-file mode: the CTAS that wrote the table `case` reads (another file of the
    # repository sortlint took its facts from); None for one-file cases.
    upstream: Case | None = None

    @property
    def cls(self) -> str:
        return f"{self.engine}/{self.kind}"

    @property
    def codes(self) -> list[str]:
        return sorted({f["code"] for f in self.findings if f.get("fix")})

    @property
    def evidence(self) -> list[str]:
        """What the applied findings rest on, as kinds: `declared ordering`, `window`, ..."""
        kinds = set()
        for finding in self.findings:
            if finding.get("fix"):
                kinds |= {kind for kind in EVIDENCE if kind in finding["message"]}
        return sorted(kinds)

    @property
    def signature(self) -> tuple:
        """Failures with one signature are taken as one bug: shrunk once, counted together."""
        shapes = sorted(self.case.features - {"projection"})
        return (self.cls, tuple(self.codes), tuple(self.evidence), tuple(shapes))


# Phrases of sortlint's finding messages that name what a finding rests on.
EVIDENCE = ("declared ordering", "declared constant", "declared unique key", "window", "ORDER BY (",
            "GROUP BY (", "JOIN ON", "WHERE", "is constant", "equal to", "determined by",
            "repeated", "partition key")
