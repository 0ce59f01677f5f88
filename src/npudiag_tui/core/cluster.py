"""A cluster verdict from node summaries (`"npudiag-summary/1"` in, `"npudiag-cluster/1"` out).

When a large job dies, every node holds its own logs, all ranks but one report HCCL timeouts, and
the root rank is on one node among hundreds. Each node sends a summary (`core/summary.py`); this
module merges them without reading any log: one pass over the summaries keeps a few small
records per rank, then the root is chosen as the node engine chooses an anchor (the earliest
causal error by aligned time, a timeout only when nothing causal explains it, and then the peer
the timeouts name or the rank that went silent first). Linear in the number of ranks.

Clocks: stamps are each node's naive local time. Nodes are aligned to UTC with their zone
offsets, then by the evidence the summaries allow: the HCCL timeouts of one collective fire at
about the same moment on every waiting rank (HCCL_EXEC_TIMEOUT after the same hang), so the
median timeout time of a tag per node gives each node's offset from a reference node; a Ray
run adds the driver's receive time beside the node's own clock.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from statistics import median
from typing import Iterable

from npudiag_tui.core.formats.timestamps import format_us, to_us
from npudiag_tui.core.model import EventKind

SCHEMA = "npudiag-cluster/1"
SUMMARY_SCHEMA = "npudiag-summary/1"
US = 1_000_000
MAX_SUMMARY_BYTES = 4 << 20  # a summary is at most 64 KB; anything far bigger is not one
SKEW_TOLERANCE_S = 2.0  # timeouts of one hang fire within this of each other: smaller offsets are noise
WAVE_S = 60.0  # a communication error this close to the first timeout belongs to the timeout wave
CLOSE_S = 5.0  # another node's specific error this close to the root is a real competitor
ROLES = ("root", "victim", "healthy", "silent", "missing")
_ISO = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?")


def iso_us(text: object) -> int | None:
    """`2026-03-11T07:22:41.498770` -> µs since the epoch of the naive clock; None if not a time."""
    if not isinstance(text, str):
        return None
    m = _ISO.match(text)
    if m is None:
        return None
    g = m.groups()
    try:
        return to_us(int(g[0]), int(g[1]), int(g[2]), int(g[3]), int(g[4]), int(g[5]),
                     int((g[6] or "0").ljust(6, "0")))
    except ValueError:
        return None


def tier_of(kind: object) -> int:
    try:
        return EventKind(str(kind)).tier
    except ValueError:
        return 3


# ------------------------------------------------------------------ reading summaries
def read_summaries(paths: Iterable[str]) -> tuple[list[tuple[str, dict]], list[str]]:
    """Summary files (or folders of them, `*.json`, not recursive below one level of nesting).

    Returns (source path, summary) pairs and one-line problems naming each bad file; a bad file
    never stops the rest."""
    out: list[tuple[str, dict]] = []
    problems: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            try:
                names = sorted(os.listdir(p))
            except OSError as exc:
                problems.append(f"{p}: {exc.strerror or exc}")
                continue
            files = [os.path.join(p, n) for n in names if n.endswith(".json") and os.path.isfile(os.path.join(p, n))]
            if not files:
                problems.append(f"{p}: no summary files (*.json) in this folder")
            for f in files:
                _read_one(f, out, problems)
        elif os.path.exists(p):
            _read_one(p, out, problems)
        else:
            problems.append(f"{p}: no such file or directory")
    return out, problems


def _read_one(path: str, out: list, problems: list[str]) -> None:
    try:
        if os.path.getsize(path) > MAX_SUMMARY_BYTES:
            problems.append(f"{path}: too large for a node summary ({os.path.getsize(path)} bytes)")
            return
        with open(path, "rb") as fh:
            data = json.loads(fh.read().decode("utf-8", "replace"))
    except OSError as exc:
        problems.append(f"{path}: {exc.strerror or exc}")
        return
    except ValueError as exc:
        problems.append(f"{path}: not JSON ({str(exc).splitlines()[0][:80]})")
        return
    why = check_summary(data)
    if why:
        problems.append(f"{path}: {why}")
        return
    out.append((path, data))


def check_summary(data: object) -> str | None:
    """Why `data` is not a usable node summary, or None."""
    if not isinstance(data, dict):
        return "not a node summary (a JSON object is expected)"
    if data.get("schema") != SUMMARY_SCHEMA:
        return f"not a node summary (schema {str(data.get('schema'))[:40]!r}, expected {SUMMARY_SCHEMA!r})"
    if not isinstance(data.get("node"), str) or not data["node"]:
        return "node summary without a node name"
    for key in ("processes", "timeouts", "ranks"):
        if not isinstance(data.get(key, []), list):
            return f"node summary with a malformed {key!r}"
    return None


# ------------------------------------------------------------------ merge
@dataclass
class _Rank:
    rank: int
    node: str
    pids: list = field(default_factory=list)
    device: int | None = None
    first_error: dict | None = None
    first_t: int | None = None  # node clock, µs
    last_t: int | None = None
    names: set = field(default_factory=set)


@dataclass
class _Node:
    name: str
    source: str
    summary: dict
    utc_offset_us: int = 0
    skew_us: int = 0  # estimated clock error, µs (node clock minus reference)
    skew_basis: str | None = None


def _list(d: dict, key: str) -> list:
    v = d.get(key)
    return v if isinstance(v, list) else []


def _int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def merge(summaries: Iterable[tuple[str, dict]], missing_nodes: Iterable[tuple[str, str]] = (),
          problems: Iterable[str] = ()) -> dict:
    """The cluster verdict (`"npudiag-cluster/1"`) of (source, summary) pairs.

    `missing_nodes` are (node, reason) for nodes that sent nothing (a failed Ray task, a folder
    missing on that node); `problems` are one-line notes carried into the verdict."""
    probs = list(problems)
    nodes: dict[str, _Node] = {}
    ranks: dict[int, _Rank] = {}
    causal: list[tuple] = []  # (tier, node, rank, pid, time, entry)
    timeouts: list[tuple] = []  # (node, rank, remote, time, tag, count)
    beats: list[tuple] = []  # (node, crimer_rank, informer_rank, time)
    anchors: dict[str, dict] = {}
    world = 0
    for source, s in summaries:
        name = s["node"]
        if name in nodes:
            k = 2
            while f"{name}#{k}" in nodes:
                k += 1
            probs.append(f"{source}: node name {name!r} already seen; read as {name}#{k}")
            name = f"{name}#{k}"
        clock = s.get("clock") if isinstance(s.get("clock"), dict) else {}
        node = nodes[name] = _Node(name, source, s, utc_offset_us=(_int(clock.get("utc_offset_s")) or 0) * US)
        world = max(world, _int(s.get("world_size")) or 0)
        if isinstance(s.get("anchor"), dict):
            anchors[name] = s["anchor"]
        for row in _list(s, "ranks"):
            r = _int(row.get("rank")) if isinstance(row, dict) else None
            if r is None:
                continue
            rec = ranks.get(r)
            if rec is None:
                rec = ranks[r] = _Rank(r, name)
            elif rec.node != name:
                probs.append(f"{source}: rank {r} also reported by node {rec.node}; kept {rec.node}")
                continue
            if row.get("pid") is not None and row["pid"] not in rec.pids:
                rec.pids.append(row["pid"])
            rec.device = rec.device if rec.device is not None else _int(row.get("device"))
            rec.last_t = _max(rec.last_t, iso_us(row.get("last_log_time")))
        for p in _list(s, "processes"):
            if not isinstance(p, dict):
                continue
            r = _int(p.get("rank"))
            if r is not None:
                rec = ranks.get(r)
                if rec is None:
                    rec = ranks[r] = _Rank(r, name)
                if rec.node != name:
                    continue
                fe = p.get("first_error")
                t = iso_us(fe.get("time")) if isinstance(fe, dict) else None
                if isinstance(fe, dict) and (rec.first_error is None or (t is not None and (rec.first_t is None or t < rec.first_t))):
                    rec.first_error, rec.first_t = fe, t
                rec.last_t = _max(rec.last_t, iso_us(p.get("last_log_time")))
            for c in _list(p, "causal"):
                if isinstance(c, dict) and tier_of(c.get("kind")) <= 1:
                    causal.append((tier_of(c.get("kind")), name, r, p.get("pid"), iso_us(c.get("time")), c))
        for t in _list(s, "timeouts"):
            if not isinstance(t, dict):
                continue
            r, remote = _int(t.get("rank")), _int(t.get("remote_rank"))
            timeouts.append((name, r, remote, iso_us(t.get("time")), t.get("tag"), _int(t.get("count")) or 1))
            if r is not None and remote is not None and r in ranks and ranks[r].node == name:
                ranks[r].names.add(remote)
        for b in _list(s, "heartbeats"):
            if isinstance(b, dict) and _int(b.get("crimer_rank")) is not None:
                beats.append((name, b["crimer_rank"], _int(b.get("informer_rank")), iso_us(b.get("time"))))
        for msg in _list(s, "problems")[:5]:
            probs.append(f"{name}: {msg}")

    _estimate_skews(nodes, timeouts)
    aligned = _Aligner(nodes)
    verdict = _choose_root(nodes, ranks, causal, timeouts, beats, aligned)
    return _render(nodes, ranks, world, verdict, timeouts, beats, anchors, aligned, list(missing_nodes), probs)


def _max(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else max(a, b)


class _Aligner:
    """Node-clock µs -> aligned µs (UTC, minus the node's estimated skew)."""

    def __init__(self, nodes: dict[str, _Node]) -> None:
        self.shift = {n.name: n.utc_offset_us + n.skew_us for n in nodes.values()}

    def __call__(self, node: str, t: int | None) -> int | None:
        return None if t is None else t - self.shift.get(node, 0)


def _estimate_skews(nodes: dict[str, _Node], timeouts: list[tuple]) -> None:
    """Each node's clock error from the timeouts of the most common collective tag (see module
    docstring), else from a Ray driver's receive time; small estimates are noise and left at 0."""
    by_tag: dict[str, dict[str, list[int]]] = {}
    for node, _r, _remote, t, tag, _n in timeouts:
        if tag and t is not None:
            by_tag.setdefault(tag, {}).setdefault(node, []).append(t - nodes[node].utc_offset_us)
    if by_tag:
        tag, per_node = max(by_tag.items(), key=lambda kv: (len(kv[1]), sum(map(len, kv[1].values()))))
        if len(per_node) >= 2:
            ref = min(per_node, key=lambda n: (-len(per_node[n]), n))  # most timeouts, then first name
            ref_t = median(per_node[ref])
            for name, ts in per_node.items():
                off = int(median(ts) - ref_t)
                nodes[name].skew_basis = f"timeouts of tag {tag} against node {ref}"
                if abs(off) > SKEW_TOLERANCE_S * US:
                    nodes[name].skew_us = off
    for n in nodes.values():
        if n.skew_basis is not None:
            continue
        clock = n.summary.get("clock") if isinstance(n.summary.get("clock"), dict) else {}
        gen, got = clock.get("generated_at_utc"), clock.get("received_at_utc")
        if isinstance(gen, (int, float)) and isinstance(got, (int, float)):
            n.skew_basis = "summary time against the Ray driver's receive time"
            off = int((gen - got) * US)
            if abs(off) > SKEW_TOLERANCE_S * US:
                n.skew_us = off


@dataclass
class _Verdict:
    root_rank: int | None = None
    root_node: str | None = None
    root_pid: object = None
    entry: dict | None = None  # the first causal error (a summary entry)
    entry_node: str | None = None
    basis: str = ""  # causal | named | heartbeat | silent
    confidence: str | None = None
    why: str = ""
    failure_t: int | None = None  # aligned: the root's time, else the first timeout
    votes: dict = field(default_factory=dict)
    competitor: str | None = None


def _choose_root(nodes: dict[str, _Node], ranks: dict[int, _Rank], causal: list[tuple], timeouts: list[tuple],
                 beats: list[tuple], aligned: _Aligner) -> _Verdict:
    v = _Verdict()
    votes: dict[int, int] = {}
    for _node, _r, remote, _t, _tag, _n in timeouts:
        if remote is not None:
            votes[remote] = votes.get(remote, 0) + 2
    for _node, crimer, _inf, _t in beats:
        votes[crimer] = votes.get(crimer, 0) + 3
    v.votes = votes
    named = max(votes.items(), key=lambda kv: (kv[1], -kv[0]))[0] if votes else None
    first_to = min((t for t in (aligned(n, t) for n, _r, _x, t, _g, _c in timeouts) if t is not None), default=None)
    to_ranks = {(n, r) for n, r, *_ in timeouts}
    first_to_rank: dict[int, int] = {}
    for n, r, _x, t, _g, _c in timeouts:
        at = aligned(n, t)
        if r is not None and at is not None and (r not in first_to_rank or at < first_to_rank[r]):
            first_to_rank[r] = at

    def consequence(c: tuple, at: int) -> bool:
        _tier, node, r, _pid, _t, entry = c
        if first_to is None:
            return False
        if r is not None and r in first_to_rank and first_to_rank[r] <= at:
            return True  # after its own rank's timeout: a consequence of the wait
        comm = entry.get("category") == "communication"
        # a link error in the timeout wave, from a rank nobody names, is a victim's
        return comm and abs(at - first_to) <= WAVE_S * US and votes and r != named

    pool = sorted(((c, aligned(c[1], c[4])) for c in causal if c[4] is not None),
                  key=lambda ca: (ca[0][0], ca[1]))
    chosen = None
    for tier in (0, 1):
        for c, at in pool:
            if c[0] <= tier and not consequence(c, at):
                chosen = (c, at)
                break
        if chosen:
            break
    if chosen is not None:
        (tier, node, r, pid, _t, entry), at = chosen
        v.root_rank, v.root_node, v.root_pid, v.entry, v.entry_node = r, node, pid, entry, node
        v.basis, v.failure_t = "causal", at
        if r is None:
            v.root_node = node
        rivals = [(c, a) for c, a in pool if c[1] != node and c[0] == 0 and a is not None
                  and abs(a - at) <= CLOSE_S * US and c is not chosen[0] and not consequence(c, a)]
        strong = tier == 0 and not rivals and (named is None or named == r)
        v.confidence = "high" if strong else "medium"
        v.why = (f"earliest causal error across the job by aligned time ({entry.get('kind')}"
                 + (f" {entry.get('code')}" if entry.get("code") else "") + f" on node {node})")
        if rivals:
            v.competitor = f"node {rivals[0][0][1]} rank {rivals[0][0][2]} failed within {CLOSE_S:.0f} s too"
        if named is not None and r is not None and named != r:
            v.competitor = (v.competitor + "; " if v.competitor else "") + f"the timeouts name rank {named}"
        return v
    v.failure_t = first_to
    if named is not None:
        v.root_rank, v.basis = named, "named" if any(x[2] == named for x in timeouts) else "heartbeat"
        v.root_node = ranks[named].node if named in ranks else None
        v.confidence = "medium"
        v.why = (f"no causal error in any node's logs; rank {named} is the peer the timeouts and heartbeats "
                 f"point at ({votes[named] // 2 if v.basis == 'named' else votes[named] // 3} report(s))")
        first = min((x for x in timeouts if x[2] == named and x[3] is not None),
                    key=lambda x: aligned(x[0], x[3]) or 0, default=None)
        if first is not None:
            v.entry_node = first[0]
        return v
    # a hang: the rank with no error whose logs end first, before the first timeout
    quiet = [(aligned(rec.node, rec.last_t), rec.rank) for rec in ranks.values()
             if rec.first_error is None and rec.last_t is not None and (rec.node, rec.rank) not in to_ranks]
    quiet = [q for q in quiet if q[0] is not None and (first_to is None or q[0] < first_to)]
    if quiet:
        _t, r = min(quiet)
        v.root_rank, v.root_node, v.basis, v.confidence = r, ranks[r].node, "silent", "low"
        v.why = f"no causal error and no peer named; rank {r} stopped logging first without an error"
    return v


def _roles(ranks: dict[int, _Rank], world: int, v: _Verdict, aligned: _Aligner) -> dict[int, str]:
    out: dict[int, str] = {}
    everyone = set(ranks) | set(range(world))
    if v.root_rank is not None:
        everyone.add(v.root_rank)
    for r in sorted(everyone):
        rec = ranks.get(r)
        if r == v.root_rank:
            out[r] = "root"
        elif rec is None:
            out[r] = "missing"
        elif rec.first_error is not None:
            out[r] = "victim"
        elif v.failure_t is not None and rec.last_t is not None and aligned(rec.node, rec.last_t) < v.failure_t:
            out[r] = "silent"
        else:
            out[r] = "healthy"
    return out


def _render(nodes: dict[str, _Node], ranks: dict[int, _Rank], world: int, v: _Verdict, timeouts: list[tuple],
            beats: list[tuple], anchors: dict[str, dict], aligned: _Aligner, missing: list[tuple[str, str]],
            problems: list[str]) -> dict:
    roles = _roles(ranks, world, v, aligned)
    counts = {role: 0 for role in ROLES}
    rank_rows = []
    for r, role in roles.items():
        counts[role] = counts.get(role, 0) + 1
        rec = ranks.get(r)
        rank_rows.append({"rank": r, "node": rec.node if rec else (v.root_node if r == v.root_rank else None),
                          "role": role, "device": rec.device if rec else None,
                          "pid": rec.pids[0] if rec and rec.pids else None,
                          "first_error_time": rec.first_error.get("time") if rec and rec.first_error else None,
                          "first_error": rec.first_error if rec else None,
                          "last_log_time": format_us(rec.last_t) if rec else None,
                          "names_remote": sorted(rec.names)[:8] if rec else []})
    # the chain of evidence, aggregated per (node, named rank, how): linear in the reports
    edges: dict[tuple, dict] = {}
    for node, r, remote, t, _tag, n in timeouts:
        if remote is None:
            continue
        e = edges.setdefault((node, remote, "timeout"), {"from_node": node, "to_rank": remote, "how": "timeout",
                                                         "ranks": set(), "reports": 0, "first_time": None})
        e["ranks"].add(r)
        e["reports"] += n
        at = aligned(node, t)
        e["first_time"] = at if e["first_time"] is None or (at is not None and at < e["first_time"]) else e["first_time"]
    for node, crimer, informer, t in beats:
        e = edges.setdefault((node, crimer, "heartbeat"), {"from_node": node, "to_rank": crimer, "how": "heartbeat",
                                                           "ranks": set(), "reports": 0, "first_time": None})
        e["ranks"].add(informer)
        e["reports"] += 1
    chain = sorted(({**e, "ranks": len(e["ranks"] - {None}), "first_time": format_us(e["first_time"])}
                    for e in edges.values()), key=lambda e: (-e["reports"], e["from_node"]))
    silent = sorted((aligned(rec.node, rec.last_t), rec.rank, rec.node) for rec in ranks.values()
                    if rec.first_error is None and rec.last_t is not None)
    silent_first = [{"rank": r, "node": n, "last_log_time": format_us(ranks[r].last_t)} for _t, r, n in silent[:10]]

    root = None
    if v.root_rank is not None or v.entry is not None:
        anchor = None
        if v.entry is not None:
            anchor = dict(v.entry)
            node_anchor = anchors.get(v.entry_node or "")
            if node_anchor and node_anchor.get("path") == anchor.get("path") and node_anchor.get("line") == anchor.get("line"):
                anchor = dict(node_anchor)
            anchor.setdefault("rank", v.root_rank)
            anchor.setdefault("pid", v.root_pid)
        root = {"node": v.root_node, "rank": v.root_rank, "pid": v.root_pid if v.root_pid is not None else (
                    ranks[v.root_rank].pids[0] if v.root_rank in ranks and ranks[v.root_rank].pids else None),
                "anchor": anchor, "why": v.why, "confidence": v.confidence, "basis": v.basis,
                "competitor": v.competitor}
    evidence = _evidence(v, roles, counts, chain, silent_first, nodes, missing)
    clock = [{"node": n.name, "utc_offset_s": n.utc_offset_us // US, "offset_s": round(n.skew_us / US, 3),
              "basis": n.skew_basis} for n in nodes.values() if n.skew_basis or n.utc_offset_us]
    return {
        "schema": SCHEMA,
        "world_size": world or None,
        "nodes": [{"node": n.name, "source": n.source,
                   "ranks": sorted(r.rank for r in ranks.values() if r.node == n.name),
                   "bytes": (n.summary.get("inputs") or {}).get("bytes") if isinstance(n.summary.get("inputs"), dict) else None,
                   "problems": [str(p) for p in _list(n.summary, "problems")[:5]]} for n in nodes.values()],
        "root": root,
        "roles": counts,
        "ranks": rank_rows,
        "chain": chain[:200],
        "silent_first": silent_first,
        "clock": clock,
        "evidence": evidence,
        "next_actions": _actions(v, root, missing, roles),
        "missing_nodes": [{"node": n, "reason": why} for n, why in missing],
        "problems": problems[:200],
    }


def _evidence(v: _Verdict, roles: dict[int, str], counts: dict[str, int], chain: list[dict],
              silent_first: list[dict], nodes: dict[str, _Node], missing: list) -> list[str]:
    out = []
    if v.entry is not None:
        e = v.entry
        out.append(f"First causal error: node {v.entry_node}, rank {v.root_rank}, {e.get('path')}:{e.get('line')} "
                   f"at {e.get('time')}: {str(e.get('text'))[:160]}")
    elif v.root_rank is not None:
        out.append(f"Root suspect: rank {v.root_rank} on node {v.root_node or 'unknown (no summary holds it)'} ({v.why}).")
    for how, verb in (("timeout", "time out waiting on"), ("heartbeat", "report as heartbeat crimer")):
        named = [c for c in chain if v.root_rank is not None and c["to_rank"] == v.root_rank and c["how"] == how]
        if named:
            out.append(f"{sum(c['ranks'] for c in named)} rank(s) on {len({c['from_node'] for c in named})} node(s) "
                       f"{verb} rank {v.root_rank}.")
    others = [c for c in chain if v.root_rank is None or c["to_rank"] != v.root_rank]
    if others:
        out.append("Other peers named: " + ", ".join(f"rank {c['to_rank']} by node {c['from_node']} ({c['reports']})"
                                                     for c in others[:5]))
    victims = counts.get("victim", 0)
    if victims:
        out.append(f"{victims} rank(s) fail only after the root or time out (victims).")
    if counts.get("silent"):
        out.append(f"{counts['silent']} rank(s) logged no error and stopped before the failure (silent); first: "
                   + ", ".join(f"rank {s['rank']} on {s['node']}" for s in silent_first[:3]
                               if roles.get(s["rank"]) == "silent"))
    if counts.get("missing"):
        gone = [r for r, role in roles.items() if role == "missing"]
        out.append(f"{len(gone)} rank(s) of the world are in no summary: " + _ranges(gone))
    skewed = [n for n in nodes.values() if n.skew_us]
    if skewed:
        out.append("Clock offsets applied: " + ", ".join(f"{n.name} {n.skew_us / US:+.1f} s" for n in skewed[:8]))
    if v.competitor:
        out.append(f"Competitor: {v.competitor}.")
    if missing:
        out.append(f"{len(missing)} node(s) sent nothing: " + ", ".join(n for n, _ in missing[:8]))
    return out


def _ranges(nums: list[int]) -> str:
    """[0, 1, 2, 5] -> '0-2, 5' (thousands of missing ranks stay one line)."""
    out: list[str] = []
    for n in sorted(nums):
        if out and out[-1][1] == n - 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))  # type: ignore[arg-type]
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in out)  # type: ignore[misc]


