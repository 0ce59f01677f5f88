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
* missing          -> deletion: the file id is closed, and its path stays watched (`known_paths`):
                      a file created again under the same name, or a folder deleted and created
                      again, is a new file id in the same chain (follow by path as well as by
                      descriptor).

What is followed (`Scope`): only the files the user named (a `--stdout train.log` or one plog
given as the path is followed alone, not its parent folder), and below the folders the user
named, what discovery's walk would take (any depth, folder links followed like `find -L`, dot
folders skipped). A file reached by two paths (a folder link onto a folder already followed) is
read once, by the path it was first found under.

Keeping lines (why nothing ever crashes or silently shows wrong text):

* File ids are never reused or renumbered; `ws.files`, `ws.indexes` and `ws.sources` only grow
  (through the Workspace's live mutation methods), so every `LineRef` handed out before stays valid.
* A followed index (`FileIndex.follow_live`) holds a read-only file descriptor on the files that are being written (the last
  file of every chain and whatever grows). Reads go through that descriptor with `pread`, so a
  rotated, renamed-away or deleted file stays fully readable for as long as we hold it: no line
  that is still on disk (including an unlinked file's blocks we hold open) is lost. At most
  `max_held` descriptors are kept; closed files beyond that give theirs back first.
* When the bytes are really gone (a closed file whose descriptor was given back), the index
  becomes *retired*: it keeps its line count, the text and time of every line the scan found
  (the error candidates, i.e. everything the diagnosis and the report quote) and reads every
  other line as an empty string. Nothing reads the new content at old offsets.
* A truncated file's old lines are not on disk any more: its file id is dropped from its chain,
  the scan and the time model (`Workspace.drop_file`), so the panes show what the file holds now
  and the anchor is recomputed; `LiveUpdate.lost` says what went (one notice).

Diagnosis: the scan is incremental, so when an error-candidate line (a scan hit) arrives or the
source set changes, the diagnosis is recomputed from the accumulated hits. `apply(diagnose=False)`
only marks it due (`LiveUpdate.needs_diagnosis`) and `rediagnose()` computes it on a snapshot of
the scan, outside the tail's lock: the TUI shows growth first and re-diagnoses in a worker of its
own, one run at a time, so a burst of error lines costs one run, not one per batch. A run reads
only the hits added since the last one (an `EventBuilder` per source, kept by the tail; a source
whose hits were dropped, whose rank was found or whose model times moved is read again whole),
and gives what a full diagnosis gives. When the anchor changes, the update says from where to
where (`LiveUpdate.anchor_message`).

Thread use: `apply` is serialised by a lock and meant for one worker thread; `rediagnose` may
run on another (it holds the lock only to copy the scan); readers on other threads only ever
`pread` (thread-safe) from a descriptor or a path.
"""

from __future__ import annotations

import dataclasses
import os
import re
import stat as stat_mod
import threading
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from npudiag_tui.core.discover import (
    Discovery,
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
from npudiag_tui.core.index import Chunk, UnreadableFile
from npudiag_tui.core.model import Diagnosis, Source, SourceFile, Stream
from npudiag_tui.core.scan import LineHit, SourceScan
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
    lost: list[tuple[str, int, int]] = field(default_factory=list)  # truncated: (name, lines, error lines)
    new_hits: int = 0
    needs_diagnosis: bool = False  # apply(diagnose=False): rediagnose() is due
    rediagnosed: bool = False
    anchor_changed: bool = False
    old_anchor: str | None = None
    new_anchor: str | None = None
    diagnosis: Diagnosis | None = None  # when re-diagnosed

    @property
    def changed(self) -> bool:
        return bool(self.grown or self.new_files or self.closed_files or self.truncated
                    or self.renamed or self.problems or self.rediagnosed)

    def lost_message(self) -> str:
        """One notice for every truncation of the batch: what is no longer on disk."""
        if not self.lost:
            return ""

        def one(name: str, lines: int, errors: int) -> str:
            err = f", {errors:,} of them error lines" if errors else ""
            return f"{name} ({lines:,} line{'s' if lines != 1 else ''}{err})"

        what = "; ".join(one(*x) for x in self.lost[:5]) + (f"; and {len(self.lost) - 5} more"
                                                             if len(self.lost) > 5 else "")
        return (f"Truncated while followed: {what}. Those lines are no longer on disk; the panes show "
                "what the file holds now and the diagnosis was made again without them.")

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


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


class Scope:
    """What following may read, from what the user asked for (`Discovery.named_files` and
    `.folders`): a named file alone (its folder is watched without recursion, for its events
    only), and below a named folder what discovery's walk takes. Archive temp folders are never
    followed."""

    def __init__(self, discovery: Discovery) -> None:
        temp = tuple(_norm(t) + os.sep for t in discovery.temp_dirs)
        self.folders = sorted({_norm(d) for d in discovery.folders if not (_norm(d) + os.sep).startswith(temp)})
        named = {_norm(p) for p in discovery.named_files if not _norm(p).startswith(temp)}
        # a named file that is a link is written at its target: watch and accept both
        self.files = named | {_real(p) for p in named}
        self.file_dirs = sorted({os.path.dirname(p) for p in self.files})

    def wanted(self, path: str, is_dir: bool = False) -> bool:
        """Whether a path reported by the watcher (or found by a walk) is ours to follow."""
        p = _norm(path)
        if not is_dir and p in self.files:
            return True
        for root in self.folders:
            if p == root:
                return is_dir
            if p.startswith(root + os.sep):
                parts = p[len(root) + 1:].split(os.sep)
                folders = parts if is_dir else parts[:-1]
                return not any(x.startswith(".") for x in folders)  # discovery skips dot folders
        return False

    def walk(self, top: str) -> Iterator[str]:
        """The files below a followed folder, as discovery's walk finds them: folder links
        followed like `find -L`, each real folder once (the folders above `top` count as
        visited, so a link back up is not walked again), dot folders skipped."""
        visited = {_real(top)}
        up = _norm(top)
        while any(up.startswith(r + os.sep) for r in self.folders):
            up = os.path.dirname(up)
            visited.add(_real(up))
        stack = [top]
        while stack:
            folder = stack.pop()
            try:
                with os.scandir(folder) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                try:
                    is_dir = entry.is_dir(follow_symlinks=True)
                except OSError:
                    continue
                if not is_dir:
                    yield _norm(entry.path)
                elif not entry.name.startswith("."):
                    real = _real(entry.path)
                    if real not in visited:
                        visited.add(real)
                        stack.append(entry.path)


class LiveTail:
    """Feeds a Workspace incrementally from changed paths. Create it after `ws.index()`."""

    def __init__(self, ws: Workspace, max_held: int = MAX_HELD) -> None:
        self.ws = ws
        self.max_held = max_held
        self.scope = Scope(ws.discovery)
        self._lock = threading.RLock()
        self._diag_lock = threading.Lock()  # one re-diagnosis at a time (anchor bookkeeping)
        self._by_path: dict[str, int] = {}
        self._ignored: set[str] = set()
        self._by_real: dict[str, int] = {}  # real path -> followed file id (one read per file)
        self._vanished: set[str] = set()  # paths of deleted files: watched for a file created again
        self._held_order: list[int] = []  # file ids holding a descriptor, oldest first
        self._anchor_key: tuple | None = None
        self._anchor_desc: str | None = None
        self._incomplete_seen: dict[int, list[tuple[int, str]]] = {}  # hits in held-back last lines
        self._builders: dict = {}  # source id -> EventBuilder: re-diagnoses read new hits only
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
            self._by_real.setdefault(_real(f.path), f.file_id)
        for src in ws.sources:  # the files being written: the last of every chain
            if src.files:
                self._hold(src.files[-1].file_id)
        self.sync()

    # ------------------------------------------------------------ public
    @property
    def roots(self) -> list[str]:
        return [r for r in self.scope.folders if os.path.isdir(r)]

    def known_paths(self) -> set[str]:
        """Paths being followed, and paths whose file went away (watched for its return);
        safe to call from another thread."""
        for _ in range(5):
            try:
                return set(self._by_path) | set(self._vanished)
            except RuntimeError:  # resized by apply() on the tail thread meanwhile
                continue
        with self._lock:
            return set(self._by_path) | set(self._vanished)

    def sync(self) -> None:
        """Take the current diagnosis as the baseline for anchor-change reports."""
        diag = self.ws.diagnose()
        self._anchor_key, self._anchor_desc = self._anchor_of(diag)

    def close(self) -> None:
        with self._lock:
            for idx in self.ws.indexes:
                idx.release()
            self._held_order.clear()

    def poll(self, diagnose: bool = True) -> LiveUpdate:
        """Re-stat every known file and walk the followed folders (a watcher-less fallback, the
        first batch after the index pass, and tests)."""
        paths = set(self._by_path) | set(self._vanished) | self.scope.files
        for root in self.roots:
            for p in self.scope.walk(root):
                if p not in self._by_path and p not in self._ignored:
                    paths.add(p)
        return self.apply(paths, diagnose)

    def apply(self, paths: Iterable[str], diagnose: bool = True) -> LiveUpdate:
        """Bring the workspace in step with what is on disk at these paths now. With
        `diagnose=False` a due re-diagnosis is only marked (`needs_diagnosis`), for `rediagnose`."""
        with self._lock:
            upd = self._apply({_norm(p) for p in paths})
        if upd.needs_diagnosis and diagnose:
            self.rediagnose(upd)
        return upd

    # ------------------------------------------------------------ the work
    def _canonical(self, p: str) -> str:
        """The path a file is followed by, for a path that reaches it another way (a folder
        link, a named file's link target): the file is read once."""
        if p in self._by_path:
            return p
        fid = self._by_real.get(_real(p))
        if fid is None or self.ws.indexes[fid].closed:
            return p
        return _norm(self.ws.files[fid].path)

    def _apply(self, paths: set[str]) -> LiveUpdate:
        ws = self.ws
        upd = LiveUpdate()
        hits_before = sum(len(s.hits) for s in ws.scans)
        ranks_before = [(s.rank, s.device) for s in ws.sources]
        candidates: dict[str, os.stat_result] = {}
        prefer: dict[str, Source] = {}
        touched: set[int] = set()
        paths = {self._canonical(p) for p in paths}
        # directories first: files created before the watch was set up are found by a walk, and
        # the known files in them are looked at too (one found by the walk of a folder created
        # again may have grown before its new watch was up: no event tells of that)
        for p in sorted(paths):
            st = _stat(p)
            if st is not None and stat_mod.S_ISDIR(st.st_mode):
                if self.scope.wanted(p, is_dir=True):
                    paths.update(self._canonical(q) for q in self.scope.walk(p))
            elif st is None and p not in self._by_path:
                # a folder that went away (CANN ages whole device-<id> folders): its files too
                prefix = p + os.sep
                paths.update(q for q in list(self._by_path) if q.startswith(prefix))
        # known paths: grown, truncated, rotated, deleted
        for p in sorted(paths):
            fid = self._by_path.get(p)
            st = _stat(p)
            if fid is None:
                if (st is not None and stat_mod.S_ISREG(st.st_mode) and p not in self._ignored
                        and self.scope.wanted(p)):
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
                self._truncated(fid, upd)
                candidates[p] = st
                prefer[p] = src
                continue
            if st.st_size != idx.size:
                self._grow(fid, upd)
                touched.add(fid)
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
        if new_hits > 0 or upd.new_sources or ranks_changed or upd.truncated or self._incomplete_changed(touched):
            ws.invalidate()
            upd.needs_diagnosis = True
        return upd

    def _incomplete_changed(self, fids: set[int]) -> bool:
        """Whether a held-back last line that may matter (a scan hit) came, changed or went:
        the diagnosis reads it too (a crashed process's last words often have no newline)."""
        changed = False
        for fid in fids:
            hits = [(h.line, h.text) for h in incomplete_hits(self.ws, fid, self.ws.scans[
                self.ws.source_of_file(fid).source_id])]
            if hits != self._incomplete_seen.get(fid, []):
                changed = True
            if hits:
                self._incomplete_seen[fid] = hits
            else:
                self._incomplete_seen.pop(fid, None)
        return changed

    def _truncated(self, fid: int, upd: LiveUpdate) -> None:
        """The file shrank (or was rewritten) under us: its old lines leave the workspace."""
        ws = self.ws
        idx = ws.indexes[fid]
        errors = len({h.line for h in ws.scans[ws.source_of_file(fid).source_id].hits if h.file_id == fid})
        upd.lost.append((ws.files[fid].display, idx.newlines, errors))
        self._forget_real(fid)
        ws.drop_file(fid)
        if fid in self._held_order:
            self._held_order.remove(fid)
        del self._by_path[_norm(ws.files[fid].path)]
        upd.truncated.append(fid)

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
        self._forget_real(fid)
        p = _norm(self.ws.files[fid].path)
        if self._by_path.get(p) == fid:
            del self._by_path[p]
            self._vanished.add(p)  # a file created again under this name is followed too

    def _forget_real(self, fid: int) -> None:
        for real in [r for r, f in self._by_real.items() if f == fid]:
            del self._by_real[real]

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
            self._vanished.add(old)
        self._forget_real(fid)
        self.ws.move_file(fid, path, self._display(path))
        self._by_path[path] = fid
        self._by_real[_real(path)] = fid
        self._vanished.discard(path)
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
        real = _real(path)
        same = self._by_real.get(real)
        if same is not None and not self.ws.indexes[same].closed and prefer is None:
            return  # another path to a file we follow (a link): read once, under its first name
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
        self._by_real[real] = sf.file_id
        self._vanished.discard(path)
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

    def rediagnose(self, upd: LiveUpdate | None = None) -> LiveUpdate:
        """Diagnose what is indexed now and say whether the anchor moved. Runs on a copy of the
        scan taken under the tail's lock, so `apply` keeps growing the panes meanwhile; one run
        at a time (callers coalesce bursts into one run)."""
        upd = upd if upd is not None else LiveUpdate()
        with self._diag_lock:
            with self._lock:
                snap = _Snapshot.take(self.ws)
            try:
                diag = snap.diagnose(self.ws, self._builders)
            except Exception as exc:  # the engine must never take the tail down
                self._builders.clear()  # a build cut short must not be resumed
                upd.problems.append(f"diagnosis failed: {exc}")
                return upd
            with self._lock:
                snap.give_ranks(self.ws)
            upd.rediagnosed = True
            upd.diagnosis = diag
            key, desc = self._anchor_of(diag)
            if key != self._anchor_key:
                upd.anchor_changed = True
                upd.old_anchor, upd.new_anchor = self._anchor_desc, desc
                self._anchor_key, self._anchor_desc = key, desc
        return upd


@dataclass
class _Snapshot:
    """What a diagnosis reads, copied (lists, not lines): the tail may append while it runs."""

    sources: list[Source]
    scans: list
    indexes: list
    files: list[SourceFile]
    pending: dict = field(default_factory=dict)  # source id -> hits of held-back last lines

    @classmethod
    def take(cls, ws: Workspace) -> "_Snapshot":
        sources = [dataclasses.replace(s, files=list(s.files)) for s in ws.sources]
        scans = [dataclasses.replace(sc, hits=list(sc.hits), rank_lines=list(sc.rank_lines),
                                     enveloped_files=dict(sc.enveloped_files)) for sc in ws.scans]
        pending: dict[int, list[LineHit]] = {}  # the held-back last lines are read too
        for src, scan in zip(sources, scans):
            extra = [h for f in src.files for h in incomplete_hits(ws, f.file_id, scan)]
            if extra:
                pending[src.source_id] = extra
        return cls(sources, scans, list(ws.indexes), list(ws.files), pending)

    def diagnose(self, ws: Workspace, builders: dict | None = None) -> Diagnosis:
        """`builders` (kept by the tail between runs) make the events incremental: an error
        storm costs each run its new lines, and the result is a full diagnosis's."""
        from npudiag_tui.core.diagnosis.engine import Inputs, build_all_events, diagnose
        from npudiag_tui.core.ranks import resolve_ranks

        events = build_all_events(self.sources, self.scans, self.indexes, ws.times, builders, self.pending)
        resolve_ranks(self.sources, self.scans, events)  # CANN pids named with a rank
        return diagnose(Inputs(self.sources, self.scans, self.indexes, self.files, lambda: ws.registry), events)

    def give_ranks(self, ws: Workspace) -> None:
        """Ranks the events named (only ever filled in, as `core.ranks` does) go to the sources."""
        for real, copy in zip(ws.sources, self.sources):
            if real.rank is None and copy.rank is not None:
                real.rank = copy.rank
            if real.device is None and copy.device is not None:
                real.device = copy.device
            if real.stream is not Stream.STDOUT:
                real.label = source_label(real)


INCOMPLETE_SCAN_BYTES = 64 << 10  # of a held-back last line, what the scan reads (hits are cut shorter)


def incomplete_hits(ws: Workspace, fid: int, scan: SourceScan) -> list[LineHit]:
    """The scan's hits in a followed file's last line that has no newline yet, under the line
    number it will have (a report reads such a line as a line; the live index holds it back)."""
    idx = ws.indexes[fid]
    text = idx.partial_line(INCOMPLETE_SCAN_BYTES)
    if text is None:
        return []
    probe = SourceScan(scan.stream, run_log=scan.run_log, enveloped_files=dict(scan.enveloped_files))
    tail = text.encode("utf-8", "replace") + b"\n"
    probe.feed(fid, Chunk(tail, len(tail), idx.indexed, idx.newlines, idx))
    return [h for h in probe.hits if h.line == idx.newlines]


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None

