"""From scanned events to a Diagnosis: cascade links, the anchor, ranks, guidance, actions.

The method (docs/diagnosis.md): anchor the earliest error that on its own explains what
follows, by recorded (aligned) time and causality rather than by position in a file, and
demote wrappers, sync failures, relays, repeats and timeouts on healthy ranks.
"""

from __future__ import annotations

import bisect
import re
from typing import Callable, NamedTuple, Sequence

from npudiag_tui.core.diagnosis.actions import SET_UP_CAUSES, plan_actions, set_up_failure
from npudiag_tui.core.diagnosis.classify import building, classify, compile_stage, crashed, killed_notice, route
from npudiag_tui.core.diagnosis.events import (ABORT_LOOKBACK_EVENTS, ABORT_WINDOW_LINES, EventBuilder, build_events,
                                                starved_device_warning, tolerated_import)
from npudiag_tui.core.timemodel import TimeModel
from npudiag_tui.core.diagnosis.explain import explain
from npudiag_tui.core.formats.build import BUILD_STOPPED
from npudiag_tui.core.formats.codes import CODE_PATTERN, is_inner_code
from npudiag_tui.core.formats.console import EXCEPTION_RE, clean, stop_signal
from npudiag_tui.core.formats.timestamps import format_us
from npudiag_tui.core.index import FileIndex
from npudiag_tui.core.model import (Diagnosis, ErrorEvent, EventKind, LineRef, RankRole, Situation, Source, SourceFile,
                                    Stream)
from npudiag_tui.core.ranks import event_pid_ranks
from npudiag_tui.core.registry import Registry, lookup_numeric
from npudiag_tui.core.scan import LineHit, SourceScan

US = 1_000_000
RELATION = {
    "wrapper": "wrapper", "sync": "sync_failure", "relay": "consequence", "cann_trace": "consequence",
    "timeout": "timeout_victim", "exception": "consequence", "log_error": "consequence",
    "table": "consequence", "heartbeat": "consequence",
}
_NORMALISE = re.compile(r"\d{4}-\d\d-\d\d[- T]\d\d:\d\d:\d\d[.,:\d]*|\b\d+\b|0x[0-9a-fA-F]+")


def _order_key(ev: ErrorEvent, source_order: dict[int, int], settled: dict[int, int | None]) -> tuple:
    t = settled.get(id(ev), ev.time)
    return (t is None, t or 0, source_order.get(ev.source_id, 0), ev.ref.file_id, ev.ref.line)


def settled_times(events: list[ErrorEvent]) -> dict[int, int | None]:
    """The time each event sorts by. A stamp cut to the whole second (`06:43:02`) says the line
    was printed somewhere in that second, not that it came before a finer stamp inside it:
    - within one file, after a finer stamp above it (a worker logger after glog's
      `06:43:02.966156`), it sorts with the line above, and the file's order decides;
    - against another file's finer stamps (a plog's `06:43:02.747057`), a console line sorts at
      the end of its second: a logger that prints to the second usually relays what a finer log
      recorded (a plog's or a device log's stamp is to the µs, even when it reads `.000.000`).
    The times shown stay the lines' own."""
    out: dict[int, int | None] = {}
    last: dict[int, int] = {}
    for ev in sorted(events, key=lambda e: (e.ref.file_id, e.ref.line)):
        t = ev.time
        if t is not None:
            prev = last.get(ev.ref.file_id)
            if t % US == 0 and prev is not None and t < prev < t + US:
                t = prev
            elif t % US == 0 and ev.stream is Stream.STDOUT:  # plog and device stamps are to the µs
                t += US - 1
            last[ev.ref.file_id] = t
        out[id(ev)] = t
    return out


def _normal(text: str) -> str:
    body = text.split("]", 1)[-1] if text.startswith("[") else text
    return _NORMALISE.sub("#", body).strip()


class Inputs(NamedTuple):
    """What a diagnosis reads. `registry` is called only when an anchor needs guidance (loading
    it costs time, and its warnings become problems)."""

    sources: Sequence[Source]
    scans: Sequence[SourceScan]
    indexes: Sequence[FileIndex]
    files: Sequence[SourceFile]
    registry: Callable[[], Registry]


def build_all_events(sources: Sequence[Source], scans: Sequence[SourceScan],
                     indexes: Sequence[FileIndex], times: "TimeModel | None" = None,
                     builders: "dict[int, EventBuilder] | None" = None,
                     pending: "dict[int, list[LineHit]] | None" = None) -> list[ErrorEvent]:
    """Every source's events, before ranks: `core.ranks` reads them to tie CANN pids to ranks.
    `times` is the workspace's time model (one time per line everywhere).

    `builders` (the live tail's, one per source, kept between calls) makes it incremental: a
    source whose hits only grew since the last call reads its new hits only, and the result is
    what a full build gives. `pending` hits (a last line without its newline yet) are read after
    a source's hits without staying in its builder."""
    if times is None:
        by_file = {f.file_id: s for s in sources for f in s.files}
        times = TimeModel(sources, indexes, by_file.__getitem__)
    events: list[ErrorEvent] = []
    for src in sources:
        hits = scans[src.source_id].hits
        extra = (pending or {}).get(src.source_id, [])
        if builders is None:
            events.extend(build_events(src, hits + extra if extra else hits, list(indexes), times))
            continue
        builder = builders.get(src.source_id)
        if builder is None or not builder.continues(src, hits, times, list(indexes)):
            builder = builders[src.source_id] = EventBuilder(src, list(indexes), times)
        builder.feed(hits[builder.fed:])
        if extra:
            builder = builder.fork()
            builder.feed(extra)
        events.extend(builder.events())
    return events


