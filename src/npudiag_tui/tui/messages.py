"""App-wide messages posted by workers (thread-safe via post_message)."""

from __future__ import annotations

from array import array
from dataclasses import dataclass

from textual.message import Message

from npudiag_tui.core.index import IndexState
from npudiag_tui.core.model import Diagnosis
from npudiag_tui.core.timeline import Timeline

LevelMarks = dict[int, tuple[int, list[tuple[int, int]]]]
"""file_id -> (lines scanned, [(line, level)]) of the warning and error lines found."""


@dataclass
class IndexProgress(Message):
    """Bytes indexed so far; coalesces so a fast indexer cannot flood the queue."""

    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IndexProgress)


@dataclass
class IndexDone(Message):
    """Every file is indexed and scanned once."""


@dataclass
class DiagnosisReady(Message):
    """The engine's Diagnosis, or None with a reason when it could not run."""

    diagnosis: Diagnosis | None
    error: str | None = None


@dataclass
class SourceProgress(Message):
    """A merged/filtered view is being built."""

    label: str
    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SourceProgress) and message.label == self.label


@dataclass
class SourceReady(Message):
    """A pane's line source (a core Timeline) is ready to be shown."""

    pane: str
    timeline: Timeline
    generation: int


@dataclass
class SearchDone(Message):
    """Matching lines per file (file_id -> sorted line numbers) for the search term of `generation`."""

    matches: dict[int, array]
    generation: int
    truncated: bool = False


@dataclass
class LinesAppended(Message):
    """Files that grew (live tail); panes refresh their line counts."""

    file_ids: tuple[int, ...]


@dataclass
class MarksReady(Message):
    """Warning/error lines per file for e/E/w/W (see `LevelMarks`)."""

    marks: LevelMarks


@dataclass
class SourceGrew(Message):
    """A filtered pane's forward scan merged more rows, in their final order (more follow)."""

    pane: str
    timeline: Timeline
    generation: int


@dataclass
class LinesCounted(Message):
    """Files the scan-first pass left uncounted, now counted (`Workspace.count_pending`): the UI
    thread adopts them (`Workspace.adopt_count`), so no reader sees an index change under it."""

    counted: tuple[tuple[int, IndexState | None, str | None], ...]
    done: int
    total: int
    final: bool = False


@dataclass
class ChannelsReady(Message):
    """The console files' rank channels are worked out: they can join the merged view."""


@dataclass
class PanesAligned(Message):
    """Where the other panes go to show the moment under a pane's cursor (worked out off the
    interface thread: a moment in a merged pane of a big tree reads cold blocks)."""

    generation: int
    positions: list[tuple[str, object, int | None]]  # (pane, the timeline it was worked out on, position)
