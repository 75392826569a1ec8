"""Ordering properties of a stream of rows: DataFusion's `EquivalenceProperties`.

A `Properties` value holds what is known about the rows flowing out of a plan node:

* constants - expressions with one value on every row (with the value when known);
* equivalence classes - expressions equal on every row; the first member represents them;
* orderings - the succinct set of lexicographic orderings the rows satisfy: no constants,
  only representatives, no ordering that is a prefix of another or ends with what
  another begins with;
* partition orderings - orderings that hold only inside each physical partition, where
  rows sharing the `partitioned_by` values share a partition (with no such columns known,
  no group of rows is known to share one: the ordering serves only an operator that runs on
  each partition on its own, such as DataFusion's sorts, aggregates and windows, whose
  queries ask with `per_partition=True`);
* unique keys - sets of expressions no two rows agree on (nulls compared as equal, as
  GROUP BY and DISTINCT compare them; a SQL UNIQUE constraint lets rows with a NULL in
  the key repeat, so it counts only once its expressions are known not null);
* not-null expressions and column types, which decide whether null placement matters
  and which functions preserve order.

Every fact carries the `Evidence` that produced it, so a conclusion can say what it
rests on. All queries are polynomial; no valid ordering is ever enumerated.

The central idea (from the seed documents) is conditioning: once a requirement's prefix
is known to be satisfied, the rest only has to hold inside each group of rows on which
that prefix is fixed - and inside such a group the prefix expressions are constants.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from itertools import islice, product
from typing import Literal

from sqlglot import exp

from sortlint.ordering.expressions import Expr
from sortlint.ordering.monotonicity import (
    NON_DETERMINISTIC,
    SINGLETON,
    UNORDERED,
    SortProperty,
    exact_image_of,
    infer_type,
    monotonic_property,
    preserves_non_null,
)
from sortlint.ordering.sort import Evidence, Ordering, SortKey, SortOptions, only_the_query
from sortlint.ordering.types import Arithmetic

NO_EVIDENCE: frozenset[Evidence] = frozenset()

# How many orderings one ordering may become through the exact images of its keys.
MAX_IMAGE_ORDERINGS = 8


@dataclass(frozen=True)
class Constant:
    value: Expr | None  # the literal, when known
    evidence: frozenset[Evidence] = NO_EVIDENCE


@dataclass(frozen=True)
class EquivalenceClass:
    members: tuple[Expr, ...]  # members[0] represents the class
    evidence: frozenset[Evidence] = NO_EVIDENCE

    @property
    def representative(self) -> Expr:
        return self.members[0]


@dataclass(frozen=True)
class OrderingFact:
    keys: Ordering
    evidence: frozenset[Evidence] = NO_EVIDENCE
    partitioned_by: frozenset[Expr] | None = None  # None: the order is global; empty: unknown


@dataclass(frozen=True)
class UniqueKey:
    exprs: frozenset[Expr]
    evidence: frozenset[Evidence] = NO_EVIDENCE
    nulls_distinct: bool = False  # SQL UNIQUE: rows with a NULL in the key may repeat


Redundancy = Literal["constant", "duplicate", "equivalent", "determined"]


@dataclass(frozen=True)
class KeyVerdict:
    """What normalisation made of one key of a requirement."""

    key: SortKey  # as written
    normalized: SortKey  # with the class representative
    redundant: Redundancy | None = None
    evidence: frozenset[Evidence] = NO_EVIDENCE


@dataclass(frozen=True)
class Satisfaction:
    """How much of a requirement holds, and on which facts that rests."""

    verdicts: tuple[KeyVerdict, ...]
    satisfied: int  # how many leading keys (as written) hold
    evidence: frozenset[Evidence]

    @property
    def complete(self) -> bool:
        return self.satisfied == len(self.verdicts)


@dataclass(frozen=True)
class Permutation:
    """The longest arrangement of grouping expressions that the rows are ordered by."""

    keys: Ordering
    indices: tuple[int, ...]  # positions of `keys` in the expressions asked about
    total: int
    evidence: frozenset[Evidence]

    @property
    def mode(self) -> str:
        """DataFusion's aggregate `ordering_mode`."""
        if self.total and len(self.indices) == self.total:
            return "Sorted"
        return f"PartiallySorted({list(self.indices)})" if self.indices else "Hash"


