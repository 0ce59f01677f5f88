"""Why this line: the anchor's explanation, a confidence, and the competitors that lost.

A user who opens a failed job does not trust a highlighted line on its own: the console ends
in a big `RuntimeError`, the plog starts with red `[ERROR]` lines, every rank prints an
EI0002. This module answers "why not that one?" for the few lines a user would really
suspect, with the relation the engine already decided (wrapper, victim, stale, benign...),
and says how sure the choice is, so a weak anchor is read as a lead rather than a verdict.

Pure: the input is the sorted events of a diagnosis, its anchor and the rank roles; nothing
here changes an event or reads a file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from npudiag_tui.core.formats.codes import is_inner_code
from npudiag_tui.core.formats.console import stop_signal
from npudiag_tui.core.model import Candidate, ErrorEvent, Level, RankRole

US = 1_000_000
MAX_CANDIDATES = 5
# Another process's specific error this close to the anchor is a real competitor: ranks are
# synchronised only by collectives and their clocks by NTP, so a few seconds apart is "at the
# same time" for a cross-rank failure, while the HCCL timeouts of victims come minutes later.
CLOSE_S = 5.0

_SPECIFIC_KINDS = {"cann_detail", "device_exc", "oom", "import", "crash", "warning_code", "env"}
_GENERIC_KINDS = {"log_error", "wrapper", "sync", "relay", "cann_trace", "table", "heartbeat", "benign",
                  "context"}
_RANK_PREFIX = re.compile(r"^\s*\[?rank ?\d+\]?:\s*|^\s*\(\w+ rank=\d+ pid=\d+\)\s*", re.I)
_VOLATILE = re.compile(r"\d{4}-\d\d-\d\d[- T]\d\d:\d\d:\d\d[.,:\d]*|\d\d:\d\d:\d\d[.,\d]*|0x[0-9a-fA-F]+|\d+")
_ERR_HEADER = re.compile(r"\bERR\d{5}\b")
_EXC_NAME = re.compile(r"\b([A-Z]\w*(?:Error|Exception))\b")
_ACLNN = re.compile(r"\b(aclnn\w+)")
_KIND_NOUN = {
    "cann_detail": "CANN error detail", "device_exc": "device exception", "oom": "out-of-memory error",
    "import": "environment (loader) failure", "env": "environment failure", "crash": "native crash",
    "warning_code": "error code printed as a warning", "exception": "exception", "log_error": "error line",
    "timeout": "timeout", "relay": "relayed error", "sync": "synchronisation failure",
    "cann_trace": "TraceBack line", "wrapper": "wrapper line", "table": "table row", "heartbeat": "heartbeat notice",
}


@dataclass
class Explanation:
    why: str = ""
    confidence: str | None = None  # high | medium | low; None without an anchor
    reason: str = ""  # the confidence in words, for the first line of a low-confidence report
    candidates: list[Candidate] = field(default_factory=list)


def _tier(ev: ErrorEvent) -> int:
    return ev.kind.tier


def _is_benign(ev: ErrorEvent) -> bool:
    return ev.benign or ev.kind == "benign"


def _real_codes(ev: ErrorEvent) -> list[str]:
    return [c for c in ev.codes if not is_inner_code(c)]


def _code_of(ev: ErrorEvent) -> str | None:
    code = ev.code
    if isinstance(code, str) and code:
        return code
    real = _real_codes(ev)
    if real:
        return real[0]
    if ev.numeric:
        domain, value = next(iter(ev.numeric.items()))
        return f"{domain} {value}"
    return None


def is_specific(ev: ErrorEvent) -> bool:
    """A line that names its failure: a code, a device errorStr, a loader/OOM/crash shape, or an
    explicit ERROR line of a named CANN module. A bare "ERROR ... failed" line is not: it may
    be anyone's report of anything."""
    if ev.kind in _SPECIFIC_KINDS:
        return True
    if _real_codes(ev) or any(d in ev.numeric for d in ("acl", "aclnn", "hccl")):
        return ev.kind not in _GENERIC_KINDS
    return ev.kind == "plog" and bool(ev.module)


def _process(ev: ErrorEvent) -> tuple[str, object] | None:
    if ev.rank is not None:
        return ("rank", ev.rank)
    pid = ev.cann_pid or ev.pid
    return ("pid", pid) if pid is not None else None


