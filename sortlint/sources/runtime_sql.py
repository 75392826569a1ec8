"""SQL built at run time, followed: what a DAG file's hooks and operators, and a PySpark
job's `spark.sql`, run when their SQL is assembled by Python code rather than written as one
literal.

A function body is read in order, as Python runs it (`Interpreter`): a name holds what its
last assignment bound (`sql += "..."` included), each branch of an `if` (or of `a if c else
b`) is one alternative, a name assigned in a loop or a `try` is unknown after it. A call to a
function of the file, or of a module of the repository (found as Python imports it: beside
the DAG file, then in the folders above it up to the project root), is followed with its
arguments' values; what it returns is the call's value. Strings are built with `+`,
`.format(...)`, `%`, f-strings, `"sep".join([...])`, `textwrap.dedent`, `.strip()`.

A value is a `Built`: the literals' text, each with its map back to the file (`MappedText`),
and `Hole`s, expressions of unknown value (a parameter, a call to code not followed). A hole
standing inside a statement is a placeholder (`sortlint.sources.sql.placeholders`); one
standing between statements (after a `;` or at the start, and followed by the end, a `;`,
or a keyword only a statement starts with) is an opaque unit of its own, and the statements
around it are analysed. Text that comes from another module is analysed where the DAG file
uses it (the call or name that brings it), and no fix edits it.

The callables a DAG runs are entered with their parameters unknown, as Airflow passes them
at run time; a function only ever called directly is followed from its calls instead.

Nodes are libcst's, recognised by their class names.
"""

from __future__ import annotations

import itertools
import os
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from collections.abc import Iterator
from typing import Any

from sortlint.errors import UserError
from sortlint.files import note_input, read_source
from sortlint.sources.python.constants import UNKNOWN, dotted_name, format_text, formatted, literal
from sortlint.sources.python.strings import (
    OPAQUE,
    FormatField,
    MappedText,
    Segment,
    SourceSpans,
    apply_formatting,
    decode,
    is_bytes,
    is_string,
    joined,
)
from sortlint.sources.sql.placeholders import FormatSource, SqlScanner, field_placeholder, placeholder

MAX_ALTERNATIVES = 8  # more ways one value may be built: unknown
MAX_CALLS = 12  # calls nested deeper: unknown (and stops a recursion)
MAX_NESTING = 200  # expressions nested deeper: unknown (Python's own stack is the limit)
# Keywords that only start a statement: an unknown piece followed by one ends before it.
# (ADD, DROP, UPDATE, DELETE continue an ALTER TABLE or a MERGE, so they are not among them.)
STATEMENT_STARTS = frozenset({
    "INSERT", "ALTER", "CREATE", "SET", "MSCK", "USE", "TRUNCATE", "MERGE", "ANALYZE", "REFRESH",
    "CACHE", "UNCACHE", "LOAD", "RESET", "SHOW", "DESCRIBE",
})


@dataclass(frozen=True)
class Known:
    """Text written in a literal: its map, and the fields in it whose value is known only at
    run time (placeholders)."""

    mapped: MappedText
    fields: tuple[str, ...] = ()


@dataclass(frozen=True)
class Hole:
    """An expression whose value is known only at run time, at raw [start, end)."""

    start: int
    end: int
    source: str
    why: str  # what it is: "a call to cf.alter_partition()"
    raw: str = field(default="", compare=False, repr=False)  # the file it stands in


@dataclass(frozen=True)
class Built:
    parts: tuple[Known | Hole, ...]

    @property
    def value(self) -> str | None:
        """The text, when every piece of it is known."""
        if any(isinstance(p, Hole) or p.fields for p in self.parts):
            return None
        return "".join(p.mapped.text for p in self.parts)

    def __add__(self, other: Built) -> Built:
        return Built(self.parts + other.parts)


class Items(tuple):
    """The items of a list: a list the module may change in place is not one of these."""


@dataclass(frozen=True)
class Function:
    module: PyModule
    node: Any  # FunctionDef
    scope: Scope | None  # where it was defined (None: the module)


@dataclass(frozen=True)
class ModuleRef:
    module: PyModule


def describe(node: Any) -> str:
    kind = type(node).__name__
    if kind == "Call":
        name = dotted_name(node.func)
        return f"a call to {name}()" if name else "a call"
    if kind == "Name":
        return f"the name {node.value}, not bound once to a string in this file"
    if kind == "BinaryOperation":
        return "an expression"
    if kind == "Attribute":
        return f"the attribute {dotted_name(node) or '...'}"
    if is_string(node):
        return "a bytes literal"
    return f"a {kind} expression"


# ---------------------------------------------------------------------------------------------
# Modules


class PyModule:
    """A parsed Python file: its tree, spans, each node's children and parent (libcst makes a
    node's children anew each time it is asked: they are asked once here)."""

    def __init__(self, path: Path, raw: str, tree: Any, spans: SourceSpans) -> None:
        self.path = path
        self.raw = raw
        self.tree = tree
        self.spans = spans
        self.parents: dict[int, Any] = {}
        self.children: dict[int, tuple[Any, ...]] = {}
        stack = [tree]
        while stack:
            node = stack.pop()
            children = self.children[id(node)] = tuple(node.children)
            for child in children:
                self.parents[id(child)] = node
            stack.extend(children)
        self._assigned: dict[int, frozenset[str]] = {}
        self.mutated = _mutated_names(self)
        self.declared_global = {n.name.value for node in self.walk(tree) if type(node).__name__ == "Global"
                                for n in node.names}

    def walk(self, node: Any, prune: Any = None) -> Iterator[Any]:
        """The node and those below it in the order they are written, not below a node
        `prune` accepts (other than it)."""
        stack = [node]
        while stack:
            current = stack.pop()
            yield current
            if current is node or prune is None or not prune(current):
                stack.extend(reversed(self.children.get(id(current), ())))

    def assigned(self, node: Any) -> frozenset[str]:
        """Names a statement (or block) binds, those of nested functions and classes aside."""
        if id(node) not in self._assigned:
            self._assigned[id(node)] = frozenset(_assigned(self, node))
        return self._assigned[id(node)]