@dataclass(frozen=True)
class Properties:
    constants: Mapping[Expr, Constant] = field(default_factory=dict)
    classes: tuple[EquivalenceClass, ...] = ()
    orderings: tuple[OrderingFact, ...] = ()
    unique_keys: tuple[UniqueKey, ...] = ()
    not_null: frozenset[Expr] = frozenset()
    types: Mapping[Expr, str] = field(default_factory=dict)
    arithmetic: Arithmetic = Arithmetic()  # how the engine computes, for types and overflow

    def but(self, **changes) -> Properties:
        """`dataclasses.replace(self, **changes)` at a fifth of its cost: the engine derives
        several Properties per plan node, and the generic function - which looks up and
        checks every field, then sets each through the frozen class's guard - was a few
        percent of a check. The facts cached from the old fields are not carried over."""
        derived = object.__new__(Properties)
        state = self.__dict__
        derived.__dict__.update({name: state[name] for name in _FIELDS}, **changes)
        return derived

    # --- lookups -------------------------------------------------------------------

    @cached_property
    def _class_of(self) -> dict[Expr, EquivalenceClass]:
        return {member: cls for cls in self.classes for member in cls.members}

    @cached_property
    def _has_compound_members(self) -> bool:
        return any(not member.is_column for member in self._class_of)

    def representative(self, expr: Expr) -> Expr:
        cls = self._class_of.get(expr)
        return cls.representative if cls else expr

    def normalize_expr(self, expr: Expr) -> tuple[Expr, frozenset[Evidence]]:
        """Replace `expr`, and every sub-expression, by its class representative."""
        if not self.classes:
            return expr, NO_EVIDENCE
        cls = self._class_of.get(expr)
        if cls is not None:
            return cls.representative, cls.evidence if cls.representative != expr else NO_EVIDENCE
        if expr.is_column or expr.is_literal:
            return expr, NO_EVIDENCE
        used: list[EquivalenceClass] = []

        def substitute(node: exp.Expression) -> exp.Expression:
            if not isinstance(node, exp.Column) and not self._has_compound_members:
                return node
            current = Expr.of(node)
            found = self._class_of.get(current)
            if found is None or found.representative == current:
                return node
            used.append(found)
            return found.representative.node.copy()

        node = expr.node.transform(substitute)
        if not used:
            return expr, NO_EVIDENCE
        return Expr.of(node), frozenset(e for cls in used for e in cls.evidence)

    def constant(self, expr: Expr) -> Constant | None:
        found = self.constants.get(expr)
        if found is None and expr in self._class_of:
            found = self.constants.get(self.representative(expr))
        return found

    def is_constant(
        self, expr: Expr, fixed: Collection[Expr] = frozenset()
    ) -> tuple[bool, frozenset[Evidence]]:
        """Whether `expr` (normalised) has one value on every row, given `fixed` ones."""
        if expr.is_literal or expr in fixed:
            return True, NO_EVIDENCE
        found = self.constants.get(expr)
        if found is not None:
            return True, found.evidence
        if expr.is_column or isinstance(expr.node, NON_DETERMINISTIC):
            return False, NO_EVIDENCE
        operands = expr.children
        if not operands:
            return False, NO_EVIDENCE
        evidence: set[Evidence] = set()
        for operand in operands:
            constant, why = self.is_constant(operand, fixed)
            if not constant:
                return False, NO_EVIDENCE
            evidence.update(why)
        return True, frozenset(evidence)

    def nullable(self, expr: Expr) -> bool:
        if expr.is_literal:
            return isinstance(expr.node, exp.Null)
        if expr in self.not_null:
            return False
        cls = self._class_of.get(expr)
        if cls is not None and any(member in self.not_null for member in cls.members):
            return False
        found = self.constant(expr)
        if found is not None and found.value is not None:
            return isinstance(found.value.node, exp.Null)
        if expr.is_column:
            return True  # nothing below says otherwise of a column: spares its operands' keys
        node = expr.node
        if isinstance(node, (exp.Count, exp.RowNumber, exp.Rank, exp.DenseRank)):
            return False
        if isinstance(node, exp.Coalesce):
            return all(self.nullable(operand) for operand in expr.children)
        if expr.children and preserves_non_null(node, self._type_of_node, self.arithmetic):
            return any(self.nullable(operand) for operand in expr.children)
        return True

    def type_of(self, expr: Expr) -> str | None:
        found = self.types.get(expr)
        if found is not None:
            return found
        cls = self._class_of.get(expr)
        if cls is not None:
            for member in cls.members:
                if member in self.types:
                    return self.types[member]
        if expr.is_column:
            return None
        return infer_type(expr.node, self._type_of_node, self.arithmetic)

    def _type_of_node(self, node: exp.Expression) -> str | None:
        return self.type_of(Expr.of(node))

    # --- queries -------------------------------------------------------------------

    def normalize(self, requirement: Sequence[SortKey]) -> tuple[KeyVerdict, ...]:
        """Classify every key: kept, or redundant and why (DataFusion's normalisation).

        Constants are dropped, members replaced by representatives, repeats removed (the
        first occurrence wins whatever its direction), and keys determined by earlier
        ones are dropped: a deterministic function of earlier keys, or anything after a
        full unique key.
        """
        verdicts: list[KeyVerdict] = []
        fixed: dict[Expr, frozenset[Evidence]] = {}  # kept keys, and why they normalise so
        written: set[Expr] = set()
        key_covered: frozenset[Evidence] | None = None
        for key in requirement:
            expr, class_evidence = self.normalize_expr(key.expr)
            normalized = SortKey(expr, key.options)
            constant, constant_evidence = self.is_constant(expr)
            if constant:
                verdict = KeyVerdict(key, normalized, "constant", constant_evidence | class_evidence)
            elif expr in fixed:
                kind: Redundancy = "duplicate" if key.expr in written else "equivalent"
                verdict = KeyVerdict(key, normalized, kind, class_evidence | fixed[expr])
            elif key_covered is not None:
                verdict = KeyVerdict(key, normalized, "determined", key_covered)
            else:
                determined, why = self.is_constant(expr, fixed.keys())
                if determined:
                    verdict = KeyVerdict(key, normalized, "determined", class_evidence | why)
                else:
                    verdict = KeyVerdict(key, normalized, None, class_evidence)
                    fixed[expr] = class_evidence
                    key_covered = self._covered_unique_key(fixed.keys())
            if key.expr in written and not only_the_query(verdict.evidence):
                # Also a repeat, which the query alone makes redundant: the safest sufficient
                # reason wins. (The earlier occurrence may itself be redundant on a
                # declaration: dropping both rests on it, and that fix says so.)
                verdict = KeyVerdict(key, normalized, "duplicate", NO_EVIDENCE)
            written.add(key.expr)
            verdicts.append(verdict)
        return tuple(verdicts)

    def unique_within(self, exprs: Collection[Expr]) -> frozenset[Evidence] | None:
        """What makes `exprs` (with the constants) tell every row apart - a unique key they
        cover - or None when nothing known does."""
        return self._covered_unique_key(exprs)

    def _covered_unique_key(self, fixed: Collection[Expr]) -> frozenset[Evidence] | None:
        for unique in self.unique_keys:
            if unique.nulls_distinct and any(self.nullable(m) for m in unique.exprs):
                continue
            if all(member in fixed or self.is_constant(member)[0] for member in unique.exprs):
                return unique.evidence
        return None

    def satisfaction(
        self, requirement: Sequence[SortKey], within: Iterable[Expr] = (), per_partition: bool = False
    ) -> Satisfaction:
        """How many leading keys of `requirement` the rows already satisfy.

        With `within`, the requirement is per group of rows sharing those expressions'
        values (a window's or an aggregate's partition): orderings that hold per
        physical partition count too when the group lies inside one partition. With
        `per_partition`, the requirement is inside each physical partition, whatever the
        partitioning: every partition ordering counts.
        """
        verdicts = self.normalize(requirement)
        group = _Group(self, within, per_partition)
        evidence: set[Evidence] = set(group.evidence)
        satisfied = 0
        for verdict in verdicts:
            if verdict.redundant is None:
                prop, why = group.property(verdict.normalized.expr, verdict.normalized)
                if not self._meets(prop, verdict.normalized):
                    break
                evidence.update(why)
                group.fix(verdict.normalized.expr)
            evidence.update(verdict.evidence)
            satisfied += 1
        return Satisfaction(verdicts, satisfied, frozenset(evidence))

    def satisfies(
        self, requirement: Sequence[SortKey], within: Iterable[Expr] = (), per_partition: bool = False
    ) -> bool:
        return self.satisfaction(requirement, within, per_partition).complete

    def satisfied_prefix(self, requirement: Sequence[SortKey]) -> int:
        return self.satisfaction(requirement).satisfied

    def _meets(self, prop: SortProperty, wanted: SortKey) -> bool:
        if prop.singleton:
            return True
        return prop.options is not None and prop.options.satisfies(
            wanted.options, self.nullable(wanted.expr)
        )

    def sort_property(self, expr: Expr) -> SortProperty:
        """How `expr` is ordered across all rows (DataFusion's `get_expr_properties`)."""
        normalized, _ = self.normalize_expr(expr)
        return _Group(self).property(normalized)[0]

    def ordered_permutation(
        self, exprs: Sequence[Expr], within: Iterable[Expr] = (), per_partition: bool = False
    ) -> Permutation:
        """DataFusion's `find_longest_permutation` over grouping expressions.

        Repeatedly take every expression that is ordered (or constant) given the ones
        already taken, until none is: all of them means a streaming aggregate, some a
        partially ordered one, none a hash aggregate.
        """
        group = _Group(self, within, per_partition)
        evidence: set[Evidence] = set(group.evidence)
        normalized = [self.normalize_expr(e) for e in exprs]
        remaining = list(range(len(exprs)))
        keys: list[SortKey] = []
        indices: list[int] = []
        while remaining:
            found = []
            for index in remaining:
                expr, class_evidence = normalized[index]
                prop, why = group.property(expr)
                if prop.singleton or prop.ordered:
                    found.append((index, prop.options or SortOptions(), why | class_evidence))
            if not found:
                break
            for index, options, why in found:
                keys.append(SortKey(exprs[index], options))
                indices.append(index)
                evidence.update(why)
                group.fix(normalized[index][0])
                remaining.remove(index)
        return Permutation(tuple(keys), tuple(indices), len(exprs), frozenset(evidence))

    # --- building ------------------------------------------------------------------

    def mentioned_columns(self) -> list[Expr]:
        """Every column some fact speaks of, in a stable order."""
        return sorted(e for e in self._spoken_of if e.is_column)

    @cached_property
    def _spoken_of(self) -> frozenset[Expr]:
        """Every expression some fact speaks of, and every column they read."""
        exprs: set[Expr] = set(self.constants) | set(self.types) | set(self.not_null)
        for cls in self.classes:
            exprs.update(cls.members)
        for fact in self.orderings:
            exprs.update(key.expr for key in fact.keys)
            exprs.update(fact.partitioned_by or ())
        for key in self.unique_keys:
            exprs.update(key.exprs)
        return frozenset(exprs.union(*(e.columns for e in exprs if not e.is_column)))

    @cached_property
    def described(self) -> tuple:
        """Every fact and what it rests on, in a canonical order and as text: what tells two
        Properties apart where they are compared by value (a cache's key). Made once: every
        reader of a table asks it of the same facts."""

        def why(evidence: frozenset[Evidence]) -> tuple:
            return tuple(sorted((e.basis, str(e), e.enforced) for e in evidence))

        return (
            sorted((str(e), str(c.value), why(c.evidence)) for e, c in self.constants.items()),
            sorted((tuple(map(str, c.members)), why(c.evidence)) for c in self.classes),
            sorted((tuple(map(str, f.keys)), why(f.evidence), sorted(map(str, f.partitioned_by or ())),
                    f.partitioned_by is None) for f in self.orderings),
            sorted((sorted(map(str, k.exprs)), why(k.evidence), k.nulls_distinct) for k in self.unique_keys),
            sorted(map(str, self.not_null)),
            sorted((str(e), t) for e, t in self.types.items()),
        )

    def with_types(self, types: Mapping[Expr, str]) -> Properties:
        return self.but(types={**self.types, **types})

    def with_not_null(self, exprs: Iterable[Expr]) -> Properties:
        return self.but(not_null=self.not_null | frozenset(exprs))

    def with_constant(
        self, expr: Expr, value: Expr | None = None, evidence: Iterable[Evidence] = ()
    ) -> Properties:
        expr, class_evidence = self.normalize_expr(expr)
        evidence = frozenset(evidence) | class_evidence
        existing = self.constants.get(expr)
        # The safest sufficient reason wins: the query's own reason replaces a declared or
        # upstream one (value and all: a declared value is the declaration's).
        weaker = existing is not None and not only_the_query(existing.evidence)
        if existing is not None and not (weaker and only_the_query(evidence)):
            if existing.value is not None or value is None:
                return self
            evidence |= existing.evidence
        constants = {**self.constants, expr: Constant(value, evidence)}
        not_null = self.not_null
        if value is not None and not isinstance(value.node, exp.Null):
            not_null = not_null | {expr}
        return self.but(constants=constants, not_null=not_null).renormalized()

    def with_equality(self, left: Expr, right: Expr, evidence: Iterable[Evidence] = ()) -> Properties:
        """Record that `left` and `right` are equal on every row."""
        evidence = frozenset(evidence)
        if left.is_literal or right.is_literal:
            literal, other = (left, right) if left.is_literal else (right, left)
            return self.with_constant(other, literal, evidence)
        left_class = self._class_of.get(left)
        right_class = self._class_of.get(right)
        if left_class is not None and left_class is right_class:
            return self
        members = list(left_class.members if left_class else (left,))
        members += [m for m in (right_class.members if right_class else (right,)) if m not in members]
        merged = EquivalenceClass(
            tuple(members),
            evidence
            | (left_class.evidence if left_class else NO_EVIDENCE)
            | (right_class.evidence if right_class else NO_EVIDENCE),
        )
        classes = tuple(c for c in self.classes if c is not left_class and c is not right_class)
        constants = dict(self.constants)
        for member in members[1:]:
            moved = constants.pop(member, None)
            if moved is not None and members[0] not in constants:
                constants[members[0]] = Constant(moved.value, moved.evidence | evidence)
        return self.but(classes=classes + (merged,), constants=constants).renormalized()

    def with_ordering(
        self,
        keys: Sequence[SortKey],
        evidence: Iterable[Evidence] = (),
        partitioned_by: Iterable[Expr] | None = None,
    ) -> Properties:
        fact = OrderingFact(
            tuple(keys),
            frozenset(evidence),
            None if partitioned_by is None else frozenset(partitioned_by),
        )
        return self.but(orderings=self.orderings + (fact,)).renormalized()

    def with_unique_key(
        self, exprs: Iterable[Expr], evidence: Iterable[Evidence] = (), nulls_distinct: bool = False
    ) -> Properties:
        """Record that no two rows agree on `exprs`. With `nulls_distinct` (SQL's UNIQUE),
        rows with a NULL in the key may repeat: the key counts only while its
        expressions are known not null."""
        key = UniqueKey(frozenset(exprs), frozenset(evidence), nulls_distinct)
        return self.but(unique_keys=self.unique_keys + (key,)).renormalized()

    def sorted_by(self, keys: Sequence[SortKey], evidence: Iterable[Evidence] = ()) -> Properties:
        """The rows after a sort on `keys`. Sorts are not stable: earlier orders are lost."""
        return self.but(orderings=()).with_ordering(keys, evidence)

    def without_orderings(self) -> Properties:
        return self.but(orderings=())

    def global_orderings_only(self) -> Properties:
        """Without the orderings that hold only inside partitions (the rows of several
        partitions gathered into one, in no order)."""
        return self.but(orderings=tuple(f for f in self.orderings if f.partitioned_by is None))

    def in_each_partition(self) -> Properties:
        """Every ordering as one that holds inside each of partitions nothing is known about
        (the rows split up, each part keeping its order: DataFusion's file groups, the
        branches of a UNION ALL)."""
        orderings = tuple(replace(f, partitioned_by=frozenset()) for f in self.orderings)
        return self.but(orderings=succinct(orderings))

    def project(self, mapping: Sequence[tuple[Expr, Expr]]) -> Properties:
        """The properties of a projection: `mapping` pairs each input expression with
        the output column that carries it (`SELECT source AS output`).

        An ordering survives through renames, and through monotonic expressions of its
        keys; it is cut at its first key that does not survive. Outputs with one source
        form a class; constant sources give constant outputs.
        """
        mapping = self._bearing(mapping)
        sources: dict[Expr, list[Expr]] = {}
        for source, output in mapping:
            normalized, _ = self.normalize_expr(source)
            sources.setdefault(normalized, []).append(output)

        def carried(expr: Expr) -> Expr | None:
            """The output carrying a normalised input expression, if any."""
            outputs = sources.get(expr)
            if outputs:
                return outputs[0]
            if expr.is_column or expr.is_literal:
                return None
            return over_outputs(expr)

        def over_outputs(expr: Expr) -> Expr | None:
            """An expression over input columns that are all carried, as an expression
            over the outputs: `date_trunc('hour', time)` with `time AS t`."""
            found = {c: sources.get(self.normalize_expr(c)[0]) for c in expr.columns}
            outputs = {c: o for c, o in found.items() if o}
            if not outputs or len(outputs) < len(found):
                return None
            node = expr.node.transform(
                lambda n: outputs[Expr.of(n)][0].node.copy() if isinstance(n, exp.Column) else n
            )
            return Expr.of(node)

        types: dict[Expr, str] = {}
        not_null: set[Expr] = set()
        for source, output in mapping:
            if source.is_column and source not in self._class_of:
                # What `type_of` and `nullable` answer for a column no class holds, without
                # their calls: a chain of CTEs renames thousands of columns per statement.
                kind = self.types.get(source)
                constant_value = self.constants[source].value if source in self.constants else None
                known = source in self.not_null or (
                    constant_value is not None and not isinstance(constant_value.node, exp.Null)
                )
            else:
                kind, known = self.type_of(source), not self.nullable(source)
            if kind is not None:
                types[output] = kind
            if known:
                not_null.add(output)
        result = Properties(types=types, not_null=frozenset(not_null), arithmetic=self.arithmetic)
        for source, outputs in sources.items():
            if len(outputs) == 1 and source.is_column and source not in self.constants:
                continue  # neither constant nor equal to another output
            constant, why = self.is_constant(source)
            if constant:
                found = self.constants.get(source)
                value = source if source.is_literal else (found.value if found else None)
                for output in outputs:
                    result = result.with_constant(output, value, why)
            for output in outputs[1:]:
                cls = self._class_of.get(source)
                result = result.with_equality(outputs[0], output, cls.evidence if cls else ())
        for cls in self.classes:
            # A member over projected columns stays equal to the others that survive:
            # `WHERE a = CAST(b AS INT)`, then `SELECT a, b`.
            members = [carried(cls.representative)]
            members += [over_outputs(m) for m in cls.members if not m.is_column]
            surviving = list(dict.fromkeys(m for m in members if m is not None))
            for member in surviving[1:]:
                result = result.with_equality(surviving[0], member, cls.evidence)
        # Orderings and keys are added together and normalised once (adding them one by one
        # would re-normalise the growing set each time).
        images: dict[Expr, list[Expr]] = {}  # an input expression -> outputs of its exact images
        for source, outputs in sources.items():
            if source.is_column:
                continue  # no image of anything (and its node may not be made yet)
            operand = exact_image_of(source.node, self._type_of_node)
            if operand is not None:
                images.setdefault(Expr.of(operand), []).append(outputs[0])
        orderings: list[OrderingFact] = []
        for fact in self.orderings:
            for keys in self._project_ordering(fact, sources, carried, images):
                partitioned_by = None
                if fact.partitioned_by is not None:
                    # Still ordered inside each partition; which rows share one is known
                    # only while every partitioning expression is carried.
                    partition = [carried(e) for e in fact.partitioned_by]
                    partitioned_by = frozenset(e for e in partition if e is not None)
                    if len(partitioned_by) < len(partition):
                        partitioned_by = frozenset()
                orderings.append(OrderingFact(keys, fact.evidence, partitioned_by))
        # A computed output ordered like its inputs: globally, or inside each partition of
        # a scope (from the orderings of that scope).
        for scope in dict.fromkeys(fact.partitioned_by for fact in self.orderings):
            partitioned_by = None
            if scope is not None:
                carried_scope = [carried(e) for e in scope]
                partitioned_by = frozenset(e for e in carried_scope if e is not None)
                if len(partitioned_by) < len(carried_scope):
                    partitioned_by = frozenset()
            facts = tuple(replace(f, partitioned_by=None) for f in self.orderings if f.partitioned_by == scope)
            group = _Group(self.but(orderings=facts))
            for source, outputs in sources.items():
                if source.is_column:
                    continue
                prop, why = group.property(source)
                if prop.options is not None:  # ordered
                    orderings.append(OrderingFact((SortKey(outputs[0], prop.options),), why, partitioned_by))
        unique_keys: list[UniqueKey] = []
        for key in self.unique_keys:
            members = [carried(e) for e in key.exprs]
            if all(m is not None for m in members):
                unique_keys.append(UniqueKey(frozenset(m for m in members if m is not None), key.evidence, key.nulls_distinct))
        if not orderings and not unique_keys:
            return result
        return result.but(
            orderings=result.orderings + tuple(orderings),
            unique_keys=result.unique_keys + tuple(unique_keys),
        ).renormalized()

    def _bearing(self, mapping: Sequence[tuple[Expr, Expr]]) -> Sequence[tuple[Expr, Expr]]:
        """`mapping` without the columns passed on once that no fact speaks of: each makes
        an output nothing is known about, and `project` would only find that out (a chain of
        CTEs passes thousands of columns per statement, facts are known of a few). A column
        passed on twice stays: its two outputs are equal."""
        spoken = self._spoken_of
        kept: list[tuple[Expr, Expr]] = []
        unknown: set[Expr] = set()
        for pair in mapping:
            source = pair[0]
            if source.is_column and source not in spoken:
                if source in unknown:
                    return mapping
                unknown.add(source)
            else:
                kept.append(pair)
        return kept

    def _project_ordering(self, fact: OrderingFact, sources, carried, images) -> list[Ordering]:
        """Map an ordering's keys to outputs. A key goes on through the output that carries
        it and through each exact image of it (`CAST(a AS BIGINT)`: one ordering per
        choice, [a, b] giving [a, b] and [a_big, b]); where a key is lost, an output that
        is ordered once the earlier keys are fixed (a monotonic function of the lost key)
        may still extend it by one key."""
        group = _Group(self.but(orderings=(replace(fact, partitioned_by=None),)))
        choices: list[list[SortKey]] = []
        for key in fact.keys:
            output = carried(key.expr)
            outputs = ([output] if output is not None else []) + images.get(key.expr, [])
            if outputs:
                choices.append([SortKey(o, key.options) for o in dict.fromkeys(outputs)])
                group.fix(key.expr)
                continue
            for source, outputs in sources.items():
                prop, _ = group.property(source)
                if prop.options is not None:  # ordered
                    choices.append([SortKey(outputs[0], prop.options)])
                    break
            break
        if not choices:
            return []
        # Several images of several keys multiply; past a few orderings the rest is
        # forgotten (a lost fact, never a wrong one).
        return [tuple(keys) for keys in islice(product(*choices), MAX_IMAGE_ORDERINGS)]

    @staticmethod
    def union(children: Sequence[Properties], per_partition: bool = False) -> Properties:
        """What holds on each input stream of a set operation, read column by column.

        Every child must already be projected onto the output columns. An ordering
        holds if it holds on every child; a child's constants can fill the gaps of
        another child's ordering (`[a, c]` with constant `b` and `[b, c]` with constant
        `a` both satisfy `[a, b, c]`). A constant survives only with the same known
        value on every child: the rows of different children mix in the output. With
        `per_partition`, orderings are compared inside each partition and hold there.
        """
        if not children:
            return Properties()
        result = children[0]
        for child in children[1:]:
            result = _union_pair(result, child, per_partition)
        return result

    def renormalized(self) -> Properties:
        """Restore the invariants: representatives only, no constants, succinct."""
        orderings = []
        for fact in self.orderings:
            keys, dropped = self._normalize_ordering(fact.keys)
            if keys:
                partitioned_by = fact.partitioned_by
                if partitioned_by is not None:
                    partitioned_by = frozenset(self.normalize_expr(e)[0] for e in partitioned_by)
                evidence = fact.evidence | dropped
                orderings.append(OrderingFact(keys, evidence, partitioned_by))
                reduced, why = self._without_implied_keys(keys)
                if reduced != keys:
                    orderings.append(OrderingFact(reduced, evidence | why, partitioned_by))
        unique_keys = tuple(
            replace(key, exprs=frozenset(self.normalize_expr(e)[0] for e in key.exprs))
            for key in self.unique_keys
        )
        constants: dict[Expr, Constant] = {}
        for expr, constant in self.constants.items():
            constants.setdefault(self.normalize_expr(expr)[0], constant)
        return self.but(
            constants=constants, orderings=succinct(orderings), unique_keys=unique_keys
        )

    def _normalize_ordering(self, keys: Ordering) -> tuple[Ordering, frozenset[Evidence]]:
        """The ordering over representatives without constants and repeats, and the
        evidence of what was taken out: the ordering now rests on those facts too (`[host,
        time]` is `[time]` only because a WHERE made host constant)."""
        out: list[SortKey] = []
        seen: set[Expr] = set()
        used: set[Evidence] = set()
        for key in keys:
            expr, class_evidence = self.normalize_expr(key.expr)
            used.update(class_evidence)
            if expr in seen:
                continue
            constant, why = self.is_constant(expr)
            if constant:
                used.update(why)
                continue
            seen.add(expr)
            out.append(SortKey(expr, key.options))
        return tuple(out), frozenset(used)

    def _without_implied_keys(self, keys: Ordering) -> tuple[Ordering, frozenset[Evidence]]:
        """The same order without the keys that are monotonic functions of the key after
        them: `[to_date(t), t]` sorts rows exactly as `[t]` does. Both stay known (the
        shorter form makes `t` a leading key; the longer keeps `d` ordered when `d` is
        a column equal to `to_date(t)`)."""
        kept: list[SortKey] = []
        used: set[Evidence] = set()
        for key in reversed(keys):
            why = self._follows_from(key, kept[0]) if kept else None
            if why is None:
                kept.insert(0, key)
            else:
                used.update(why)
        return tuple(kept), frozenset(used)

    def _follows_from(self, key: SortKey, after: SortKey) -> frozenset[Evidence] | None:
        """Why `key` is ordered wherever `after` is, as a monotonic function of `after`
        alone (itself, or through a member of its class); None when it is not known to be."""
        cls = self._class_of.get(key.expr)
        members = [m for m in (cls.members if cls else (key.expr,)) if not m.is_column]
        if not members:
            return None
        alone = _Group(self.but(orderings=(OrderingFact((after,)),)))
        for member in members:
            prop, _ = alone.property(member)
            if self._meets(prop, key):
                return cls.evidence if cls is not None and member != key.expr else NO_EVIDENCE
        return None


