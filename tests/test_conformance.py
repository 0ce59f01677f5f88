"""Conformance over the public cases: anchor, category and no cascade picks (>= 84 % each)."""

from __future__ import annotations

import json
import math

from npudiag_tui import report
from npudiag_tui.core.workspace import Workspace

from conftest import case_dirs

CATEGORY = {"hccl": "communication", "device_exception": "device", "other": "unknown"}


def test_cases_conform(cases_dir):
    dirs = case_dirs()
    n = len(dirs)
    anchors = categories = cascade_picks = 0
    misses = []
    for d in dirs:
        truth = json.loads((d / "truth.json").read_text())
        ws = Workspace.open([str(d)])
        try:
            ws.index()
            out = report.to_dict(ws, ws.diagnose())
        finally:
            ws.close()
        a = out["anchor"] or {}
        text = a.get("text") or ""
        wanted = [truth["first_causal_error_substring"], *truth.get("alt_anchor_substrings", [])]
        ok_anchor = any(s in text for s in wanted)
        ok_cat = a.get("category") == CATEGORY.get(truth["category"], truth["category"])
        picked_cascade = any(s in text for s in truth.get("cascade_substrings", []))
        anchors += ok_anchor
        categories += ok_cat
        cascade_picks += picked_cascade
        if not (ok_anchor and ok_cat) or picked_cascade:
            misses.append(f"{d.name}: anchor={ok_anchor} category={a.get('category')} cascade={picked_cascade} "
                          f"text={text[:120]!r}")
    need = math.ceil(0.84 * n)
    print(f"\nconformance over {n} cases: anchors {anchors}/{n}, categories {categories}/{n}, "
          f"cascade picks {cascade_picks}")
    for m in misses:
        print("  miss:", m)
    assert anchors >= need, misses
    assert categories >= need, misses
    assert cascade_picks == 0, misses
