"""The docs/ pages point at things that exist: links to files, and the source paths they name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
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
    broken = [t for t in _links(text) if "://" not in t and not (page.parent / t).exists()]
    assert broken == []


def _links(text: str) -> list[str]:
    """Link and image targets as a Markdown renderer sees them: `status[12](IBV_...)` in a code
    block (the README's sample report quotes log lines) is not a link."""
    from markdown_it import MarkdownIt

    found = []
    for tok in MarkdownIt("commonmark").enable("table").parse(text):
        for child in [tok, *(tok.children or [])]:
            target = child.attrGet("href") if child.type == "link_open" else \
                child.attrGet("src") if child.type == "image" else None
            if isinstance(target, str):
                found.append(target.split("#")[0])
    return [t for t in found if t]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_named_source_paths_exist(page: Path):
    text = page.read_text(encoding="utf-8")
    named = set(_PATH.findall(text))
    missing = sorted(p for p in named if not any((base / p).exists() for base in _BASES)
                     and "<" not in p and not p.startswith(("debug/", "plog/", "device-")))
    assert missing == []


def test_code_refers_to_docs_in_the_repository():
    # the design notes outside the repository are not there for anyone who clones it
    outside = re.compile(r"\b(?:DOMAIN|DESIGN|TEXTUAL)\.md\b|\bDOMAIN \d")
    found = []
    for top in ("src", "tests", "bench", "tools"):
        for path in (ROOT / top).rglob("*"):
            if path.suffix in (".py", ".md", ".sh") and "corpus" not in path.parts:
                for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                    if outside.search(line):
                        found.append(f"{path.relative_to(ROOT)}:{n}")
    assert found == []
