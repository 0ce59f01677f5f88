"""The Markdown report: what a user pastes into a bug-report thread (GitHub, Gitee).

Verdict first, then the anchor line, why it is the anchor, the most likely root cause and the
next actions: what a maintainer reads. Everything long (more evidence, the registry entry, the
candidates that lost, the cascade, the ranks, the inputs) is folded into `<details>`, so the
visible part stays short (about 3 KB on an 8-rank job) and the thread stays readable.

Every string from a log or a file name goes through `mdtext` (code spans and fences); the
sentences the engine writes are escaped as prose. See mdtext's docstring for the rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from npudiag_tui import __version__
from npudiag_tui.core.model import Diagnosis
from npudiag_tui.mdtext import code_span, details, escape, fence, prose, table
from npudiag_tui.report import (MAX_SHOWN_LINE_CHARS, cut_note, inputs_summary, no_anchor_line, registry_sources,
                                 report_dict, skipped_lines, verdict_title)

if TYPE_CHECKING:  # pragma: no cover
    from npudiag_tui.core.workspace import Workspace

SHOWN_EVIDENCE = 3  # evidence items above the fold; the rest are folded
SHOWN_ACTIONS = 3
CASCADE_ROWS = 40
INPUT_ROWS = 60
PREVIEW_CHARS = 160  # of a candidate's or cascade member's line (the JSON report has it whole)


def _preview(text: str) -> str:
    return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + "…"


def _place(e: dict, table_cell: bool = False) -> str:
    return code_span(f"{e['path']}:{e['line']}", table_cell)


def _evidence_item(text: str, parts: tuple[str, ...] | None) -> str:
    """Prose parts escaped, quoted parts (places, log lines) as code spans."""
    if not parts or "".join(parts) != text:
        return escape(text)
    return "".join(code_span(p) if i % 2 else escape(p, line_start=i == 0) for i, p in enumerate(parts) if p)


def _evidence(diag: Diagnosis) -> list[str]:
    """The engine's evidence, less the anchor's own item (the report shows the anchor above)."""
    parts = diag.evidence_parts if len(diag.evidence_parts) == len(diag.evidence) else [None] * len(diag.evidence)
    return [_evidence_item(e, p) for e, p in zip(diag.evidence, parts)
            if not (diag.anchor is not None and p and len(p) > 1 and p[0].startswith("Anchor ("))]


def _sentence(text: str) -> str:
    """An engine phrase ("earliest HCCP error line ...") as a sentence of its own."""
    return text[:1].upper() + text[1:] if text else text


def _action(n: dict) -> str:
    env = " ".join(f"{k}={v}" for k, v in n["env"].items())
    return f"**{prose(n['action'])}**" + (f" ({code_span(env)})" if env else "") + f": {prose(n['why'])}"


def _head(d: dict, diag: Diagnosis) -> list[str]:
    a = d["anchor"]
    low = diag.confidence == "low" and a is not None
    out = ([f"**Low confidence:** {prose(a['confidence_reason'] or 'the anchor is weak evidence')}; "
            "check the candidates below.", ""] if low else [])
    if a is None:
        return out + [f"# {escape(verdict_title(d, diag))}", "", escape(no_anchor_line(d)), ""]
    code = f" {code_span(str(a['code']))}" if a["code"] else ""
    rank = f" on rank {a['rank']}" if a["rank"] is not None else ""
    out += [f"# {escape(verdict_title(d, diag))}{code}{rank} ({escape(str(a['confidence']))} confidence)",
            "",
            f"First causal error at {_place(a)} ({escape(a['stream'])} log, time {escape(a['time'] or 'unknown')}):",
            "", *fence(cut_note(a["text"], a["line_bytes"], MAX_SHOWN_LINE_CHARS)), ""]
    if a.get("fragment"):
        out += [f"The anchor is the escaped sub-line {code_span(a['fragment'])}.", ""]
    out += ["## Why this line", "", f"{prose(_sentence(a['why']))}.", "",
            f"**Confidence:** {escape(str(a['confidence']))}: {prose(a['confidence_reason'])}.", ""]
    return out


def render_markdown(ws: "Workspace", diag: Diagnosis) -> str:
    d = report_dict(ws, diag)
    out = _head(d, diag)
    if d["root_cause"]:
        out += ["## Most likely root cause", "", prose(d["root_cause"]), ""]
    actions = d["next_actions"]
    if actions:
        out += ["## Next minimal action", ""] + [f"{i}. {_action(n)}" for i, n in
                                                 enumerate(actions[:SHOWN_ACTIONS], 1)] + [""]
        if len(actions) > SHOWN_ACTIONS:
            out += details(f"{len(actions) - SHOWN_ACTIONS} more action(s)",
                           [f"{i}. {_action(n)}" for i, n in enumerate(actions[SHOWN_ACTIONS:], SHOWN_ACTIONS + 1)])
    evidence = _evidence(diag)
    if evidence:
        out += ["## Evidence", ""] + [f"- {e}" for e in evidence[:SHOWN_EVIDENCE]] + [""]
        if len(evidence) > SHOWN_EVIDENCE:
            out += details(f"{len(evidence) - SHOWN_EVIDENCE} more evidence item(s)",
                           [f"- {e}" for e in evidence[SHOWN_EVIDENCE:]])
    if d["missing"]:
        out += ["## Missing evidence", ""] + [f"- {prose(m)}" for m in d["missing"]] + [""]
    out += _folds(d, diag)
    out += ["---", "", f"npudiag-tui {escape(__version__, line_start=False)} · registry: "
            + ", ".join(code_span(s) for s in registry_sources(ws))
            + " · `--report json` holds every line in full", ""]
    return "\n".join(out)


_ROLE_ORDER = ["root", "victim", "healthy", "silent", "missing", "unknown"]


def _role_rank(role: str) -> tuple[int, str]:
    return (_ROLE_ORDER.index(role) if role in _ROLE_ORDER else len(_ROLE_ORDER), role)


def _cell(value: object) -> str:
    """A table cell of the tool's own values (numbers, roles, times); "-" when unknown."""
    return "-" if value is None or value == "" else escape(str(value), line_start=False)


