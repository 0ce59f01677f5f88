"""Print the conformance figures of one corpus split (default: dev) or of ../shared/cases.

    .venv/bin/python bench/conformance.py [dev|holdout|shared] [-v]

The holdout split is for measuring, not for tuning: run it when reporting figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from conftest import case_dirs, corpus_dirs  # noqa: E402
from test_conformance import _measure  # noqa: E402


def main() -> None:
    which = sys.argv[1] if len(sys.argv) > 1 else "dev"
    dirs = case_dirs() if which == "shared" else corpus_dirs(which)
    _measure(which, dirs)


if __name__ == "__main__":
    main()
