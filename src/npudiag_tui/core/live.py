"""Live tail: turn "these paths changed" into incremental index, scan and diagnosis updates.

The watcher (watchfiles, in the TUI) only tells us *which* paths changed; the change kinds are
not trusted (a rename + recreate arrives as added+added+deleted in one unordered set, and a
truncation is just "modified"). `LiveTail.apply` re-stats every path and decides from size and
inode what happened:

* grown            -> `extend()` from the old size, feeding the source's `SourceScan`. Live
                      indexes hold a partial last line back (`include_partial=False`) until its
                      newline arrives.
* new regular file -> classified by discovery's own `classify` and `source_key`: it joins the
                      chain with its key or starts a new source, named as discovery names the
                      files of its root (`Discovery.display_roots`).
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

* File ids are never reused or renumbered; `ws.files`, `ws.indexes` and `ws.sources` only grow
  (through the Workspace's live mutation methods), so every `LineRef` handed out before stays valid.
* A followed index (`FileIndex.follow_live`) holds a read-only file descriptor on the files that are being written (the last
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
from typing import Iterable

from npudiag_tui.core.discover import (
    FileClass,
    SourceKey,
    classify,
    is_binary,
    read_sample,
    run_kind,
    skip_reason,
    source_key,
    source_label,
)
from npudiag_tui.core.formats.timestamps import name_time
from npudiag_tui.core.index import UnreadableFile
from npudiag_tui.core.model import Diagnosis, Source, SourceFile, Stream
from npudiag_tui.core.workspace import Workspace

_HEADER = re.compile(r"^\[[A-Z]+\] [A-Za-z0-9_]+\(\d+,[^)]*\):\S+ (?:\[[^\]]*\]\s*)?")
MAX_HELD = 128  # descriptors held on live files


def may_be_log(name: str) -> bool:
    """A name a watcher should report: what discovery would read (not an archive, not a file
    type that is never a log). Directories are the watcher's business."""
    return skip_reason(name) is None


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

    def __init__(self, ws: Workspace, max_held: int = MAX_HELD) -> None:
        self.ws = ws
        self.max_held = max_held
        self._lock = threading.Lock()
        self._by_path: dict[str, int] = {}
        self._ignored: set[str] = set()
        self._real_seen: set[str] = set()
        self._held_order: list[int] = []  # file ids holding a descriptor, oldest first
        self._anchor_key: tuple | None = None
        self._anchor_desc: str | None = None
        # the chains new files may join: discovery's keys (None: a source of its own)
        # (folders normalised as this tail's paths are: discovery keeps them as given)
        self._by_key: dict[SourceKey, Source] = {
            (_norm(key[0]),) + tuple(key[1:]): src
            for src, key in zip(ws.sources, ws.discovery.source_keys) if key is not None}
        for f in ws.files:
            idx = ws.indexes[f.file_id]
            idx.follow_live()
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
            idx = ws.indexes[fid]
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
            ws.resolve_ranks()
        ranks_changed = ranks_before != [(s.rank, s.device) for s in ws.sources[:len(ranks_before)]]
        if new_hits > 0 or upd.new_sources or ranks_changed or upd.truncated:
            self._rediagnose(upd)
        return upd

    def _grow(self, fid: int, upd: LiveUpdate) -> None:
        if not self.ws.indexes[fid].held:
            self._hold(fid)
        try:
            n = self.ws.grow_file(fid)
        except UnreadableFile as exc:
            upd.problems.append(str(exc))
            return
        if n:
            upd.grown[fid] = upd.grown.get(fid, 0) + n

    def _final_read(self, fid: int, upd: LiveUpdate) -> None:
        """Whatever was written before a rotation/deletion is still readable through the fd."""
        if self.ws.indexes[fid].held:
            self._grow(fid, upd)

    def _close(self, fid: int) -> None:
        self.ws.close_file(fid)
        p = _norm(self.ws.files[fid].path)
        if self._by_path.get(p) == fid:
            del self._by_path[p]

    def _retire(self, fid: int) -> None:
        self.ws.retire_file(fid)
        if fid in self._held_order:
            self._held_order.remove(fid)

    def _hold(self, fid: int) -> None:
        idx = self.ws.indexes[fid]
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
            idx = self.ws.indexes[fid]
            self._held_order.remove(fid)
            if idx.closed:
                self._retire(fid)
            else:
                idx.release()

    def _by_inode(self, st: os.stat_result, exclude_path: str) -> int | None:
        """A tracked (or just rotated) file id whose inode is now at another path."""
        for fid in reversed(range(len(self.ws.indexes))):
            idx = self.ws.indexes[fid]
            if idx.retired or idx.inode != st.st_ino:
                continue
            if idx.held:
                fst = idx.held_stat()
                if fst is None or (fst.st_dev, fst.st_ino) != (st.st_dev, st.st_ino):
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
        old = _norm(self.ws.files[fid].path)
        if self._by_path.get(old) == fid:
            del self._by_path[old]
        self.ws.move_file(fid, path, self._display(path))
        self._by_path[path] = fid
        if fid in upd.closed_files:
            upd.closed_files.remove(fid)
        upd.renamed.append(fid)
        self._grow(fid, upd)

    def _display(self, path: str) -> str:
        """Name a new file the way discovery named the files of its root."""
        best: tuple[str, str] | None = None
        for root, prefix in self.ws.discovery.display_roots:
            root = _norm(root)
            if path.startswith(root + os.sep) and (best is None or len(root) > len(best[0])):
                best = (root, prefix)
        if best is None:
            return os.path.basename(path)
        return best[1] + os.path.relpath(path, best[0]).replace(os.sep, "/")

    def _add_new(self, path: str, st: os.stat_result, prefer: Source | None, upd: LiveUpdate) -> None:
        try:
            real = os.path.realpath(path)
        except OSError:
            real = path
        if real in self._real_seen and prefer is None:
            self._ignored.add(path)  # a symlink to a file we already follow
            return
        name = os.path.basename(path)
        if skip_reason(name) is not None:
            self._ignored.add(path)
            return
        try:
            sample = read_sample(path)
        except OSError as exc:
            upd.problems.append(f"{self._display(path)}: cannot read ({exc.strerror or exc})")
            return
        cls = classify(path, sample)
        if not sample and not cls.named and prefer is None:
            return  # empty and unnamed: classify when content arrives (a later "modified")
        if sample and is_binary(sample):
            self._ignored.add(path)
            upd.problems.append(f"{self._display(path)}: binary file, not a log; skipped")
            return
        sf = SourceFile(path=path, display=self._display(path), size=st.st_size, name_time=name_time(name))
        src = prefer if prefer is not None else self._source_for(path, cls, upd)
        self.ws.add_file(sf, src)
        self._by_path[path] = sf.file_id
        self._real_seen.add(real)
        upd.new_files.append(sf.file_id)
        self._hold(sf.file_id)
        self._grow(sf.file_id, upd)

    def _source_for(self, path: str, cls: FileClass, upd: LiveUpdate) -> Source:
        """The chain the file joins (same key as discovery's), else a new source."""
        key = source_key(path, cls)
        src = self._by_key.get(key) if key is not None else None
        if src is not None:
            return src
        # a plog and the device log of its pid are linked by core.ranks once the file is read
        src = self.ws.add_source(cls.stream, cls.pid, cls.device, run_kind(path))
        src.label = os.path.basename(path) if cls.stream is Stream.STDOUT else source_label(src)
        if key is not None:
            self._by_key[key] = src
        upd.new_sources.append(src.source_id)
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


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None

