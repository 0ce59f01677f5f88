"""The one definition of a line's level, and the byte prefilters derived from it.

The `e`/`w` keys, the red and yellow marking in the panes, the level filter and the level of a
diagnosis event all call `line_level`, so `e` never skips a red line nor stops on a plain one. The
bulk passes that cannot afford a Python call per line use `prefilter`, which is built from the same
vocabulary and is a superset by construction: a line it rejects cannot have that level
(tests/test_levels.py checks this property with generated lines).

Precedence, in the order a reader would apply it:

1. In plog and device files the level is the header's (`[ERROR] MODULE(pid,…):`); header-less
   lines there are wrapped text of the line above and have no level of their own.
2. Elsewhere a plog header near the line start wins (plog lines printed to stdout, prefixed).
3. A logger's own level word wins over words in its message: vLLM and Python logging
   (`ERROR 05-21 …`, `2026-01-05 16:03:27,514 - WARNING - …`), c10 and glog
   (`[rank0]:[E1212 …]`, `[W311 …]`, `W0311 …`, `W NPUStream.cpp:409]`). A `WARNING` logger line
   that mentions an error is a warning; that is what the job printed.
4. Otherwise the content: exception and traceback lines, torch_npu `error code is`, `[Error]:`,
   `ERRxxxxx` headers, CANN codes at line start, crashes, out of memory, the words ERROR/CRITICAL/
   FATAL -> ERROR; WARN/WARNING/`Warning:` -> WARNING. Words are matched whole, so `errors=0`,
   `no error found` and `warning_count` have no level.
"""

from __future__ import annotations

import re
from typing import Iterator, NamedTuple

from npudiag_tui.core.formats.console import clean, strip_prefixes
from npudiag_tui.core.formats.text import CONTROL_SEQUENCES
from npudiag_tui.core.model import Level, Stream

HEAD_CHARS = 300
"""Only the start of a line decides its level (cost per line is capped; levels are at the start)."""

_LEVEL_WORDS = {
    "ERROR": Level.ERROR, "CRITICAL": Level.CRITICAL, "EXCEPTION": Level.ERROR,
    "WARNING": Level.WARNING, "INFO": Level.INFO, "DEBUG": Level.DEBUG, "EVENT": Level.EVENT,
    "TRACE": Level.TRACE,
}
_PLOG_WORDS = "ERROR|WARNING|INFO|DEBUG|EVENT|TRACE|CRITICAL|EXCEPTION"
_PLOG_AT_START = re.compile(rf"\[({_PLOG_WORDS})\] [A-Za-z]")
_PLOG_NEAR_START = 120
# c10 `[E1212 07:22:09.118 …]` / `[W311 …]` (month*100+day, unpadded) and glog `W0311 07:22:09.1 …`;
# the old time-less torch_npu form `W NPUStream.cpp:409] Warning: …`.
_NATIVE_FILE = r"[\w./-]+\.(?:cpp|cc|cxx|h|hpp|py|ts):\d+\]"
_NATIVE_LOGGER = re.compile(rf"^\[?([EWIF])\d{{3,4}} \d\d:\d\d:\d\d|^([EWIF]) +{_NATIVE_FILE}")
_NATIVE_LEVEL = {"E": Level.ERROR, "W": Level.WARNING, "I": Level.INFO, "F": Level.CRITICAL}