@lru_cache(maxsize=64)
def _parsed(path: str, raw: str) -> PyModule | None:
    import libcst as cst
    from libcst.metadata import MetadataWrapper

    try:
        tree = cst.parse_module(raw)
    except cst.ParserSyntaxError:
        return None
    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    return PyModule(Path(path), raw, tree, SourceSpans(wrapper, raw))


# ---------------------------------------------------------------------------------------------
# Scopes


class Scope:
    """The names a function (or a module) has bound so far, each with its alternatives."""

    def __init__(self, module: PyModule, parent: Scope | None, local: frozenset[str] = frozenset()) -> None:
        self.module = module
        self.parent = parent
        self.local = local  # names the function binds somewhere: never its parent's
        self.values: dict[str, list[Any]] = {}

    def copy(self) -> Scope:
        twin = Scope(self.module, self.parent, self.local)
        twin.values = dict(self.values)
        return twin

    def lookup(self, name: str) -> list[Any] | None:
        if name in self.values:
            return self.values[name]
        if name in self.local or self.parent is None:
            return None
        return self.parent.lookup(name)


def _alternatives(values: list[Any]) -> list[Any]:
    unique: list[Any] = []
    for value in values:
        if not any(value is u or (type(value) is type(u) and value == u) for u in unique):
            unique.append(value)
    return unique if len(unique) <= MAX_ALTERNATIVES else [UNKNOWN]


def _merged(scopes: list[Scope], base: Scope) -> None:
    """`base` takes the union of what the scopes bound (a name bound on some paths only keeps
    its value from before on the others)."""
    names = {name for scope in scopes for name in scope.values}
    for name in names:
        values: list[Any] = []
        for scope in scopes:
            values.extend(scope.values.get(name, base.values.get(name, [UNKNOWN])))
        base.values[name] = _alternatives(values)


_SCOPES_AND_IMPORTS = ("FunctionDef", "ClassDef", "Lambda", "Import", "ImportFrom")


def _assigned(module: PyModule, node: Any) -> set[str]:
    names: set[str] = set()
    for current in module.walk(node, lambda n: type(n).__name__ in _SCOPES_AND_IMPORTS):
        kind = type(current).__name__
        if kind in ("AssignTarget", "AugAssign", "AnnAssign", "For", "CompFor", "AsName", "NamedExpr"):
            target = getattr(current, "target", None) or getattr(current, "name", None)
            names.update(_target_names(target))
        elif kind in ("FunctionDef", "ClassDef") and current is not node:
            names.add(current.name.value)
        elif kind in ("Import", "ImportFrom"):
            if type(current.names).__name__ != "ImportStar":
                names.update(_alias_name(alias) for alias in current.names)
        elif kind in ("Global", "Nonlocal"):
            names.update(n.name.value for n in current.names)
    return names


def _target_names(target: Any) -> set[str]:
    if target is None:
        return set()
    kind = type(target).__name__
    if kind == "Name":
        return {target.value}
    if kind in ("Tuple", "List"):
        return {n for e in target.elements for n in _target_names(e.value)}
    if kind == "StarredElement":
        return _target_names(target.value)
    return set()


def _alias_name(alias: Any) -> str:
    if alias.asname is not None:
        return alias.asname.name.value
    return (dotted_name(alias.name) or "").split(".")[0]


# ---------------------------------------------------------------------------------------------
# The interpreter


