"""One time for every line of every source (docs/architecture.md, "Time model").

The panes, the merged view, the diagnosis and the reports all ask this module for a line's
time, so one line shows one time everywhere. A time has a kind:

  * ``own``: parsed from the line itself;
  * ``estimated``: the line has no stamp; it is bounded by the stamped lines before and after
    it *in its own channel*. A console line takes the next stamp of its channel (a traceback is
    printed when the failure is reported, often long after its rank's last INFO line, and just
    before torch_npu's stamped header), or the previous one while no later stamp exists yet
    (live tail). A plog or device line takes the previous stamp of its source (an unstamped
    plog line continues the message above it), or the next one before the first stamp;
  * ``unknown``: its channel has no stamp at all.

A channel is the whole source for plog and device logs (a rotated chain continues from the
previous file's last stamp). Console output interleaves ranks line by line or block by block,
so a console file is split into channels by its launcher prefixes (`[rankN]:`,
`(Worker rank=N pid=P)`, Ray `rank=`; `formats.console.channel`): one rank's traceback never
borrows another rank's time. Console files are small next to the plogs, so their channels are
worked out in one pass and kept (15 bytes per console line) and extended as the file grows.

Per-source clock offsets (`TimeModel.offsets`, source id -> µs) are applied to every time.
Pure Python: no Textual, no rich.
"""

from __future__ import annotations

import re
import threading
from array import array
from dataclasses import dataclass
from enum import Enum
from typing import Callable, Sequence

from npudiag_tui.core.formats import console as C
from npudiag_tui.core.formats.timestamps import EPOCH_MARK as _EPOCH_TEXT
from npudiag_tui.core.index import FileIndex, UnreadableFile, decode
from npudiag_tui.core.model import Source, Stream

_BATCH = 4096  # console lines read per pass step
_UNPREFIXED_LOOK = 1024  # lines read back for the unprefixed channel's previous stamp
_AHEAD_BLOCKS = 8  # how far a line before a file's first stamp looks for it


class TimeKind(str, Enum):
    OWN = "own"
    ESTIMATED = "estimated"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class LineTime:
    """A line's time in µs since the epoch (naive log clock), and how it was found."""

    us: int | None
    kind: TimeKind

    @property
    def estimated(self) -> bool:
        return self.kind is not TimeKind.OWN


UNKNOWN = LineTime(None, TimeKind.UNKNOWN)
_OWN, _EST, _UNK = 0, 1, 2
_KINDS = (TimeKind.OWN, TimeKind.ESTIMATED, TimeKind.UNKNOWN)


COARSE_US = 1_000_000
"""The coarsest stamp resolution in console output: c10 and Python loggers print whole seconds."""


EPOCH_MARK = _EPOCH_TEXT.encode()  # crash headers stamp in seconds since the epoch: UTC
_ZONE_STEP = 15 * 60 * 1_000_000
_ZONE_LOOK = 2000  # lines searched either way for a local stamp to compare with


def epoch_zone(local_us: int, epoch_us: int) -> int:
    """The zone offset (µs) that turns a UTC epoch stamp into the local clock of the stamps
    around it: their difference rounded to a quarter hour, when it is at least half an hour and
    at most fourteen hours (a smaller gap is just time passing; a bigger one is no zone)."""
    zone = round((local_us - epoch_us) / _ZONE_STEP) * _ZONE_STEP
    return zone if 2 * _ZONE_STEP <= abs(zone) <= 14 * 3600 * 1_000_000 else 0


def bounded(previous: int | None, following: int) -> int:
    """An unstamped console line's time: the following stamp of its channel, but never before
    the previous one when the two differ by less than a coarse stamp's resolution. A stamp cut
    to the second (`11:30:10`) after a precise one (`11:30:10.420`) does not mean the lines
    between were printed 0.42 s earlier than the line above them."""
    if previous is not None and 0 < previous - following < COARSE_US:
        return previous
    return following


UNPREFIXED = 0  # ConsoleChannels' id of the channel of lines without a launcher prefix


def after_stamp(channel_last: int | None, file_last: int | None) -> int | None:
    """The time of a console line after its channel's last stamp: that stamp, and for a line
    with no launcher prefix (the launcher's own output: torchrun's failure summary) not before
    the last stamp printed above it in the file either, since it was printed after those."""
    return max((t for t in (channel_last, file_last) if t is not None and t >= 0), default=None)


