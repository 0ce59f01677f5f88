"""Whether a node's logs can be opened from this machine, from what its summary recorded.

A summary records the folders it read (`inputs.roots`, absolute on that node) and quotes lines by
path and number. A folder of the same name here is not proof: every node keeps `~/ascend/log`,
so the local one is usually another machine's. The logs count as this node's when this machine
is that node (same host name) or when a line the summary quotes is found, unchanged, at its place
under the folder (shared storage). Only reads, and at most `READ_CAP` bytes per check.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from typing import Iterable

READ_CAP = 64 << 20


@dataclass(frozen=True)
class NodeLogs:
    """`paths`: the folders to open (empty when not reachable); `why`: one line for the user."""

    paths: list[str]
    why: str

    @property
    def reachable(self) -> bool:
        return bool(self.paths)


def quoted(summary: dict) -> Iterable[dict]:
    """The entries of a summary that quote a line (path, line, text)."""
    if isinstance(summary.get("anchor"), dict):
        yield summary["anchor"]
    for p in summary.get("processes") or []:
        if isinstance(p, dict):
            if isinstance(p.get("first_error"), dict):
                yield p["first_error"]
            yield from (c for c in p.get("causal") or [] if isinstance(c, dict))
    yield from (t for t in summary.get("timeouts") or [] if isinstance(t, dict))


def line_matches(path: str, line: int, text: str, cap: int = READ_CAP) -> bool | None:
    """True if line `line` (1-based) of `path` starts as `text` (a summary cuts long lines with
    "…"); False if it differs; None if it cannot be told (unreadable, beyond the read cap)."""
    want = text[:-1] if text.endswith("…") else text
    want = want[:120]
    seen = 0
    try:
        with open(path, "rb") as fh:
            for n, raw in enumerate(fh, 1):
                seen += len(raw)
                if n == line:
                    got = raw.decode("utf-8", "replace").rstrip("\r\n")
                    return got.startswith(want) or got.replace("\t", " ").startswith(want)
                if seen > cap:
                    return None
    except OSError:
        return None
    return False


def locate(summary: dict, host: str | None = None) -> NodeLogs:
    """Where `summary`'s node's logs are, seen from here (see the module docstring)."""
    node = str(summary.get("node"))
    inputs = summary.get("inputs") if isinstance(summary.get("inputs"), dict) else {}
    roots = [r for r in inputs.get("roots") or [] if isinstance(r, str)]
    if not roots:
        return NodeLogs([], f"the summary of {node} does not record the folders it read")
    here = [r for r in roots if os.path.exists(r)]
    if not here:
        return NodeLogs([], f"{roots[0]} (on {node}) is not reachable from this machine; copy it here or "
                            "put the logs on shared storage")
    if node == (host if host is not None else socket.gethostname()):
        return NodeLogs(here, f"{here[0]}: this machine is {node}")
    differs = None
    checked = 0
    for entry in quoted(summary):
        path, line, text = entry.get("path"), entry.get("line"), entry.get("text")
        if not (isinstance(path, str) and isinstance(line, int) and isinstance(text, str) and text):
            continue
        checked += 1
        for root in here:
            full = root if os.path.isfile(root) else os.path.join(root, path)
            if not os.path.isfile(full):
                continue
            got = line_matches(full, line, text)
            if got:
                return NodeLogs(here, f"{here[0]}: {node}'s logs on shared storage ({path}:{line} matches)")
            if got is False:
                differs = f"{path}:{line}"
    if differs:
        return NodeLogs([], f"{here[0]} exists here but holds other logs than {node}'s ({differs} differs)")
    if not checked:
        return NodeLogs([], f"{here[0]} exists here, but {node}'s summary quotes no line to tell whether it "
                            "holds that node's logs; open it with npudiag-tui if it does")
    return NodeLogs([], f"{here[0]} exists here, but nothing in it matches a line {node}'s summary quotes "
                        "(probably this machine's own logs)")
