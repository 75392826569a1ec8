"""Sort options, sort keys and the facts' evidence.

Direction and null placement both matter: `[a ASC NULLS FIRST]` does not satisfy
`[a ASC NULLS LAST]` when `a` can be null. Engines differ in their defaults: Spark sorts
ASC as NULLS FIRST and DESC as NULLS LAST; DataFusion's SQL default is the opposite.
"""

from __future__ import annotations

from dataclasses import dataclass

from sortlint.diagnostics import Basis
from sortlint.ordering.expressions import Expr

__all__ = ["Basis", "Evidence", "Ordering", "SortKey", "SortOptions", "basis_of", "format_ordering",
           "only_the_query"]


@dataclass(frozen=True, slots=True)
class SortOptions:
    descending: bool = False
    nulls_first: bool = True

    @classmethod
    def spark(cls, descending: bool = False) -> SortOptions:
        return cls(descending, nulls_first=not descending)

    @classmethod
    def datafusion(cls, descending: bool = False) -> SortOptions:
        return cls(descending, nulls_first=descending)

    @classmethod
    def default(cls, target: str, descending: bool = False) -> SortOptions:
        """Null placement where a query does not spell it out: the target engine's."""
        return cls.datafusion(descending) if target == "datafusion" else cls.spark(descending)

    def reversed(self) -> SortOptions:
        """The order of `-x` when `x` has these options: nulls stay where they were."""
        return SortOptions(not self.descending, self.nulls_first)

    def satisfies(self, wanted: SortOptions, nullable: bool) -> bool:
        if self.descending != wanted.descending:
            return False
        return not nullable or self.nulls_first == wanted.nulls_first

    def __str__(self) -> str:
        direction = "DESC" if self.descending else "ASC"
        nulls = "FIRST" if self.nulls_first else "LAST"
        return f"{direction} NULLS {nulls}"


@dataclass(frozen=True, slots=True)
class SortKey:
    expr: Expr
    options: SortOptions = SortOptions()

    def __str__(self) -> str:
        return f"{self.expr} {self.options}"


Ordering = tuple[SortKey, ...]


def format_ordering(keys: tuple[SortKey, ...] | list[SortKey]) -> str:
    return "[" + ", ".join(str(k) for k in keys) + "]"


@dataclass(frozen=True, slots=True)
class Evidence:
    """Where a fact comes from: the query itself, a declaration the engine cannot see, or
    another file's code (`upstream`).

    `text` is written for people ("WHERE host = 'x' (line 4)", "declared ordering [time]
    of events (sortlint.yml:12)"); `line` is the line of the clause that made the fact,
    when there is one. With a `subject`, `text` is a template whose `{subject}` is the
    expression's SQL, printed only when someone reads the evidence (most facts never
    reach a message). A `caveat` is a condition the fact holds under that nothing checks
    ("if host is a string"): it is printed with the text, and a fix resting on it is unsafe.
    """

    basis: Basis
    text: str
    line: int | None = None
    enforced: bool = False  # a declaration the engine itself knows (`engine_known`)
    subject: Expr | None = None
    caveat: str | None = None

    def __str__(self) -> str:
        text = self.text if self.subject is None else self.text.format(subject=self.subject)
        return text if self.caveat is None else f"{text}, {self.caveat}"

    @property
    def fixes_safely(self) -> bool:
        """Whether a fix may rest on this fact and stay safe: a fact of the query itself
        without a caveat, or a declaration the engine enforces. Another file's code may
        change, and a declaration nothing enforces may be false."""
        if self.caveat is not None:
            return False
        return self.basis == "query" or (self.basis == "declared" and self.enforced)


def only_the_query(evidence: frozenset[Evidence] | tuple[Evidence, ...]) -> bool:
    """Whether a conclusion rests on the query alone, without a caveat: the safest reason,
    which replaces any other sufficient one."""
    return all(e.basis == "query" and e.caveat is None for e in evidence)


def basis_of(evidence: frozenset[Evidence] | tuple[Evidence, ...]) -> Basis:
    """A conclusion is `declared` as soon as one of its premises is, else `upstream` as soon
    as one of them is another file's code, else the query's."""
    bases = {e.basis for e in evidence}
    return "declared" if "declared" in bases else "upstream" if "upstream" in bases else "query"