def line_channel(text: str) -> tuple | None:
    """The console channel of a line (None: no launcher prefix), as the diagnosis reads it."""
    return C.channel(C.strip_prefixes(C.clean(text))[1])


# Only a torchrun `[rankN]:`, a Ray/vLLM `(Name rank=N pid=P)` or a pdsh `host-N: ` prefix names a
# channel. The full prefix grammar is too slow to run on every console line, so the
# two common shapes are read directly when nothing else in the line could name a channel field.
_C10_HEAD = re.compile(rb"\[rank(\d+)\]:")
_RAY_HEAD = re.compile(rb"\((\w[\w.-]*(?: [\w=.-]+)*?) pid=(\d+)(?:, ip=[\d.]+)?\) ?")
_RAY_RANK = re.compile(rb"rank=(\d+)")
_HOST_LIKE = re.compile(rb"-\d+: ")  # wider than a pdsh host, never narrower


def raw_channel(raw: bytes) -> tuple | None:
    """`line_channel` of a raw line, with a fast path that gives the same answer."""
    head = raw[:400]
    if b"\r" in head or b"\x1b" in head or b"^[" in head or _HOST_LIKE.search(head):
        return line_channel(decode(raw[:2000]))
    m = _C10_HEAD.match(head)
    if m is not None:
        rest = head[m.end():]
        if b"pid=" not in rest:
            return (None, None, None, int(m.group(1)))
    m = _RAY_HEAD.match(head)
    if m is not None:
        rest = head[m.end():]
        if b"rank" not in rest and b"pid=" not in rest:
            name = m.group(1)
            rank = _RAY_RANK.search(name)
            return (None, name.split(b" ")[0].decode(), int(m.group(2)), int(rank.group(1)) if rank else None)
    if b"rank" not in head and b"pid=" not in head:
        return None
    return line_channel(decode(raw[:2000]))


class ConsoleChannels:
    """Channel, time and kind of every line of one console file, in file order.

    `members[ch]` lists the lines of channel `ch`; `times` is each line's time (own or
    estimated, -1 unknown), non-decreasing within a channel whenever its stamps are. Lines
    after a channel's last stamp are kept pending and move to the next stamp when it arrives.
    """

    def __init__(self) -> None:
        self.ids: dict[tuple | None, int] = {None: UNPREFIXED}
        self.chan = array("H")
        self.times = array("q")
        self.kinds = bytearray()
        self.members: dict[int, array] = {}
        self._last: dict[int, int] = {}  # channel -> last own stamp
        self._pending: dict[int, list[int]] = {}  # channel -> unstamped lines since its last stamp
        self._file_last = -1  # the last own stamp of the file so far, whatever its channel

    @property
    def lines(self) -> int:
        return len(self.chan)

    @property
    def stamped(self) -> bool:
        """Whether any line so far carries a stamp of its own."""
        return self._file_last >= 0

    def extend(self, idx: FileIndex, cancelled: Callable[[], bool] | None = None,
               zone_at: Callable[[int], int] | None = None) -> None:
        """Take the lines the index has beyond what is known (live growth appends). `zone_at`
        gives the zone offset of an epoch-stamped line (`TimeModel.epoch_zone_at`)."""
        n = idx.line_count
        while self.lines < n:
            if cancelled is not None and cancelled():
                return
            first = self.lines
            raws = idx.raw_lines(first, min(_BATCH, n - first))
            if not raws:
                return
            for k, raw in enumerate(raws):
                if not k & 255 and k and cancelled is not None and cancelled():  # a pause-for-input hook
                    return
                self._add(first + k, raw, idx, zone_at)

    def _add(self, line: int, raw: bytes, idx: FileIndex, zone_at: Callable[[int], int] | None = None) -> None:
        key = raw_channel(raw)
        ch = self.ids.get(key)
        if ch is None:
            ch = self.ids[key] = len(self.ids)
        self.chan.append(ch)
        members = self.members.get(ch)
        if members is None:
            members = self.members[ch] = array("I")
        members.append(line)
        own = idx.stamp_of(raw)
        if own >= 0 and zone_at is not None and EPOCH_MARK in raw[:400]:
            own += zone_at(line)
        if own >= 0:
            self.times.append(own)
            self.kinds.append(_OWN)
            last = self._last.get(ch)
            self._last[ch] = own
            # the unstamped lines since the channel's previous stamp were printed before this one
            t = bounded(last, own)
            for waiting in self._pending.pop(ch, ()):
                self.times[waiting] = t
                self.kinds[waiting] = _EST
            self._file_last = own
            return
        # until a later stamp of its channel arrives (live tail, or the file's end): the one before
        t = after_stamp(self._last.get(ch), self._file_last if ch == UNPREFIXED else None)
        self.times.append(-1 if t is None else t)
        self.kinds.append(_UNK if t is None else _EST)
        self._pending.setdefault(ch, []).append(line)

    def time(self, line: int) -> LineTime:
        if not 0 <= line < self.lines:
            return UNKNOWN
        t = self.times[line]
        return LineTime(t if t >= 0 else None, _KINDS[self.kinds[line]])


