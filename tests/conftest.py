"""Shared helpers for the engine tests: the public cases in /work/shared/cases (never copied)."""

from __future__ import annotations

from pathlib import Path

import pytest

CASES = Path(__file__).resolve().parents[2] / "shared" / "cases"


def case_dirs() -> list[Path]:
    if not CASES.is_dir():
        return []
    return sorted(d for d in CASES.iterdir() if d.is_dir() and (d / "truth.json").is_file())


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
