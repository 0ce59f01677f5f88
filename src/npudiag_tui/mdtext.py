"""Markdown that people paste into GitHub and Gitee threads, with log text kept as data.

A log line is untrusted text: `**x**`, `<tag>`, `__init__`, `[a](b)` or a `|` would become
formatting, HTML or a broken table if pasted raw. So text from a log (lines, file names,
registry messages filled from a line) only ever lands in a code span or a fenced block, and
sentences the tool writes are escaped for the place they land. Every function also applies
the control-character policy (`visible`), so a line ending or an escape sequence cannot end a
list item, a table row or a fence.

The rules followed are CommonMark's and GitHub Flavored Markdown's, which Gitee's renderer
also follows for these constructs (code spans, fences, pipe tables, raw `<details>` blocks):

* a code span is delimited by a backtick run longer than any run inside it, padded with one
  space when the text starts or ends with a backtick (or with spaces on both sides), since one
  space is stripped from each side; backslash escapes do not work inside it;
* inside a table row, cells are split on every unescaped `|` *before* code spans are parsed,
  so a pipe, even inside a code span, is written `\\|` (the renderer removes that backslash);
* a fence is longer than any backtick run in its content;
* `<details>` is an HTML block: its `<summary>` is HTML, not Markdown (escaped as HTML), and
  the Markdown inside needs blank lines around it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from npudiag_tui.core.formats.text import visible

_BACKTICKS = re.compile(r"`+")
# characters that can start emphasis, links, code, HTML, entities, autolinks or table cells
_INLINE = re.compile(r"[\\`*_\[\]<>&|~!#]")
# what makes a line a heading, list item, quote, thematic break or setext underline at its start
_LINE_START = re.compile(r"^(\s*)([#>+=-]|\d+[.)])")
_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}


def _one_line(text: str) -> str:
    """The control-character policy, which also turns line endings into visible marks."""
    return visible(text)


def _longest_run(text: str) -> int:
    return max((len(m.group(0)) for m in _BACKTICKS.finditer(text)), default=0)


def code_span(text: str, table: bool = False) -> str:
    """`text` as one inline code span: shown verbatim, never formatting.

    `table=True` when the span sits in a table cell (its pipes are escaped for the row)."""
    text = _one_line(text)
    if not text.strip(" "):  # renderers disagree on a span of spaces only: show them, as ␠
        return f"`{chr(0x2420) * len(text) or chr(0x2420)}`"
    fence = "`" * (_longest_run(text) + 1)
    pad = " " if text[0] == "`" or text[-1] == "`" or (text[0] == " " and text[-1] == " ") else ""
    out = f"{fence}{pad}{text}{pad}{fence}"
    return out.replace("|", "\\|") if table else out


def _escape_char(m: re.Match[str]) -> str:
    ch = m.group(0)
    return _ENTITIES.get(ch) or "\\" + ch


def _inline(text: str) -> str:
    return _INLINE.sub(_escape_char, text)


def _line_start(text: str) -> str:
    """A leading `-`, `#`, `>`, `1.` ... would make the line a list, heading or quote."""
    m = _LINE_START.match(text)
    if not m:
        return text
    cut = m.end(2) - 1  # the character that decides: the marker, or the `.`/`)` after digits
    return f"{text[:cut]}\\{text[cut:]}"


def escape(text: str, line_start: bool = True) -> str:
    """Plain text the tool wrote (a sentence, a label) as inert Markdown text: every character
    that could start formatting is backslash-escaped or written as an HTML entity.

    Pipes are always escaped, so the same text is safe in a list item and in a table cell.
    `line_start=False` for text in the middle of a line or in a cell, where a leading `-` or
    `1.` cannot make a list."""
    text = _inline(_one_line(text))
    return _line_start(text) if line_start else text


_PAIRED = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")


def prose(text: str, table: bool = False) -> str:
    """A sentence the tool wrote, where `...` marks a command or a name: those become code
    spans, the rest is escaped. Registry guidance and next actions are written this way."""
    text = _one_line(text)
    out: list[str] = []
    pos = 0
    for m in _PAIRED.finditer(text):
        out += [_inline(text[pos:m.start()]), code_span(m.group(2), table)]
        pos = m.end()
    out.append(_inline(text[pos:]))
    return _line_start("".join(out))


def fence(text: str, info: str = "text") -> list[str]:
    """A fenced code block holding `text` (one line per line), as lines."""
    lines = [_one_line(line) for line in text.split("\n")]
    ticks = "`" * max(3, _longest_run("\n".join(lines)) + 1)
    return [ticks + info, *lines, ticks]


def html_text(text: str) -> str:
    """Text inside raw HTML (a `<summary>`): entities, not Markdown escapes."""
    return html.escape(_one_line(text), quote=False)


def details(summary: str, body: Iterable[str]) -> list[str]:
    """A folded section: `summary` is plain text; `body` is Markdown lines."""
    return [f"<details><summary>{html_text(summary)}</summary>", "", *body, "", "</details>", ""]


def table(header: list[str], rows: Iterable[list[str]]) -> list[str]:
    """A pipe table; header names are plain text, rows are cells already escaped for a table
    (`code_span(..., table=True)` or `escape`)."""
    out = ["| " + " | ".join(escape(h, line_start=False) for h in header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [c if c.strip() else "-" for c in row]
        out.append("| " + " | ".join(cells) + " |")
    return out
