"""The import graph of fashionrq's own modules, counting imports inside functions (issue 23, item 5): no import
cycle beyond the ones recorded here, and no more deferred own-module imports outside ``cli/`` than recorded. Both
records only shrink: a restructuring that removes a cycle or a deferred import lowers them here."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

#: The modules that sit on an import cycle today, each cycle as one strongly connected set. A new cycle, or a module
#: joining one, fails the test; removing one asks for this record to shrink.
KNOWN_CYCLES = (
    {"fashionrq.cli", "fashionrq.cli.commands"},
)
#: Imports of fashionrq's own modules inside functions, outside ``cli/`` (where they keep ``--help`` fast).
KNOWN_DEFERRED = 20


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
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
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


def test_no_new_import_cycle_and_no_new_deferred_import():
    modules = _modules()
    imports = {name: _imports(name, path, modules) for name, path in modules.items()}
    cycles = _cycles({name: {target for target, _ in found} for name, found in imports.items()})
    for cycle in cycles:
        assert any(cycle <= known for known in KNOWN_CYCLES), f"a new import cycle: {sorted(cycle)}"
    assert all(any(known == cycle for cycle in cycles) for known in KNOWN_CYCLES), \
        "a recorded cycle is gone or smaller: shrink KNOWN_CYCLES to what remains"
    deferred = sum(inside for name, found in imports.items() if not name.startswith("fashionrq.cli")
                   for _, inside in found)
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
