"""A merged time order served a window at a time from the block index (no full merge).

`WindowTimeline` answers the same questions as a built `core.timeline.Timeline` over whole
files (`at`, `position_of`, `position_at_time`, `time_at`, `len`) and in the same order, but
keeps nothing per merged line: a merged position is worked out from each file's count of
lines before a time, which the block index answers with a bisect over its blocks' first
stamps and one block's line stamps. So the merged view is in time order on the first screen,
at any size, and switching to it costs what one jump costs.

The order is the merge's: by key, then file order (source, then rotation chain), then line. A
plog/device line's key is the last own stamp at or before it (its time in `core.timemodel`);
the keys of a file are taken as non-decreasing, as they are in a log (a clock that steps back
is placed best effort). A console file's lines are in the time order of their rank channels
(`Timeline`'s console order, worked out once per console file; they are small).

Positions are exact: position(line) = sum over files of the lines whose key is smaller, plus
the ties before it. `at(i)` bisects the key whose cumulative count passes i, first on block
bounds only (no line parsed), then exactly; rows after it come from a small forward merge,
cached a page at a time. Pure Python: no Textual, no rich.
"""

from __future__ import annotations

import heapq
import re
import threading
from array import array
from bisect import bisect_left
from collections import OrderedDict
from itertools import accumulate, islice
from operator import attrgetter
from weakref import WeakKeyDictionary
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from npudiag_tui.core.index import BLOCK
from npudiag_tui.core.timeline import Timeline, scan_matching_lines
from npudiag_tui.core.timemodel import first_line_of_block

if TYPE_CHECKING:  # pragma: no cover
    from npudiag_tui.core.workspace import Workspace

_PAGE = 256  # merged rows worked out per page
_PAGES = 16  # pages kept
_NEG = -(1 << 62)
_BIG = 1 << 62
_NEWLINES, _SIZE = attrgetter("newlines"), attrgetter("size")
_CANDIDATES = 200_000  # keys sorted at most for one merged page's exact step
_FEW = 4096  # lines between two keys that the exact step takes as candidates rather than halve
_MAXES = 64  # blocks whose running stamp maximum a file feed keeps (8 bytes a line)


