"""Scanned lines -> error events: what each line *is* (detail, wrapper, sync failure, timeout...).

A kind is decided from the line alone, with a little context for multi-line shapes: a CANN
error-manager block owns the indented lines after it, a device exception is one event per
serial number, a TraceBack section is the outer layers of the detail above it.
"""

from __future__ import annotations

import re

from npudiag_tui.core.formats import console as C
from npudiag_tui.core.formats.codes import is_inner_code, numeric_codes, string_codes
from npudiag_tui.core.formats.levels import line_level
from npudiag_tui.core.formats.plog import parse_plog
from npudiag_tui.core.formats.timestamps import find_stamp, ts6_to_us
from npudiag_tui.core.index import FileIndex
from npudiag_tui.core.model import ErrorEvent, Level, LineRef, Source, Stream
from npudiag_tui.core.scan import LineHit

# Causal strength tiers used by the anchor choice (lower = more causal).
TIER = {
    "cann_detail": 0, "device_exc": 0, "plog": 0, "oom": 0, "import": 0, "crash": 0,
    "warning_code": 0, "env": 0,
    "exception": 1, "log_error": 3,
    "timeout": 2,
    "relay": 4, "sync": 4, "cann_trace": 4, "table": 5, "heartbeat": 5,
    "wrapper": 6, "benign": 9, "context": 9,
}

_BENIGN_PLOG = re.compile(
    r"open file failed|IDEDD|symbol|[Pp]rofil|ATRACE|trace collect|Inner Error!|Internal error!|"
    r"^[\s_|=\-+*]*$|^[\s|]*[-_=]{6,}|LINK_ERROR_INFO|dest_ip\(user_rank\)|comm error, device\[|"
    r"^\s*\|"
)
_BENIGN_MODULES = {"ATRACE", "IDEDD", "PROFILING", "TUNE", "MSPROF", "DVPP_TRACE"}
_TABLE_ROW = re.compile(r"^\s*\|.*\|")
_RELAY = re.compile(
    r"call trace: hcclRet|is failed\. ret\[|[Ee]stablish completed failed|SetMachinePara error|"
    r"FuncErrorReason|Nnopbase fails to invoke the Hccl|Check nnopbase::|HcclAllocComResource|"
    r"execution failed, reason=|Memory copy sync failed|errNo\[0x[0-9a-fA-F]+\] .*return\[|"
    r"ret\[\d+\]\.?$|[Ff]ailed, ret = \d+|return: ret\[|Assert \(\(|Check .* failed$"
)
_SYNC = re.compile(
    r"[Ss]ynchroni[sz]e|SyncStream|TaskFailCallback|wait for compute device to finish|"
    r"[Rr]eplay failed|task fail|[Ww]atchdog|StreamSynchronize|DeviceSynchronize"
)
_TIMEOUT = re.compile(
    r"[Tt]ime ?out|timed out|EI0002|EI0006|Notify register|notify wait|socket establish"
)
_WRAPPER_TEXT = re.compile(
    r"The Inner error is reported as above|Worker failed with error|Since the operator is called "
    r"asynchronously|Rectify the fault based on|process exits for this inner error|"
    r"EngineCore encountered|EngineDeadError|WorkerProc hit an exception|Engine core initialization failed|"
    r"^\s*raise |^\s*\(function \w+\)"
)
_OOM = re.compile(r"out of memory|OutOfMemoryError|memory allocation failed|alloc(?:ate)? .*failed|"
                  r"ErrCode=207001|error code is 207001")
_IMPORT = re.compile(r"^(?:ImportError|ModuleNotFoundError|OSError)\b|cannot open shared object|"
                     r"No module named|undefined symbol|set_env\.sh")
_CRASH = re.compile(r"^#\d+\s+0x[0-9a-fA-F]+ in |Segmentation fault|SIGSEGV|SIGABRT|SIGBUS|"
                    r"core dumped|Fatal Python error")
_HEARTBEAT = re.compile(r"HeartbeatAbnormal|Cluster Exception Location")
_SERIAL = re.compile(r"serial number is (\d+)")
_REMOTE_RANK = re.compile(r"remote rank:? ?\[(\d+)\]")
_CRIMER = re.compile(r"crimer rank\[([^\]]*)\]")
_OPNAME = re.compile(r"OpName:\[([^\]]+)\]|call (aclnn\w+) failed|op type is (\w+)|Failed to compile Op \[?(\w+)|"
                     r"operator name is (\w+)|function error: (\w+), error code")


