"""The ordering engine: pure functions over properties of row streams. No I/O."""

from sortlint.ordering.expressions import Expr
from sortlint.ordering.monotonicity import SINGLETON, UNORDERED, SortProperty
from sortlint.ordering.properties import (
    Constant,
    EquivalenceClass,
    KeyVerdict,
    OrderingFact,
    Permutation,
    Properties,
    Satisfaction,
    UniqueKey,
)
from sortlint.ordering.sort import (
    Basis,
    Evidence,
    Ordering,
    SortKey,
    SortOptions,
    basis_of,
    format_ordering,
)

__all__ = [
    "SINGLETON", "UNORDERED", "Basis", "Constant", "EquivalenceClass", "Evidence", "Expr",
    "KeyVerdict", "Ordering", "OrderingFact", "Permutation", "Properties", "Satisfaction",
    "SortKey", "SortOptions", "SortProperty", "UniqueKey", "basis_of", "format_ordering",
]