def _other_process(a: ErrorEvent, b: ErrorEvent) -> bool:
    """Positively another process: different ranks, or different pids where ranks are unknown.
    Unknown on either side is not "another" (a console line without a rank prefix is usually
    the same single process)."""
    pa, pb = _process(a), _process(b)
    return pa is not None and pb is not None and pa[0] == pb[0] and pa != pb


def _same_process(a: ErrorEvent, b: ErrorEvent) -> bool:
    pa, pb = _process(a), _process(b)
    if pa is not None and pb is not None and pa[0] == pb[0]:
        return pa == pb
    return a.source_id == b.source_id


def span(us: float) -> str:
    """A duration the way a person says it: 0.8 ms, 1.2 s, 35 s, 12 min, 2 h, 3 d."""
    s = abs(us) / US
    if s < 0.001:
        return f"{abs(us):.0f} µs"
    if s < 1:
        return f"{s * 1000:.1f} ms".replace(".0 ms", " ms")
    if s < 10:
        return f"{s:.1f} s"
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    if s < 172800:
        return f"{s / 3600:.0f} h"
    return f"{s / 86400:.0f} d"


def _key(ev: ErrorEvent) -> str:
    """Text with ranks, stamps, pids and numbers removed: the same message on eight ranks is
    one suspect, not eight."""
    text = _RANK_PREFIX.sub("", ev.detail or ev.text)
    if text.startswith("["):  # plog head: [LEVEL] MODULE(pid,name):stamp ...
        text = re.sub(r"^\[[A-Z]+\] (\w+)\([^)]*\):\S+", r"\1", text)
    return _VOLATILE.sub("#", text).strip()


def _wrapper_label(ev: ErrorEvent) -> str | None:
    text = ev.detail or ev.text
    m = _ERR_HEADER.search(text)
    if m:
        return f"the {m.group(0)} header"
    m = _EXC_NAME.search(text)
    if m:
        op = _ACLNN.search(text)
        return f"the {op.group(1)} exception" if op else f"the {m.group(1)}"
    if "[Error]:" in text:
        return "the [Error]: text"
    return None


def _ranks_text(ranks: list[int]) -> str:
    shown = ", ".join(str(r) for r in ranks[:8])
    return shown + (", …" if len(ranks) > 8 else "")


def _root_rank(anchor: ErrorEvent, ranks: list[RankRole]) -> int | None:
    suspect = anchor.suspect_rank
    if isinstance(suspect, int):
        return suspect
    roots = [r.rank for r in ranks if r.role == "root"]
    if anchor.rank is not None and anchor.rank in roots:
        return anchor.rank
    return roots[0] if roots else anchor.rank


def _where(ev: ErrorEvent) -> str:
    return f"of rank {ev.rank}" if ev.rank is not None else f"in the {ev.stream.value} log"


def _noun(ev: ErrorEvent) -> str:
    if ev.kind == "plog":
        return f"{ev.module} error line" if ev.module else "error line"
    if ev.kind == "exception":
        m = _EXC_NAME.search(ev.detail or ev.text)
        return m.group(1) if m else "exception"
    if ev.kind == "warning_code" and not ev.codes and not ev.numeric:
        return "failure printed as a warning"  # a missing function, releases that differ
    return _KIND_NOUN.get(str(ev.kind), "error")


