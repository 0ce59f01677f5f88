"""Console output grammars: transport noise, launcher prefixes, torch_npu blocks, tracebacks.

docs/formats.md, "Console output". The functions here only take a line apart; deciding what a line
means for the diagnosis is the job of `core.diagnosis.events`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from npudiag_tui.core.formats.bounded import Anchored
from npudiag_tui.core.formats.codes import CODE_PATTERN, is_inner_code
from npudiag_tui.core.formats.text import CONTROL_RE

# With ESC (or its caret form) any SGR; with ESC lost, demand a digit so `[memory.cpp:608]` survives.
_ANSI = re.compile(r"(?:\x1b|\^\[)\[[0-9;]*m|(?<![\w\]])\[[0-9;]*[0-9][0-9;]*m")
_CARET_CR_END = re.compile(r"(?:\^M)+$")
FAILURE_WORD = r"\b[Ff]ail(?:ed|s|ure)?\b"
# a failed check's condition printed as the whole message, at the line's end (`… [Line 29]
# input_shape.size() < 2.`): an operand (a name, a call, an index), a comparison, an operand
CHECK_CONDITION = (r"(?:^|[\s\]:])[A-Za-z_][\w.]*(?:\(\)|\[\w+\])?(?:\.[A-Za-z_]\w*(?:\(\))?)* ?(?:[<>]=?|[!=]=) ?"
                   r"-?[\w.]+(?:\(\))?\.?[ \t\r]*$")
# One control policy (formats.text): grammars see the text with those characters removed.
_CTRL = CONTROL_RE
_RAY_PREFIX = re.compile(r"^\((\w[\w.-]*(?: [\w=.-]+)*?) pid=(\d+)(?:, ip=([\d.]+))?\) ?")
_REPEATED = re.compile(r"^\[repeated (\d+)x across cluster\] ")
_VLLM_LOGGER = re.compile(  # vllm-omni tags its stages before the level (`[Stage-0] ERROR 03-02 …`)
    # (newer releases print the year too: `ERROR 2026-01-12 16:28:02.921 [multiproc_executor.py:824]`)
    r"^(?:\[[A-Za-z][\w.-]{0,30}\] )?(DEBUG|INFO|WARNING|ERROR|CRITICAL) ((?:\d{4}-)?\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.\d+)? "
    r"\[?([\w./-]+\.py):(\d+)\] ?"
)
_C10_PREFIX = re.compile(r"^\[rank(\d+)\]:")
_PDSH = re.compile(r"^([\w.-]+-\d+): ")
# Python logging and the loggers built on it: `2026-01-05 16:03:27,514 - name - ERROR - `,
# `… name 13 ERROR `, `… - ERROR - file.py:470 - ` (lmdeploy), loguru `… | ERROR | mod:fn:95 | `.
_PYLOG_PREFIX = re.compile(
    r"^\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.:]\d+)?\]?\s*(?:[-|]\s*)?(?:[\w.]+\s*(?:\d+\s+)?[-|]?\s*)?"
    r"(DEBUG|INFO|WARNING|ERROR|CRITICAL)\s*(?:[-|]\s*)?(?:[\w./<>]+:[\w<>]*:?\d+\s*[-|]\s*)?"
)
# Native loggers: c10 `[E1212 07:22:09.118630254 file.cpp:12] ` (month*100+day, unpadded), glog
# `W0311 07:22:09.1 123 file.cc:9] ` / `I20251111 12:28:58.490254 tid file.cc:9] `, the old
# time-less torch_npu `[W NPUStream.cpp:409] `, llama.cpp's elapsed-time `0.18.782.692 E `, ONNX
# Runtime's `[E:onnxruntime:…]`, and a stamp with a letter and a bar.
_NATIVE_PREFIX = re.compile(
    # glog; a paste rendered as Markdown may have turned the file's underscores into spaces and
    # lost the bracket after its line (`E0805 09:42:09.76 80495 ascend direct transport.cpp:460 `)
    # torch's own logging adds the compile it traces after the bracket (`fake_tensor.py:2721] [0/0] `)
    r"^\[?([EWIF])(?:\d{3,4}|\d{8}) \d\d:\d\d:\d\d\.\d+(?: +\d+)? +[\w./-]+(?: [\w./-]+){0,3}:\d+"
    r"(?:\] ?(?:\[\d+/\d+(?:_\d+)?\] )?| )"
    r"|^ ?\[([EWIF]) [\w./-]+\.(?:cpp|cc|cxx|h|hpp|py|ts):\d+\] ?"  # torch_npu's build names its files .ts
    r"|^\d+\.\d\d\.\d{3}\.\d{3} ([EWID]) "
    # ONNX Runtime `2023-12-13 20:11:34.351330063 [E:onnxruntime:Default, cann_call.cc:139 CannCall] `
    r"|^(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ )?\[([VIWEF]):onnxruntime:[^,\]]{0,80}, +[\w./-]+:\d+ \w+\] ?"
    # a letter and a bar after the stamp (PyPTO: `2025-12-17 14:31:32.491 E | `)
    r"|^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? ([DIWEF]) \| "
)
_NATIVE_LEVEL = {"E": "ERROR", "W": "WARNING", "I": "INFO", "F": "CRITICAL", "D": "DEBUG", "V": "DEBUG"}
# Server loggers with bracketed fields: MindIE `[2025-12-05 13:26:00.197+08:00] [pid] [tid] [server]
# [ERROR] [file.cpp:37] : `, ATB `[2025-05-13 02:25:58.64217] [error] [tid] [file:line] `, the torch_npu
# distributed logger `[285] [2025-12-12 12:10:10:644] torch.distributed: [ERROR] [479] `.
# ATB's logger without its stamp (`[error] [1079] [multi_latent_attention_operation.cpp:91] `)
_ATB_LOGGER = re.compile(r"^\[(error|warn(?:ing)?|info|debug|critical|fatal)\] \[\d+\] \[[\w./-]+:\d+\] ?")
# a stamp, the thread id and the level as a word, then the source line (MindIE's mindservice.log:
# `2024-07-01 10:59:22.535626 460279 error infer_engine_inner.cc:257] `)
_THREAD_LOGGER = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \d+ (error|warn(?:ing)?|info|debug|critical|fatal) "
                            r"[\w./-]+:\d+\] ?")
_BRACKET_LOGGER = re.compile(
    r"^(?:\[\d+\] )?\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,:]\d+)?(?:[+-]\d\d:?\d\d)?\] ?(?:[\w.]+: )?"
    r"(?:\[[^\]\[]{0,40}\] ?){0,4}\[(ERROR|WARN(?:ING)?|INFO|DEBUG|CRITICAL|FATAL|error|warn(?:ing)?|info|debug|"
    r"critical|fatal)\] ?(?:\[[\w./-]+(?::\d+)?\] ?)?(?::\s*)?"
)
# Envelopes around a line that carry no meaning of their own (transport noise): a Markdown quote, the
# backticks of a pasted fence, a test runner's failure marker, a compose service column, a tag such
# as `[RAW SERVER]`, Markdown bold, a terminal pane's border, and an application's own label (`CANN error: `, `RecentErrMsg: `) in front of a
# CANN code or block. A bounded set, tried a bounded number of times, so a line cannot make it loop.
_ENVELOPE = re.compile(
    r"^(?:> ?|`{1,3}(?=\S)|E {7}|[\w.-]+ {2,}\| |\[[A-Z]+ [A-Z]+\] "  # pytest's `E` column is 8 wide
    r"| *\d{1,7}\t"  # a line number and a tab: a paste from `cat -n` or an editor
    r"|\[[A-Z][A-Za-z]*\]\t>>> "  # MindIE's component marker (`[Model]\t>>> `, `[Tokenizer]\t>>> `)
    r"|(?:\.{3,}|…+) ?(?=[EW][0-9A-Z]\d{4}[:\[ ]|\[ERROR\] )"  # a paste's elision mark before a CANN line
    r"|\*\*(?=[^\s*])"  # Markdown bold that a reporter opened on a line (glibc's `*** Error` has three)
    r"|[│┃║] ?"  # a terminal pane's border, copied with its lines (k9s, tmux, a TUI's log view)
    r")"
)
_APP_LABEL = re.compile(
    r"^(?:\[ERROR\] )?(?:[\w./-]+:\d+: )?(?![EW][0-9A-Z]\d{4}\b)[A-Za-z][\w]*(?: [A-Za-z]\w*)? ?(?:error|Error|ERROR|ErrMsg|Msg)?: ?"
    r"(?=[EW][0-9A-Z]\d{4}(?::|\[PID)|\[PID:)"
)
_TRAILING_FENCE = re.compile(r"`{3}\s*$")
# the name ends in Error/Exception/…; Python's base `Exception` is raised by name too
EXCEPTION_RE = re.compile(r"^((?:[A-Za-z_][\w.]*)?Exception|[A-Za-z_][\w.]*(?:Error|Interrupt|Exit|Warning)|"
                          r"torch\._dynamo\.exc\.Unsupported|"  # what Dynamo cannot trace
                          # ONNX Runtime's Python binding names its exceptions by status (`…_state.Fail`)
                          r"(?:[\w.]*\.)?onnxruntime_pybind11_state\.[A-Z]\w*): ?(.*)$")
# torch_npu's wrapper of a failed call: `file:line NPU function error: X, error code is N`, and the
# older `Sync:file:line NPU error, error code is N` without the function.
# Tried only around its literal (formats.bounded): `(.+?):(\S+?):` at every start position of a
# long line without it is cubic. No part can cross a space or a colon
# it does not name, so each try is linear too.
TORCH_NPU_FUNC_RE = Anchored(
    r" (?:NPU|OPS|HCCL)(?: function)? error",
    r"(?:([^\s:]+):)?([^\s:]+):(\d+) (NPU|OPS|HCCL)(?: function)? error(?:: (.*?))?, error code is (\d+)",
    start_after=" \t:", before=512,
)
# torch_npu before the `function error` wording: `NPU error,NPU error code is:100000`
OLD_TORCH_WRAPPER_RE = re.compile(r"NPU error, ?NPU error code is:? ?\d+")
# a plugin or library that could not be loaded by its `.so` name ("Fail to load so file x.so")
# (or named by its file: `Failed to load the libdcmi.so dynamic library`)
SO_LOAD_FAILED = r"[Ff]ail(?:ed)? to (?:load|open) (?:the )?(?:[\w ]{0,30} )?(?:so\b|lib[\w+-]*\.so\b)"
# a call to one of the driver's tools that failed (`Failed to call hccn_tool, try to read
# /etc/hccn.conf instead`): the machine's set-up refused what a script asked of it
DRIVER_TOOL_FAILED = r"\b[Ff]ail(?:ed)? to (?:call|run|execute|exec) (?:the )?(?:hccn_tool|npu-smi|ascend-dmi|msnpureport)\b"
# torch_npu looking up a CANN function by name and not finding it in the loaded libraries
# (`Warning: Failed to find function aclsysGetCANNVersion`): a CANN older than the build expects
MISSING_FUNCTION = r"\bFailed to find function \w+"
# MindData's watch on the data pipeline in sink mode (`it takes more than 25 seconds to fetch a batch
# of data from dataset pipeline, which might result GetNext timeout problem`): the device's GetNext
# waits for what the host has not produced yet
DATA_STARVED = r"\btakes? more than \d+ ?s(?:econds?)? to fetch a batch of data\b"
DATA_STARVED_NEEDLE = "to fetch a batch of data"  # its literal part, for the scan's WARNING filter
# two installed parts of different releases (`The opp version of the model does not match the current
# opp run package`, MindSpore's `MindSpore version 2.3.1 and … version 7.5 does not match`)
RELEASES_DIFFER = (r"\bversion\b.{0,120}\b(?:(?:does not|doesn't|do not) match|are expected to be "
                   r"(?:consistent|the same))\b")  # MindSpore Serving: `… are expected to be consistent`
# the host's own limits, in the C library's words whatever tool prints them (tar's `file name is
# too long (max 256); not dumped` has no error word): the system refused, nothing failed above it
HOST_LIMIT = (r"(?i:\bfile ?name (?:is )?too long\b|\bno space left on device\b|\bdisk quota exceeded\b|"
              r"\bread-only file system\b|\btoo many open files\b|"
              # the host's network (ENETUNREACH, EHOSTUNREACH): a download or a peer it cannot reach
              r"\bnetwork is unreachable\b|\bno route to host\b)")
# a tool's report that a path it needs is not there, in the C library's words for ENOENT
# (`/lib/modules/5.10.0/build: No such file or directory.`): the whole line is the path and the
# error (a compiler's missing header keeps its `fatal error:` shape; Python's `[Errno 2]` is an exception)
PATH_MISSING = r"^\s*\S+: [Nn]o [Ss]uch [Ff]ile or [Dd]irectory\.?\s*$"
TORCH_HEADER_RE = re.compile(
    r"\[ERROR\] (\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d) \(PID:(\d+), Device:(-?\d+), RankID:(-?\d+)\) (ERR\d{5}) (\w+) ?(.*)"
)
# the operator library's report that no compiled kernel matches an operator's inputs (`Cannot find
# bin of op Range, integral key 0/1/|int64/ND/…`, then `Cannot find binary for op Range.`): the
# error manager's message (EZ9999), which a copy may print without its code
# (and the graph engine's EZ3003 message, `No supported Ops kernel and engine are found for [Conv3D1],
# optype [Conv3D].`: no engine has a kernel for the operator)
OP_BINARY_MISSING = re.compile(r"\bCannot find bin(?:ary)? (?:of|for) op \w+|\bNo supported Ops kernel and engine are found for\b")
# the same header quoted without its stamp (`ERR02200 DIST call hccl api failed`): torch_npu's
# code names its submodule (PTA, OPS, DIST, GRAPH, PROF) right after it
TORCH_HEADER_BARE_RE = re.compile(r"ERR\d{5} (?:PTA|OPS|DIST|GRAPH|PROF)\b")


def is_torch_header(text: str) -> bool:
    """torch_npu's `ERRxxxxx` header line, stamped or quoted without its stamp (text without envelopes)."""
    return TORCH_HEADER_RE.search(text) is not None or TORCH_HEADER_BARE_RE.match(text) is not None