class Interpreter:
    """Reads a DAG file's code as it runs, recording what each SQL argument (`targets`: the
    value nodes of hooks' and operators' SQL) holds where it is evaluated."""

    def __init__(self, module: PyModule, targets: list[Any], root: Path | None, dialect: str) -> None:
        self.module = module
        self.root = root
        self.dialect = dialect
        self.found: dict[int, list[Any]] = {id(t): [] for t in targets}
        self.sites: dict[int, list[Any]] = {}  # statement -> targets evaluated before it runs
        self.entries: dict[int, Any] = {}  # functions holding targets, entered on their own
        self.depth = 0  # expressions being evaluated, one inside another
        self.calls = 0  # function calls being followed, one inside another
        self.scopes: dict[int, Scope] = {}
        self.origins: dict[int, str] = {}  # raw text of a module -> its path, as shown
        for target in targets:
            node = target
            statement = None
            while id(node) in module.parents:
                node = module.parents[id(node)]
                kind = type(node).__name__
                if statement is None and (kind == "SimpleStatementLine" or kind in _COMPOUND):
                    statement = node
                if kind == "FunctionDef":
                    self.entries.setdefault(id(node), node)
            if statement is not None:
                self.sites.setdefault(id(statement), []).append(target)
        self._called_only = self._functions_called_only()
        self._enter_callers()

    def run(self) -> dict[int, list[Any]]:
        scope = self.module_scope(self.module)
        for function in list(self.entries.values()):
            if id(function) in self._called_only or self._nested(function):
                continue
            for given in self._callable_arguments(function, scope):
                self.enter(function, scope, given)
        return {key: _alternatives(values) for key, values in self.found.items()}

    def _callable_arguments(self, function: Any, scope: Scope) -> list[dict[str, Any] | None]:
        """The keyword arguments Airflow calls a function with: for each operator given it
        as `python_callable=`, the operator's `op_kwargs` (a dict the file fixes; the
        context Airflow adds is unknown), None for any other reference to it (all unknown)."""
        found: list[dict[str, Any] | None] = []
        for node in self.module.walk(self.module.tree):
            if type(node).__name__ != "Name" or node.value != function.name.value or node is function.name:
                continue
            parent = self.module.parents.get(id(node))
            call = self.module.parents.get(id(parent))
            given = None
            if type(parent).__name__ == "Arg" and parent.keyword is not None and parent.keyword.value == "python_callable":
                given = {}
                for argument in call.args:
                    if argument.keyword is not None and argument.keyword.value == "op_kwargs":
                        values = self.values(argument.value, scope)
                        given = values[0] if len(values) == 1 and isinstance(values[0], dict) else None
            if given not in found:
                found.append(given)
        return found or [None]

    def _nested(self, function: Any) -> bool:
        node = function
        while id(node) in self.module.parents:
            node = self.module.parents[id(node)]
            if type(node).__name__ == "FunctionDef":
                return True
        return False

    def _functions_called_only(self) -> set[int]:
        """Functions of the DAG file that its code only ever calls (never hands to an operator
        or stores): their targets are read from each call."""
        defined = {n.name.value: n for n in self.entries.values()}
        uses: dict[str, list[bool]] = {}
        for node in self.module.walk(self.module.tree):
            if type(node).__name__ == "Name" and node.value in defined:
                parent = self.module.parents.get(id(node))
                if type(parent).__name__ != "FunctionDef":
                    uses.setdefault(node.value, []).append(type(parent).__name__ == "Call" and parent.func is node)
        return {id(defined[name]) for name, calls in uses.items() if calls and all(calls)}

    def _enter_callers(self) -> None:
        """Functions calling one that holds targets and is only ever called are entered too:
        the targets are read with the arguments they pass."""
        called = {n.name.value for n in self.entries.values() if id(n) in self._called_only}
        while called:
            found = set()
            for node in self.module.walk(self.module.tree):
                if type(node).__name__ != "FunctionDef" or id(node) in self.entries:
                    continue
                if not any(type(n).__name__ == "Name" and n.value in called for n in self.module.walk(node.body)):
                    continue
                self.entries[id(node)] = node
                if id(node) in self._called_only:
                    found.add(node.name.value)
            called = found

    def enter(self, function: Any, parent: Scope, given: dict[str, Any] | None = None) -> None:
        """Run a function called from outside the file: with the keyword arguments `given`
        (those a dict of Airflow's context may add are unknown), else all unknown."""
        scope = Scope(parent.module, parent, parent.module.assigned(function.body) | _params(function))
        for name in _params(function):
            scope.values[name] = [given.get(name, UNKNOWN) if given is not None else UNKNOWN]
        star = function.params.star_kwarg
        if given is not None and star is not None and type(star).__name__ == "Param":
            scope.values[star.name.value] = [dict(given)]
        self.block(function.body.body, scope, [])

    def module_scope(self, module: PyModule) -> Scope:
        """A module's globals once its body has run (each module run once per DAG file, so
        that every file it imports is read again, an input of this DAG file's analysis)."""
        if id(module) not in self.scopes:
            scope = self.scopes[id(module)] = Scope(module, None)
            self.block(module.tree.body, scope, [])
            for name in module.declared_global:
                scope.values[name] = [UNKNOWN]  # a function may rebind it when it runs
        return self.scopes[id(module)]

    # -- statements ------------------------------------------------------------------------

    def block(self, statements: Any, scope: Scope, returns: list[Any]) -> bool:
        """Run statements; whether they always return (what comes after never runs)."""
        for statement in statements:
            if self.statement(statement, scope, returns):
                return True
        return False

    def statement(self, node: Any, scope: Scope, returns: list[Any]) -> bool:
        for target in self.sites.get(id(node), ()):
            if scope.module is self.module:
                self.found[id(target)].extend(self.values(target, scope))
        kind = type(node).__name__
        if kind == "SimpleStatementLine":
            for small in node.body:
                if self.small(small, scope, returns):
                    return True
            return False
        if kind == "FunctionDef":
            scope.values[node.name.value] = [Function(scope.module, node, scope if scope.parent else None)]
            if id(node) in self.entries and scope.parent is not None and id(node) not in self._called_only:
                self.enter(node, scope)
            return False
        if kind == "If":
            branches = []
            taken = scope.copy()
            if not self.block(node.body.body, taken, returns):
                branches.append(taken)
            other = scope.copy()
            orelse = node.orelse
            done = False
            if orelse is None:
                pass
            elif type(orelse).__name__ == "If":
                done = self.statement(orelse, other, returns)
            else:
                done = self.block(orelse.body.body, other, returns)
            if not done:
                branches.append(other)
            if not branches:
                return True
            _merged(branches, scope)
            return False
        if kind in ("For", "While"):
            for name in scope.module.assigned(node):
                scope.values[name] = [UNKNOWN]
            body = scope.copy()
            self.block(node.body.body, body, returns)
            if node.orelse is not None:
                self.block(node.orelse.body.body, scope.copy(), returns)
            for name in scope.module.assigned(node):
                scope.values[name] = [UNKNOWN]
            return False
        if kind == "With":
            for item in node.items:
                if item.asname is not None:
                    for name in _target_names(item.asname.name):
                        scope.values[name] = [UNKNOWN]
            return self.block(node.body.body, scope, returns)
        if kind == "Try":
            before = scope.copy()
            ended = self.block(node.body.body, scope, returns)
            if node.orelse is not None and not ended:
                ended = self.block(node.orelse.body.body, scope, returns)
            branches = [] if ended else [scope.copy()]
            for handler in node.handlers:
                caught = before.copy()
                for name in scope.module.assigned(node.body):
                    caught.values[name] = [UNKNOWN]
                if not self.block(handler.body.body, caught, returns):
                    branches.append(caught)
            if branches:
                _merged(branches, scope)
            if node.finalbody is not None:
                self.block(node.finalbody.body.body, scope, returns)
            return not branches
        # A class, a match, anything else: what it binds is unknown.
        for name in scope.module.assigned(node):
            scope.values[name] = [UNKNOWN]
        if kind == "ClassDef":
            scope.values[node.name.value] = [UNKNOWN]  # its methods are entered on their own
        return False

    def small(self, node: Any, scope: Scope, returns: list[Any]) -> bool:
        kind = type(node).__name__
        if kind == "Assign":
            values = self.values(node.value, scope)
            for target in node.targets:
                self.bind(target.target, values, scope)
        elif kind == "AnnAssign" and node.value is not None:
            self.bind(node.target, self.values(node.value, scope), scope)
        elif kind == "AugAssign":
            names = _target_names(node.target)
            if type(node.operator).__name__ == "AddAssign" and type(node.target).__name__ == "Name":
                left = scope.lookup(node.target.value) or [UNKNOWN]
                right = self.values(node.value, scope)
                scope.values[node.target.value] = self.plus(left, node.target, right, node.value, scope)
            else:
                for name in names:
                    scope.values[name] = [UNKNOWN]
        elif kind == "Expr":
            self.values(node.value, scope)  # a call of the file's functions may run SQL
        elif kind == "Return":
            returns.extend(self.values(node.value, scope) if node.value is not None else [None])
            return True
        elif kind == "Raise":
            return True
        elif kind == "Import":
            for alias in node.names:
                name = dotted_name(alias.name) or ""
                if alias.asname is not None:
                    scope.values[_alias_name(alias)] = [self.imported(name, scope.module, 0)]
                else:
                    head = name.split(".")[0]
                    scope.values[head] = [self.imported(head, scope.module, 0)]
        elif kind == "ImportFrom":
            self.import_from(node, scope)
        elif kind in ("Global", "Nonlocal", "Del"):
            for name in scope.module.assigned(node) | _target_names(getattr(node, "target", None)):
                scope.values[name] = [UNKNOWN]
        return False

    def bind(self, target: Any, values: list[Any], scope: Scope) -> None:
        kind = type(target).__name__
        if kind == "Name":
            scope.values[target.value] = values
        else:
            for name in _target_names(target):
                scope.values[name] = [UNKNOWN]

    # -- imports ---------------------------------------------------------------------------

    def import_from(self, node: Any, scope: Scope) -> None:
        names = node.names
        if type(names).__name__ == "ImportStar":
            return
        base = dotted_name(node.module) if node.module is not None else ""
        level = len(node.relative)
        package = self.imported(base or "", scope.module, level) if (base or level) else UNKNOWN
        for alias in names:
            name = dotted_name(alias.name) or ""
            value: Any = UNKNOWN
            if isinstance(package, ModuleRef):
                value = self.attribute_of(package, name)
                if value is UNKNOWN:
                    value = self.imported(f"{base}.{name}" if base else name, scope.module, level)
            scope.values[_alias_name(alias)] = [value]

    def imported(self, name: str, importer: PyModule, level: int) -> Any:
        """The module `name` of the repository, found as Python would: relative to the
        importer's package, else beside the DAG file and in the folders above it up to the
        project root. UNKNOWN when it is not there (a library, Airflow itself)."""
        parts = [p for p in name.split(".") if p]
        if level:
            folder = importer.path.parent
            for _ in range(level - 1):
                folder = folder.parent
            folders = [folder]
        else:
            folders = self._search_folders()
        for folder in folders:
            for candidate in (folder.joinpath(*parts).with_suffix(".py") if parts else None,
                              folder.joinpath(*parts, "__init__.py")):
                if candidate is None:
                    continue
                if not candidate.is_file():
                    note_input(candidate, None)  # one written here later is found first
                    continue
                try:
                    module = _parsed(str(candidate), read_source(candidate))
                except UserError:
                    return UNKNOWN
                if module is None:
                    return UNKNOWN
                self.origins[id(module.raw)] = _shown(module.path, self.root)
                return ModuleRef(module)
        return UNKNOWN

    def _search_folders(self) -> list[Path]:
        folder = self.module.path.parent.resolve()
        folders = [folder]
        root = self.root.resolve() if self.root is not None else None
        if root is not None and root in folder.parents:
            while folder != root:
                folder = folder.parent
                folders.append(folder)
        return folders

    def attribute_of(self, ref: ModuleRef, name: str) -> Any:
        if ref.module is self.module:
            return UNKNOWN
        values = self.module_scope(ref.module).lookup(name)
        return values[0] if values is not None and len(values) == 1 else UNKNOWN

    # -- expressions -----------------------------------------------------------------------

    def values(self, node: Any, scope: Scope) -> list[Any]:
        """The alternatives of an expression's value where it is evaluated."""
        if self.depth > MAX_NESTING:
            return [UNKNOWN]
        self.depth += 1
        try:
            return _alternatives(self._values(node, scope))
        finally:
            self.depth -= 1

    def _values(self, node: Any, scope: Scope) -> list[Any]:
        kind = type(node).__name__
        if is_string(node):
            return [UNKNOWN] if is_bytes(node) else [self.literal(node, scope)]
        value = literal(node)
        if value is not UNKNOWN:
            return [value]
        if kind == "Name":
            found = scope.lookup(node.value)
            if found is None:
                return [UNKNOWN]
            if node.value in scope.module.mutated:  # a list or dict changed in place
                found = [UNKNOWN if isinstance(v, (Items, dict)) else v for v in found]
            return self.relocated(found, node, scope)
        if kind == "Attribute":
            receivers = self.values(node.value, scope)
            if len(receivers) == 1 and isinstance(receivers[0], ModuleRef):
                return self.relocated([self.attribute_of(receivers[0], node.attr.value)], node, scope)
            return [UNKNOWN]
        if kind == "BinaryOperation":
            operator = type(node.operator).__name__
            left = self.values(node.left, scope)
            if operator == "Add":
                return self.plus(left, node.left, self.values(node.right, scope), node.right, scope)
            if operator == "Modulo":
                right = self.values(node.right, scope)
                return [self.percent(a, b, node.right) for a, b in _product(left, right)]
            return [UNKNOWN]
        if kind == "IfExp":
            return self.values(node.body, scope) + self.values(node.orelse, scope)
        if kind in ("List", "Tuple"):
            items = []
            for element in node.elements:
                if type(element).__name__ == "StarredElement":
                    return [UNKNOWN]
                found = self.values(element.value, scope)
                items.append(found[0] if len(found) == 1 else UNKNOWN)
            return [tuple(items) if kind == "Tuple" else Items(items)]
        if kind == "Dict":
            mapping = {}
            for element in node.elements:
                if type(element).__name__ != "DictElement":
                    return [UNKNOWN]
                key = self.values(element.key, scope)
                text = key[0].value if len(key) == 1 and isinstance(key[0], Built) else None
                if text is None:
                    return [UNKNOWN]
                found = self.values(element.value, scope)
                mapping[text] = found[0] if len(found) == 1 else UNKNOWN
            return [mapping]
        if kind == "Subscript" and len(node.slice) == 1 and type(node.slice[0].slice).__name__ == "Index":
            containers = self.values(node.value, scope)
            keys = self.values(node.slice[0].slice.value, scope)
            out: list[Any] = []
            for container, given in _product(containers, keys):
                key = given.value if isinstance(given, Built) else given
                if isinstance(container, dict) and isinstance(key, str):
                    out.append(container.get(key, UNKNOWN))
                elif isinstance(container, tuple) and isinstance(key, int) and -len(container) <= key < len(container):
                    out.append(container[key])
                else:
                    out.append(UNKNOWN)
            return out
        if kind == "Call":
            return self.call(node, scope)
        return [UNKNOWN]

    def relocated(self, values: list[Any], node: Any, scope: Scope) -> list[Any]:
        """Values read in `scope`'s module; text another module wrote stands at `node`."""
        raw = scope.module.raw
        out = []
        for value in values:
            if isinstance(value, Built) and any(_raw_of(p) is not raw for p in value.parts):
                start, end = scope.module.spans(node)
                where = next((self.origins[id(_raw_of(p))] for p in value.parts
                              if _raw_of(p) is not raw and id(_raw_of(p)) in self.origins), "another module")
                parts: list[Known | Hole] = []
                for part in value.parts:
                    if _raw_of(part) is raw:
                        parts.append(part)
                    elif isinstance(part, Hole):
                        parts.append(Hole(start, end, part.source, part.why, raw))
                    else:
                        segment = Segment(0, len(part.mapped.text), start, end, OPAQUE, -1, f"the text of {where}")
                        parts.append(Known(MappedText(part.mapped.text, (segment,), (), raw, start,
                                                      part.mapped.newline), part.fields))
                value = Built(tuple(parts))
            out.append(value)
        return out

    def literal(self, node: Any, scope: Scope) -> Built:
        fields: list[str] = []

        def field_text(info: Any) -> str:
            found = self.values(info.expression, scope)
            if len(found) == 1 and not info.has_format_spec:
                text = _plain(found[0])
                if text is not None:
                    return formatted(text, info.conversion, False)
            fields.append(info.source)
            return field_placeholder(info, scope.module.raw, self.dialect)

        mapped = decode(node, scope.module.raw, scope.module.spans, field_text)
        return Built((Known(mapped, tuple(fields)),))

    def plus(self, left: list[Any], left_node: Any, right: list[Any], right_node: Any, scope: Scope) -> list[Any]:
        out: list[Any] = []
        for a, b in _product(left, right):
            if a is None or b is None:
                continue  # a path where `+` of None fails: it runs no SQL
            if isinstance(a, Built) or isinstance(b, Built):
                out.append(self.as_built(a, left_node, scope) + self.as_built(b, right_node, scope))
            elif isinstance(a, tuple) and type(a) is type(b):
                out.append(type(a)(a + b))
            elif type(a) in (int, float) and type(b) in (int, float):
                out.append(a + b)
            else:
                out.append(UNKNOWN)
        return out or [UNKNOWN]

    def as_built(self, value: Any, node: Any, scope: Scope) -> Built:
        if isinstance(value, Built):
            return value
        start, end = scope.module.spans(node)
        return Built((Hole(start, end, scope.module.raw[start:end], describe(node), scope.module.raw),))

    def call(self, node: Any, scope: Scope) -> list[Any]:
        func = node.func
        name = dotted_name(func) or ""
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        starred = [a for a in node.args if a.star]
        if type(func).__name__ == "Attribute":
            method = func.attr.value
            if method in ("format", "join", "strip", "lstrip", "rstrip"):
                receivers = self.values(func.value, scope)
                if all(isinstance(r, Built) for r in receivers):
                    return [self.method(r, method, node, scope) for r in receivers]
            if name.endswith("Variable.get"):
                default = keywords.get("default_var", positional[1] if len(positional) > 1 else None)
                return [UNKNOWN] if default is None else self.values(default, scope)
        if name in ("textwrap.dedent", "dedent") and len(positional) == 1 and not keywords:
            return [_dedented(v) if isinstance(v, Built) else UNKNOWN for v in self.values(positional[0], scope)]
        if name == "str" and len(positional) == 1:
            return [v if isinstance(v, Built) else UNKNOWN for v in self.values(positional[0], scope)]
        callees = self.values(func, scope) if type(func).__name__ in ("Name", "Attribute") else [UNKNOWN]
        if len(callees) != 1 or not isinstance(callees[0], Function) or starred:
            return [UNKNOWN]
        function = callees[0]
        argument_values = [self.values(a, scope) for a in positional]
        keyword_values = {k: self.values(v, scope) for k, v in keywords.items()}
        if self.calls >= MAX_CALLS:
            return [UNKNOWN]
        out: list[Any] = []
        combinations = itertools.islice(
            itertools.product(*argument_values, *keyword_values.values()), MAX_ALTERNATIVES + 1)
        for combination in combinations:
            args = list(combination[: len(positional)])
            kwargs = dict(zip(keyword_values, combination[len(positional):]))
            self.calls += 1
            try:
                out.extend(self.invoke(function, args, kwargs))
            finally:
                self.calls -= 1
        return self.relocated(out, node, scope) if function.module is not scope.module else out

    def invoke(self, function: Function, args: list[Any], kwargs: dict[str, Any]) -> list[Any]:
        node = function.node
        parent = function.scope or self.module_scope(function.module)
        scope = Scope(function.module, parent, function.module.assigned(node.body) | _params(node))
        parameters = node.params
        ordered = list(parameters.posonly_params) + list(parameters.params)
        for index, param in enumerate(ordered):
            name = param.name.value
            if index < len(args):
                scope.values[name] = [args[index]]
            elif name in kwargs:
                scope.values[name] = [kwargs.pop(name)]
            elif param.default is not None:
                scope.values[name] = self.values(param.default, parent)
            else:
                scope.values[name] = [UNKNOWN]
        for param in parameters.kwonly_params:
            name = param.name.value
            if name in kwargs:
                scope.values[name] = [kwargs.pop(name)]
            else:
                scope.values[name] = self.values(param.default, parent) if param.default is not None else [UNKNOWN]
        for star in (parameters.star_arg, parameters.star_kwarg):
            if star is not None and type(star).__name__ == "Param":
                scope.values[star.name.value] = [UNKNOWN]
        returns: list[Any] = []
        if not self.block(node.body.body, scope, returns):
            returns.append(None)
        if any(r is not None for r in returns):
            returns = [r for r in returns if r is not None]
        return returns

    def method(self, receiver: Built, method: str, node: Any, scope: Scope) -> Any:
        if method in ("strip", "lstrip", "rstrip"):
            return _stripped(receiver, method) if not node.args else UNKNOWN
        if method == "join":
            if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
                return UNKNOWN
            found = self.values(node.args[0].value, scope)
            if len(found) != 1 or not isinstance(found[0], tuple):  # a tuple, or the items of a list
                return UNKNOWN
            items = found[0]
            element_nodes = getattr(node.args[0].value, "elements", None)
            parts: tuple = ()
            for index, item in enumerate(items):
                if index:
                    parts += receiver.parts
                where = element_nodes[index].value if element_nodes and index < len(element_nodes) else node
                parts += self.as_built(item, where, scope).parts
            return Built(parts)
        return self.format(receiver, node, scope)

    def format(self, template: Built, node: Any, scope: Scope) -> Any:
        # A template joined from several literals (`("..." "..." + NAME).format(...)`) is one
        # text; one with a piece or a field of unknown value is not: its braces are unknown.
        known = _template(template)
        if known is None:
            return UNKNOWN
        if any(a.star == "*" for a in node.args):
            return UNKNOWN
        positional = [self._single(a.value, scope) for a in node.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: self._single(a.value, scope) for a in node.args if a.keyword is not None}
        spread: dict[str, Any] = {}
        for given in node.args:
            if given.star == "**":
                mapping = self._single(given.value, scope)
                if not isinstance(mapping, dict):
                    return UNKNOWN  # `**kwargs` of unknown keys: any field may be anything
                spread.update(mapping)

        def argument(key: int | str) -> Any:
            if isinstance(key, int):
                return positional[key] if key < len(positional) else UNKNOWN
            return keywords.get(key, spread.get(key, UNKNOWN))

        return self._formatted(known, "format", argument)

    def percent(self, template: Any, right: Any, right_node: Any) -> Any:
        known = _template(template) if isinstance(template, Built) else None
        if known is None:
            return UNKNOWN

        def argument(key: int | str) -> Any:
            if isinstance(key, int):
                if isinstance(right, tuple):
                    return right[key] if key < len(right) else UNKNOWN
                return right if key == 0 else UNKNOWN
            return right.get(key, UNKNOWN) if isinstance(right, dict) else UNKNOWN

        return self._formatted(known, "%", argument)

    def _single(self, node: Any, scope: Scope) -> Any:
        found = self.values(node, scope)
        return found[0] if len(found) == 1 else UNKNOWN

    def _formatted(self, known: Known, style: str, argument: Any) -> Any:
        unknown: list[str] = []
        template = known.mapped.text

        def field_text(field: FormatField, before: str) -> str:
            value = _plain(argument(field.key))
            text = format_text(field, style, value if value is not None else UNKNOWN)
            if text is not UNKNOWN:
                return text
            unknown.append(field.source)
            return field_placeholder(FormatSource(field.source, before, field.end), template, self.dialect)

        result = apply_formatting(known.mapped, style, field_text)
        return UNKNOWN if result is None else Built((Known(result, known.fields + tuple(unknown)),))


