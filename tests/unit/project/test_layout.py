"""The package's shape: one `cairn` namespace, layers that point one way, no cycles, no test hooks;
names: one file name per module, no aliased imports, no citations of documents outside the repository."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "cairn"


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder, _, names in os.walk(PACKAGE, followlinks=True):
        for name in names:
            if name.endswith(".py"):
                path = Path(folder) / name
                parts = path.relative_to(ROOT).with_suffix("").parts
                module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
                found[module] = path
    return found


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """Every cairn module `path` imports, at any depth, outside `if TYPE_CHECKING:` blocks."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for node in ast.walk(block)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("cairn"):
            subs = {f"{node.module}.{a.name}" for a in node.names} & modules.keys()
            found |= subs or ({node.module} & modules.keys())
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names} & modules.keys()
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path, modules) for name, path in modules.items()}


def test_every_module_lives_under_cairn() -> None:
    modules = _modules()
    assert {
        "cairn.flows.prefect.flow",
        "cairn.tasks.model.llm",
        "cairn.memory.store.protocol",
    } <= modules.keys()
    assert all(name == "cairn" or name.startswith("cairn.") for name in modules)


# Lowest first: a module imports its own layer's modules and those of the layers below it.
LAYERS = ("cairn.core", "cairn.memory", "cairn.tasks", "cairn.flows")


def _layer(module: str) -> int | None:
    return next((n for n, layer in enumerate(LAYERS) if (module + ".").startswith(layer + ".")), None)


def test_layers_point_one_way() -> None:
    wrong = [
        f"{module} -> {target}"
        for module, targets in _graph().items()
        for target in targets
        if (low := _layer(module)) is not None and (high := _layer(target)) is not None and high > low
    ]
    assert wrong == []


def test_core_is_the_floor_and_imports_no_room() -> None:
    """`cairn.core` is the vocabulary every room speaks: it may import only itself (and no
    module outside the rooms, such as `cairn._legacy`)."""
    graph = _graph()
    core = [name for name in graph if _layer(name) == 0]
    assert "cairn.core.events" in core and "cairn.core.run_config" in core
    assert [f"{m} -> {t}" for m in core for t in graph[m] if _layer(t) != 0] == []


def test_no_import_cycles() -> None:
    graph = _graph()
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str], done: set[str]) -> None:
        if module in path:
            cycles.append([*path[path.index(module) :], module])
            return
        if module in done:
            return
        for target in sorted(graph[module]):
            visit(target, [*path, module], done)
        done.add(module)

    done: set[str] = set()
    for module in sorted(graph):
        visit(module, [], done)
    assert cycles == []


def test_only_the_cli_imports_typer_and_no_module_reads_test_switches() -> None:
    for module, path in _modules().items():
        text = path.read_text(encoding="utf-8")
        if module != "cairn.flows.cli.app":
            assert "import typer" not in text, module
        assert "CAIRN_TEST" not in text, module


CONTRACT = {
    "cairn.memory.store.contract",
    "cairn.memory.store._contract_suite",
    "cairn.memory.store._contract_cases",
}


def test_only_the_contract_suite_imports_pytest_and_nothing_in_cairn_imports_the_suite() -> None:
    """pytest is a test-time dependency: the importable contract suite may use it, nothing else may."""
    modules = _modules()
    for module, path in modules.items():
        if module in CONTRACT:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert not {name for name in imported if name.split(".")[0] in ("pytest", "_pytest")}, module
        assert not _imports(path, modules) & CONTRACT, module


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, timeout=240)


