"""The shape of the code: bpe_core's modules import each other without cycles and import no UI
library; modules and functions stay short unless a comment says why they are long."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "bpe_core"
UI_LIBRARIES = {"streamlit", "plotly", "pandas"}
#: "About 400 lines" and "about 60 lines", with a little room.
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 80
#: A comment with this text, on the line before a long function or inside its first lines (or
#: anywhere in a long module's first 30 lines), says why it is long.
LONG_ON_PURPOSE = "long on purpose"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported_names(path: Path) -> set[str]:
    """Absolute names of every module ``path`` imports, at any depth (lazy imports count too)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            found.add(prefix)
            found.update(f"{prefix}.{alias.name}" for alias in node.names)
    return found


def import_graph() -> dict[str, set[str]]:
    """bpe_core module -> the bpe_core modules it imports. Importing ``a.b.c`` also runs the package
    ``a.b``, unless that package is the importer's own (the top-level ``bpe_core/__init__``, which
    only re-exports, is left out)."""
    modules = package_modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        own_packages = {name.rsplit(".", depth)[0] for depth in range(1, name.count(".") + 1)}
        for imported in imported_names(path):
            # Stop at the importing module's own packages: they are being imported already.
            while imported and imported not in own_packages and imported != "bpe_core":
                if imported in modules:
                    targets.add(imported)
                imported = imported.rpartition(".")[0]
        targets.discard(name)
        graph[name] = targets
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return path[path.index(target) :] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_cycle_finder_finds_cycles():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_the_import_graph_sees_relative_lazy_and_package_imports(tmp_path):
    graph = import_graph()
    assert "bpe_core.tokenizer" in graph["bpe_core.training.trainer"]
    assert "bpe_core.formats" in graph["bpe_core.pretrained.package_files"]  # via bpe_core.formats.gpt2_files
    assert "bpe_core.tokenizer" in graph["bpe_core.formats.detect"]  # `from ..tokenizer import`


def test_bpe_core_modules_import_each_other_without_cycles():
    assert find_cycle(import_graph()) is None


#: Modules with a feature that is "a DataFrame when pandas is installed": they may import pandas inside
#: a function (on request), never at the top of the module.
PANDAS_ON_REQUEST = {"bpe_core.display.comparison"}


def _imported_at_import_time(path: Path) -> set[str]:
    """Root names of the modules ``path`` imports outside any function body."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name.split(".")[0] for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and not child.level and child.module:
                found.add(child.module.split(".")[0])
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def test_bpe_core_imports_no_ui_library():
    for name, path in package_modules().items():
        roots = {imported.split(".")[0] for imported in imported_names(path)}
        if name in PANDAS_ON_REQUEST:
            assert "pandas" not in _imported_at_import_time(path), f"{name} imports pandas when it is imported"
            roots.discard("pandas")
        assert not roots & UI_LIBRARIES, f"{name} imports {sorted(roots & UI_LIBRARIES)}"


def test_the_import_time_check_sees_top_level_imports_only(tmp_path):
    module = tmp_path / "module.py"
    module.write_text("import os\nif True:\n    import json\ndef f():\n    import pandas\n", encoding="utf-8")
    assert _imported_at_import_time(module) == {"os", "json"}


def project_sources() -> list[Path]:
    folders = [PACKAGE, ROOT / "pages", ROOT / "bench"]
    return [ROOT / "app.py"] + [path for folder in folders for path in sorted(folder.rglob("*.py"))]


def _long_functions(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            length = node.end_lineno - first + 1
            said = "\n".join(lines[max(0, first - 4) : node.lineno + 12])
            if length > MAX_FUNCTION_LINES and LONG_ON_PURPOSE not in said:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length} lines)")
    return found


@pytest.mark.parametrize("path", project_sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_and_functions_are_short_or_say_why(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    if len(lines) > MAX_MODULE_LINES:
        assert any(LONG_ON_PURPOSE in line for line in lines[:30]), (
            f"{path.relative_to(ROOT)} has {len(lines)} lines; split it or say why near its top ({LONG_ON_PURPOSE!r})"
        )
    assert _long_functions(path) == []


#: bpe_core's layers, lowest first: a module imports only from its own layer's package or lower ones.
#: A name stands for a module or a subpackage (``bpe_core.formats.bpe_json`` sits below the
#: ``Tokenizer`` that saves it; the other formats sit above it; ``bpe_core.display.marks``, the plain-text
#: convention ``vocab_dump`` writes, sits below ``bpe``, and ``display.comparison``, which loads and
#: measures tokenizers, above ``analysis``).
LAYERS = [
    ["bpe_core.errors", "bpe_core.progress", "bpe_core.parallel", "bpe_core.safe_io", "bpe_core.file_lock"],
    ["bpe_core.display.marks"],
    ["bpe_core.bpe"],
    ["bpe_core.display"],
    ["bpe_core.pretokenization"],
    ["bpe_core.encoding"],
    ["bpe_core.formats.bpe_json"],
    ["bpe_core.tokenizer"],
    ["bpe_core.formats"],
    ["bpe_core.corpora"],
    ["bpe_core.training"],
    ["bpe_core.pretrained"],
    ["bpe_core.analysis"],
    ["bpe_core.display.comparison"],
    ["bpe_core.workspace"],
    ["bpe_core.cli"],
    ["bpe_core", "bpe_core.__main__"],
]


def layer_of(module: str) -> int:
    """The index in ``LAYERS`` of the longest name that is ``module`` or one of its packages."""
    best, best_length = None, -1
    for index, names in enumerate(LAYERS):
        for name in names:
            inside = module == name or (name != "bpe_core" and module.startswith(name + "."))
            if inside and len(name) > best_length:
                best, best_length = index, len(name)
    if best is None:
        raise AssertionError(f"{module} is in no layer of LAYERS: add it where it belongs")
    return best


def test_every_module_has_a_layer():
    for module in package_modules():
        layer_of(module)


def test_each_module_imports_only_its_own_layer_or_lower_ones():
    packages = {name for name, path in package_modules().items() if path.name == "__init__.py"}
    for module, targets in import_graph().items():
        for target in targets - packages:  # a subpackage's __init__ imports nothing (tested below)
            assert layer_of(target) <= layer_of(module), f"{module} imports {target}, a higher layer"


def test_subpackage_inits_import_nothing():
    """A subpackage's ``__init__`` is its docstring: importing one module runs no other."""
    for path in sorted(PACKAGE.glob("*/__init__.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), f"{path.relative_to(ROOT)} has no docstring"
        imports = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
        future = [node for node in imports if isinstance(node, ast.ImportFrom) and node.module == "__future__"]
        assert len(imports) == len(future), f"{path.relative_to(ROOT)} imports modules"


def test_few_modules_sit_directly_under_bpe_core():
    direct = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(direct) <= 8, direct
