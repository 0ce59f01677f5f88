"""Which rank (and device) each source belongs to: the one place that writes `Source.rank`.

Run after the index pass, after live growth and before a diagnosis (`Workspace.resolve_ranks`),
from what the scan kept, in this order:

1. the HCCL init lines (`rank[n]`, `deviceLogicId[n]`) and `RankID:n` lines of a source;
2. a device log belongs to the rank of the plog with the same pid, and gives that plog its device;
3. with the events of a diagnosis: an event that names both a CANN pid and a rank (a torch_npu
   error header `(PID:p, Device:d, RankID:r)`, a CANN block on a ranked console) gives the
   pid's sources that rank.

Only a missing rank or device is ever filled in, so resolving again is harmless.
"""

from __future__ import annotations

import re
from typing import Sequence

from npudiag_tui.core.model import ErrorEvent, Source, Stream
from npudiag_tui.core.scan import SourceScan

_HCCL_RANK = re.compile(r"(?<![A-Za-z])rank\[(\d+)\]")
_HCCL_DEV = re.compile(r"deviceLogicId\[(\d+)\]")
_RANKID = re.compile(r"RankID:(\d+)")


def resolve_ranks(sources: Sequence[Source], scans: Sequence[SourceScan],
                  events: Sequence[ErrorEvent] = ()) -> None:
    """Fill in `rank` and `device` of every source from the scans (indexed by source id) and,
    when given, the events built from them."""
    for src in sources:
        _from_rank_lines(src, scans[src.source_id].rank_lines)
    by_pid = {s.pid: s for s in sources if s.stream is Stream.PLOG and s.pid is not None}
    for src in sources:
        if src.stream is Stream.DEVICE and src.pid in by_pid:
            host = by_pid[src.pid]
            if src.rank is None:
                src.rank = host.rank
            if host.device is None:
                host.device = src.device
    pid_rank = event_pid_ranks(events)
    for src in sources:
        if src.rank is None and src.pid in pid_rank:
            src.rank = pid_rank[src.pid]  # type: ignore[index]


def _from_rank_lines(src: Source, lines: list[str]) -> None:
    for line in lines:
        if src.rank is None and ("HcclCommInit" in line or "rankSize" in line):
            m = _HCCL_RANK.search(line)
            if m:
                src.rank = int(m.group(1))
            d = _HCCL_DEV.search(line)
            if d and src.device is None:
                src.device = int(d.group(1))
        if src.rank is None and src.stream is not Stream.STDOUT:
            m = _RANKID.search(line)
            if m:
                src.rank = int(m.group(1))


def event_pid_ranks(events: Sequence[ErrorEvent]) -> dict[int, int]:
    """CANN pid -> rank, from the events that name both (the first one wins)."""
    out: dict[int, int] = {}
    for ev in events:
        if ev.cann_pid is not None and ev.rank is not None:
            out.setdefault(ev.cann_pid, ev.rank)
    return out
