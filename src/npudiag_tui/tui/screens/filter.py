"""Filter dialog: level, hidden panes, ranks, module and a regex; combine them, or clear."""

from __future__ import annotations

import re

from rich.text import Text
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.content import Content
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select

from npudiag_tui.core.model import Level
from npudiag_tui.core.views import FilterSpec


def parse_ranks(text: str) -> frozenset[int] | None:
    text = text.strip()
    if not text or text.lower() == "all":
        return None
    out: set[int] = set()
    for part in re.split(r"[,\s]+", text):
        if "-" in part:
            a, _, b = part.partition("-")
            if a.isdigit() and b.isdigit():
                out.update(range(int(a), int(b) + 1))
        elif part.isdigit():
            out.add(int(part))
    return frozenset(out) if out else None


def smart_case(regex: str) -> str:
    """The regex as `/` reads it (smart case): case-insensitive unless it has a capital letter.
    An inline flag keeps FilterSpec a plain string the engine compiles as given."""
    if not regex or any(c.isupper() for c in re.sub(r"\\.", "", regex)) or regex.startswith("(?i)"):
        return regex
    return "(?i)" + regex


class TickBox(Checkbox):
    """A checkbox whose state reads without colour (`x` ticked, blank not) and which Space
    toggles; Enter is left to the dialog, which applies the filters from any field."""

    BINDINGS = [Binding("space", "toggle_button", "Toggle", show=False)]

    @property
    def _button(self) -> Content:
        style = self.get_visual_style("toggle--button")
        return Content.assemble(("[", style), ("x" if self.value else " ", style), ("]", style))


class FilterScreen(ModalScreen["FilterSpec | None"]):
    DEFAULT_CSS = """
    FilterScreen { align: center middle; }
    FilterScreen > Vertical {
        width: 70; max-width: 100%; height: auto; max-height: 100%;
        background: $panel; border: round $accent; padding: 0 1;
    }
    FilterScreen Label { margin-top: 1; color: $text-muted; }
    FilterScreen Horizontal { height: auto; }
    FilterScreen Checkbox { width: auto; border: none; padding: 0 1 0 0; }
    FilterScreen Input { background: $panel-lighten-2; }
    FilterScreen Input:focus { background: $accent 30%; }
    FilterScreen #buttons { margin-top: 1; height: 3; }
    FilterScreen #hint { margin-top: 0; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("enter", "apply", "Apply", priority=True)]

    def __init__(self, spec: FilterSpec, panes: list[tuple[str, str]]) -> None:
        super().__init__()
        self.spec = spec
        self.panes = panes

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text("Filters (combine; Clear resets)", style="bold"))
            yield Label(Text("Level at least"))
            yield Select([("warning", int(Level.WARNING)), ("error", int(Level.ERROR))],
                         prompt="any", value=self.spec.min_level or Select.NULL, id="level",
                         allow_blank=True, compact=True)
            yield Label(Text("Streams shown"))
            with Horizontal():
                for key, title in self.panes:
                    yield TickBox(title, key not in self.spec.hidden, id=f"stream-{key}")
            yield Label(Text("Ranks (e.g. 0,3-5; empty = all)"))
            ranks = "" if self.spec.ranks is None else ",".join(map(str, sorted(self.spec.ranks)))
            yield Input(ranks, placeholder="all", id="ranks", compact=True)
            yield Label(Text("Module (e.g. HCCL, RUNTIME)"))
            yield Input(self.spec.module, placeholder="any", id="module", compact=True)
            yield Label(Text("Text regex (smart case, as / : a capital makes it case-sensitive)"))
            shown = self.spec.regex[4:] if self.spec.regex.startswith("(?i)") else self.spec.regex
            yield Input(shown, placeholder="none", id="regex", compact=True)
            yield Label(Text("enter applies · space ticks · tab moves · esc cancels"), id="hint")
            with Horizontal(id="buttons"):
                yield Button("Apply", variant="primary", id="apply")
                yield Button("Clear", id="clear")
                yield Button("Cancel", id="cancel")

    def _collect(self) -> FilterSpec | None:
        level = self.query_one("#level", Select).value
        regex = self.query_one("#regex", Input).value.strip()
        if regex:
            try:
                re.compile(regex)
            except re.error as exc:
                self.notify(f"bad regex: {exc}", severity="error", markup=False)
                return None
        hidden = frozenset(k for k, _ in self.panes if not self.query_one(f"#stream-{k}", Checkbox).value)
        return FilterSpec(
            min_level=int(level) if isinstance(level, int) else 0,
            hidden=hidden,
            ranks=parse_ranks(self.query_one("#ranks", Input).value),
            module=self.query_one("#module", Input).value.strip().upper(),
            regex=smart_case(regex),
        )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        spec = self._collect()
        if spec is not None:
            self.dismiss(spec)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "apply":
            spec = self._collect()
            if spec is not None:
                self.dismiss(spec)
        elif event.button.id == "clear":
            self.dismiss(FilterSpec())
        else:
            self.dismiss(None)

    def action_apply(self) -> None:
        """Enter applies from any field; a focused button does what it says, and an open
        level list takes its own Enter."""
        focused = self.focused
        if isinstance(focused, Button) or (isinstance(focused, Select) and focused.expanded) \
                or (focused is not None and not isinstance(focused, (Input, Checkbox, Select))):
            raise SkipAction()
        spec = self._collect()
        if spec is not None:
            self.dismiss(spec)

    def action_cancel(self) -> None:
        self.dismiss(None)