ERROR_TEXT_RE = re.compile(r"^\[Error\]: ?(.*)")
TRACEBACK_RE = re.compile(r"^Traceback \(most recent call last\):")
CANN_TRACEBACK_RE = re.compile(r"^\s*TraceBack \(most recent call last\):")
# The error manager's tail naming an operator's tiling or shape-inference code: the operator
# itself refused its inputs, whatever code or wrapper carries the message.
OP_CHECK_SOURCE = re.compile(
    r"\[(?:FUNC:\w*(?:Tiling|InferShape)\w*|FILE:\w*(?:tiling|infershape|infer_shape)\w*\.(?:cpp|cc))\]|"
    # an ATB operation's own parameter check (`[multi_latent_attention_operation.cpp:91] headNum should be …`)
    r"\[\w+_operation\.cpp:\d+\]", re.I)
FRAME_RE = re.compile(r'^\s+File "(.+)", line (\d+), in (.+)$')
# a frame of the C++ backtrace c10 prints under an error (`frame #0: c10::Error::Error(…) + 0xb8 (0x…
# in libc10.so)`): a code location, whose symbol names (`Error::`, `bad_alloc`) say nothing
C10_FRAME_RE = re.compile(r"^frame #\d+: ")
# a frame of glibc's backtrace() as a logger prints it (`/lib/x86_64-linux-gnu/libc.so.6(+0x9caa4)
# [0x7f0c35235aa4]`, `libhcomm.so(_ZN4Hccl…+0xc2) [0x7f…]`), in a plog line or alone: a code
# location under an error, not an error of its own
NATIVE_FRAME_RE = re.compile(r"^\s*(?:\S*/)?[\w.+-]+\.so(?:\.\d+)*\([^()\s]*\) ?\[0x[0-9a-fA-F]+\]\s*$")
# a configuration checker refusing a setting, printed without a level: `Input device_ip [x] is
# invalid`, `Parameter rank_id is invalid in ranktable file`, `npuDeviceID does not allow
# repetitive element` (the setting's name first, then the rule it breaks)
REFUSES_A_SETTING = r"[A-Za-z_][\w.]{0,60} does not allow\b"
SETTING_REFUSED = re.compile(r"^(?:(?:Input|Parameter|Param|Config|Argument)\b.{0,80}\bis invalid\b|"
                             + REFUSES_A_SETTING + ")")