_FIELDS = tuple(f.name for f in fields(Properties))


def _union_pair(left: Properties, right: Properties, per_partition: bool) -> Properties:
    candidates: list[Ordering] = []
    for first, second in ((left, right), (right, left)):
        for fact in first.orderings:
            candidates.append(fact.keys)
            for other in second.orderings:
                candidates.append(_merge_with_constants(fact.keys, other.keys, first, second))
    orderings: list[OrderingFact] = []
    for keys in candidates:
        left_fit = left.satisfaction(keys, per_partition=per_partition)
        right_fit = right.satisfaction(keys, per_partition=per_partition)
        length = min(left_fit.satisfied, right_fit.satisfied)
        if length:
            evidence = left_fit.evidence | right_fit.evidence
            scope = frozenset[Expr]() if per_partition else None
            orderings.append(OrderingFact(keys[:length], evidence, scope))
    constants = {}
    for expr, constant in left.constants.items():
        same = right.constant(expr)
        if (
            same is not None
            and constant.value is not None
            and constant.value == same.value
        ):
            constants[expr] = Constant(constant.value, constant.evidence | same.evidence)
    types = {e: t for e, t in left.types.items() if right.types.get(e) == t}
    not_null = frozenset(e for e in left.not_null if not right.nullable(e))
    return Properties(
        constants=constants, types=types, not_null=not_null, arithmetic=left.arithmetic,
        orderings=succinct(orderings),
    )


