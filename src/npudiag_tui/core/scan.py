"""Error-candidate scan that rides on the indexer's single pass over the bytes.

Plog and device streams follow a strict grammar, so a C-speed regex over each chunk finds the
`[ERROR]`/`[WARNING]` lines (and heartbeat/rank lines) without touching the INFO noise in
Python. Console output has no such grammar: every line is looked at, which is affordable
because console logs are small next to the plogs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from typing import TYPE_CHECKING, Iterator

from npudiag_tui.core.formats.bounded import MAX_GRAMMAR_CHARS
from npudiag_tui.core.formats.codes import CALL_RESULT_RE, CODE_PATTERN, HCCL_CALL_TRACE
from npudiag_tui.core.formats.console import CHECK_CONDITION, DATA_STARVED_NEEDLE, FAILURE_WORD, channel, clean, strip_colours, strip_prefixes
from npudiag_tui.core.model import Stream

if TYPE_CHECKING:  # pragma: no cover
    from npudiag_tui.core.index import Chunk

# A literal "\n[" prefix lets the regex engine skip ahead at C speed; the chunk's first line
# is checked separately with match(). No group and no line tail in the pattern: either one
# costs the engine its literal-prefix search (bench/README.md), so the
# line end is found with bytes.find.
_PLOG_HIT = re.compile(rb"\n\[(?:ERROR|WARNING|CRITICAL|EXCEPTION)\]")
_PLOG_HIT_FIRST = re.compile(rb"\[(?:ERROR|WARNING|CRITICAL|EXCEPTION)\]")
# Plog lines pasted into a report keep an envelope before the header (a Markdown quote, a fence's
# backtick): rare in real plogs, so a literal find of the envelope costs nothing on a big tree.
_ENVELOPED_HEAD = re.compile(rb"(?:> ?|`{1,3})\[(?:ERROR|WARNING|CRITICAL|EXCEPTION)\]")
# searched by the envelope's own characters, and only in files whose first 64 KB show one: each
# search is a pass over the bytes, and files written by CANN itself never carry an envelope
_ENVELOPE_NEEDLES = (b"> [", b">[", b"`[")
# A WARNING is kept only when it may carry a real error: causes are sometimes printed at
# WARNING level (c10/NPU warnings with a code), other warnings are context.
# (and a warning that dismisses the error above it, which the diagnosis must see, MindData's
# warning of a starved device, and ACL's warning that the device set-up failed, which may explain
# the failure after them)
_WARNING_WORTH = re.compile(CODE_PATTERN.encode() + rb"|error code|ErrCode|rror from device|result = \d|errno\[|ret\[|rror cqe|"
                            rb"ignore the (?:above|previous) error|SetDevice\w*:?[^\n]{0,80}fail|"
                            + DATA_STARVED_NEEDLE.encode())
_FOREIGN_BEFORE = 8  # header-less lines read back from a kept plog header
_EXTRA_NEEDLES = (b"HeartbeatAbnormal", b"Cluster Exception Location", b"error cqe")
_RANK_NEEDLES = (b"HcclCommInit", b"rankSize", b"RankID:")

# Console lines that can matter: anything mentioning an error, a code, a crash or a timeout.
# Searched as lower-case literals with str.find (C speed); one big regex alternation was 20x slower.
_CONSOLE_KEYS = (
    "rror", "err0", "exception", "traceback", "warning", "fail", "timeout", "time out", "timed out",
    "out of memory", "outofmemory", "segmentation fault", "segfault", "terminate called", "sigsegv", "sigabrt", "sigbus", "sigkill",
    "sigterm", "core dumped", "killed", "fatal", "critical", "[pid: ", "extend info", "assert",
    "shared object", "undefined symbol", "static tls", "call trace: ", "_dynamo.exc.unsupported", "undefined reference", "multiple definition", "double free", "invalid pointer", "corrupt",
    "no module named", "set_env.sh", "rankid:", "hcclcomminit", "times out",
    "is invalid", "exception info:", "message info[", "other info[", ": not found", "command not found",
    "[e:onnxruntime:", "[f:onnxruntime:",  # ONNX Runtime's logger at level E/F, whatever its words
    # the host's limits (formats.console.HOST_LIMIT), with no error word: a key is a pass over
    # every console byte, so the shortest piece each phrase shares
    "too long", "no space left", "quota exceeded", "read-only", "open files", "unreachable", "no route to host",
    "未找到命令",  # a shell in a Chinese locale: `bash: orted: 未找到命令` (command not found)
    "return err",  # a tool's call status (hccl_test: `hccl interface return err …, retcode: 7`)
    "not found in",  # a tool not found where a service looks (`npu-smi not found in [...]`, Go's exec)
    "does not allow",  # a configuration checker refusing a setting (formats.console.SETTING_REFUSED)
    "errno",  # a system call's error number (`errno is 30`, Python's `[Errno 101] Network is unreachable`)
    "no such file",  # the C library's words for ENOENT after a path (`/lib/modules/x/build: No such file …`)
    ".sh: line ",  # the shell's error in a script at a line (`build.sh: line 1567: [: missing `]'`)
    "cannot find -l",  # the linker's missing library (`/usr/bin/ld: cannot find -lascendcl`), no error word
    "(required by",  # the dynamic loader's missing symbol version (`version `GLIBCXX_3.4.29' not found (required by x)`)
    "unknown symbol",  # the kernel's module loader (`drv_vascend: Unknown symbol mdev_register_parent (err -2)`)
    "失败",  # `failed` in a Chinese locale (`初始化失败: …`, initialisation failed)
    "错误：",  # a compiler in a Chinese locale (`kvmdt.c:62: 错误："MIN"重定义 [-Werror]`)
    "not match",  # a package built for another chip (`socversion … does not match the current device`)
    "ub overflow",  # BiShengIR's Unified Buffer verdict (formats.build.COMPILER_DIAGNOSTIC) without its `error:`
    "unable to load", "unable to import",  # a plugin or module not loaded, no error word (diagnosis.events._LOADER)
    "heartbeat lost",  # HCCL's verdict on a peer in a timeout's report (`deviceId[4], Heartbeat Lost Occurred`)
    "find bin", "ops kernel and engine",  # no kernel for an operator (formats.console.OP_BINARY_MISSING), no error word
    "╰─▶ ",  # the last link of an error printed as a chain of causes (uv, miette): the reason, in any words
)
_CONSOLE_CODE = re.compile(CODE_PATTERN)
# an exception printed with an empty first line: its message is the lines after it, which may
# hold no error word at all (`MLIRCompilationError: ` then a tool's own complaint)
# an exception whose message is only where it failed (Triton's `CompilationError: at 3:4:`) prints
# the source lines up to that place (at most a dozen) and a caret before the error itself
POSITION_MESSAGE = re.compile(r"at \d+:\d+:?")
POSITION_MESSAGE_LINES = 16
_EMPTY_MESSAGE = re.compile(r"(?:Error|Exception|[Ff]ailed(?: to [\w ]{1,60})?):[ \t]*\r?\n|"
                            rf"(?:Error|Exception): ({POSITION_MESSAGE.pattern})[ \t]*\r?\n")
EMPTY_MESSAGE_LINES = 8
# native stack frames ("#3 0x..."), at line starts: searched in "\n" + text, whose literal
# prefix is found at C speed (a (?m)^ pattern has none: a fifth of the console scan)
_CONSOLE_FRAME = re.compile(r"\n#\d+\s+0x")
# glog / c10 lines at level E or F (`E0419 16:59:47.8 …`, `[E806 06:36:53 …`): their level is the
# letter, and the words may hold no error vocabulary at all (formats.levels reads them the same way)
_CONSOLE_NATIVE = re.compile(r"[EF]\d{3,4} \d\d:\d\d:\d\d")  # a leading set: the engine skips to E/F


# The console patterns over bytes (the same grammars: every one is ASCII): searching the bytes
# spares decoding a chunk, and bytes.lower() lowers ASCII letters only, so offsets stay put
# (str.lower() makes `İ` two characters).
def _as_bytes(pattern: re.Pattern[str]) -> re.Pattern[bytes]:
    return re.compile(pattern.pattern.encode("ascii"))


_KEYS_B = tuple(k.encode("utf-8") for k in _CONSOLE_KEYS)
_KEY_OVERLAP = max(len(k) for k in _KEYS_B) - 1  # a key cut by a window's end is found in the next
_RESULT_B = _as_bytes(CALL_RESULT_RE)
_HCCL_TRACE_B = re.compile(HCCL_CALL_TRACE.encode("ascii"))  # a call's own aclError result, no error word needed
_FAILURE_B = re.compile(FAILURE_WORD.encode("ascii"))
_CHECK_CONDITION_B = re.compile(CHECK_CONDITION.encode("ascii"))
# a Python traceback's frame line (`  File "/w/x/transformer_config.py", line 621, in __post_init__`),
# behind any launcher prefix: the code an exception was raised in, when the log was cut below
# its `Traceback` line
_PY_FRAME_B = re.compile(rb'File "[^"\n]{1,500}", line \d+, in \S')
_PY_SOURCE_B = re.compile(rb"(?:\[rank\d+\]: ?)?    ")  # a frame's source line, behind a rank's prefix
_EMPTY_MESSAGE_B = _as_bytes(_EMPTY_MESSAGE)
_FRAME_B = _as_bytes(_CONSOLE_FRAME)
_FRAME_FIRST_B = re.compile(_CONSOLE_FRAME.pattern[2:].encode("ascii"))  # without its "\n", at offset 0
# One pass for both, led by the union of their leading sets (a pattern runs at the speed of its
# leading set; two passes cost half as much again). A match led by the other grammar's letter is
# neither and is not consumed; a code can hide no E/F line start (that follows a line end).
_CODE_OR_NATIVE_B = re.compile(rb"[EFW](?:([0-9A-Z]\d{4})|(\d{3,4} \d\d:\d\d:\d\d))")
assert _CONSOLE_CODE.pattern == r"[EW][0-9A-Z]\d{4}" and _CONSOLE_NATIVE.pattern == r"[EF]\d{3,4} \d\d:\d\d:\d\d"
SCAN_WINDOW = 1 << 20
"""The most of a chunk the console scan copies at once (to lower it): memory per line is bounded."""


def _spans(data: bytes, end: int) -> Iterator[tuple[int, int]]:
    """data[:end] cut at line ends into spans of about SCAN_WINDOW (a longer line is one span)."""
    a = 0
    while a < end:
        b = data.rfind(b"\n", a, min(a + SCAN_WINDOW, end)) + 1
        if b <= a:  # one line longer than a window: the span is that line
            b = data.find(b"\n", a + SCAN_WINDOW, end) + 1 or end
        if end - b < SCAN_WINDOW // 64 and data.find(b"\n", b, end) < 0:
            b = end  # a short unterminated tail joins the span before it
        yield a, b
        a = b


def _console_key_starts(data: bytes, a: int, b: int, starts: list[int]) -> bool:
    """Offsets in data[a:b] where a console key starts (the first of each key on a line),
    lowering one window at a time; False when the span holds nothing but blanks."""
    found_text = False
    x = a
    while x < b:
        y = min(x + SCAN_WINDOW, b)
        window = data[x: min(y + _KEY_OVERLAP, b)]
        x0, x = x, y
        if window.isspace():
            continue
        found_text = True
        low = window.lower()
        limit = y - x0  # a key starting in the overlap belongs to the next window
        for key in _KEYS_B:
            p = low.find(key, 0, limit + len(key) - 1)
            while 0 <= p < limit:
                starts.append(x0 + p)
                nl = low.find(b"\n", p)
                if nl < 0:
                    break
                p = low.find(key, nl + 1, limit + len(key) - 1)
    return found_text


def _console_pattern_starts(data: bytes, a: int, b: int, end: int, starts: list[int], keyed: list[int]) -> None:
    """Offsets in data[a:b] of the console grammars: codes, call results, exceptions with an
    empty first line (and the lines under them), native frames and glog/c10 E/F lines.
    pos/endpos, never a slice: a huge line is not copied. `keyed`: the key offsets found in
    data[a:b] (`_console_key_starts`); an exception with an empty message is looked for on
    their lines only (its words are keys), not by a pattern over every byte (a third of the
    scan of a big console file)."""
    search = _CODE_OR_NATIVE_B.search
    m = search(data, a, b)
    while m is not None:
        x, lead = m.start(), data[m.start()]
        if m.group(1) is not None and lead != 0x46:  # a code (led by E or W, not F)
            y = m.end()
            if (x == 0 or not _is_word(_char_before(data, x), "_")) and (y == end or not _is_word(_char_at(data, y, end))):
                starts.append(x)
        elif m.group(2) is not None and lead != 0x57:  # a glog/c10 line at level E or F
            if x > 0 and data[x - 1] == 0x5B:  # "["
                x -= 1
            if x == 0 or data[x - 1] == 0x0A:
                starts.append(x)
        else:  # the other grammar's letter: nothing here, and nothing consumed
            m = search(data, x + 1, b)
            continue
        m = search(data, m.end(), b)
    starts.extend(m.start() for m in _RESULT_B.finditer(data, a, b))
    for s in _lines_of(data, a, b, keyed):
        e = data.find(b"\n", s, b)
        m = _EMPTY_MESSAGE_B.search(data, s, b if e < 0 else e + 1)  # the match ends at the line's end
        if m is None:
            continue
        p = m.end()
        for _ in range(EMPTY_MESSAGE_LINES if m.group(1) is None else POSITION_MESSAGE_LINES):
            if p >= end:
                break
            starts.append(p)
            nl = data.find(b"\n", p, end)
            p = end if nl < 0 else nl + 1
    if a == 0 and _FRAME_FIRST_B.match(data, 0, b):
        starts.append(0)
    starts.extend(m.start() + 1 for m in _FRAME_B.finditer(data, max(a - 1, 0), b))  # at the "\n" before


def _lines_of(data: bytes, a: int, b: int, offsets: list[int]) -> list[int]:
    """The starts of the lines in data[a:b] that hold one of `offsets`."""
    return sorted({data.rfind(b"\n", a, x) + 1 or a for x in offsets if a <= x < b})


def _char_before(data: bytes, pos: int) -> str:
    """The character that ends at byte pos (decoded as the line is: UTF-8, errors replaced)."""
    return data[max(pos - 4, 0): pos].decode("utf-8", "replace")[-1:]


def _char_at(data: bytes, pos: int, end: int) -> str:
    return data[pos: min(pos + 4, end)].decode("utf-8", "replace")[:1]


def _is_word(ch: str, also: str = "") -> bool:
    return ch.isalnum() or (bool(also) and ch == also)


def _head(data: bytes, s: int, e: int) -> str:
    """Line data[s:e] decoded, its first MAX_HIT_CHARS characters only (at most 4 bytes each)."""
    return data[s: min(e, s + 4 * MAX_HIT_CHARS)].decode("utf-8", "replace")[:MAX_HIT_CHARS]


def _prefixed_continuation(line: str) -> bool:
    """An indented line behind a launcher or rank prefix (`[rank0]:`, `(Worker pid=1) ERROR …`):
    launchers prefix every line of a block, so the indent that marks a continuation follows it."""
    if line[:1] not in ("[", "(", ">", "`", "E"):  # a prefix, or an envelope (quote, fence, runner) around one
        return False
    body, _ = strip_prefixes(clean(line[:512]))
    return body[:1] in (" ", "\t") and bool(body.strip())


def _channel(line: str) -> tuple | None:
    """The rank channel a line's launcher prefix names (formats.console.channel)."""
    return channel(strip_prefixes(clean(line[:512]))[1])


