"""Merge of many indexed files into one time order (DESIGN.md 2, DOMAIN.md 5).

A `Timeline` is an ordered list of `(file_id, line)` pairs stored as two compact arrays
(`array('H')` file ids + `array('I')` line numbers, 6 bytes per merged line) plus, per file, the
merged position of each of its lines (`array('I')`, 4 bytes per line) so that a line can be
found again in the merged order in O(1).

Ordering rules:
  * each source's files are chained in rotation order and never reordered among themselves;
  * a line's key is its own timestamp plus the source's clock offset; a line without an own
    stamp (traceback, table row, wrapped text) inherits the key of its predecessor in the same
    source, so it stays right after it;
  * ties keep (source, file, line) order, so equal stamps never split a multi-line group.

Two modes:
  * ``concat``: the chosen files are shown one after the other, no arrays, O(1) to open. Used
    for a single source (its rotated chain *is* its time order) and as a stand-in while the
    index is still running;
  * ``merge``: a k-way merge built incrementally by `build()` in chunks so the UI can show a
    partial timeline with progress and cancel it.

An optional `selection` maps file_id -> sorted line numbers to merge only some lines (a filter,
the HCCL view). `scan_matching_lines` finds such lines with a C-speed bytes regex.

Pure Python: no Textual, no rich.
"""

from __future__ import annotations

import heapq
import re
from array import array
from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from npudiag_tui.core.workspace import Workspace

Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]

_BATCH = 16384
_NEG = -(1 << 62)


