"""The import graph of fashionrq's own modules, counting imports inside functions (issue 23, item 5): no import cycle;
every import points down the stack of :data:`LAYERS` (docs/architecture.md, "Layers"); outside ``cli/`` an import
inside a function only defers a heavy dependency, says which in a ``# deferred:`` comment, and there are no more of
them than recorded (the record only shrinks)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

#: The stack, bottom first: each entry is the top-level modules and packages of one layer (``fashionrq.<name>``; the
#: package itself, ``fashionrq``, is its version). A module imports only from lower layers, or within its own package.
LAYERS = (
    {"lazy"},
    {"fashionrq", "errors", "ieee"},
    {"io", "seeding", "exact", "colour", "terms", "progress", "timing", "limits"},
    {"layout", "cachedigest", "pinned"},
    {"taskspec", "release"},
    {"stagecache"},
    {"catalog", "metrics"},
    {"vocab"},
    {"sid", "hierarchy"},
    {"engine"},
    {"encoders"},
    {"images"},
    {"querygen"},
    {"relevance"},
    {"tasks"},
    {"protocol"},
    {"systems"},
    {"pipeline", "results"},
    {"report"},
    {"server", "api"},
    {"cli"},
    {"__main__"},
)
#: Imports of fashionrq's own modules inside functions, outside ``cli/`` (where they keep ``--help`` fast); each
#: defers a heavy dependency (numba, pandas, scikit-learn, openpyxl, the ``serve`` extra) and says so.
KNOWN_DEFERRED = 9
#: The comment a deferred own-module import carries, on its line or the line above: ``# deferred: torch (why)``.
DEFERRED_NOTE = "# deferred:"


def _modules() -> dict[str, Path]:
    out = {}
    for path in (SRC / "fashionrq").rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, bool]]:
    """``(imported module, inside a function)`` for each own-module import of ``name``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    deferred = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[:len(package.split(".")) - node.level + 1], *([base] if base else [])])
            # ``from package import module`` imports that module (its package is loaded with it, as for any import
            # of a submodule); ``from module import name`` imports the module
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        resolved = set()
        for target in (t for t in targets if t.startswith("fashionrq")):
            while target not in modules and "." in target:
                target = target.rpartition(".")[0]
            if target in modules and target != name:
                resolved.add(target)
        found += [(target, id(node) in deferred) for target in sorted(resolved)]
    return found


