"""The one control-character policy for log text, file names and messages.

Log text is data from an untrusted job (docs/architecture.md, "Hostile input"): an OSC 52 sequence can write the user's
clipboard, `ESC [2J` clears the screen, a C1 CSI (U+009B) does the same on some terminals, and a
bidi override (U+202E) makes a line read differently from what it holds. One set of characters
is defined here, because a policy per output lets a character that one of them misses reach the
terminal raw, and there are exactly two things to do with it:

* `strip_controls` / `CONTROL_CLASS` for *matching*: grammars must see `ERROR`, not `E<ZWSP>RROR`
  and not the colour codes around it, so the characters are removed (console.clean does this,
  together with ANSI SGR removal).
* `visible` for *showing*: anything printed or drawn (TUI panes, side panel, status bar,
  notices, text and markdown reports, file names) shows each character as a visible escape, so the
  user sees that the log contained `␛[2J` and nothing is executed or reordered.

JSON output is not touched by either: `json.dumps` escapes these characters, so the exact text
round-trips, which is what scripts need.
"""

from __future__ import annotations

import re

# C0 except TAB (tabs are whitespace to grammars and are expanded for display), DEL, C1, the
# Arabic letter mark, zero-width and bidi formatting characters, line/paragraph separators (some
# terminals break lines on them), word joiner and invisible operators, and the BOM.
# Lone surrogates (U+D800-U+DFFF) are what Python makes of file-name bytes that are not UTF-8
# (surrogateescape): they cannot be written to a UTF-8 terminal or file at all.
_RANGES = (
    (0x00, 0x08), (0x0A, 0x1F), (0x7F, 0x9F), (0x061C, 0x061C), (0x200B, 0x200F), (0x2028, 0x202E),
    (0x2060, 0x2064), (0x2066, 0x2069), (0xD800, 0xDFFF), (0xFEFF, 0xFEFF),
)

CONTROL_CLASS = "[" + "".join(re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "")
                              for a, b in _RANGES) + "]"
"""Regex character class of every character that must never reach a terminal raw."""

CONTROL_RE = re.compile(CONTROL_CLASS)


def _control_sequences() -> bytes:
    """The same set as UTF-8 byte sequences (NL left out: it ends lines), for C-speed byte scans
    that must not skip a line whose words are split only by such a character
    (core.formats.levels). Every alternative starts with a literal byte, and the sequences that
    share their leading bytes are joined by a class of last bytes: the regex engine skips at C
    speed to the bytes that can start one only when every alternative starts with a literal (a
    hundred alternatives of several bytes each cost it its speed)."""
    by_head: dict[bytes, list[int]] = {}
    for a, b in _RANGES:
        for c in range(a, b + 1):
            if c != 0x0A and not 0xD800 <= c <= 0xDFFF:  # surrogates have no UTF-8 form
                seq = chr(c).encode("utf-8")
                by_head.setdefault(seq[:-1], []).append(seq[-1])
    alts = [b"\\x%02x" % x for x in by_head.pop(b"")]  # single bytes: one literal each
    for head, lasts in by_head.items():
        runs: list[list[int]] = []
        for x in sorted(lasts):
            if runs and x == runs[-1][1] + 1:
                runs[-1][1] = x
            else:
                runs.append([x, x])
        cls = b"".join(b"\\x%02x" % a + (b"-\\x%02x" % b if b > a else b"") for a, b in runs)
        alts.append(b"".join(b"\\x%02x" % h for h in head) + b"[" + cls + b"]")
    return b"|".join(alts)


CONTROL_SEQUENCES = _control_sequences()
"""A bytes regex of the UTF-8 form of every CONTROL_CLASS character but NL."""


def strip_controls(text: str) -> str:
    """Remove the characters for grammar matching (never for display: removal hides them)."""
    return CONTROL_RE.sub("", text) if CONTROL_RE.search(text) else text


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code < 0x20:
        return chr(0x2400 + code)  # control pictures: ESC shows as U+241B "␛"
    if code == 0x7F:
        return "\u2421"  # "␡"
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"  # an undecodable file-name byte: show the byte itself
    # C1, bidi and zero-width characters have no picture: a Python-style escape names them
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str) -> str:
    """The text as it may be shown: every control character becomes a visible, inert escape.

    Single-cell pictures for C0 and DEL keep columns aligned for the common case (ESC of a colour
    code); the rarer invisible characters are named, because a picture for them does not exist.
    """
    return CONTROL_RE.sub(_escape, text) if CONTROL_RE.search(text) else text


_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def name_bytes(name: str) -> bytes | None:
    """The raw bytes of a file name that is not valid UTF-8 (Python holds those bytes as lone
    surrogates), or None for a name that is. JSON reports carry them as hex so they stay
    recoverable while the JSON itself stays valid UTF-8."""
    if not _SURROGATE_RE.search(name):
        return None
    return name.encode("utf-8", "surrogateescape") if all(
        0xDC80 <= ord(c) <= 0xDCFF for c in _SURROGATE_RE.findall(name)) else name.encode("utf-8", "surrogatepass")


def utf8_safe(name: str) -> str:
    """A name that can be written as UTF-8: undecodable bytes become `\\xNN` escapes; nothing
    else changes (JSON escapes control characters itself)."""
    return _SURROGATE_RE.sub(_escape, name) if _SURROGATE_RE.search(name) else name