class _PlogFeed:
    """One plog/device file: line c is the c-th merged line; key = last own stamp at or before."""

    def __init__(self, ws: "Workspace", fid: int) -> None:
        self.idx = ws.indexes[fid]
        self.chain_key = _NEG
        self._maxes: dict[int, array] = {}  # block's first line -> running max of its stamps
        self._bts = array("q")  # every block's first stamp, _BIG for none (see _first_block_at)

    def count(self) -> int:
        return self.idx.line_count

    def line(self, c: int) -> int:
        return c

    def count_of(self, line: int) -> int | None:
        return line if 0 <= line < self.count() else None

    def block_bounds(self, t: int) -> tuple[int, int]:
        """(lo, hi): lines surely before t, and lines at most before t, from block stamps only."""
        idx, n = self.idx, self.count()
        k = self._first_block_at(t)
        nb = len(idx.nl_before)
        lo = first_line_of_block(idx, k - 1) if k > 0 else 0
        hi = first_line_of_block(idx, k + 1) if k + 1 < nb else n
        return min(lo, n), min(hi, n)

    def _first_block_at(self, t: int) -> int:
        """First block whose first own stamp is >= t (stampless blocks count as late).

        One C-level bisect over the blocks' first stamps, stampless ones read as _BIG: the
        same steps as a bisect that reads them one by one, at a fraction of the cost (a merged
        page bisects every file's blocks a few dozen times: seconds for the first `m`)."""
        idx = self.idx
        nb = len(idx.nl_before)
        bts = self._bts
        if len(bts) != nb:
            bts = self._bts = array("q", (bt if bt >= 0 else _BIG
                                          for bt in map(idx.block_first_time, range(nb))))
        return bisect_left(bts, t)

    def _running_max(self, i: int) -> tuple[int, array]:
        """(first line of line i's block, running maximum of its lines' own stamps): the first
        line stamped at or after t is one bisect away (a Python loop over the block's stamps
        was most of the time of a merged screen). A few hundred blocks are kept."""
        first, times = self.idx.block_line_times(i)
        got = self._maxes.get(first)
        if got is None or len(got) != len(times):
            got = array("q", accumulate(times, max))
            if len(self._maxes) >= _MAXES:
                self._maxes.clear()
            self._maxes[first] = got
        return first, got

    def before(self, t: int) -> int:
        """Lines whose key is < t: up to the first line with an own stamp >= t."""
        n = self.count()
        i, _ = self.block_bounds(t)
        while i < n:
            first, top = self._running_max(i)
            j0 = max(i - first, 0)
            if j0 >= len(top):  # the block ran short (a partial tail)
                pass
            elif j0 == 0 or top[j0 - 1] < t:
                j = bisect_left(top, t, j0)
                if j < len(top):
                    return first + j
            else:  # a stamp >= t before line i in its block (a clock that stepped back): walk
                times = self.idx.block_line_times(i)[1]
                for k in range(j0, len(times)):
                    if times[k] >= t:
                        return first + k
            i = max(first + len(top), i + 1)
        return n

    def keys_between(self, lo: int, hi: int) -> array:
        """Keys of lines lo..hi-1, as `keys_from` gives them, a block at a time in C (a merged
        page's exact step takes the keys of ~1000 lines per file: a generator per line was
        most of a page's time once the stamps were parsed)."""
        hi = min(hi, self.count())
        out = array("q")
        if lo >= hi:
            return out
        t, _ = self.idx.line_time(lo)
        key = self.chain_key if t is None else t
        i = lo
        while i < hi:
            first, times = self.idx.block_line_times(i)
            j0, j1 = i - first, min(hi - first, len(times))
            if j1 <= j0:  # the block ran short (a partial tail): what keys_from does there
                out.extend(islice(self.keys_from(i), hi - i))
                return out
            out.extend(islice(accumulate(times[j0:j1], max, initial=key), 1, None))  # not the seed
            key = out[-1]
            i = first + j1
        return out

    def keys_from(self, c: int):
        """Keys of lines c, c+1, ... (the last own stamp at or before each)."""
        idx = self.idx
        if c >= self.count():
            return
        t, _ = idx.line_time(c)
        key = self.chain_key if t is None else t
        i = c
        n = self.count()
        while i < n:
            first, times = idx.block_line_times(i)
            end = first + len(times)
            if end <= i:
                t = idx.own_time(i)
                key = t if t is not None and t > key else key
                yield key
                i += 1
                continue
            for j in range(i - first, len(times)):
                if times[j] > key:
                    key = times[j]
                yield key
            i = end


class _ConsoleFeed:
    """One console file in its rank channels' time order (`Timeline._order_console`)."""

    def __init__(self, ws: "Workspace", fid: int) -> None:
        tl = Timeline(ws, [fid], mode="merge")
        tl._order_console(fid, None)
        self.order, self.keys, self.inv = tl._sel[fid], tl._ckeys[fid], tl._inv[fid]

    def count(self) -> int:
        return len(self.order)

    def line(self, c: int) -> int:
        return self.order[c]

    def count_of(self, line: int) -> int | None:
        return self.inv[line] - 1 if 0 <= line < len(self.inv) and self.inv[line] else None

    def block_bounds(self, t: int) -> tuple[int, int]:
        c = bisect_left(self.keys, t)
        return c, c

    def before(self, t: int) -> int:
        return bisect_left(self.keys, t)

    def keys_from(self, c: int):
        yield from self.keys[c:]

    def keys_between(self, lo: int, hi: int):
        return self.keys[lo:hi]


class _Shifted:
    """A feed on its source's clock offset (`TimeModel.offsets`): keys and times asked for
    are moved by the offset, so a node whose clock runs ahead merges at the corrected moment."""

    def __init__(self, feed: "_PlogFeed | _ConsoleFeed", off: int) -> None:
        self.feed, self.off = feed, off
        self.count, self.line, self.count_of = feed.count, feed.line, feed.count_of

    def block_bounds(self, t: int) -> tuple[int, int]:
        return self.feed.block_bounds(t - self.off)

    def before(self, t: int) -> int:
        return self.feed.before(t - self.off)

    def keys_from(self, c: int):
        off = self.off
        return (k + off for k in self.feed.keys_from(c))

    def keys_between(self, lo: int, hi: int) -> list[int]:
        off = self.off
        return [k + off for k in self.feed.keys_between(lo, hi)]


def _offset(ws: "Workspace", fid: int) -> int:
    return ws.times.offsets.get(ws.source_of_file(fid).source_id, 0)