# a shell's notice that its child died of SIGKILL (the OOM killer, a kill -9): bash prints `Killed`
# for a foreground job, `./run.sh: line 12: 48211 Killed   cmd` from a script, `[1]+  Killed   cmd`
# for a background job. A death without a code, and the consequence of any failure before it.
# a launcher told to stop from outside (torchrun's agent: `Received Signals.SIGINT death signal, shutting
# down workers`): a user's Ctrl-C, a scheduler's time limit or preemption, or a stop after another
# node failed. The errors of the workers shutting down come after it
STOP_SIGNAL = re.compile(r"Received Signals\.SIG(?:INT|TERM|HUP|QUIT|USR1|USR2) death signal")


def stop_signal(text: str) -> bool:
    """Whether a line is a launcher's notice that it was told to stop (`STOP_SIGNAL`)."""
    return "death signal" in text and STOP_SIGNAL.search(text) is not None


KILLED_NOTICE = re.compile(r"^(?:Killed|.{0,300}: line \d+: +\d+ Killed\b.*|\[\d+\][+-]? +Killed\b.*)$")
# glibc's allocator aborting the process on a corrupted heap: the crash's own reason (the
# `Aborted (core dumped)` after it only reports the signal)
HEAP_CORRUPTION = re.compile(r"double free or corruption|\b(?:free|realloc)\(\): invalid (?:pointer|size|next size)|"
                             r"\bmalloc\(\): (?:memory corruption|corrupted|unaligned)|munmap_chunk\(\): invalid pointer|"
                             r"corrupted size vs\.? prev_size|corrupted double-linked list")
