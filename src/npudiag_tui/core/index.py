"""Per-file line index: a block index over fixed 64 KiB blocks, built with read/pread.

Why a block index and not an offset per line: counting newlines per block runs at C speed
(bench/README.md) and costs 16 bytes per *block*, while a Python-level pass over every line is
two orders of magnitude slower. Line offsets and per-line times are materialised lazily, one
block at a time, for the lines somebody actually looks at, and cached.

Per block we keep: the number of newlines before it (`int64`) and the first own timestamp of
a line starting in it (`int64`, -1 when none). The timestamps are worked out lazily, when a
time lookup bisects over the blocks, because a lookup needs only a dozen of them while parsing
one per block during the pass would slow the pass. That is 16 bytes per 64 KiB, far below the
16 bytes per line budget, and appendable: `extend()` continues from the last complete line,
holding a partial last line back until its newline arrives (live tail).
"""

from __future__ import annotations

import os
import re
import threading
from array import array
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from npudiag_tui.core.files import open_regular
from npudiag_tui.core.formats.timestamps import TS6_HEAD, find_stamp, ts6_bytes_to_us, ts6_head_us, year_of

BLOCK = 64 * 1024
CHUNK = 1024 * 1024
MAX_LINE_BYTES = 1 << 20  # lines longer than this are cut when *shown*; the index keeps them whole
CACHED_BLOCKS = 32  # per file, for each of the two lazy per-block caches (offsets, times)
UNKNOWN_TIME = -2  # block_time entry not worked out yet (see FileIndex.block_first_time)



class Chunk:
    """A run of complete lines handed to a scanner during the index pass.

    `data[:end]` are the complete lines (the buffer may hold a partial line after `end`; it is
    not copied away, which saves a memcpy per MiB). `line_of(pos)` gives the line number of a
    position using the block counts just computed, so a scanner never recounts the chunk.
    """

    __slots__ = ("data", "end", "start", "first_line", "_index")

    def __init__(self, data: bytes, end: int, start: int, first_line: int, index: "FileIndex") -> None:
        self.data, self.end, self.start, self.first_line, self._index = data, end, start, first_line, index

    def bytes(self) -> bytes:
        return self.data if self.end == len(self.data) else self.data[: self.end]

    def line_of(self, pos: int) -> int:
        """Line number of the line containing chunk position `pos` (0 <= pos < end)."""
        idx = self._index
        k = (self.start + pos) // BLOCK
        block_rel = k * BLOCK - self.start
        if block_rel <= 0 or k >= len(idx.nl_before):
            return self.first_line + self.data.count(b"\n", 0, pos)
        return idx.nl_before[k] + self.data.count(b"\n", block_rel, pos)


class OffsetChunk(Chunk):
    """A run of complete lines read before its file's newlines are counted (`FileIndex.extend`
    with `numbered=False`): `line_of(pos)` gives the line's *byte offset* in the file instead of
    its number, so a scanner's hits are located by offset and numbered later, when the file is
    counted (`core.workspace`'s count pass). What lets the TUI diagnose before the whole tree is counted."""

    __slots__ = ()

    def line_of(self, pos: int) -> int:
        """Byte offset in the file of the line containing chunk position `pos`."""
        return self.start + self.data.rfind(b"\n", 0, pos) + 1


ChunkHook = Callable[[Chunk], None]
MAX_PARTIAL_BYTES = 1 << 20
"""How much of a held-back last line the scanner is shown (the index keeps it whole)."""

_NL = re.compile(b"\n")


class UnreadableFile(Exception):
    """A file could not be read; the message names the file and the reason."""


@dataclass
class IndexState:
    """What an index pass built, without the reader or the caches: what a worker process sends
    back (see `Workspace.index`) and `FileIndex.adopt_state` takes."""

    nl_before: array
    block_time: array
    newlines: int
    indexed: int
    size: int
    inode: int | None
    first_time: int
    last_time: int
    # line stamps of a few blocks, {block: (line end, stamps)}, worked out where the state was
    # built (`FileIndex.warm_times`): the first lookups after the adoption parse nothing there
    line_times: dict[int, tuple[int, array]] = field(default_factory=dict)


