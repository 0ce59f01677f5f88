"""Render a Diagnosis as JSON (the contract in docs/architecture.md), Markdown or terminal text.

Terminal text goes through rich only as `Text` objects, never markup strings, because log
lines are data and may contain `[...]` or escape sequences.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from npudiag_tui.core.diagnosis.engine import anchor_ref
from npudiag_tui.core.formats.text import visible
from npudiag_tui.core.formats.timestamps import format_us
from npudiag_tui.core.model import Diagnosis, ErrorEvent

if TYPE_CHECKING:  # pragma: no cover
    from npudiag_tui.core.workspace import Workspace

SCHEMA = "npudiag-report/1"
MAX_CASCADE = 500


def _line_text(ws: "Workspace", ev: ErrorEvent) -> tuple[str, int, str]:
    ref = anchor_ref(ev)
    path = ws.files[ref.file_id].display
    try:
        text = ws.indexes[ref.file_id].full_line(ref.line)
    except Exception:  # the file vanished since the scan: keep what the scan saw
        text = ev.text
    return path, ref.line + 1, text


def to_dict(ws: "Workspace", diag: Diagnosis) -> dict:
    inputs = []
    for f in ws.files:
        src = ws.source_of_file(f.file_id)
        idx = ws.indexes[f.file_id]
        inputs.append({"path": f.display, "stream": src.stream.value, "rank": src.rank, "pid": src.pid,
                       "device": src.device, "lines": idx.line_count})
    anchor = None
    a = diag.anchor
    if a is not None:
        path, line, text = _line_text(ws, a)
        anchor = {"stream": a.stream.value, "path": path, "line": line, "text": text,
                  "time": format_us(a.time), "rank": a.rank, "pid": a.cann_pid or a.pid,
                  "code": a.code, "category": diag.category, "summary": diag.summary,
                  "why": diag.why, "confidence": diag.confidence, "confidence_reason": diag.confidence_reason,
                  # the escaped sub-line the anchor is, when its physical line holds a whole block
                  "fragment": a.fragment if anchor_ref(a) == a.ref else None}
    cascade = []
    for ev in diag.cascade[:MAX_CASCADE]:
        path, line, text = _line_text(ws, ev)
        cascade.append({"stream": ev.stream.value, "path": path, "line": line, "text": text,
                        "time": format_us(ev.time), "code": (ev.codes[0] if ev.codes else
                                                             (str(next(iter(ev.numeric.values()))) if ev.numeric else None)),
                        "relation": ev.secondary, "rank": ev.rank})
    candidates = []
    for c in diag.candidates:
        path, line, text = _line_text(ws, c.event)
        candidates.append({"stream": c.event.stream.value, "path": path, "line": line, "time": format_us(c.event.time),
                           "rank": c.event.rank, "text": text, "why_not": c.why_not})
    return {
        "schema": SCHEMA,
        "inputs": inputs,
        "anchor": anchor,
        "cascade": cascade,
        "guidance": diag.guidance,
        "root_cause": diag.root_cause or None,
        "evidence": diag.evidence,
        "next_actions": [{"action": n.action, "env": n.env, "why": n.why} for n in diag.next_actions],
        "missing": diag.missing,
        "ranks": [{"rank": r.rank, "first_error_time": format_us(r.first_error_time), "role": r.role}
                  for r in diag.ranks],
        "problems": ws.problems,
        "skipped": [{"path": p, "reason": r} for p, r in ws.discovery.skipped],
        "candidates": candidates,
    }


def render_json(ws: "Workspace", diag: Diagnosis) -> str:
    return json.dumps(to_dict(ws, diag), ensure_ascii=False, indent=2)


def _clean(text: str) -> str:
    """Log text, paths and messages as they may be printed (formats.text: visible escapes)."""
    return visible(text)


def _shown(value):
    """The report dict with every string made printable: text and markdown show paths, problem
    notices, registry messages filled from log text and anything added later, all of which can
    carry what a hostile log or file name put there. JSON does not use this (json.dumps escapes)."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {k: _shown(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_shown(v) for v in value]
    return value


def low_confidence_line(diag: Diagnosis) -> str | None:
    """The first line of every report when the anchor is only a lead, not a verdict."""
    if diag.anchor is None or diag.confidence != "low":
        return None
    return visible(f"Low confidence: {diag.confidence_reason or 'the anchor is weak evidence'}; "
                   "check the candidates below.")


