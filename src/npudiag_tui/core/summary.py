"""A node's summary: the few facts a cluster verdict needs from one machine's logs.

Large jobs keep one log folder per node and a central merge must never read logs, so each node
sends a small JSON object (`"npudiag-summary/1"`) instead: per rank and process the first causal
candidates and the first error, every HCCL timeout grouped by the peer it names, the last log
time (a rank that went silent first is a hang suspect), heartbeat crimer/informer pairs, the rank
table, clock facts and problems. It is capped (`LIMIT` bytes, 64 KB for a node of 16 ranks
whatever the log size): text and lists are cut, and `truncated` says what was cut.

Pure apart from reading the few lines it quotes: the input is an indexed workspace and its
diagnosis (`Workspace.diagnose()`); nothing here imports textual or rich.
"""

from __future__ import annotations

import json
import os
import re
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable

from npudiag_tui.core.diagnosis.engine import anchor_ref
from npudiag_tui.core.formats.timestamps import find_stamp, format_us
from npudiag_tui.core.model import Diagnosis, ErrorEvent, Stream

if TYPE_CHECKING:  # pragma: no cover
    from npudiag_tui.core.workspace import Workspace

SCHEMA = "npudiag-summary/1"
LIMIT = 64 * 1024
# Caps, shrunk step by step by `fit` until the summary is under LIMIT.
CAPS = {"text": 240, "causal": 3, "timeouts": 64, "heartbeats": 32, "candidates": 5, "problems": 20,
        "processes": 64}
ENTRY_KINDS_FIRST = 4  # a process's first error: tier <= 4 (restatements included, as the engine does)
_WORLD = re.compile(r"(?<![A-Za-z])ranks\[(\d+)\]|rankSize\[(\d+)\]|rank_size[=:\[ ]+(\d+)")
_TAG = re.compile(r"tag\[([^\]]{1,120})\]")
_CRIMER = re.compile(r"crimer rank\[([^\]]*)\]")
_INFORMER = re.compile(r"informer rank\[([^\]]*)\]")
_STATUS = re.compile(r"status\[([^\]]*)\]")
_LOCAL = re.compile(r"local rank\[([^\]]*)\]")


def _pid(ev: ErrorEvent) -> int | None:
    return ev.cann_pid or ev.pid


def rank_of_peer(text: str | None) -> int | None:
    """`10.0.0.1/5` or `5` -> 5: a heartbeat names peers as server/rank."""
    if not text:
        return None
    m = re.search(r"(\d+)\s*$", text)
    return int(m.group(1)) if m else None


class _Lines:
    """Reads the quoted lines (at most a few dozen per summary), capped at `cap` characters."""

    def __init__(self, ws: "Workspace") -> None:
        self.ws = ws

    def entry(self, ev: ErrorEvent, cap: int, **extra: Any) -> dict:
        ref = anchor_ref(ev)
        try:
            text = self.ws.indexes[ref.file_id].full_line(ref.line)
        except Exception:  # the file vanished since the scan: keep what the scan saw
            text = ev.text
        code = ev.code or (ev.codes[0] if ev.codes else (
            str(next(iter(ev.numeric.values()))) if ev.numeric else None))
        out = {"time": format_us(ev.time), "kind": ev.kind.value, "code": code, "category": ev.category,
               "stream": ev.stream.value, "text": cut(text, cap), "path": self.ws.files[ref.file_id].display,
               "line": ref.line + 1}
        out.update(extra)
        return out


def cut(text: str, cap: int) -> str:
    """Text capped at `cap` characters; the cut is marked so it is not read as the whole line."""
    return text if len(text) <= cap else text[: max(cap - 1, 0)] + "…"


def world_size(rank_lines: Iterable[str], events: Iterable[ErrorEvent]) -> int | None:
    """The job's rank count, from HCCL init lines (`ranks[16]`) or timeout details (`rankSize[16]`)."""
    best = 0
    for text in list(rank_lines) + [e.text for e in events if e.kind == "timeout"][:200]:
        for m in _WORLD.finditer(text):
            best = max(best, int(next(g for g in m.groups() if g)))
    return best or None


def _rank_table(ws: "Workspace") -> list[dict]:
    """rank, device, pid of every process with a rank (plog first: the CANN pid of the rank)."""
    seen: dict[tuple[int, int | None], dict] = {}
    for src in sorted(ws.sources, key=lambda s: s.stream is not Stream.PLOG):
        if src.rank is None or src.stream is Stream.STDOUT:
            continue
        key = (src.rank, src.pid)
        row = seen.setdefault(key, {"rank": src.rank, "device": src.device, "pid": src.pid})
        if row["device"] is None:
            row["device"] = src.device
    return sorted(seen.values(), key=lambda r: (r["rank"], r["pid"] or 0))


