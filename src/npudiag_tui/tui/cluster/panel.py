"""The words beside the grid: the verdict and next action, the cell under the cursor, a rank's
summary. Built as rich Text from plain strings: node names, paths and quoted lines come from
other machines' logs, so every one goes through `visible` and none through markup."""

from __future__ import annotations

from typing import Callable

from rich.style import Style
from rich.text import Text

from npudiag_tui.core.formats.text import visible
from npudiag_tui.core.node_logs import NodeLogs
from npudiag_tui.tui.cluster.layout import NO_SUMMARY, ROLE_LETTER, ROLE_ORDER, Cell, Grid, counts

ROLE_STYLE = {"root": "bold red", "victim": "yellow", "healthy": "green", "silent": "bold magenta",
              "missing": "bold"}
TEXT_CAP = 400
RoleStyle = Callable[[str], "Style | str"]
"""A role's style: the grid's own (`RankGrid.role_style`) so the legend matches the cells."""


def _badge(role: str) -> str:
    return ROLE_STYLE.get(role, "") + " reverse"


def _v(value: object) -> str:
    return visible(str(value))


def _heading(t: Text, title: str) -> None:
    t.append(f"\n{title}\n", "bold underline")


def legend(grid: Grid, style: RoleStyle = _badge) -> Text:
    """`R root 1  v victim 127 ...` and the node count: the key to the grid's letters."""
    t = Text(no_wrap=True, overflow="ellipsis")
    n = counts(grid)
    for role in ROLE_ORDER:
        t.append(f" {ROLE_LETTER[role]} ", style(role))
        t.append(f" {role} {n.get(role, 0)}  ")
    nodes = sum(1 for g in grid.groups if g.node is not None and g.reason is None)
    t.append(f"{nodes} node(s)", "dim")
    return t


def verdict_text(verdict: dict) -> Text:
    """Root, why, first causal error, next actions, evidence, nodes that sent nothing, problems."""
    t = Text()
    root = verdict.get("root")
    if root is None:
        t.append("No root found", "bold yellow")
        t.append(": no node summary holds an error, a timeout or a silent rank.\n")
    else:
        rank = root.get("rank")
        t.append(f"Root: rank {rank if rank is not None else '?'}", "bold red")
        t.append(f" on {_v(root.get('node') or 'a node that sent no summary')}\n", "bold")
        t.append(f"confidence {_v(root.get('confidence'))}: {_v(root.get('why'))}\n")
        if root.get("competitor"):
            t.append(f"but: {_v(root['competitor'])}\n", "yellow")
        a = root.get("anchor")
        if a:
            _heading(t, "First causal error")
            code = f", {a.get('code')}" if a.get("code") else ""
            t.append(f"{_v(a.get('path'))}:{a.get('line')}\n", "cyan")
            t.append(f"{_v(a.get('time'))} [{_v(a.get('category'))}{_v(code)}]\n", "dim")
            if a.get("text"):
                t.append(_v(a["text"])[:TEXT_CAP] + "\n")
    acts = verdict.get("next_actions") or []
    if acts:
        _heading(t, "Next action")
        for k, n in enumerate(acts, 1):
            t.append(f"{k}. {_v(n.get('action'))}\n", "bold")
            t.append(f"   {_v(n.get('why'))}\n", "dim")
    for title, rows in (("Evidence", verdict.get("evidence") or []),
                        ("Nodes that sent nothing",
                         [f"{m.get('node')}: {m.get('reason')}" for m in verdict.get("missing_nodes") or []]),
                        ("Problems", verdict.get("problems") or [])):
        if rows:
            _heading(t, title)
            for r in rows[:50]:
                t.append(f"- {_v(r)}\n")
    return t


