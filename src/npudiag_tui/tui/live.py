"""Watcher glue: watchfiles in an async worker, `core.live.LiveTail` in a thread worker.

`LiveWatcher` is an invisible widget, so it owns its workers and messages and the app only mounts
it (when following is on at start) :

    self.mount(LiveWatcher(self.ws))

Flow: `awatch` (async worker, group "watch") posts `FilesChanged(paths)`; the handler gathers
paths and, one batch at a time, runs `LiveTail.apply` in a thread worker (group "tail"); the
result comes back as `TailApplied` and is handed to the app through its public hooks:
`app.on_lines_appended(file_ids)` for growth, `DiagnosisReady` for a new diagnosis, a rebuild of
the panes' sources for new/rotated/truncated files, and a notification (markup=False) when the
anchor moved. While the user has scrolled away (`app.following` false) the status line counts
the lines that arrived; `t` resumes (the app's action).

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

from npudiag_tui.core.live import LiveTail, LiveUpdate, may_be_log
from npudiag_tui.tui.messages import DiagnosisReady

DEBOUNCE_MS = 150
STEP_MS = 40
POLL_DELAY_MS = 300


def make_filter(known: Callable[[], set[str]] | None = None):
    """A watchfiles filter: names discovery would read, directories, and files we already follow."""
    from watchfiles import DefaultFilter

    class LogFileFilter(DefaultFilter):
        def __call__(self, change: Any, path: str) -> bool:
            if not super().__call__(change, path):
                return False
            if may_be_log(path.rsplit(os.sep, 1)[-1]) or os.path.isdir(path):
                return True
            return known is not None and os.path.normpath(path) in known()

    return LogFileFilter()


async def watch_paths(roots: list[str], on_batch: Callable[[frozenset[str]], None], stop: asyncio.Event, *,
                      debounce: int = DEBOUNCE_MS, step: int = STEP_MS, force_polling: bool | None = None,
                      known: Callable[[], set[str]] | None = None) -> None:
    """Run awatch over roots until stop is set; every batch goes to on_batch as a set of paths.

    With polling, watchfiles (notify's poll watcher) compares modification times, and appends
    within the same second as the previous report can stay unseen until the next change. So in
    that mode the files we already follow are also re-stated every POLL_DELAY_MS (size, inode,
    mtime_ns); the poll watcher still finds new files and folders.
    """
    from watchfiles import awatch

    extra = None
    if force_polling and known is not None:
        extra = asyncio.create_task(_stat_known(known, on_batch, stop))
    try:
        async for changes in awatch(*roots, stop_event=stop, watch_filter=make_filter(known),
                                    debounce=debounce, step=step, recursive=True,
                                    force_polling=force_polling, poll_delay_ms=POLL_DELAY_MS):
            on_batch(frozenset(p for _, p in changes))
    finally:
        if extra is not None:
            extra.cancel()


async def _stat_known(known: Callable[[], set[str]], on_batch: Callable[[frozenset[str]], None],
                      stop: asyncio.Event) -> None:
    last: dict[str, tuple[int, int, int] | None] = {}
    while not stop.is_set():
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
        try:
            await asyncio.wait_for(stop.wait(), POLL_DELAY_MS / 1000)
        except asyncio.TimeoutError:
            pass


@dataclass
class FilesChanged(Message):
    """Paths the watcher reported (kinds dropped: they are not trustworthy)."""

    paths: frozenset[str]


@dataclass
class TailApplied(Message):
    """LiveTail.apply finished for one batch."""

    update: LiveUpdate
    started: float


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
        self._stop: asyncio.Event | None = None
        self._known: set[str] = {os.path.normpath(os.path.abspath(f.path)) for f in ws.files}

    @property
    def roots(self) -> list[str]:
        temp = tuple(self.ws.discovery.temp_dirs)
        return sorted({r for r in self.ws.discovery.roots if os.path.isdir(r) and not r.startswith(temp or ("\0",))})

    # ------------------------------------------------------------ lifecycle
    def on_mount(self) -> None:
        if self.roots:
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
                                  known=lambda: self._known)
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
                upd = self.tail.poll()
                more = self.tail.apply(paths)
                _merge(upd, more)
            else:
                upd = self.tail.apply(paths)
        except Exception as exc:  # never take the app down from here
            upd = LiveUpdate(problems=[f"live tail failed: {exc!r}"])
        self.post_message(TailApplied(upd, started))

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
        # the file set grows); a rename or a close without new files only changes titles/texts
        if (upd.renamed or upd.closed_files) and not upd.new_files and hasattr(app, "_rebuild_sources"):
            app._rebuild_sources()
        if upd.grown or upd.new_files:
            hook = getattr(app, "on_lines_appended", None)
            if hook is not None:
                hook(tuple(sorted(set(upd.grown) | set(upd.new_files))))
        if upd.rediagnosed and upd.diagnosis is not None:
            app.post_message(DiagnosisReady(upd.diagnosis))
        if upd.anchor_changed:
            app.notify(upd.anchor_message(), title="Anchor changed", severity="warning", markup=False, timeout=8)
        for p in upd.problems:
            app.notify(p, severity="warning", markup=False)
        self._update_follow_indicator(sum(upd.grown.values()))

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


def _merge(a: LiveUpdate, b: LiveUpdate) -> None:
    for k, v in b.grown.items():
        a.grown[k] = a.grown.get(k, 0) + v
    for name in ("new_files", "new_sources", "closed_files", "rotated", "truncated", "renamed", "problems"):
        getattr(a, name).extend(x for x in getattr(b, name) if x not in getattr(a, name))
    a.new_hits += b.new_hits
    if b.rediagnosed:
        a.rediagnosed, a.diagnosis = True, b.diagnosis
    if b.anchor_changed:
        a.old_anchor = a.old_anchor if a.anchor_changed else b.old_anchor
        a.anchor_changed, a.new_anchor = True, b.new_anchor
