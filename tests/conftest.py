"""Shared helpers for the engine tests: the public cases in /work/shared/cases (never copied)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

# Ray reads this once, at import: its single-machine mode keeps every node address on loopback
# (tests/test_ray_cluster.py), whichever test imports Ray first.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

CASES = Path(__file__).resolve().parents[2] / "shared" / "cases"
CORPUS = Path(__file__).resolve().parent / "corpus"


@pytest.fixture(autouse=True)
def no_installed_cann(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see the built-in registry and their own paths only, also on a machine with CANN
    installed: no ASCEND_* variable (log paths, registry homes) and no /usr/local/Ascend."""
    import os

    for name in list(os.environ):
        if name.startswith("ASCEND_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("NPUDIAG_CANN_ROOTS", "")


def case_dirs() -> list[Path]:
    if not CASES.is_dir():
        return []
    return sorted(d for d in CASES.iterdir() if d.is_dir() and (d / "truth.json").is_file())


def corpus_dirs(split: str) -> list[Path]:
    """The project's own real cases of one split (`dev` or `holdout`), from truth.json."""
    out = []
    for d in sorted(CORPUS.iterdir()):
        truth = d / "truth.json"
        if d.is_dir() and truth.is_file() and json.loads(truth.read_text(encoding="utf-8")).get("split", "dev") == split:
            out.append(d)
    return out


@pytest.fixture
def cases_dir() -> Path:
    if not case_dirs():
        pytest.skip(f"public cases not present at {CASES}")
    return CASES


def case_line(needle: str, suffix: str | None = None) -> str:
    """The first line of a case log containing `needle` (case folder ending in `suffix`), or skip."""
    for d in case_dirs():
        if suffix and not d.name.endswith(suffix):
            continue
        for f in sorted(d.glob("*.log")):
            for line in f.read_text(encoding="utf-8", errors="replace").splitlines():
                if needle in line:
                    return line
    pytest.skip(f"no case line containing {needle!r}")
    raise AssertionError  # unreachable