_CR_TO_LF = bytes.maketrans(b"\r", b"\n")
SNIFF_EOL_BYTES = 64 * 1024


class _PathReader:
    """Opens the path for every read: a cold open, where nothing is being written."""

    held = False
    gone = False

    def pread(self, idx: "FileIndex", length: int, offset: int) -> bytes:
        try:
            fd = open_regular(idx.path)
        except OSError as exc:
            raise UnreadableFile(f"{idx.display}: {exc.strerror or exc}") from None
        try:
            return idx._translate(os.pread(fd, length, offset))
        finally:
            os.close(fd)


class _ClosedReader(_PathReader):
    """A closed file whose descriptor was given back: the path holds something else now."""

    gone = True

    def pread(self, idx: "FileIndex", length: int, offset: int) -> bytes:
        return b""


class _HeldReader(_PathReader):
    """Reads through a descriptor held open, so a file rotated, renamed away or deleted stays
    readable for as long as it is held."""

    held = True

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def pread(self, idx: "FileIndex", length: int, offset: int) -> bytes:
        try:
            return idx._translate(os.pread(self.fd, length, offset))
        except OSError:  # released under us by the tail thread: fall back to the path
            if idx.closed:
                return b""
            return super().pread(idx, length, offset)


class _RetiredReader(_PathReader):
    """The bytes are gone: the scanned lines are kept (text, time, inherited), others are empty."""

    gone = True

    def __init__(self, kept: dict[int, tuple[bytes, int, bool]]) -> None:
        self.kept = kept

    def pread(self, idx: "FileIndex", length: int, offset: int) -> bytes:
        return b""


def decode(raw: bytes) -> str:
    """Lenient decoding: UTF-8 with replacement (GBK bytes must not crash anything)."""
    text = raw.decode("utf-8", errors="replace")
    if text.endswith("\r"):
        text = text[:-1]
    return text


