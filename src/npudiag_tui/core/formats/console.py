"""Console output grammars: transport noise, launcher prefixes, torch_npu blocks, tracebacks.

DOMAIN.md 2.3-2.5 and 2.8. The functions here only take a line apart; deciding what a line
means for the diagnosis is the job of `core.diagnosis.events`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from npudiag_tui.core.formats.text import CONTROL_RE

# With ESC (or its caret form) any SGR; with ESC lost, demand a digit so `[memory.cpp:608]` survives.
_ANSI = re.compile(r"(?:\x1b|\^\[)\[[0-9;]*m|(?<![\w\]])\[[0-9;]*[0-9][0-9;]*m")
# One control policy (formats.text): grammars see the text with those characters removed.
_CTRL = CONTROL_RE
_RAY_PREFIX = re.compile(r"^\((\w[\w.-]*(?: [\w=.-]+)*?) pid=(\d+)(?:, ip=([\d.]+))?\) ")
_REPEATED = re.compile(r"^\[repeated (\d+)x across cluster\] ")
_VLLM_LOGGER = re.compile(
    r"^(DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.\d+)? \[?([\w./-]+\.py):(\d+)\] ?"
)
_C10_PREFIX = re.compile(r"^\[rank(\d+)\]:")
_PDSH = re.compile(r"^([\w.-]+-\d+): ")
_MARKDOWN = re.compile(r"^> ?")
_PYLOG_PREFIX = re.compile(
    r"^\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.:]\d+)?\]?\s*(?:-\s*)?(?:[\w.]+\s*-\s*)?"
    r"(DEBUG|INFO|WARNING|ERROR|CRITICAL)\s*(?:-\s*)?"
)

EXCEPTION_RE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning)): ?(.*)$")
TORCH_NPU_FUNC_RE = re.compile(
    r"(?:(.+?):)?(\S+?):(\d+) (NPU|OPS|HCCL) function error: (.*?), error code is (\d+)"
)
TORCH_HEADER_RE = re.compile(
    r"\[ERROR\] (\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d) \(PID:(\d+), Device:(-?\d+), RankID:(-?\d+)\) (ERR\d{5}) (\w+) ?(.*)"
)
ERROR_TEXT_RE = re.compile(r"^\[Error\]: ?(.*)")
# CANN error-manager block, three generations (DOMAIN.md 2.3 d)
CANN_GEN1 = re.compile(r"^([EW][0-9A-Z]\d{4}): (\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3}) +(.*)$")
CANN_GEN2 = re.compile(r"^([EW][0-9A-Z]\d{4}): \[PID: (\d+)\] (\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3}) ?(.*)$")
CANN_GEN3 = re.compile(
    r"^([EW][0-9A-Z]\d{4})?\[PID: (\d+)\] (\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3}) ?([\w ]*?)\(([EW][0-9A-Z]\d{4})\): *(.*)$"
)
CANN_BANNER = re.compile(r"^([EW][0-9A-Z]\d{4}): (?:Inner Error!|Internal error!)\s*$")
CANN_INLINE = re.compile(
    r"detail:\s*([EW][0-9A-Z]\d{4}): (?:\[PID: (\d+)\] )?(\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3}) ?(.*)$"
)
TRACEBACK_RE = re.compile(r"^Traceback \(most recent call last\):")
CANN_TRACEBACK_RE = re.compile(r"^\s*TraceBack \(most recent call last\):")
FRAME_RE = re.compile(r'^\s+File "(.+)", line (\d+), in (.+)$')
CARET_RE = re.compile(r"^\s*[\^~]+\s*$")
DEVICE_EXC_RE = re.compile(
    r"The error from device\((?:chipId:(\d+), dieId:(\d+)|(\d+))\), serial number is (\d+), "
    r"there is an? (?:exception of )?(\w+) error, core id is (\d+), error code = (0x[0-9a-fA-F]+)"
)
ERRORSTR_RE = re.compile(r"errorStr: ?(.*?)(?:\s+\w+_error\d info:|$)")


@dataclass
class Prefix:
    """What the launcher and logger put in front of the real text."""

    worker: str | None = None
    pid: int | None = None
    ip: str | None = None
    rank: int | None = None
    level: str | None = None  # logger level (vLLM/Python logging/c10)
    logger_time: str | None = None
    logger_file: str | None = None
    repeated: int | None = None
    host: str | None = None
    extra: dict[str, str] = field(default_factory=dict)


def clean(line: str) -> str:
    """Remove transport noise: ANSI colours (with or without ESC), CR-redrawn progress bars,
    Markdown quoting and other control characters."""
    if "\r" in line:
        parts = [p for p in line.split("\r") if p.strip()]
        line = parts[-1] if parts else ""
    if "[" in line and ("m" in line):
        line = _ANSI.sub("", line)
    if line.startswith(">"):
        line = _MARKDOWN.sub("", line, count=1)
    if _CTRL.search(line):
        line = _CTRL.sub("", line)
    return line


def strip_prefixes(line: str) -> tuple[str, Prefix]:
    """Strip nested launcher/logger prefixes and return (text, what they said)."""
    pre = Prefix()
    for _ in range(6):
        m = _RAY_PREFIX.match(line)
        if m:
            name = m.group(1)
            pre.worker = pre.worker or name.split(" ")[0]
            rank = re.search(r"rank=(\d+)", name)
            if rank and pre.rank is None:
                pre.rank = int(rank.group(1))
            if pre.pid is None:
                pre.pid = int(m.group(2))
            pre.ip = pre.ip or m.group(3)
            line = line[m.end():]
            continue
        m = _REPEATED.match(line)
        if m:
            pre.repeated = int(m.group(1))
            line = line[m.end():]
            continue
        m = _VLLM_LOGGER.match(line)
        if m:
            pre.level = pre.level or m.group(1)
            pre.logger_time = pre.logger_time or f"{m.group(2)} {m.group(3)}"
            pre.logger_file = f"{m.group(4)}:{m.group(5)}"
            line = line[m.end():]
            continue
        m = _C10_PREFIX.match(line)
        if m:
            if pre.rank is None:
                pre.rank = int(m.group(1))
            line = line[m.end():]
            if line.startswith(" "):  # torchrun writes "[rank0]: text"; keep deeper indents
                line = line[1:]
            continue
        m = _PYLOG_PREFIX.match(line)
        if m:
            pre.level = pre.level or m.group(1)
            line = line[m.end():]
            continue
        m = _PDSH.match(line)
        if m and pre.host is None:
            pre.host = m.group(1)
            line = line[m.end():]
            continue
        break
    return line, pre


def console_rank(line: str) -> int | None:
    """The rank a console line names in its launcher prefix (`[rank3]:`, Ray `rank=3`), if any."""
    return strip_prefixes(clean(line))[1].rank


def channel(pre: Prefix) -> tuple | None:
    """The interleaving channel of a console line (ranks share one console line by line)."""
    if pre.rank is None and pre.pid is None and pre.worker is None and pre.host is None:
        return None
    return (pre.host, pre.worker, pre.pid, pre.rank)


def is_continuation(text: str) -> bool:
    """An indented or header-less line that belongs to the event above it."""
    return bool(text) and (text[0] in " \t" or CARET_RE.match(text) is not None)