def _code_span(text: str) -> str:
    """Log text as a Markdown code span: data, never formatting (a backtick run inside is
    fenced by a longer one)."""
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render_markdown(ws: "Workspace", diag: Diagnosis) -> str:
    d = _shown(to_dict(ws, diag))
    low = low_confidence_line(diag)
    out = ([f"**{low}**", ""] if low else []) + ["# npudiag-tui diagnosis", ""]
    a = d["anchor"]
    if a is None:
        out += ["No error was found in the inputs.", ""]
    else:
        out += [f"**Category:** {diag.category}", "", f"**Summary:** {_clean(diag.summary)}", "",
                "## First causal error", "",
                f"`{a['path']}:{a['line']}` ({a['stream']}, time {a['time'] or 'unknown'}, "
                f"rank {a['rank'] if a['rank'] is not None else 'unknown'})", "", "```", _clean(a["text"]), "```", "",
                "## Why this line", "", f"{a['why']}.", "",
                f"**Confidence:** {a['confidence']} ({a['confidence_reason']})", ""]
        if d["candidates"]:
            out += ["## Candidates that lost", "", "| why not | where | line |", "|---|---|---|"]
            for c in d["candidates"]:
                where = _code_span(f"{c['path']}:{c['line']}")
                text = _code_span(c["text"][:160]).replace("|", "\\|")
                out.append(f"| {c['why_not']} | {where} | {text} |")
            out.append("")
    g = d["guidance"]
    if g:
        out += ["## Registry", "", f"- **Code:** {g['code']} ({g.get('family') or ''} / {g.get('title') or ''})",
                f"- **Message:** {_clean(str(g.get('message') or ''))}"]
        if g.get("possible_cause"):
            out.append(f"- **Possible cause:** {g['possible_cause']}")
        if g.get("solution"):
            out.append(f"- **Solution:** {g['solution']}")
        out += [f"- **Registry:** {g.get('registry')}", ""]
    if d["root_cause"]:
        out += ["## Most likely root cause", "", _clean(d["root_cause"]), ""]
    if d["evidence"]:
        out += ["## Evidence", ""] + [f"- {_clean(e)}" for e in d["evidence"]] + [""]
    if d["next_actions"]:
        out += ["## Next minimal action", ""]
        for n in d["next_actions"]:
            env = " ".join(f"{k}={v}" for k, v in n["env"].items())
            out.append(f"1. {n['action']}" + (f" (`{env}`)" if env else "") + f": {n['why']}")
        out.append("")
    if d["missing"]:
        out += ["## Missing evidence", ""] + [f"- {m}" for m in d["missing"]] + [""]
    if d["ranks"]:
        out += ["## Ranks", "", "| rank | first error | role |", "|---|---|---|"]
        out += [f"| {r['rank']} | {r['first_error_time'] or '-'} | {r['role']} |" for r in d["ranks"]] + [""]
    if d["cascade"]:
        out += [f"## Cascade ({len(diag.cascade)} secondary lines)", "", "| relation | where | line |", "|---|---|---|"]
        for c in d["cascade"][:40]:
            txt = _clean(c["text"]).replace("|", "\\|")[:160]
            out.append(f"| {c['relation']} | `{c['path']}:{c['line']}` | {txt} |")
        out.append("")
    if d["problems"]:
        out += ["## Input problems", ""] + [f"- {_clean(p)}" for p in d["problems"]] + [""]
    return "\n".join(out)


def render_text(ws: "Workspace", diag: Diagnosis, color: bool | None = None) -> str:
    """Terminal text; colour only on a TTY and never when NO_COLOR is set."""
    from io import StringIO

    from rich.console import Console
    from rich.text import Text

    if color is None:
        color = os.isatty(1) and not os.environ.get("NO_COLOR")
    buf = StringIO()
    con = Console(file=buf, force_terminal=color, no_color=not color, width=120, highlight=False,
                  color_system="standard" if color else None)
    d = _shown(to_dict(ws, diag))

    def head(title: str) -> None:
        con.print(Text(title, style="bold underline"))

    a = d["anchor"]
    low = low_confidence_line(diag)
    if low:
        con.print(Text(low, style="bold yellow"))
    if a is None:
        con.print(Text("No error found in the inputs.", style="green"))
    else:
        head("First causal error")
        con.print(Text.assemble(("category ", "dim"), (diag.category, "bold magenta"),
                                ("  code ", "dim"), (str(a["code"] or "-"), "bold"),
                                ("  rank ", "dim"), (str(a["rank"] if a["rank"] is not None else "-"), "bold")))
        con.print(Text(f"{a['path']}:{a['line']}  {a['time'] or ''}", style="cyan"))
        con.print(Text(_clean(a["text"]), style="bold red"))
        con.print(Text(_clean(diag.summary)))
        head("\nWhy this line")
        con.print(Text(a["why"] + "."))
        con.print(Text.assemble(("confidence ", "dim"), (str(a["confidence"]), "bold"),
                                (f"  ({a['confidence_reason']})", "dim")))
        if d["candidates"]:
            head("\nCandidates that lost")
            for c in d["candidates"]:
                con.print(Text.assemble(("  " + c["why_not"], "yellow"), (f"  {c['path']}:{c['line']}", "cyan")))
                con.print(Text("    " + c["text"][:110]))
    g = d["guidance"]
    if g:
        head("\nRegistry")
        con.print(Text(f"{g['code']}  {g.get('family') or ''} / {g.get('title') or ''}  ({g.get('registry')})"))
        if g.get("possible_cause"):
            con.print(Text("possible cause: " + str(g["possible_cause"])))
        if g.get("solution"):
            con.print(Text("solution: " + str(g["solution"])))
    if d["root_cause"]:
        head("\nMost likely root cause")
        con.print(Text(_clean(d["root_cause"])))
    if d["evidence"]:
        head("\nEvidence")
        for e in d["evidence"]:
            con.print(Text("- " + _clean(e)))
    if d["next_actions"]:
        head("\nNext minimal action")
        for i, n in enumerate(d["next_actions"], 1):
            env = " ".join(f"{k}={v}" for k, v in n["env"].items())
            con.print(Text.assemble((f"{i}. ", "bold"), (n["action"], "bold green"),
                                    (f"  [{env}]" if env else "", "yellow")))
            con.print(Text("   " + n["why"], style="dim"))
    if d["missing"]:
        head("\nMissing evidence")
        for m in d["missing"]:
            con.print(Text("- " + m))
    if d["ranks"]:
        head("\nRanks")
        con.print(Text("  ".join(f"{r['rank']}:{r['role']}" for r in d["ranks"])))
    if d["cascade"]:
        head(f"\nCascade ({len(diag.cascade)} secondary lines, first 15)")
        for c in d["cascade"][:15]:
            con.print(Text(f"  {c['relation']:<15} {c['path']}:{c['line']}  {_clean(c['text'])[:100]}"))
    if d["problems"]:
        head("\nInput problems")
        for p in d["problems"]:
            con.print(Text("- " + _clean(p), style="yellow"))
    return buf.getvalue()
