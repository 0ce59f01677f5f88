"""Watcher glue: watchfiles in an async worker, `core.live.LiveTail` in a thread worker.

`LiveWatcher` is an invisible widget, so it owns its workers and messages and the app only mounts
it (when following is on at start) :

    self.mount(LiveWatcher(self.ws))

Flow: `awatch` (async worker, group "watch") posts `FilesChanged(paths)`; the handler gathers
paths and, one batch at a time, runs `LiveTail.apply` in a thread worker (group "tail"); the
result comes back as `TailApplied` and is handed to the app through its public hooks:
`app.on_lines_appended(file_ids)` for growth, a rebuild of the panes' sources for
new/rotated/truncated files, one notice for what a truncation took away, and problems through
`app.add_problems`. Growth is shown first: a due diagnosis runs afterwards in a thread worker of
its own (group "live-diagnose"), one at a time, and batches that arrive meanwhile are folded
into one more run; its result comes back as `DiagnosisReady`, with a notification
(markup=False) when the anchor moved. While the user has scrolled away (`app.following` false)
the status line counts the lines that arrived; `t` resumes (the app's action). A followed file's
last line without a newline yet is a row of its pane marked incomplete (and named in the title).

What is watched (`core.live.Scope`): the named folders recursively (folder links are followed by
the watcher, as by discovery), and the folder of each named file without recursion, its events
filtered to that file. A guard re-stats the roots (and, when polling, the followed files) every
`GUARD_S`: a followed folder deleted and created again is watched again. A watch that reports
its own folder ends its round too (a folder created again at once may reuse the inode the
guard compares), and the next round reports the folder once more when its watch is up: what
was written into it in between has no event of its own.

Why these watchfiles settings: `debounce` 150 and `step` 40 give batches about every 100 ms
under continuous writes and a single append quickly (bench/README.md); change kinds are
ignored (LiveTail re-stats); inotify is event driven, so an idle folder costs nothing; with
`force_polling` (NFS, WSL, containers without inotify instances) `poll_delay_ms` stays at 300.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from typing import Any, Callable

from textual import work
from textual.message import Message
from textual.widget import Widget

from npudiag_tui.core.live import LiveTail, LiveUpdate, Scope, may_be_log
from npudiag_tui.core.formats.text import visible
from npudiag_tui.tui.messages import DiagnosisReady
from npudiag_tui.tui.late import while_running

DEBOUNCE_MS = 150
STEP_MS = 40
POLL_DELAY_MS = 300
GUARD_S = 1.0  # how often the roots are re-stated (a followed folder deleted and created again)


def make_filter(known: Callable[[], set[str]] | None = None, scope: Scope | None = None):
    """A watchfiles filter: what the scope follows (names discovery would read, folders it
    walks), and files we already follow or whose return we wait for."""
    from watchfiles import DefaultFilter

    class LogFileFilter(DefaultFilter):
        def __call__(self, change: Any, path: str) -> bool:
            if not super().__call__(change, path):
                return False
            if known is not None and os.path.normpath(path) in known():
                return True
            is_dir = os.path.isdir(path)
            if scope is not None and not scope.wanted(path, is_dir=is_dir):
                return False
            return is_dir or may_be_log(path.rsplit(os.sep, 1)[-1])

    return LogFileFilter()


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


async def watch_paths(roots: list[str], on_batch: Callable[[frozenset[str]], None], stop: asyncio.Event, *,
                      debounce: int = DEBOUNCE_MS, step: int = STEP_MS, force_polling: bool | None = None,
                      known: Callable[[], set[str]] | None = None, file_dirs: list[str] | None = None,
                      scope: Scope | None = None) -> None:
    """Watch `roots` recursively and `file_dirs` (the folders of named files) without
    recursion until stop is set; every batch goes to on_batch as a set of paths.

    With polling, watchfiles (notify's poll watcher) compares modification times, and appends
    within the same second as the previous report can stay unseen until the next change. So in
    that mode the files we already follow are also re-stated every POLL_DELAY_MS (size, inode,
    mtime_ns); the poll watcher still finds new files and folders. In both modes a guard
    re-stats the watched folders every GUARD_S: inotify loses a folder that is deleted, so one
    created again under its name is reported (its path, which the tail walks) and watched anew.
    """
    watched = [(r, True) for r in roots] + [(d, False) for d in (file_dirs or []) if d not in roots]
    moved: frozenset[str] = frozenset()
    while not stop.is_set():
        ids = {p: _identity(p) for p, _ in watched}
        run_stop = asyncio.Event()  # this round's end: stop, or a watched folder moved
        relay = asyncio.create_task(_relay(stop, run_stop))
        guard = asyncio.create_task(_guard(ids, known if force_polling else None, on_batch, run_stop, moved))
        watchers = [asyncio.create_task(_watch_one(path, recursive, on_batch, run_stop, debounce, step,
                                                   force_polling, known, scope))
                    for path, recursive in watched if ids[path] is not None]
        try:
            # the guard returns when a folder moved (a new round); a watcher that fails (inotify
            # limits) raises to the caller, which falls back to polling
            await asyncio.wait({relay, guard, *watchers}, return_when=asyncio.FIRST_COMPLETED)
            for t in watchers:
                if t.done() and not t.cancelled() and t.exception() is not None:
                    raise t.exception()  # type: ignore[misc]
        finally:
            # awatch ends by its stop event (its Rust thread checks it); cancelling it instead
            # would leave that thread waiting for its own timeout
            run_stop.set()
            relay.cancel()
            await asyncio.gather(relay, guard, *watchers, return_exceptions=True)
        # the folders whose move ended the round: reported once more at the next round's first look
        moved = frozenset().union(*(t.result() for t in (guard, *watchers)
                                    if t.done() and not t.cancelled() and t.exception() is None and t.result()))


async def _relay(stop: asyncio.Event, run_stop: asyncio.Event) -> None:
    await stop.wait()
    run_stop.set()


async def _watch_one(path: str, recursive: bool, on_batch: Callable[[frozenset[str]], None],
                     run_stop: asyncio.Event, debounce: int, step: int, force_polling: bool | None,
                     known: Callable[[], set[str]] | None, scope: Scope | None) -> frozenset[str]:
    from watchfiles import awatch

    try:
        async for changes in awatch(path, stop_event=run_stop, watch_filter=make_filter(known, scope),
                                    debounce=debounce, step=step, recursive=recursive,
                                    force_polling=force_polling, poll_delay_ms=POLL_DELAY_MS):
            paths = frozenset(p for _, p in changes)
            on_batch(paths)
            if path in paths:
                # the watched folder itself was deleted (or created again): inotify's watch of it
                # is gone, and one created again at once may reuse its inode, which the guard
                # would not see as a move: a new round watches whatever is there now
                return frozenset({path})
    except FileNotFoundError:  # deleted since the guard looked: the guard sees it, a new round
        await run_stop.wait()
    return frozenset()


async def _guard(ids: dict[str, tuple[int, int] | None], known: Callable[[], set[str]] | None,
                 on_batch: Callable[[frozenset[str]], None], stop: asyncio.Event,
                 recheck: frozenset[str] = frozenset()) -> frozenset[str]:
    """Returns the folders that moved (so the watch restarts) when a watched folder went away or
    came back; with `known` (polling) it also reports followed files whose size, inode or mtime
    changed. `recheck`: the folders whose move started this round, reported once more at the
    first look, when this round's watchers are up: what was written into them between the move's
    report and the new watch (a file created with the folder, then filled) has no event."""
    last: dict[str, tuple[int, int, int] | None] = {}
    delay = POLL_DELAY_MS / 1000 if known is not None else GUARD_S
    while not stop.is_set():
        try:
            await asyncio.wait_for(stop.wait(), delay)
            return frozenset()
        except asyncio.TimeoutError:
            pass
        if recheck:
            on_batch(recheck)
            recheck = frozenset()
        moved = {p for p, ident in ids.items() if _identity(p) != ident}
        if moved:
            on_batch(frozenset(moved))
            return frozenset(moved)
        if known is None:
            continue
        changed = set()
        for p in known():
            try:
                st = os.stat(p)
                sig: tuple[int, int, int] | None = (st.st_size, st.st_ino, st.st_mtime_ns)
            except OSError:
                sig = None
            if p in last and last[p] != sig:
                changed.add(p)
            last[p] = sig
        if changed:
            on_batch(frozenset(changed))
    return frozenset()


@dataclass
class FilesChanged(Message):
    """Paths the watcher reported (kinds dropped: they are not trustworthy)."""

    paths: frozenset[str]


@dataclass
class TailApplied(Message):
    """LiveTail.apply finished for one batch."""

    update: LiveUpdate
    started: float


@dataclass
class LiveDiagnosed(Message):
    """LiveTail.rediagnose finished (the diagnosis, and whether the anchor moved)."""

    update: LiveUpdate


class LiveWatcher(Widget):
    """Follows the workspace's folders and feeds the app. Invisible; mount it once."""

    DEFAULT_CSS = "LiveWatcher { display: none; }"

    def __init__(self, ws: Any, *, force_polling: bool | None = None, debounce: int = DEBOUNCE_MS,
                 step: int = STEP_MS) -> None:
        super().__init__(id="live-watcher")
        self.ws = ws
        if force_polling is None and os.environ.get("WATCHFILES_FORCE_POLLING"):
            force_polling = True
        self.force_polling = force_polling
        self.debounce = debounce
        self.step = step
        self.tail: LiveTail | None = None
        self.unseen = 0  # lines that arrived while the user was not following
        self.batches = 0
        self.last_update: LiveUpdate | None = None
        self._pending: set[str] = set()
        self._busy = False
        self._diagnosing = False  # a live-diagnose worker runs
        self._diagnosis_due = False  # batches arrived while it ran: one more run afterwards
        self.diagnoses = 0  # live re-diagnoses run (tests: bursts are coalesced)
        self._stop: asyncio.Event | None = None
        self.scope = Scope(ws.discovery)
        self._known: set[str] = {os.path.normpath(os.path.abspath(f.path)) for f in ws.files}

    @property
    def roots(self) -> list[str]:
        """The named folders (watched recursively)."""
        return list(self.scope.folders)

    @property
    def file_dirs(self) -> list[str]:
        """The folders of the named files (watched without recursion, for those files only)."""
        return list(self.scope.file_dirs)

    # ------------------------------------------------------------ lifecycle
    def on_mount(self) -> None:
        if self.roots or self.file_dirs:
            self.watch_worker()
            self._kick()  # builds the tail once the first index is done, catching missed writes

    def on_unmount(self) -> None:
        if self._stop is not None:
            self._stop.set()

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    @work(exclusive=True, group="watch", exit_on_error=False, name="watch")
    async def watch_worker(self) -> None:
        self._stop = asyncio.Event()
        polling = self.force_polling
        while not self._stop.is_set():
            try:
                await watch_paths(self.roots, lambda paths: self.post_message(FilesChanged(paths)), self._stop,
                                  debounce=self.debounce, step=self.step, force_polling=polling,
                                  known=lambda: self._known, file_dirs=self.file_dirs, scope=self.scope)
                return
            except OSError as exc:  # inotify limits in containers (watchfiles#320): fall back
                if polling:
                    self.app.notify(f"watching stopped: {exc}", severity="error", markup=False)
                    return
                self.app.notify(f"file watching unavailable ({exc}); polling instead", severity="warning",
                                markup=False)
                polling = True

    # ------------------------------------------------------------ batches
    def on_files_changed(self, message: FilesChanged) -> None:
        message.stop()
        self._pending |= message.paths
        self._kick()

    def _kick(self) -> None:
        if self._busy or (not self._pending and self.tail is not None):
            return
        if not getattr(self.app, "indexed", True):
            self.set_timer(0.25, self._kick)  # one-shot retry while the first index runs
            return
        paths, self._pending = self._pending, set()
        self._busy = True
        self.apply_worker(paths, time.monotonic())

    @work(thread=True, group="tail", exit_on_error=False, name="tail")
    def apply_worker(self, paths: set[str], started: float) -> None:
        try:
            if self.tail is None:
                # first batch: the index was built while we may have missed events, so re-stat all
                self.tail = LiveTail(self.ws)
                upd = self.tail.poll(diagnose=False)
                more = self.tail.apply(paths, diagnose=False)
                _merge(upd, more)
            else:
                upd = self.tail.apply(paths, diagnose=False)
        except Exception as exc:  # never take the app down from here
            upd = LiveUpdate(problems=[f"live tail failed: {exc!r}"])
        self.post_message(TailApplied(upd, started))

    @work(thread=True, group="live-diagnose", exit_on_error=False, name="live-diagnose")
    def diagnose_worker(self) -> None:
        tail = self.tail
        try:
            upd = tail.rediagnose() if tail is not None else LiveUpdate()
        except Exception as exc:  # never take the app down from here
            upd = LiveUpdate(problems=[f"live diagnosis failed: {exc!r}"])
        self.post_message(LiveDiagnosed(upd))

    def _want_diagnosis(self) -> None:
        """One run at a time; whatever arrives meanwhile is one more run afterwards."""
        if self._diagnosing:
            self._diagnosis_due = True
            return
        self._diagnosing, self._diagnosis_due = True, False
        self.diagnoses += 1
        self.diagnose_worker()

    @while_running
    def on_live_diagnosed(self, message: LiveDiagnosed) -> None:
        message.stop()
        self._diagnosing = False
        upd = message.update
        app = self.app
        if upd.rediagnosed and upd.diagnosis is not None:
            app.post_message(DiagnosisReady(upd.diagnosis))
        if upd.anchor_changed:
            app.notify(upd.anchor_message(), title="Anchor changed", severity="warning", markup=False, timeout=8)
        self._problems(upd.problems)
        if self._diagnosis_due:
            self._want_diagnosis()

    def _problems(self, problems: list[str]) -> None:
        if not problems:
            return
        add = getattr(self.app, "add_problems", None)
        if add is not None:
            add(problems)
        else:
            for p in problems:
                self.app.notify(p, severity="warning", markup=False)

    @while_running
    def on_tail_applied(self, message: TailApplied) -> None:
        message.stop()
        self._busy = False
        upd = message.update
        self.batches += 1
        self.last_update = upd
        if self.tail is not None:
            self._known = self.tail.known_paths()
        try:
            self._deliver(upd)
        finally:
            if self._pending:
                self._kick()

    def _deliver(self, upd: LiveUpdate) -> None:
        app = self.app
        # new files reach the app through on_lines_appended (it rebuilds the panes' sources when
        # the file set grows); a rename, a close or a truncation without new files changes the
        # panes' file lists, so they are rebuilt here
        if (upd.renamed or upd.closed_files or upd.truncated) and not upd.new_files \
                and hasattr(app, "_rebuild_sources"):
            app._rebuild_sources()
        if upd.grown or upd.new_files:
            hook = getattr(app, "on_lines_appended", None)
            if hook is not None:
                hook(tuple(sorted(set(upd.grown) | set(upd.new_files))))
        if upd.lost:
            app.notify(upd.lost_message(), title="File truncated", severity="warning", markup=False, timeout=12)
        self._problems(upd.problems)
        if upd.needs_diagnosis:
            self._want_diagnosis()  # after the growth: the panes do not wait for it
        self._show_incomplete()
        self._update_follow_indicator(sum(upd.grown.values()))

    def _show_incomplete(self) -> None:
        """A followed file's last line without its newline yet: a row marked incomplete at the end
        of every pane that shows the file, and named in the title (when its newline arrives the
        row is the file's next line, under the same reference)."""
        ws = self.ws
        partial = {i: text for i, idx in enumerate(ws.indexes)
                   if idx.live and not idx.closed and idx.size > idx.indexed
                   and (text := idx.partial_line()) is not None}
        views = getattr(self.app, "views", None)
        if views is None:
            return
        try:
            panes = views() + [self.app.view("merged")]
        except Exception:
            return
        # the line number it will have once its newline arrives: the reference the search and
        # the diagnosis give it (core.live scans the held-back line for the anchor)
        rows = {fid: (ws.indexes[fid].newlines, text) for fid, text in partial.items()}
        following = getattr(self.app, "following", False)
        for view in panes:
            if view.set_incomplete(rows) and following:
                view.set_cursor(view.count - 1)
            fids = [f for f in view.timeline.file_ids if f in partial]
            status = view.status if not view.status.startswith(INCOMPLETE) else ""
            if fids:
                fid = fids[-1]
                name = ws.files[fid].display.rsplit("/", 1)[-1]
                status = f"{INCOMPLETE} ({_literal(name)}): {_literal(partial[fid][:200])}"
            if status != view.status:
                view.set_status(status)

    def _update_follow_indicator(self, new_lines: int) -> None:
        app = self.app
        following = getattr(app, "following", True)
        if following:
            self.unseen = 0
            return
        self.unseen += new_lines
        if not self.unseen:
            return
        try:
            from npudiag_tui.tui.widgets.status_bar import StatusBar

            app.query_one(StatusBar).set_unseen(self.unseen)
        except Exception:
            return


INCOMPLETE = "⋯ incomplete last line"


def _literal(text: str) -> str:
    """Text for a pane title (which is read as Textual markup): control characters shown as
    escapes, and every `[` escaped, so a log line's `[ERROR]` or `[/b]` stays literal."""
    return visible(text).replace("[", "\\[")


def _merge(a: LiveUpdate, b: LiveUpdate) -> None:
    for k, v in b.grown.items():
        a.grown[k] = a.grown.get(k, 0) + v
    for name in ("new_files", "new_sources", "closed_files", "rotated", "truncated", "renamed", "problems",
                 "lost"):
        getattr(a, name).extend(x for x in getattr(b, name) if x not in getattr(a, name))
    a.new_hits += b.new_hits
    a.needs_diagnosis = a.needs_diagnosis or b.needs_diagnosis
    if b.rediagnosed:
        a.rediagnosed, a.diagnosis = True, b.diagnosis
    if b.anchor_changed:
        a.old_anchor = a.old_anchor if a.anchor_changed else b.old_anchor
        a.anchor_changed, a.new_anchor = True, b.new_anchor