def cell_text(grid: Grid, k: int, style: RoleStyle = _badge) -> Text:
    """The cell under the cursor in two or three lines."""
    if not grid.cells:
        return Text("no ranks")
    c = grid.cells[k]
    g = grid.groups[c.group]
    t = Text()
    if c.rank is None:
        t.append(f"{_v(g.title)} ", "bold")
        t.append(" sent nothing ", style("missing"))
        t.append(f"\n{_v(c.reason)}\n")
        return t
    t.append(f"rank {c.rank}", "bold")
    t.append(f" on {_v(g.title) if g.node is not None else 'no node (in no summary)'}  ")
    t.append(f" {c.letter} {c.role} ", style(c.role))
    row = c.row or {}
    bits = [f"device {row['device']}" if row.get("device") is not None else None,
            f"pid {row['pid']}" if row.get("pid") is not None else None,
            f"last log {row['last_log_time']}" if row.get("last_log_time") else None]
    t.append("\n" + "  ".join(_v(b) for b in bits if b))
    fe = row.get("first_error")
    if isinstance(fe, dict):
        t.append(f"\nfirst error {_v(fe.get('time'))}: ", "dim")
        t.append(_v(fe.get("text"))[:160])
    if row.get("names_remote"):
        t.append("\nnames rank(s) " + ", ".join(str(r) for r in row["names_remote"]), "dim")
    t.append("\n")
    return t


def _entry(t: Text, e: dict, root: str | None) -> None:
    code = f" {e.get('code')}" if e.get("code") else ""
    t.append(f"{_v(e.get('time'))} {_v(e.get('kind'))}{_v(code)} [{_v(e.get('category'))}]\n", "dim")
    where = f"{e.get('path')}:{e.get('line')}"
    t.append(f"  {_v(where)}\n", "cyan")
    if e.get("text"):
        t.append(f"  {_v(e['text'])[:TEXT_CAP]}\n")


def rank_summary_text(grid: Grid, k: int, summary: dict | None) -> Text:
    """What the node's summary says about the rank (or the node) under the cursor."""
    c = grid.cells[k]
    g = grid.groups[c.group]
    t = cell_text(grid, k)
    if c.rank is None or summary is None:
        if c.rank is not None:
            t.append(f"\nRank {c.rank} is in no node's summary ({NO_SUMMARY}): its node sent nothing, or its "
                     "summary was not given. Run `npudiag-tui --report summary` on that node.\n")
        return t
    procs = [p for p in summary.get("processes") or [] if isinstance(p, dict) and p.get("rank") == c.rank]
    for p in procs:
        _heading(t, f"Process {p.get('pid')}: {p.get('causal_total', len(p.get('causal') or []))} causal, "
                    f"{p.get('timeouts', 0)} timeout line(s)")
        if isinstance(p.get("first_error"), dict):
            t.append("first error\n", "bold")
            _entry(t, p["first_error"], None)
        fe = p.get("first_error") if isinstance(p.get("first_error"), dict) else {}
        for e in p.get("causal") or []:
            if isinstance(e, dict) and (e.get("path"), e.get("line")) != (fe.get("path"), fe.get("line")):
                t.append("causal\n", "bold")
                _entry(t, e, None)
    tos = [x for x in summary.get("timeouts") or [] if isinstance(x, dict) and x.get("rank") == c.rank]
    if tos:
        _heading(t, "HCCL timeouts")
        for x in tos[:8]:
            named = x.get("remote_rank")
            t.append(f"{x.get('count', 1)}x" + (f", naming rank {named}" if named is not None else "")
                     + (f", tag {_v(x.get('tag'))}" if x.get("tag") else "") + "\n", "bold")
            _entry(t, x, None)
    beats = [b for b in summary.get("heartbeats") or [] if isinstance(b, dict) and b.get("informer_rank") == c.rank]
    if beats:
        _heading(t, "Heartbeats")
        for b in beats[:5]:
            t.append(f"crimer {_v(b.get('crimer'))} status {_v(b.get('status'))} at {_v(b.get('time'))}\n")
    if not procs and not tos:
        t.append("\nNo error of this rank in its node's summary.\n", "green")
    inputs = summary.get("inputs") if isinstance(summary.get("inputs"), dict) else {}
    _heading(t, f"Node {_v(g.title)}")
    t.append(f"{inputs.get('files', '?')} file(s), {inputs.get('bytes', '?')} bytes read from "
             + ", ".join(_v(r) for r in inputs.get("roots") or ["?"]) + "\n")
    return t


def reach_text(logs: NodeLogs | None) -> Text:
    """One line under the summary: can the logs be opened from here, and how."""
    if logs is None:
        return Text("Checking whether the node's logs are reachable from here…", "dim")
    if logs.reachable:
        t = Text("o", "bold reverse")
        t.append(" opens them in the explorer: ")
        t.append(visible(logs.why))
        return t
    return Text("Logs not reachable from here: " + visible(logs.why), "yellow")