def _why(anchor: ErrorEvent, events: list[ErrorEvent], ranks: list[RankRole], root: int | None) -> str:
    code = _code_of(anchor)
    lead = _noun(anchor) + (f" ({code})" if code else "")
    episode = [e for e in events if e is not anchor and not e.stale and not _is_benign(e)
               and _tier(e) <= 4]
    earlier = [e for e in episode if e.time is not None and anchor.time is not None and e.time < anchor.time]
    if anchor.kind == "timeout" and anchor.suspect_peer is not None:
        waiters = {_process(e) for e in events if anchor.suspect_peer in e.waits_on}
        head = (f"every failure is a wait on a peer; {len(waiters)} processes waited on {anchor.suspect_peer}, "
                f"the peer most waited on, and this {lead} {_where(anchor)} is the first wait naming it")
    elif anchor.kind == "timeout":
        head = f"earliest failure is a {lead} {_where(anchor)} and no causal error precedes it"
        if root is not None and root != anchor.rank:
            head += f"; the timeouts point at rank {root}"
        else:
            head += "; no rank stands out as its cause"
    elif stop_signal(anchor.text):
        head = (f"the launcher was told to stop {_where(anchor)} before any error; what its workers printed "
                "while shutting down follows from the stop")
    else:
        head = ("earliest " if not earlier else "first causal ") + f"{lead} {_where(anchor)}"
    parts = [head]
    labels: list[str] = []
    for ev in events:
        if ev is anchor or not _same_process(ev, anchor) or ev.secondary not in ("wrapper", "sync_failure"):
            continue
        label = _wrapper_label(ev)
        if label and label not in labels:
            labels.append(label)
    if labels and anchor.kind != "timeout":
        few = labels[:2]
        parts.append(f"{' and '.join(few)} {'is its wrapper' if len(few) == 1 else 'are its wrappers'}")
    victims = [r.rank for r in ranks if r.role == "victim" and r.rank != anchor.rank]
    many = len(victims) > 1
    if victims and anchor.kind != "timeout":
        parts.append(f"rank{'s' if many else ''} {_ranks_text(victims)} fail{'' if many else 's'} only after it "
                     f"(victim{'s' if many else ''})")
    elif victims:
        parts.append(f"rank{'s' if many else ''} {_ranks_text(victims)} {'are victims' if many else 'is a victim'}")
    skipped = [e for e in earlier if e.tolerated]
    earlier = [e for e in earlier if not e.tolerated]
    if skipped:
        parts.append("the earlier operator entry that the op-info library skipped did not stop the job")
    if earlier and anchor.kind != "timeout":
        weaker = sorted({_noun(e) for e in earlier})[:2]
        parts.append(f"the earlier {' and '.join(weaker)} {'is' if len(earlier) == 1 else 'are'} weaker evidence")
    stale = [e for e in events if e.stale and _tier(e) <= 1 and e.time is not None]
    if stale and anchor.time is not None:
        parts.append(f"errors {span(anchor.time - stale[-1].time)} earlier are stale")  # type: ignore[operator]
    return "; ".join(parts)


def _confidence(anchor: ErrorEvent, events: list[ErrorEvent], root: int | None) -> tuple[str, str]:
    anchor_key = _key(anchor)
    if anchor.kind == "timeout":
        if anchor.suspect_peer is not None:
            return "medium", f"the anchor is a timeout; {anchor.suspect_peer} is only the suspect it points at"
        if root is not None and root != anchor.rank:
            return "medium", f"the anchor is a timeout; rank {root} is only the suspect it points at"
        return "low", "the anchor is a timeout and no rank stands out as its cause"
    if stop_signal(anchor.text):
        return "medium", "a stop from outside names no cause; who sent it is outside these logs"
    if anchor.kind == "warning_code" and not anchor.codes and not anchor.numeric:
        # a missing function, releases that differ, a starved device: read as the cause of what
        # failed after it, which named none of its own
        return "medium", "the anchor is a warning read as the cause of the failure after it, which names none"
    if anchor.kind == "exception" and not is_specific(anchor):
        return "medium", "the anchor is an exception without a CANN code; its cause may be printed elsewhere"
    if not is_specific(anchor):
        if _tier(anchor) >= 3:
            return "low", "nothing causal was found; the anchor is only the strongest of weak error lines"
        return "low", "the anchor is a generic error line without a code"
    if anchor.time is None or anchor.time_inherited:
        return "medium", "the anchor's time is inherited from nearby lines, so the order is estimated"
    # each other process's first specific error; one that says what the anchor says agrees
    # with it (the same bad input on every rank), and its own follow-ups are its cascade
    first: dict[object, ErrorEvent] = {}
    for ev in events:
        if ev is anchor or ev.stale or _is_benign(ev) or ev.secondary == "repeat":
            continue
        if _tier(ev) != 0 or not is_specific(ev) or not _other_process(ev, anchor) or ev.time is None:
            continue
        first.setdefault(_process(ev), ev)
    for ev in first.values():
        if _key(ev) == anchor_key:
            continue
        if ev.time > anchor.time and ev.category == "communication" != anchor.category:  # type: ignore[operator]
            continue  # peers that lose their partner report link errors: a consequence
        if abs(ev.time - anchor.time) <= CLOSE_S * US:  # type: ignore[operator]
            who = f"rank {ev.rank}" if ev.rank is not None else f"pid {ev.cann_pid or ev.pid}"
            return "medium", (f"{who} reports its own {_noun(ev)} within {span(ev.time - anchor.time)} "  # type: ignore[operator]
                              "of the anchor")
    return "high", "a specific error that precedes its wrappers and victims, with no close competitor"


