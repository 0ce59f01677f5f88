"""`--cluster --ray`: run the node summary of one log folder on every alive node of a Ray cluster.

Large Ascend jobs already run on Ray (vLLM, verl, MindSpeed-RL), so the summary goes to the logs
instead of the logs to one machine: one task per alive node, pinned there with node-affinity
scheduling (not soft: a task must never read another node's folder), asking for a quarter CPU.
Each task only reads; the driver gathers the summaries (optionally saving them) and the merge
(`core/cluster.py`) gives the verdict. A node whose folder is missing or unreadable, or whose task
fails or times out, is reported by name and the verdict comes from the rest.

Ray is an optional extra (`pip install 'npudiag-tui[cluster]'`); it is imported only here.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from typing import Callable

TASK_CPUS = 0.25
TASK_TIMEOUT_S = 900.0
CONNECT_TIMEOUT_S = 30.0  # ray.init has no connect timeout: against a silent address it waits for minutes
INSTALL_HINT = "--ray needs Ray on this machine and on the nodes: pip install 'npudiag-tui[cluster]'"


class RayUnavailable(Exception):
    """Ray is not installed or the cluster cannot be reached: one line for the user."""


def summarise_node(logs: str, node: str, registry: list[str]) -> dict:
    """Runs on the node: the summary of `logs`, or {"error": reason} (never raises for bad input)."""
    from npudiag_tui.core.summary import node_summary
    from npudiag_tui.core.workspace import Workspace

    if not os.path.exists(logs):
        return {"error": f"{logs}: no such file or directory on this node"}
    if os.path.isdir(logs) and not os.access(logs, os.R_OK | os.X_OK):
        return {"error": f"{logs}: permission denied on this node"}
    ws = Workspace.open([logs], [], list(registry))
    try:
        if not ws.files:
            why = ws.problems[0] if ws.problems else f"{logs}: no log files found"
            return {"error": why}
        ws.snapshot_index()
        diag = ws.diagnose()
        return {"summary": node_summary(ws, diag, node, [logs])}
    finally:
        ws.close()


def node_names(nodes: list[dict]) -> dict[str, str]:
    """NodeID -> a readable, unique node name: the host name, with the start of the node id when
    several Ray nodes share a host (simulated clusters, several raylets per machine)."""
    hosts = [n.get("NodeManagerHostname") or n.get("NodeManagerAddress") or "node" for n in nodes]
    out = {}
    for n, host in zip(nodes, hosts):
        out[n["NodeID"]] = host if hosts.count(host) == 1 else f"{host}-{n['NodeID'][:8]}"
    return out


def _address(address: str | None) -> str:
    if address in (None, "", "auto"):
        return os.environ.get("RAY_ADDRESS") or "auto"
    return address


def gather(address: str | None, logs: str, save: str | None = None, registry: list[str] | None = None,
           progress: Callable[[str], None] = lambda s: None,
           timeout_s: float = TASK_TIMEOUT_S, connect_timeout_s: float | None = None,
           ) -> tuple[list[tuple[str, dict]], list[tuple[str, str]]]:
    """Summaries from every alive node: ([(source, summary)], [(node, why it sent nothing)]).

    `logs` may hold `{node}`, replaced by each node's name (per-node folders on shared storage)."""
    # while it retries, the driver's C++ core warns every few seconds; the user gets one line instead
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")
    try:
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
    except ImportError:
        raise RayUnavailable(INSTALL_HINT) from None
    addr = _address(address)
    extra = {}
    if addr.startswith(("127.", "localhost:", "[::1]")):
        # a cluster on the loopback address: the driver must not announce the machine's own IP
        # (Ray would then look for the GCS there and wait for ever)
        extra["_node_ip_address"] = "127.0.0.1"
    # Ray's own threads print to the driver's stdout even without log_to_driver (`(raylet) A
    # worker died…`): stdout carries the report (`--report json`), so they print to stderr
    with contextlib.redirect_stdout(sys.stderr):
        connect(ray, addr, extra, CONNECT_TIMEOUT_S if connect_timeout_s is None else connect_timeout_s)
        try:
            return _run(ray, NodeAffinitySchedulingStrategy, logs, save, registry or [], progress, timeout_s)
        finally:
            ray.shutdown()


