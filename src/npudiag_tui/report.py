"""Render a Diagnosis as JSON (the contract in docs/architecture.md), Markdown or terminal text.

Terminal text goes through rich only as `Text` objects, never markup strings, because log
lines are data and may contain `[...]` or escape sequences.
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING

from npudiag_tui.core.diagnosis.engine import anchor_ref
from npudiag_tui.core.formats.text import name_bytes, utf8_safe, visible
from npudiag_tui.core.formats.timestamps import format_us
from npudiag_tui.core.model import Diagnosis, ErrorEvent

if TYPE_CHECKING:  # pragma: no cover
    from npudiag_tui.core.workspace import Workspace

SCHEMA = "npudiag-report/1"
MAX_CASCADE = 500


MAX_JSON_LINE_BYTES = 64 * 1024  # what a report quotes of one line: a 100 MB line took 52 s and 1.6 GB
MAX_SHOWN_LINE_CHARS = 2000  # what text and markdown print of the anchor's line


def _line_text(ws: "Workspace", ev: ErrorEvent) -> tuple[str, int, str, int | None]:
    """(path, 1-based line, text, the line's full length in bytes when `text` is only its start).

    Only the first MAX_JSON_LINE_BYTES of a line are read: memory per line stays bounded."""
    ref = anchor_ref(ev)
    path = ws.files[ref.file_id].display
    idx = ws.indexes[ref.file_id]
    try:
        length = idx.line_end(ref.line) - idx.line_start(ref.line)
        if length <= MAX_JSON_LINE_BYTES:
            return path, ref.line + 1, idx.full_line(ref.line), None
        raw = idx.raw_lines(ref.line, 1, max_bytes=0)  # a long line is read cut (index.MAX_LINE_BYTES)
        text = raw[0][:MAX_JSON_LINE_BYTES].decode("utf-8", "replace") if raw else ev.text
        return path, ref.line + 1, text, length
    except Exception:  # the file vanished since the scan: keep what the scan saw
        return path, ref.line + 1, ev.text, None


def _place(path: str) -> dict:
    """A file name for JSON: valid UTF-8 always, and the raw bytes as hex when it is not UTF-8."""
    raw = name_bytes(path)
    return {"path": utf8_safe(path)} if raw is None else {"path": utf8_safe(path), "path_bytes": raw.hex()}


def cut_note(text: str, line_bytes: int | None, limit: int) -> str:
    """The line as a report prints it: at most `limit` characters, saying where it was cut."""
    if line_bytes is None and len(text) <= limit:
        return text
    total = line_bytes if line_bytes is not None else len(text.encode("utf-8", "replace"))
    return f"{text[:limit]} … [line cut: {total:,} bytes in all]"


def to_dict(ws: "Workspace", diag: Diagnosis) -> dict:
    inputs = []
    for f in ws.files:
        src = ws.source_of_file(f.file_id)
        idx = ws.indexes[f.file_id]
        inputs.append({**_place(f.display), "stream": src.stream.value, "rank": src.rank, "pid": src.pid,
                       "device": src.device, "lines": idx.line_count})
    anchor = None
    a = diag.anchor
    if a is not None:
        path, line, text, cut = _line_text(ws, a)
        anchor = {"stream": a.stream.value, **_place(path), "line": line, "text": text, "line_bytes": cut,
                  "time": format_us(a.time), "rank": a.rank, "pid": a.cann_pid or a.pid,
                  "code": a.code, "category": diag.category, "summary": diag.summary,
                  "why": diag.why, "confidence": diag.confidence, "confidence_reason": diag.confidence_reason,
                  # the escaped sub-line the anchor is, when its physical line holds a whole block
                  "fragment": a.fragment if anchor_ref(a) == a.ref else None}
    cascade = []
    for ev in diag.cascade[:MAX_CASCADE]:
        path, line, text, cut = _line_text(ws, ev)
        cascade.append({"stream": ev.stream.value, **_place(path), "line": line, "text": text, "line_bytes": cut,
                        "time": format_us(ev.time), "code": (ev.codes[0] if ev.codes else
                                                             (str(next(iter(ev.numeric.values()))) if ev.numeric else None)),
                        "relation": ev.secondary, "rank": ev.rank})
    candidates = []
    for c in diag.candidates:
        path, line, text, cut = _line_text(ws, c.event)
        candidates.append({"stream": c.event.stream.value, **_place(path), "line": line, "time": format_us(c.event.time),
                           "rank": c.event.rank, "text": text, "line_bytes": cut, "why_not": c.why_not})
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
        "problems": [utf8_safe(p) for p in ws.problems],
        "skipped": [{**_place(p), "reason": utf8_safe(r)} for p, r in ws.discovery.skipped],
        "candidates": candidates,
    }


def render_json(ws: "Workspace", diag: Diagnosis) -> str:
    out = json.dumps(to_dict(ws, diag), ensure_ascii=False, indent=2)
    # a name not made UTF-8-safe above (a message quoting one) still yields valid UTF-8: the
    # lone surrogate is written as the JSON escape `\udcxx`, which json.loads reads back
    return out.encode("utf-8", "backslashreplace").decode("utf-8") if _HAS_SURROGATE.search(out) else out


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


MAX_SKIPPED_SHOWN = 20
_HAS_SURROGATE = re.compile("[\ud800-\udfff]")


def _line_total(d: dict) -> int:
    return sum(i["lines"] or 0 for i in d["inputs"])


def _no_anchor(d: dict) -> str:
    """No anchor: either the logs hold no error, or there was no log line to look at (then
    "No error found" would claim the logs were checked)."""
    if _line_total(d):
        return "No error found in the inputs."
    n = len(d["inputs"])
    return f"No log line in the inputs: {n} file{'s' if n != 1 else ''} read, all empty; nothing was checked."


def _skipped_lines(d: dict) -> list[str]:
    """What was skipped and why (already made printable), at most MAX_SKIPPED_SHOWN of them."""
    items = d["skipped"]
    out = [f"{s['path']}: {s['reason']}" for s in items[:MAX_SKIPPED_SHOWN]]
    if len(items) > MAX_SKIPPED_SHOWN:
        out.append(f"… and {len(items) - MAX_SKIPPED_SHOWN:,} more")
    return out


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
        out += [_no_anchor(d), ""]
    else:
        out += [f"**Category:** {diag.category}", "", f"**Summary:** {_clean(diag.summary)}", "",
                "## First causal error", "",
                f"`{a['path']}:{a['line']}` ({a['stream']}, time {a['time'] or 'unknown'}, "
                f"rank {a['rank'] if a['rank'] is not None else 'unknown'})", "", "```", cut_note(_clean(a["text"]), a["line_bytes"], MAX_SHOWN_LINE_CHARS), "```", "",
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
    if d["skipped"]:
        out += ["## Skipped (not read)", ""] + [f"- {line}" for line in _skipped_lines(d)] + [""]
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
        con.print(Text(_no_anchor(d), style="green" if _line_total(d) else "yellow"))
    else:
        head("First causal error")
        con.print(Text.assemble(("category ", "dim"), (diag.category, "bold magenta"),
                                ("  code ", "dim"), (str(a["code"] or "-"), "bold"),
                                ("  rank ", "dim"), (str(a["rank"] if a["rank"] is not None else "-"), "bold")))
        con.print(Text(f"{a['path']}:{a['line']}  {a['time'] or ''}", style="cyan"))
        con.print(Text(cut_note(_clean(a["text"]), a["line_bytes"], MAX_SHOWN_LINE_CHARS), style="bold red"))
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
    if d["skipped"]:
        head("\nSkipped (not read)")
        for line in _skipped_lines(d):
            con.print(Text("- " + line, style="dim"))
    return buf.getvalue()
