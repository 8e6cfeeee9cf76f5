"""No import cycles between the product's modules, and no import of the tooling (issue 17): tasks import
services, never the other way round, and task modules are published by name (``config.celery.publish``).
Imports inside functions count too: a deferred import is still a cycle, only hidden."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("memhq", "ingestion", "retrieval", "config")
SKIPPED = ("migrations",)  # generated


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if any(part in SKIPPED for part in parts):
                continue
            found[".".join(parts).removesuffix(".__init__")] = path
    return found


def _graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    target = f"{node.module}.{alias.name}"
                    if target in modules or node.module in modules:
                        graph[name].add(target if target in modules else node.module)
            elif isinstance(node, ast.Import):
                graph[name].update(alias.name for alias in node.names if alias.name in modules)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_product_has_no_import_cycles() -> None:
    assert _cycles(_graph(_modules())) == []


def test_the_product_never_imports_the_tooling() -> None:
    """Benchmarks and evaluation live in ``tooling/`` (a Django app for their commands only)."""
    importers = [
        name
        for name, path in _modules().items()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom | ast.Import)
        and any(
            (alias.name if isinstance(node, ast.Import) else node.module or "").split(".")[0] == "tooling"
            for alias in node.names
        )
    ]
    assert importers == []


def test_the_check_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