def feed_of(ws: "Workspace", fid: int):
    """The file's feed for a merge, on its source's clock offset when it has one."""
    feed = console_order(ws, fid) if ws.times.is_console(fid) else _PlogFeed(ws, fid)
    off = _offset(ws, fid)
    return _Shifted(feed, off) if off else feed


# console orders shared by every merged window of a workspace, per line count: a new window
# (each `m`, each rank choice) re-sorted a 30k-line console (~0.1 s) on the way to its screen
_CONSOLE_ORDERS: "WeakKeyDictionary[Workspace, dict[int, tuple[tuple[int, int], _ConsoleFeed]]]" = \
    WeakKeyDictionary()


def console_order(ws: "Workspace", fid: int) -> _ConsoleFeed:
    """The console file's lines in time order, worked out once per (line count, bytes read)."""
    idx = ws.indexes[fid]
    n = (idx.line_count, idx.indexed)
    per_ws = _CONSOLE_ORDERS.setdefault(ws, {})
    got = per_ws.get(fid)
    if got is None or got[0] != n:
        got = per_ws[fid] = (n, _ConsoleFeed(ws, fid))
    return got[1]


class WindowTimeline:
    """Merged order of whole files, served from the block index (see the module docstring)."""

    mode = "window"
    selection = None
    complete = True

    def __init__(self, ws: "Workspace", file_ids: Sequence[int]) -> None:
        self.ws = ws
        order = {f.file_id: (s.source_id, k) for s in ws.sources for k, f in enumerate(s.files)}
        self.file_ids: list[int] = sorted(set(file_ids), key=lambda f: order.get(f, (1 << 30, f)))
        self.scanned: dict[int, int] = {}
        self._feeds: dict[int, _PlogFeed | _ConsoleFeed] = {}
        self._pages: OrderedDict[int, list[tuple[int, int]]] = OrderedDict()
        self._lock = threading.RLock()
        self._idxs = [ws.indexes[f] for f in self.file_ids]
        self._grown_at: tuple[int, int] = (-1, -1)
        self._total = 0
        self._offsets = tuple(_offset(ws, f) for f in self.file_ids)
        self._file_set = frozenset(self.file_ids)
        self._marks_cache: tuple[object, int, dict[int, array]] | None = None  # see _mark_counts

    def same_order(self, other: object) -> bool:
        """Whether `other` serves this very order (same files, same clock offsets): a source
        rebuilt after a count or for the background merges then keeps this one and the
        positions, pages and block stamps it has worked out (all still right: it follows
        the counts by itself)."""
        return (isinstance(other, WindowTimeline) and other.ws is self.ws and other.file_ids == self.file_ids
                and other._offsets == self._offsets)

    # ------------------------------------------------------------------ feeds
    def _feed(self, fid: int):
        got = self._feeds.get(fid)
        if got is None:
            got = self._feeds[fid] = feed_of(self.ws, fid)
        return got

    def _check_growth(self) -> None:
        """Lines appended (live tail, a count adopted): forget the pages and the console orders.
        Every row looked up asks this, so it compares newlines and sizes with two C-level sums
        (the line counts, a property per file, made most of the time of a merged screen)."""
        idxs = self._idxs
        sig = (sum(map(_NEWLINES, idxs)), sum(map(_SIZE, idxs)))
        if sig != self._grown_at:
            self._grown_at = sig
            self._total = sum(i.line_count for i in idxs)
            self._pages.clear()
            self._feeds = {f: feed for f, feed in self._feeds.items() if not self.ws.times.is_console(f)}

    # ------------------------------------------------------------------ size
    def __len__(self) -> int:
        self._check_growth()
        return self._total

    @property
    def total(self) -> int:
        return len(self)

    def build(self, progress=None, cancelled=None) -> bool:
        """Nothing to build: every window is worked out when it is looked at."""
        return True

    def memory_bytes(self) -> int:
        return sum(len(p) for p in self._pages.values()) * 16

    # ------------------------------------------------------------------ positions
    def _count_before(self, t: int) -> int:
        return sum(self._feed(f).before(t) for f in self.file_ids)

    def _cut(self, fid: int, c: int, key: int) -> dict[int, int]:
        """Each file's lines before line c of file fid (key `key`): those with a smaller key,
        ties in files before this one (the merge's order), and c of its own."""
        cut, seen = {}, False
        for f in self.file_ids:
            if f == fid:
                cut[f], seen = c, True
            else:
                cut[f] = self._feed(f).before(key if seen else key + 1)
        return cut

    def _position(self, fid: int, c: int, key: int) -> int:
        return sum(self._cut(fid, c, key).values())

    def _sync(self) -> int:
        """Catch up with growth and give the line total. Only this takes the lock: what a
        position or a page is worked out from (block stamps, counts, console orders) is read,
        never changed, so a worker's page never keeps the interface thread waiting for it."""
        with self._lock:
            self._check_growth()
            return self._total

    def position_of(self, file_id: int, line: int) -> int | None:
        self._sync()
        if file_id not in self._file_set:
            return None
        feed = self._feed(file_id)
        c = feed.count_of(line)
        if c is None:
            return None
        key = next(iter(feed.keys_from(c)), None)
        if key is None:
            return None
        return self._position(file_id, c, key)

    def nearest_position(self, file_id: int, line: int) -> int | None:
        return self.position_of(file_id, line)

    def position_at_time(self, t: int) -> int:
        n = self._sync()
        return min(self._count_before(t), max(n - 1, 0))

    def time_at(self, i: int) -> int | None:
        return self.line_time(*self.at(i))

    def _key_range(self) -> tuple[int, int]:
        lo, hi = _BIG, _NEG
        for f in self.file_ids:
            idx = self.ws.indexes[f]
            off = _offset(self.ws, f)
            if self.ws.times.is_console(f):
                feed = console_order(self.ws, f)
                if feed.count():
                    lo, hi = min(lo, feed.keys[0] + off), max(hi, feed.keys[-1] + off)
                continue
            if idx.first_time >= 0:
                lo = min(lo, idx.first_time + off)
            if idx.last_time >= 0:
                hi = max(hi, idx.last_time + off)
        return (lo, hi) if lo <= hi else (0, 0)

    def _key_of_position(self, i: int) -> int:
        """The largest key t whose count of earlier lines is <= i (the key of line i)."""
        lo, hi = self._key_range()
        lo, hi = lo - 1, hi + 1
        # among the lines before any stamp (key: none)? The block bounds answer most positions
        # without reading every file's first block
        if sum(self._feed(f).block_bounds(lo)[1] for f in self.file_ids) > i and self._count_before(lo) > i:
            return _NEG
        # block bounds first (no line parsed): narrow [lo, hi) so that few blocks remain
        a, b = lo, hi
        while a < b:  # smallest t whose surely-before count exceeds i
            mid = (a + b) // 2
            if sum(self._feed(f).block_bounds(mid)[0] for f in self.file_ids) > i:
                b = mid
            else:
                a = mid + 1
        top = a
        a, b = lo, top
        while a < b:  # largest t whose at-most-before count is <= i
            mid = (a + b + 1) // 2
            if sum(self._feed(f).block_bounds(mid)[1] for f in self.file_ids) <= i:
                a = mid
            else:
                b = mid - 1
        exact = self._key_among_candidates(i, *self._narrow(i, a, top))
        # checked (a clock that steps back breaks the candidates' order): two counts, not twenty
        if exact is not None and self._count_before(exact) <= i and (
                exact >= top or self._count_before(exact + 1) > i):
            return exact
        a, b = a, top
        while a < b:  # exact: largest t with count_before(t) <= i
            mid = (a + b + 1) // 2
            if self._count_before(mid) <= i:
                a = mid
            else:
                b = mid - 1
        return a

    def _narrow(self, i: int, a: int, top: int) -> tuple[int, int, list[int], list[int]]:
        """[a, top) halved by exact counts while its lines are many: (a, top, each file's
        count before a, before top). One sparse file's long blocks left the block bounds
        seconds apart, and a dense file then gave thousands of lines to parse for the
        candidates (~30 blocks of one file for one page); halving reads ~log2 of them."""
        at_a = [self._feed(f).before(a) for f in self.file_ids]
        at_top = [self._feed(f).before(top) for f in self.file_ids]
        while top - a > 1 and sum(at_top) - sum(at_a) > _FEW:
            mid = (a + top) // 2
            got = [self._feed(f).before(mid) for f in self.file_ids]
            if sum(got) <= i:
                a, at_a = mid, got
            else:
                top, at_top = mid, got
        return a, top, at_a, at_top

    def _key_among_candidates(self, i: int, a: int, top: int, at_a: list[int], at_top: list[int]) -> int | None:
        """The exact step of `_key_of_position` in one sort: for t in [a, top] each file's count
        of lines before t lies between its counts at a and at top, so the key is the
        (i - lines before a)-th smallest key of the lines between them. A bisect over
        microseconds asked every file ~20 times instead (most of a merged page's time). None
        when that leaves too many lines (a stampless stretch): the bisect then decides, as
        it does when the caller's check of the answer fails."""
        base, keys = 0, []
        for f, lo, hi in zip(self.file_ids, at_a, at_top):
            feed = self._feed(f)
            base += lo
            if hi > lo:
                if len(keys) + hi - lo > _CANDIDATES:
                    return None
                keys.extend(feed.keys_between(lo, hi))
        r = i - base
        if r < 0:
            return None
        keys.sort()
        return max(a, min(keys[r], top)) if r < len(keys) else top

    def at(self, i: int) -> tuple[int, int]:
        with self._lock:
            self._check_growth()
            n, grown = self._total, self._grown_at
            if not 0 <= i < n:
                raise IndexError(i)
            start = i - i % _PAGE
            page = self._pages.get(start)
            if page is not None:
                self._pages.move_to_end(start)
                return page[i - start]
        # worked out unlocked (see _sync): two threads on one cold page both work it out, and
        # neither waits for the other; a page of lines that grew meanwhile is not kept
        page = self._page(start, min(_PAGE, n - start))
        with self._lock:
            if self._grown_at == grown:
                self._pages[start] = page
                if len(self._pages) > _PAGES:
                    self._pages.popitem(last=False)
        return page[i - start]

    def _page(self, start: int, count: int) -> list[tuple[int, int]]:
        """Rows [start, start+count): the first by bisecting its key, the rest by a forward merge."""
        key = self._key_of_position(start)
        residual = start - self._count_before(key)
        heap: list[tuple[int, int, int, int, object]] = []
        for order, f in enumerate(self.file_ids):
            feed = self._feed(f)
            c = feed.before(key)
            keys = iter(feed.keys_from(c))
            k = next(keys, None)
            if k is not None:
                heap.append((k, order, c, f, keys))
        heapq.heapify(heap)
        out: list[tuple[int, int]] = []
        while heap and len(out) < count + residual:
            k, order, c, f, keys = heapq.heappop(heap)
            out.append((f, self._feed(f).line(c)))
            nk = next(keys, None)  # type: ignore[call-overload]
            if nk is not None:
                heapq.heappush(heap, (max(nk, k), order, c + 1, f, keys))
        return out[residual:]

    # ------------------------------------------------------------------ marks
    def _mark_counts(self, refs: Iterable[tuple[int, int]]) -> dict[int, array]:
        """The marks' places in each file's feed, sorted; kept for the same refs list while the
        view has not grown (e/E and w/W ask at every press, with tens of thousands of marks)."""
        got = self._marks_cache
        if got is not None and got[0] is refs and got[1] == len(self):
            return got[2]
        by_file: dict[int, list[int]] = {}
        for f, line in refs:
            by_file.setdefault(f, []).append(line)
        counts_of = {}
        for f, lines in by_file.items():
            if f in self._file_set:
                feed = self._feed(f)
                if isinstance(feed, _PlogFeed):  # a plog line's place is its number
                    n = feed.count()
                    counts_of[f] = array("Q", sorted(ln for ln in lines if 0 <= ln < n))
                else:
                    counts_of[f] = array("Q", sorted(c for c in (feed.count_of(ln) for ln in lines) if c is not None))
        self._marks_cache = (refs, len(self), counts_of)
        return counts_of

    def next_position(self, refs: Iterable[tuple[int, int]], position: int, forward: bool) -> int | None:
        """Position of the first of `refs` after (before) `position` (-1 and len(self) stand
        before the first row and after the last), without positioning all of them: per file,
        only the mark next to the cursor's place in that file competes."""
        n = self._sync()
        if not -1 <= position <= n:
            return None
        if 0 <= position < n:
            cut = self.cut_at_line(*self.at(position), after=forward)
        else:  # before the first row (-1) or after the last (n): every mark is ahead
            cut = {f: (0 if position < 0 else self._feed(f).count()) for f in self.file_ids}
        got = self.next_ref(refs, cut, forward)
        return None if got is None else self.position_of(*got)

    # A cut splits the merged order in two without a position: each file's count of the lines
    # before it. A walk from another pane's moment needs only the cut there, not the pages
    # around it (a cold merged page costs ~70 ms on the 1 GB bench tree).
    def cut_at_line(self, file_id: int, line: int, after: bool) -> dict[int, int]:
        """The cut just after (before) a line of this view: the lines before its place, that
        line too when `after`."""
        self._sync()
        c = self._feed(file_id).count_of(line) if file_id in self._file_set else None
        if c is None:
            raise ValueError(f"line {line} of file {file_id} is not in this view")
        cut = self._cut(file_id, c, next(iter(self._feed(file_id).keys_from(c)), _NEG))
        cut[file_id] += 1 if after else 0
        return cut

    def cut_at_time(self, t: int, reaches: Callable[[int, int], bool] | None = None,
                    most: int = 0) -> dict[int, int]:
        """The cut before the first line keyed at t or later, moved back over at most `most`
        lines just before it (merged order, last first) for which `reaches(file, line)`: a line
        without its own stamp whose estimated time reaches t already."""
        self._sync()
        cut = {f: self._feed(f).before(t) for f in self.file_ids}
        if reaches is None or most <= 0:
            return cut
        orders = {f: k for k, f in enumerate(self.file_ids)}
        heap = []  # the last line before the cut of each file, largest (key, order, count) first
        for f, c in cut.items():
            if c > 0:
                heap.append(self._back_entry(f, orders[f], c - 1))
        heapq.heapify(heap)
        for _ in range(most):
            if not heap:
                break
            _, _, _, f, c = heapq.heappop(heap)
            if not reaches(f, self._feed(f).line(c)):
                break
            cut[f] = c
            if c > 0:
                heapq.heappush(heap, self._back_entry(f, orders[f], c - 1))
        return cut

    def _back_entry(self, f: int, order: int, c: int) -> tuple[int, int, int, int, int]:
        key = next(iter(self._feed(f).keys_from(c)), _NEG)
        return (-key, -order, -c, f, c)

    def next_ref(self, refs: Iterable[tuple[int, int]], cut: dict[int, int],
                 forward: bool) -> tuple[int, int] | None:
        """The first of `refs` after `cut` (forward) or the last before it, as (file, line): per
        file only the mark next to the cut competes."""
        self._sync()
        counts_of = self._mark_counts(refs)
        orders = {f: k for k, f in enumerate(self.file_ids)}
        best: tuple[int, int, int] | None = None
        best_ref: tuple[int, int] | None = None
        for f, counts in counts_of.items():  # files of this view only (_mark_counts)
            if not counts or f not in cut:
                continue
            feed = self._feed(f)
            k = bisect_left(counts, cut[f])
            if forward and k < len(counts):
                c = counts[k]
            elif not forward and k > 0:
                c = counts[k - 1]
            else:
                continue
            sort = (next(iter(feed.keys_from(c)), _NEG), orders[f], c)
            if best is None or (sort < best) == forward:
                best, best_ref = sort, (f, feed.line(c))
        return best_ref

    def line_time(self, file_id: int, line: int) -> int | None:
        """The time the panes show for a line of this view (the time model's)."""
        return self.ws.times.line_time(file_id, line).us


