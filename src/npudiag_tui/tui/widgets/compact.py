"""The compact (lnav "pretty") form of a log line: level tag, module, pid where it helps, message.

Why: a plog header (`[ERROR] HCCL(2455,python):2026-03-11-07:22:41.499.573 [task.cc:120] [2455]`)
takes ~95 columns, and the pane already shows the line's time in its gutter, so printing the raw
line pushed the message off screen at every width. The raw line stays one key away (LogView's
raw toggle) and is what copy, search and the reports use.

Pure functions from the raw text to pieces; the widget styles them with rich Text (never markup).
Console output keeps its own text; its SGR colour codes become styles, other escapes stay visible.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from rich.style import Style
from rich.text import Text

from npudiag_tui.core.formats.plog import parse_plog
from npudiag_tui.core.model import Stream
from npudiag_tui.tui.lines import MAX_CHARS, sanitize

LEVEL_TAGS = {
    "ERROR": "ERR", "EXCEPTION": "ERR", "CRITICAL": "CRI", "WARNING": "WRN", "INFO": "INF",
    "DEBUG": "DBG", "EVENT": "EVT", "TRACE": "TRC",
}
MODULE_CELLS = 7
"""Modules are padded to this width so messages start in one column (longer ones just extend)."""

_PARSE_CHARS = 4096  # a header is at the start; the tail of a huge line is never parsed
_SGR = re.compile(r"\x1b\[([0-9;]*)m")


@dataclass(frozen=True)
class Compact:
    """A plog/device/CANN/MindSpore line cut into what a reader needs (all display-safe text)."""

    level: str  # the header's level word (ERROR, WARNING, ...)
    tag: str  # short tag shown (ERR, WRN, ...)
    module: str
    pid: int
    context: str  # HCCL tags / function, shown dimmed before the message ("" when none)
    message: str


def compact(raw: str, stream: Stream) -> Compact | None:
    """The compact form of a plog-like line, or None (console lines, continuations, no header).

    Only a header at the start of the line counts: a console line that quotes a plog line
    somewhere inside is shown as written.
    """
    if stream is Stream.STDOUT or not raw.startswith("["):
        return None
    got = parse_plog(raw[:_PARSE_CHARS])
    if got is None:
        return None
    message = got.message
    if len(raw) > _PARSE_CHARS:  # the parse saw only the head: keep the whole tail for display
        message = message + raw[_PARSE_CHARS:]
    message = message.lstrip()
    context = "".join(f"[{t}]" for t in got.tags) or (f"{got.func}:" if got.func else "")
    return Compact(got.level, LEVEL_TAGS.get(got.level, got.level[:3]), sanitize(got.module), got.pid,
                   sanitize(context), sanitize(message))


def console_text(raw: str) -> Text:
    """A console line as Text: SGR colour codes (vLLM, colorlog) become styles; every other
    control character is shown as a visible escape, as in any other line."""
    if "\x1b[" not in raw:
        return Text(sanitize(raw), end="", no_wrap=True)
    if len(raw) > MAX_CHARS:
        raw = raw[:MAX_CHARS] + "…"
    out = Text(end="", no_wrap=True)
    style = None
    pos = 0
    for m in _SGR.finditer(raw):
        if m.start() > pos:
            out.append(sanitize(raw[pos:m.start()]), style)
        style = _sgr_style(m.group(1), style)
        pos = m.end()
    if pos < len(raw):
        out.append(sanitize(raw[pos:]), style)
    return out


def _sgr_style(params: str, current: Style | None) -> Style | None:
    """The style after one SGR sequence (reset, or the codes added to the current style)."""
    if params in ("", "0"):
        return None
    new = _sgr(params)
    if new is None:
        return current
    return new if current is None else current + new


@lru_cache(maxsize=256)
def _sgr(params: str) -> Style | None:
    spans = Text.from_ansi(f"\x1b[{params}mx").spans  # rich's own SGR table, on our text only
    style = spans[0].style if spans else None
    return style if isinstance(style, Style) else (Style.parse(style) if style else None)


def compact_text(c: Compact, show_pid: bool, styles: dict[str, object]) -> Text:
    """Text for a compact line: `ERR HCCL    [2455] [tags] message`, each piece in its style."""
    out = Text(end="", no_wrap=True)
    level_style = styles.get(c.level)
    out.append(f"{c.tag:<3} ", level_style)
    out.append(f"{c.module:<{MODULE_CELLS}} ", styles.get("module"))
    if show_pid:
        out.append(f"{c.pid} ", styles.get("pid"))
    if c.context:
        out.append(c.context + " ", styles.get("context"))
    out.append(c.message, styles.get("message-" + c.level))
    return out
