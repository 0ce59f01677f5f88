"""Live tail: turn "these paths changed" into incremental index, scan and diagnosis updates.

The watcher (watchfiles, in the TUI) only tells us *which* paths changed; the change kinds are
not trusted (a rename + recreate arrives as added+added+deleted in one unordered set, and a
truncation is just "modified"). `LiveTail.apply` re-stats every path and decides from size and
inode what happened:

* grown            -> `extend()` from the old size, feeding the source's `SourceScan`. Live
                      indexes hold a partial last line back (`include_partial=False`) until its
                      newline arrives.
* new regular file -> classified like discovery does (plog name joins its pid's chain or starts a
                      new source; `device-<id>` folders; anything else sniffed, else console).
* inode changed    -> rotation. The old file id keeps its lines (see "keeping lines" below) and is
                      closed; if the old inode shows up under another name in the tree (rename
                      `f` -> `f.1.log`), the old file id simply follows it. The new inode at the
                      path becomes a new file id in the same source chain.
* shrank           -> truncation (also detected when the byte before the indexed end is no longer
                      a newline: truncated and rewritten between two batches). The bytes are gone
                      from disk, so the old file id is retired and the new content gets a new file
                      id in the same source chain.
* missing          -> deletion: the file id is closed.

Keeping lines (why nothing ever crashes or silently shows wrong text):

* File ids are never reused or renumbered; `ws.files`, `ws.indexes` and `ws.sources` only grow,
  so every `LineRef` handed out before stays valid.
* A live index holds a read-only file descriptor on the files that are being written (the last
  file of every chain and whatever grows). Reads go through that descriptor with `pread`, so a
  rotated, renamed-away or deleted file stays fully readable for as long as we hold it: no line
  that is still on disk (including an unlinked file's blocks we hold open) is lost. At most
  `max_held` descriptors are kept; closed files beyond that give theirs back first.
* When the bytes are really gone (truncation, or a closed file whose descriptor was given back),
  the index becomes *retired*: it keeps its line count, the text and time of every line the scan
  found (the error candidates, i.e. everything the diagnosis and the report quote) and reads every
  other line as an empty string. Nothing reads the new content at old offsets.

Diagnosis: the scan is incremental, so when an error-candidate line (a scan hit) arrives or the
source set changes, `ws.invalidate()` and `ws.diagnose()` recompute from the accumulated hits.
When the anchor changes, the update says from where to where (`LiveUpdate.anchor_message`).

Thread use: `apply` is serialised by a lock and meant for one worker thread; readers on other
threads only ever `pread` (thread-safe) from a descriptor or a path.
"""

from __future__ import annotations

import os
import re
import stat as stat_mod
import threading
from dataclasses import dataclass, field
from typing import Callable, Iterable

from npudiag_tui.core.discover import (
    DEVICE_DIR,
    DEVICE_NAME,
    NOT_LOG_SUFFIXES,
    PLOG_NAME,
    SNIFF_BYTES,
    _label,
    _pid_from_sample,
    _run_kind,
    is_binary,
)
from npudiag_tui.core.formats.plog import looks_like_plog
from npudiag_tui.core.formats.timestamps import find_stamp, name_time
from npudiag_tui.core.index import ChunkHook, FileIndex, UnreadableFile
from npudiag_tui.core.model import Diagnosis, Source, SourceFile, Stream
from npudiag_tui.core.scan import SourceScan

_HEADER = re.compile(r"^\[[A-Z]+\] [A-Za-z0-9_]+\(\d+,[^)]*\):\S+ (?:\[[^\]]*\]\s*)?")
MAX_HELD = 128  # descriptors held on live files
# names a watcher should report: CANN logs and console logs; directories always pass
LOG_SUFFIXES = (".log", ".out", ".txt", ".err")


