"""The rooms: each sub-package one purpose behind a face, Prefect in one room, imports at the top.

A room is a folder of modules. Rooms import one another one way; only `cairn.flows.prefect` imports
Prefect, and the loop, its steps, `cairn.tasks` and `cairn.memory` never reach it. Imports of Cairn
modules sit at the top of each file, except at the few boundaries named in `LATE`, each with why.
"""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
from collections import defaultdict
from importlib.util import find_spec
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "cairn"
PREFECT_ROOM = "cairn.flows.prefect"
KEEP_OUT_OF_PREFECT = ("cairn.flows.loop", "cairn.flows.steps", "cairn.tasks", "cairn.memory")
# (importing module or room, imported module or room) -> why that import waits for a call.
LATE = {
    ("cairn.flows.cli", PREFECT_ROOM): "the commands that run a task reach Prefect's room: it takes seconds",
    ("cairn.flows", PREFECT_ROOM): "the package face names `run_task` on first use",
    ("cairn.tasks.model.llm", "cairn.tasks.offline.litellm_provider"): "litellm: loaded by its client",
    ("cairn.memory.store.backends", "cairn.memory.store"): "a backend when asked for (weaviate-client)",
}
# Names of Prefect's internals: only `cairn/flows/prefect/internals.py` may use them.
INTERNALS = ("task_run_dynamic_keys", "result_store", "prefect.flow_engine", "prefect.results")
MOST_MODULES = 16
# Modules that name a Cairn module in a string, and why that name is data, not a hidden arrow.
NAMED_AS_DATA = {
    "cairn._legacy": "the table of 0.2 names and the modules they stand for",
    "cairn.flows.prefect.deployment": "the entrypoint stored on the server: a worker loads it by name",
    "cairn.memory.store.contract": "pytest rewrites the suite's asserts: it is registered by name",
}


def _code() -> dict[str, Path]:
    """Every module of Cairn's code (not the data folders), found without following links."""
    found: dict[str, Path] = {}
    for folder, _, names in os.walk(PACKAGE):
        for name in (n for n in names if n.endswith(".py")):
            parts = (Path(folder) / name).relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = Path(folder) / name
    return found