# Methods that change a list or dict in place.
_MUTATORS = frozenset({"append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse",
                       "update", "setdefault", "popitem"})
# Calls known not to change their arguments.
_READERS = frozenset({"join", "format", "len", "str", "dedent", "sorted", "tuple", "list"})


def _mutated_names(module: PyModule) -> set[str]:
    """Names a list or dict held may be changed through: the receiver of `.append(...)` and
    the like, the target of `x[k] = ...` or `del x[k]`, an argument handed to a call that
    may keep or change it."""
    names: set[str] = set()
    for node in module.walk(module.tree):
        if type(node).__name__ != "Name":
            continue
        parent = module.parents.get(id(node))
        kind = type(parent).__name__
        if kind == "Attribute" and parent.value is node and parent.attr.value in _MUTATORS:
            names.add(node.value)
        elif kind == "Subscript" and parent.value is node:
            holder = module.parents.get(id(parent))
            if type(holder).__name__ in ("AssignTarget", "AugAssign", "Del") and holder.target is parent:
                names.add(node.value)
        elif kind == "Arg":
            call = module.parents.get(id(parent))
            func = call.func if type(call).__name__ == "Call" else None
            callee = func.attr.value if type(func).__name__ == "Attribute" else dotted_name(func) if func else None
            if callee not in _READERS:
                names.add(node.value)
    return names


