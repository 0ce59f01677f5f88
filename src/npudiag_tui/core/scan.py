"""Error-candidate scan that rides on the indexer's single pass over the bytes.

Plog and device streams follow a strict grammar, so a C-speed regex over each chunk finds the
`[ERROR]`/`[WARNING]` lines (and heartbeat/rank lines) without touching the INFO noise in
Python. Console output has no such grammar: every line is looked at, which is affordable
because console logs are small next to the plogs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from typing import TYPE_CHECKING, Iterator

from npudiag_tui.core.formats.bounded import MAX_GRAMMAR_CHARS
from npudiag_tui.core.formats.codes import CODE_PATTERN
from npudiag_tui.core.formats.console import clean, strip_prefixes
from npudiag_tui.core.model import Stream

if TYPE_CHECKING:  # pragma: no cover
    from npudiag_tui.core.index import Chunk

# A literal "\n[" prefix lets the regex engine skip ahead at C speed; the chunk's first line
# is checked separately with match(). No group and no line tail in the pattern: either one
# costs the engine its literal-prefix search (bench/README.md), so the
# line end is found with bytes.find.
_PLOG_HIT = re.compile(rb"\n\[(?:ERROR|WARNING|CRITICAL|EXCEPTION)\]")
_PLOG_HIT_FIRST = re.compile(rb"\[(?:ERROR|WARNING|CRITICAL|EXCEPTION)\]")
# Plog lines pasted into a report keep an envelope before the header (a Markdown quote, a fence's
# backtick): rare in real plogs, so a literal find of the envelope costs nothing on a big tree.
_ENVELOPED_HEAD = re.compile(rb"(?:> ?|`{1,3})\[(?:ERROR|WARNING|CRITICAL|EXCEPTION)\]")
# searched by the envelope's own characters, and only in files whose first 64 KB show one: each
# search is a pass over the bytes, and files written by CANN itself never carry an envelope
_ENVELOPE_NEEDLES = (b"> [", b">[", b"`[")
# A WARNING is kept only when it may carry a real error: causes are sometimes printed at
# WARNING level (c10/NPU warnings with a code), other warnings are context.
_WARNING_WORTH = re.compile(CODE_PATTERN.encode() + rb"|error code|ErrCode|rror from device|result = \d|errno\[|ret\[|rror cqe")
_EXTRA_NEEDLES = (b"HeartbeatAbnormal", b"Cluster Exception Location", b"error cqe")
_RANK_NEEDLES = (b"HcclCommInit", b"rankSize", b"RankID:")
# Console lines that can matter: anything mentioning an error, a code, a crash or a timeout.
# Searched as lower-case literals with str.find (C speed); one big regex alternation was 20x slower.
_CONSOLE_KEYS = (
    "rror", "err0", "exception", "traceback", "warning", "fail", "timeout", "time out", "timed out",
    "out of memory", "outofmemory", "segmentation fault", "segfault", "terminate called", "sigsegv", "sigabrt", "sigbus", "sigkill",
    "sigterm", "core dumped", "killed", "fatal", "critical", "[pid: ", "extend info", "assert",
    "shared object", "no module named", "set_env.sh", "rankid:", "hcclcomminit", "times out",
    "is invalid", "exception info:", "message info[", "other info[", ": not found", "command not found",
)
_CONSOLE_CODE = re.compile(CODE_PATTERN)
# a call that prints its own aclError result and no error word (`RegisterAscendBinary aiv ret
# 107000`); the literal head lets the engine skip to each "ret"
_CONSOLE_RESULT = re.compile(r"ret(?:Code)?[ =:]+[1-5]\d{5}(?!\d|\.\d)")
# an exception printed with an empty first line: its message is the lines after it, which may
# hold no error word at all (`MLIRCompilationError: ` then a tool's own complaint)
_EMPTY_MESSAGE = re.compile(r"(?:Error|Exception):[ \t]*\r?\n")
EMPTY_MESSAGE_LINES = 8
# native stack frames ("#3 0x..."), at line starts: searched in "\n" + text, whose literal
# prefix is found at C speed (a (?m)^ pattern has none: a fifth of the console scan)
_CONSOLE_FRAME = re.compile(r"\n#\d+\s+0x")
# glog / c10 lines at level E or F (`E0419 16:59:47.8 …`, `[E806 06:36:53 …`): their level is the
# letter, and the words may hold no error vocabulary at all (formats.levels reads them the same way)
_CONSOLE_NATIVE = re.compile(r"[EF]\d{3,4} \d\d:\d\d:\d\d")  # a leading set: the engine skips to E/F


def _native_line_starts(text: str) -> Iterator[int]:
    """Where the lines that open with a glog/c10 E/F stamp start (`E0419 …` or `[E806 …`)."""
    for m in _CONSOLE_NATIVE.finditer(text):
        a = m.start()
        if a > 0 and text[a - 1] == "[":
            a -= 1
        if a == 0 or text[a - 1] == "\n":
            yield a
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
def _prefixed_continuation(line: str) -> bool:
    """An indented line behind a launcher or rank prefix (`[rank0]:`, `(Worker pid=1) ERROR …`):
    launchers prefix every line of a block, so the indent that marks a continuation follows it."""
    if line[:1] not in ("[", "(", ">", "`", "E"):  # a prefix, or an envelope (quote, fence, runner) around one
        return False
    body, _ = strip_prefixes(clean(line[:512]))
    return body[:1] in (" ", "\t") and bool(body.strip())


MAX_HIT_CHARS = MAX_GRAMMAR_CHARS  # per-line work is capped; the full line stays reachable via the index


@dataclass
class LineHit:
    file_id: int
    line: int
    text: str


@dataclass
class SourceScan:
    """What the scan found in one source (all its files)."""

    stream: Stream
    hits: list[LineHit] = field(default_factory=list)
    rank_lines: list[str] = field(default_factory=list)
    has_info: bool = False
    max_hits: int = 200_000
    run_log: bool = False  # heartbeat lines live in run logs at INFO level
    rank_found: bool = False
    rank_bytes: int = 0
    enveloped_files: dict[int, bool] = field(default_factory=dict)  # files pasted with line envelopes

    def feed(self, file_id: int, chunk: "Chunk") -> None:
        if self.stream is Stream.STDOUT:
            self._feed_console(file_id, chunk.bytes(), chunk.first_line)
        else:
            self._feed_plog(file_id, chunk)

    def _add(self, file_id: int, line: int, raw: bytes) -> None:
        if len(self.hits) < self.max_hits:
            self.hits.append(LineHit(file_id, line, raw[:MAX_HIT_CHARS].decode("utf-8", "replace").rstrip("\r")))

    def _feed_plog(self, file_id: int, chunk: "Chunk") -> None:
        data, n = chunk.data, chunk.end
        if not self.has_info and (data.find(b"[INFO]", 0, min(n, 65536)) >= 0
                                  or data.find(b"[DEBUG]", 0, min(n, 65536)) >= 0):
            self.has_info = True
        positions: list[tuple[int, int]] = []  # (line start, line end)
        first = 3 if data.startswith(b"\xef\xbb\xbf") else 0  # a UTF-8 BOM before the first header
        starts = [0] if _PLOG_HIT_FIRST.match(data, first, n) or _ENVELOPED_HEAD.match(data, first, n) else []
        starts.extend(m.start() + 1 for m in _PLOG_HIT.finditer(data, 0, n))
        enveloped: set[int] = set()
        if chunk.first_line == 0:  # a pasted file shows its envelope from the start
            self.enveloped_files[file_id] = any(data.find(nd, 0, min(n, 65536)) >= 0 for nd in _ENVELOPE_NEEDLES)
        for needle in (_ENVELOPE_NEEDLES if self.enveloped_files.get(file_id) else ()):
            p = data.find(needle, 0, n)
            while p >= 0:
                s = data.rfind(b"\n", 0, p) + 1
                if p - s <= 3 and s not in enveloped and _ENVELOPED_HEAD.match(data, s, n):
                    enveloped.add(s)
                p = data.find(needle, p + 1, n)
        if enveloped:
            starts = sorted(set(starts) | enveloped)
        for s in starts:
            e = data.find(b"\n", s, n)
            e = n if e < 0 else e
            if data.find(b"[WARNING]", s, s + 13) >= 0 and not _WARNING_WORTH.search(data, s, e):
                continue
            positions.append((s, e))
            # header-less lines right after an error belong to it (wrapped text, device blocks)
            for _ in range(64):
                if e + 1 >= n or data[e + 1] == 0x5B:  # next line starts with '[' (a header)
                    break
                nxt = data.find(b"\n", e + 1, n)
                nxt = n if nxt < 0 else nxt
                if nxt > e + 1:
                    positions.append((e + 1, nxt))
                e = nxt
        for needle in (_EXTRA_NEEDLES if self.run_log else ()):
            p = data.find(needle, 0, n)
            while p >= 0:
                s = data.rfind(b"\n", 0, p) + 1
                e = data.find(b"\n", p, n)
                e = n if e < 0 else e
                positions.append((s, e))
                p = data.find(needle, e, n)
        if not self.rank_found and self.rank_bytes < (8 << 20):
            self.rank_bytes += n
            for needle in _RANK_NEEDLES:
                p = data.find(needle, 0, n)
                if p >= 0:
                    s = data.rfind(b"\n", 0, p) + 1
                    e = data.find(b"\n", p, n)
                    line = data[s:e if e >= 0 else n][:2000].decode("utf-8", "replace")
                    self.rank_lines.append(line)
                    if needle != b"rankSize":
                        self.rank_found = True
        if not positions:
            return
        positions = sorted(set(positions))
        line_of = chunk.line_of
        for s, e in positions:
            self._add(file_id, line_of(s), data[s:e])

    def _feed_console(self, file_id: int, data: bytes, first_line: int) -> None:
        """Console lines worth a look: one regex pass over the whole chunk (C speed), then the
        indented lines that continue a kept line (CANN blocks, tables, device text)."""
        text = data.decode("utf-8", "replace")
        if not self.has_info and "INFO" in text:
            self.has_info = True
        starts: list[int] = []
        # keys are ASCII: lower the text only where an ASCII letter is (str.lower() makes `İ` two
        # characters, and its offsets would point into the wrong line)
        low = text.lower() if text.isascii() else text.translate(_ASCII_LOWER)
        for key in _CONSOLE_KEYS:
            p = low.find(key)
            while p >= 0:
                starts.append(p)
                nl = low.find("\n", p)
                if nl < 0:
                    break
                p = low.find(key, nl + 1)
        for m in _CONSOLE_CODE.finditer(text):
            a, b = m.start(), m.end()
            if (a == 0 or not (text[a - 1].isalnum() or text[a - 1] == "_")) and (
                    b == len(text) or not text[b].isalnum()):
                starts.append(a)
        starts.extend(m.start() for m in _CONSOLE_RESULT.finditer(text))
        for m in _EMPTY_MESSAGE.finditer(text):
            p = m.end()
            for _ in range(EMPTY_MESSAGE_LINES):
                if p >= len(text):
                    break
                starts.append(p)
                nl = text.find("\n", p)
                p = len(text) if nl < 0 else nl + 1
        starts.extend(m.start() for m in _CONSOLE_FRAME.finditer("\n" + text))  # match start = line start
        starts.extend(_native_line_starts(text))
        starts.sort()
        kept: list[tuple[int, int]] = []  # (line, offset where it starts): lines are cut out only here
        pos = line = 0
        last = -1
        for start in starts:
            line += text.count("\n", pos, start)
            pos = start
            if line != last:
                kept.append((line, text.rfind("\n", 0, start) + 1))
                last = line
        out = self.hits
        prev = -10
        size = len(text)
        for i, s in kept:
            if i <= prev:
                continue
            j = i
            while s < size:
                e = text.find("\n", s)
                e = size if e < 0 else e
                probe = text[s: min(e, s + MAX_HIT_CHARS)]
                if j != i and not (probe[:1] in (" ", "\t") and probe.strip()) and not _prefixed_continuation(probe):
                    break
                if len(out) < self.max_hits:
                    out.append(LineHit(file_id, first_line + j, probe.rstrip("\r")))
                prev = j
                j += 1
                s = e + 1
