"""One opened set of logs: discovery, the per-file indexes, the scan, and the diagnosis.

The CLI report and the TUI both drive this object; the TUI does so from workers. It holds no
UI state and imports nothing from Textual or rich.
"""

from __future__ import annotations

import re
from typing import Callable

from npudiag_tui.core.discover import Discovery, discover
from npudiag_tui.core.formats.timestamps import year_of
from npudiag_tui.core.index import FileIndex, IndexError_
from npudiag_tui.core.model import Source, SourceFile, Stream
from npudiag_tui.core.scan import SourceScan

_HCCL_RANK = re.compile(r"(?<![A-Za-z])rank\[(\d+)\]")
_HCCL_DEV = re.compile(r"deviceLogicId\[(\d+)\]")
_RANKID = re.compile(r"RankID:(\d+)")


PARALLEL_MIN_BYTES = 64 << 20
PARALLEL_MIN_WORKERS = 4
_INDEX_STATE = ("nl_before", "block_time", "newlines", "indexed", "size", "inode", "first_time", "last_time")


def _index_file(job: tuple[int, str, str, bool, int | None, int | None]) -> tuple:
    """Worker-process half of `Workspace.index` on large trees: index and scan one whole file
    (up to `limit` bytes for a snapshot) and send back only the compact state and the hits."""
    file_id, path, stream, run_log, year, limit = job
    idx = FileIndex(path, file_id, path, year_hint=year)
    scan = SourceScan(Stream(stream), run_log=run_log)
    try:
        idx.extend(on_chunk=lambda chunk: scan.feed(file_id, chunk), limit=limit)
    except IndexError_ as exc:
        return file_id, {}, [], [], False, str(exc)
    return file_id, {k: getattr(idx, k) for k in _INDEX_STATE}, scan.hits, scan.rank_lines, scan.has_info, None


def _workers() -> int:
    import os

    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _year_hint(files: list[SourceFile]) -> int | None:
    """Year for stamps that lack one (vLLM, c10): from CANN file names, else file times."""
    import os
    import time

    for f in files:
        if f.name_time is not None:
            return year_of(f.name_time)
    for f in files:
        try:
            return time.localtime(os.stat(f.path).st_mtime).tm_year
        except OSError:
            continue
    return None