def bound_in_function(module: PyModule, node: Any) -> bool:
    """Whether a name is read in a function that binds it (a local or a parameter)."""
    if type(node).__name__ != "Name":
        return False
    current = node
    while id(current) in module.parents:
        current = module.parents[id(current)]
        if type(current).__name__ == "FunctionDef":
            return node.value in module.assigned(current.body) | _params(current)
    return False


_COMPOUND = ("If", "For", "While", "With", "Try", "FunctionDef", "ClassDef")


def _params(function: Any) -> set[str]:
    parameters = function.params
    names = {p.name.value for p in (*parameters.posonly_params, *parameters.params, *parameters.kwonly_params)}
    for star in (parameters.star_arg, parameters.star_kwarg):
        if star is not None and type(star).__name__ == "Param":
            names.add(star.name.value)
    return names


def _product(left: list[Any], right: list[Any]) -> list[tuple[Any, Any]]:
    pairs = list(itertools.islice(itertools.product(left, right), MAX_ALTERNATIVES + 1))
    return pairs if len(pairs) <= MAX_ALTERNATIVES else [(UNKNOWN, UNKNOWN)]


def _plain(value: Any) -> Any:
    """What a known value formats as (a string's text, a number); None when unknown."""
    if isinstance(value, Built):
        return value.value
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return None


