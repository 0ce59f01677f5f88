"""One opened set of logs: discovery, the per-file indexes, the scan, and the diagnosis.

The CLI report and the TUI both drive this object; the TUI does so from workers. It holds no
UI state and imports nothing from Textual or rich.
"""

from __future__ import annotations

import os
import re
import time
from typing import Any, Callable, Iterator, NamedTuple, Sequence

from npudiag_tui.core.discover import Discovery, discover, source_label
from npudiag_tui.core.formats.timestamps import EPOCH_MARK, to_us, year_of
from npudiag_tui.core.index import Chunk, FileIndex, IndexState, UnreadableFile
from npudiag_tui.core.model import Diagnosis, Source, SourceFile, Stream
from npudiag_tui.core.ranks import resolve_ranks
from npudiag_tui.core.scan import LineHit, SourceScan
from npudiag_tui.core.timemodel import TimeModel

PARALLEL_MIN_BYTES = 64 << 20
PARALLEL_MIN_WORKERS = 2
# The index pass forks its workers before the TUI loads Textual (see `start_index`), and the
# tests' monkeypatched worker functions reach the workers only by fork: say so, rather than
# rely on the platform default (Python 3.14 makes it forkserver on Linux).
START_METHOD = "fork"


class _FileResult(NamedTuple):
    """One file's outcome in a worker process: its index state and scan findings, or an error."""

    file_id: int
    state: IndexState | None
    hits: list[LineHit]
    rank_lines: list[str]
    has_info: bool
    error: str | None
    pending: bool = False  # scanned but not counted: `state` holds the bytes read and the stamps only


_progress_slots: Any = None  # per worker process: shared byte counters, one slot per batch


def _die_with_parent() -> None:
    """A worker ends when the process that started it does, however that ends: a parent killed
    with SIGKILL (a timeout, the OOM killer) otherwise leaves its workers asleep on the queue."""
    import ctypes
    import os
    import signal
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent died before the call above: nothing will signal us
        os._exit(0)


def _init_worker(slots: Any, pids: Any) -> None:
    """Runs once in every worker process: keep the progress counters, and tell the parent this
    process's pid (so a cancelled pass can end it)."""
    import os

    global _progress_slots
    _progress_slots = slots
    _die_with_parent()
    with pids.get_lock():
        for k in range(len(pids)):
            if pids[k] == 0:
                pids[k] = os.getpid()
                break


def _index_file(job: tuple[int, str, str, bool, int | None, int | None, int],
                progress: Callable[[int], None] | None = None) -> _FileResult:
    """Worker-process half of `Workspace.index` on large trees: index and scan one whole file
    (up to `limit` bytes for a snapshot) and send back only the compact state and the hits.

    `before` is the size of the source's earlier files: the rank-line search covers only the
    first megabytes of a source, as in the serial pass, not the first megabytes of every
    rotated file (a noticeable share of the pass)."""
    file_id, path, stream, run_log, year, limit, before = job
    idx = FileIndex(path, file_id, path, year_hint=year)
    scan = SourceScan(Stream(stream), run_log=run_log, rank_bytes=before)
    try:
        idx.extend(on_chunk=lambda chunk: scan.feed(file_id, chunk), limit=limit, progress=progress)
    except UnreadableFile as exc:
        return _FileResult(file_id, None, [], [], False, str(exc))
    return _FileResult(file_id, idx.state(), scan.hits, scan.rank_lines, scan.has_info, None)