class FileIndex:
    """Line index of one file. One writer (`extend`); readers on any thread read via pread, and
    the two lazy block caches are guarded by a lock, since `extend` drops entries from them.

    How it reads is a strategy: by path (a cold open), through a held descriptor (a file being
    followed live, readable after rotation or deletion), closed (the path is not ours any more)
    or retired (the bytes are gone; only the scanned lines are kept). A followed index
    (`follow_live`) holds a partial last line back and answers a file that shrank under it with
    empty lines until the live tail retires it.
    """

    def __init__(self, path: str, file_id: int = -1, display: str | None = None,
                 year_hint: int | None = None) -> None:
        self.path = path
        self.display = display or path
        self.file_id = file_id
        self.year_hint = year_hint
        self.nl_before = array("q")  # newlines before block k
        self.block_time = array("q")  # first own stamp of a line starting in block k, -1 = none
        self.newlines = 0  # complete lines
        self.indexed = 0  # bytes covered by complete lines
        self.size = 0  # bytes seen on disk at the last extend (includes a partial tail)
        self.inode: int | None = None
        self.include_partial = True  # count a last line without newline (reports); live holds it
        # a file whose lines end in CR alone (no LF in its head) is read with CR as the line end;
        # the translation keeps every offset (one byte for one byte). None until the first read.
        self.cr_lines: bool | None = None
        self.last_time: int = -1  # last own stamp seen while indexing
        self.first_time: int = -1
        self.uncounted = 0  # bytes scanned but not counted yet (core.workspace's scan-first pass)
        # work out each block's first stamp during the pass, from the chunk in memory (a count
        # off the UI's process sets it: the merged windows bisect these stamps)
        self.stamp_blocks = False
        self.closed = False  # followed live: deleted or rotated away
        self.live = False  # followed live: tolerate a file that shrank before the tail saw it
        self._reader: _PathReader = _PathReader()
        self._offsets: OrderedDict[int, tuple[int, array]] = OrderedDict()  # block -> (byte end, offsets)
        self._times: OrderedDict[int, tuple[int, array]] = OrderedDict()  # block -> (line end, stamps)
        self._cache_lock = threading.Lock()

    # ----------------------------------------------------------------- state
    def state(self, line_times: bool = False) -> IndexState:
        """What was built; with `line_times`, the blocks' line stamps worked out so far too."""
        with self._cache_lock:
            times = dict(self._times) if line_times else {}
        return IndexState(self.nl_before, self.block_time, self.newlines, self.indexed, self.size, self.inode,
                          self.first_time, self.last_time, times)

    def adopt_state(self, st: IndexState) -> None:
        """Take what an index pass elsewhere (a worker process) built for this same file."""
        self.nl_before, self.block_time, self.newlines, self.indexed = st.nl_before, st.block_time, st.newlines, \
            st.indexed
        self.size, self.inode, self.first_time, self.last_time = st.size, st.inode, st.first_time, st.last_time
        self.uncounted = 0
        self._clear_caches()
        self.take_line_times(st.line_times)

    def take_line_times(self, line_times: dict[int, tuple[int, array]]) -> None:
        """Line stamps worked out elsewhere for this same state (`state(line_times=True)`);
        each entry names the line end it holds, so one for other counts is never served."""
        with self._cache_lock:
            self._times.update(line_times)

    def _clear_caches(self, from_block: int = 0) -> None:
        with self._cache_lock:
            for cache in (self._offsets, self._times):
                for k in [k for k in cache if k >= from_block]:
                    del cache[k]

    # An entry remembers how far the file was indexed when it was computed (a byte end for the
    # offsets, a line end for the times) and only serves a lookup that wants exactly that: a
    # reader that computed a block short just before `extend` dropped it could otherwise put
    # the short block back after the drop.
    def _cached(self, cache: "OrderedDict[int, tuple[int, array]]", k: int, upto: int) -> array | None:
        with self._cache_lock:
            got = cache.get(k)
            if got is None or got[0] != upto:
                return None
            cache.move_to_end(k)
            return got[1]

    def _cache(self, cache: "OrderedDict[int, tuple[int, array]]", k: int, upto: int, value: array) -> None:
        with self._cache_lock:
            cache[k] = (upto, value)
            if len(cache) > CACHED_BLOCKS:
                cache.popitem(last=False)

    # ----------------------------------------------------------------- live reading
    def follow_live(self) -> None:
        """From now on the file may be written: hold a partial last line back, and read a file
        that shrank under us as empty lines rather than failing."""
        self.live = True
        self.include_partial = False

    @property
    def held(self) -> bool:
        return self._reader.held

    @property
    def retired(self) -> bool:
        return isinstance(self._reader, _RetiredReader)

    def hold(self) -> bool:
        """Open and keep a descriptor on the file, if it is still the inode we indexed."""
        if self.held or self.retired:
            return self.held
        try:
            fd = open_regular(self.path)
        except OSError:
            return False
        try:
            st = os.fstat(fd)
        except OSError:
            os.close(fd)
            return False
        if self.inode is not None and st.st_ino != self.inode:
            os.close(fd)
            return False
        if self.inode is None:
            self.inode = st.st_ino
        self._reader = _HeldReader(fd)
        return True

    def release(self) -> None:
        """Give the descriptor back (a closed file then reads as empty)."""
        reader = self._reader
        if not isinstance(reader, _HeldReader):
            return
        self._reader = _ClosedReader() if self.closed else _PathReader()
        try:
            os.close(reader.fd)
        except OSError:
            pass

    def close(self) -> None:
        """Deleted or rotated away: the path is not this file any more (a held descriptor still
        reads it)."""
        self.closed = True
        if not self.held and not self.retired:
            self._reader = _ClosedReader()

    def reopen(self, path: str) -> None:
        """Renamed inside the tree: the file is at `path` now."""
        self.path = path
        self.closed = False
        if isinstance(self._reader, _ClosedReader):
            self._reader = _PathReader()

    def retire(self, hits: Iterable[tuple[int, str]]) -> None:
        """The bytes are gone: keep the scanned lines (text from the scan, time from the text or
        the block index), and read every other line as empty."""
        if self.retired:
            return
        kept: dict[int, tuple[bytes, int, bool]] = {}
        prev_t = -1
        for ln, text in sorted(dict(hits).items()):
            if not 0 <= ln < self.newlines:
                continue
            st = find_stamp(text[:400], self.year_hint)
            if st is not None:
                t, inh = st.us, False
            else:
                k = self.block_of_line(ln)
                bt = self.block_time[k] if 0 <= k < len(self.block_time) else -1
                bt = max(bt, -1)  # a block time never worked out (lazy) counts as none
                t, inh = (prev_t if prev_t >= 0 else bt), True
            prev_t = t
            kept[ln] = (text.encode("utf-8", "replace"), t, inh)
        self.closed = True
        self.size = self.indexed  # a partial tail is gone with the rest
        self.release()
        self._reader = _RetiredReader(kept)
        self._clear_caches()

    def held_stat(self) -> os.stat_result | None:
        """fstat of the held descriptor (None when nothing is held or it failed)."""
        reader = self._reader
        if not isinstance(reader, _HeldReader):
            return None
        try:
            return os.fstat(reader.fd)
        except OSError:
            return None

    def _kept(self, i: int) -> tuple[bytes, int, bool]:
        reader = self._reader
        return reader.kept.get(i, (b"", -1, True)) if isinstance(reader, _RetiredReader) else (b"", -1, True)

    def still_intact(self) -> bool:
        """The byte before the indexed end is still a newline (cheap rewrite/truncation check)."""
        if self.indexed == 0:
            return True
        try:
            reader = self._reader if self.held else _PathReader()
            return reader.pread(self, 1, self.indexed - 1) == b"\n"
        except (UnreadableFile, OSError):
            return False

    def partial_line(self, max_bytes: int = 4096) -> str | None:
        """The held-back last line of a followed file (no newline yet), its head decoded, or
        None when there is none: the TUI shows it as incomplete until its newline arrives."""
        if not self.live or self.include_partial or self.retired or self.size <= self.indexed:
            return None
        try:
            raw = self._pread(min(self.size - self.indexed, max_bytes), self.indexed)
        except (UnreadableFile, OSError):
            return None
        return decode(raw) if raw else None

    # ----------------------------------------------------------------- building
    @property
    def partial(self) -> bool:
        return self.size > self.indexed

    @property
    def line_count(self) -> int:
        return self.newlines + (1 if self.partial and self.include_partial else 0)

    @property
    def has_lines(self) -> bool:
        """Whether the file holds any line, counted or not yet (see `uncounted`)."""
        return self.line_count > 0 or self.uncounted > 0

    def extend(self, on_chunk: ChunkHook | None = None, cancelled: Callable[[], bool] | None = None,
               progress: Callable[[int], None] | None = None, limit: int | None = None,
               numbered: bool = True) -> int:
        """Index the bytes appended since the last call; returns the number of new lines.

        Reads 1 MiB chunks with pread (never mmap: files may be live). `on_chunk` sees each run
        of complete lines once, so a scanner can share this single pass over the data.
        `numbered=False` reads without counting newlines (the count is a third of the pass):
        the chunks are `OffsetChunk`s, and the index keeps only what it learns for free (bytes
        read, first and last stamp); a numbered pass over a fresh index counts the file later.
        """
        reader = self._reader
        if reader.gone:
            return 0
        held = isinstance(reader, _HeldReader)
        try:
            fd = reader.fd if isinstance(reader, _HeldReader) else open_regular(self.path)
        except OSError as exc:
            raise UnreadableFile(f"{self.display}: {exc.strerror or exc}") from None
        try:
            st = os.fstat(fd)
            if not held:  # a held descriptor is the inode by construction
                if self.inode is not None and st.st_ino != self.inode:
                    raise UnreadableFile(f"{self.display}: replaced on disk (rotation)")
                self.inode = st.st_ino
            end = st.st_size if limit is None else min(st.st_size, limit)
            if end < self.indexed:
                raise UnreadableFile(f"{self.display}: truncated")
            return self._consume(fd, end, on_chunk, cancelled, progress, numbered)
        except OSError as exc:
            raise UnreadableFile(f"{self.display}: {exc.strerror or exc}") from None
        finally:
            if not held:
                os.close(fd)

    def _translate(self, data: bytes) -> bytes:
        """The bytes as the index sees them: CR-only files get LF line ends (same length)."""
        if self.cr_lines is None and data:
            head = data[:SNIFF_EOL_BYTES]
            self.cr_lines = b"\n" not in head and b"\r" in head
        return data.translate(_CR_TO_LF) if self.cr_lines else data

    def _consume(self, fd: int, end: int, on_chunk: ChunkHook | None,
                 cancelled: Callable[[], bool] | None, progress: Callable[[int], None] | None,
                 numbered: bool = True) -> int:
        """Read [indexed, end) in 1 MiB preads and index every complete line.

        Each read starts at the first unindexed byte, so a partial line is simply read again
        with the next chunk instead of being carried and concatenated.
        """
        before = self.newlines
        pos = self.indexed
        reached = pos
        while pos < end:
            if cancelled is not None and cancelled():
                break
            data = self._translate(os.pread(fd, min(CHUNK, end - pos), pos))
            if not data:
                break
            reached = pos + len(data)
            cut = data.rfind(b"\n")
            if cut < 0:  # a line longer than a chunk: read on until its newline
                parts = [data]
                while cut < 0 and reached < end:
                    more = self._translate(os.pread(fd, min(CHUNK * 8, end - reached), reached))
                    if not more:
                        break
                    reached += len(more)
                    parts.append(more)
                    cut = more.rfind(b"\n")
                    if cut >= 0:
                        cut += sum(len(x) for x in parts[:-1])
                data = b"".join(parts)
                if cut < 0:
                    break
            if numbered:
                self._add(data, on_chunk, cut + 1)
            else:
                self._pass_on(data, on_chunk, cut + 1)
            pos = self.indexed
            if progress is not None:
                progress(self.indexed)
        # a partial last line stays unindexed (held) but counts towards size
        self.size = max(reached, self.indexed)
        if on_chunk is not None and self.include_partial and reached == end and self.size > self.indexed:
            # a crashed process's last line often has no newline: the scanner reads it as a line
            # (reports); a live index holds it back until its newline arrives
            tail = self._translate(os.pread(fd, min(self.size - self.indexed, MAX_PARTIAL_BYTES), self.indexed)) + b"\n"
            on_chunk((Chunk if numbered else OffsetChunk)(tail, len(tail), self.indexed, self.newlines, self))
        return self.newlines - before

    def _add(self, data: bytes, on_chunk: ChunkHook | None, n: int | None = None) -> None:
        """Index data[:n], which must end with a newline."""
        n = len(data) if n is None else n
        start = self.indexed
        end = start + n
        first_line = self.newlines
        # the block holding the old end was cached short: forget it (and anything after it)
        self._clear_caches(start // BLOCK)
        # register every block that begins inside [start, end); count incrementally
        k = len(self.nl_before)
        counted_to, counted = 0, self.newlines
        while k * BLOCK < end:
            rel = max(k * BLOCK - start, 0)
            counted += data.count(b"\n", counted_to, rel)
            counted_to = rel
            self.nl_before.append(counted)
            self.block_time.append(self._block_stamp_in(data, rel, n, k) if self.stamp_blocks else UNKNOWN_TIME)
            k += 1
        self._note_stamps(data, n)
        # indexed first: a reader that sees the new line count must see the bytes that hold it
        self.indexed = end
        self.newlines = counted + data.count(b"\n", counted_to, n)
        if on_chunk is not None:
            on_chunk(Chunk(data, n, start, first_line, self))

    def _pass_on(self, data: bytes, on_chunk: ChunkHook | None, n: int) -> None:
        """`_add` without the newline count: data[:n] ends with a newline."""
        self._note_stamps(data, n)
        start = self.indexed
        self.indexed = start + n
        if on_chunk is not None:
            on_chunk(OffsetChunk(data, n, start, -1, self))

    def _note_stamps(self, data: bytes, n: int) -> None:
        if self.first_time < 0:
            t = self._first_stamp(data, 0, n)
            if t >= 0:
                self.first_time = t
        t = self._last_stamp(data[max(0, n - 4096): n])
        if t >= 0:
            self.last_time = t

    def _first_stamp(self, data: bytes, rel: int, n: int | None = None) -> int:
        """The first own stamp at or after `rel`, looking at a few lines only."""
        window = data[rel: min(rel + 4096, len(data) if n is None else n)]
        t = ts6_bytes_to_us(window)
        if t is not None:
            return t
        for raw in window.split(b"\n")[1:12]:
            st = find_stamp(decode(raw), self.year_hint)
            if st:
                return st.us
        return -1

    def _last_stamp(self, tail: bytes) -> int:
        for raw in reversed(tail.split(b"\n")[1:]):
            if raw:
                t = self.stamp_of(raw)
                if t >= 0:
                    return t
        return -1

    def stamp_of(self, raw: bytes) -> int:
        """`find_stamp` of a raw line (-1 = none), with the common case first: a TS6 stamp in
        the first 400 bytes is what find_stamp would return too (it tries TS6 first, over the
        first 400 characters), at a third of the cost and without decoding."""
        m = TS6_HEAD.search(raw, 0, 400)
        if m is not None:
            us = ts6_head_us(m)
            return -1 if us is None else us
        st = find_stamp(decode(raw[:400]), self.year_hint)
        return st.us if st else -1

    # ----------------------------------------------------------------- reading
    def _pread(self, length: int, offset: int) -> bytes:
        return self._reader.pread(self, length, offset)

    def _block_newlines(self, k: int) -> array:
        """Positions of the newlines inside block k, relative to the block start (cached).

        Two bytes each (a block is 64 KiB) and at most CACHED_BLOCKS blocks per file: with 8
        bytes and 256 blocks, a merge walking 73 files held ~100 MB of these caches."""
        start = k * BLOCK
        end = min(start + BLOCK, self.indexed)
        got = self._cached(self._offsets, k, end)
        if got is not None:
            return got
        data = self._pread(end - start, start) if end > start else b""
        arr = array("H", (m.start() for m in _NL.finditer(data)))
        self._cache(self._offsets, k, end, arr)
        return arr

    def _newline_pos(self, j: int) -> int:
        """Absolute position of the j-th newline (0-based)."""
        k = bisect_right(self.nl_before, j) - 1
        while True:
            arr = self._block_newlines(k)
            idx = j - self.nl_before[k]
            if idx < len(arr):
                return k * BLOCK + arr[idx]
            k += 1  # a block with no newline (very long line): keep walking

    def line_start(self, i: int) -> int:
        return 0 if i <= 0 else self._newline_pos(i - 1) + 1

    def line_end(self, i: int) -> int:
        """Position of line i's newline, or the end of the partial tail."""
        if i < self.newlines:
            return self._newline_pos(i)
        return self.size

    def raw_lines(self, first: int, count: int, max_bytes: int = 8 << 20) -> list[bytes]:
        """Raw bytes of lines [first, first+count), without newlines; long lines are cut."""
        if self.retired:
            last = min(first + count, self.line_count)
            return [self._kept(i)[0] for i in range(max(first, 0), last)]
        if not self.live:
            return self._raw_lines(first, count, max_bytes)
        # a followed file can shrink on disk before the tail sees it: the lines read as empty
        # (the next apply retires the index) instead of failing
        want = max(min(first + count, self.line_count) - max(first, 0), 0)
        try:
            got = self._raw_lines(first, count, max_bytes)
            if len(got) == want:
                return got
        except (IndexError, UnreadableFile):
            pass
        return [b""] * want

    def _raw_lines(self, first: int, count: int, max_bytes: int) -> list[bytes]:
        last = min(first + count, self.line_count) - 1
        if first < 0 or last < first:
            return []
        start = self.line_start(first)
        end = self.line_end(last)
        if end - start <= max_bytes:
            data = self._pread(end - start, start)
            parts = data.split(b"\n")
            return parts[: last - first + 1]
        out = []
        for i in range(first, last + 1):
            s, e = self.line_start(i), self.line_end(i)
            out.append(self._pread(min(e - s, MAX_LINE_BYTES), s))
        return out

    def lines(self, first: int, count: int) -> list[str]:
        return [decode(r) for r in self.raw_lines(first, count)]

    def line(self, i: int) -> str:
        got = self.lines(i, 1)
        return got[0] if got else ""

    def full_line(self, i: int) -> str:
        """The exact whole line, however long (reports quote it verbatim)."""
        if self.retired:
            return self._kept(i)[0].decode("utf-8", "replace").rstrip("\r")
        if not self.live:
            return self._full_line(i)
        try:
            return self._full_line(i)
        except (IndexError, UnreadableFile):
            return ""

    def _full_line(self, i: int) -> str:
        s, e = self.line_start(i), self.line_end(i)
        return decode(self._pread(e - s, s))

    # ----------------------------------------------------------------- time
    def _block_times(self, k: int) -> array:
        """Own stamp of every line starting in block k, -1 where the line has none."""
        first = self._block_first_line(k)
        last = (min(self.nl_before[k + 1] + 1, self.line_count) if k + 1 < len(self.nl_before)
                else self.line_count)
        got = self._cached(self._times, k, last)
        if got is not None:
            return got
        times = array("q")
        if last > first:
            for raw in self.raw_lines(first, last - first):
                times.append(self.stamp_of(raw))
        self._cache(self._times, k, last, times)
        return times

    def block_of_line(self, i: int) -> int:
        """Block in which line i starts: line i starts after newline i-1."""
        return 0 if i <= 0 else bisect_right(self.nl_before, i - 1) - 1

    def block_line_times(self, i: int) -> tuple[int, array]:
        """(first line of line i's block, own stamp of every line of that block, -1 = none):
        for callers that walk many lines, so they never redo the block numbering."""
        k = self.block_of_line(i)
        return self._block_first_line(k), self._block_times(k)

    def own_time(self, i: int) -> int | None:
        if self.retired:
            _, t, inherited = self._kept(i)
            return t if t >= 0 and not inherited else None
        if not self.live:
            return self._own_time(i)
        try:
            return self._own_time(i)
        except (IndexError, UnreadableFile):
            return None

    def _own_time(self, i: int) -> int | None:
        k = self.block_of_line(i)
        times = self._block_times(k)
        first = self._block_first_line(k)
        t = times[i - first] if 0 <= i - first < len(times) else -1
        return t if t >= 0 else None

    def _block_first_line(self, k: int) -> int:
        """First line whose preceding newline lies in block k (see `block_of_line`)."""
        return self.nl_before[k] + 1 if k > 0 else 0

    def line_time(self, i: int) -> tuple[int | None, bool]:
        """(time, inherited): a line without its own stamp inherits the previous line's."""
        if self.retired:
            _, t, inherited = self._kept(i)
            return (None, True) if t < 0 else (t, inherited)
        if not self.live:
            return self._line_time(i)
        try:
            return self._line_time(i)
        except (IndexError, UnreadableFile):
            return None, True

    def _line_time(self, i: int) -> tuple[int | None, bool]:
        k = self.block_of_line(i)
        walked = 0
        while k >= 0:
            times = self._block_times(k)
            first = self._block_first_line(k)
            j = min(i - first, len(times) - 1)
            while j >= 0:
                if times[j] >= 0:
                    return times[j], (first + j) != i
                j -= 1
            k -= 1
            walked += 1
            if walked > 64:  # a stampless file: do not read megabytes backwards
                break
        return None, True

    def _block_stamp_in(self, data: bytes, rel: int, n: int, k: int) -> int:
        """`block_first_time` of block k from the chunk in memory when the chunk holds all
        that it reads (else left to it: UNKNOWN_TIME): no second read of the block."""
        end = rel + BLOCK + 4096
        if end > n:
            return UNKNOWN_TIME
        first = rel
        if k > 0:
            nl = data.find(b"\n", rel, rel + BLOCK)
            first = end if nl < 0 else nl + 1
        return self._first_stamp(data, first, end) if first < end else -1

    def block_first_time(self, k: int) -> int:
        """First own stamp of a line starting in block k (-1 = none), worked out on first use."""
        t = self.block_time[k]
        if t == UNKNOWN_TIME:
            start = k * BLOCK
            data = self._pread(min(BLOCK + 4096, self.indexed - start), start) if self.indexed > start else b""
            rel = 0
            if k > 0:  # the block's first line starts after its first newline
                nl = data.find(b"\n", 0, BLOCK)
                rel = len(data) if nl < 0 else nl + 1
            t = self._first_stamp(data, rel) if rel < len(data) else -1
            self.block_time[k] = t
        return t

    def warm_times(self, t: int) -> None:
        """Work out the line stamps of the blocks around moment t, what a merged window at t
        reads first (core.window), and of the last block (`G`). A count in a worker process
        does it for the anchor's moment, so the interface does not parse them when it adopts
        the count or jumps to the end."""
        bts = [bt if bt >= 0 else 1 << 62 for bt in map(self.block_first_time, range(len(self.block_time)))]
        k = bisect_left(bts, t)
        for b in sorted({*range(max(k - 3, 0), min(k + 3, len(bts))), len(bts) - 1} - {-1}):
            self._block_times(b)

    def _probe_time(self, k: int) -> tuple[int, int]:
        """(block, time) of the first block at or after k with a stamp, looking a few ahead."""
        n = len(self.block_time)
        for j in range(k, min(k + 8, n)):
            t = self.block_first_time(j)
            if t >= 0:
                return j, t
        return k, -1

    def line_at_time(self, t: int) -> int:
        """First line whose time is >= t (best effort for non-monotone files).

        Blocks are mostly in time order, so a bisect over their first stamps (each parsed on
        first use) finds the last block starting before t; the lines around it decide.
        """
        lo, hi = 0, len(self.block_time)
        while lo < hi:  # first block whose first stamp is >= t
            mid = (lo + hi) // 2
            _, bt = self._probe_time(mid)
            if bt < 0 or bt >= t:  # stampless run: treat as "not before t" (keeps lo minimal)
                hi = mid
            else:
                lo = mid + 1
        best = max(lo - 1, 0)
        lo_line = self.nl_before[best] if best > 0 else 0
        hi_line = self.nl_before[best + 2] if best + 2 < len(self.nl_before) else self.line_count
        for i in range(lo_line, hi_line):
            lt, _ = self.line_time(i)
            if lt is not None and lt >= t:
                return i
        return min(hi_line, max(self.line_count - 1, 0))

    def iter_lines(self, first: int = 0, batch: int = 4096) -> Iterator[tuple[int, str]]:
        i = first
        n = self.line_count
        while i < n:
            chunk = self.lines(i, min(batch, n - i))
            for text in chunk:
                yield i, text
                i += 1
            if not chunk:
                break

    def memory_bytes(self) -> int:
        """Bytes held per file by the permanent index (caches excluded)."""
        return (self.nl_before.itemsize * len(self.nl_before)
                + self.block_time.itemsize * len(self.block_time))

    def guess_year(self) -> int | None:
        if self.first_time >= 0:
            return year_of(self.first_time)
        return self.year_hint
