"""Copying a line where the user can reach it: OSC 52, the tmux buffer, and a file.

Why: `y` used only OSC 52 and said "line copied", but tmux drops OSC 52 unless `set-clipboard`
is on, so nothing reached the paste buffer and the message was not true. No terminal says
whether it took an OSC 52 write, so the line also goes where it surely arrives: tmux's own
buffer when running under tmux, and always a private file whose path the notice names.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path


def copy_file() -> Path:
    """The file that holds the last copied line (one per user, in the temp folder)."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"npudiag-copied-line-{uid}.txt"


def save_line(line: str) -> Path | None:
    """Write the line to copy_file() (mode 0600, never following a planted link); None on error."""
    path = copy_file()
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as out:
            out.write(line + "\n")
    except OSError:
        return None
    return path


def to_tmux_buffer(line: str) -> bool:
    """Load the line into tmux's paste buffer when running inside tmux."""
    if not os.environ.get("TMUX") or shutil.which("tmux") is None:
        return False
    try:
        done = subprocess.run(["tmux", "load-buffer", "-"], input=line.encode("utf-8", "surrogateescape"),
                              capture_output=True, timeout=2)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def copy_notice(tmux: bool, saved: Path | None) -> str:
    """What the notice says: only places the line surely reached, and OSC 52 as a maybe."""
    parts = ["tmux buffer (prefix ] pastes)"] if tmux else []
    parts.append("clipboard by OSC 52 if the terminal allows it")
    if saved is not None:
        parts.append(f"file {saved}")
    return "line copied to: " + "; ".join(parts)