# The console vocabulary: (exact regex on the cleaned, prefix-stripped line, the bytes regex every
# exact match contains). The prefilter (ConsolePrefilter) finds the second column, case-insensitive.
_ERROR_VOCABULARY: tuple[tuple[str, str], ...] = (
    (r"\b(?:ERROR|CRITICAL|FATAL)\b", r"error|critical|fatal"),
    (r"Traceback \(most recent|TraceBack \(most", r"traceback"),
    (r"^\s*[\w.]*(?:Error|Exception)\b:", r"error|exception"),
    (r"error code is|\[Error\]", r"error"),
    (r"\bERR\d{5}\b", r"err\d{5}"),
    (r"^\s*E[0-9A-Z]\d{4}[:\[]", r"e[0-9a-z]\d{4}[:\[]"),
    (r"Segmentation fault|[Ss]egfault|core dumped|Fatal Python error|\*\*\* SIG[A-Z]+ received|terminate called",
     r"segmentation|segfault|core dumped|fatal|\*\*\* sig|terminate called"),
    (r"out of memory|OutOfMemoryError", r"out ?of ?memory"),
)
_WARNING_VOCABULARY: tuple[tuple[str, str], ...] = (
    (r"\bWARN(?:ING)?\b|Warning:", r"warn"),
)
_ERROR = re.compile("|".join(f"(?:{exact})" for exact, _ in _ERROR_VOCABULARY))
_WARNING = re.compile("|".join(f"(?:{exact})" for exact, _ in _WARNING_VOCABULARY))

# Needles for the ways a console line can get a level other than its content: a plog header or a
# logger word (both spelled with the level words above), a native logger letter.
_HEADER_NEEDLES = {
    Level.ERROR: rf"error|critical|exception|[EF]\d{{3,4}} \d\d:|[EF] +{_NATIVE_FILE}|\[[EF]:onnxruntime:",
    Level.WARNING: rf"warn|W\d{{3,4}} \d\d:|W +{_NATIVE_FILE}|\[W:onnxruntime:",
}


def _plog_level(head: str, anywhere: bool) -> Level | None:
    m = _PLOG_AT_START.search(head, 0, _PLOG_NEAR_START + 20) if anywhere else _PLOG_AT_START.match(head)
    if m and m.start() < _PLOG_NEAR_START:
        return _LEVEL_WORDS[m.group(1)]
    return None


def line_level(text: str, stream: Stream | None = None) -> Level:
    """The level a reader sees in this line; `stream` None means "not known to be plog"."""
    head = text[:HEAD_CHARS]
    if stream is Stream.PLOG or stream is Stream.DEVICE:
        return _plog_level(head, anywhere=False) or Level.NONE
    level = _plog_level(head, anywhere=True)
    if level is not None:
        return level
    body, pre = strip_prefixes(clean(head))
    if pre.level:
        return Level.parse(pre.level)
    m = _NATIVE_LOGGER.match(body)
    if m:
        return _NATIVE_LEVEL[m.group(1) or m.group(2)]
    if _ERROR.search(body):
        return Level.ERROR
    if _WARNING.search(body):
        return Level.WARNING
    return Level.NONE


class ConsolePrefilter:
    """The console vocabulary's byte prefilter, with the interface of a compiled pattern's
    `search` and `finditer` (`.start()` of each match, in order).

    Not one regex alternation: Python's engine tries every branch at every position without a
    literal lead, a few MB/s in one C call that holds the GIL (the level-marks pass runs beside
    the interface). The literal words are found with `bytes.find` on the lowered bytes (C speed,
    the first of each word per line), the rest with one regex whose alternatives all start with
    a literal, in windows cut at line ends. `bytes.lower` lowers ASCII only, as `re.I` does for
    bytes, and keeps every offset. A match says "this line may have that level"; `line_level`
    decides."""

    def __init__(self, needles: list[str]) -> None:
        literals: list[bytes] = []
        rest: list[str] = []
        for needle in needles:
            for alt in _alternatives(needle):
                lit = _as_literal(alt)
                if lit is not None:
                    literals.append(lit)
                else:
                    assert not re.search(r"\\[DWSB]", alt), alt  # lowered below: no upper-case escape
                    rest.extend(_literal_led(alt.lower()))
        self.literals = tuple(dict.fromkeys(literals))
        # a control character or a colour code (with ESC, caret form or ESC lost) can sit inside a
        # word that the grammar sees whole once console.clean removed it: such lines, rare, go to
        # line_level too
        self.rest = re.compile("|".join(rest).encode() + b"|" + CONTROL_SEQUENCES + rb"|\^\[|\[[0-9;]*[0-9][0-9;]*m")

    def _starts(self, data: bytes, pos: int, endpos: int) -> list[int]:
        out: list[int] = []
        while pos < endpos:  # windows cut at line ends (no match spans one): each C call is short,
            cut = data.rfind(b"\n", pos, min(pos + _WINDOW, endpos)) + 1  # so a scan in a worker
            end = cut if cut > pos and pos + _WINDOW < endpos else endpos  # thread never holds the GIL long
            low = data[pos:end].lower()
            found: set[int] = set()
            for lit in self.literals:
                p = low.find(lit)
                while p >= 0:
                    found.add(p)
                    nl = low.find(b"\n", p + len(lit))
                    if nl < 0:
                        break
                    p = low.find(lit, nl + 1)
            found.update(m.start() for m in self.rest.finditer(low))
            out.extend(sorted(x + pos for x in found))
            pos = end
        return out

    def finditer(self, data: bytes, pos: int = 0, endpos: int | None = None) -> Iterator["_At"]:
        return iter([_At(x) for x in self._starts(data, pos, len(data) if endpos is None else endpos)])

    def search(self, data: bytes, pos: int = 0, endpos: int | None = None) -> "_At | None":
        starts = self._starts(data, pos, len(data) if endpos is None else endpos)
        return _At(starts[0]) if starts else None


