"""Conformance on real logs: the anchor, the category and no cascade pick, per set of cases.

Three sets: the project's own corpus (`tests/corpus`, always present) split into the cases the
rules may be checked against (`dev`) and the ones only measured (`holdout`), and the public cases
beside the project (`../shared/cases`, when present). Each set must reach 90 % anchors and 90 %
categories with no cascade line chosen; the figures and every miss are printed, so a CI log
shows where the engine stands.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from npudiag_tui import report
from npudiag_tui.core.workspace import Workspace

from conftest import CORPUS, case_dirs, corpus_dirs

CATEGORY = {"hccl": "communication", "device_exception": "device", "other": "unknown"}
REQUIRED = 0.90


def _label(name: str) -> str:
    return CATEGORY.get(name, name)


def judge(case: Path) -> dict:
    """Run the engine on one case the way the CLI does and compare with its label."""
    truth = json.loads((case / "truth.json").read_text(encoding="utf-8"))
    logs = [str(p) for p in sorted(case.iterdir()) if p.is_file() and p.name not in ("truth.json", "source.md")]
    ws = Workspace.open(logs)
    try:
        ws.index()
        out = report.to_dict(ws, ws.diagnose())
    finally:
        ws.close()
    a = out["anchor"] or {}
    # a line that holds a whole escaped console block names the anchored fragment of it
    text = a.get("fragment") or a.get("text") or ""
    wanted = [truth["first_causal_error_substring"], *truth.get("alt_anchor_substrings", [])]
    cats = {_label(truth["category"]), *(_label(c) for c in truth.get("alt_categories", []))}
    anchored = any(s in text for s in wanted)
    return {
        "case": case.name,
        "anchor": anchored,
        # a label may name equally right categories for a judgement call (alt_categories)
        "category": a.get("category") in cats,
        "category_exact": a.get("category") == _label(truth["category"]),
        # a line that holds the anchor is no cascade pick, though a one-line paste (records run
        # together, an issue title) holds the wrappers of the anchor on the same line
        "cascade": not anchored and any(s in text for s in truth.get("cascade_substrings", [])),
        "got": f"{a.get('category')} {text[:140]!r}",
    }


def _measure(name: str, dirs: list[Path]) -> tuple[int, int, int, list[str]]:
    results = [judge(d) for d in dirs]
    n = len(results)
    anchors = sum(r["anchor"] for r in results)
    cats = sum(r["category"] for r in results)
    exact = sum(r["category_exact"] for r in results)
    picks = sum(r["cascade"] for r in results)
    misses = [f"{r['case']}: anchor={r['anchor']} category={r['category']} cascade={r['cascade']} got {r['got']}"
              for r in results if not (r["anchor"] and r["category"]) or r["cascade"]]
    print(f"\n{name}: {n} cases, anchors {anchors}/{n}, categories {cats}/{n} ({exact} the primary label), "
          f"cascade picks {picks}")
    for m in misses:
        print("  miss:", m)
    return anchors, cats, picks, misses


def _check(name: str, dirs: list[Path]) -> None:
    anchors, cats, picks, misses = _measure(name, dirs)
    need = math.ceil(REQUIRED * len(dirs))
    assert anchors >= need, f"{name}: anchors {anchors}/{len(dirs)} < {need}"
    assert cats >= need, f"{name}: categories {cats}/{len(dirs)} < {need}"
    assert picks == 0, f"{name}: {picks} cascade picks"


def test_corpus_is_present_and_labelled():
    """The accuracy test must run in a plain clone: the corpus ships with the repository."""
    dev, holdout = corpus_dirs("dev"), corpus_dirs("holdout")
    assert len(dev) + len(holdout) >= 60, f"corpus at {CORPUS} has {len(dev) + len(holdout)} cases"
    assert holdout, "no holdout cases"


def test_corpus_dev_conforms():
    _check("corpus (dev)", corpus_dirs("dev"))


def test_corpus_holdout_conforms():
    """The holdout is only measured. It must not fall below its recorded measurement, and the
    print says how far it is from the 90 % requirement."""
    dirs = corpus_dirs("holdout")
    anchors, cats, picks, _ = _measure("corpus (holdout)", dirs)
    need = math.ceil(REQUIRED * len(dirs))
    print(f"holdout requirement ({need}/{len(dirs)} anchors and categories, 0 cascade picks): "
          f"{'met' if anchors >= need and cats >= need and picks == 0 else 'NOT met'}")
    floor = json.loads((CORPUS / "holdout_measured.json").read_text(encoding="utf-8"))
    assert len(dirs) >= floor["cases"], "holdout cases went missing"
    assert anchors >= floor["anchors"], f"holdout anchors {anchors} < measured {floor['anchors']}"
    assert cats >= floor["categories"], f"holdout categories {cats} < measured {floor['categories']}"
    assert picks <= floor["cascade_picks"], f"holdout cascade picks {picks} > measured {floor['cascade_picks']}"


def test_shared_cases_conform():
    dirs = case_dirs()
    if not dirs:
        pytest.skip("../shared/cases is not beside this checkout")
    _check("shared cases", dirs)