def _own_time(text: str, year_hint: int | None) -> int | None:
    st = find_stamp(text, year_hint)
    return st.us if st else None


def _channel_time(idx: FileIndex, line: int, chan: tuple, prefix: str, year_hint: int | None,
                  back: int = 400) -> int | None:
    """The last stamp in the *body* of an earlier line on the same interleaving channel (same
    rank/worker prefix): a rank's traceback must not inherit the time of another rank's block.
    Logger stamps are not used: a traceback is printed long after its rank's last INFO line,
    and an inherited time must never make a wrapper look earlier than it was. A cheap literal
    prefix test skips other channels before any parsing."""
    # torch_npu prints its seconds-stamped header right after the exception: look a few lines
    # ahead on the channel first, then back
    ahead = idx.lines(line + 1, 8)
    first = max(0, line - back)
    behind = list(reversed(idx.lines(first, line - first)))
    for text in ahead + behind:
        if prefix and not text.startswith(prefix) and not C.clean(text).startswith(prefix):
            continue
        body, pre = C.strip_prefixes(C.clean(text))
        if C.channel(pre) != chan:
            continue
        if text in ahead and not C.TORCH_HEADER_RE.search(body):
            continue
        st = find_stamp(body, year_hint)
        if st is not None:
            return st.us
    return None


def classify_line(text: str, stream: Stream) -> tuple[str, Level, dict]:
    """(kind, level, extras) for one cleaned, prefix-stripped line."""
    info: dict = {}
    p = parse_plog(text)
    if p is not None:
        level = Level.parse(p.level)
        info["module"] = p.module
        info["pid"] = p.pid
        msg = p.message
        info["message"] = msg
        if p.mindspore and _SYNC.search((p.func or "") + " " + msg):
            return "sync", level, info
        if p.mindspore and re.search(r"TaskFailCallback|SyncStream|RunTask|Sync", p.func or ""):
            return "sync", level, info
        if p.module in _BENIGN_MODULES or _BENIGN_PLOG.search(msg):
            if _TABLE_ROW.match(msg) or "LINK_ERROR_INFO" in msg or "dest_ip" in msg or "comm error" in msg:
                return "table", level, info
            return "benign", level, info
        if _HEARTBEAT.search(msg):
            return "heartbeat", level, info
        if level < Level.ERROR:
            codes = string_codes(msg)
            if codes or numeric_codes(msg) or "error from device" in msg:
                return "warning_code", level, info
            return "context", level, info
        if _RELAY.search(msg):
            return "relay", level, info
        if _TIMEOUT.search(msg):
            return "timeout", level, info
        if _SYNC.search(msg) and not re.search(r"107030|capture", msg):
            return "sync", level, info
        if _OOM.search(msg):
            return "oom", level, info
        return "plog", level, info

    stripped = text.strip()
    if not stripped:
        return "context", Level.NONE, info
    # CANN error-manager block (gen1/2/3, banner, inline)
    if C.CANN_BANNER.match(stripped):
        return "wrapper", Level.ERROR, info
    m = C.CANN_GEN3.match(stripped) or C.CANN_GEN2.match(stripped) or C.CANN_GEN1.match(stripped)
    inline = C.CANN_INLINE.search(stripped)
    if m or inline:
        code = (m.group(1) or (m.lastindex and m.group(5))) if m else inline.group(1)
        if m and C.CANN_GEN3.match(stripped):
            code = m.group(5)
        info["cann_code"] = code
        detail_text = stripped
        if C.DEVICE_EXC_RE.search(stripped) or "error from device" in stripped:
            return "device_exc", Level.ERROR, info
        if _IMPORT.search(detail_text) or re.search(r"opp_kernel|binary_info_config", detail_text):
            info["env_hint"] = True
        if re.search(r"wait for compute device to finish failed", detail_text):
            return "cann_trace", Level.ERROR, info
        if code in ("EI0002", "EI0006", "EE1002") or _TIMEOUT.search(detail_text.split("Reason")[0]):
            return "timeout", Level.ERROR, info
        return "cann_detail", Level.ERROR, info
    if C.CANN_TRACEBACK_RE.match(text):
        return "cann_trace", Level.ERROR, info
    if C.DEVICE_EXC_RE.search(stripped) or stripped.startswith(("The extend info", "The error from device")):
        return "device_exc", Level.ERROR, info
    if C.TORCH_HEADER_RE.search(stripped):
        return "wrapper", Level.ERROR, info
    if C.ERROR_TEXT_RE.match(stripped) or stripped.startswith("Rectify the fault"):
        return "wrapper", Level.ERROR, info
    if _WRAPPER_TEXT.search(stripped):
        return "wrapper", Level.ERROR, info
    if _CRASH.search(stripped):
        return "crash", Level.CRITICAL, info
    if _OOM.search(stripped):
        return "oom", Level.ERROR, info
    if _IMPORT.search(stripped):
        return "import", Level.ERROR, info
    torch = C.TORCH_NPU_FUNC_RE.search(stripped)
    if torch:
        info["wrapped_code"] = int(torch.group(6))
        if re.search(r"NPU warning", stripped):
            return "wrapper", Level.WARNING, info
        return "wrapper", Level.ERROR, info
    if re.search(r"NPU warning, error code is|Warning: .*error code is", stripped):
        return "wrapper", Level.WARNING, info
    if C.TRACEBACK_RE.match(stripped) or C.FRAME_RE.match(text) or stripped.startswith(
            ("During handling of the above exception", "The above exception was the direct cause")):
        return "context", Level.ERROR, info
    exc = C.EXCEPTION_RE.match(stripped)
    if exc:
        name = exc.group(1)
        if name.endswith("Warning"):
            if string_codes(stripped):
                return "warning_code", Level.WARNING, info
            return "context", Level.WARNING, info
        if _TIMEOUT.search(stripped):
            return "timeout", Level.ERROR, info
        if _SYNC.search(stripped):
            return "sync", Level.ERROR, info
        return "exception", Level.ERROR, info
    if re.search(r"\bWarning\b|\bWARNING\b|\[W\d{4}", stripped):
        if string_codes(stripped) or "error from device" in stripped:
            return "warning_code", Level.WARNING, info
        return "context", Level.WARNING, info
    if re.search(r"\b(?:ERROR|CRITICAL|FATAL)\b|[Ee]rror:|[Ff]ailed|FAILED", stripped):
        codes = string_codes(stripped)
        if codes and not all(is_inner_code(c) for c in codes):
            return "plog", Level.ERROR, info
        if _TIMEOUT.search(stripped):
            return "timeout", Level.ERROR, info
        return "log_error", Level.ERROR, info
    return "context", Level.INFO, info