# the kernel's record of a hardware fault (APEI/GHES `[Hardware Error]`, an uncorrectable or
# multi-bit ECC error of the HBM), as the device's black box (kbox) or the host's dmesg keeps it:
# the chip or its memory failed, whatever the job did
HARDWARE_FAULT = re.compile(r"\[Hardware Error\]|\bmulti-?bit ECC\b|\b(?:uncorrect(?:able|ed)|multi-?bit) (?:ECC|memory) errors?\b",
                            re.I)
# where c10 threw it, printed under its message: the function and the source that refused
C10_THROW_RE = re.compile(r"^Exception raised from (\S+) at (\S+) \(most recent call first\):")
CARET_RE = re.compile(r"^\s*[\^~]+\s*$")
ERRORSTR_RE = re.compile(r"errorStr: ?(.*?)(?:\s+\w+_error\d info:|$)")

# --- the CANN error-manager detail (docs/formats.md): one grammar for every generation --------------
# A detail is a CODE followed within a few tokens by a full stamp, with an optional `[PID: n]` in
# any of its printed shapes (`[PID: 11657]`, `[PID:  [881460]`), an optional gen3 `Title(CODE):`,
# then the message. Without a stamp only two shapes are details: the banner and the two-space
# `E39999  message` that some releases print.
_TS6_TEXT = r"\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3}"
_CANN_DETAIL = re.compile(
    rf"^(?:({CODE_PATTERN})(?:: ?| {{2,}}|(?=\[PID)))?(?:\[PID:\s*\[?\s*(\d+)\s*\]?\]:?\s*)?"
    rf"(?:({_TS6_TEXT})\s*)?(?:([A-Za-z_][\w ]*?)?\(({CODE_PATTERN})\):\s*)?(.*)$"
)
_CANN_INLINE = re.compile(rf"detail:\s*(?=({CODE_PATTERN}|\[PID:))")  # gen2 or gen3 carried inline
_BANNER_TEXT = re.compile(r"^(?:Inner Error!|Internal error!)\s*$")
# `Memory_Allocation_Failure`; a paste that cut the line's first letters keeps the shape
# (`clNN_Parameter_Error(EZ1001): …`), which no identifier of a program has in front of a code
_REGISTRY_TITLE = re.compile(r"^(?:[A-Z][A-Za-z]*(?:_[A-Za-z]+)+|[a-z][A-Za-z]*(?:_[A-Z][A-Za-z]*)+)$")
# the error manager's source tail that ends its messages
MANAGER_TAIL = re.compile(r"\[FUNC:\w+\]\[FILE:[\w.]+\]\[LINE:\d+\]\s*$")
_INNER_ONE_SPACE = re.compile(rf"^({CODE_PATTERN}) (?=[^\s:(\[])")
# a banner stays a banner whatever carries it (a c10 warning, a logger, an exception message)
BANNER_PAYLOAD = re.compile(rf"(?<![\w])({CODE_PATTERN}): (?:Inner Error!|Internal error!)\s*$")


