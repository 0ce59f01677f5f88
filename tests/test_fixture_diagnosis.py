"""Every fixture's expected anchor and category are what `--report json` answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from npudiag_tui.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted(p.parent for p in (ROOT / "fixtures").glob("*/expected.json"))
SCENARIOS.append(ROOT / "src" / "npudiag_tui" / "demo")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_report_json_matches_expected(scenario: Path, capsys):
    expected = json.loads((scenario / "expected.json").read_text())
    assert main(["--report", "json", str(scenario)]) == 0
    report = json.loads(capsys.readouterr().out)
    anchor = report["anchor"]
    assert anchor is not None
    accepted = [expected["anchor"]] + expected.get("alt_anchors", [])
    assert any(anchor["path"] == a["path"] and anchor["line"] == a["line"] and a["contains"] in anchor["text"]
               for a in accepted), (anchor["path"], anchor["line"], anchor["text"][:120])
    assert anchor["category"] == expected["category"]
    for bad in expected.get("cascade_contains", []):
        assert bad not in anchor["text"]
    if expected.get("root_rank") is not None:
        roles = {r["rank"]: r["role"] for r in report["ranks"]}
        assert roles.get(expected["root_rank"]) == "root" or anchor["rank"] == expected["root_rank"]
