"""KeyBar: the footer line of key bindings, drawn as one Text.

Textual's Footer builds a widget per key and rebuilds them all whenever the focus moves, a cost
paid on the way to the first screen and again on every `tab` (bench/README.md). This bar renders the same bindings (the focused chain's `show=True`
ones, then the command palette key) into one line and runs a key when it is clicked.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.widget import Widget


class KeyBar(Widget):
    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description", "key-bar--disabled"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
        & > .key-bar--key { color: $footer-key-foreground; background: $footer-key-background; text-style: bold; }
        & > .key-bar--description { color: $footer-description-foreground; }
        & > .key-bar--disabled { color: $text-disabled; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._spans: list[tuple[int, int, str]] = []  # (first cell, end cell, key) per entry

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: object) -> None:
        self.refresh()

    def _entries(self) -> list[tuple[str, str, str, bool]]:
        """(key, key as shown, description, enabled), one per action, in binding order."""
        out: list[tuple[str, str, str, bool]] = []
        seen: set[str] = set()
        active = self.screen.active_bindings
        for _node, binding, enabled, _tooltip in active.values():
            if binding.show and binding.action not in seen:
                seen.add(binding.action)
                out.append((binding.key, self.app.get_key_display(binding), binding.description, enabled))
        palette = active.get(self.app.COMMAND_PALETTE_BINDING) if self.app.ENABLE_COMMAND_PALETTE else None
        if palette is not None and palette.binding.action not in seen:
            out.append((palette.binding.key, self.app.get_key_display(palette.binding),
                        palette.binding.description, palette.enabled))
        return out

    def render(self) -> Text:
        entries = self._entries()
        width = self.size.width or 10_000
        compact = False
        # narrow terminal: tighter spacing first, then drop entries from the right, but keep
        # the way to the rest (help and the command palette) and quitting on screen
        while entries:
            line, spans = self._line(entries, compact)
            if line.cell_len <= width:
                break
            if not compact:
                compact = True
                continue
            droppable = [k for k, e in enumerate(entries) if e[1] not in ("?", "q") and e[0] != "ctrl+p"]
            if not droppable:
                break
            del entries[droppable[-1]]
        else:
            line, spans = Text(), []
        self._spans = spans
        return line

    def _line(self, entries: list[tuple[str, str, str, bool]], compact: bool
              ) -> tuple[Text, list[tuple[int, int, str]]]:
        key_style = self.get_component_rich_style("key-bar--key")
        desc_style = self.get_component_rich_style("key-bar--description")
        off_style = self.get_component_rich_style("key-bar--disabled")
        line = Text(no_wrap=True, overflow="crop")
        spans = []
        for key, shown, description, enabled in entries:
            start = line.cell_len
            line.append(f"{shown}" if compact else f" {shown} ", key_style if enabled else off_style)
            line.append(f" {description} " if compact else f"{description} ", desc_style if enabled else off_style)
            spans.append((start, line.cell_len, key))
        return line, spans

    def on_click(self, event: events.Click) -> None:
        for start, end, key in self._spans:
            if start <= event.x < end:
                event.stop()
                self.app.simulate_key(key)
                return