class LiveFileIndex(FileIndex):
    """A FileIndex that can read through a held descriptor and survive its file going away.

    Existing FileIndex objects are converted in place (`adopt`), so every reference the UI
    already holds stays valid.
    """

    fd: int | None
    closed: bool
    retired: bool
    kept: dict[int, tuple[bytes, int, bool]]  # line -> (raw, time or -1, inherited) once retired

    @classmethod
    def adopt(cls, idx: FileIndex) -> "LiveFileIndex":
        if not isinstance(idx, LiveFileIndex):
            idx.__class__ = cls
            idx._live_init()  # type: ignore[attr-defined]
        idx.include_partial = False
        return idx  # type: ignore[return-value]

    def __init__(self, path: str, file_id: int = -1, display: str | None = None,
                 year_hint: int | None = None) -> None:
        super().__init__(path, file_id, display, year_hint)
        self._live_init()
        self.include_partial = False

    def _live_init(self) -> None:
        self.fd = None
        self.closed = False
        self.retired = False
        self.kept = {}

    # ------------------------------------------------------------ descriptors
    @property
    def held(self) -> bool:
        return self.fd is not None

    def hold(self) -> bool:
        """Open and keep a descriptor on the file, if it is still the inode we indexed."""
        if self.fd is not None or self.retired:
            return self.fd is not None
        try:
            fd = os.open(self.path, os.O_RDONLY)
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
        self.fd = fd
        return True

    def release(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass

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
        self.kept = kept
        self.retired = True
        self.closed = True
        self.size = self.indexed  # a partial tail is gone with the rest
        self.release()
        self._offsets.clear()
        self._times.clear()

    # ------------------------------------------------------------ reading
    def _pread(self, length: int, offset: int) -> bytes:
        if self.retired:
            return b""
        fd = self.fd
        if fd is not None:
            try:
                return os.pread(fd, length, offset)
            except OSError:
                pass  # released under us by the tail thread: fall back to the path
        if self.closed:
            return b""  # the path now holds something else (or nothing)
        return super()._pread(length, offset)

    # A file can shrink on disk before the tail has seen it: reads then find fewer bytes than the
    # index promises. Live indexes answer with empty lines instead of raising (the next apply
    # retires the index).
    def raw_lines(self, first: int, count: int, max_bytes: int = 8 << 20) -> list[bytes]:
        last = min(first + count, self.line_count)
        if not self.retired:
            try:
                got = super().raw_lines(first, count, max_bytes)
                if len(got) == max(last - max(first, 0), 0):
                    return got
            except (IndexError, UnreadableFile):
                pass
            return [b""] * max(last - max(first, 0), 0)
        return [self.kept.get(i, (b"", -1, True))[0] for i in range(max(first, 0), last)]

    def full_line(self, i: int) -> str:
        if self.retired:
            return self.kept.get(i, (b"", -1, True))[0].decode("utf-8", "replace").rstrip("\r")
        try:
            return super().full_line(i)
        except (IndexError, UnreadableFile):
            return ""

    def line_time(self, i: int) -> tuple[int | None, bool]:
        if self.retired:
            got = self.kept.get(i)
            if got is None or got[1] < 0:
                return None, True
            return got[1], got[2]
        try:
            return super().line_time(i)
        except (IndexError, UnreadableFile):
            return None, True

    def own_time(self, i: int) -> int | None:
        if self.retired:
            got = self.kept.get(i)
            return got[1] if got is not None and got[1] >= 0 and not got[2] else None
        try:
            return super().own_time(i)
        except (IndexError, UnreadableFile):
            return None

    # ------------------------------------------------------------ building
    def extend(self, on_chunk: ChunkHook | None = None, cancelled: Callable[[], bool] | None = None,
               progress: Callable[[int], None] | None = None, limit: int | None = None) -> int:
        """As FileIndex.extend, but through the held descriptor when there is one."""
        if self.retired:
            return 0
        if self.fd is None:
            if self.closed:
                return 0
            return super().extend(on_chunk, cancelled, progress, limit)
        fd = self.fd
        try:
            st = os.fstat(fd)
            end = st.st_size if limit is None else min(st.st_size, limit)
            if end < self.indexed:
                raise UnreadableFile(f"{self.display}: truncated")
            return self._consume(fd, end, on_chunk, cancelled, progress)
        except OSError as exc:
            raise UnreadableFile(f"{self.display}: {exc.strerror or exc}") from None

    def still_intact(self) -> bool:
        """The byte before the indexed end is still a newline (cheap rewrite/truncation check)."""
        if self.indexed == 0:
            return True
        try:
            b = self._pread(1, self.indexed - 1) if self.fd is not None else super()._pread(1, self.indexed - 1)
        except (UnreadableFile, OSError):
            return False
        return b == b"\n"


@dataclass
class LiveUpdate:
    """What one `apply` changed. File ids and source ids index `ws.files` / `ws.sources`."""

    grown: dict[int, int] = field(default_factory=dict)  # file id -> new complete lines
    new_files: list[int] = field(default_factory=list)
    new_sources: list[int] = field(default_factory=list)
    closed_files: list[int] = field(default_factory=list)  # deleted or rotated away
    rotated: list[int] = field(default_factory=list)  # old file ids whose path got a new inode
    truncated: list[int] = field(default_factory=list)  # retired file ids (content gone)
    renamed: list[int] = field(default_factory=list)  # file ids that followed their inode
    problems: list[str] = field(default_factory=list)
    new_hits: int = 0
    rediagnosed: bool = False
    anchor_changed: bool = False
    old_anchor: str | None = None
    new_anchor: str | None = None
    diagnosis: Diagnosis | None = None  # when re-diagnosed

    @property
    def changed(self) -> bool:
        return bool(self.grown or self.new_files or self.closed_files or self.truncated
                    or self.renamed or self.problems or self.rediagnosed)

    def anchor_message(self) -> str:
        if not self.anchor_changed:
            return ""
        if self.new_anchor is None:
            return f"Anchor cleared (was {self.old_anchor})"
        if self.old_anchor is None:
            return f"Anchor found: {self.new_anchor}"
        return f"Anchor moved to {self.new_anchor} (was {self.old_anchor})"


def _norm(path: str) -> str:
    return os.path.normpath(os.path.abspath(path))


class LiveTail:
    """Feeds a Workspace incrementally from changed paths. Create it after `ws.index()`."""

    def __init__(self, ws, max_held: int = MAX_HELD) -> None:
        self.ws = ws
        self.max_held = max_held
        self._lock = threading.Lock()
        self._by_path: dict[str, int] = {}
        self._ignored: set[str] = set()
        self._real_seen: set[str] = set()
        self._held_order: list[int] = []  # file ids holding a descriptor, oldest first
        self._anchor_key: tuple | None = None
        self._anchor_desc: str | None = None
        for f in ws.files:
            idx = LiveFileIndex.adopt(ws.indexes[f.file_id])
            if idx.closed:
                continue
            self._by_path[_norm(f.path)] = f.file_id
            try:
                self._real_seen.add(os.path.realpath(f.path))
            except OSError:
                pass
        for src in ws.sources:  # the files being written: the last of every chain
            if src.files:
                self._hold(src.files[-1].file_id)
        self.sync()

    # ------------------------------------------------------------ public
    @property
    def roots(self) -> list[str]:
        return [r for r in self.ws.discovery.roots if os.path.isdir(r)]

    def known_paths(self) -> set[str]:
        """Paths being followed (safe to call from another thread)."""
        for _ in range(5):
            try:
                return set(self._by_path)
            except RuntimeError:  # resized by apply() on the tail thread meanwhile
                continue
        with self._lock:
            return set(self._by_path)

    def sync(self) -> None:
        """Take the current diagnosis as the baseline for anchor-change reports."""
        diag = self.ws.diagnose()
        self._anchor_key, self._anchor_desc = self._anchor_of(diag)

    def close(self) -> None:
        with self._lock:
            for idx in self.ws.indexes:
                if isinstance(idx, LiveFileIndex):
                    idx.release()
            self._held_order.clear()

    def poll(self) -> LiveUpdate:
        """Re-stat every known file and the roots (a watcher-less fallback and for tests)."""
        paths = set(self._by_path)
        for root in self.roots:
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = [d for d in dirnames if not d.startswith(".")]
                for fn in filenames:
                    p = _norm(os.path.join(dirpath, fn))
                    if p not in self._by_path and p not in self._ignored:
                        paths.add(p)
        return self.apply(paths)

    def apply(self, paths: Iterable[str]) -> LiveUpdate:
        with self._lock:
            return self._apply({_norm(p) for p in paths})

    # ------------------------------------------------------------ the work
    def _apply(self, paths: set[str]) -> LiveUpdate:
        ws = self.ws
        upd = LiveUpdate()
        hits_before = sum(len(s.hits) for s in ws.scans)
        ranks_before = [(s.rank, s.device) for s in ws.sources]
        candidates: dict[str, os.stat_result] = {}
        prefer: dict[str, Source] = {}
        # directories first: files created before the watch was set up are found by a walk
        for p in sorted(paths):
            st = _stat(p)
            if st is not None and stat_mod.S_ISDIR(st.st_mode):
                for dirpath, dirnames, filenames in os.walk(p):
                    dirnames[:] = [d for d in dirnames if not d.startswith(".")]
                    for fn in filenames:
                        q = _norm(os.path.join(dirpath, fn))
                        if q not in self._by_path:
                            paths.add(q)
            elif st is None and p not in self._by_path:
                # a folder that went away (CANN ages whole device-<id> folders): its files too
                prefix = p + os.sep
                paths.update(q for q in list(self._by_path) if q.startswith(prefix))
        # known paths: grown, truncated, rotated, deleted
        for p in sorted(paths):
            fid = self._by_path.get(p)
            st = _stat(p)
            if fid is None:
                if st is not None and stat_mod.S_ISREG(st.st_mode) and p not in self._ignored:
                    candidates[p] = st
                continue
            idx: LiveFileIndex = ws.indexes[fid]
            src = ws.source_of_file(fid)
            if st is None or not stat_mod.S_ISREG(st.st_mode):
                self._final_read(fid, upd)
                self._close(fid)
                upd.closed_files.append(fid)
                continue
            if idx.inode is not None and st.st_ino != idx.inode:
                self._final_read(fid, upd)
                self._close(fid)
                upd.rotated.append(fid)
                upd.closed_files.append(fid)
                candidates[p] = st
                prefer[p] = src
                continue
            if st.st_size < idx.indexed or not idx.still_intact():
                self._retire(fid)
                del self._by_path[p]
                upd.truncated.append(fid)
                candidates[p] = st
                prefer[p] = src
                continue
            if st.st_size != idx.size:
                self._grow(fid, upd)
        # new paths: a renamed file we know by inode follows its name; others are new files
        for p, st in sorted(candidates.items()):
            old = self._by_inode(st, exclude_path=p)
            if old is not None:
                self._follow(old, p, upd)
                continue
            self._add_new(p, st, prefer.get(p), upd)
        # closed files that nobody holds and that did not reappear under another name: the path's
        # bytes are not theirs any more, so keep only what the scan found
        for fid in upd.closed_files:
            idx = ws.indexes[fid]
            if idx.closed and not idx.held:
                self._retire(fid)
        # closed files beyond the descriptor budget give theirs back
        self._trim_held()
        new_hits = sum(len(s.hits) for s in ws.scans) - hits_before
        upd.new_hits = new_hits
        if upd.new_files or upd.grown:
            ws._assign_ranks()
            for s in ws.sources:
                if s.stream is not Stream.STDOUT:
                    s.label = _label(s)
        ranks_changed = ranks_before != [(s.rank, s.device) for s in ws.sources[:len(ranks_before)]]
        if new_hits > 0 or upd.new_sources or ranks_changed or upd.truncated:
            self._rediagnose(upd)
        return upd

    def _grow(self, fid: int, upd: LiveUpdate) -> None:
        ws = self.ws
        src = ws.source_of_file(fid)
        scan = ws.scans[src.source_id]
        idx: LiveFileIndex = ws.indexes[fid]
        if not idx.held:
            self._hold(fid)
        try:
            n = idx.extend(on_chunk=lambda chunk: scan.feed(fid, chunk))
        except UnreadableFile as exc:
            upd.problems.append(str(exc))
            return
        ws.files[fid].size = idx.size
        if n:
            upd.grown[fid] = upd.grown.get(fid, 0) + n

    def _final_read(self, fid: int, upd: LiveUpdate) -> None:
        """Whatever was written before a rotation/deletion is still readable through the fd."""
        idx: LiveFileIndex = self.ws.indexes[fid]
        if idx.held:
            self._grow(fid, upd)

    def _close(self, fid: int) -> None:
        idx: LiveFileIndex = self.ws.indexes[fid]
        idx.closed = True
        p = _norm(self.ws.files[fid].path)
        if self._by_path.get(p) == fid:
            del self._by_path[p]

    def _retire(self, fid: int) -> None:
        idx: LiveFileIndex = self.ws.indexes[fid]
        scan = self.ws.scans[self.ws.source_of_file(fid).source_id]
        idx.retire((h.line, h.text) for h in scan.hits if h.file_id == fid)
        if fid in self._held_order:
            self._held_order.remove(fid)

    def _hold(self, fid: int) -> None:
        idx: LiveFileIndex = self.ws.indexes[fid]
        if idx.held or idx.retired or idx.closed:
            return
        if idx.hold():
            self._held_order.append(fid)
            self._trim_held()

    def _trim_held(self) -> None:
        """Stay within max_held: give back closed files' descriptors first, then the idlest."""
        over = len(self._held_order) - self.max_held
        if over <= 0:
            return
        closed = [f for f in self._held_order if self.ws.indexes[f].closed]
        victims = (closed + [f for f in self._held_order if f not in closed])[:over]
        for fid in victims:
            idx: LiveFileIndex = self.ws.indexes[fid]
            self._held_order.remove(fid)
            if idx.closed:
                self._retire(fid)
            else:
                idx.release()

    def _by_inode(self, st: os.stat_result, exclude_path: str) -> int | None:
        """A tracked (or just rotated) file id whose inode is now at another path."""
        for fid in reversed(range(len(self.ws.indexes))):
            idx = self.ws.indexes[fid]
            if not isinstance(idx, LiveFileIndex) or idx.retired or idx.inode != st.st_ino:
                continue
            if idx.held:
                try:
                    fst = os.fstat(idx.fd)  # type: ignore[arg-type]
                except OSError:
                    continue
                if (fst.st_dev, fst.st_ino) != (st.st_dev, st.st_ino):
                    continue
            elif st.st_size < idx.indexed:
                continue
            cur = _norm(self.ws.files[fid].path)
            if cur == exclude_path:
                continue
            here = _stat(cur)
            if here is not None and here.st_ino == st.st_ino and not idx.closed:
                continue  # a hard link of a file still at its own name
            return fid
        return None

    def _follow(self, fid: int, path: str, upd: LiveUpdate) -> None:
        """A known file was renamed inside the tree: its file id follows the new name."""
        ws = self.ws
        f = ws.files[fid]
        idx: LiveFileIndex = ws.indexes[fid]
        old = _norm(f.path)
        if self._by_path.get(old) == fid:
            del self._by_path[old]
        f.path = path
        idx.path = path
        f.display = self._display(path)
        idx.display = f.display
        idx.closed = False
        self._by_path[path] = fid
        if fid in upd.closed_files:
            upd.closed_files.remove(fid)
        upd.renamed.append(fid)
        self._grow(fid, upd)

    def _display(self, path: str) -> str:
        """Display a new file the way discovery displayed its neighbours (relative to the root)."""
        best: tuple[int, str, str] | None = None
        for f in self.ws.files:
            base, prefix = _display_base(_norm(f.path), f.display)
            if base is None or not path.startswith(base):
                continue
            if best is None or len(base) > best[0]:
                best = (len(base), base, prefix)
        if best is not None:
            return best[2] + path[best[0]:].replace(os.sep, "/")
        for r in sorted((_norm(r) for r in self.ws.discovery.roots if os.path.isdir(r)), key=len, reverse=True):
            if path.startswith(r + os.sep):
                return os.path.relpath(path, r).replace(os.sep, "/")
        return os.path.basename(path)

    def _add_new(self, path: str, st: os.stat_result, prefer: Source | None, upd: LiveUpdate) -> None:
        ws = self.ws
        try:
            real = os.path.realpath(path)
        except OSError:
            real = path
        if real in self._real_seen and prefer is None:
            self._ignored.add(path)  # a symlink to a file we already follow
            return
        name = os.path.basename(path)
        lower = name.lower()
        suffix = os.path.splitext(lower)[1]
        if suffix in NOT_LOG_SUFFIXES or lower.endswith((".tar.gz", ".tgz", ".zip", ".tar")):
            self._ignored.add(path)
            return
        try:
            with open(path, "rb") as fh:
                sample = fh.read(SNIFF_BYTES)
        except OSError as exc:
            upd.problems.append(f"{self._display(path)}: cannot read ({exc.strerror or exc})")
            return
        cann_name = PLOG_NAME.match(name) or DEVICE_NAME.match(name)
        if not sample and not cann_name and prefer is None:
            return  # empty and unnamed: classify when content arrives (a later "modified")
        if sample and is_binary(sample):
            self._ignored.add(path)
            upd.problems.append(f"{self._display(path)}: binary file, not a log; skipped")
            return
        display = self._display(path)
        sf = SourceFile(path=path, display=display, size=st.st_size, name_time=name_time(name))
        src = prefer if prefer is not None else self._find_source(path, name, sample)
        if src is None:
            src = self._new_source(path, name, sample)
            upd.new_sources.append(src.source_id)
        fid = len(ws.files)
        sf.file_id = fid
        ws.files.append(sf)
        idx = LiveFileIndex(path, fid, display)
        ws.indexes.append(idx)
        # keep the chain in name-time order (a rotation's new file normally goes last)
        pos = len(src.files)
        if sf.name_time is not None:
            while pos > 0 and (src.files[pos - 1].name_time or 0) > sf.name_time:
                pos -= 1
        src.files.insert(pos, sf)
        ws._source_of_file[fid] = src
        self._by_path[path] = fid
        self._real_seen.add(real)
        upd.new_files.append(fid)
        self._hold(fid)
        self._grow(fid, upd)

    def _classify(self, path: str, name: str, sample: bytes) -> tuple[Stream, int | None, int | None]:
        """(stream, pid, device) the way discovery classifies a file."""
        parent = os.path.basename(os.path.dirname(path))
        dm = DEVICE_DIR.match(parent)
        m = PLOG_NAME.match(name)
        if m:
            return Stream.PLOG, int(m.group(1)), None
        m = DEVICE_NAME.match(name)
        if m:
            return Stream.DEVICE, int(m.group(1)), int(dm.group(1)) if dm else None
        if sample and looks_like_plog(sample):
            pid = _pid_from_sample(sample)
            if dm:
                return Stream.DEVICE, pid, int(dm.group(1))
            return Stream.PLOG, pid, None
        return Stream.STDOUT, None, None

    def _find_source(self, path: str, name: str, sample: bytes) -> Source | None:
        stream, pid, dev = self._classify(path, name, sample)
        if stream is Stream.STDOUT or pid is None:
            return None
        if not (PLOG_NAME.match(name) or DEVICE_NAME.match(name)):
            return None  # sniffed CANN files are a source of their own, as in discovery
        d = os.path.dirname(path)
        for src in self.ws.sources:
            if src.stream is stream and src.pid == pid and src.files \
                    and os.path.dirname(_norm(src.files[-1].path)) == d:
                return src
        return None

    def _new_source(self, path: str, name: str, sample: bytes) -> Source:
        ws = self.ws
        stream, pid, dev = self._classify(path, name, sample)
        src = Source(source_id=len(ws.sources), stream=stream, files=[], pid=pid,
                     device=dev, run_kind=_run_kind(path))
        if stream is Stream.PLOG and pid is not None:
            for s in ws.sources:
                if s.stream is Stream.DEVICE and s.pid == pid and s.device is not None:
                    src.device = s.device
                    break
        if stream is Stream.DEVICE and pid is not None:
            for s in ws.sources:
                if s.stream is Stream.PLOG and s.pid == pid and s.device is None:
                    s.device = dev
        if stream is Stream.STDOUT:
            src.label = name
        else:
            src.label = _label(src)
        ws.sources.append(src)
        ws.scans.append(SourceScan(stream, run_log=src.run_kind == "run"))
        return src

    # ------------------------------------------------------------ diagnosis
    def _anchor_of(self, diag: Diagnosis) -> tuple[tuple | None, str | None]:
        a = diag.anchor
        if a is None:
            return None, None
        from npudiag_tui.core.diagnosis.engine import anchor_ref

        ref = anchor_ref(a)
        where = self.ws.files[ref.file_id].display if 0 <= ref.file_id < len(self.ws.files) else "?"
        code = a.code or (a.codes[0] if a.codes else None)
        text = _HEADER.sub("", (a.detail or a.text).strip(), count=1)
        if len(text) > 100:
            text = text[:97] + "..."
        desc = f"{where}:{ref.line + 1}" + (f" {code}" if code else "") + f" ({a.category}): {text}"
        return (ref.file_id, ref.line, a.text), desc

    def _rediagnose(self, upd: LiveUpdate) -> None:
        ws = self.ws
        ws.invalidate()
        try:
            diag = ws.diagnose()
        except Exception as exc:  # the engine must never take the tail down
            upd.problems.append(f"diagnosis failed: {exc}")
            return
        upd.rediagnosed = True
        upd.diagnosis = diag
        key, desc = self._anchor_of(diag)
        if key != self._anchor_key:
            upd.anchor_changed = True
            upd.old_anchor, upd.new_anchor = self._anchor_desc, desc
            self._anchor_key, self._anchor_desc = key, desc


def _display_base(path: str, display: str) -> tuple[str | None, str]:
    """(absolute folder, display prefix) such that path == folder + rest and display == prefix + rest."""
    if "!" in display:
        return None, ""  # archive members are never live
    p_parts = path.split(os.sep)
    d_parts = display.split("/")
    n = 0
    while n < min(len(p_parts), len(d_parts)) and p_parts[-1 - n] == d_parts[-1 - n]:
        n += 1
    if n == 0:
        return None, ""
    base = os.sep.join(p_parts[:-n]) + os.sep
    prefix = "/".join(d_parts[:-n])
    return base, (prefix + "/" if prefix else "")


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None

