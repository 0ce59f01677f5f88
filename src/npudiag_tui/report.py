"""A Diagnosis as a report: the JSON contract (docs/architecture.md), and what the Markdown
(report_markdown.py) and terminal (report_text.py) reports share: the printable report dict,
the verdict line, the inputs summary, the registry sources, where a long line is cut.
"""

from __future__ import annotations

import json
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


MAX_JSON_LINE_BYTES = 64 * 1024  # what a report quotes of one line: time and memory stay bounded
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


def cut_parts(text: str, line_bytes: int | None, limit: int) -> tuple[str, str | None]:
    """(the line as a report prints it, at most `limit` characters; the note saying where it
    was cut, or None)."""
    if line_bytes is None and len(text) <= limit:
        return text, None
    total = line_bytes if line_bytes is not None else len(text.encode("utf-8", "replace"))
    return f"{text[:limit]} …", f"[line cut: {total:,} bytes in all]"


def cut_note(text: str, line_bytes: int | None, limit: int) -> str:
    """The line as a report prints it: at most `limit` characters, saying where it was cut."""
    shown, note = cut_parts(text, line_bytes, limit)
    return shown if note is None else f"{shown} {note}"


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


def report_dict(ws: "Workspace", diag: Diagnosis) -> dict:
    """The JSON report's dict with every string printable: what text and Markdown render."""
    return _shown(to_dict(ws, diag))


MAX_SKIPPED_SHOWN = 20
_HAS_SURROGATE = re.compile("[\ud800-\udfff]")


def _line_total(d: dict) -> int:
    return sum(i["lines"] or 0 for i in d["inputs"])


def no_anchor_line(d: dict) -> str:
    """No anchor: either the logs hold no error, or there was no log line to look at (then
    "No error found" would claim the logs were checked)."""
    if _line_total(d):
        return "No error found in the inputs."
    n = len(d["inputs"])
    return f"No log line in the inputs: {n} file{'s' if n != 1 else ''} read, all empty; nothing was checked."


def skipped_lines(d: dict) -> list[str]:
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


_CATEGORY_WORDS = {"stream_event": "Stream/event", "unknown": "Unclassified"}


def verdict_title(d: dict, diag: Diagnosis) -> str:
    """The verdict's first words: "Communication error", or what was found when nothing was."""
    if d["anchor"] is None:
        return "No error found" if _line_total(d) else "No log line in the inputs"
    return _CATEGORY_WORDS.get(diag.category, diag.category.capitalize()) + " error"


def verdict_line(d: dict, diag: Diagnosis) -> str:
    """The verdict in one line: category, code, rank, confidence (what a report starts with)."""
    a = d["anchor"]
    if a is None:
        return verdict_title(d, diag)
    return (verdict_title(d, diag) + (f" {a['code']}" if a["code"] else "")
            + (f" on rank {a['rank']}" if a["rank"] is not None else "") + f" ({a['confidence']} confidence)")


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def inputs_summary(d: dict) -> str:
    """Files, streams, ranks and lines read, with the counts of problems and skipped files."""
    streams = sorted({i["stream"] for i in d["inputs"]})
    ranks = sorted({i["rank"] for i in d["inputs"] if i["rank"] is not None})
    bits = [_plural(len(d["inputs"]), "file") + (f" ({', '.join(streams)})" if streams else ""),
            _plural(_line_total(d), "line")]
    if ranks:
        bits.append(f"ranks {ranks[0]}-{ranks[-1]}" if ranks == list(range(ranks[0], ranks[-1] + 1)) and len(ranks) > 1
                    else "rank" + ("s " if len(ranks) > 1 else " ") + ", ".join(map(str, ranks[:16]))
                    + (", …" if len(ranks) > 16 else ""))
    if d["problems"]:
        bits.append(_plural(len(d["problems"]), "problem"))
    if d["skipped"]:
        bits.append(f"{len(d['skipped']):,} skipped")
    return ", ".join(bits)


def registry_sources(ws: "Workspace") -> list[str]:
    """Where registry answers come from: the built-in table, then each file merged over it."""
    return ["built-in", *(visible(utf8_safe(f)) for f in ws.registry.files)]


def render_markdown(ws: "Workspace", diag: Diagnosis) -> str:
    from npudiag_tui.report_markdown import render_markdown as render

    return render(ws, diag)


def render_text(ws: "Workspace", diag: Diagnosis, color: bool | None = None, width: int | None = None) -> str:
    from npudiag_tui.report_text import render_text as render

    return render(ws, diag, color=color, width=width)
