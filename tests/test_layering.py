"""The import graph flows one way: the engine (npudiag_tui.core and every submodule) never
imports the UI libraries nor a higher layer of this package (tui, report, cli), not even lazily
inside a function; and the diagnosis engine reads its inputs, not the whole Workspace."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = r"""
import importlib, json, pkgutil, sys
import npudiag_tui.core as core
names = [core.__name__]
for info in pkgutil.walk_packages(core.__path__, core.__name__ + "."):
    importlib.import_module(info.name)
    names.append(info.name)
print(json.dumps({"modules": names,
                  "ui": sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich")),
                  "higher": sorted(m for m in sys.modules if m.startswith(("npudiag_tui.tui", "npudiag_tui.report",
                                                                           "npudiag_tui.cli")))}))
"""


def test_core_imports_no_ui():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    # the walk really covered the engine
    for name in ("npudiag_tui.core.index", "npudiag_tui.core.discover", "npudiag_tui.core.formats.plog",
                 "npudiag_tui.core.workspace", "npudiag_tui.core.scan"):
        assert name in got["modules"]
    assert any(m.startswith("npudiag_tui.core.diagnosis.") for m in got["modules"])
    assert got["ui"] == []
    assert got["higher"] == []


CORE = Path(__file__).resolve().parents[1] / "src" / "npudiag_tui" / "core"
HIGHER = ("npudiag_tui.tui", "npudiag_tui.report", "npudiag_tui.cli", "textual", "rich")


def _runtime_imports(path: Path) -> list[str]:
    """Every module a file imports at run time, at any depth (imports under `if TYPE_CHECKING:`
    are for the type checker only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[str] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def test_no_core_module_imports_a_higher_layer_even_lazily():
    files = sorted(CORE.rglob("*.py"))
    assert len(files) > 20  # the walk really covered the engine
    bad = [(str(f.relative_to(CORE)), m) for f in files for m in _runtime_imports(f)
           if any(m == h or m.startswith(h + ".") for h in HIGHER)]
    assert bad == []
    # the check itself sees a lazy import inside a function
    assert "textual.app" in _runtime_imports(CORE.parent / "tui" / "app.py")


def test_the_diagnosis_engine_reads_its_inputs_not_the_workspace():
    engine = CORE / "diagnosis" / "engine.py"
    assert not [m for m in _runtime_imports(engine) if m == "npudiag_tui.core.workspace"]
    assert "Workspace" not in engine.read_text(encoding="utf-8")