# how many lines of other ranks may sit between two lines of one block (torchrun and Ray print
# several ranks into one console line by line, even inside a traceback)
INTERLEAVED_LINES = 256
MAX_HIT_CHARS = MAX_GRAMMAR_CHARS  # per-line work is capped; the full line stays reachable via the index


@dataclass
class LineHit:
    file_id: int
    line: int
    text: str


@dataclass
class SourceScan:
    """What the scan found in one source (all its files)."""

    stream: Stream
    hits: list[LineHit] = field(default_factory=list)
    rank_lines: list[str] = field(default_factory=list)
    has_info: bool = False
    max_hits: int = 200_000
    run_log: bool = False  # heartbeat lines live in run logs at INFO level
    rank_found: bool = False
    rank_bytes: int = 0
    enveloped_files: dict[int, bool] = field(default_factory=dict)  # files pasted with line envelopes

    def feed(self, file_id: int, chunk: "Chunk") -> None:
        if self.stream is Stream.STDOUT:
            self._feed_console(file_id, chunk.data, chunk.first_line, chunk.end)
        else:
            self._feed_plog(file_id, chunk)

    def _add(self, file_id: int, line: int, raw: bytes) -> None:
        if len(self.hits) < self.max_hits:
            self.hits.append(LineHit(file_id, line, raw[:MAX_HIT_CHARS].decode("utf-8", "replace").rstrip("\r")))

    def _feed_plog(self, file_id: int, chunk: "Chunk") -> None:
        data, n = chunk.data, chunk.end
        if not self.has_info and (data.find(b"[INFO]", 0, min(n, 65536)) >= 0
                                  or data.find(b"[DEBUG]", 0, min(n, 65536)) >= 0):
            self.has_info = True
        positions: list[tuple[int, int]] = []  # (line start, line end)
        first = 3 if data.startswith(b"\xef\xbb\xbf") else 0  # a UTF-8 BOM before the first header
        starts = [0] if _PLOG_HIT_FIRST.match(data, first, n) or _ENVELOPED_HEAD.match(data, first, n) else []
        starts.extend(m.start() + 1 for m in _PLOG_HIT.finditer(data, 0, n))
        enveloped: set[int] = set()
        if chunk.first_line == 0:  # a pasted file shows its envelope from the start
            self.enveloped_files[file_id] = any(data.find(nd, 0, min(n, 65536)) >= 0 for nd in _ENVELOPE_NEEDLES)
        for needle in (_ENVELOPE_NEEDLES if self.enveloped_files.get(file_id) else ()):
            p = data.find(needle, 0, n)
            while p >= 0:
                s = data.rfind(b"\n", 0, p) + 1
                if p - s <= 3 and s not in enveloped and _ENVELOPED_HEAD.match(data, s, n):
                    enveloped.add(s)
                p = data.find(needle, p + 1, n)
        if enveloped:
            starts = sorted(set(starts) | enveloped)
        for s in starts:
            e = data.find(b"\n", s, n)
            e = n if e < 0 else e
            if data.find(b"[WARNING]", s, s + 13) >= 0 and not _WARNING_WORTH.search(data, s, e):
                continue
            positions.append((s, e))
            # header-less lines right before it belong to no error header: console text printed
            # into the same file (MindSpore's stdout mixes both), often what the error reports
            b = s
            for _ in range(_FOREIGN_BEFORE):
                if b <= 0:
                    break
                a = data.rfind(b"\n", 0, b - 1) + 1
                if a == b - 1:  # an empty line: stop
                    break
                if data[a] != 0x5B:  # headers above it are read for themselves
                    positions.append((a, b - 1))
                b = a
            # header-less lines right after an error belong to it (wrapped text, device blocks)
            for _ in range(64):
                if e + 1 >= n or data[e + 1] == 0x5B:  # next line starts with '[' (a header)
                    break
                nxt = data.find(b"\n", e + 1, n)
                nxt = n if nxt < 0 else nxt
                if nxt > e + 1:
                    positions.append((e + 1, nxt))
                e = nxt
        for needle in (_EXTRA_NEEDLES if self.run_log else ()):
            p = data.find(needle, 0, n)
            while p >= 0:
                s = data.rfind(b"\n", 0, p) + 1
                e = data.find(b"\n", p, n)
                e = n if e < 0 else e
                positions.append((s, e))
                p = data.find(needle, e, n)
        if not self.rank_found and self.rank_bytes < (8 << 20):
            self.rank_bytes += n
            for needle in _RANK_NEEDLES:
                p = data.find(needle, 0, n)
                if p >= 0:
                    s = data.rfind(b"\n", 0, p) + 1
                    e = data.find(b"\n", p, n)
                    line = data[s:e if e >= 0 else n][:2000].decode("utf-8", "replace")
                    self.rank_lines.append(line)
                    if needle != b"rankSize":
                        self.rank_found = True
        if not positions:
            return
        positions = sorted(set(positions))
        line_of = chunk.line_of
        for s, e in positions:
            self._add(file_id, line_of(s), data[s:e])

    def _feed_console(self, file_id: int, data: bytes, first_line: int, end: int | None = None) -> None:
        """Console lines worth a look in data[:end]: C-speed searches over the bytes, then the
        indented lines that continue a kept line (CANN blocks, tables, device text).

        Works on the bytes, never on the chunk decoded: only the kept lines' heads are decoded,
        so one huge line costs a window of memory, not the chunk several times over (#13 defect
        12). Runs of blank lines are skipped at C speed (`bytes.isspace`): a zip bomb's gigabytes
        of newlines cost what reading them costs."""
        end = len(data) if end is None else end
        if not self.has_info and data.find(b"INFO", 0, end) >= 0:
            self.has_info = True
        starts: list[int] = []
        for a, b in _spans(data, end):
            keyed = len(starts)
            if _console_key_starts(data, a, b, starts):  # False: nothing but blanks
                _console_pattern_starts(data, a, b, end, starts, starts[keyed:])
        starts.sort()
        kept: list[tuple[int, int]] = []  # (line, offset where it starts): lines are cut out only here
        pos = line = 0
        last = -1
        for start in starts:
            line += data.count(b"\n", pos, start)
            pos = start
            if line != last:
                kept.append((line, data.rfind(b"\n", 0, start) + 1))
                last = line
        # a kept line whose reason is the line above it, in words no key knows: HCCL's trace of a
        # failed call (`call trace: hcclRet -> 4`) under the failing statement's own report, and a
        # failure notice under a failed check's bare condition (`input_shape.size() < 2.`)
        seen = {i for i, _ in kept}
        for i, s in list(kept):
            if s <= 0 or i - 1 in seen:
                continue
            a = data.rfind(b"\n", 0, s - 1) + 1  # the line above, which ends at s - 1
            if a >= s - 1:
                continue
            if _HCCL_TRACE_B.match(data, s):
                above = not data[a:s - 1].isspace()
            else:
                e = data.find(b"\n", s, end)
                above = (_FAILURE_B.search(data, s, end if e < 0 else e) is not None
                         and _CHECK_CONDITION_B.search(data, a, s - 1) is not None)
            if above:
                kept.append((i - 1, a))
                seen.add(i - 1)
        # the innermost frame above an exception or its source line says which code raised it
        # (a configuration's own check); a traceback cut above its header leaves it unkept
        for i, s in list(kept):
            above = i
            a = s
            for _ in range(2):  # the source line, then the frame over it
                if a <= 0 or above - 1 in seen:
                    break
                b = data.rfind(b"\n", 0, a - 1) + 1  # the line above, which ends at a - 1
                if _PY_FRAME_B.search(data, b, a - 1):
                    kept.append((above - 1, b))
                    seen.add(above - 1)
                    if above != i:
                        kept.append((above, a))
                        seen.add(above)
                    break
                if not _PY_SOURCE_B.match(data, b, a - 1):
                    break  # not an indented source line: no frame to look for above it
                above, a = above - 1, b
        kept.sort()
        out = self.hits
        taken: set[int] = set()  # lines already read as part of a block (another rank's between them stay free)
        for i, s in kept:
            if i in taken:
                continue
            j = i
            traceback = False
            own = other = None  # the block's channel; lines of other ranks between its lines are skipped
            while s < end:
                e = data.find(b"\n", s, end)
                e = end if e < 0 else e
                probe = _head(data, s, e)
                if "\x1b" in probe[:64] or "^[" in probe[:64]:  # a terminal's colours kept in the file
                    probe = strip_colours(probe)
                if probe[:1] == "\u00a0":  # a web page's indent (no-break spaces) is an indent
                    probe = probe.replace("\u00a0", " ")
                if j != i and own is not None and probe[:1] in ("[", "(") and other < INTERLEAVED_LINES:
                    ch = _channel(probe)
                    if ch is not None and ch != own:  # another rank's line, printed in between
                        other += 1
                        j += 1
                        s = e + 1
                        continue
                if j != i and not (probe[:1] in (" ", "\t") and probe.strip()) and not _prefixed_continuation(probe):
                    if traceback and probe.strip() and j not in seen and len(out) < self.max_hits:
                        # the exception a Python traceback ends with, whatever its words (`StopIteration`)
                        out.append(LineHit(file_id, first_line + j, probe.rstrip("\r")))
                    break
                if j == i:
                    traceback = "Traceback (most recent call last)" in probe[:120]
                    own, other = (_channel(probe) if probe[:1] in ("[", "(") else None), 0
                if len(out) < self.max_hits:
                    out.append(LineHit(file_id, first_line + j, probe.rstrip("\r")))
                taken.add(j)
                j += 1
                s = e + 1