@dataclass(frozen=True)
class CannDetail:
    code: str
    pid: int | None
    stamp: str | None  # the recorded time, TS6 text
    title: str | None
    message: str
    banner: bool  # `EZ9999: Inner Error!`: says nothing by itself


def parse_cann_detail(text: str) -> CannDetail | None:
    """The CANN detail a line holds at its start (after envelopes), or inline after `detail:`."""
    t = text.strip()
    inline = _CANN_INLINE.search(t) if "detail:" in t else None
    if inline is not None:
        t = t[inline.start(1):]
    m = _CANN_DETAIL.match(t)
    if m is None:
        return None
    lead, pid, stamp, title, paren, message = m.groups()
    code = paren or lead
    if code is None:
        # the two-space `E89999  op[Add_718], …` after an inner code's banner, as a web page or a
        # copy shows it with its spaces collapsed: only an inner code, whose lines are all the
        # error manager's, is read so
        one = _INNER_ONE_SPACE.match(t)
        if one is None or not is_inner_code(one.group(1)) or _BANNER_TEXT.match(t[one.end():]):
            return None
        return CannDetail(one.group(1), None, None, None, t[one.end():].strip(), False)
    banner = lead is not None and stamp is None and pid is None and bool(_BANNER_TEXT.match(message))
    two_space = lead is not None and stamp is None and pid is None and t[len(lead):len(lead) + 2] == "  "
    # torch_npu's `call aclnnX failed, detail:CODE: …` marks the detail itself: a report whose PID
    # and stamp were masked (`[PID: xxx] 2025-xx-xx-17:44:xxx`) keeps it
    # a code and its PID with the error manager's source tail (`E19999[PID: 9]: msg[FUNC:f][FILE:x.cc]
    # [LINE:1]`, a tool that prints no stamp) is the message itself
    signed = bool(pid and lead and MANAGER_TAIL.search(message))
    # the registry's title in front of its code (`AclNN_Parameter_Error(EZ1001): …`, `Resource_Busy(EL0005):`)
    # is the error manager's own shape, with or without the stamp a paste may have dropped
    titled = bool(paren and title and _REGISTRY_TITLE.match(title.strip()))
    if not (stamp or banner or two_space or (pid and paren) or signed or titled
            or (inline is not None and lead is not None)):
        return None
    return CannDetail(code, int(pid) if pid else None, stamp, (title or "").strip() or None, message.strip(), banner)


