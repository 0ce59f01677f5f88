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


def render_cluster_json(verdict: dict) -> str:
    return json.dumps(verdict, ensure_ascii=False, indent=2)


def _where(a: dict | None) -> str:
    if not a:
        return "-"
    return f"{a.get('path')}:{a.get('line')}"


def _headline(v: dict) -> list[str]:
    """The verdict in a few plain lines, shared by text and Markdown."""
    root = v["root"]
    counts = v["roles"]
    lines = []
    if root is None:
        lines.append("No root found: no node summary holds an error, a timeout or a silent rank.")
    else:
        node = root["node"] or "unknown node (no summary holds it)"
        lines.append(f"Root: rank {root['rank'] if root['rank'] is not None else '?'} on {node} "
                     f"(confidence {root['confidence']}; {root['why']})")
        a = root.get("anchor")
        if a:
            lines.append(f"First causal error: {_where(a)} at {a.get('time')} "
                         f"[{a.get('category')}{', ' + str(a.get('code')) if a.get('code') else ''}]")
    lines.append("Ranks: " + ", ".join(f"{counts.get(k, 0)} {k}" for k in ("root", "victim", "healthy", "silent", "missing"))
                 + f" across {len(v['nodes'])} node(s)")
    return lines


def render_cluster_markdown(verdict: dict) -> str:
    v = _shown(verdict)
    out = ["# npudiag-tui cluster verdict", ""] + [f"- {x}" for x in _headline(v)] + [""]
    a = (v["root"] or {}).get("anchor")
    if a and a.get("text"):
        fence = "`" * max(3, _longest_run(str(a["text"]), "`") + 1)  # log text never closes the block
        out += ["## First causal error", "", fence, str(a["text"]), fence, ""]
    if v["evidence"]:
        out += ["## Evidence", ""] + [f"- {e}" for e in v["evidence"]] + [""]
    if v["next_actions"]:
        out += ["## Next action", ""] + [f"1. {n['action']}: {n['why']}" for n in v["next_actions"]] + [""]
    if v["chain"]:
        out += ["## Who named whom", "", "| node | named rank | how | ranks | reports |", "|---|---|---|---|---|"]
        out += [f"| {c['from_node']} | {c['to_rank']} | {c['how']} | {c['ranks']} | {c['reports']} |" for c in v["chain"][:40]]
        out.append("")
    if v["clock"]:
        out += ["## Clocks", ""] + [f"- {c['node']}: offset {c['offset_s']:+} s, UTC{c['utc_offset_s'] / 3600:+g} h "
                                    f"({c['basis'] or 'no evidence'})" for c in v["clock"][:40]] + [""]
    out += ["## Nodes", "", "| node | ranks | roles |", "|---|---|---|"]
    roles_by_node = _roles_by_node(v)
    for n in v["nodes"]:
        out.append(f"| {n['node']} | {len(n['ranks'])} | {roles_by_node.get(n['node'], '')} |")
    out.append("")
    if v["missing_nodes"]:
        out += ["## Nodes that sent nothing", ""] + [f"- {m['node']}: {m['reason']}" for m in v["missing_nodes"]] + [""]
    if v["problems"]:
        out += ["## Problems", ""] + [f"- {p}" for p in v["problems"]] + [""]
    return "\n".join(out)


def _longest_run(text: str, ch: str) -> int:
    best = run = 0
    for c in text:
        run = run + 1 if c == ch else 0
        best = max(best, run)
    return best


def _roles_by_node(v: dict) -> dict[str, str]:
    per: dict[str, dict[str, int]] = {}
    for r in v["ranks"]:
        per.setdefault(r["node"] or "?", {}).setdefault(r["role"], 0)
        per[r["node"] or "?"][r["role"]] += 1
    return {n: ", ".join(f"{c} {role}" for role, c in sorted(d.items())) for n, d in per.items()}


def render_cluster_text(verdict: dict, color: bool | None = None) -> str:
    """Terminal text; colour only on a TTY and never when NO_COLOR is set."""
    import os
    from io import StringIO

    from rich.console import Console
    from rich.text import Text

    if color is None:
        color = os.isatty(1) and not os.environ.get("NO_COLOR")
    buf = StringIO()
    con = Console(file=buf, force_terminal=color, no_color=not color, width=120, highlight=False,
                  color_system="standard" if color else None)
    v = _shown(verdict)
    head = _headline(v)
    con.print(Text(head[0], style="bold red" if v["root"] else "yellow"))
    for line in head[1:]:
        con.print(Text(line))
    a = (v["root"] or {}).get("anchor")
    if a and a.get("text"):
        con.print(Text(str(a["text"]), style="bold"))
    for title, rows in (("Evidence", v["evidence"]),
                        ("Next action", [f"{n['action']}: {n['why']}" for n in v["next_actions"]]),
                        ("Nodes that sent nothing", [f"{m['node']}: {m['reason']}" for m in v["missing_nodes"]]),
                        ("Problems", v["problems"])):
        if rows:
            con.print(Text(f"\n{title}", style="bold underline"))
            for r in rows:
                con.print(Text(f"- {r}"))
    return buf.getvalue()


def _shown(value):
    """Every string made printable (node names, paths and quoted lines come from other machines)."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {k: _shown(x) for k, x in value.items()}
    if isinstance(value, list):
        return [_shown(x) for x in value]
    return value
