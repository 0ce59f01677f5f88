"""Merge of many indexed files into one time order (docs/architecture.md, "Data flow").

A `Timeline` is an ordered list of `(file_id, line)` pairs stored as two compact arrays
(`array('H')` file ids + `array('I')` line numbers, 6 bytes per merged line). To find a line
again in the merged order, each file keeps the merged position of every 64th of its lines; the
rest is a few C-level `array.index` steps from there (a full position per line cost 4 more bytes
per line, 40% of the merge's memory).

Ordering rules:
  * each source's files are chained in rotation order and never reordered among themselves;
  * a line's key is its own timestamp; a line without an own
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
the HCCL view); None for a file keeps all its lines (the rank filter on console lines spares
the plogs). `scan_matching_lines` finds such lines with a C-speed bytes regex.

Pure Python: no Textual, no rich.
"""

from __future__ import annotations

import os
import re
from array import array
from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Sequence

from npudiag_tui.core.formats.timestamps import TS6_HEAD, TS6_SECOND_US, ts6_head_us

if TYPE_CHECKING:  # pragma: no cover
    from npudiag_tui.core.workspace import Workspace

Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]

_BATCH = 16384  # merged lines per progress report
_CHECK = 1024  # merged lines per cancellation check (the UI's pause-for-input hook)
_NEG = -(1 << 62)
_SAMPLE = 256  # every 256th merged position keeps its key, for position_at_time
_POS_STEP = 64  # every 64th line of a file keeps its merged position, for position_of
_READ = 1 << 20  # per pread of a filter or search scan: with its copies it is the scan's transient memory


_RAW_BATCH = 2048  # lines per read when stamping selected lines
# lines per key batch of a source in the merge: small, so a merge window (a batch from every
# source) stays a few ms of work between two looks at the UI's pause-for-input hook
_KEY_BATCH = 512


def _clamp(keys: list[int], top: int) -> int:
    """Raise keys that go backwards to the running maximum (from `top`), in place, so that a
    source whose clock steps back keeps its own line order in the merge; returns the maximum."""
    for k, key in enumerate(keys):
        if key < top:
            keys[k] = top
        else:
            top = key
    return top