# --- device exceptions (docs/formats.md), recognised by their stable fields ----------------------
# Every release names the device and a serial number; the rest is worded differently (`there is an
# aivec error`, `there is an exception of aivec error`, `there is an aivec error exception`, CANN 9's
# `the error is fftsplus aivector error`, or a task timeout sentence).
_DEVICE_HEAD = re.compile(
    r"(?:error from device|error occurs on the device)\s*\((?:chipId:\s*(\d+),\s*dieId:\s*(\d+)|(\d+))\),\s*"
    r"(?:the )?serial number is (\d+)[,.]\s*(.*)", re.I)
_DEVICE_TYPE = re.compile(
    r"(?:there is an? (?:exception of )?|the error is )(.+?) error(?: exception)?, core id is (\d+)"
    r"(?:, error code = (0x[0-9a-fA-F]+|\d+))?")
_DEVICE_TIMEOUT = re.compile(r"^(.*?timeout)\b.*?occurred", re.I)
# waits on a peer reported in the device envelope: collectives, notifies, events, SDMA copies
_COMM_WAIT = re.compile(r"hccl|sdma|notify|event wait|rdma|hccs|roce", re.I)
_NOTIFY_SUBTYPE = re.compile(r"\bsubType\s*=\s*\d+\([\w ]{0,40}\bnotify\b", re.I)
# the old console dump of a device exception: `DEVICE[0] PID[358]:`, `EXCEPTION TASK:`, then
# `Exception info:…`, `Message info[0]:…`, `Other info[0]:time=TS6, …, error code=0x26`
DEVICE_DUMP_HEAD = re.compile(r"^DEVICE\[\d+\] PID\[\d+\]:\s*$|^EXCEPTION (?:TASK|STREAM):\s*$")
DEVICE_DUMP_INFO = re.compile(r"^\s*(Exception info|Message info\[\d+\]|Other info\[\d+\]):")