def _merge_with_constants(
    first: Ordering, second: Ordering, first_props: Properties, second_props: Properties
) -> Ordering:
    """Interleave two orderings where each side's constants fill the other's gaps."""
    merged: list[SortKey] = []
    i = j = 0
    while i < len(first) and j < len(second):
        if first[i].expr == second[j].expr and first[i].options == second[j].options:
            merged.append(first[i])
            i, j = i + 1, j + 1
        elif second_props.is_constant(first[i].expr)[0]:
            merged.append(first[i])
            i += 1
        elif first_props.is_constant(second[j].expr)[0]:
            merged.append(second[j])
            j += 1
        else:
            break
    return tuple(merged)


def succinct(facts: Iterable[OrderingFact]) -> tuple[OrderingFact, ...]:
    """Drop repeated orderings, and cut from each ordering a suffix that another one
    starts with (DataFusion's `resolve_overlap`): `[a, b]` with `[b, c]` says no more
    than `[a]` with `[b, c]`, since `b` ordered everywhere is ordered inside each group
    of `a`. An ordering cut to nothing was a prefix of another and goes. The other
    ordering must hold wherever this one does: globally, or with the same scope.
    Every cut shortens an ordering, so this ends after at most as many rounds as keys."""
    facts = _unique(facts)
    changed = True
    while changed:
        changed = False
        for i in range(len(facts)):
            for other in facts:
                if other is facts[i] or not other.keys:
                    continue
                scope = other.partitioned_by
                if scope is not None and scope != facts[i].partitioned_by:
                    continue
                keys = _without_overlap(facts[i].keys, other.keys)
                if keys != facts[i].keys:
                    facts[i] = replace(facts[i], keys=keys)
                    changed = True
    return tuple(fact for fact in facts if fact.keys)