class Workspace:
    def __init__(self, discovery: Discovery, registry_files: list[str] | None = None) -> None:
        self.discovery = discovery
        self.sources: list[Source] = discovery.sources
        self.files: list[SourceFile] = discovery.files
        self.problems: list[str] = list(discovery.problems)
        self.registry_files = registry_files or []
        year = _year_hint(self.files)
        self.indexes: list[FileIndex] = [
            FileIndex(f.path, f.file_id, f.display, year_hint=year) for f in self.files
        ]
        self.scans: list[SourceScan] = [SourceScan(s.stream, run_log=s.run_kind == "run") for s in self.sources]
        self._source_of_file: dict[int, Source] = {
            f.file_id: s for s in self.sources for f in s.files
        }
        self.failed_files: set[int] = set()
        self._diagnosis = None
        self._registry = None

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
        """Index and scan every file once (one read pass per file).

        `processes=True` asks for worker processes even on two cores: an interactive caller
        (the TUI) wants the GIL-bound pass out of its own process, whatever the raw speed.
        """
        self._index_all(progress, cancelled, snapshot=False, processes=processes)

    def snapshot_index(self, progress: Callable[[int, int], None] | None = None,
                       cancelled: Callable[[], bool] | None = None) -> None:
        """Like `index()`, but reads one consistent snapshot of a folder that is still written.

        Every file is indexed only up to the size discovery recorded when the workspace was
        opened (`SourceFile.size`), so a job appending while the report runs cannot make one
        file look newer than another, and lines written after the open are not half-counted.
        Files created after the open are not part of the snapshot.
        """
        self._index_all(progress, cancelled, snapshot=True)

    def _index_all(self, progress: Callable[[int, int], None] | None,
                   cancelled: Callable[[], bool] | None, snapshot: bool, processes: bool | None = None) -> None:
        # Measured on 2 vCPUs: two processes counting newlines were no faster than one (the
        # pass is bound by memory bandwidth there), so the pool is used from 4 cores up.
        workers = min(_workers(), 8)
        enough = workers >= (2 if processes else PARALLEL_MIN_WORKERS)
        if processes is not False and enough and self.total_bytes >= PARALLEL_MIN_BYTES and len(self.files) >= 2:
            if self._index_parallel(workers, progress, cancelled, snapshot):
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
        self._assign_ranks()
        self._diagnosis = None

    def _index_parallel(self, workers: int, progress: Callable[[int, int], None] | None,
                        cancelled: Callable[[], bool] | None, snapshot: bool) -> bool:
        """Large trees: one file per task on every core (per-line work is pure Python, so
        threads would serialise on the GIL and slow the UI). Results are merged in file order,
        so the outcome equals the serial pass. Returns False if the pool cannot start."""
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        jobs = []
        for f in sorted(self.files, key=lambda f: -f.size):  # big files first: better balance
            src = self.source_of_file(f.file_id)
            jobs.append((f.file_id, f.path, src.stream.value, src.run_kind == "run",
                         self.indexes[f.file_id].year_hint, f.size if snapshot else None))
        sizes = {f.file_id: f.size for f in self.files}
        total = max(self.total_bytes, 1)
        results: dict[int, tuple] = {}
        try:
            pool = ProcessPoolExecutor(max_workers=workers)
        except (OSError, ValueError, NotImplementedError):
            return False
        try:
            pending = {pool.submit(_index_file, job) for job in jobs}
            done_bytes = 0
            while pending:
                finished, pending = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
                for fut in finished:
                    got = fut.result()
                    results[got[0]] = got
                    done_bytes += sizes.get(got[0], 0)
                if progress is not None and finished:
                    progress(done_bytes, total)
                if cancelled is not None and cancelled():
                    for fut in pending:
                        fut.cancel()
                    return True
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        for src in self.sources:
            scan = self.scans[src.source_id]
            for f in src.files:
                got = results.get(f.file_id)
                if got is None:
                    continue
                _, state, hits, rank_lines, has_info, error = got
                if error:
                    if f.file_id not in self.failed_files:
                        self.problems.append(error)
                    self.failed_files.add(f.file_id)
                    continue
                idx = self.indexes[f.file_id]
                for key, value in state.items():
                    setattr(idx, key, value)
                scan.hits.extend(hits)
                if not scan.rank_found:
                    scan.rank_lines.extend(rank_lines)
                scan.has_info = scan.has_info or has_info
        self._assign_ranks()
        self._diagnosis = None
        return True

    def _extend_file(self, file_id: int, scan: SourceScan, progress: Callable[[int], None] | None,
                     cancelled: Callable[[], bool] | None, limit: int | None = None) -> int:
        idx = self.indexes[file_id]
        try:
            return idx.extend(on_chunk=lambda chunk: scan.feed(file_id, chunk),
                              cancelled=cancelled, progress=progress, limit=limit)
        except IndexError_ as exc:
            if file_id not in self.failed_files:
                self.problems.append(str(exc))
            self.failed_files.add(file_id)
            return 0

    def _assign_ranks(self) -> None:
        for src in self.sources:
            scan = self.scans[src.source_id]
            for line in scan.rank_lines:
                if src.rank is None and ("HcclCommInit" in line or "rankSize" in line):
                    m = _HCCL_RANK.search(line)
                    if m:
                        src.rank = int(m.group(1))
                    d = _HCCL_DEV.search(line)
                    if d and src.device is None:
                        src.device = int(d.group(1))
                if src.rank is None and src.stream is not Stream.STDOUT:
                    m = _RANKID.search(line)
                    if m:
                        src.rank = int(m.group(1))
        # a device log belongs to the rank of the plog with the same pid
        by_pid = {s.pid: s for s in self.sources if s.stream is Stream.PLOG and s.pid is not None}
        for src in self.sources:
            if src.stream is Stream.DEVICE and src.pid in by_pid:
                host = by_pid[src.pid]
                if src.rank is None:
                    src.rank = host.rank
                if host.device is None:
                    host.device = src.device

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

    def diagnose(self):
        """The Diagnosis of what is indexed now (cached until the next index/refresh)."""
        if self._diagnosis is None:
            from npudiag_tui.core.diagnosis.engine import diagnose

            self._diagnosis = diagnose(self)
        return self._diagnosis

    def invalidate(self) -> None:
        self._diagnosis = None

    def close(self) -> None:
        self.discovery.cleanup()