def _raw_of(part: Known | Hole) -> str:
    return part.mapped.raw if isinstance(part, Known) else part.raw


def _known(value: Built) -> tuple[MappedText, tuple[str, ...]] | None:
    """The text of a value without holes, and its run-time fields."""
    known = [p for p in value.parts if isinstance(p, Known)]
    if len(known) != len(value.parts):
        return None
    return joined([p.mapped for p in known]), tuple(f for p in known for f in p.fields)


def _template(value: Built) -> Known | None:
    """A value whose whole text is known, as one text to format."""
    found = _known(value)
    if found is None or found[1]:
        return None
    first = value.parts[0]
    return first if len(value.parts) == 1 and isinstance(first, Known) else Known(found[0])


def _stripped(value: Built, method: str) -> Any:
    found = _known(value)
    if found is None:
        return UNKNOWN  # a hole at an edge may be blank
    mapped, fields = found
    text = mapped.text
    start = len(text) - len(text.lstrip()) if method in ("strip", "lstrip") else 0
    end = len(text.rstrip()) if method in ("strip", "rstrip") else len(text)
    return Built((Known(mapped.slice(start, max(start, end)), fields),))


def _dedented(value: Built) -> Any:
    """`textwrap.dedent`: the common indentation of the lines cut off (a line of blanks keeps
    just its line break)."""
    found = _known(value)
    if found is None:
        return UNKNOWN
    mapped, fields = found
    lines = mapped.text.splitlines(keepends=True)
    blank = [not line.strip(" \t\r\n") for line in lines]
    indents = [line[: len(line) - len(line.lstrip(" \t"))] for line, empty in zip(lines, blank) if not empty]
    margin = len(os.path.commonprefix(indents)) if indents else 0
    pieces = []
    offset = 0
    for line, empty in zip(lines, blank):
        cut = len(line.rstrip("\r\n")) if empty else margin
        pieces.append(mapped.slice(offset + cut, offset + len(line)))
        offset += len(line)
    return Built((Known(joined(pieces) if pieces else mapped, fields),))