def _last_times(ws: "Workspace") -> tuple[dict[int, int], dict[int, int]]:
    """Last own stamp per rank and per pid (plog and device files; a shared console says
    nothing about one rank)."""
    by_rank: dict[int, int] = {}
    by_pid: dict[int, int] = {}
    for src in ws.sources:
        if src.stream is Stream.STDOUT:
            continue
        ends = [ws.indexes[f.file_id].last_time for f in src.files]
        end = max((t for t in ends if t >= 0), default=-1)
        if end < 0:
            continue
        if src.rank is not None:
            by_rank[src.rank] = max(by_rank.get(src.rank, end), end)
        if src.pid is not None:
            by_pid[src.pid] = max(by_pid.get(src.pid, end), end)
    return by_rank, by_pid


def heartbeat_pairs(ws: "Workspace") -> list[dict]:
    """HCCL heartbeat crimer/informer pairs with their first time and a count. Read from the scan
    hits: the heartbeat lines live in run logs at INFO level, which the event builder does not
    turn into events."""
    beats: dict[tuple, dict] = {}
    for src, scan in zip(ws.sources, ws.scans):
        for hit in scan.hits:
            crimer = _CRIMER.search(hit.text)
            if crimer is None:
                continue
            informer = _INFORMER.search(hit.text) or _LOCAL.search(hit.text)
            status = _STATUS.search(hit.text)
            key = (crimer.group(1), informer.group(1) if informer else None, status.group(1) if status else None)
            b = beats.get(key)
            if b is None:
                st = find_stamp(hit.text, ws.indexes[hit.file_id].year_hint)
                beats[key] = {"crimer": key[0], "crimer_rank": rank_of_peer(key[0]), "informer": key[1],
                              "informer_rank": rank_of_peer(key[1]), "status": key[2],
                              "time": format_us(st.us) if st else None, "reporter_rank": src.rank, "count": 1}
            else:
                b["count"] += 1
    return sorted(beats.values(), key=lambda b: (b["time"] is None, b["time"] or ""))


def _inputs(ws: "Workspace", roots: list[str]) -> dict:
    streams: dict[str, dict[str, int]] = {}
    lines = 0
    for f in ws.files:
        s = ws.source_of_file(f.file_id).stream.value
        st = streams.setdefault(s, {"files": 0, "bytes": 0})
        st["files"] += 1
        st["bytes"] += f.size
        lines += ws.indexes[f.file_id].line_count
    return {"roots": [os.path.abspath(r) for r in roots], "files": len(ws.files), "bytes": ws.total_bytes,
            "lines": lines, "streams": streams, "skipped": len(ws.discovery.skipped)}


def _clock(ws: "Workspace", now: float) -> dict:
    """What the merge can use to align this node with others: the host's zone offset (log stamps
    are naive local time), the host clock when the summary was made (compared with the merging
    machine's clock when both run at once, as under Ray), and the span of the stamps."""
    firsts = [i.first_time for i in ws.indexes if i.first_time >= 0]
    lasts = [i.last_time for i in ws.indexes if i.last_time >= 0]
    lt = time.localtime(now)
    return {"utc_offset_s": lt.tm_gmtoff, "generated_at_utc": round(now, 3),
            "generated_at_local": time.strftime("%Y-%m-%dT%H:%M:%S", lt),
            "first_log_time": format_us(min(firsts)) if firsts else None,
            "last_log_time": format_us(max(lasts)) if lasts else None}