def _scan_file(job: tuple[int, str, str, bool, int | None, int | None, int],
               progress: Callable[[int], None] | None = None) -> _FileResult:
    """The first half of the TUI's pass (`Workspace.index_first`): scan a plog or device file
    without counting its newlines, its hits located by byte offset. A file with hits is then
    counted at once (the diagnosis needs their line numbers); the others are left for the
    count in the background (`Workspace.count_pending`). Console files are small and their
    scan numbers its own lines: they get the whole pass."""
    file_id, path, stream, run_log, year, limit, before = job
    if Stream(stream) is Stream.STDOUT:
        return _index_file(job, progress)
    idx = FileIndex(path, file_id, path, year_hint=year)
    scan = SourceScan(Stream(stream), run_log=run_log, rank_bytes=before)
    try:
        idx.extend(on_chunk=lambda chunk: scan.feed(file_id, chunk), limit=limit, progress=progress,
                   numbered=False)
        if not scan.hits:
            return _FileResult(file_id, idx.state(), [], scan.rank_lines, scan.has_info, None, pending=True)
        state, hits = _count_file(file_id, path, year, idx.size, scan.hits)
    except UnreadableFile as exc:
        return _FileResult(file_id, None, [], [], False, str(exc))
    return _FileResult(file_id, state, hits, scan.rank_lines, scan.has_info, None)


def _count_file(file_id: int, path: str, year: int | None, limit: int,
                hits: list[LineHit] | None = None, warm_at: int | None = None) -> tuple[IndexState, list[LineHit]]:
    """Count the file's newlines up to `limit` (what the scan read, so both saw the same bytes)
    and turn the byte offsets of `hits` (in file order) into line numbers on the way. With
    `warm_at`, the state carries the line stamps of the blocks around that moment."""
    idx = FileIndex(path, file_id, path, year_hint=year)
    idx.stamp_blocks = True  # what a merged window bisects, while the chunks are in memory
    todo = hits or []
    k = 0

    def number(chunk: Chunk) -> None:
        nonlocal k
        end = chunk.start + chunk.end
        while k < len(todo) and todo[k].line < end:
            todo[k].line = chunk.line_of(todo[k].line - chunk.start)
            k += 1

    idx.extend(on_chunk=number if todo else None, limit=limit)
    for b in range(len(idx.block_time)):  # the blocks' first stamps that the chunks did not
        idx.block_first_time(b)  # hold whole (a merged window bisects them all at once)
    if warm_at is not None:
        idx.warm_times(warm_at)
    return idx.state(line_times=warm_at is not None), todo[:k]  # hits past a file that shrank meanwhile are gone with it


_COUNT_NICE = 10  # a count runs beside the interface: keys first (bench/README.md)


def _nice_once() -> None:
    """Lower this worker's priority, once: what it does after the anchored screen runs while
    the user reads and types (bench/README.md)."""
    global _COUNT_NICE
    if _COUNT_NICE:
        try:
            os.nice(_COUNT_NICE)
        except (OSError, AttributeError):
            pass
        _COUNT_NICE = 0


def _warm_job(job: tuple[int, str, int | None, IndexState, int]) -> tuple[int, dict]:
    """Worker-process half of `count_pending(warm_at=t)` for a file counted before: the line
    stamps of its blocks around t (`FileIndex.warm_times`), {} when it cannot be read."""
    _nice_once()
    file_id, path, year, state, t = job
    idx = FileIndex(path, file_id, path, year_hint=year)
    idx.adopt_state(state)
    try:
        idx.warm_times(t)
    except UnreadableFile:  # said where the file is read for the screen
        return file_id, {}
    return file_id, idx.state(line_times=True).line_times


def _count_job(job: tuple[int, str, int | None, int, int | None]) -> _FileResult:
    """Worker-process half of `Workspace.count_pending`: one file's newline count. The count
    comes after the anchored screen, while the user reads and types: the worker lowers its
    priority first (once; nothing after the count needs it), so the interface's process is
    not left a third of the two cores by the two counting workers."""
    _nice_once()
    file_id, path, year, limit, warm_at = job
    try:
        state, _ = _count_file(file_id, path, year, limit, warm_at=warm_at)
    except UnreadableFile as exc:
        return _FileResult(file_id, None, [], [], False, str(exc))
    return _FileResult(file_id, state, [], [], False, None)