def connect(ray, addr: str, extra: dict, timeout_s: float) -> None:
    """`ray.init` with a deadline. Ray offers no connect timeout (an address where nothing answers
    is retried for minutes), so the call runs in a daemon thread and the driver stops waiting at
    the deadline; the thread is left to Ray, and the process exits without it."""
    done = threading.Event()
    failed: list[BaseException] = []

    def init() -> None:
        try:
            ray.init(address=addr, log_to_driver=False, logging_level="ERROR", ignore_reinit_error=True, **extra)
        except BaseException as exc:  # ConnectionError, RuntimeError, ValueError: all "cannot reach it"
            failed.append(exc)
        finally:
            done.set()

    threading.Thread(target=init, name="ray-connect", daemon=True).start()
    if not done.wait(timeout_s):
        raise RayUnavailable(f"cannot connect to the Ray cluster at {addr}: no answer within {timeout_s:g} s "
                             "(is a Ray head running there?)")
    if failed:
        why = str(failed[0]).strip().splitlines()[0][:200] if str(failed[0]).strip() else type(failed[0]).__name__
        raise RayUnavailable(f"cannot connect to the Ray cluster at {addr}: {why}")


def _run(ray, affinity, logs: str, save: str | None, registry: list[str], progress: Callable[[str], None],
         timeout_s: float) -> tuple[list[tuple[str, dict]], list[tuple[str, str]]]:
    alive = [n for n in ray.nodes() if n.get("Alive")]
    names = node_names(alive)
    task = ray.remote(num_cpus=TASK_CPUS, max_retries=0)(summarise_node)
    pending = {}
    for n in alive:
        name = names[n["NodeID"]]
        path = logs.replace("{node}", name)
        ref = task.options(scheduling_strategy=affinity(node_id=n["NodeID"], soft=False)).remote(path, name, registry)
        pending[ref] = name
    progress(f"summarising {logs} on {len(pending)} node(s)")
    if save:
        os.makedirs(save, exist_ok=True)
    got: list[tuple[str, dict]] = []
    missing: list[tuple[str, str]] = []
    deadline = time.monotonic() + timeout_s
    while pending:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        done, _ = ray.wait(list(pending), num_returns=1, timeout=min(left, 5.0))
        for ref in done:
            name = pending.pop(ref)
            try:
                out = ray.get(ref)
            except Exception as exc:  # the task raised or its worker died
                why = str(exc).strip().splitlines()[-1][:200] if str(exc).strip() else type(exc).__name__
                missing.append((name, f"task failed: {why}"))
                progress(f"node {name}: task failed")
                continue
            if "error" in out:
                missing.append((name, str(out["error"])))
                progress(f"node {name}: {out['error']}")
                continue
            s = out["summary"]
            s.setdefault("clock", {})["received_at_utc"] = round(time.time(), 3)
            source = f"ray:{name}"
            if save:
                source = os.path.join(save, f"{_safe(name)}.json")
                with open(source, "w", encoding="utf-8") as fh:
                    json.dump(s, fh, ensure_ascii=False, separators=(",", ":"))
            got.append((source, s))
            progress(f"node {name}: {len(s.get('ranks') or [])} rank(s), {len(got)}/{len(got) + len(missing) + len(pending)} done")
    for ref, name in pending.items():
        ray.cancel(ref, force=True)
        missing.append((name, f"timed out after {timeout_s:.0f} s"))
        progress(f"node {name}: timed out")
    return got, missing


def _safe(name: str) -> str:
    """A node name as a file name (no separators, nothing hidden)."""
    keep = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    return keep.lstrip(".") or "node"