def _room(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _typing_only(tree: ast.Module) -> set[int]:
    return {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for node in ast.walk(block)
    }


def _imported(node: ast.Import | ast.ImportFrom, modules: dict[str, Path]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.module is None:
        return []
    subs = [f"{node.module}.{alias.name}" for alias in node.names if f"{node.module}.{alias.name}" in modules]
    return subs or [node.module]


def _imports(path: Path, modules: dict[str, Path]) -> list[tuple[str, bool]]:
    """(imported module, whether the import sits inside a function) for every runtime import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _typing_only(tree)
    late = {
        id(node)
        for fn in ast.walk(tree)
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(fn)
    }
    return [
        (target, id(node) in late)
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in skip
        for target in _imported(node, modules)
    ]


def test_code_lives_where_it_is_imported_from_with_no_links() -> None:
    for room in ("flows", "tasks", "memory"):
        assert (PACKAGE / room).is_dir() and not (PACKAGE / room).is_symlink(), room
    assert {"cairn.flows.prefect.flow", "cairn.flows.loop.iteration", "cairn.memory.store.protocol"} <= set(
        _code()
    )


def test_no_room_holds_more_than_sixteen_modules() -> None:
    sizes = defaultdict(int)
    for module, path in _code().items():
        if path.name != "__init__.py":
            sizes[_room(module, path)] += 1
    assert {room: n for room, n in sizes.items() if n > MOST_MODULES} == {}


def test_every_room_has_a_face_whose_names_resolve() -> None:
    for module, path in _code().items():
        if path.name != "__init__.py" or module == "cairn":
            continue
        package = importlib.import_module(module)
        assert package.__doc__, f"{module} says what the room is for"
        names = getattr(package, "__all__", None)
        assert names, f"{module} has a face (__all__)"
        missing = [n for n in names if not hasattr(package, n) and not find_spec(f"{module}.{n}")]
        assert missing == [], module


def _room_graph() -> dict[str, set[str]]:
    modules = _code()
    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in modules.items():
        if path.name in ("__init__.py", "__main__.py"):  # faces re-export; __main__ is the entry
            continue
        for target, _ in _imports(path, modules):
            if target in modules and (room := _room(target, modules[target])) != _room(module, path):
                graph[_room(module, path)].add(room)
    return graph


def test_rooms_import_one_another_one_way() -> None:
    graph = _room_graph()
    cycles = []

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for room in graph.get(start, ()):
            if room == goal or (room not in seen and (seen.add(room) or reaches(room, goal, seen))):
                return True
        return False

    for room in sorted(graph):
        for target in sorted(graph[room]):
            if reaches(target, room, set()):
                cycles.append(f"{room} -> {target}")
    assert cycles == []


def test_only_the_prefect_room_imports_prefect() -> None:
    modules = _code()
    wrong = [
        f"{module} imports {target}"
        for module, path in modules.items()
        for target, _ in _imports(path, modules)
        if target.split(".")[0] == "prefect" and not module.startswith(PREFECT_ROOM)
    ]
    assert wrong == []


def test_the_loop_its_steps_tasks_and_memory_never_reach_the_prefect_room() -> None:
    modules = _code()
    wrong = [
        f"{module} -> {target}"
        for module, path in modules.items()
        if module.startswith(KEEP_OUT_OF_PREFECT)
        for target, _ in _imports(path, modules)
        if target.startswith(PREFECT_ROOM)
    ]
    assert wrong == []


def _allowed_late(module: str, target: str) -> bool:
    return any(
        (module == who or module.startswith(who + ".")) and (target == what or target.startswith(what + "."))
        for who, what in LATE
    )


def test_cairn_imports_sit_at_the_top_but_at_the_named_boundaries() -> None:
    modules = _code()
    hidden = [
        f"{module} -> {target}"
        for module, path in modules.items()
        for target, late in _imports(path, modules)
        if late and target.startswith("cairn") and not _allowed_late(module, target)
    ]
    assert hidden == []


@pytest.mark.parametrize("name", INTERNALS)
def test_prefect_internals_are_named_in_one_module(name: str) -> None:
    users = [
        str(path.relative_to(ROOT))
        for path in _code().values()
        if name in path.read_text(encoding="utf-8") and path.name != "internals.py"
    ]
    assert users == []
    assert name in (PACKAGE / "flows" / "prefect" / "internals.py").read_text(encoding="utf-8")


def test_outside_its_room_prefect_is_imported_only_inside_a_call() -> None:
    """The CLI sets Prefect up (`cairn.flows.runtime.prepare`: the server, result storage) before
    Prefect is imported: Prefect imported earlier starts a server of its own."""
    modules = _code()
    early = [
        f"{module} -> {target}"
        for module, path in modules.items()
        if not module.startswith(PREFECT_ROOM)
        for target, late in _imports(path, modules)
        if target.startswith(PREFECT_ROOM) and not late
    ]
    assert early == []


def test_the_command_line_and_the_loop_load_without_prefect() -> None:
    code = (
        "import sys, cairn.flows.cli, cairn.flows.loop, cairn.flows.steps, cairn.flows.loop.claim\n"
        "print(sorted(m for m in ('prefect', 'litellm', 'mcp') if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[]"


def _strings(tree: ast.Module) -> list[str]:
    """Every string constant of the module but its docstrings."""
    docs = {
        id(block.body[0].value)
        for block in ast.walk(tree)
        if isinstance(block, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and block.body
        and isinstance(block.body[0], ast.Expr)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
    ]


def test_no_module_reaches_another_by_a_string_the_import_graph_cannot_see() -> None:
    """`python -m cairn.flows.prefect.liveness` spelt as a string was an arrow from the loop into
    Prefect's room that no test saw; a module started as a program is named by reference
    (`cairn.flows.prefect.liveness.watch`). Faces name their lazy members; the rest is data."""
    modules = _code()
    hidden = [
        f"{module}: {text!r}"
        for module, path in modules.items()
        if path.name != "__init__.py" and module not in NAMED_AS_DATA
        for text in _strings(ast.parse(path.read_text(encoding="utf-8")))
        if text.partition(":")[0] in modules and "." in text
    ]
    assert hidden == []


def test_the_watchdog_is_started_from_prefects_room_by_an_import() -> None:
    modules = _code()
    imported = {target for target, _ in _imports(modules["cairn.flows.prefect.flow"], modules)}
    assert "cairn.flows.prefect.liveness" in imported
    claim = {target for target, _ in _imports(modules["cairn.flows.loop.claim"], modules)}
    assert not any(target.startswith(PREFECT_ROOM) for target in claim)
