"""Host plog, device log and MindSpore plog-like line grammars (docs/formats.md, "Plog lines").

Headers are parsed strictly, the tail leniently: a line that does not match is simply not a
plog header (a wrapped continuation or a table row) and is never dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from npudiag_tui.core.formats.timestamps import TS6

# level, module, pid, procname, TS6, rest. A space after the colon appears in exported device logs;
# a space before it, or none after the level, in copies of plog lines (troubleshooting pages:
# `[ERROR]RUNTIME(44525,python) :2024-01-22-04:26:23.625.816 …`).
PLOG_RE = re.compile(
    r"\[(ERROR|WARNING|INFO|DEBUG|EVENT|TRACE)\] ?([A-Z][A-Z0-9_]*)\((-?\d+),([^)]*)\) ?: ?" + TS6 + r" ?(.*)$"
)
# MindSpore: [LEVEL] MODULE(pid,hex tid,procname):TS6 [path:line] Func] message; its Python side
# (and older releases) write `pid:tid` and no function: `[WARNING] ME(1049:2814,MainProcess):TS6 [x.py:357] msg`
MINDSPORE_RE = re.compile(
    r"\[(ERROR|WARNING|INFO|DEBUG|CRITICAL|EXCEPTION)\] (\w+)\((\d+)[,:]([0-9a-f]+),([^)]*)\):" + TS6
    + r" \[([^\]]+):(\d+)\] (?:([\w:~]+(?:\(\))?)\] ?)?(.*)$"
)
PLOG_HEAD_BYTES = re.compile(rb"^\[(?:ERROR|WARNING|INFO|DEBUG|EVENT|TRACE)\] ?[A-Z][A-Z0-9_]*\(-?\d+,[^)]*\) ?: ?\d{4}-",
                             re.M)

_FILE_LINE = re.compile(r"^\[([\w./+-]+):(\d+)\]\s*")
_HCCL_TAGS = re.compile(r"^\[(\d+)\]((?:\[[^\]]*\])*)")
_HCCP = re.compile(r"^tid:(\d+),(\w+)\((\d+)\)\s*:\s*")
_NNOP = re.compile(r"^\[NNOP\]\[(\w+)\]\[(\d+)\]\s*")
_GLUED = re.compile(r"^(\d+) (\w+):")
_OTHER_TID = re.compile(r"^(?:>>> )?[\[(][Tt]id:(\d+)[\])]\s*")
_FUNC_TID = re.compile(r"^\[(\w+)\]\[[Tt]id:(\d+)\]\s*")  # device daemons: [Func][tid:N]


@dataclass
class PlogLine:
    level: str
    module: str
    pid: int
    procname: str
    ts: tuple[int, ...]  # y, m, d, H, M, S, ms, us as ints
    source_file: str | None
    source_line: int | None
    tid: int | None
    func: str | None
    tags: list[str]
    message: str
    mindspore: bool = False


def parse_plog(line: str) -> PlogLine | None:
    """Parse one plog/device/MindSpore line; None when it has no such header.

    The header may be preceded by a worker prefix or noise (console mode, glued progress bars),
    so the search is unanchored but starts at the first `[`.
    """
    start = line.find("[")
    if start < 0:
        return None
    m = MINDSPORE_RE.search(line, start)
    if m:
        g = m.groups()
        ts = tuple(int(x) for x in g[5:13])
        return PlogLine(g[0], g[1], int(g[2]), g[4], ts, g[13], int(g[14]), None, g[15], [], g[16],
                        mindspore=True)
    m = PLOG_RE.search(line, start)
    if m:
        g = m.groups()
        ts = tuple(int(x) for x in g[4:12])
        rest = g[12]
        src_file = src_line = tid = func = None
        tags: list[str] = []
        fm = _FILE_LINE.match(rest)
        if fm:
            src_file, src_line = fm.group(1), int(fm.group(2))
            rest = rest[fm.end():]
        module = g[1]
        if module == "HCCL" or module == "HCCP" and rest.startswith("["):
            hm = _HCCL_TAGS.match(rest)
            if hm:
                tid = int(hm.group(1))
                tags = re.findall(r"\[([^\]]*)\]", hm.group(2))
                rest = rest[hm.end():]
        elif module == "HCCP":
            hm = _HCCP.match(rest)
            if hm:
                tid, func = int(hm.group(1)), hm.group(2)
                rest = rest[hm.end():]
        elif module == "OP":
            nm = _NNOP.match(rest)
            if nm:
                func, tid = nm.group(1), int(nm.group(2))
                rest = rest[nm.end():]
        else:
            gm = _GLUED.match(rest)
            if gm:
                tid, func = int(gm.group(1)), gm.group(2)
                rest = rest[gm.end():]
            else:
                om = _OTHER_TID.match(rest)
                fm2 = None if om else _FUNC_TID.match(rest)
                if om:
                    tid = int(om.group(1))
                    rest = rest[om.end():]
                elif fm2:
                    func, tid = fm2.group(1), int(fm2.group(2))
                    rest = rest[fm2.end():]
        return PlogLine(g[0], module, int(g[2]), g[3], ts, src_file, src_line, tid, func, tags, rest)
    return None


def looks_like_plog(sample: bytes, min_ratio: float = 0.5) -> bool:
    """Content sniffing: most non-blank lines of the sample carry a plog header."""
    lines = [ln for ln in sample.split(b"\n")[:200] if ln.strip()]
    if not lines:
        return False
    hits = sum(1 for ln in lines if PLOG_HEAD_BYTES.match(ln))
    return hits >= max(1, int(len(lines) * min_ratio))