def _cycles(edges: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected sets of more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(component)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def _layer(module: str) -> int:
    """The index in :data:`LAYERS` of a module's top-level name."""
    top = module.split(".")[1] if "." in module else module
    return next(i for i, names in enumerate(LAYERS) if top in names)


def _same_package(a: str, b: str) -> bool:
    return a.split(".")[:2] == b.split(".")[:2]


def _upward(imports: dict[str, list[tuple[str, bool]]]) -> list[str]:
    """``importer -> imported`` for every import that does not point down the stack."""
    return [f"{name} -> {target}" for name, found in sorted(imports.items()) for target, _ in found
            if not _same_package(name, target) and _layer(target) >= _layer(name)]


def _uncommented(name: str, path: Path) -> list[str]:
    """``module:line`` of each own-module import inside a function without :data:`DEFERRED_NOTE`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    tree = ast.parse("\n".join(lines))
    out = []
    for function in (f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))):
        for node in (n for n in ast.walk(function) if isinstance(n, (ast.Import, ast.ImportFrom))):
            if isinstance(node, ast.Import):
                own = any(alias.name.startswith("fashionrq") for alias in node.names)
            else:
                own = bool(node.level) or (node.module or "").startswith("fashionrq")
            noted = any(DEFERRED_NOTE in line for line in lines[node.lineno - 2:node.end_lineno])
            if own and not noted:
                out.append(f"{name}:{node.lineno}")
    return sorted(set(out))


def test_no_import_cycle_and_every_import_points_down_the_stack():
    modules = _modules()
    assert all(any(m.split(".")[1:2] == [] or m.split(".")[1] in names for names in LAYERS) for m in modules), \
        f"a top-level module or package outside LAYERS: {sorted({m.split('.')[1] for m in modules if '.' in m} - set().union(*LAYERS))}"
    imports = {name: _imports(name, path, modules) for name, path in modules.items()}
    cycles = _cycles({name: {target for target, _ in found} for name, found in imports.items()})
    assert not cycles, f"import cycles: {[sorted(c) for c in cycles]}"
    upward = _upward(imports)
    assert not upward, f"imports that do not point down LAYERS (docs/architecture.md, 'Layers'): {upward}"


def test_deferred_imports_defer_a_heavy_dependency_and_say_which():
    modules = {n: p for n, p in _modules().items() if not n.startswith("fashionrq.cli")}
    uncommented = [where for name, path in modules.items() for where in _uncommented(name, path)]
    assert not uncommented, (f"own-module imports inside functions without a '{DEFERRED_NOTE} <dependency>' comment: "
                             f"{uncommented}; import at the top, or defer only a heavy dependency and say which")
    every = _modules()
    imports = {name: _imports(name, path, every) for name, path in modules.items()}
    deferred = sum(inside for found in imports.values() for _, inside in found)
    assert deferred <= KNOWN_DEFERRED, (f"{deferred} own-module imports inside functions outside cli/, over the record "
                                        f"{KNOWN_DEFERRED}: import at the top (or defer only a heavy optional dependency)")
    assert deferred == KNOWN_DEFERRED, f"deferred own-module imports fell to {deferred}: lower KNOWN_DEFERRED to match"


def test_the_check_finds_a_cycle_and_a_deferred_import(tmp_path):
    (tmp_path / "fashionrq" / "a").mkdir(parents=True)
    (tmp_path / "fashionrq" / "__init__.py").write_text("")
    (tmp_path / "fashionrq" / "a" / "__init__.py").write_text("from fashionrq.b import x\n")
    (tmp_path / "fashionrq" / "b.py").write_text("x = 1\ndef f():\n    from fashionrq.a import y\n")
    modules = {"fashionrq": tmp_path / "fashionrq" / "__init__.py", "fashionrq.a": tmp_path / "fashionrq" / "a" / "__init__.py",
               "fashionrq.b": tmp_path / "fashionrq" / "b.py"}
    imports = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert imports["fashionrq.b"] == [("fashionrq.a", True)] and imports["fashionrq.a"] == [("fashionrq.b", False)]
    assert _cycles({name: {t for t, _ in found} for name, found in imports.items()}) == [{"fashionrq.a", "fashionrq.b"}]


def test_the_check_finds_an_upward_import_and_an_uncommented_deferral(tmp_path):
    package = tmp_path / "fashionrq"
    (package / "report").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "errors.py").write_text("from fashionrq.report.page import render\n")
    (package / "report" / "__init__.py").write_text("")
    (package / "report" / "page.py").write_text(
        "def render():\n    from fashionrq.errors import E\n\n"
        "def heavy():\n    # deferred: torch (a test)\n    from fashionrq.errors import F\n")
    modules = {"fashionrq": package / "__init__.py", "fashionrq.errors": package / "errors.py",
               "fashionrq.report": package / "report" / "__init__.py", "fashionrq.report.page": package / "report" / "page.py"}
    imports = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert _upward(imports) == ["fashionrq.errors -> fashionrq.report.page"]  # errors sits below report
    assert _uncommented("fashionrq.report.page", modules["fashionrq.report.page"]) == ["fashionrq.report.page:2"]


def test_reading_a_release_imports_neither_torch_nor_scikit_learn():
    """Scoring, comparing, auditing, the stats and the report read a release through ``fashionrq.tasks`` and
    ``fashionrq.sid`` names; their packages load a name's module only when it is used, so none of these loads the SID
    trainer's torch and scikit-learn (about 1.3 s of every ``score`` or ``compare`` before), while building does; nor
    do the method names and the build's settings, so ``fashionrq build`` refuses a wrong option before it loads them.
    The intervals take Student's t from scipy.special, not scipy.stats (0.6 s more)."""
    heavy = "print(sorted(m for m in ('torch', 'sklearn', 'scipy.stats') if m in sys.modules))"
    script = ("import sys, fashionrq.protocol.scoring, fashionrq.protocol.compare, fashionrq.protocol.audit, "
              "fashionrq.report.html, fashionrq.api; from fashionrq.tasks import MIN_UNITS, bench_stats, read_qrels; "
              f"from fashionrq.sid import METHODS, read_sids; from fashionrq.tasks.buildconfig import BuildConfig; {heavy}; "
              f"from fashionrq.tasks import build_release; {heavy}")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[:2] == ["[]", "['scipy.stats', 'sklearn', 'torch']"]
