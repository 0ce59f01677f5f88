"""The docs/ pages point at things that exist: links to files, and the source paths they name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
# `core/index.py`, `tools/keys_table.py`, `tests/test_levels.py`, `formats/plog.py`: a path the
# reader is sent to, relative to the package, the repository or core/
_PATH = re.compile(r"`((?:[\w.-]+/)+[\w.-]+\.(?:py|json|md|tcss))(?::[^`]*)?`")
_BASES = (ROOT, ROOT / "src" / "npudiag_tui", ROOT / "src" / "npudiag_tui" / "core")


def test_there_are_pages():
    names = {p.name for p in PAGES}
    assert {"architecture.md", "formats.md", "diagnosis.md", "contributing.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_links_resolve(page: Path):
    text = page.read_text(encoding="utf-8")
    broken = [t for t in _LINK.findall(text) if "://" not in t and not (page.parent / t).exists()]
    assert broken == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_named_source_paths_exist(page: Path):
    text = page.read_text(encoding="utf-8")
    named = set(_PATH.findall(text))
    missing = sorted(p for p in named if not any((base / p).exists() for base in _BASES)
                     and "<" not in p and not p.startswith(("debug/", "plog/", "device-")))
    assert missing == []