Chooser = Callable[[int], "tuple[re.Pattern[bytes], Callable[[str], bool] | None, bool] | None"]
_STEP_BLOCKS = 64  # a time step ends where the slowest file's next 64 blocks (4 MiB) begin


class ScanningSelection(Timeline):
    """A filtered merge (a filter, the HCCL view) whose rows are in their final order from the
    first step: the chosen lines are found forward in time, a step at a time.

    Each step picks a time T a few MiB ahead in the file that lags most, scans every file up
    to its first line stamped at or after T (the block index finds it), and merges what it
    chose below T (`Timeline.build(until=T)`): no line found later can sort before those. So the
    first rows are on screen after one step, not after a pass over every file, and `advance`
    reports the bytes scanned for progress. Console files (small) are chosen whole first:
    their lines are put in their rank channels' time order (`Timeline._order_console`).

    `chooser(file_id)` gives (bytes regex, exact predicate or None, line-start regex) for a
    file whose lines are chosen, or None for a file shown whole.
    """

    def __init__(self, ws: "Workspace", file_ids: Sequence[int], chooser: Chooser,
                 step_blocks: int = _STEP_BLOCKS) -> None:
        self.step_blocks = step_blocks
        self._choose = {f: chooser(f) for f in file_ids}
        selection = {f: (None if c is None else array("I")) for f, c in self._choose.items()}
        super().__init__(ws, file_ids, selection, mode="merge", scanned={})
        self.frontier = _NEG
        self.lock = threading.RLock()
        self._started = False
        # plog/device files step forward in time; console files are chosen whole at the start
        self._feeds = {f: feed_of(ws, f) for f in self.file_ids if not ws.times.is_console(f)}

    @property
    def scanning(self) -> bool:
        return not self.complete

    def _at(self, fid: int) -> int:
        """Lines of the file taken so far: scanned (chosen lines) or merged (a whole file)."""
        return self.scanned.get(fid, 0) if self._choose.get(fid) is not None else self._next.get(fid, 0)

    def bytes_scanned(self) -> tuple[int, int]:
        """(bytes of the plog/device files taken so far, their size): the progress of the scan."""
        done = total = 0
        for f in self._feeds:
            idx = self.ws.indexes[f]
            total += idx.indexed
            got = self._at(f)  # to the block (a line's offset reads the block: 73-300 reads a tick)
            done += idx.indexed if got >= idx.line_count else min(idx.block_of_line(got) * BLOCK, idx.indexed)
        return done, total

    def _scan(self, fid: int, stop: int, cancelled) -> bool:
        """Choose the file's lines from where its scan stopped up to line `stop`."""
        pattern, predicate, line_start = self._choose[fid]  # type: ignore[misc]
        start = self.scanned.get(fid, 0)
        if stop <= start:
            self.scanned[fid] = max(start, stop)
            return True
        times = array("q")
        hit = [False]  # a scan cut short returns what it found: keep none of it

        def latch() -> bool:
            hit[0] = hit[0] or (cancelled is not None and cancelled())
            return hit[0]

        lines = scan_matching_lines(self.ws.indexes[fid], pattern, latch, predicate, start=start,
                                    line_start=line_start, times=times, stop=stop)
        if hit[0]:
            return False
        self.extend_selection(fid, lines, times if len(times) == len(lines) else None, stop)
        return True

    def _next_frontier(self) -> int:
        """A time a few MiB ahead of the file whose scan lags most (or past every line)."""
        best = _BIG
        for f in self._feeds:
            idx = self.ws.indexes[f]
            at = self._at(f)
            if at >= idx.line_count:
                continue
            nb = len(idx.nl_before)
            k = idx.block_of_line(at) + self.step_blocks
            # a block after the frontier (a clock that steps back must not make steps of 1 µs)
            off = _offset(self.ws, f)
            while k < nb and (idx.block_first_time(k) < 0 or idx.block_first_time(k) + off <= self.frontier):
                k += 1
            if k < nb:
                best = min(best, idx.block_first_time(k) + off)
        return max(best, self.frontier + 1)

    def advance(self, cancelled=None) -> bool:
        """One step: scan up to the next time and merge what was chosen below it; True when
        every file is scanned to its end and merged (then `complete`)."""
        with self.lock:
            if self.complete:
                return True
            if not self._started:
                for f, c in self._choose.items():
                    if c is not None and f not in self._feeds:  # console: whole, then time order
                        if not self._scan(f, self.ws.indexes[f].line_count, cancelled):
                            return False
                self._started = True
            t = self._next_frontier()
            for f, feed in self._feeds.items():
                if self._choose.get(f) is None:
                    continue  # a whole file: build(until=t) takes its lines below t
                stop = self.ws.indexes[f].line_count if t >= _BIG else feed.before(t)
                if not self._scan(f, stop, cancelled):
                    return False
            if t >= _BIG:
                return self.build(cancelled=cancelled)
            if not self.build(cancelled=cancelled, until=t):
                return False
            self.frontier = t
            return False

    def run(self, progress: Callable[[int, int], None] | None = None, cancelled=None) -> bool:
        """Advance until complete (a worker's loop); False when cancelled."""
        while not self.advance(cancelled):
            if cancelled is not None and cancelled():
                return False
            if progress is not None:
                progress(*self.bytes_scanned())
        return True