def test_a_users_tasks_memory_and_flows_do_not_shadow_cairn(tmp_path: Path) -> None:
    (tmp_path / "tasks.py").write_text("import invoke  # an Invoke tasks file\n", encoding="utf-8")
    (tmp_path / "memory.py").write_text("MINE = True\n", encoding="utf-8")
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "__init__.py").write_text("MINE = True\n", encoding="utf-8")
    code = (
        "import cairn.flows.loop.cycle, cairn.tasks.model.llm, cairn.memory.store.protocol\n"
        "import memory, flows\n"
        "print(memory.MINE, flows.MINE)\n"
    )
    proc = _python(code, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["True", "True"]


def test_no_module_file_name_repeats_across_folders() -> None:
    """`directory.py` in two rooms read as one module in prose, tracebacks and imports."""
    names: dict[str, list[str]] = {}
    for path in _modules().values():
        if path.name != "__init__.py" and "examples" not in path.relative_to(PACKAGE).parts:
            names.setdefault(path.name, []).append(path.relative_to(ROOT).as_posix())
    assert {name: paths for name, paths in names.items() if len(paths) > 1} == {}


def test_no_test_file_name_repeats_across_test_folders() -> None:
    """`test_tools.py` in `unit/` and in `e2e/` are two files a failure, a doc or a grep cannot
    tell apart: each test module (and helper) has a name of its own under tests/."""
    names: dict[str, list[str]] = {}
    for path in (ROOT / "tests").rglob("*.py"):
        if path.name not in ("__init__.py", "conftest.py"):
            names.setdefault(path.name, []).append(path.relative_to(ROOT).as_posix())
    assert {name: paths for name, paths in names.items() if len(paths) > 1} == {}


UNIT = ROOT / "tests" / "unit"
# The folder of tests/unit for what spans rooms: the package's shape, properties over several
# rooms' parsers, the secret sinks, the lock, what earlier releases wrote.
CROSS_ROOM = "project"


def test_unit_test_folders_mirror_the_rooms() -> None:
    """tests/unit/memory/ tests `cairn/memory`, tests/unit/bench/ tests `bench/`: a folder of
    tests/unit names a room (`cairn/<path>` or `bench`), or is the one folder of cross-room tests."""
    folders = sorted({path.parent.relative_to(UNIT) for path in UNIT.rglob("*.py") if path.parent != UNIT})
    assert [f.as_posix() for f in folders if not (UNIT / f / "__init__.py").is_file()] == []
    rooms = {"core", "memory", "tasks", "flows", "bench", CROSS_ROOM}
    assert {folder.parts[0] for folder in folders} >= rooms
    strays = [
        folder.as_posix()
        for folder in folders
        if folder.as_posix() not in (CROSS_ROOM, "bench") and not (PACKAGE / folder / "__init__.py").is_file()
    ]
    assert strays == []
    loose = [path.name for path in UNIT.glob("test_*.py")]
    assert loose == [], "each unit test sits in the folder of the room it tests"


def _aliased_imports(path: Path) -> list[str]:
    """`import cairn.x as y` and `from cairn.x import name as other`: a second name for one thing."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [
                f"import {a.name} as {a.asname}"
                for a in node.names
                if a.asname and (a.name == "cairn" or a.name.startswith("cairn."))
            ]
        elif isinstance(node, ast.ImportFrom) and node.module and (node.module + ".").startswith("cairn."):
            found += [
                f"from {node.module} import {a.name} as {a.asname}"
                for a in node.names
                if a.asname and a.asname != a.name
            ]
    return [f"{path.relative_to(ROOT).as_posix()}: {line}" for line in found]


def test_no_aliased_imports_of_cairn_modules_or_names() -> None:
    """A module or name of Cairn's is called by its own name everywhere (`figures.dates`, not
    `fig.dates`), so a search for it finds every use: in the package, its tests and benchmarks."""
    paths = [*_modules().values(), *(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]
    aliased = [line for path in paths for line in _aliased_imports(path)]
    assert aliased == []


def test_no_references_to_documents_outside_the_repository() -> None:
    """A docstring or comment cites what is here (docs/design.md and its sections), not the
    architecture notes or seed documents Cairn was first written from: a reader cannot open those."""
    found = []
    for path in _modules().values():
        with path.open("rb") as source:
            for token in tokenize.tokenize(source.readline):
                if token.type in (tokenize.STRING, tokenize.COMMENT) and (
                    "ARCHITECTURE §" in token.string or "seed:" in token.string
                ):
                    found.append(f"{path.relative_to(ROOT).as_posix()}:{token.start[0]}")
    assert found == []
