"""Problems screen: every input problem in one list (files skipped, unreadable, truncated).

Why a screen and not a pop-up each: a tree with thousands of unreadable files raised thousands
of notifications, and Textual laid each one out before the first diagnosis could paint (40 s
for 3,000). The app shows one notice with the count; this list is a key away.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from npudiag_tui.tui.lines import sanitize

MAX_SHOWN = 20_000  # rows drawn; the count says how many more there are


def problems_text(problems: list[str], skipped: list[tuple[str, str]]) -> Text:
    """The list as plain Text (names and messages carry what hostile input put there: no markup,
    control characters shown as escapes)."""
    text = Text()
    text.append(f"Input problems: {len(problems):,}\n\n", "bold")
    for p in problems[:MAX_SHOWN]:
        text.append("• ", "yellow")
        text.append(sanitize(p) + "\n")
    if len(problems) > MAX_SHOWN:
        text.append(f"… and {len(problems) - MAX_SHOWN:,} more\n", "dim")
    if not problems:
        text.append("none\n", "dim")
    if skipped:
        text.append(f"\nSkipped files: {len(skipped):,}\n\n", "bold")
        for name, why in skipped[:MAX_SHOWN]:
            text.append("• ", "dim")
            text.append(f"{sanitize(name)}: {sanitize(why)}\n")
        if len(skipped) > MAX_SHOWN:
            text.append(f"… and {len(skipped) - MAX_SHOWN:,} more\n", "dim")
    return text


class ProblemsScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    ProblemsScreen { align: center middle; }
    ProblemsScreen > VerticalScroll {
        width: 100; max-width: 100%; height: auto; max-height: 90%;
        background: $panel; border: round $warning; padding: 0 1;
    }
    """
    BINDINGS = [Binding("escape,q,i", "dismiss", "Close")]

    def __init__(self, problems: list[str], skipped: list[tuple[str, str]] | None = None) -> None:
        super().__init__()
        self.problems = list(problems)
        self.skipped = list(skipped or [])

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(problems_text(self.problems, self.skipped), id="problems-list")

    def action_dismiss(self, result: None = None) -> None:  # type: ignore[override]
        self.dismiss(None)
