"""The terminal report: the verdict first, then the same order as the Markdown report, wrapped
to the terminal's width.

Everything goes through rich only as `Text` objects, never markup strings, because log lines
are data and may contain `[...]`; the strings were made printable by `report_dict`. Colour only
on a TTY and never when NO_COLOR is set (https://no-color.org).
"""

from __future__ import annotations

import os
import shutil
from io import StringIO
from typing import TYPE_CHECKING

from npudiag_tui import __version__
from npudiag_tui.core.model import Diagnosis
from npudiag_tui.report import (MAX_SHOWN_LINE_CHARS, cut_parts, inputs_summary, low_confidence_line, no_anchor_line,
                                registry_sources, report_dict, skipped_lines, verdict_line)

if TYPE_CHECKING:  # pragma: no cover
    from npudiag_tui.core.workspace import Workspace

PIPE_WIDTH = 100  # when stdout is not a terminal (a file, a pipe, CI)
CASCADE_SHOWN = 15
PREVIEW_CHARS = 200


def _width() -> int:
    if os.isatty(1):
        return max(40, shutil.get_terminal_size((PIPE_WIDTH, 24)).columns)
    return PIPE_WIDTH


def render_text(ws: "Workspace", diag: Diagnosis, color: bool | None = None, width: int | None = None) -> str:
    from rich.console import Console
    from rich.text import Text

    if color is None:
        color = os.isatty(1) and not os.environ.get("NO_COLOR")
    buf = StringIO()
    con = Console(file=buf, force_terminal=color, no_color=not color, width=width or _width(), highlight=False,
                  color_system="standard" if color else None, soft_wrap=False)
    d = report_dict(ws, diag)

    def head(title: str) -> None:
        con.print()
        con.print(Text(title, style="bold underline"))

    def para(text: Text | str, style: str = "", indent: int = 2, hang: int = 0) -> None:
        """`text` wrapped to the width, indented, its later lines `hang` columns further in."""
        t = text if isinstance(text, Text) else Text(text, style=style)
        for i, line in enumerate(t.wrap(con, max(20, con.width - indent - hang))):
            line.rstrip()
            con.print(Text(" " * (indent + (hang if i else 0))) + line)

    low = low_confidence_line(diag)
    if low:
        con.print(Text(low, style="bold yellow"))
    a = d["anchor"]
    if a is None:
        con.print(Text(no_anchor_line(d), style="green" if no_anchor_line(d).startswith("No error") else "yellow"))
    else:
        con.print(Text(verdict_line(d, diag), style="bold magenta"))
        para(Text.assemble(("First causal error  ", "dim"), (f"{a['path']}:{a['line']}", "cyan"),
                           (f"  {a['stream']} log, time {a['time'] or 'unknown'}", "dim")), indent=0, hang=2)
        shown, note = cut_parts(a["text"], a["line_bytes"], MAX_SHOWN_LINE_CHARS)
        para(shown, "bold red")
        if note:
            para(note, "dim")
        if a.get("fragment"):
            para(Text.assemble(("the escaped sub-line: ", "dim"), (a["fragment"], "")))
        head("Why this line")
        para(a["why"][:1].upper() + a["why"][1:] + ".")
        para(Text.assemble(("confidence ", "dim"), (str(a["confidence"]), "bold"), (f": {a['confidence_reason']}", "dim")))
    if d["root_cause"]:
        head("Most likely root cause")
        para(d["root_cause"])
    if d["next_actions"]:
        head("Next minimal action")
        for i, n in enumerate(d["next_actions"], 1):
            env = " ".join(f"{k}={v}" for k, v in n["env"].items())
            para(Text.assemble((f"{i}. ", "bold"), (n["action"], "bold green"), (f"  [{env}]" if env else "", "yellow")),
                 hang=3)
            para(n["why"], "dim", indent=5)
    if d["evidence"]:
        head("Evidence")
        for e in d["evidence"][1 if a is not None and d["evidence"][0].startswith("Anchor (") else 0:]:
            para("- " + e, hang=2)
    if d["missing"]:
        head("Missing evidence")
        for m in d["missing"]:
            para("- " + m, hang=2)
    g = d["guidance"]
    if g:
        head("Registry")
        para(f"{g['code']}  {g.get('family') or '-'} / {g.get('title') or '-'}  (from {g.get('registry')})")
        para("message: " + str(g.get("message") or ""))
        if g.get("possible_cause"):
            para("possible cause: " + str(g["possible_cause"]))
        if g.get("solution"):
            para("solution: " + str(g["solution"]))
    if d["candidates"]:
        head("Candidates that lost")
        for c in d["candidates"]:
            para(Text.assemble((c["why_not"], "yellow"), (f"  {c['path']}:{c['line']}", "cyan")))
            para(c["text"][:PREVIEW_CHARS], indent=4)
    if d["ranks"]:
        head("Ranks")
        para("  ".join(f"{r['rank']}:{r['role']}" for r in d["ranks"]))
    if d["cascade"]:
        head(f"Cascade ({len(diag.cascade)} secondary lines, first {min(CASCADE_SHOWN, len(d['cascade']))})")
        for c in d["cascade"][:CASCADE_SHOWN]:
            para(Text.assemble((f"{c['relation']:<15} ", "yellow"), (f"{c['path']}:{c['line']}  ", "cyan"),
                               (c["text"][:PREVIEW_CHARS], "")), hang=16)
    head("Inputs")
    para(inputs_summary(d))
    if d["problems"]:
        head("Input problems")
        for p in d["problems"]:
            para("- " + p, "yellow", hang=2)
    if d["skipped"]:
        head("Skipped (not read)")
        for line in skipped_lines(d):
            para("- " + line, "dim", hang=2)
    con.print()
    con.print(Text(f"npudiag-tui {__version__} · registry: {', '.join(registry_sources(ws))}", style="dim"))
    return buf.getvalue()