class Timeline:
    """An ordered view of lines from several files (see the module docstring)."""

    def __init__(self, ws: "Workspace", file_ids: Sequence[int],
                 selection: dict[int, Sequence[int]] | None = None,
                 mode: str | None = None) -> None:
        self.ws = ws
        # keep source order, then chain order inside a source
        order = {f.file_id: (s.source_id, k) for s in ws.sources for k, f in enumerate(s.files)}
        self.file_ids: list[int] = sorted(set(file_ids), key=lambda f: order.get(f, (1 << 30, f)))
        self.selection = selection
        sources = {order.get(f, (f, 0))[0] for f in self.file_ids}
        if mode is None:
            mode = "concat" if selection is None and len(sources) <= 1 else "merge"
        if mode == "concat" and selection is not None:
            mode = "merge"
        self.mode = mode
        self.files = array("H")
        self.lines = array("I")
        self._pos: dict[int, array] = {}  # file_id -> merged position per (selected) line
        self._sel: dict[int, array] = {}  # file_id -> selected line numbers (selection mode)
        self._next: dict[int, int] = {f: 0 for f in self.file_ids}  # consumed per file
        self._last_key: dict[int, int] = {}  # source id -> last key (inheritance across chain)
        self.complete = mode == "concat"
        if selection is not None:
            for f in self.file_ids:
                self._sel[f] = array("I", selection.get(f, ()))

    # ------------------------------------------------------------------ size / access
    def __len__(self) -> int:
        if self.mode == "concat":
            return sum(self.ws.indexes[f].line_count for f in self.file_ids)
        return len(self.files)

    @property
    def total(self) -> int:
        """Lines the finished timeline will hold (for progress)."""
        if self.selection is not None:
            return sum(len(v) for v in self._sel.values())
        return sum(self.ws.indexes[f].line_count for f in self.file_ids)

    def at(self, i: int) -> tuple[int, int]:
        """(file_id, line) at merged position i."""
        if self.mode == "concat":
            for f in self.file_ids:
                n = self.ws.indexes[f].line_count
                if i < n:
                    return f, i
                i -= n
            raise IndexError(i)
        return self.files[i], self.lines[i]

    def position_of(self, file_id: int, line: int) -> int | None:
        """Merged position of an exact line, or None when it is not (yet) in the timeline."""
        if self.mode == "concat":
            base = 0
            for f in self.file_ids:
                n = self.ws.indexes[f].line_count
                if f == file_id:
                    return base + line if 0 <= line < n else None
                base += n
            return None
        pos = self._pos.get(file_id)
        if pos is None:
            return None
        if self.selection is None:
            return pos[line] if 0 <= line < len(pos) else None
        sel = self._sel[file_id]
        k = bisect_left(sel, line)
        if k < len(pos) and sel[k] == line:
            return pos[k]
        return None

    def nearest_position(self, file_id: int, line: int) -> int | None:
        """Position of the line, or of the closest earlier line of the same file that is present."""
        exact = self.position_of(file_id, line)
        if exact is not None or self.mode == "concat":
            return exact
        pos = self._pos.get(file_id)
        if not pos:
            return None
        if self.selection is None:
            return pos[min(line, len(pos) - 1)] if line >= 0 else None
        sel = self._sel[file_id]
        k = bisect_right(sel, line) - 1
        k = min(max(k, 0), len(pos) - 1)
        return pos[k]

    def time_at(self, i: int) -> int | None:
        """Aligned time (own or inherited, clock offset applied) of merged position i."""
        f, line = self.at(i)
        t, _ = self.ws.indexes[f].line_time(line)
        if t is None:
            return None
        return t + self.ws.source_of_file(f).clock_offset_us

    def position_at_time(self, t: int) -> int:
        """First position whose time is >= t (binary search; lines without time sort early)."""
        n = len(self)
        if n == 0:
            return 0
        if self.mode == "concat" and len(self.file_ids) == 1:
            f = self.file_ids[0]
            off = self.ws.source_of_file(f).clock_offset_us
            return min(self.ws.indexes[f].line_at_time(t - off), n - 1)
        lo, hi = 0, n
        while lo < hi:
            mid = (lo + hi) // 2
            tm = self.time_at(mid)
            if tm is None or tm < t:
                lo = mid + 1
            else:
                hi = mid
        return min(lo, n - 1)

    # ------------------------------------------------------------------ building
    def _keys(self, fid: int, start: int, stop: int, src_id: int, offset: int
              ) -> Iterator[tuple[int, int, int, int]]:
        """(key, source order, file_id, line) for lines [start, stop) of one file."""
        idx = self.ws.indexes[fid]
        last = self._last_key.get(src_id, _NEG)
        rank = src_id
        sel = self._sel.get(fid) if self.selection is not None else None
        if sel is not None:
            for k in range(start, stop):
                line = sel[k]
                t, _ = idx.line_time(line)
                if t is not None:
                    last = t + offset
                self._last_key[src_id] = last
                yield last, rank, fid, k
            return
        i = start
        block_times = getattr(idx, "_block_times", None)
        nl_before = getattr(idx, "nl_before", None)
        while i < stop:
            if block_times is not None and nl_before is not None and len(nl_before):
                b = idx._block_for_line_start(i)
                first = nl_before[b] if b > 0 else 0
                times = block_times(b)
                j = i - first
                end_j = min(len(times), stop - first)
                if j >= end_j:  # block ran short (partial tail): fall back per line
                    t = idx.own_time(i)
                    if t is not None:
                        last = t + offset
                    self._last_key[src_id] = last
                    yield last, rank, fid, i
                    i += 1
                    continue
                while j < end_j:
                    t = times[j]
                    if t >= 0:
                        last = t + offset
                    self._last_key[src_id] = last
                    yield last, rank, fid, first + j
                    j += 1
                i = first + j
            else:
                t = idx.own_time(i)
                if t is not None:
                    last = t + offset
                self._last_key[src_id] = last
                yield last, rank, fid, i
                i += 1

    def _source_iter(self, files: list[int], src_id: int, offset: int
                     ) -> Iterator[tuple[int, int, int, int]]:
        for fid in files:
            stop = len(self._sel[fid]) if self.selection is not None else self.ws.indexes[fid].line_count
            start = self._next[fid]
            if start < stop:
                yield from self._keys(fid, start, stop, src_id, offset)

    def build(self, progress: Progress | None = None, cancelled: Cancelled | None = None) -> bool:
        """Merge everything not merged yet; resumable. Returns True when complete.

        Appended lines (live tail) are merged by calling `build()` again: they land at the end
        of the timeline, which matches how they arrive.
        """
        if self.mode == "concat":
            self.complete = True
            return True
        by_source: dict[int, list[int]] = {}
        for fid in self.file_ids:
            src = self.ws.source_of_file(fid)
            by_source.setdefault(src.source_id, []).append(fid)
        iters = [self._source_iter(fids, sid, self.ws.sources[sid].clock_offset_us)
                 for sid, fids in by_source.items()]
        total = self.total
        done = len(self.files)
        merged = heapq.merge(*iters)
        files_a, lines_a, pos_map, nxt = self.files, self.lines, self._pos, self._next
        n = len(files_a)
        count = 0
        for _key, _src, fid, line in merged:
            pos = pos_map.get(fid)
            if pos is None:
                pos = pos_map[fid] = array("I")
            files_a.append(fid)
            lines_a.append(self._sel[fid][line] if self.selection is not None else line)
            pos.append(n)
            n += 1
            nxt[fid] = line + 1
            count += 1
            if count % _BATCH == 0:
                if progress is not None:
                    progress(done + count, total)
                if cancelled is not None and cancelled():
                    self.complete = False
                    return False
        if progress is not None:
            progress(done + count, max(total, done + count))
        self.complete = True
        return True

    def memory_bytes(self) -> int:
        return (self.files.itemsize * len(self.files) + self.lines.itemsize * len(self.lines)
                + sum(a.itemsize * len(a) for a in self._pos.values())
                + sum(a.itemsize * len(a) for a in self._sel.values()))


def scan_matching_lines(index, pattern: "re.Pattern[bytes]", cancelled: Cancelled | None = None,
                        predicate: Callable[[str], bool] | None = None,
                        limit: int = 5_000_000, chunk_lines: int = 65536, start: int = 0) -> array:
    """Line numbers of `index` whose raw bytes match `pattern` (and `predicate`, when given).

    Reads the file through the index in runs of lines and searches each run with one C-level
    `finditer`, so lines that cannot match cost nothing in Python. `pattern` should be compiled
    with re.M when it uses ^. `start` skips lines already scanned (live tail).
    """
    out = array("I")
    n = index.line_count
    i = start
    while i < n:
        if cancelled is not None and cancelled():
            break
        count = min(chunk_lines, n - i)
        raws = index.raw_lines(i, count)
        if not raws:
            break
        data = b"\n".join(raws)
        last_line = -1
        pos_line = 0
        counted = 0
        for m in pattern.finditer(data):
            s = m.start()
            pos_line += data.count(b"\n", counted, s)
            counted = s
            if pos_line == last_line:
                continue
            last_line = pos_line
            if predicate is not None:
                if not predicate(raws[pos_line][:4096].decode("utf-8", "replace")):
                    continue
            out.append(i + pos_line)
            if len(out) >= limit:
                return out
        i += len(raws)
    return out