def _shown(path: Path, root: Path | None) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix() if root is not None else path.name
    except ValueError:
        return path.name


# ---------------------------------------------------------------------------------------------
# From a built value to the statements it holds


def literal_keys(value: Built) -> Counter[tuple[int, int]]:
    """How many times a value reads each literal (raw text, start of the literal): a literal
    read twice (`q + q`) cannot be edited for one of its readings."""
    return Counter(key for p in value.parts if isinstance(p, Known)
                   for key in {(id(p.mapped.raw), piece.start) for piece in p.mapped.pieces})


def with_refusals(value: Built, uses: dict[tuple[int, int], int]) -> Built:
    """The value with the literals that other strings built at run time read too refused
    to edits: an edit would change each of those strings."""
    parts: list[Known | Hole] = []
    for part in value.parts:
        if isinstance(part, Known) and any(uses.get((id(part.mapped.raw), p.start), 0) > 1 for p in part.mapped.pieces):
            pieces = tuple(
                replace(p, refusal=f"the string is part of {uses[(id(part.mapped.raw), p.start)]} strings "
                                   "built at run time: an edit would change each")
                if uses.get((id(part.mapped.raw), p.start), 0) > 1 else p
                for p in part.mapped.pieces)
            part = Known(replace(part.mapped, pieces=pieces), part.fields)
        parts.append(part)
    return Built(tuple(parts))