def _why_not(ev: ErrorEvent, anchor: ErrorEvent, root: int | None, roles: dict[int, str]) -> str:
    if ev.stale:
        if ev.time is not None and anchor.time is not None:
            return f"stale by {span(anchor.time - ev.time)} (an earlier episode)"
        return "stale (an earlier episode)"
    if _is_benign(ev):
        return f"benign noise ({ev.module})" if ev.module else "benign noise"
    if ev.tolerated and ev.kind != "import":
        return "a failure the job went on from (an operator entry the op-info library skipped)"
    later = ev.time is not None and anchor.time is not None and ev.time > anchor.time
    after = f" (+{span(ev.time - anchor.time)})" if later else ""  # type: ignore[operator]
    other_rank = ev.rank is not None and anchor.rank is not None and ev.rank != anchor.rank
    victim_of = (f"victim of rank {root}" if root is not None and root != ev.rank else "victim") \
        if other_rank and roles.get(ev.rank) == "victim" else None  # type: ignore[arg-type]
    rel = ev.secondary
    if _key(ev) == _key(anchor):
        if other_rank:
            return f"same error on rank {ev.rank}" + (f", later{after}" if later else "")
        return "repeat of the anchor"
    if rel == "repeat":
        return "repeat of an earlier line"
    if ev.kind == "timeout" or rel == "timeout_victim":
        if anchor.suspect_peer is not None and ev.waits_on and anchor.suspect_peer not in ev.waits_on:
            return f"wait on {' and '.join(ev.waits_on)}, which fewer processes waited on than {anchor.suspect_peer}"
        if anchor.kind == "timeout":
            return (f"timeout on rank {ev.rank}, later than the anchor{after}" if other_rank
                    else f"same timeout, later{after}")
        return (f"timeout {victim_of}" if victim_of else "timeout victim") + after
    if rel == "wrapper":
        if victim_of:
            return f"wrapper on rank {ev.rank}, a {victim_of}"
        return f"wrapper on rank {ev.rank}" if other_rank else "wrapper of the anchor"
    if rel == "sync_failure":
        if victim_of:
            return f"sync failure on rank {ev.rank}, a {victim_of}"
        return "sync failure after the anchor" if later or _same_process(ev, anchor) else "sync failure"
    if victim_of:
        return victim_of + after
    if ev.kind in ("relay", "cann_trace"):
        if ev.category == "communication" or anchor.category == "communication":
            return "relay of a communication failure"
        return "restatement of the anchor's error" if _same_process(ev, anchor) else "relay of an earlier error"
    if ev.time is not None and anchor.time is not None and ev.time < anchor.time:
        return f"earlier, but a weaker {_noun(ev)}" if _tier(ev) > _tier(anchor) else "earlier, but in an earlier episode"
    if later:
        same = ", same rank" if ev.rank is not None and ev.rank == anchor.rank else (
            f", on rank {ev.rank}" if ev.rank is not None else "")
        return f"later than the anchor{after}{same}"
    if _key(ev) == _key(anchor) or ev.time == anchor.time:
        return "the anchor's event, printed again"
    return "printed after the anchor; its time is unknown"


def _reason_class(why_not: str) -> str:
    return " ".join(why_not.split(" (")[0].split(",")[0].split()[:3])


def _score(ev: ErrorEvent, anchor: ErrorEvent, first_red: set[int], rank_first: set[int], bottom: set[int]) -> float:
    """How much a user would suspect this line: causal-looking kind, a code, and the places
    people look first (the first red line, each rank's first error, the console's last
    exception)."""
    s = {0: 6.0, 1: 4.0, 2: 3.5, 3: 2.5, 4: 2.0, 5: 0.5, 6: 2.0}.get(_tier(ev), 0.0)
    if _real_codes(ev) or ev.numeric:
        s += 2.0
    if ev.stale and _tier(ev) <= 1:
        s += 3.0  # the strong error the anchor deliberately skipped
    if id(ev) in first_red:
        s += 3.5
    if id(ev) in rank_first:
        s += 2.5
    if id(ev) in bottom:
        s += 3.0
    if _EXC_NAME.search(ev.detail or ev.text) and ev.kind in ("wrapper", "exception"):
        s += 1.0
    if ev.level < Level.ERROR and ev.kind != "warning_code":
        s -= 2.0
    if ev.ref.file_id == anchor.ref.file_id and abs(ev.ref.line - anchor.ref.line) <= 10 and not (
            _real_codes(ev) or ev.numeric):
        s -= 3.0  # reads as part of the anchor's own block, not as a rival
    return s


