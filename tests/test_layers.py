"""The layout shows the data flow: files -> units -> plan -> properties -> findings -> fixes ->
reports. Every module belongs to one layer, and may import only from its own layer or below;
packages never import each other in a cycle; and front ends are independent of each other
(each may use only the shared `sources.python` and `sources.sql`).

The import graph is read from the code: every `sortlint` import of every module, at module
level, inside functions, under `TYPE_CHECKING`, and the "module:object" strings by which the
front-end registry names what it loads on first use.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sortlint"

# The one table of layers, bottom first.
LAYERS: dict[str, int] = {
    "sortlint": 0,  # the package itself: its version
    "sortlint.errors": 0,
    "sortlint.files": 0,
    "sortlint.stages": 0,
    "sortlint.collector": 0,
    "sortlint.diagnostics": 1,
    "sortlint.units": 2,
    "sortlint.config": 3,
    "sortlint.ordering": 4,
    "sortlint.plan": 5,
    "sortlint.engines": 6,
    "sortlint.sources": 7,
    "sortlint.linter": 8,
    "sortlint.rewriters": 9,
    "sortlint.workspace": 10,
    "sortlint.report": 11,
    "sortlint.integrations": 12,
    "sortlint.cli": 13,
    "sortlint.__main__": 13,
}
FRONT_ENDS = ("sql", "dbt", "airflow", "pyspark", "python")
SHARED_FRONT_ENDS = ("sortlint.sources.python", "sortlint.sources.sql")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str) -> Iterator[tuple[str, int]]:
    """(imported sortlint module, line) of every import in a module, wherever it stands."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                yield (candidate if candidate in MODULES else base), node.lineno
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if text.startswith("sortlint.") and ":" in text and " " not in text:
                yield text.split(":")[0], node.lineno


@cache
def graph() -> dict[str, set[tuple[str, int]]]:
    return {
        name: {(imported, line) for imported, line in imports(name) if imported.split(".")[0] == "sortlint"}
        for name in MODULES
    }


def layer_of(name: str) -> int:
    owner = max((key for key in LAYERS if name == key or name.startswith(key + ".")), key=len)
    return LAYERS[owner]


def component(name: str) -> str:
    """What cycles are counted between: a top-level package, or a part of `sources` (each
    front-end package, and each module of `sources` itself)."""
    parts = name.split(".")
    if parts[:2] == ["sortlint", "sources"] and len(parts) > 2:
        return ".".join(parts[:3])
    return ".".join(parts[:2])


def test_every_module_has_a_layer():
    assert [name for name in MODULES if not any(name == k or name.startswith(k + ".") for k in LAYERS)] == []


def test_no_module_imports_from_a_layer_above_its_own():
    upward = [
        f"{name}:{line} imports {imported} (layer {layer_of(imported)} > {layer_of(name)})"
        for name, edges in graph().items()
        for imported, line in sorted(edges)
        if layer_of(imported) > layer_of(name)
    ]
    assert upward == []


def test_front_ends_use_only_the_shared_front_ends():
    crossing = []
    for name, edges in graph().items():
        own = component(name)
        if own.rpartition(".")[2] not in FRONT_ENDS or not own.startswith("sortlint.sources."):
            continue
        for imported, line in sorted(edges):
            other = component(imported)
            if other == own or other.rpartition(".")[2] not in FRONT_ENDS:
                continue
            if other not in SHARED_FRONT_ENDS or own in SHARED_FRONT_ENDS:
                crossing.append(f"{name}:{line} imports {imported}")
    assert crossing == []


def test_no_cycle_between_packages():
    edges: dict[str, set[str]] = {}
    for name, imported in graph().items():
        for target, _ in imported:
            if component(target) != component(name):
                edges.setdefault(component(name), set()).add(component(target))
    cycles = []
    for start in sorted(edges):
        for path in _paths_back(start, edges):
            cycles.append(" -> ".join(path))
    assert cycles == []


def test_the_workspace_knows_the_front_ends_only_through_the_registry():
    """Whatever a front end needs done before files are read is its `prepare` hook: the
    workspace loops over the registry's front ends and names none of them."""
    named = [
        f"{name}:{line} imports {imported}"
        for name, edges in graph().items()
        if name.startswith("sortlint.workspace")
        for imported, line in sorted(edges)
        if imported.startswith("sortlint.sources") and imported != "sortlint.sources.registry"
    ]
    assert named == []


def test_only_the_language_server_imports_pygls():
    """pygls is the `lsp` extra: the server's modules import it, and only the `server`
    command imports them."""
    lsp = ("sortlint.integrations.lsp.protocol", "sortlint.integrations.lsp.server",
           "sortlint.integrations.lsp.transport")
    importing_pygls = sorted(
        name for name in MODULES
        if any(imported.split(".")[0] in ("pygls", "lsprotocol") for imported, _ in imports(name))
    )
    importing_the_server = sorted({
        name for name, edges in graph().items() for imported, _ in edges
        if imported in lsp and name not in lsp
    })
    assert importing_pygls == list(lsp)
    assert importing_the_server == ["sortlint.cli"]


def _paths_back(start: str, edges: dict[str, set[str]]) -> Iterator[list[str]]:
    """One path from `start` back to itself, if there is one."""
    stack = [(start, [start])]
    seen: set[str] = set()
    while stack:
        node, path = stack.pop()
        for target in sorted(edges.get(node, ())):
            if target == start:
                yield [*path, start]
                return
            if target not in seen:
                seen.add(target)
                stack.append((target, [*path, target]))


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("from sortlint.plan import nodes as n\n", "sortlint.plan.nodes"),
        ("def f():\n    from sortlint.linter.context import Context\n", "sortlint.linter.context"),
        ("if TYPE_CHECKING:\n    import sortlint.units\n", "sortlint.units"),
        ('BUILD = "sortlint.sources.sql.files:build"\n', "sortlint.sources.sql.files"),
    ],
)
def test_the_graph_sees_every_kind_of_import(tmp_path, monkeypatch, source, found):
    monkeypatch.setitem(MODULES, "sortlint.probe", tmp_path / "probe.py")
    (tmp_path / "probe.py").write_text(source)
    assert found in {imported for imported, _ in imports("sortlint.probe")}


def test_the_registry_names_every_front_end_it_loads():
    """The strings are real modules: the graph above is the one the program follows."""
    from sortlint.sources.registry import referenced_modules

    assert set(referenced_modules()) <= set(MODULES)
    assert {
        target for target, _ in graph()["sortlint.sources.registry"] if target.startswith("sortlint.sources.")
    } >= set(referenced_modules())
