"""Opaque text styles for the Line-API panes, and the contrast rule they must keep.

Why: a component style written with alpha (`background: $error 35%`, `color: $text-muted`)
reaches `get_component_rich_style(partial=True)` with its alpha dropped, so the anchor row
came out as red text on a solid red background and DEBUG (an `auto 60%` colour) as full white,
brighter than INFO. Here every colour is composited over the pane's own background first, and
a foreground too close to its background is replaced by the background's contrast text, so the
row stays legible in truecolor and after the terminal's downgrade to 256 or 16 colours.
"""

from __future__ import annotations

from rich.color import Color as RichColor
from rich.color import ColorSystem
from rich.style import Style
from textual.color import Color

MIN_CONTRAST = 3.0
"""WCAG ratio a text style keeps against its background (3:1 is the large/bold text rule)."""


def solid(color: Color, under: Color) -> Color:
    """`color` as the terminal will show it over `under`: auto colours resolved, alpha applied."""
    if color.auto:
        color = under.get_contrast_text(color.a)
    return under + color if color.a < 1 else color


def contrast(a: Color, b: Color) -> float:
    """WCAG contrast ratio of two opaque colours (1.0 equal .. 21.0 black on white)."""
    la, lb = _luminance(a), _luminance(b)
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05)


def _luminance(c: Color) -> float:
    def chan(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    return 0.2126 * chan(c.r) + 0.7152 * chan(c.g) + 0.0722 * chan(c.b)


MIN_DOWNGRADED = 1.5
"""Contrast kept after the terminal maps both colours to its 256 or 16 (the palette is coarse)."""


def legible(fg: Color, bg: Color, minimum: float = MIN_CONTRAST) -> bool:
    """Whether `fg` reads on `bg` in truecolor and after a downgrade to 256 and 16 colours."""
    if contrast(fg, bg) < minimum:
        return False
    for system in (ColorSystem.EIGHT_BIT, ColorSystem.STANDARD):
        if contrast(downgraded(fg.rich_color, system), downgraded(bg.rich_color, system)) < MIN_DOWNGRADED:
            return False
    return True


def readable(fg: Color, bg: Color, minimum: float = MIN_CONTRAST) -> Color:
    """`fg`, or the background's contrast text when `fg` would be too close to `bg`."""
    if legible(fg, bg, minimum):
        return fg
    return bg.get_contrast_text(1.0)


def downgraded(color: RichColor, system: ColorSystem) -> Color:
    """A rich colour as a terminal of `system` shows it (256 or 16 colours)."""
    got = color.downgrade(system)
    r, g, b = got.get_truecolor()
    return Color(r, g, b)


def text_style(fg: Color | None, bg: Color | None, bold: bool = False) -> Style:
    """A rich Style from opaque colours (None leaves that side to the layer underneath)."""
    return Style(color=fg.rich_color if fg is not None else None,
                 bgcolor=bg.rich_color if bg is not None else None, bold=bold or None)