class _At(NamedTuple):
    at: int

    def start(self) -> int:
        return self.at


_WINDOW = 1 << 16


def _literal_led(alt: str) -> list[str]:
    """An alternative led by a class of plain characters (`[ef]x`) as one alternative per
    character (`ex`, `fx`): the regex engine skips ahead at C speed only when every alternative
    starts with a literal."""
    m = re.match(r"\[([A-Za-z0-9]+)\]", alt)
    if m is None:
        return [alt]
    return [ch + alt[m.end():] for ch in m.group(1)]


def _alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of a regex fragment (`a|b(?:c|d)` -> `a`, `b(?:c|d)`)."""
    out, depth, cur, i = [], 0, [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            cur.append(pattern[i:i + 2])
            i += 2
            continue
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "|" and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    out.append("".join(cur))
    return out


def _as_literal(alt: str) -> bytes | None:
    """The lowered bytes an alternative matches when it is plain text (escapes of punctuation
    allowed), else None."""
    out, i = [], 0
    while i < len(alt):
        c = alt[i]
        if c == "\\":
            if i + 1 < len(alt) and not alt[i + 1].isalnum():
                out.append(alt[i + 1])
                i += 2
                continue
            return None
        if c in ".^$*+?{}[]|()":
            return None
        out.append(c)
        i += 1
    return "".join(out).lower().encode() or None


def _console_prefilter(level: Level) -> ConsolePrefilter:
    needles = [needle for _, needle in _ERROR_VOCABULARY] + [_HEADER_NEEDLES[Level.ERROR]]
    if level <= Level.WARNING:
        needles += [needle for _, needle in _WARNING_VOCABULARY] + [_HEADER_NEEDLES[Level.WARNING]]
    return ConsolePrefilter(needles)


_PLOG_PREFILTER = {
    Level.WARNING: re.compile(rb"\n\[(?:WARNING|ERROR|CRITICAL|EXCEPTION)\] "),
    Level.ERROR: re.compile(rb"\n\[(?:ERROR|CRITICAL|EXCEPTION)\] "),
}
_CONSOLE_PREFILTER = {lvl: _console_prefilter(lvl) for lvl in (Level.WARNING, Level.ERROR)}


def prefilter(stream: Stream, level: Level) -> tuple["re.Pattern[bytes] | ConsolePrefilter", bool]:
    """(bytes pattern, line_start) for `timeline.scan_matching_lines`: every line that
    `line_level(line, stream) >= level` can hold matches it; `line_level` decides on the hits.

    Plog and device files take a line-start literal (`\\n[ERROR] `) that the regex engine skips to
    at C speed over gigabytes; console output, which has no such grammar, takes the vocabulary.
    """
    lvl = Level.WARNING if level <= Level.WARNING else Level.ERROR
    if stream is Stream.STDOUT:
        return _CONSOLE_PREFILTER[lvl], False
    return _PLOG_PREFILTER[lvl], True