def _folds(d: dict, diag: Diagnosis) -> list[str]:
    out: list[str] = []
    g = d["guidance"]
    if g:
        body = [f"- **Code:** {code_span(str(g['code']))} ({escape(str(g.get('family') or '-'))} / "
                f"{escape(str(g.get('title') or '-'))})",
                f"- **Message:** {code_span(str(g.get('message') or ''))}"]
        if g.get("possible_cause"):
            body.append(f"- **Possible cause:** {prose(str(g['possible_cause']))}")
        if g.get("solution"):
            body.append(f"- **Solution:** {prose(str(g['solution']))}")
        body.append(f"- **Registry:** {code_span(str(g.get('registry')))}")
        out += details(f"Registry entry {g['code']}", body)
    if d["candidates"]:
        body = []
        for c in d["candidates"]:
            rank = f", rank {c['rank']}" if c["rank"] is not None else ""
            body += [f"- {prose(c['why_not'])}: {_place(c)}{escape(rank)}",
                     f"  {code_span(_preview(c['text']))}"]
        out += details(f"Candidates that lost ({len(d['candidates'])})", body)
    if d["cascade"]:
        shown = d["cascade"][:CASCADE_ROWS]
        rows = [[_cell(c["relation"]), _place(c, True), _cell(c["rank"]), code_span(_preview(c["text"]), True)]
                for c in shown]
        more = len(diag.cascade) - len(shown)
        out += details(f"Cascade: {len(diag.cascade)} secondary lines" + (f", first {len(shown)}" if more else ""),
                       table(["relation", "where", "rank", "line"], rows)
                       + ([f"", f"… and {more:,} more in `--report json`."] if more else []))
    if d["ranks"]:
        roles = [r["role"] for r in d["ranks"]]
        counts = ", ".join(f"{roles.count(k)} {k}" for k in sorted(set(roles), key=_role_rank))
        rows = [[_cell(r["rank"]), _cell(r["first_error_time"]), _cell(r["role"])] for r in d["ranks"]]
        out += details(f"Ranks: {len(d['ranks'])} ({counts})",
                       table(["rank", "first error", "role"], rows))
    out += details("Inputs: " + inputs_summary(d), _inputs(d))
    return out


def _inputs(d: dict) -> list[str]:
    shown = d["inputs"][:INPUT_ROWS]
    body = table(["file", "stream", "rank", "pid", "device", "lines"],
                 [[code_span(i["path"], True), _cell(i["stream"]), _cell(i["rank"]), _cell(i["pid"]),
                   _cell(i["device"]), _cell(f"{i['lines']:,}" if i["lines"] is not None else None)] for i in shown])
    if len(d["inputs"]) > len(shown):
        body += ["", f"… and {len(d['inputs']) - len(shown):,} more files."]
    if d["problems"]:
        body += ["", "**Input problems**", ""] + [f"- {code_span(p)}" for p in d["problems"]]
    if d["skipped"]:
        body += ["", "**Skipped (not read)**", ""] + [f"- {code_span(line)}" for line in skipped_lines(d)]
    return body