class TimeModel:
    """Answers `line_time(file_id, line)` for every consumer (see the module docstring)."""

    def __init__(self, sources: Sequence[Source], indexes: Sequence[FileIndex],
                 source_of_file: Callable[[int], Source]) -> None:
        self.sources = sources
        self.indexes = indexes
        self.source_of_file = source_of_file
        self.offsets: dict[int, int] = {}  # source id -> clock offset in µs
        self._console: dict[int, ConsoleChannels] = {}
        self._near: dict[int, dict[int, LineTime]] = {}  # file -> line -> time, read around it
        self._none_after: dict[tuple, tuple[int, int]] = {}  # (file, channel) -> (from line, line count)
        self._before: dict[tuple, tuple[int, int, int]] = {}  # (file, channel) -> (line, checked to, stamp)
        self._zones: dict[int, int] = {}  # console file -> zone offset of its epoch stamps
        self._lock = threading.Lock()

    # ---------------------------------------------------------------- console channels
    def is_console(self, file_id: int) -> bool:
        return self.source_of_file(file_id).stream is Stream.STDOUT

    def channels(self, file_id: int, cancelled: Callable[[], bool] | None = None) -> ConsoleChannels:
        """The console file's channels, brought up to the index's line count."""
        with self._lock:
            got = self._console.get(file_id)
            if got is None:
                got = self._console[file_id] = ConsoleChannels()
            idx = self.indexes[file_id]
            if got.lines < idx.line_count:
                try:
                    got.extend(idx, cancelled, lambda line: self.epoch_zone_at(file_id, line))
                except UnreadableFile:
                    pass
            return got

    def channels_ready(self, file_id: int) -> bool:
        """Whether the console file's channels are worked out up to its line count (no wait)."""
        got = self._console.get(file_id)
        return got is not None and got.lines >= self.indexes[file_id].line_count

    def timeless(self, file_id: int) -> bool:
        """A console file whose channels are worked out and none of whose lines carries a stamp:
        no line of it has a time, own or estimated (a pane then needs no clock for it)."""
        got = self._console.get(file_id)
        if got is None or got.stamped:
            return False
        n = self.indexes[file_id].line_count
        return n > 0 and got.lines >= n

    def forget(self, file_id: int) -> None:
        """The file was rewritten or truncated: work its channels out again when asked."""
        with self._lock:
            self._console.pop(file_id, None)
            self._near.pop(file_id, None)
            self._zones.pop(file_id, None)
            for memo in (self._none_after, self._before):
                for k in [k for k in memo if k[0] == file_id]:
                    del memo[k]

    # ---------------------------------------------------------------- times
    def line_time(self, file_id: int, line: int, offset: bool = True) -> LineTime:
        """The time of one line, with the source's clock offset applied (`offset=False`: as
        its own clock has it, for a caller that applies the offset itself)."""
        if self.is_console(file_id):
            built = self._console.get(file_id)
            if built is not None and line < built.lines:
                got = built.time(line)
            else:  # not worked out for the whole file (yet): the same rule, read around the line
                got = self._console_time_near(file_id, line)
        else:
            got = self._file_time(file_id, line)
        off = self.offsets.get(self.source_of_file(file_id).source_id, 0) if offset else 0
        if off and got.us is not None:
            return LineTime(got.us + off, got.kind)
        return got

    def _console_time_near(self, file_id: int, line: int) -> LineTime:
        """`ConsoleChannels`' rule for one line, reading only from it to its channel's next stamp
        (or back to the previous one): a report asks for a few dozen lines of a console file
        whose full pass costs seconds. Answers are remembered per line."""
        cache = self._near.setdefault(file_id, {})
        got = cache.get(line)
        if got is not None:
            return got
        idx = self.indexes[file_id]
        try:
            raws = idx.raw_lines(line, 1)
            if not raws:
                return UNKNOWN
            own = self._own(file_id, idx, raws[0], line)
            if own >= 0:
                got = LineTime(own, TimeKind.OWN)
            else:
                key = raw_channel(raws[0])
                t = self._next_in_channel(file_id, idx, key, line)
                # the unprefixed channel (a launcher's) is read back a bounded way only: its
                # stamps are few (torchrun stamps its start, then prints its failure summary
                # bare at the end), so its previous one can lie at the top of a file of
                # millions of lines, and it only counts where it is later than the stamps
                # printed after it (a clock that ran backwards) or within a second of the next
                floor = max(0, line - _UNPREFIXED_LOOK) if key is None else 0
                prev = self._previous_in_channel(file_id, idx, key, line, floor)
                if t is None:  # no later stamp in the channel (yet): the one before, not kept
                    above = self._stamp_above(file_id, idx, line) if key is None else None  # (it may grow)
                    est = after_stamp(prev, above)
                    return UNKNOWN if est is None else LineTime(est, TimeKind.ESTIMATED)
                got = LineTime(bounded(prev, t), TimeKind.ESTIMATED)
        except UnreadableFile:
            return UNKNOWN
        if len(cache) > 100_000:
            cache.clear()
        cache[line] = got
        return got

    def _stamp_above(self, file_id: int, idx: FileIndex, line: int) -> int | None:
        """The last own stamp above `line` in the file, whatever its channel."""
        pos = line
        while pos > 0:
            first = max(0, pos - _BATCH)
            raws = idx.raw_lines(first, pos - first)
            if not raws:
                return None
            for k in range(len(raws) - 1, -1, -1):
                t = self._own(file_id, idx, raws[k], first + k)
                if t >= 0:
                    return t
            pos = first
        return None

    def _next_in_channel(self, file_id: int, idx: FileIndex, key: tuple | None, line: int) -> int | None:
        """The channel's first stamp after `line`. Where a scan found none up to the end, that
        is remembered (for this line count), so lines asked in file order read the file once."""
        n = idx.line_count
        memo = self._none_after.get((file_id, key))
        if memo is not None and memo[1] == n and memo[0] <= line + 1:
            return None  # nothing from an earlier line to the end: nothing from this one
        stop = memo[0] if memo is not None and memo[1] == n else n
        found = self._scan_channel(file_id, idx, key, line + 1, stop, forward=True)
        if found is None:
            self._none_after[(file_id, key)] = (line + 1, n)
            return None
        return found[1]

    def _previous_in_channel(self, file_id: int, idx: FileIndex, key: tuple | None, line: int,
                             floor: int = 0) -> int | None:
        """The channel's last stamp before `line`, looked for down to line `floor`; remembers
        (stamp line, how far up it was checked, stamp) so a later line only reads what lies
        between."""
        memo = self._before.get((file_id, key))
        if memo is not None and memo[0] < line and (memo[0] >= 0 or memo[1] >= floor):
            stamp_line, checked_to, stamp = memo
            if line <= checked_to:
                return stamp
            found = self._scan_channel(file_id, idx, key, line, checked_to, forward=False)
            if found is None:
                self._before[(file_id, key)] = (stamp_line, line, stamp)
                return stamp
        else:
            found = self._scan_channel(file_id, idx, key, line, floor, forward=False)
            if found is None:  # none from the floor: a later line reads only what lies between
                self._before[(file_id, key)] = (-1, line, None)
                return None
        self._before[(file_id, key)] = (found[0], line, found[1])
        return found[1]

    def _scan_channel(self, file_id: int, idx: FileIndex, key: tuple | None, start: int, stop: int, *,
                      forward: bool) -> tuple[int, int] | None:
        """(line, stamp) of the channel's first own stamp in [start, stop) going forward, or in
        [stop, start) going backward; None when there is none."""
        pos = start
        while (pos < stop) if forward else (pos > stop):
            first = pos if forward else max(stop, pos - _BATCH)
            count = min(_BATCH, stop - pos) if forward else pos - first
            raws = idx.raw_lines(first, count)
            if not raws:
                return None
            order = range(len(raws)) if forward else range(len(raws) - 1, -1, -1)
            for k in order:
                raw = raws[k]
                if raw_channel(raw) == key:
                    t = self._own(file_id, idx, raw, first + k)
                    if t >= 0:
                        return first + k, t
            pos = first + len(raws) if forward else first
        return None

    def _own(self, file_id: int, idx: FileIndex, raw: bytes, line: int) -> int:
        """A console line's own stamp (-1: none), an epoch stamp moved to the local clock."""
        own = idx.stamp_of(raw)
        if own >= 0 and EPOCH_MARK in raw[:400]:
            own += self.epoch_zone_at(file_id, line)
        return own

    def epoch_zone_at(self, file_id: int, line: int) -> int:
        """The zone offset of the console file's epoch stamps, from the first one met (at `line`)
        and the nearest line with a local stamp; 0 when none is near or they agree. One value per
        file: a process does not change its zone."""
        got = self._zones.get(file_id)
        if got is not None:
            return got
        idx = self.indexes[file_id]
        zone = 0
        try:
            raws = idx.raw_lines(line, 1)
            epoch = idx.stamp_of(raws[0]) if raws else -1
            local = self._nearest_local(idx, line) if epoch >= 0 else None
            if local is not None:
                zone = epoch_zone(local, epoch)
        except UnreadableFile:
            pass
        self._zones[file_id] = zone
        return zone

    @staticmethod
    def _nearest_local(idx: FileIndex, line: int) -> int | None:
        """The local stamp nearest to `line` (by lines, either way), not itself an epoch stamp."""
        first = max(0, line - _ZONE_LOOK)
        raws = idx.raw_lines(first, min(idx.line_count, line + _ZONE_LOOK + 1) - first)
        best: tuple[int, int] | None = None
        for k, raw in enumerate(raws):
            if EPOCH_MARK in raw[:400]:
                continue
            t = idx.stamp_of(raw)
            if t >= 0 and (best is None or abs(first + k - line) < best[0]):
                best = (abs(first + k - line), t)
        return None if best is None else best[1]

    def times(self, file_id: int, lines: Sequence[int]) -> list[LineTime]:
        return [self.line_time(file_id, ln) for ln in lines]

    def _file_time(self, file_id: int, line: int) -> LineTime:
        """Plog and device logs: the channel is the source (its rotated files in chain order)."""
        idx = self.indexes[file_id]
        try:
            t, inherited = idx.line_time(line)
        except UnreadableFile:
            return UNKNOWN
        if t is not None:
            return LineTime(t, TimeKind.ESTIMATED if inherited else TimeKind.OWN)
        prev = self._chain_last(file_id)
        if prev is not None:
            return LineTime(prev, TimeKind.ESTIMATED)
        try:
            nxt = self._first_after(idx, line)
        except UnreadableFile:
            nxt = None
        return UNKNOWN if nxt is None else LineTime(nxt, TimeKind.ESTIMATED)

    def _chain_last(self, file_id: int) -> int | None:
        """The last stamp of the files before this one in its source's chain."""
        files = self.source_of_file(file_id).files
        ids = [f.file_id for f in files]
        if file_id not in ids:
            return None
        for f in reversed(ids[: ids.index(file_id)]):
            last = self.indexes[f].last_time
            if last >= 0:
                return last
        return None

    @staticmethod
    def _first_after(idx: FileIndex, line: int) -> int | None:
        """The first own stamp after `line` in its file (a few blocks ahead at most)."""
        k = idx.block_of_line(line)
        for b in range(k, min(k + _AHEAD_BLOCKS, len(idx.nl_before))):
            first, times = idx.block_line_times(first_line_of_block(idx, b))
            for j, t in enumerate(times):
                if first + j > line and t >= 0:
                    return t
        return None


def first_line_of_block(idx: FileIndex, k: int) -> int:
    """First line that starts in block k (the index numbers block lines this way)."""
    return idx.nl_before[k] + 1 if k > 0 else 0
