"""Render a node summary (JSON) and a cluster verdict (text, Markdown, JSON).

The facts are decided in `core/summary.py` and `core/cluster.py`; this module only prints them.
Text and Markdown show every string through the control-character policy (`visible`), since
node names, paths and quoted lines come from untrusted logs and summary files.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from npudiag_tui.core.formats.text import visible
from npudiag_tui.core.model import Diagnosis
from npudiag_tui.core.summary import default_node_name, dump, node_summary

if TYPE_CHECKING:  # pragma: no cover
    from npudiag_tui.core.workspace import Workspace


def render_summary(ws: "Workspace", diag: Diagnosis, node: str | None, roots: list[str]) -> str:
    """`--report summary`: one compact JSON object (compact so that the size cap is what is sent)."""
    return dump(node_summary(ws, diag, node or default_node_name(), roots)).decode("utf-8")
