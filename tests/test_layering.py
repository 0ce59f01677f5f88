"""The engine (npudiag_tui.core and every submodule) never imports the UI libraries."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = r"""
import importlib, json, pkgutil, sys
import npudiag_tui.core as core
names = [core.__name__]
for info in pkgutil.walk_packages(core.__path__, core.__name__ + "."):
    importlib.import_module(info.name)
    names.append(info.name)
print(json.dumps({"modules": names,
                  "ui": sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich"))}))
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