class Timeline:
    """An ordered view of lines from several files (see the module docstring)."""

    def __init__(self, ws: "Workspace", file_ids: Sequence[int],
                 selection: dict[int, Sequence[int]] | None = None,
                 mode: str | None = None, selection_times: dict[int, array] | None = None,
                 scanned: dict[int, int] | None = None) -> None:
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
        self._pos: dict[int, array] = {}  # file_id -> merged position of every _POS_STEP-th line
        self._sel: dict[int, array] = {}  # file_id -> selected line numbers (absent: every line)
        self._next: dict[int, int] = {f: 0 for f in self.file_ids}  # consumed per file
        self._last_key: dict[int, int] = {}  # source id -> last key (inheritance across chain)
        self._samples = array("q")  # key of every _SAMPLE-th merged position
        self._top: dict[int, int] = {}  # source id -> last merged key (build(until=...) resumes)
        self.complete = mode == "concat"
        # own stamps of the selected lines, from the scan that chose them (-1 = none); dropped
        # once the merge is complete
        self._sel_times: dict[int, tuple[int, array]] = {f: (0, t) for f, t in (selection_times or {}).items()}
        # lines of each selected file that the choosing scan covered (live: scan on from there)
        self.scanned: dict[int, int] = dict(scanned or {})
        # console files in a merge: their lines in time order across rank channels (see
        # `_order_console`), each line's merge key, and each line's count in that order + 1
        self._ckeys: dict[int, array] = {}
        self._inv: dict[int, array] = {}
        self._marks_cache: tuple[object, int, int, dict[int, array]] | None = None
        if selection is not None:
            for f in self.file_ids:
                lines = selection.get(f, ())
                if lines is not None:  # None: every line of this file (a filter that spares it)
                    self._sel[f] = array("I", lines)

    # ------------------------------------------------------------------ size / access
    def __len__(self) -> int:
        if self.mode == "concat":
            return sum(self.ws.indexes[f].line_count for f in self.file_ids)
        return len(self.files)

    @property
    def total(self) -> int:
        """Lines the finished timeline will hold (for progress)."""
        if self.selection is not None:
            return sum(len(self._sel[f]) if f in self._sel else self.ws.indexes[f].line_count
                       for f in self.file_ids)
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
        if file_id not in self._pos:
            return None
        merged = self._next.get(file_id, 0)
        c = self._count_of(file_id, line)
        if c is None:
            return None
        return self._position_of_count(file_id, c) if 0 <= c < merged else None

    def _count_of(self, file_id: int, line: int) -> int | None:
        """The line's place among the file's merged lines (None: not chosen)."""
        inv = self._inv.get(file_id)
        if inv is not None:
            return inv[line] - 1 if 0 <= line < len(inv) and inv[line] else None
        sel = self._sel.get(file_id)
        if sel is None:
            return line
        c = bisect_left(sel, line)
        return c if c < len(sel) and sel[c] == line else None

    def _position_of_count(self, file_id: int, c: int) -> int:
        """Merged position of the file's c-th merged line (c < lines merged so far)."""
        p = self._pos[file_id][c // _POS_STEP]
        index = self.files.index
        for _ in range(c % _POS_STEP):
            p = index(file_id, p + 1)
        return p

    # ------------------------------------------------------------------ marks
    def next_position(self, refs: Iterable[tuple[int, int]], position: int, forward: bool) -> int | None:
        """Position of the first of `refs` after (before) `position` (-1 and len(self) stand
        before the first row and after the last), without positioning all of them (a walk each,
        tens of thousands in a plog pane): per file, only the mark next to the position's place
        in that file competes."""
        n = len(self)
        if not -1 <= position <= n:
            return None
        marks = self._mark_counts(refs)
        if self.mode == "concat":
            base, found = 0, None
            for f in self.file_ids:  # positions are base + line, files one after the other
                count = self.ws.indexes[f].line_count
                lines = marks.get(f)
                if lines:
                    x = position - base
                    if forward:
                        k = bisect_right(lines, x)
                        if k < len(lines) and lines[k] < count:
                            return base + lines[k]
                    else:  # the last before it: later files may hold a later one
                        k = bisect_left(lines, min(x, count)) - 1
                        if k >= 0:
                            found = base + lines[k]
                base += count
            return found
        best: int | None = None
        for f, counts in marks.items():
            merged = self._next.get(f, 0)
            if not counts or not merged or f not in self._pos:
                continue
            cut = self._count_before(f, position + 1 if forward else position)
            k = bisect_left(counts, cut) if forward else bisect_left(counts, cut) - 1
            if not 0 <= k < len(counts) or counts[k] >= merged:
                continue
            p = self._position_of_count(f, counts[k])
            if best is None or (p < best if forward else p > best):
                best = p
        return best

    def _count_before(self, file_id: int, position: int) -> int:
        """How many of the file's merged lines sit before `position` in the merged order."""
        kept = self._pos[file_id]
        j = bisect_left(kept, position)
        if j == 0:
            return 0
        c, p = (j - 1) * _POS_STEP, kept[j - 1]
        merged = self._next.get(file_id, 0)
        index = self.files.index
        while c + 1 < merged and p + 1 < position:
            try:
                p = index(file_id, p + 1, position)
            except ValueError:
                break
            c += 1
        return c + 1

    def _mark_counts(self, refs: Iterable[tuple[int, int]]) -> dict[int, array]:
        """The marks' places in each file's merged lines (concat: their line numbers), sorted;
        kept for the same refs while the timeline has not grown (e/E and w/W ask at every press)."""
        got = self._marks_cache
        if got is not None and got[0] is refs and got[1] == len(refs) and got[2] == len(self):  # type: ignore[arg-type]
            return got[3]
        shown = set(self.file_ids)
        by_file: dict[int, list[int]] = {}
        for f, line in refs:
            if f in shown:
                by_file.setdefault(f, []).append(line)
        out: dict[int, array] = {}
        for f, lines in by_file.items():
            lines.sort()
            inv, sel = self._inv.get(f), self._sel.get(f)
            if self.mode == "concat" or (sel is None and inv is None):
                out[f] = array("Q", lines)  # a line's place is its number
            elif inv is not None:  # a console in time order: each line's place is kept
                n = len(inv)
                out[f] = array("Q", sorted(inv[ln] - 1 for ln in lines if ln < n and inv[ln]))
            else:  # a selection: the place of each selected mark, the marks in line order
                counts, c, n = array("Q"), 0, len(sel)
                for ln in lines:
                    c = bisect_left(sel, ln, c)
                    if c >= n:
                        break
                    if sel[c] == ln:
                        counts.append(c)
                out[f] = counts
        self._marks_cache = (refs, len(refs), len(self), out)  # type: ignore[arg-type]
        return out

    def nearest_position(self, file_id: int, line: int) -> int | None:
        """Position of the line, or of the closest earlier line of the same file that is present."""
        exact = self.position_of(file_id, line)
        if exact is not None or self.mode == "concat":
            return exact
        merged = self._next.get(file_id, 0)
        if file_id not in self._pos or merged == 0 or file_id in self._inv:
            return None  # a console file in time order: the caller goes by time
        sel = self._sel.get(file_id)
        if sel is None:
            if line < 0:
                return None
            c = min(line, merged - 1)
        else:
            c = bisect_right(sel, line) - 1
            c = min(max(c, 0), merged - 1)
        return self._position_of_count(file_id, c)

    def time_at(self, i: int) -> int | None:
        """Time (own or estimated, `core.timemodel`) of merged position i."""
        f, line = self.at(i)
        return self.ws.times.line_time(f, line).us

    def position_at_time(self, t: int) -> int:
        """First position whose time is >= t (best effort where a file's clock goes backwards).

        Merged: a bisect over the sampled keys, then one inside that interval. Concat: the
        file whose last stamp reaches t, then that file's own index lookup.
        """
        n = len(self)
        if n == 0:
            return 0
        if self.mode == "concat":
            base = 0
            for f in self.file_ids:
                idx = self.ws.indexes[f]
                count = idx.line_count
                last = idx.last_time
                if count and (last < 0 or last >= t or f == self.file_ids[-1]):
                    return min(base + idx.line_at_time(t), n - 1)
                base += count
            return n - 1
        k = bisect_left(self._samples, t)
        lo = max(k - 1, 0) * _SAMPLE
        hi = min(k * _SAMPLE + 1, n)
        # bisect inside the sample interval (merged keys ascend): a linear walk read the time
        # of up to 256 lines, and in a sparse selection each sits in another index block
        end = hi
        while lo < hi:
            mid = (lo + hi) // 2
            tm = self.time_at(mid)
            if tm is not None and tm >= t:
                hi = mid
            else:
                lo = mid + 1
        return min(lo, end, n - 1)

    # ------------------------------------------------------------------ building
    def _key_batches(self, fid: int, start: int, stop: int, src_id: int) -> Iterator[tuple[int, list[int]]]:
        """(first, keys) for the file's lines (selected lines in a selection) first, first+1, ...
        in [start, stop), a few thousand at a time. A line's key is its own stamp, or the
        key of the line before it in the source."""
        idx = self.ws.indexes[fid]
        last = self._last_key.get(src_id, _NEG)
        ckeys = self._ckeys.get(fid)
        if ckeys is not None:  # a console file, already in time order with its keys
            for first in range(start, stop, _KEY_BATCH):
                keys = list(ckeys[first: min(first + _KEY_BATCH, stop)])
                self._last_key[src_id] = keys[-1]
                yield first, keys
            return
        sel = self._sel.get(fid)
        if sel is not None:
            keys: list[int] = []
            first = start
            for j, t in self._selected_stamps(fid, sel, start, stop):
                if t < 0:  # no stamp of its own: the index knows what it inherits
                    inherited, _ = idx.line_time(sel[j])
                    t = -1 if inherited is None else inherited
                if t >= 0:
                    last = t
                keys.append(last)
                if len(keys) >= _KEY_BATCH:
                    self._last_key[src_id] = last
                    yield first, keys
                    first, keys = j + 1, []
            self._last_key[src_id] = last
            if keys:
                yield first, keys
            return
        i = start
        if self.ws.source_of_file(fid).stream.value != "stdout":
            # plog/device grammar: the TS6 stamp is in the head; read runs of lines and take
            # it with one C-level search per line (the generic find_stamp is far slower)
            search = TS6_HEAD.search
            seconds = TS6_SECOND_US
            while i < stop:
                raws = idx.raw_lines(i, min(_KEY_BATCH, stop - i))
                if not raws:
                    break
                keys = []
                append = keys.append
                for raw in raws:  # the hot loop of a merge: the cached-second case inline
                    m = search(raw, 0, 400)
                    if m is not None:
                        sec, ms, us = m.group(1, 2, 3)
                        base = seconds.get(sec)
                        if base is not None:
                            last = base + int(ms + us)
                        else:
                            got = ts6_head_us(m)
                            if got is not None:
                                last = got
                    append(last)
                self._last_key[src_id] = last
                yield i, keys
                i += len(keys)
            return
        while i < stop:
            # walk a block at a time with the index's own numbering of block lines
            first, times = idx.block_line_times(i)
            j = i - first
            end_j = min(len(times), stop - first)
            if j >= end_j:  # block ran short (partial tail): one line on its own
                t = idx.own_time(i)
                if t is not None:
                    last = t
                self._last_key[src_id] = last
                yield i, [last]
                i += 1
                continue
            keys = []
            for t in times[j:end_j]:
                if t >= 0:
                    last = t
                keys.append(last)
            self._last_key[src_id] = last
            yield i, keys
            i = first + end_j

    def _selected_stamps(self, fid: int, sel: array, start: int, stop: int) -> Iterator[tuple[int, int]]:
        """(k, own stamp of the k-th selected line or -1) for k in [start, stop).

        The stamps come from the scan that chose the lines when it kept them; otherwise the
        lines are read a window at a time (one pread per window, not per line). Per-line index
        lookups parsed every line of every block they touched: minutes for the HCCL view of the
        bench tree.
        """
        known = self._sel_times.get(fid)
        if known is not None and known[0] <= start and known[0] + len(known[1]) >= stop:
            first, stamps = known
            for j in range(start, stop):
                yield j, stamps[j - first]
            return
        idx = self.ws.indexes[fid]
        k = start
        while k < stop:
            first = sel[k]
            end_k = bisect_left(sel, first + _RAW_BATCH, k, stop)
            raws = idx.raw_lines(first, sel[end_k - 1] - first + 1)
            for j in range(k, end_k):
                rel = sel[j] - first
                yield j, (idx.stamp_of(raws[rel]) if rel < len(raws) else -1)
            k = end_k

    def _source_batches(self, files: list[int], src_id: int) -> Iterator[tuple[int, int, list[int]]]:
        """(file_id, first, keys) batches of one source, its files in chain order, the keys on
        the source's clock offset (`TimeModel.offsets`)."""
        off = self.ws.times.offsets.get(src_id, 0)
        for fid in files:
            sel = self._sel.get(fid)
            stop = len(sel) if sel is not None else self.ws.indexes[fid].line_count
            start = self._next[fid]
            if start < stop:
                for first, keys in self._key_batches(fid, start, stop, src_id):
                    yield fid, first, [k + off for k in keys] if off else keys

    def build(self, progress: Progress | None = None, cancelled: Cancelled | None = None,
              until: int | None = None) -> bool:
        """Merge everything not merged yet; resumable. Returns True when complete.

        `until`: merge only the lines whose key is below it and stop there (a selection
        scanned forward in time, `core.window.ScanningSelection`: the lines chosen so far are
        all below it, so the merged prefix is already the final order). Returns True when
        that prefix is merged.

        A batched merge: every source contributes a batch of keys; all lines up to a mark that
        no source can still undercut (the earliest of each source's next-512th key) are
        ordered with one stable C-level sort and appended. Ties keep source order, then
        line order; a source whose stamps go backwards keeps its own order (its keys are
        clamped to a running maximum). One sort per window, because a per-line heap merge is
        much slower (bench/README.md).

        Appended lines (live tail) are merged by calling `build()` again: they land at the end
        of the timeline, which matches how they arrive.
        """
        if self.mode == "concat":
            self.complete = True
            return True
        consoles = [fid for fid in self.file_ids if self.ws.times.is_console(fid)]
        for fid in consoles:
            self._order_console(fid, cancelled)
        if any(fid not in self._inv for fid in consoles):  # cut short: nothing merged yet
            self.complete = False
            return False
        by_source: dict[int, list[int]] = {}
        for fid in self.file_ids:
            src = self.ws.source_of_file(fid)
            by_source.setdefault(src.source_id, []).append(fid)
        feeds = [self._source_batches(fids, sid)
                 for sid, fids in by_source.items()]
        # per source: [feed, file_id, first count, keys, position in keys, running max]
        heads: list[list] = []
        for sid, feed in zip(by_source, feeds):
            got = next(feed, None)
            if got is not None:
                heads.append([feed, got[0], got[1], got[2], 0, _clamp(got[2], self._top.get(sid, _NEG)), sid])
        total = self.total
        done = len(self.files)
        reported = done
        files_a, lines_a, pos_map, nxt, sels, samples = (self.files, self.lines, self._pos, self._next,
                                                         self._sel, self._samples)
        while heads:
            # the window ends at the earliest of each source's next-512th key: no source can
            # still produce an earlier line, and none gives more than ~512 lines to the window
            # (ending it at the batches' last keys let one sparse source, e.g. a run log whose
            # 512 lines span the whole job, pull every other source's lines into one window)
            mark = min(h[3][min(h[4] + _KEY_BATCH, len(h[3])) - 1] for h in heads)
            capped = until is not None and mark >= until - 1
            if capped:
                mark = until - 1  # type: ignore[operator]
            w_keys: list[int] = []
            w_fids: list[int] = []
            w_counts: list[int] = []
            for h in list(heads):
                while True:
                    feed, fid, first, keys, at, top, sid = h
                    end = bisect_right(keys, mark, at)
                    if end > at:
                        w_keys.extend(keys[at:end])
                        w_fids.extend([fid] * (end - at))
                        w_counts.extend(range(first + at, first + end))
                        h[4] = end
                        if until is not None:  # where a later call resumes this source
                            self._top[sid] = keys[end - 1]
                    if end < len(keys):
                        break
                    got = next(feed, None)
                    if got is None:
                        heads.remove(h)
                        break
                    h[1], h[2], h[3], h[4], h[5] = got[0], got[1], got[2], 0, _clamp(got[2], top)
            if not w_keys:
                if capped:
                    break
                continue
            order = sorted(range(len(w_keys)), key=w_keys.__getitem__)  # stable
            base = len(files_a)
            m_fids = [w_fids[j] for j in order]
            m_counts = [w_counts[j] for j in order]
            files_a.extend(m_fids)
            if sels:
                lines_a.extend(sels[f][c] if f in sels else c for f, c in zip(m_fids, m_counts))
            else:
                lines_a.extend(m_counts)
            first_sample = (-base) % _SAMPLE
            samples.extend(w_keys[order[p]] for p in range(first_sample, len(order), _SAMPLE))
            for p, (f, c) in enumerate(zip(m_fids, m_counts)):
                if c % _POS_STEP == 0:
                    pos = pos_map.get(f)
                    if pos is None:
                        pos = pos_map[f] = array("I")
                    pos.append(base + p)
            for f, c in zip(w_fids, w_counts):  # last count per file wins (window order)
                nxt[f] = c + 1
            now = len(files_a)
            if progress is not None and now - reported >= _BATCH:
                reported = now
                progress(now, max(total, now))
            if cancelled is not None and cancelled():
                self.complete = False
                if until is not None:
                    self._resume_keys(by_source)
                return False
        if progress is not None:
            progress(len(files_a), max(total, len(files_a)))
        if until is not None:
            self._resume_keys(by_source)
            return True
        self.complete = True
        self._sel_times.clear()
        return True

    def _resume_keys(self, sources: Iterable[int]) -> None:
        """After a `build(until=...)`: the read-ahead past the cut set the inherited keys too
        far; a later call resumes from what was merged (a stampless line after the cut takes
        the key of the line before it)."""
        for sid in sources:
            self._last_key[sid] = self._top.get(sid, _NEG)

    def _order_console(self, fid: int, cancelled: Cancelled | None) -> None:
        """Put a console file's lines (its chosen lines in a selection) in time order.

        Ranks write one console in turns, line by line or block by block, so the file's order
        is not time order; each rank's channel is (`core.timemodel`). The lines are sorted
        stably by their time-model time, made non-decreasing within each channel; a line of a
        channel without any stamp keeps the key of the line above it. Lines that arrive later
        (live tail) are appended in file order, as they arrive.
        """
        wanted = self.ws.indexes[fid].line_count
        chans = self.ws.times.channels(fid, cancelled)
        if chans.lines < wanted and cancelled is not None and cancelled():
            return  # cut short: order it on the next build (an unreadable file: what was read)
        inv = self._inv.get(fid)
        if inv is None:
            base = self._sel.get(fid)
            lines = range(chans.lines) if base is None else [ln for ln in base if ln < chans.lines]
            top: dict[int, int] = {}
            keys: list[int] = []
            last = _NEG
            for ln in lines:
                t = chans.times[ln]
                if t < 0:
                    t = last
                else:
                    c = chans.chan[ln]
                    t = max(t, top.get(c, _NEG))
                    top[c] = t
                last = max(last, t) if t >= 0 else last
                keys.append(t)
            order = sorted(range(len(keys)), key=keys.__getitem__)
            self._sel[fid] = array("I", (lines[j] for j in order))
            self._ckeys[fid] = array("q", (keys[j] for j in order))
            inv = self._inv[fid] = array("I", bytes(4 * chans.lines))
            for k, ln in enumerate(self._sel[fid]):
                inv[ln] = k + 1
        elif self.selection is None or self.selection.get(fid, ()) is None:
            known = len(inv)
            self._append_console(fid, range(known, chans.lines))

    def _append_console(self, fid: int, lines: Sequence[int]) -> None:
        """Lines that arrived after the order was made: at the end, in file order."""
        chans = self.ws.times.channels(fid)
        sel, keys, inv = self._sel[fid], self._ckeys[fid], self._inv[fid]
        for ln in lines:
            if ln >= len(inv):
                inv.extend(array("I", bytes(4 * (ln + 1 - len(inv)))))
            t = chans.times[ln] if ln < chans.lines else -1
            keys.append(max(t, keys[-1]) if keys else t)
            sel.append(ln)
            inv[ln] = len(sel)

    def extend_selection(self, file_id: int, lines: Sequence[int], times: array | None, scanned: int) -> None:
        """Append newly chosen lines of a grown file (live tail); `build()` then merges them at
        the end, as they arrive. `lines` must follow the ones already selected."""
        sel = self._sel.get(file_id)
        if sel is None or not lines:
            self.scanned[file_id] = scanned
            return
        if file_id in self._inv:
            self._append_console(file_id, lines)
            self.scanned[file_id] = scanned
            self.complete = False
            return
        if times is not None and len(times) == len(lines):
            self._sel_times[file_id] = (len(sel), times)
        sel.extend(lines)
        self.scanned[file_id] = scanned
        self.complete = False

    def memory_bytes(self) -> int:
        return (self.files.itemsize * len(self.files) + self.lines.itemsize * len(self.lines)
                + sum(a.itemsize * len(a) for a in self._pos.values())
                + sum(a.itemsize * len(a) for a in self._sel.values()))


def scan_matching_lines(index, pattern: "re.Pattern[bytes] | None", cancelled: Cancelled | None = None,
                        predicate: Callable[[str], bool] | None = None,
                        limit: int = 5_000_000, start: int = 0, literal: bytes | None = None,
                        line_start: bool = False, times: array | None = None,
                        stop: int | None = None) -> array:
    """Line numbers of `index` whose bytes match `pattern` (and `predicate`, when given).

    Reads the file in 4 MiB runs of whole lines with pread and searches each run with one
    C-level `finditer`, so lines that cannot match cost nothing in Python. `pattern` should be
    compiled with re.M when it uses ^. `literal` (lower-case bytes) replaces the pattern with a
    case-insensitive substring search, much faster than re.I. `start` skips lines already
    scanned (live tail).

    `line_start=True` says `pattern` begins with a literal newline and so matches only at the
    start of a line; each run is searched with a newline put in front. That form is what makes
    the regex engine skip ahead at C speed on its literal prefix: `^` with re.M has none, and
    ran 10-20x slower over a gigabyte of plogs.

    `times`, when given, receives each returned line's own stamp (-1 = none) while its bytes
    are at hand, so a Timeline over the selection need not read the lines again.

    `stop` ends the scan before that line (a scan that goes forward a time step at a time).
    """
    out = array("I")
    n = index.line_count if stop is None else min(stop, index.line_count)
    if start >= n:
        return out
    pos = index.line_start(start)
    end = max(index.size, index.indexed) if n >= index.line_count else index.line_start(n)
    line = start
    try:
        fd = os.open(index.path, os.O_RDONLY)
    except OSError:
        return out
    try:
        while pos < end:
            if cancelled is not None and cancelled():
                break
            data = os.pread(fd, min(_READ, end - pos), pos)
            if not data:
                break
            if pos + len(data) < end:
                cut = data.rfind(b"\n")
                if cut >= 0:
                    data = data[: cut + 1]
            counted = 0
            last_line = -1
            if literal is not None:
                low = data.lower()
                starts = []
                p = low.find(literal)
                while p >= 0:
                    starts.append(p)
                    e = low.find(b"\n", p)
                    if e < 0:
                        break
                    p = low.find(literal, e)
            elif line_start:  # the match begins at the newline before the line: its start
                # (endpos leaves out the run's own last newline, which starts no line of this run)
                starts = [m.start() for m in pattern.finditer(b"\n" + data, 0, len(data))]  # type: ignore[union-attr]
            else:
                starts = [m.start() for m in pattern.finditer(data)]  # type: ignore[union-attr]
            for k, s0 in enumerate(starts):
                # a run can hold thousands of matches, each parsed in Python: ask between
                # them too, so a caller's pause for input (the interface) takes effect at once
                if k & 255 == 255 and cancelled is not None and cancelled():
                    return out
                line += data.count(b"\n", counted, s0)
                counted = s0
                if line == last_line:
                    continue
                last_line = line
                if line >= n:
                    break
                if predicate is not None or times is not None:
                    ls = s0 if line_start else data.rfind(b"\n", 0, s0) + 1
                    le = data.find(b"\n", s0)
                    raw = data[ls: le if le >= 0 else len(data)][:4096]
                    if predicate is not None and not predicate(raw.decode("utf-8", "replace").rstrip("\r")):
                        continue
                    if times is not None:
                        times.append(index.stamp_of(raw))
                out.append(line)
                if len(out) >= limit:
                    return out
            line += data.count(b"\n", counted)
            pos += len(data)
    finally:
        os.close(fd)
    return out