def _index_batch(slot: int, jobs: list[tuple], scan_first: bool = False) -> list[_FileResult]:
    """A few files per task: fewer round trips through the parent (whose busy UI thread also
    runs the pool's feeder). Progress goes to a shared counter, not through the result queue."""
    out = []
    done = 0
    slots = _progress_slots

    def progress(n: int) -> None:
        if slots is not None:
            slots[slot] = done + n

    for job in jobs:
        out.append((_scan_file if scan_first else _index_file)(job, progress))
        state = out[-1].state
        done += state.size if state is not None else 0  # what was read (0 for a file that failed)
        progress(0)
    return out


def _workers() -> int:
    import os

    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


YEAR_SNIFF_BYTES = 65536


def _full_date_year(path: str) -> int | None:
    """The year of the first full-date stamp in the head of a file (TS6, torch_npu header,
    Python logging, glog), which year-less stamps of the same input (vLLM, c10) belong to."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(YEAR_SNIFF_BYTES)
    except OSError:
        return None
    m = _FULL_DATE.search(head)
    if m is None:
        # a crash header's epoch seconds (`*** SIGSEGV received at time=1752458717 ***`) date it too
        epoch = _EPOCH_SECONDS.search(head)
        if epoch is None:
            return None
        year = time.gmtime(int(epoch.group(1))).tm_year
        return year if 1990 <= year <= 2200 else None
    y, mo, d = (g for g in m.groups() if g is not None)
    year = int(y)
    try:
        to_us(year, int(mo), int(d))  # the one definition of a possible date
    except ValueError:
        return None
    return year if 1990 <= year <= 2200 else None


# TS6, torch_npu's header, Python logging (`2025-11-11 12:28:58`), glog's eight-digit date
# (`F20251111 12:28:58.504206`: xLLM, Mooncake), and Go's log package (`2025/09/08 02:12:23.564828`:
# the Ascend device plug-in and cluster services, beside glog's year-less `I0908` lines)
_EPOCH_SECONDS = re.compile(EPOCH_MARK.encode("ascii") + rb"(\d{9,11})\b")
_FULL_DATE = re.compile(rb"(?<!\d)(\d{4})-(\d\d)-(\d\d)[- T]\d\d:\d\d:\d\d|(?<![\w])[IWEF](\d{4})(\d\d)(\d\d) \d\d:\d\d:\d\d|"
                        rb"(?<![\d/])(\d{4})/(\d\d)/(\d\d) \d\d:\d\d:\d\d")


def _year_hints(files: list[SourceFile]) -> list[int | None]:
    """Year for stamps that lack one, per file: the file's own full-date stamps (or its CANN file
    name), else the most common of the other files' years, else the file's modification time (the
    copy time for a log from a bug report: last)."""
    from collections import Counter

    # a CANN file's own stamps carry their year and its name gives it: read the others' heads only
    own = [year_of(f.name_time) if f.name_time is not None else _full_date_year(f.path) for f in files]
    seen = Counter(y for y in own if y is not None)
    shared = seen.most_common(1)[0][0] if seen else None
    hints: list[int | None] = []
    for f, year in zip(files, own):
        if year is None:
            year = shared
        if year is None:
            try:
                year = time.localtime(os.stat(f.path).st_mtime).tm_year
            except OSError:
                year = None
        hints.append(year)
    return hints


class _Inflight(NamedTuple):
    """An index pass running in worker processes (see `Workspace.start_index`)."""

    pool: Any
    futures: set
    slots: Any  # shared per-batch byte counters (progress)
    pids: Any  # shared: each worker process's pid (0 until it started), to end them when cancelled
    scan_first: bool = False  # files without hits come back scanned, not counted (`index_first`)

    def stop(self) -> None:
        """Cancelled (the user quit while indexing): end the workers now instead of letting
        interpreter exit wait for their batches. ProcessPoolExecutor has no public way to end
        its processes, so the pids the workers reported at start-up are signalled."""
        import os
        import signal

        for pid in list(self.pids):
            if pid > 0:
                try:
                    os.kill(pid, signal.SIGTERM)
                except OSError:
                    pass
        self.pool.shutdown(wait=False, cancel_futures=True)


class Workspace:
    def __init__(self, discovery: Discovery, registry_files: list[str] | None = None) -> None:
        self.discovery = discovery
        self.sources: list[Source] = discovery.sources
        self.files: list[SourceFile] = discovery.files
        self.problems: list[str] = list(discovery.problems)
        self.registry_files = registry_files or []
        years = _year_hints(self.files)
        self.indexes: list[FileIndex] = [
            FileIndex(f.path, f.file_id, f.display, year_hint=year) for f, year in zip(self.files, years)
        ]
        self.scans: list[SourceScan] = [SourceScan(s.stream, run_log=s.run_kind == "run") for s in self.sources]
        self._source_of_file: dict[int, Source] = {
            f.file_id: s for s in self.sources for f in s.files
        }
        self.failed_files: set[int] = set()
        # the one answer to "when was this line written" (panes, merge, diagnosis, reports)
        self.times = TimeModel(self.sources, self.indexes, self.source_of_file)
        self._diagnosis = None
        self._registry = None
        self._inflight: _Inflight | None = None
        # files scanned but not counted yet (file id -> bytes to count): `index_first` leaves
        # them, `count_pending` counts them; they read as empty until then
        self.pending: dict[int, int] = {}
        self._counters: _Inflight | None = None  # the pass's worker processes, kept for the count

    @classmethod
    def open(cls, paths: list[str], stdout: list[str] | None = None,
             registry_files: list[str] | None = None) -> "Workspace":
        return cls(discover(paths, stdout), registry_files)

    # ---------------------------------------------------------------- indexing
    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)

    def source_of_file(self, file_id: int) -> Source:
        return self._source_of_file[file_id]

    def index(self, progress: Callable[[int, int], None] | None = None,
              cancelled: Callable[[], bool] | None = None, processes: bool | None = None) -> None:
        """Index and scan every file once (one read pass per file): in worker processes on
        large trees with two cores or more, unless `processes=False`."""
        self._index_all(progress, cancelled, snapshot=False, processes=processes)

    def index_first(self, progress: Callable[[int, int], None] | None = None,
                    cancelled: Callable[[], bool] | None = None) -> None:
        """The TUI's pass: like `index()`, but on large trees the plog and device files without
        an error candidate are only scanned, not counted, so the diagnosis and the anchored
        screen do not wait for every newline of the tree (a third of the pass). They are left in
        `pending`, read as empty, and `count_pending` counts them afterwards."""
        self._index_all(progress, cancelled, snapshot=False, processes=True, scan_first=True, count=False)

    def count_pending(self, order: Sequence[int] | None = None,
                      cancelled: Callable[[], bool] | None = None,
                      warm_at: int | None = None) -> Iterator[tuple[int, IndexState | None, str | None]]:
        """Count the files `index_first` left, in `order` first (e.g. the files around the
        anchor's time), in the pass's worker processes when it had them: yields (file id,
        its index state or None, the problem when it could not be read) as each is counted.
        The caller adopts each with `adopt_count` on the thread that reads the indexes. With
        `warm_at` (the moment on screen), each state carries the line stamps around it, so
        the first screen after the adoption parses none on the caller's thread."""
        first = {f: k for k, f in enumerate(order or ())}
        todo = sorted(self.pending, key=lambda f: (first.get(f, len(first)), f))
        counters, self._counters = self._counters, None
        done: set[int] = set()
        if counters is not None:
            from concurrent.futures import FIRST_COMPLETED, wait
            from concurrent.futures.process import BrokenProcessPool

            try:
                futures = {counters.pool.submit(_count_job, (f, self.files[f].path, self.indexes[f].year_hint,
                                                             self.pending[f], warm_at)) for f in todo}
                if warm_at is not None:  # the counted files around that moment, in the workers too
                    futures |= {counters.pool.submit(_warm_job, (f, self.files[f].path, self.indexes[f].year_hint,
                                                                 self.indexes[f].state(), warm_at))
                                for f in self._warmable()}
                while futures:
                    finished, futures = wait(futures, timeout=0.05, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        got = fut.result()
                        if not isinstance(got, _FileResult):  # a _warm_job's stamps: cached, nothing to adopt
                            self.indexes[got[0]].take_line_times(got[1])
                            continue
                        done.add(got.file_id)
                        yield got.file_id, got.state, got.error
                    if cancelled is not None and cancelled():
                        counters.stop()
                        return
            except (BrokenProcessPool, OSError, RuntimeError, MemoryError, ValueError, TypeError):
                pass  # counted here instead, below
            finally:
                counters.pool.shutdown(wait=False, cancel_futures=True)
        for f in todo:
            if f in done:
                continue
            if cancelled is not None and cancelled():
                return
            try:
                state, _ = _count_file(f, self.files[f].path, self.indexes[f].year_hint, self.pending[f],
                                       warm_at=warm_at)
            except UnreadableFile as exc:
                yield f, None, str(exc)
                continue
            yield f, state, None

    def _warmable(self) -> list[int]:
        """The counted plog/device files: once the count joins, a merged window at the anchor's
        moment takes the keys of ~1000 lines per file there (core.window); `_warm_job` parses
        them in a worker process instead of the interface's."""
        return [f for f, idx in enumerate(self.indexes)
                if f not in self.pending and idx.line_count and not self.times.is_console(f)]

    def pending_near(self, t: int | None) -> list[int]:
        """The pending files, those whose lines span moment `t` first, then the nearest: what
        the anchored screen shows is counted before the rest of the tree."""
        def distance(f: int) -> tuple[int, int]:
            idx = self.indexes[f]
            lo, hi = idx.first_time, idx.last_time
            if t is None or lo < 0 or hi < 0:
                return 1, f
            return 0, 0 if lo <= t <= hi else min(abs(t - lo), abs(t - hi))

        return sorted(self.pending, key=distance)

    def adopt_count(self, file_id: int, state: IndexState | None, error: str | None = None) -> None:
        """Take a file's count from `count_pending`: its lines exist from now on."""
        if self.pending.pop(file_id, None) is None:
            return
        if state is None:
            self._failed(file_id, error or f"{self.files[file_id].display}: not indexed")
        else:
            self.indexes[file_id].adopt_state(state)

    def finish_counting(self, cancelled: Callable[[], bool] | None = None) -> None:
        """Count every pending file now (what `index()` does after a scan-first pass)."""
        for f, state, error in self.count_pending(cancelled=cancelled):
            self.adopt_count(f, state, error)

    def snapshot_index(self, progress: Callable[[int, int], None] | None = None,
                       cancelled: Callable[[], bool] | None = None) -> None:
        """Like `index()`, but reads one consistent snapshot of a folder that is still written.

        Every file is indexed only up to the size discovery recorded when the workspace was
        opened (`SourceFile.size`), so a job appending while the report runs cannot make one
        file look newer than another, and lines written after the open are not half-counted.
        Files created after the open are not part of the snapshot.
        """
        self._index_all(progress, cancelled, snapshot=True)

    def start_index(self, processes: bool | None = True, scan_first: bool = False) -> bool:
        """Start the parallel index pass now and return at once; `index()` collects it.

        The TUI calls this before it imports Textual: the worker processes fork from a small
        single-threaded interpreter and index while the UI loads (about half a second of
        start-up that would otherwise come before the pass). Returns False when the tree is too
        small for worker processes (then `index()` runs the serial pass as usual).
        `scan_first`: the pass `index_first` collects (files without hits are not counted).
        """
        if self._inflight is None and self._parallel_wanted(processes):
            self._inflight = self._submit_parallel(min(_workers(), 8), snapshot=False, scan_first=scan_first)
        return self._inflight is not None

    def _parallel_wanted(self, processes: bool | None) -> bool:
        # Worker processes pay off on large trees (bench/README.md); the pool costs a fork and
        # a pickle per file, so small trees and single files stay serial.
        return (processes is not False and min(_workers(), 8) >= PARALLEL_MIN_WORKERS
                and self.total_bytes >= PARALLEL_MIN_BYTES and len(self.files) >= 2)

    def _index_all(self, progress: Callable[[int, int], None] | None,
                   cancelled: Callable[[], bool] | None, snapshot: bool, processes: bool | None = None,
                   scan_first: bool = False, count: bool = True) -> None:
        inflight, self._inflight = self._inflight, None
        if inflight is not None and snapshot:  # started for a full pass, not a snapshot
            inflight.pool.shutdown(wait=False, cancel_futures=True)
            inflight = None
        if inflight is None and self._parallel_wanted(processes):
            inflight = self._submit_parallel(min(_workers(), 8), snapshot, scan_first)
        if inflight is not None and self._collect_parallel(inflight, progress, cancelled):
            if count and self.pending:
                self.finish_counting(cancelled)
            return
        total = max(self.total_bytes, 1)
        done = 0
        for src in self.sources:
            scan = self.scans[src.source_id]
            for f in src.files:
                if cancelled is not None and cancelled():
                    return
                self._extend_file(f.file_id, scan,
                                  None if progress is None else (lambda n, base=done: progress(base + n, total)),
                                  cancelled, limit=f.size if snapshot else None)
                done += f.size
                if progress is not None:
                    progress(done, total)
        self.resolve_ranks()

    def _submit_parallel(self, workers: int, snapshot: bool, scan_first: bool = False) -> "_Inflight | None":
        """Large trees: batches of files on every core (per-line work is pure Python, so
        threads would serialise on the GIL and slow the UI). None if the pool cannot start."""
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        before: dict[int, int] = {}
        for src in self.sources:
            acc = 0
            for f in src.files:
                before[f.file_id] = acc
                acc += f.size
        # Guided batches, handed out as workers free up: each takes about 1/(2 x workers) of
        # the bytes still unassigned, largest files first, so batches shrink to single files
        # at the end and the workers finish together (equal batches leave one idle).
        batches: list[list[tuple]] = []
        remaining = self.total_bytes
        size = target = 0
        for f in sorted(self.files, key=lambda f: -f.size):
            if size >= target:
                batches.append([])
                remaining -= size
                size, target = 0, max(remaining // (2 * workers), 1)
            size += f.size
            src = self.source_of_file(f.file_id)
            batches[-1].append((f.file_id, f.path, src.stream.value, src.run_kind == "run",
                                self.indexes[f.file_id].year_hint, f.size if snapshot else None,
                                before[f.file_id]))
        try:
            ctx = multiprocessing.get_context(START_METHOD)
            slots = ctx.RawArray("q", len(batches))
            n = min(workers, len(batches))
            pids = ctx.Array("q", n)
            pool = ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_init_worker,
                                       initargs=(slots, pids))
            futures = {pool.submit(_index_batch, k, batch, scan_first) for k, batch in enumerate(batches)}
        except (OSError, ValueError, NotImplementedError, RuntimeError):
            return None
        return _Inflight(pool, futures, slots, pids, scan_first)

    def _collect_parallel(self, inflight: "_Inflight", progress: Callable[[int, int], None] | None,
                          cancelled: Callable[[], bool] | None) -> bool:
        """Wait for the worker processes and merge their results in file order, so the outcome
        equals the serial pass. False if the pool broke (the caller then runs the serial pass)."""
        from concurrent.futures import wait
        from concurrent.futures.process import BrokenProcessPool

        total = max(self.total_bytes, 1)
        results: dict[int, _FileResult] = {}
        pending = inflight.futures
        finished_ok = False
        try:
            while pending:
                finished, pending = wait(pending, timeout=0.05)
                for fut in finished:
                    for got in fut.result():
                        results[got.file_id] = got
                if progress is not None:
                    progress(min(sum(inflight.slots), total), total)
                if cancelled is not None and cancelled():
                    inflight.stop()
                    return True
            finished_ok = True
        except (BrokenProcessPool, OSError, RuntimeError, MemoryError, ValueError, TypeError):
            # a worker died or raised: nothing is applied yet, so the serial pass starts clean
            # (and reports any unreadable file the usual way)
            return False
        finally:
            if finished_ok and inflight.scan_first:
                self._counters = inflight  # the count of the pending files runs in them
            else:
                inflight.pool.shutdown(wait=finished_ok, cancel_futures=True)
        for src in self.sources:
            scan = self.scans[src.source_id]
            for f in src.files:
                got = results.get(f.file_id)
                if got is None:
                    continue
                if got.state is None:
                    self._failed(f.file_id, got.error or f"{f.display}: not indexed")
                    continue
                if got.pending:
                    self._pend(f.file_id, got.state)
                else:
                    self.indexes[f.file_id].adopt_state(got.state)
                scan.hits.extend(got.hits)
                if not scan.rank_found:
                    scan.rank_lines.extend(got.rank_lines)
                scan.has_info = scan.has_info or got.has_info
        self.resolve_ranks()
        return True

    def _pend(self, file_id: int, st: IndexState) -> None:
        """A scanned, uncounted file: it reads as empty until counted, but what the diagnosis
        asks of every file (when its lines start and end) is known already."""
        idx = self.indexes[file_id]
        idx.first_time, idx.last_time, idx.inode = st.first_time, st.last_time, st.inode
        idx.uncounted = st.size
        self.pending[file_id] = st.size

    def _extend_file(self, file_id: int, scan: SourceScan, progress: Callable[[int], None] | None,
                     cancelled: Callable[[], bool] | None, limit: int | None = None) -> int:
        idx = self.indexes[file_id]
        try:
            return idx.extend(on_chunk=lambda chunk: scan.feed(file_id, chunk),
                              cancelled=cancelled, progress=progress, limit=limit)
        except UnreadableFile as exc:
            self._failed(file_id, str(exc))
            return 0

    def _failed(self, file_id: int, problem: str) -> None:
        if file_id not in self.failed_files:
            self.problems.append(problem)
        self.failed_files.add(file_id)

    def resolve_ranks(self) -> None:
        """Fill in the sources' ranks and devices from what the scan found (see `core.ranks`);
        run after the index pass and after live growth. The labels follow the devices."""
        resolve_ranks(self.sources, self.scans)
        self._relabel()
        self._diagnosis = None

    def _relabel(self) -> None:
        for src in self.sources:
            if src.stream is not Stream.STDOUT:
                src.label = source_label(src)

    # ---------------------------------------------------------------- clocks
    def set_clock_offset(self, path: str, seconds: float) -> list[Source]:
        """Move the clock of every source with a file at or under `path` by `seconds` (a node
        whose clock ran ahead gets a negative offset): panes, merges, the diagnosis and the
        reports then place its lines at the corrected moment (`TimeModel.offsets`). Returns the
        sources it applies to (none: the path holds no opened log file). `ARCHIVE!member` (the
        names reports show) picks an archive's members at or under `member`."""
        import os

        root = os.path.realpath(path)
        under = root.rstrip(os.sep) + os.sep
        shown = [f"{disp}!{member}" for arc_path, disp in self.discovery.archives
                 for arc, _, member in [path.partition("!")] if "!" in path
                 and arc_path == os.path.realpath(arc)]

        def inside(f: SourceFile) -> bool:
            if any(f.display == name or f.display.startswith(name if name.endswith(("/", "!")) else name + "/")
                   for name in shown):
                return True
            real = os.path.realpath(f.path)
            return real == root or real.startswith(under)

        hit = [s for s in self.sources if any(inside(f) for f in s.files)]
        for src in hit:
            self.times.offsets[src.source_id] = round(seconds * 1_000_000)
        self._diagnosis = None
        return hit

    # ---------------------------------------------------------------- live mutation
    # The live tail (core.live) changes the opened set only through these, so that the lists
    # stay parallel (`files[i]`, `indexes[i]` and file id i; `sources[j]`, `scans[j]`) and every
    # file id ever handed out stays valid: ids are never reused, lists only grow.

    def add_source(self, stream: Stream, pid: int | None, device: int | None, run_kind: str | None,
                   label: str = "") -> Source:
        src = Source(source_id=len(self.sources), stream=stream, files=[], pid=pid, device=device,
                     run_kind=run_kind, label=label)
        self.sources.append(src)
        self.scans.append(SourceScan(stream, run_log=run_kind == "run"))
        return src

    def add_file(self, sf: SourceFile, src: Source) -> FileIndex:
        """A file that appeared while following: the next file id, in `src`'s chain at its
        name-time place (a rotation's new file normally goes last). Returns its (live) index."""
        sf.file_id = len(self.files)
        self.files.append(sf)
        idx = FileIndex(sf.path, sf.file_id, sf.display)
        idx.follow_live()
        self.indexes.append(idx)
        pos = len(src.files)
        if sf.name_time is not None:
            while pos > 0 and (src.files[pos - 1].name_time or 0) > sf.name_time:
                pos -= 1
        src.files.insert(pos, sf)
        self._source_of_file[sf.file_id] = src
        return idx

    def grow_file(self, file_id: int) -> int:
        """Index and scan what was appended to the file; returns the new complete lines.
        Raises UnreadableFile."""
        scan = self.scans[self.source_of_file(file_id).source_id]
        idx = self.indexes[file_id]
        n = idx.extend(on_chunk=lambda chunk: scan.feed(file_id, chunk))
        self.files[file_id].size = idx.size
        return n

    def move_file(self, file_id: int, path: str, display: str) -> None:
        """A followed file was renamed inside the tree: its id follows the new name."""
        f = self.files[file_id]
        f.path, f.display = path, display
        idx = self.indexes[file_id]
        idx.display = display
        idx.reopen(path)

    def close_file(self, file_id: int) -> None:
        """Deleted or rotated away: the path is not this file any more."""
        self.indexes[file_id].close()

    def retire_file(self, file_id: int) -> None:
        """The file's bytes are gone: keep the lines the scan found, read the rest as empty."""
        scan = self.scans[self.source_of_file(file_id).source_id]
        self.indexes[file_id].retire((h.line, h.text) for h in scan.hits if h.file_id == file_id)

    def drop_file(self, file_id: int) -> None:
        """Truncated under us: the file's old lines are no longer on disk, so they leave its
        chain (the panes), the scan and the time model (the diagnosis). The id stays valid: it
        reads as retired for anything that still holds a reference to one of its lines."""
        self.retire_file(file_id)
        src = self.source_of_file(file_id)
        src.files = [f for f in src.files if f.file_id != file_id]  # a new list: readers keep theirs
        scan = self.scans[src.source_id]
        scan.hits = [h for h in scan.hits if h.file_id != file_id]
        self.times.forget(file_id)
        self._diagnosis = None

    # ---------------------------------------------------------------- diagnosis
    @property
    def registry(self):
        """The error-code registry (built-in, local CANN install, --registry files), loaded
        once; a bad registry file becomes a one-line problem, never an exception."""
        if self._registry is None:
            from npudiag_tui.core.registry import Registry

            self._registry = Registry.load(extra=self.registry_files)
            self.problems.extend(w for w in self._registry.warnings if w not in self.problems)
        return self._registry

    def diagnose(self) -> Diagnosis:
        """The Diagnosis of what is indexed now (cached until the next index/refresh)."""
        if self._diagnosis is None:
            from npudiag_tui.core.diagnosis.engine import Inputs, build_all_events, diagnose

            events = build_all_events(self.sources, self.scans, self.indexes, self.times)
            resolve_ranks(self.sources, self.scans, events)  # CANN pids named with a rank
            inputs = Inputs(self.sources, self.scans, self.indexes, self.files, lambda: self.registry)
            self._diagnosis = diagnose(inputs, events)
        return self._diagnosis

    def invalidate(self) -> None:
        self._diagnosis = None

    def close(self) -> None:
        for running in (self._inflight, self._counters):
            if running is not None:
                running.pool.shutdown(wait=False, cancel_futures=True)
        self._inflight = self._counters = None
        self.discovery.cleanup()