@dataclass(frozen=True)
class DeviceException:
    device: int | None
    serial: str
    kind: str  # the exception type as printed (`aivec`, `fftsplus aivector`, `hccl fftsplus task timeout`)
    core: int | None
    comm_wait: bool  # a task timeout waiting on a peer (communication), not a fault of this device


def parse_device_exception(text: str) -> DeviceException | None:
    m = _DEVICE_HEAD.search(text)
    if m is None:
        return None
    chip, _die, dev, serial, rest = m.groups()
    device = int(chip if chip is not None else dev)
    tm = _DEVICE_TYPE.search(rest)
    if tm is not None:
        kind = tm.group(1).strip()
        core = int(tm.group(2))
    else:
        to = _DEVICE_TIMEOUT.search(rest)
        kind = to.group(1).strip() if to else rest.split(",")[0].strip()
        core = None
    # the wait's task subtype says what it waited on (`subType = 1(single notify wait)`)
    waits = "timeout" in kind.lower() and bool(_COMM_WAIT.search(kind) or _NOTIFY_SUBTYPE.search(rest))
    return DeviceException(device, serial, kind, core, waits)


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


def strip_colours(line: str) -> str:
    """The line without a terminal's colour codes (SGR), nothing else changed."""
    return _ANSI.sub("", line) if "[" in line and "m" in line else line