def build_events(source: Source, hits: list[LineHit], indexes: list[FileIndex]) -> list[ErrorEvent]:
    """Turn one source's hits into events, grouping multi-line shapes."""
    events: list[ErrorEvent] = []
    year_hint = None
    for f in source.files:
        idx = indexes[f.file_id]
        y = idx.guess_year()
        if y:
            year_hint = y
            break
    open_block: ErrorEvent | None = None  # a CANN detail / device event that owns indented lines
    in_traceback = False
    device_serials: dict[tuple[int | None, str], ErrorEvent] = {}
    last_line: dict[int, int] = {}
    for hit in hits:
        raw = hit.text
        cleaned = C.clean(raw)
        text, pre = C.strip_prefixes(cleaned)
        kind, level, info = classify_line(text, source.stream)
        if pre.level in ("WARNING", "INFO", "DEBUG") and TIER.get(kind, 9) <= 1 and kind != "warning_code":
            # a logger WARNING/INFO line is a cause only with a code, an aclError number or device text
            if not (string_codes(text) or numeric_codes(text) or "error from device" in text):
                kind, level = "context", Level.parse(pre.level)
        ref = LineRef(hit.file_id, hit.line)
        contiguous = last_line.get(hit.file_id, -5) == hit.line - 1
        last_line[hit.file_id] = hit.line
        indented = C.is_continuation(text)
        if C.CANN_TRACEBACK_RE.match(text):
            in_traceback = True
        elif not indented:
            in_traceback = False
        if kind == "context" and not indented:
            continue
        # continuation lines join the open block (device exception lines form their own events)
        if open_block is not None and contiguous and indented and kind not in ("device_exc",):
            open_block.lines.append(ref)
            if in_traceback and kind not in ("cann_detail",):
                continue
            if kind in ("context", "log_error", "plog", "relay", "cann_trace"):
                continue
        if not contiguous and not indented:
            open_block = None
        idx = indexes[hit.file_id]
        own = _own_time(text, year_hint) if kind != "device_exc" or C.CANN_GEN2.match(text.strip()) else None
        if own is None and kind == "device_exc":
            own = ts6_to_us(text)
        if own is not None:
            t, inherited = own, False
        else:
            chan = C.channel(pre) if source.stream is Stream.STDOUT else None
            if chan is not None:
                # None when the channel has no stamp nearby: the next stamp fills it in later
                prefix = cleaned[: len(cleaned) - len(text)]
                t = _channel_time(idx, hit.line, chan, prefix[: prefix.find(")") + 1 or prefix.find("]") + 1],
                                  year_hint)
            else:
                t, _ = idx.line_time(hit.line)
            inherited = True
        if in_traceback and kind not in ("cann_detail", "device_exc"):
            kind = "cann_trace"
        ev = ErrorEvent(
            ref=ref, source_id=source.source_id, stream=source.stream, text=raw,
            level=line_level(raw, source.stream),  # the level the panes show (formats.levels)
            time=(t + source.clock_offset_us) if t is not None else None,
            printed_time=t, time_inherited=inherited, kind=kind,
            codes=string_codes(text), numeric=numeric_codes(text), module=info.get("module"),
            pid=pre.pid if pre.pid is not None else (info.get("pid") or source.pid),
            rank=pre.rank if pre.rank is not None else source.rank,
            device=source.device, lines=[ref], detail=text.strip(),
        )
        if "cann_code" in info and info["cann_code"] and info["cann_code"] not in ev.codes:
            ev.codes.insert(0, info["cann_code"])
        hdr = C.TORCH_HEADER_RE.search(text)
        if hdr:
            ev.cann_pid = int(hdr.group(2))
            if int(hdr.group(4)) >= 0:
                ev.rank = int(hdr.group(4))
            if int(hdr.group(3)) >= 0:
                ev.device = int(hdr.group(3))
        cm = re.search(r"\[PID: (\d+)\]", text)
        if cm:
            ev.cann_pid = int(cm.group(1))
        om = _OPNAME.search(text)
        if om:
            ev.op_name = next(g for g in om.groups() if g)
        rm = _REMOTE_RANK.search(text)
        if rm:
            ev.attrs["remote_rank"] = int(rm.group(1))
        hm = _CRIMER.search(text)
        if hm:
            ev.attrs["crimer"] = hm.group(1)
        if info.get("env_hint"):
            ev.attrs["env_hint"] = True
        if pre.worker:
            ev.attrs["worker"] = pre.worker
        if kind == "device_exc":
            sm = _SERIAL.search(text)
            serial = sm.group(1) if sm else None
            head = device_serials.get(serial) if serial else None
            if (head is None and open_block is not None and open_block.kind == "device_exc" and contiguous
                    and (serial is None or open_block.attrs.get("serial") in (None, serial))):
                head = open_block
            if head is not None:
                head.lines.append(ref)
                if serial and head.attrs.get("serial") is None:
                    head.attrs["serial"] = serial
                    device_serials[serial] = head
                if "errorStr" in text and "anchor_line" not in head.attrs:
                    es = C.ERRORSTR_RE.search(text)
                    head.detail = es.group(1) if es else text.strip()
                    head.attrs["anchor_line"] = ref
                elif "anchor_line" not in head.attrs and "first_exc_line" not in head.attrs \
                        and C.DEVICE_EXC_RE.search(text):
                    head.attrs["first_exc_line"] = ref
                continue
            if serial:
                device_serials[serial] = ev
            ev.attrs["serial"] = serial
            if "errorStr" in text:
                ev.attrs["anchor_line"] = ref
                es = C.ERRORSTR_RE.search(text)
                if es:
                    ev.detail = es.group(1)
            elif C.DEVICE_EXC_RE.search(text):
                ev.attrs["first_exc_line"] = ref
            open_block = ev
        elif kind in ("cann_detail",):
            open_block = ev
        events.append(ev)
    return events