def _unique(facts: Iterable[OrderingFact]) -> list[OrderingFact]:
    """The first of each repeated ordering (same keys and scope), in order."""
    seen: set[tuple[Ordering, frozenset[Expr] | None]] = set()
    kept = []
    for fact in facts:
        if (fact.keys, fact.partitioned_by) not in seen:
            seen.add((fact.keys, fact.partitioned_by))
            kept.append(fact)
    return kept


def _without_overlap(keys: Ordering, other: Ordering) -> Ordering:
    """`keys` without its shortest suffix that `other` starts with."""
    for overlap in range(1, min(len(keys), len(other)) + 1):
        if keys[len(keys) - overlap :] == other[:overlap]:
            return keys[: len(keys) - overlap]
    return keys


class _Group:
    """The properties of one group of rows on which some expressions are fixed.

    Each ordering keeps a cursor at its first key that is not fixed (or constant): that
    key leads the ordering inside the group. Cursors only move forward, so a whole
    satisfaction check costs the total length of the orderings plus one step per key.
    """

    def __init__(self, props: Properties, within: Iterable[Expr] = (), per_partition: bool = False) -> None:
        self.props = props
        self.fixed: set[Expr] = set()
        self.evidence: set[Evidence] = set()
        within = [props.normalize_expr(e)[0] for e in within]
        self.facts = [
            fact
            for fact in props.orderings
            if per_partition
            or fact.partitioned_by is None
            or (
                fact.partitioned_by
                and all(e in within or props.is_constant(e)[0] for e in fact.partitioned_by)
            )
        ]
        self.cursors = [0] * len(self.facts)
        self.skipped: list[set[Evidence]] = [set() for _ in self.facts]  # constants passed over
        self.leading: dict[Expr, list[int]] = {}
        for index in range(len(self.facts)):
            self._advance(index)
        for expr in within:
            self.fix(expr)

    def _advance(self, index: int) -> None:
        keys = self.facts[index].keys
        cursor = self.cursors[index]
        while cursor < len(keys):
            constant, why = self.props.is_constant(keys[cursor].expr, self.fixed)
            if not constant:
                break
            self.skipped[index].update(why)
            cursor += 1
        self.cursors[index] = cursor
        if cursor < len(keys):
            self.leading.setdefault(keys[cursor].expr, []).append(index)

    def fix(self, expr: Expr) -> None:
        """Restrict to the rows where `expr` has one value."""
        self.fixed.add(expr)
        stale = [lead for lead in self.leading if self.props.is_constant(lead, self.fixed)[0]]
        for lead in stale:
            for index in self.leading.pop(lead):
                self._advance(index)

    def property(
        self, expr: Expr, wanted: SortKey | None = None
    ) -> tuple[SortProperty, frozenset[Evidence]]:
        """How `expr` is ordered in the group. Several orderings may lead with it in
        different ways (a value constant within each group of an earlier key leads in
        every direction): the first that gives `wanted` is chosen, else the first."""
        constant, why = self.props.is_constant(expr, self.fixed)
        if constant:
            return SINGLETON, why
        leads = [
            (
                SortProperty(self.facts[i].keys[self.cursors[i]].options),
                self.facts[i].evidence | self.skipped[i],
            )
            for i in self.leading.get(expr, ())
        ]
        if leads:
            meets = (lead for lead in leads if wanted is None or self.props._meets(lead[0], wanted))
            return next(meets, leads[0])
        if expr.is_column:
            return UNORDERED, NO_EVIDENCE
        used: set[Evidence] = set()

        def analyse(node: exp.Expression) -> tuple[SortProperty, str | None]:
            operand = Expr.of(node)
            prop, evidence = self.property(operand)
            used.update(evidence)
            return prop, self.props.type_of(operand)

        prop = monotonic_property(expr.node, analyse, self.props.arithmetic, self.props._type_of_node)
        return prop, frozenset(used) if prop is not UNORDERED else NO_EVIDENCE