def explain(events: list[ErrorEvent], anchor: ErrorEvent | None, ranks: list[RankRole]) -> Explanation:
    """Why `anchor` won, how sure that is, and up to five competitors with why each lost.

    Confidence is judged from evidence, not from the rule that picked the anchor:
    - high: a specific event (a code, an errorStr, an explicit module ERROR, a loader/OOM/
      crash shape) with its own time, and no specific error of another process within
      CLOSE_S. Then the usual mistakes (taking a wrapper, a victim, a sync failure) are ruled
      out by the time order itself.
    - medium: still specific, but another process reports its own specific error close by (a
      second root is plausible, or clocks decide), or the anchor's time is inherited from
      nearby lines (order estimated); a timeout that points at a suspect rank (the suspect is
      inferred, not seen); an exception without a code (its cause may be printed elsewhere).
    - low: a timeout with no suspect, a generic error line without a code, or nothing causal
      at all: the candidates are as good a lead as the anchor, so reports say so first.
    """
    if anchor is None:
        return Explanation()
    roles = {r.rank: r.role for r in ranks}
    root = _root_rank(anchor, ranks)
    confidence, reason = _confidence(anchor, events, root)
    why = _why(anchor, events, ranks, root)

    own = {(r.file_id, r.line) for r in anchor.lines} | {(anchor.ref.file_id, anchor.ref.line)}
    pool = [e for e in events if e is not anchor and (
        (e.kind != "context" and _tier(e) < 9) or (_is_benign(e) and e.level >= Level.ERROR))]
    pool = [e for e in pool if (e.ref.file_id, e.ref.line) not in own and e.kind not in ("table", "heartbeat")]
    if not pool:
        return Explanation(why, confidence, reason, [])
    first_red: set[int] = set()
    seen_streams: set[str] = set()
    for e in pool:
        if e.level >= Level.ERROR and e.stream.value not in seen_streams:
            seen_streams.add(e.stream.value)
            first_red.add(id(e))
    rank_first: set[int] = set()
    seen_ranks: set[int] = set()
    for e in pool:
        if e.rank is None or e.rank == anchor.rank or e.rank in seen_ranks or _is_benign(e) or _tier(e) > 4:
            continue
        if e.stale:
            continue
        seen_ranks.add(e.rank)
        rank_first.add(id(e))
    console = [e for e in pool if e.stream.value == "stdout" and e.kind in ("exception", "wrapper", "timeout", "sync")
               and _EXC_NAME.search(e.detail or e.text)]
    bottom = {id(console[-1])} if console else set()

    # the strongest first, one line per message (the same EI0002 on eight ranks is one
    # suspect) and per block (a wrapper block is four lines); a why_not already shown costs
    # points, so five candidates show five different reasons when there are that many
    scores = {id(e): _score(e, anchor, first_red, rank_first, bottom) for e in pool}
    order = {id(e): i for i, e in enumerate(pool)}
    anchor_key = _key(anchor)
    members: dict[str, list[ErrorEvent]] = {}
    best: dict[tuple, ErrorEvent] = {}
    for ev in pool:
        members.setdefault(_key(ev), []).append(ev)
    for key, evs in members.items():
        top = max(evs, key=lambda e: (scores[id(e)], -order[id(e)]))
        group = (_process(top) or ("src", top.source_id), top.stream.value, top.secondary or top.kind) \
            if top.secondary in ("wrapper", "sync_failure", "consequence", "timeout_victim") else ("key", key)
        if group not in best or scores[id(top)] > scores[id(best[group])]:
            best[group] = top
    reps = [(ev, _why_not(ev, anchor, root, roles)) for ev in best.values()]
    chosen: list[tuple[ErrorEvent, str]] = []
    used: dict[str, int] = {}
    while reps and len(chosen) < MAX_CANDIDATES:
        k = max(range(len(reps)), key=lambda j: (
            scores[id(reps[j][0])] - 2.5 * used.get(_reason_class(reps[j][1]), 0), -order[id(reps[j][0])]))
        ev, why_not = reps.pop(k)
        used[_reason_class(why_not)] = used.get(_reason_class(why_not), 0) + 1
        chosen.append((ev, why_not))
    out = []
    for ev, why_not in chosen:
        others = {e.rank for e in members[_key(ev)] if e.rank is not None and e.rank != anchor.rank}
        if len(others) > 1 and ev.rank != anchor.rank:
            why_not += f" (same on {len(others)} ranks)"
        out.append(Candidate(ev, why_not))
    return Explanation(why, confidence, reason, out)
