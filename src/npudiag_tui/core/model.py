"""The shared vocabulary of the engine: streams, levels, categories, sources, events.

Everything here is plain data so that discovery, indexing, diagnosis, the report and the TUI
can pass it around without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, IntEnum


class Stream(str, Enum):
    """Where a line came from. HCCL is a *view* over plog/device lines, not a stream."""

    PLOG = "plog"
    DEVICE = "device"
    STDOUT = "stdout"


class Level(IntEnum):
    """Severity, ordered so that `level >= Level.WARNING` reads naturally."""

    NONE = 0
    TRACE = 1
    DEBUG = 2
    INFO = 3
    EVENT = 4
    WARNING = 5
    ERROR = 6
    CRITICAL = 7

    @classmethod
    def parse(cls, word: str) -> "Level":
        word = word.upper()
        if word in ("WARN", "W"):
            return cls.WARNING
        if word in ("E", "FATAL"):
            return cls.ERROR if word == "E" else cls.CRITICAL
        if word == "I":
            return cls.INFO
        try:
            return cls[word]
        except KeyError:
            return cls.NONE


CATEGORIES = (
    "operator",
    "communication",
    "stream_event",
    "memory",
    "device",
    "compile",
    "environment",
    "unknown",
)

class EventKind(str, Enum):
    """What an error-like event is, for the anchor choice (docs/diagnosis.md, "Kinds and tiers").

    A str-Enum whose hash is its value's, so a kind reads, compares and keys dicts as its name.
    `tier` orders causal strength: 0 explains on its own, 1 explains when nothing stronger is
    there, 2 waits on someone else (a victim unless nothing causal precedes it), 3 an untyped error
    line, 4-6 restatements of an error told elsewhere, 9 never an anchor.
    """

    CANN_DETAIL = "cann_detail"  # the detail line of a CANN error-manager block
    DEVICE_EXC = "device_exc"  # a fault of this device: AI Core/AIV/AI CPU exception or execution timeout
    PLOG = "plog"  # an [ERROR] line of a plog/device log with no more specific shape
    DRIVER = "driver"  # a driver call that failed (`[drv api] ... failed`, drvRetCode)
    OOM = "oom"
    IMPORT = "import"  # a library or module that could not be loaded
    CRASH = "crash"  # a native crash with nothing explicit before it
    WARNING_CODE = "warning_code"  # a real error printed at WARNING level
    ENV = "env"
    EXCEPTION = "exception"
    TIMEOUT = "timeout"  # a wait on a peer or a collective that expired
    LOG_ERROR = "log_error"  # a logger ERROR line without a recognised shape
    RELAY = "relay"  # restates a failure of a call below it
    SYNC = "sync"  # a synchronize / replay / task-fail callback that noticed a failure
    CANN_TRACE = "cann_trace"  # outer layers of a CANN block (TraceBack)
    TABLE = "table"  # HCCL analyser tables and banners: evidence naming peers
    HEARTBEAT = "heartbeat"
    WRAPPER = "wrapper"  # exception, header, banner or summary around an error told elsewhere
    BENIGN = "benign"  # known noise at ERROR level
    ABORT = "abort"  # abort/terminate/core dump right after an explicit error of the same process; a stop signal
    CONTEXT = "context"  # not an error

    def __hash__(self) -> int:
        return str.__hash__(self.value)

    def __str__(self) -> str:
        return self.value

    @property
    def tier(self) -> int:
        return _TIERS[self]


_TIERS = {
    EventKind.CANN_DETAIL: 0, EventKind.DEVICE_EXC: 0, EventKind.PLOG: 0, EventKind.DRIVER: 0,
    EventKind.OOM: 0, EventKind.IMPORT: 0, EventKind.CRASH: 0, EventKind.WARNING_CODE: 0, EventKind.ENV: 0,
    EventKind.EXCEPTION: 1, EventKind.TIMEOUT: 2, EventKind.LOG_ERROR: 3, EventKind.RELAY: 4,
    EventKind.SYNC: 4, EventKind.CANN_TRACE: 4, EventKind.TABLE: 5, EventKind.HEARTBEAT: 5,
    EventKind.WRAPPER: 6, EventKind.ABORT: 4, EventKind.BENIGN: 9, EventKind.CONTEXT: 9,
}


RELATIONS = ("wrapper", "timeout_victim", "sync_failure", "repeat", "consequence")


@dataclass
class SourceFile:
    """One physical file (or archive member) that belongs to a logical source.

    `path` is what the reader opens (a real file, possibly inside a private temp folder for
    archives); `display` is what reports and the UI show (relative to the opened root, with
    `archive.tar.gz!inner/path` for archive members).
    """

    path: str
    display: str
    file_id: int = -1
    size: int = 0
    name_time: int | None = None  # creation time from a CANN file name, µs since epoch


@dataclass
class Source:
    """A logical stream: the rotated files of one process chained in order, or one console file."""

    source_id: int
    stream: Stream
    files: list[SourceFile]
    pid: int | None = None
    device: int | None = None
    rank: int | None = None
    label: str = ""
    run_kind: str | None = None  # debug | run | security for CANN layouts


@dataclass(frozen=True, order=True)
class LineRef:
    """A line in a file: `file_id` indexes the opened set, `line` is 0-based."""

    file_id: int
    line: int


@dataclass
class ErrorEvent:
    """One error-like happening, possibly spanning several lines (a block, a traceback, a table).

    `time` is the recorded time in µs since the epoch (naive local clock of the log);
    `printed_time` is when the carrying line was printed, which differs from `time` for CANN
    blocks that carry their own recording stamp.
    """

    ref: LineRef
    source_id: int
    stream: Stream
    text: str
    level: Level
    time: int | None = None
    printed_time: int | None = None
    time_inherited: bool = False
    kind: EventKind = EventKind.LOG_ERROR
    codes: list[str] = field(default_factory=list)
    numeric: dict[str, int] = field(default_factory=dict)  # domain -> value ("acl", "aclnn", "hccl", ...)
    module: str | None = None
    pid: int | None = None
    cann_pid: int | None = None
    rank: int | None = None
    device: int | None = None
    op_name: str | None = None
    lines: list[LineRef] = field(default_factory=list)  # the multi-line group, head first
    detail: str = ""  # the most specific text of the group (detail line, errorStr, ...)
    fragment: str | None = None  # the escaped sub-line (`\\n` inside one physical line) the event is
    block_numeric: dict[str, int] = field(default_factory=dict)  # statuses printed by the block's other lines
    block_stage: str | None = None  # the stage its block's TraceBack says failed (a graph compile)
    category: str = "unknown"
    benign: bool = False
    # a failure the job went on from (an import it caught, an operator entry the op-info library
    # skipped): the anchor only when nothing else failed
    tolerated: bool = False
    secondary: str | None = None  # relation when this event is part of a cascade
    explained_by: int | None = None  # index of the event that explains it
    code: str | None = None  # the code the diagnosis reports for it (its own, or its event's)
    device_event: bool = False  # a device exception: its lines are one event per serial number
    serial: str | None = None  # the device exception's serial number
    comm_wait: bool = False  # a device task timeout that waited on a peer (communication)
    dump: bool = False  # told by the console dump shape (DEVICE[n] PID[n], Exception/Message info)
    anchor_line: LineRef | None = None  # the line that names the cause (errorStr, Message info)
    first_exc_line: LineRef | None = None  # the first line of a device exception
    remote_rank: int | None = None  # the peer a timeout names (`remote rank: [n]`)
    crimer: str | None = None  # the suspect a heartbeat names
    suspect_rank: int | None = None  # the rank the timeouts point at (set by the diagnosis)
    waits_on: tuple[str, ...] = ()  # the peers a link set-up wait names (`device 1`, `rank 8`)
    suspect_peer: str | None = None  # the peer most processes waited on, on the wait chosen for it
    env_hint: bool = False  # the text speaks of a missing package or library
    throw_site: str | None = None  # where c10 threw it (`OperationSetup at …/op_plugin_atb…`)
    raised_in: str | None = None  # the innermost Python frame of its traceback (`__post_init__ at …/config.py`)
    worker: str | None = None  # the launcher's worker name
    stale: bool = False  # before the final episode of errors

    def __post_init__(self) -> None:
        self.kind = EventKind(self.kind)  # a kind given by name reads the same as the member


@dataclass
class NextAction:
    """One small, concrete step: a command or an environment setting, and why it helps."""

    action: str
    why: str
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Situation:
    """What the action planner needs to know about the diagnosis, and nothing more."""

    category: str
    code: str | None = None
    text: str = ""  # the anchor's text
    streams: frozenset[str] = frozenset()  # streams present in the inputs: plog, device, stdout
    rank_count: int = 0  # distinct ranks seen
    root_rank: int | None = None
    timeouts_only: bool = False  # every error found is a timeout / victim; no root visible
    compile_stage: str | None = None  # eager | dynamo | backend | capture | replay
    has_device_logs: bool = False
    has_info_lines: bool = False  # INFO/DEBUG present, i.e. the log level was raised
    op_name: str | None = None
    crashed: bool = False  # the anchor's process shows a signal, segfault, core dump or abort
    building: bool = False  # it failed while building or converting (a compiler, CMake, make, ATC), not running


@dataclass
class RankRole:
    rank: int
    first_error_time: int | None
    role: str  # root | victim | healthy | unknown


@dataclass
class Candidate:
    """A competing event a user would suspect, and why it is not the anchor (one phrase:
    "wrapper of the anchor", "stale by 2 h", "timeout victim of rank 5", "benign noise"...)."""

    event: ErrorEvent
    why_not: str


@dataclass
class Diagnosis:
    """The answer: the anchored first causal error, its cascade, and what to do next."""

    anchor: ErrorEvent | None
    cascade: list[ErrorEvent]
    events: list[ErrorEvent]  # every scanned event, in aligned time order
    category: str = "unknown"
    summary: str = ""
    guidance: dict[str, object] | None = None
    root_cause: str = ""
    evidence: list[str] = field(default_factory=list)
    # each evidence sentence as parts, "".join(parts) == the sentence: odd parts quote the logs
    # (a place, a log line), even parts are prose, so a report can show quotes as data
    evidence_parts: list[tuple[str, ...]] = field(default_factory=list)
    next_actions: list[NextAction] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    ranks: list[RankRole] = field(default_factory=list)
    compile_stage: str | None = None
    why: str = ""  # one sentence: what made the anchor the anchor
    confidence: str | None = None  # high | medium | low; None when there is no anchor
    confidence_reason: str = ""  # the confidence in words ("the anchor is a timeout and ...")
    candidates: list[Candidate] = field(default_factory=list)  # up to five competitors, strongest first