def clean(line: str) -> str:
    """Remove transport noise: ANSI colours (with or without ESC), CR-redrawn progress bars,
    no-break spaces, control characters and the envelopes a paste or a runner puts around a line."""
    if "\r" in line:
        parts = [p for p in line.split("\r") if p.strip()]
        line = parts[-1] if parts else ""
    line = strip_colours(line)
    if line.endswith("^M"):  # the caret form of a CR line end (`cat -v`, a terminal's copy), as ESC's above
        line = _CARET_CR_END.sub("", line)
    if "\u00a0" in line:  # a log copied from a web page: its spaces became no-break spaces
        line = line.replace("\u00a0", " ")
    if _CTRL.search(line):
        line = _CTRL.sub("", line)
    return unwrap(line)


def unwrap(line: str) -> str:
    """The line without its envelopes (at most four, outermost first) and a closing fence."""
    for _ in range(4):
        m = _ENVELOPE.match(line)
        if m is None or m.end() == 0:
            break
        line = line[m.end():]
    if line.endswith("`") and _TRAILING_FENCE.search(line):
        line = _TRAILING_FENCE.sub("", line)
    return line


def strip_prefixes(line: str) -> tuple[str, Prefix]:
    """Strip nested launcher/logger prefixes and return (text, what they said)."""
    pre = Prefix()
    for _ in range(8):
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
            pre.level = m.group(1)  # the innermost logger says the line's own level
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
        m = _NATIVE_PREFIX.match(line)
        if m:
            pre.level = _NATIVE_LEVEL[next(g for g in m.groups() if g)]
            line = line[m.end():]
            continue
        m = _PYLOG_PREFIX.match(line)
        if m:
            pre.level = m.group(1)
            line = line[m.end():]
            continue
        m = _BRACKET_LOGGER.match(line) or _ATB_LOGGER.match(line) or _THREAD_LOGGER.match(line)
        if m:
            word = m.group(1).upper()
            pre.level = {"WARN": "WARNING", "FATAL": "CRITICAL"}.get(word, word)
            line = line[m.end():]
            continue
        m = _PDSH.match(line)
        if m and pre.host is None:
            pre.host = m.group(1)
            line = line[m.end():]
            continue
        m = _ENVELOPE.match(line) or _APP_LABEL.match(line)
        if m and m.end() > 0:
            line = line[m.end():]
            continue
        break
    return line, pre


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "'": "'", "\\": "\\", "r": ""}
_ESCAPE_RE = re.compile(r"\\([nt\"'\\r])")
MAX_SEGMENTS = 400


def expand_escaped(line: str) -> list[str]:
    """The sub-lines of a line that carries a whole console block escaped (`\\n` between lines,
    as a logger prints an exception's repr or a JSON error body); the line itself otherwise.

    Two escaped newlines make a block: one alone is as likely a path or a format string.
    """
    if line.count("\\n") < 2:
        return _unflatten(line)
    parts = line.split("\\n", MAX_SEGMENTS)
    return [_ESCAPE_RE.sub(lambda m: _ESCAPES[m.group(1)], p) for p in parts if p.strip()]


# A traceback pasted as one line (newlines turned into spaces): it splits before each frame, each
# exception statement, each CANN code that opens a message and each TraceBack heading.
_FLAT_FRAME = ' File "'
_FLAT_SPLIT = re.compile(
    rf' (?=File "|[A-Z]\w*(?:Error|Exception): |{CODE_PATTERN}: |\[ERROR\] \d{{4}}-|TraceBack \(most recent)')


def _unflatten(line: str) -> list[str]:
    """The sub-lines of a whole traceback pasted as one line; the line itself otherwise. Three
    frames make a flattened traceback: one or two are as likely a message quoting a path."""
    if line.count(_FLAT_FRAME) < 3:
        return [line]
    parts = _FLAT_SPLIT.split(line[:MAX_FLAT_CHARS], MAX_SEGMENTS)
    if len(line) > MAX_FLAT_CHARS:
        parts[-1] += line[MAX_FLAT_CHARS:]
    return [p for p in parts if p.strip()]


MAX_FLAT_CHARS = 64 * 1024  # the split looks this far; the rest stays with the last part


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