def _finish_events(ws: Inputs, events: list[ErrorEvent]) -> list[ErrorEvent]:
    """Times and ranks the lines lack, and categories, once the sources' ranks are resolved."""
    pid_rank = event_pid_ranks(events)
    # an event before the first stamp of its file takes the next stamp (never sorted to the top)
    nxt: dict[int, int | None] = {}
    for ev in sorted(events, key=lambda e: (e.ref.file_id, e.ref.line), reverse=True):
        if ev.time is None:
            ev.time = nxt.get(ev.ref.file_id)
            ev.time_inherited = True
        else:
            nxt[ev.ref.file_id] = ev.time
    for ev in events:
        if ev.rank is None:
            src = ws.sources[ev.source_id]
            ev.rank = src.rank if src.rank is not None else pid_rank.get(ev.cann_pid or -1)
    _device_explains_host(events)
    _exceptions_quoting_another(events)
    for ev in events:
        ev.category = _classify(ev)
    return events


def _exceptions_quoting_another(events: list[ErrorEvent]) -> None:
    """An exception that quotes another exception of the same process, raised at the same time,
    in its message (`RuntimeError: NPUModelRunner init failed, error is 'Tensor' object has no
    attribute 'gpu'` for the `AttributeError: 'Tensor' object has no attribute 'gpu'`) wraps it,
    also when a copy put the two in different files."""
    by_second: dict[tuple[int, int], list[tuple[ErrorEvent, str]]] = {}
    for ev in events:
        if ev.kind == EventKind.EXCEPTION and ev.pid is not None and ev.time is not None:
            m = EXCEPTION_RE.match((ev.detail or "").strip())
            if m and len(m.group(2).split()) >= 3:
                by_second.setdefault((ev.pid, ev.time // US), []).append((ev, m.group(2).strip()))
    for (pid, second), group in by_second.items():
        # the same second and the ones around it (a stamp's rounding); a storm of one process is no
        # pair to read
        near = by_second.get((pid, second - 1), []) + group + by_second.get((pid, second + 1), [])
        if len(near) > QUOTE_PAIRS_MAX:
            continue
        for ev, message in group:
            for other, quoted in near:
                if other is not ev and other.ref.file_id != ev.ref.file_id and quoted in message and quoted != message:
                    ev.kind = EventKind.WRAPPER
                    break


QUOTE_PAIRS_MAX = 96  # exceptions of one process in three seconds, beyond which it is a storm


_DEVICE_DAEMON = re.compile(r"\(\d+, ?hccp_service\.bin\)")


def _on_device(ev: ErrorEvent) -> bool:
    """Printed on the device: a device log, or a line of HCCP's device daemon (a copy may put
    device lines into any file)."""
    return ev.stream is Stream.DEVICE or _DEVICE_DAEMON.search(ev.text[:160]) is not None


# a result HCCP's host half passes on from the device (`create qp fail, ret(-12)`, `ret=-12`)
_NEGATIVE_RET = re.compile(r"\bret\s*(?:\(|\[|=)?\s*=?\s*(-\d+)")
DEVICE_SKEW_US = 10_000_000  # a device log is stamped by the device's clock


def _device_explains_host(events: list[ErrorEvent]) -> None:
    """HCCP runs on the device (hccp_service.bin); its host half reports the device's result
    code when a call over the host-device channel fails. The device log's error with that code
    near that time is the failure; the host's lines relay it."""
    device: dict[int, list[int]] = {}
    for ev in events:
        m = _NEGATIVE_RET.search(ev.text) if ev.module in ("HCCP", "ROCE") and _on_device(ev) else None
        if m and ev.time is not None:
            device.setdefault(int(m.group(1)), []).append(ev.time)
    if not device:
        return
    for ev in events:
        if ev.module != "HCCP" or ev.kind.tier > 3 or ev.time is None or _on_device(ev):
            continue
        m = _NEGATIVE_RET.search(ev.text)
        if m and any(abs(t - ev.time) <= DEVICE_SKEW_US for t in device.get(int(m.group(1)), ())):
            ev.kind = EventKind.RELAY


_CATEGORIES: dict[tuple, str] = {}
"""classify() answers by what it reads of an event: a live re-diagnosis meets the same events
again, and an error storm repeats a few messages with other stamps, ids and counters, where
classifying each line cost seconds (bench/README.md)."""


def _classify(ev: ErrorEvent) -> str:
    """`classify(ev)`, remembered by the fields `classify.route` reads, its text with stamps,
    numbers and hex values folded (`_NORMALISE`): the rules see numbers only as codes and statuses,
    which are in the key as parsed (`codes`, `numeric`, `block_numeric`)."""
    key = (ev.kind, ev.module, ev.env_hint, ev.comm_wait, tuple(ev.codes), tuple(ev.numeric.items()),
           tuple(ev.block_numeric.items()), ev.block_stage, _NORMALISE.sub("#", ev.detail or ""), _NORMALISE.sub("#", ev.text))
    got = _CATEGORIES.get(key)
    if got is None:
        if len(_CATEGORIES) > 200_000:
            _CATEGORIES.clear()
        got = _CATEGORIES[key] = classify(ev)
    return got


def _is_causal(ev: ErrorEvent) -> bool:
    if ev.kind == "cann_detail" and ev.codes and all(is_inner_code(c) for c in ev.codes):
        # inner code with real text is still a detail; a bare banner was already a wrapper
        return True
    return ev.kind.tier <= 1


STALE_GAP_S = 7200  # longer than HCCL_EXEC_TIMEOUT, so a root error and its victims stay together
EPISODE_GAP_S = 600


def _printed_pid(ev: ErrorEvent) -> int | None:
    """The process a line names itself (its CANN PID, its header's pid); a pid the line only
    takes from its file (a console that a plog header elsewhere named) ties no episodes: a
    log a job appends to holds the runs of many processes."""
    if ev.cann_pid is not None:
        return ev.cann_pid
    if ev.pid is None:
        return None
    head, pid = ev.text[:160], ev.pid
    printed = (f"({pid},", f"({pid}:", f"pid={pid}", f"PID:{pid}", f"PID: {pid}", f"[{pid}]")
    return pid if any(form in head for form in printed) else None


def last_episode(events: list[ErrorEvent]) -> list[ErrorEvent]:
    """Drop stale episodes: errors hours before the failure, from processes that are not in it.

    Clusters of errors separated by more than EPISODE_GAP_S are merged backwards into the final
    one while the gap is at most STALE_GAP_S or the clusters share a process.
    """
    timed = [e for e in events if e.time is not None and e.kind.tier < 9]
    if not timed:
        return events
    clusters: list[list[ErrorEvent]] = [[timed[0]]]
    for ev in timed[1:]:
        if ev.time - clusters[-1][-1].time > EPISODE_GAP_S * US:  # type: ignore[operator]
            clusters.append([ev])
        else:
            clusters[-1].append(ev)
    keep = clusters[-1]
    for k in range(len(clusters) - 2, -1, -1):
        prev, after = clusters[k], clusters[k + 1]  # `after`: what follows the gap, now in `keep`
        gap = (keep[0].time - prev[-1].time) / US  # type: ignore[operator]
        pids = {_printed_pid(e) for e in keep} - {None}
        if pids & ({_printed_pid(e) for e in prev} - {None}) or (gap <= STALE_GAP_S and _may_wait_on(after)):
            keep = prev + keep
        else:
            break
    # the events are in sorting order (settled_times), where a stamp cut to the second sorts at
    # its second's end: the episode starts at its earliest time, not at its first event's
    start = min(e.time for e in keep)  # type: ignore[type-var]
    stale = {id(e) for e in timed if e.time < start}  # type: ignore[operator]
    for e in events:
        if id(e) in stale:
            e.stale = True
    return [e for e in events if id(e) not in stale]


def _may_wait_on(cluster: list[ErrorEvent]) -> bool:
    """Whether a cluster of errors can be the consequence of one minutes before it, by what
    opens it: a wait (a collective or a link that timed out, up to HCCL's execution timeout after
    its peer failed), a lost peer (a communication failure), or a restatement of an error told
    elsewhere (a wrapper, a relay, a synchronisation that noticed an earlier device failure). A
    cluster that opens with a failure of its own (a service that will not start, 35 minutes
    after an earlier run was stopped) is a new episode."""
    first = next((e for e in cluster if e.kind.tier <= 6 and not e.benign), None)
    return first is None or first.kind in ("timeout", "wrapper", "relay", "sync", "cann_trace") \
        or first.category == "communication"


def _console_process_first(first: ErrorEvent, events: list[ErrorEvent]) -> ErrorEvent:
    """`first` when time can order it; else the console's own failure when that names its one
    process and `first` is another process's plog or device line. A console line without a stamp
    sorts after every stamped one, but it cannot be ordered against another process's log: what
    the job printed is its own failure (a folder of logs keeps other processes' and runs' plogs)."""
    if first.stream is Stream.STDOUT or first.time is None or first.rank is not None or first.pid is None:
        return first
    console = [e for e in events if e.stream is Stream.STDOUT]
    pids = {e.cann_pid for e in console if e.cann_pid is not None}
    if len(pids) != 1 or first.pid in pids or len({e.rank for e in console}) > 1:
        return first  # several processes or ranks print to this console: it is no one process's
    own = [e for e in console if e.time is None and e.cann_pid in pids and e.kind.tier <= first.kind.tier
           and not e.benign and e.secondary != "repeat"]
    return own[0] if own else first


# an error code's message with its reason, or the error manager's message as MindSpore passes it on
# (`Ascend error occurred, error message: EI0004: Invalid ranktable, …`)
_REASONED = re.compile(rf"\b(?=E)({CODE_PATTERN}):[^\n]{{0,300}}?\bReason:|\berror message: ?(?=E)({CODE_PATTERN}): ")
EXPLAIN_WINDOW_US = US


def _explained_by_its_message(first: ErrorEvent, events: list[ErrorEvent]) -> ErrorEvent:
    """A line that only says a step failed (no code, no reason) gives way to the error manager's
    message of the same process printed right after it (`EJ0001: Failed to initialize the HCCP
    process. Reason: …`): the message is the explanation of the step's failure."""
    if first.codes or first.time is None or first.kind != "plog":
        return first
    pid = first.pid
    for ev in events:
        if ev is first or ev.time is None or not 0 <= ev.time - first.time <= EXPLAIN_WINDOW_US:
            continue
        if pid is not None and pid not in (ev.pid, ev.cann_pid) and (
                # a line that names no process is the same one's when it follows in the same log
                # (the CANN section of the exception that reports the failure)
                ev.pid is not None or ev.cann_pid is not None or ev.ref.file_id != first.ref.file_id
                or ev.ref.line < first.ref.line):
            continue
        reasoned = _REASONED.search(ev.text)
        if reasoned and not is_inner_code(reasoned.group(1) or reasoned.group(2)):
            return ev
    return first


def choose_anchor(events: list[ErrorEvent]) -> ErrorEvent | None:
    """The earliest causal event; timeouts only when nothing causal precedes them."""
    current = last_episode(events)
    if any(e.kind.tier <= 6 and not e.benign for e in current):
        events = current
    ordered = [e for e in events if not e.benign and e.kind.tier < 9]
    if not ordered:
        return None
    # an import the application caught and went on from (logged at ERROR by some releases), or an
    # operator entry the op-info library skipped, is the cause only when nothing else failed: any
    # later failure happened with the module or the operator absent anyway
    tolerated = [e for e in ordered if e.tolerated or (e.kind == "import" and tolerated_import(e.detail or e.text))]
    if tolerated and len(tolerated) < len(ordered):
        ordered = [e for e in ordered if e not in tolerated]
    stop = next((e for e in ordered if e.kind == "abort" and stop_signal(e.text)), None)
    if stop is not None and not any(e.kind.tier <= 3 for e in ordered[:ordered.index(stop)]):
        # the job was told to stop before anything failed: what its workers printed while shutting
        # down (lost parents, closed pipes, interrupted calls) follows from the stop
        return stop
    for tier_limit in (0, 1, 2, 3, 4, 5, 6):
        pool = [e for e in ordered if e.kind.tier <= tier_limit and e.secondary != "repeat"]
        if not pool:
            continue
        strong = [e for e in pool if e.kind.tier == 0]
        timeouts = [e for e in ordered if e.kind == "timeout"]
        first = pool[0]
        if tier_limit >= 1 and strong:
            first = strong[0]
        if first.kind == "timeout":
            # a wait that expired names no cause: an untyped error, a call's failure relayed, a
            # process's death or a link table's failed row that another process printed before it
            # (or at a time not known) is the better candidate (the timeouts of healthy ranks come
            # after the failure they wait on); in its own process such a line heads its report
            at = ordered.index(first)
            before = [e for i, e in enumerate(ordered) if _names_a_failure(e) and e.secondary != "repeat"
                      and (i < at or e.time is None or first.time is None) and _other_process(e, first)]
            # HCCL's verdict on a peer (`deviceId[4], Heartbeat Lost Occurred`) names the device the
            # wait was on, also when the waiting process printed it with its timeout
            before += [e for e in ordered if e.kind == "heartbeat" and e not in before and e.secondary != "repeat"
                       and (e.time is None or first.time is None or e.time <= first.time)]
            first = min(before, key=lambda e: e.kind.tier, default=first)  # stable: the earliest of a tier
            if first.kind == "timeout":
                first = _wait_on_the_most_waited_peer(first, ordered)
        if timeouts and first.kind != "timeout" and first.time is not None and timeouts[0].time is not None \
                and timeouts[0].time < first.time:
            t0 = timeouts[0]
            # a causal-looking error after a timeout in the same process is usually its consequence
            same_proc = (first.pid is not None and first.pid == t0.pid) or (
                first.rank is not None and first.rank == t0.rank)
            if same_proc or first.category == "communication":
                if tier_limit < 2:
                    continue
                return t0
        if first.kind == "abort":
            first = _reported_before_the_kill(first, ordered)
        return _table_failure_row(_explained_by_its_message(_console_process_first(first, ordered), ordered), ordered)
    return ordered[0]


def _reported_before_the_kill(abort: ErrorEvent, ordered: list[ErrorEvent]) -> ErrorEvent:
    """A death notice (`Killed`, an abort) outranks only wrappers, which say a failure is told
    elsewhere; when such a report of a failure sits right above the notice in the same file
    (`ERR: Failed to init endpoint! Please check the service log`), the process died of that
    failure, and its report is the best line there is: it says what failed and where to look."""
    if stop_signal(abort.text):
        return abort
    at = ordered.index(abort)
    before = [e for e in ordered[max(0, at - ABORT_LOOKBACK_EVENTS):at]
              if e.kind == "wrapper" and e.ref.file_id == abort.ref.file_id and e.secondary != "repeat"
              and 0 < abort.ref.line - e.ref.line <= ABORT_WINDOW_LINES]
    return before[0] if before else abort


# the peer a link set-up wait names: a device of this node (`connected p2p timeout, … remote physic
# id:1`), or a rank (`remote rank: [5]`); a LINK_ERROR_INFO table names its ranks in its rows
_WAITED_DEVICE = re.compile(r"remote physic(?:al)? id:? ?(\d+)")


def _failed_rows(ordered: list[ErrorEvent]) -> dict[tuple[int, int | None], list[tuple[int, int]]]:
    """The ranks that failed table rows name, by file and process, in line order: read once, not
    once per wait (a storm of timeouts has thousands)."""
    rows: dict[tuple[int, int | None], list[tuple[int, int]]] = {}
    for row in ordered:
        if row.kind == "table" and _FAILED_ROW.search(row.text):
            m = _TABLE_PEER.search(row.text.split("]", 3)[-1])
            if m:
                rows.setdefault((row.ref.file_id, row.pid), []).append((row.ref.line, int(m.group(1))))
    for found in rows.values():
        found.sort()
    return rows


def _waited_peers(ev: ErrorEvent, rows: dict[tuple[int, int | None], list[tuple[int, int]]]) -> set[tuple[str, int]]:
    peers: set[tuple[str, int]] = set()
    m = _WAITED_DEVICE.search(ev.text)
    if m:
        peers.add(("device", int(m.group(1))))
    if isinstance(ev.remote_rank, int):
        peers.add(("rank", ev.remote_rank))
    found = rows.get((ev.ref.file_id, ev.pid), [])
    at = bisect.bisect_right(found, (ev.ref.line, 1 << 62))  # the rows of the table this wait printed under it
    for line, rank in found[at:]:
        if line - ev.ref.line > TABLE_ROWS:
            break
        peers.add(("rank", rank))
    return peers


def _wait_on_the_most_waited_peer(first: ErrorEvent, ordered: list[ErrorEvent]) -> ErrorEvent:
    """When nothing but waits on peers failed, the peer that most processes waited on is the
    suspect (the peers a link table names never connected), and the earliest wait naming it is
    the evidence; a wait on a peer that was itself waiting on that suspect only passes it along."""
    waits = [e for e in ordered if e.kind == "timeout"]
    rows = _failed_rows(ordered)
    peers_of = {id(e): _waited_peers(e, rows) for e in waits}
    for e in waits:
        e.waits_on = tuple(f"{kind} {n}" for kind, n in sorted(peers_of[id(e)]))
    waiters: dict[tuple[str, int], set] = {}
    for e in waits:
        for peer in peers_of[id(e)]:
            waiters.setdefault(peer, set()).add(e.pid if e.pid is not None else ("file", e.ref.file_id))
    if not waiters:
        return first
    ranked = sorted(waiters.items(), key=lambda kv: -len(kv[1]))
    top, most = ranked[0]
    if len(most) < 2 or (len(ranked) > 1 and len(ranked[1][1]) == len(most)):
        return first  # no peer stands out
    if any(len(waiters[p]) >= len(most) for p in peers_of[id(first)]):
        return first
    chosen = next((e for e in waits if top in peers_of[id(e)]), first)
    chosen.suspect_peer = f"{top[0]} {top[1]}"
    return chosen


# a row of an analyser's table whose cells state that something failed (`| … | server | no connect |`)
_FAILED_ROW = re.compile(r"\|\s*(?:no connect\w*|time ?out|timed out|fail\w*|error|abnormal|down)\s*\|", re.I)


TABLE_ROWS = 64  # how far below its title a table's rows may sit


def _table_failure_row(anchor: ErrorEvent, ordered: list[ErrorEvent]) -> ErrorEvent:
    """When nothing but an analyser's table is left (HCCL's LINK_ERROR_INFO), its row that
    states a failure says more than its title or its column heads."""
    if anchor.kind != "table":
        return anchor
    return next((e for e in ordered if e.kind == "table" and e.ref.file_id == anchor.ref.file_id
                 and 0 <= e.ref.line - anchor.ref.line <= TABLE_ROWS and _FAILED_ROW.search(e.text)), anchor)


def _names_a_failure(ev: ErrorEvent) -> bool:
    """Weak evidence of a failure of its own: what a peer's timeout gives way to."""
    # (a synchronisation that failed noticed a failure on its own device; HCCL's heartbeat verdict,
    # `Cluster Exception Location[IP/ID]:[…] … ExceptionType:[Heartbeat Lost Occurred]`, names the
    # node where the exception is)
    # (a CANN TraceBack line whose call returned a status of its own, not a wait's or a
    # synchronisation's, is what is left of a process's report when its head was cut:
    # `… failed, runtime result = 207001`)
    return ev.kind in ("log_error", "relay", "abort", "sync", "heartbeat") or (
        ev.kind == "table" and _FAILED_ROW.search(ev.text) is not None) or (
        ev.kind == "cann_trace" and bool(ev.numeric) and ev.category not in ("communication", "stream_event", "unknown")) or (
        # a build tool's stop on the target that failed (`make[3]: *** [target] Error 1`)
        ev.kind == "wrapper" and BUILD_STOPPED.search(ev.text) is not None)


def _other_process(a: ErrorEvent, b: ErrorEvent) -> bool:
    """Whether two events were printed by different processes, as far as the lines tell."""
    if a.rank is not None and b.rank is not None:
        return a.rank != b.rank
    if a.pid is not None and b.pid is not None:
        return a.pid != b.pid
    return a.ref.file_id != b.ref.file_id


def _link_cascade(events: list[ErrorEvent], anchor: ErrorEvent | None) -> list[ErrorEvent]:
    """Give every non-anchor event its relation; repeats are per source and rank (a rank
    repeating itself), so the same timeout on eight ranks stays eight victims."""
    seen: dict[tuple[int, int | None, str], int] = {}
    cascade: list[ErrorEvent] = []
    anchor_pos = events.index(anchor) if anchor is not None else -1
    if anchor is not None:
        seen[(anchor.source_id, anchor.rank, _normal(anchor.detail or anchor.text))] = anchor_pos
    for i, ev in enumerate(events):
        if ev is anchor or ev.kind in ("benign", "context"):
            continue
        key = (ev.source_id, ev.rank, _normal(ev.detail or ev.text))
        if key in seen and ev.kind.tier <= 2:
            ev.secondary = "repeat"
            ev.explained_by = seen[key]
        else:
            seen.setdefault(key, i)
            rel = RELATION.get(ev.kind)
            if rel is None and anchor is not None:
                rel = "consequence"
            ev.secondary = rel
            ev.explained_by = anchor_pos if anchor_pos >= 0 else None
        if ev.secondary and anchor is not None:
            cascade.append(ev)
    return cascade


def anchor_ref(ev: ErrorEvent) -> LineRef:
    """The line to show for an event (a device exception shows its errorStr line)."""
    line = ev.anchor_line or ev.first_exc_line
    return line if isinstance(line, LineRef) else ev.ref


def _ranks(ws: Inputs, events: list[ErrorEvent], anchor: ErrorEvent | None) -> list[RankRole]:
    ranks = sorted({s.rank for s in ws.sources if s.rank is not None} |
                   {e.rank for e in events if e.rank is not None})
    first: dict[int, ErrorEvent] = {}
    for ev in events:
        if ev.rank is None or ev.kind.tier > 4 or ev.kind == "benign":
            continue
        if ev.rank not in first:
            first[ev.rank] = ev
    crimers = {str(e.crimer) for e in events if e.crimer is not None}
    root = anchor.rank if anchor is not None else None
    if anchor is not None and anchor.kind == "timeout" and anchor.suspect_peer is not None:
        kind, _, n = anchor.suspect_peer.partition(" ")
        if kind == "rank":  # a device of the node is no rank; the wait that named it is the evidence
            root = anchor.suspect_rank = int(n)
    elif anchor is not None and anchor.kind == "timeout":
        suspect = _timeout_suspect(ws, events, anchor, ranks, first)
        if suspect is not None:
            root = suspect
            anchor.suspect_rank = suspect
    out = []
    for r in ranks:
        ev = first.get(r)
        if r == root and (ev is None or ev.kind in ("timeout", "sync", "wrapper", "relay")) and r != (
                anchor.rank if anchor is not None else None):
            role = "root"  # the silent or named peer the timeouts point at
        elif ev is None:
            role = "healthy"
        elif r == root and ev.kind not in ("timeout", "sync", "wrapper", "relay"):
            role = "root"
        elif ev.kind in ("timeout", "sync", "wrapper", "relay") or (
                anchor is not None and ev.time is not None and anchor.time is not None and ev.time >= anchor.time):
            role = "victim"
        elif any(c.endswith(f"/{r}") or c == str(r) for c in crimers):
            role = "root"
        else:
            role = "unknown"
        out.append(RankRole(r, ev.time if ev else None, role))
    return out


_TABLE_PEER = re.compile(r"\|\s*[\d.:a-fA-F]+\((\d+)\)\s*\|")


def _timeout_suspect(ws: Inputs, events: list[ErrorEvent], anchor: ErrorEvent, ranks: list[int],
                     first: dict[int, ErrorEvent]) -> int | None:
    """The rank a timeout points at: named remote rank, crimer, LINK_ERROR_INFO peer, or the
    rank that stopped logging first without an error of its own."""
    named = anchor.remote_rank
    if isinstance(named, int):
        return named
    votes: dict[int, int] = {}
    for e in events:
        if e.remote_rank is not None and isinstance(e.remote_rank, int):
            votes[e.remote_rank] = votes.get(e.remote_rank, 0) + 2  # type: ignore[index]
        if e.crimer is not None:
            m = re.search(r"(\d+)$", str(e.crimer))
            if m:
                votes[int(m.group(1))] = votes.get(int(m.group(1)), 0) + 3
        if e.kind == "table":
            m = _TABLE_PEER.search(e.text.split("]", 3)[-1])
            if m:
                votes[int(m.group(1))] = votes.get(int(m.group(1)), 0) + 1
    if votes:
        return max(votes.items(), key=lambda kv: kv[1])[0]
    # a rank with no error whose logs end before the timeout fired
    if anchor.time is not None:
        quiet = []
        for r in ranks:
            if r in first:
                continue
            ends = [ws.indexes[f.file_id].last_time for s in ws.sources if s.rank == r
                    and s.stream is not Stream.STDOUT for f in s.files]
            ends = [t for t in ends if t >= 0]
            if ends and max(ends) < anchor.time:
                quiet.append((max(ends), r))
        if quiet:
            return min(quiet)[1]
    return None


def _guidance(ws: Inputs, anchor: ErrorEvent, related: list[ErrorEvent]) -> tuple[dict | None, str | None]:
    """Registry entry for the anchor's most specific code (or a related event's)."""
    reg = ws.registry()
    text = anchor.detail or anchor.text

    def from_registry(code: str, where: ErrorEvent) -> dict | None:
        entry = reg.lookup(code)
        if entry is None:
            return None
        said = clean(where.detail or where.text).strip()  # the line that carries the code
        args = reg.extract_args(entry, said)
        message = reg.fill(entry, args) if args else None
        return {"code": entry.code, "family": entry.family, "title": entry.title,
                "message": message or said, "args": args, "possible_cause": entry.possible_cause,
                "solution": entry.solution, "registry": entry.source}

    # Most specific first: a real CANN code of the anchor or its group, then the numeric status
    # the host reported for it (507035, 561002...), and an inner code (EZ9999) only as a last resort.
    specific = [(c, anchor) for c in anchor.codes if not is_inner_code(c)]
    for ev in related:
        specific += [(c, ev) for c in ev.codes if not is_inner_code(c) and not c.startswith("W")
                     and all(c != k for k, _ in specific)]
    for code, where in specific:
        got = from_registry(code, where)
        if got is not None:
            return got, code
    for ev in [anchor] + related:
        for domain in ("acl", "aclnn", "hccl", "torch_npu"):
            if domain in ev.numeric:
                nc = lookup_numeric(ev.numeric[domain], domain)
                if nc is not None and not (domain == "torch_npu" and ev is not anchor):
                    return ({
                        "code": str(nc.value), "family": nc.domain, "title": nc.name,
                        "message": text, "args": {},
                        "possible_cause": nc.meaning, "solution": None, "registry": "built-in",
                    }, str(nc.value))
    for code in [c for c in anchor.codes if is_inner_code(c)]:
        got = from_registry(code, anchor)
        if got is not None:
            return got, code
    return None, None


def _describe(ev: ErrorEvent, ws: Inputs) -> str:
    where = ws.files[anchor_ref(ev).file_id].display
    bits = [f"{where}:{anchor_ref(ev).line + 1}"]
    if ev.time is not None:
        bits.append(format_us(ev.time) or "")
    if ev.rank is not None:
        bits.append(f"rank {ev.rank}")
    return ", ".join(bits)


_KIND_WORDS = {
    "cann_detail": "CANN error", "device_exc": "device exception", "plog": "error", "oom": "out-of-memory error",
    "import": "environment failure", "crash": "crash", "warning_code": "error reported as a warning",
    "exception": "exception", "timeout": "timeout", "relay": "error", "sync": "synchronisation failure",
    "wrapper": "error", "log_error": "error", "cann_trace": "error",
}
_CAUSE = {
    "operator": "An operator rejected its inputs or failed in tiling/kernel selection; the detail line names the constraint.",
    "communication": "A collective-communication failure (HCCL/HCCP): links, sockets or a peer rank that failed first.",
    "stream_event": "A stream or event wait failed or timed out; the device-side cause is upstream of this symptom.",
    "memory": "The device ran out of memory (HBM) for this allocation, or another process holds it.",
    "device": "A kernel faulted on the device (AI Core / vector core / AI CPU exception).",
    "compile": "Graph or operator compilation/capture failed at the stage named in the error.",
    "environment": "The software environment is incomplete or mismatched (libraries, packages, versions).",
    "unknown": "The process crashed without a CANN error code; the backtrace is the only evidence.",
}
# a shell's SIGKILL notice with nothing failed before it
_KILLED_CAUSE = ("The process was killed (SIGKILL) with nothing failed before it: most often the kernel's "
                 "out-of-memory killer when host memory ran out, else a kill from outside (a scheduler's limit, "
                 "a watchdog, a user).")
# a launcher told to stop with nothing failed before it
_STOPPED_CAUSE = ("The launcher was told to stop (a signal from outside) before anything in these logs failed: "
                  "a user's Ctrl-C, a scheduler's time limit or preemption, or a stop sent after the job failed "
                  "on another node. The errors after it come from the workers shutting down.")
# MindData's warning of a starved device, anchored over the task failure it explains
_STARVED_CAUSE = ("The device's data fetch (GetNext, sink mode) gave up waiting for batches the host's dataset "
                  "pipeline produced too slowly; the task failure after the warning is that wait ending.")
# an unclassified error with no crash evidence: nothing says the process died
_UNCLASSIFIED_CAUSE = ("An error line without a CANN code or a subsystem the rules recognise; "
                       "the lines logged just before it tell what the process was doing.")


def diagnose(ws: Inputs, events: list[ErrorEvent]) -> Diagnosis:
    """The diagnosis of `events` (from `build_all_events`, after `core.ranks.resolve_ranks`)."""
    source_order = {s.source_id: i for i, s in enumerate(ws.sources)}
    events = _finish_events(ws, events)
    settled = settled_times(events)
    events.sort(key=lambda e: _order_key(e, source_order, settled))
    # exact repeats first, so that the anchor is never a repeat
    anchor = choose_anchor(events)
    cascade = _link_cascade(events, anchor)
    diag = Diagnosis(anchor=anchor, cascade=cascade, events=events)
    streams = frozenset(s.stream.value for s in ws.sources if any(ws.indexes[f.file_id].has_lines for f in s.files))
    has_info = any(sc.has_info for sc in ws.scans)
    rank_set = {s.rank for s in ws.sources if s.rank is not None} | {e.rank for e in events if e.rank is not None}
    diag.ranks = _ranks(ws, events, anchor)
    if anchor is None:
        diag.summary = "No error found in the inputs."
        diag.root_cause = ""
        diag.missing = ["No error lines were found. If the job failed, the logs may be at ERROR level "
                        "only elsewhere: open the folder named by ASCEND_PROCESS_LOG_PATH, or rerun with "
                        "ASCEND_GLOBAL_LOG_LEVEL=1."]
        return diag
    # (an earlier run's errors in the same file are no lines of this event)
    near = [e for e in events if e is not anchor and e.source_id == anchor.source_id and not e.stale
            and abs(e.ref.line - anchor.ref.line) <= 40 and e.ref.file_id == anchor.ref.file_id]
    if anchor.time is not None and anchor.rank is not None:
        # the same event seen by another stream of the rank (a console code for a plog line)
        near += [e for e in events if e is not anchor and e not in near and e.rank == anchor.rank
                 and e.time is not None and abs(e.time - anchor.time) <= 10 * US]
    # the event's other lines (its wrappers and restatements in the same process) route it
    same_process = [e for e in near if (anchor.rank is None or e.rank in (None, anchor.rank))
                    and (anchor.pid is None or e.pid in (None, anchor.pid) or e.cann_pid == anchor.cann_pid)]
    anchor.category = route(anchor, same_process)
    diag.category = anchor.category
    diag.compile_stage = compile_stage([anchor.text] + [e.text for e in near]) if anchor.category in (
        "compile", "stream_event", "memory") else None
    guidance, code = _guidance(ws, anchor, near)
    diag.guidance = guidance
    # the anchor's code is its own; a related event's code only when it is a CANN string code
    # (a console EI0013 for the plog's CQE line), never a bare number relayed by another line
    own = [c for c in anchor.codes if not is_inner_code(c)]
    if own:
        anchor.code = own[0]
    elif anchor.numeric:
        anchor.code = str(next(iter(anchor.numeric.values())))
    elif code and (code[:1] in ("E", "W") or (anchor.codes and all(is_inner_code(c) for c in anchor.codes))):
        # the same event's real code, reported by a related line (an EZ9999 detail's 561002)
        anchor.code = code
    else:
        anchor.code = anchor.codes[0] if anchor.codes else None
    word = _KIND_WORDS.get(anchor.kind, "error")
    what = (anchor.detail or anchor.text).strip()
    if len(what) > 160:
        what = what[:157] + "..."
    code_txt = f" {anchor.code}" if anchor.code else ""
    rank_txt = f" on rank {anchor.rank}" if anchor.rank is not None else ""
    diag.summary = f"First causal {word}{code_txt}{rank_txt}: {what}"
    did_crash = crashed(anchor, events)
    cause = _CAUSE.get(anchor.category, "")
    if anchor.category == "unknown" and not did_crash:
        cause = _UNCLASSIFIED_CAUSE
    if anchor.category == "environment":
        cause = SET_UP_CAUSES.get(set_up_failure(anchor.text) or "", cause)  # the text the actions read
    if killed_notice(anchor.text):
        cause = _KILLED_CAUSE
    if stop_signal(anchor.text):
        cause = _STOPPED_CAUSE
    if anchor.kind == "warning_code" and starved_device_warning(anchor.text):
        cause = _STARVED_CAUSE
    if anchor.kind == "timeout" and anchor.suspect_peer is not None:
        cause = (f"Every failure is a wait on a peer, and most of the waiting processes waited on "
                 f"{anchor.suspect_peer}; no error explains it in these logs, so that peer, which never "
                 "answered, is the suspect.")
    elif anchor.kind == "timeout":
        remote = (anchor.remote_rank if anchor.remote_rank is not None else anchor.suspect_rank)
        cause = ("The earliest failure is a communication timeout" +
                 (f" pointing at rank {remote}" if remote is not None else "") +
                 "; no earlier error explains it in these logs, so the peer that never answered is the suspect.")
    if guidance and guidance.get("possible_cause"):
        cause += f" Registry: {guidance['possible_cause']}"
    diag.root_cause = cause.strip()
    # evidence: the anchor, the strongest secondary lines, cross-rank facts
    _add_evidence(diag, f"Anchor ({anchor.category}): ", _describe(anchor, ws), ": ", what)
    victims = [r for r in diag.ranks if r.role == "victim"]
    if victims:
        _add_evidence(diag, f"{len(victims)} rank(s) only fail after the anchor or time out (victims): "
                      + ", ".join(str(r.rank) for r in victims[:16]))
    by_rel: dict[str, int] = {}
    for ev in cascade:
        if ev.secondary:
            by_rel[ev.secondary] = by_rel.get(ev.secondary, 0) + 1
    if by_rel:
        _add_evidence(diag, "Secondary lines: " + ", ".join(f"{n} {rel}" for rel, n in sorted(by_rel.items())))
    for ev in [e for e in cascade if e.secondary in ("wrapper", "timeout_victim", "sync_failure")][:3]:
        _add_evidence(diag, f"{ev.secondary}: ", _describe(ev, ws), ": ", clean(ev.text).strip()[:140])
    if anchor.time is not None:
        later = [e for e in cascade if e.time is not None and e.time > anchor.time and e.secondary]
        if later:
            gap = (later[-1].time - anchor.time) / US  # type: ignore[operator]
            _add_evidence(diag, f"The cascade spans {gap:.3f} s after the anchor.")
    situation = Situation(
        category=anchor.category, code=anchor.code, text=anchor.text, streams=streams,  # type: ignore[arg-type]
        rank_count=len(rank_set), root_rank=anchor.rank, timeouts_only=anchor.kind == "timeout",
        compile_stage=diag.compile_stage, has_device_logs="device" in streams, has_info_lines=has_info,
        op_name=anchor.op_name or next((e.op_name for e in near if e.op_name), None), crashed=did_crash,
        building=building([anchor.text] + [e.text for e in near]),
    )
    diag.next_actions, diag.missing = plan_actions(situation)
    suspect = anchor.suspect_rank
    if anchor.suspect_peer is not None and suspect is None:
        _add_evidence(diag, f"The waits point at {anchor.suspect_peer}, which most of the waiting processes waited on.")
        diag.missing.insert(0, f"The logs of {anchor.suspect_peer} around {format_us(anchor.time) or 'the failure'}: "
                            "they show why it did not answer; collect them with ASCEND_GLOBAL_LOG_LEVEL=1.")
    if suspect is not None and suspect != anchor.rank:
        quiet = not any(e.rank == suspect and e.kind.tier <= 1 for e in events)
        _add_evidence(diag, f"The timeouts point at rank {suspect}" +
                      (", which logged no error of its own (it stopped or never connected)." if quiet else "."))
        diag.missing.insert(0, f"Rank {suspect}'s own logs around {format_us(anchor.time) or 'the failure'}: its plog "
                            f"(and console) show why it did not answer; collect them with ASCEND_GLOBAL_LOG_LEVEL=1.")
    _explain(diag)
    return diag


def _add_evidence(diag: Diagnosis, *parts: str) -> None:
    """One evidence sentence; its odd `parts` quote the logs (a place, a log line), so that a
    Markdown report can show them as code and only the rest as prose."""
    diag.evidence.append("".join(parts))
    diag.evidence_parts.append(parts)


def _explain(diag: Diagnosis) -> None:
    """Why this anchor, how sure, and the competitors that lost (core/diagnosis/explain.py)."""
    ex = explain(diag.events, diag.anchor, diag.ranks)
    diag.why, diag.confidence, diag.confidence_reason, diag.candidates = ex.why, ex.confidence, ex.reason, ex.candidates
