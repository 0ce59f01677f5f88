"""The shipped registry data is exactly what tools/build_registry.py builds.

The build reads a reference fact table that is not in the repository. The shipped data holds
every fact the build reads verbatim, so the build can read its facts back from it: that check
runs in any clone and catches guidance or rules edited without rebuilding the data. Where the
reference table is present (this project's machines), the build from it is checked too."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT.parent / "shared" / "reference"
DATA = ROOT / "src" / "npudiag_tui" / "core" / "registry" / "data"


def _tool():
    spec = importlib.util.spec_from_file_location("build_registry", ROOT / "tools" / "build_registry.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _shipped() -> dict[str, str]:
    return {name: (DATA / name).read_text(encoding="utf-8") for name in ("builtin_registry.json", "numeric_codes.json")}


def _quiet(*_args) -> None:
    pass


def test_shipped_data_is_what_the_tool_builds_from_the_shipped_facts():
    assert _tool().build(None, say=_quiet) == _shipped()


def test_edited_guidance_without_a_rebuild_is_caught(monkeypatch):
    tool = _tool()
    monkeypatch.setitem(tool.GUIDANCE, "EI0002", ("A peer failed first.", "Look at the other ranks."))
    built = tool.build(None, say=_quiet)
    assert built["builtin_registry.json"] != _shipped()["builtin_registry.json"]
    entry = json.loads(built["builtin_registry.json"])["codes"]["EI0002"]
    assert entry["possible_cause"] == "A peer failed first."


def test_check_mode_says_up_to_date(capsys):
    assert _tool().main(["--check"]) == 0


@pytest.mark.skipif(not (REFERENCE / "registry_facts.json").is_file(), reason="reference fact table not present")
def test_shipped_data_is_what_the_tool_builds_from_the_reference():
    assert _tool().build(REFERENCE, say=_quiet) == _shipped()


def test_the_build_tool_is_not_shipped():
    assert importlib.util.find_spec("npudiag_tui.core.registry.build") is None