def _actions(v: _Verdict, root: dict | None, missing: list, roles: dict[int, str]) -> list[dict]:
    acts = []
    if root is not None and v.root_node is not None:
        a = root.get("anchor") or {}
        where = f" ({a.get('path')}:{a.get('line')})" if a.get("path") else ""
        acts.append({"action": f"On node {v.root_node}, open rank {v.root_rank}'s logs with npudiag-tui{where}",
                     "env": {}, "why": "the full diagnosis of the root rank: registry guidance and next steps"})
    if v.basis in ("named", "heartbeat", "silent") and v.root_rank is not None:
        acts.append({"action": f"Check rank {v.root_rank}'s process and device on node {v.root_node or '?'} "
                               "(npu-smi info; py-spy dump of the process; hccn_tool -i <device> -link -g)",
                     "env": {"ASCEND_GLOBAL_LOG_LEVEL": "1"},
                     "why": "the others waited on it; its own logs hold no error, so it hung, died or lost its link"})
    if missing:
        acts.append({"action": "Collect the summaries of the nodes that sent nothing: "
                               + ", ".join(n for n, _ in missing[:5]),
                     "env": {}, "why": "the root may be on a node whose logs were not read"})
    if any(role == "missing" for role in roles.values()):
        acts.append({"action": "Run `npudiag-tui --report summary` on the nodes holding the missing ranks",
                     "env": {}, "why": "ranks of the world are in no summary"})
    return acts[:5]