@dataclass(frozen=True)
class Statements:
    """Known text holding whole statements (with placeholders for the holes inside them)."""

    mapped: MappedText
    fields: tuple[str, ...]


def pieces(value: Built, raw: str, dialect: str) -> list[Statements | Hole]:
    """The value cut where a hole stands between statements: the text around, and each
    such hole on its own."""
    parts = value.parts
    out: list[Statements | Hole] = []
    run: list[Known | Hole] = []
    index = 0
    while index < len(parts):
        part = parts[index]
        if isinstance(part, Known):
            run.append(part)
            index += 1
            continue
        last = index  # holes with nothing but blanks between them stand together
        while last + 1 < len(parts) and (isinstance(parts[last + 1], Hole) or (
                _blank(parts[last + 1]) and last + 2 < len(parts) and isinstance(parts[last + 2], Hole))):
            last += 1
        if _ends_statement(_text(run), dialect) and _starts_statement(_text_until_hole(parts[last + 1:]), dialect):
            holes = [p for p in parts[index : last + 1] if isinstance(p, Hole)]
            # Where the cut is rests on the holes ending and starting statements: text
            # around them that does not parse may not be the user's error.
            around = tuple(h.source for h in holes)
            out.extend(_statements(run, raw, dialect, around))
            out.extend(holes)
            run = [Known(MappedText.verbatim(raw, 0, 0), around)]
            index = last + 1
        else:
            run.append(part)
            index += 1
    out.extend(_statements(run, raw, dialect))
    return out


def _blank(part: Known | Hole) -> bool:
    return isinstance(part, Known) and not part.mapped.text.strip()


def _text(run: list[Known | Hole]) -> str:
    """The text of a run, a hole in it read as one word (as its placeholder is)."""
    return "".join(p.mapped.text if isinstance(p, Known) else " hole " for p in run)


def _text_until_hole(parts: tuple) -> str:
    texts = []
    for part in parts:
        if isinstance(part, Hole):
            break
        texts.append(part.mapped.text)
    return "".join(texts)


def _tokens(text: str, dialect: str) -> list | None:
    from sqlglot.errors import TokenError

    from sortlint.plan.tokens import tokenize

    try:
        return tokenize(text, dialect)[0]
    except TokenError:
        return None


def _ends_statement(text: str, dialect: str) -> bool:
    """Whether a statement may start after the text: it is blank, or ends with `;`."""
    tokens = _tokens(text, dialect)
    return tokens is not None and (not tokens or tokens[-1].text == ";")


def _starts_statement(text: str, dialect: str) -> bool:
    """Whether the text (what follows a hole) cannot continue the hole's statement: it is
    blank, starts with `;`, or with a keyword only a statement starts with."""
    tokens = _tokens(text, dialect)
    if tokens is None:
        return False
    return not tokens or tokens[0].text == ";" or tokens[0].text.upper() in STATEMENT_STARTS


def _statements(run: list[Known | Hole], raw: str, dialect: str, around: tuple[str, ...] = ()) -> list[Statements]:
    if all(_blank(p) for p in run if isinstance(p, Known)) and not any(isinstance(p, Hole) for p in run):
        return []
    maps: list[MappedText] = []
    fields: list[str] = list(around)
    so_far = ""
    for index, part in enumerate(run):
        if isinstance(part, Known):
            if part.mapped.text:
                maps.append(part.mapped)
            fields.extend(part.fields)
            so_far += part.mapped.text
            continue
        following = run[index + 1] if index + 1 < len(run) else None
        after = following.mapped.text[:1] if isinstance(following, Known) else ""
        state = SqlScanner(so_far).state_at(len(so_far))
        text = placeholder("{" + part.source + "}", part.source, state, so_far[-1:], after, dialect)
        segment = Segment(0, len(text), part.start, part.end, OPAQUE, -1, f"the run-time value {part.source}")
        empty = MappedText.verbatim(raw, part.start, part.start)
        maps.append(replace(empty, text=text, segments=(segment,)))
        fields.append(part.source)
        so_far += text
    return [Statements(joined(maps), tuple(fields))]