def build_summary(ws: "Workspace", diag: Diagnosis, node: str, roots: list[str],
                  now: Callable[[], float] = time.time, caps: dict[str, int] | None = None) -> dict:
    """The node summary of an indexed workspace and its diagnosis (before fitting to LIMIT)."""
    caps = dict(CAPS, **(caps or {}))
    lines = _Lines(ws)
    events = [e for e in diag.events if not e.benign and e.kind.tier < 9]
    truncated: list[str] = []
    anchor = None
    a = diag.anchor
    if a is not None:
        anchor = lines.entry(a, caps["text"], rank=a.rank, pid=_pid(a), summary=cut(diag.summary, caps["text"]),
                             why=diag.why, confidence=diag.confidence, remote_rank=a.remote_rank,
                             suspect_rank=a.suspect_rank)
        anchor["category"] = diag.category
    candidates = [lines.entry(c.event, caps["text"], rank=c.event.rank, pid=_pid(c.event), why_not=c.why_not)
                  for c in diag.candidates[:caps["candidates"]]]
    rank_last, pid_last = _last_times(ws)

    # per (rank, pid): first error, first causal candidates (not stale, not repeats), timeouts
    procs: dict[tuple, dict] = {}
    for ev in events:
        key = (ev.rank, _pid(ev))
        p = procs.get(key)
        if p is None:
            p = procs[key] = {"rank": ev.rank, "pid": _pid(ev), "first_error": None, "causal": [], "timeouts": 0,
                              "_ncausal": 0}
        if p["first_error"] is None and ev.kind.tier <= ENTRY_KINDS_FIRST:
            p["first_error"] = ev
        if ev.kind == "timeout":
            p["timeouts"] += 1
        if ev.kind.tier <= 1 and not ev.stale and ev.secondary != "repeat":
            p["_ncausal"] += 1
            if len(p["causal"]) < caps["causal"]:
                p["causal"].append(ev)
    processes = []
    for (rank, pid), p in sorted(procs.items(), key=lambda kv: (kv[0][0] is None, kv[0][0] or 0, kv[0][1] or 0)):
        if p["first_error"] is None and not p["causal"] and not p["timeouts"]:
            continue  # only wrappers and tables: nothing of its own to tell
        last = pid_last.get(pid) if pid is not None else None
        if last is None and rank is not None:
            last = rank_last.get(rank)
        processes.append({
            "rank": rank, "pid": pid,
            "first_error": lines.entry(p["first_error"], caps["text"]) if p["first_error"] is not None else None,
            "causal": [lines.entry(e, caps["text"], anchor=e is a) for e in p["causal"]],
            "causal_total": p["_ncausal"], "timeouts": p["timeouts"], "last_log_time": format_us(last)})
    if len(processes) > caps["processes"]:
        truncated.append(f"processes: {len(processes)}, first {caps['processes']} kept")
        processes = processes[:caps["processes"]]

    # every HCCL timeout, grouped per (rank, pid, code, named peer): first one quoted, the rest counted
    groups: dict[tuple, dict] = {}
    for ev in events:
        if ev.kind != "timeout":
            continue
        code = ev.codes[0] if ev.codes else None
        key = (ev.rank, _pid(ev), ev.remote_rank)
        g = groups.get(key)
        if g is None:
            tag = _TAG.search(ev.text)
            groups[key] = {"ev": ev, "count": 1, "last": ev.time, "tag": tag.group(1) if tag else None, "code": code}
        else:
            g["count"] += 1
            g["code"] = g["code"] or code  # the plog line and the console's EI0002 for one wait
            if ev.time is not None and (g["last"] is None or ev.time > g["last"]):
                g["last"] = ev.time
    timeouts = []
    for g in groups.values():
        ev = g["ev"]
        t = lines.entry(ev, caps["text"], rank=ev.rank, pid=_pid(ev), remote_rank=ev.remote_rank,
                        suspect=ev.suspect_rank, tag=g["tag"], count=g["count"], last_time=format_us(g["last"]))
        t["code"] = t["code"] or g["code"]
        timeouts.append(t)
    if len(timeouts) > caps["timeouts"]:
        truncated.append(f"timeouts: {len(timeouts)} groups, first {caps['timeouts']} kept")
        timeouts = timeouts[:caps["timeouts"]]

    heartbeats = heartbeat_pairs(ws)
    if len(heartbeats) > caps["heartbeats"]:
        truncated.append(f"heartbeats: {len(heartbeats)} pairs, first {caps['heartbeats']} kept")
        heartbeats = heartbeats[:caps["heartbeats"]]

    problems = [cut(p, caps["text"]) for p in ws.problems[:caps["problems"]]]
    if len(ws.problems) > caps["problems"]:
        truncated.append(f"problems: {len(ws.problems)}, first {caps['problems']} kept")
    rank_lines = [ln for sc in ws.scans for ln in sc.rank_lines[:50]]
    return {
        "schema": SCHEMA,
        "node": node,
        "world_size": world_size(rank_lines, events),
        "inputs": _inputs(ws, roots),
        "clock": _clock(ws, now()),
        "anchor": anchor,
        "candidates": candidates,
        "ranks": [dict(r, last_log_time=format_us(rank_last.get(r["rank"])),
                       role=next((x.role for x in diag.ranks if x.rank == r["rank"]), None))
                  for r in _rank_table(ws)],
        "processes": processes,
        "timeouts": timeouts,
        "heartbeats": heartbeats,
        "problems": problems,
        "truncated": truncated,
    }


# (cap, smaller value) steps, tried in order until the summary fits
_SHRINK = [("text", 160), ("timeouts", 32), ("causal", 2), ("text", 100), ("heartbeats", 8), ("candidates", 3),
           ("timeouts", 16), ("causal", 1), ("text", 60), ("processes", 32), ("problems", 5), ("timeouts", 4),
           ("heartbeats", 2), ("candidates", 1), ("processes", 16), ("text", 30)]


def node_summary(ws: "Workspace", diag: Diagnosis, node: str, roots: list[str],
                 now: Callable[[], float] = time.time, limit: int = LIMIT) -> dict:
    """`build_summary`, shrunk until its JSON is at most `limit` bytes; what was cut is listed in
    `truncated` (a cut is never silent)."""
    caps = dict(CAPS)
    got = build_summary(ws, diag, node, roots, now, caps)
    steps = iter(_SHRINK)
    cuts: list[str] = []
    while len(dump(got)) > limit:
        step = next(steps, None)
        if step is None:
            got["truncated"].append("still over the size limit after every cut")
            break
        name, value = step
        if caps[name] <= value:
            continue
        caps[name] = value
        cuts.append(f"{name} capped at {value} to stay under {limit} bytes")
        got = build_summary(ws, diag, node, roots, now, caps)
        got["truncated"].extend(cuts)
    return got


def dump(summary: dict) -> bytes:
    """The summary as compact UTF-8 JSON: what is sent, saved and size-checked."""
    return json.dumps(summary, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def default_node_name() -> str:
    import socket

    return socket.gethostname() or "unknown-node"
