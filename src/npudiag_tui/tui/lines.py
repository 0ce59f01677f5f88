"""Turning a raw log line into safe, styled rich Text (never markup) and guessing its level."""

from __future__ import annotations

import re

from npudiag_tui.core.model import Level

MAX_CHARS = 2000
"""Longest part of a line that is rendered; the rest is cut (the index keeps it whole)."""

_CTRL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_PLOG_LEVEL = re.compile(r"\[(ERROR|WARNING|INFO|DEBUG|EVENT|TRACE|CRITICAL|EXCEPTION)\] [A-Za-z]")
_CONSOLE_ERROR = re.compile(
    r"\bERROR\b|\bCRITICAL\b|\bFATAL\b|Traceback \(most recent|TraceBack \(most|"
    r"^\s*(?:\(.*?pid=\d+.*?\)\s*)?[\w.]*(?:Error|Exception)\b:|error code is|\bERR\d{5}\b|\[Error\]|"
    r"Segmentation fault|core dumped|^\s*E[0-9A-Z]\d{4}[:\[]|out of memory|\[E\d{4} "
)
_CONSOLE_WARNING = re.compile(r"\bWARN(?:ING)?\b|Warning:|\[W\d{4} |^W\d{4} ")
_LEVELS = {
    "ERROR": Level.ERROR, "CRITICAL": Level.CRITICAL, "EXCEPTION": Level.ERROR,
    "WARNING": Level.WARNING, "INFO": Level.INFO, "DEBUG": Level.DEBUG, "EVENT": Level.EVENT,
    "TRACE": Level.TRACE,
}


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code < 0x20:
        return chr(0x2400 + code)  # control pictures: ESC shows as U+241B
    if code == 0x7F:
        return "\u2421"
    return "\ufffd"


def sanitize(line: str) -> str:
    """Make a decoded line safe for the terminal: cut, expand tabs, show control bytes.

    Escape sequences and C0/C1 controls become visible symbols, so `\\x1b[2J` reads as `␛[2J`
    and cannot clear the screen; bidi overrides and zero-width characters are replaced too.
    """
    if len(line) > MAX_CHARS:
        line = line[:MAX_CHARS] + "…"
    if "\t" in line:
        line = line.expandtabs(4)
    return _CTRL.sub(_visible, line)


def line_level(text: str) -> Level:
    """The level a reader would see in this line (plog header, or console heuristics)."""
    head = text[:300]
    m = _PLOG_LEVEL.search(head)
    if m and m.start() < 120:
        return _LEVELS.get(m.group(1), Level.NONE)
    if _CONSOLE_ERROR.search(head):
        return Level.ERROR
    if _CONSOLE_WARNING.search(head):
        return Level.WARNING
    return Level.NONE
