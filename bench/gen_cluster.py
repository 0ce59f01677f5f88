#!/usr/bin/env python3
"""Generate the multi-node shape: one log tree per node, global rank numbers, one planted root.

    python bench/gen_cluster.py OUT [--nodes 16] [--ranks-per-node 8] [--size-per-node 2M]
                                    [--root-node 11] [--root-local 3] [--skew NODE=SECONDS ...]

Each node's tree (OUT/node-XX/) has the layout of bench/gen_tree.py (debug/plog, debug/device-N,
run/plog) for ranks `base .. base + ranks_per_node - 1` of a world of `nodes x ranks_per_node`
(HCCL init lines `ranks[world], rank[global]`, devices numbered 0..ranks_per_node-1 per node). One
rank of one node hits an AI Core exception at T_root; every other rank, on every node, times out
HCCL_EXEC_TIMEOUT later naming `remote rank: [root]` (the global number) and reports the root as
heartbeat crimer. A node's clock can be skewed (`--skew 3=45`: node 3's stamps 45 s ahead) to
exercise the merge's clock alignment. OUT/cluster.json records the planted root.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gen_tree import (EXEC_TIMEOUT_S, T_ROOT, T_START, RotatingLog, Stamper, aicore_root_lines,  # noqa: E402
                      device_pool, fill_noise, noise_pool, parse_size, us_of, victim_lines)

US = 1_000_000


def generate_node(out: str, node: int, nodes: int, per_node: int, root_global: int, size: int,
                  seed: int = 1, skew_s: float = 0.0) -> dict:
    """One node's tree; returns {node, ranks, root (global or None), bytes}."""
    rng = random.Random(seed * 1000 + node)
    world = nodes * per_node
    base = node * per_node
    skew = int(skew_s * US)
    t0, t_root = us_of(T_START) + skew, us_of(T_ROOT) + skew
    t_to = t_root + EXEC_TIMEOUT_S * US
    per_rank = max(size // per_node, 20_000)
    host = f"10.0.{node // 250}.{node % 250 + 1}"
    root_host = f"10.0.{root_global // per_node // 250}.{root_global // per_node % 250 + 1}"
    planted = None
    for r in range(per_node):
        g, dev = base + r, r
        pid = 2234 + 111 * r + rng.randrange(0, 50)
        dpid = 3100 + 97 * r + rng.randrange(0, 40)
        ts = t0 + r * 31_000 + rng.randrange(0, 20_000)
        st = Stamper()
        init = (f"[INFO] HCCL({pid},python):{st.ts6(ts)} [op_base.cc:412] [{pid}][Init][HcclCommInitRootInfo]"
                f"ranks[{world}], rank[{g}], rootinfo: host ip {host} port 60000 nicDeploy 1, deviceLogicId[{dev}]\n")
        run = RotatingLog(out, "run/plog", "plog", pid, 20 << 20)
        run.write(init, ts)
        if g != root_global:
            hb = t_root + 1_235_000 + r * 9_000
            run.write(f"[INFO] HCCL({pid},python):{st.ts6(hb)} [heartbeat.cc:1088] [{pid + 301}][HeartbeatAbnormal]"
                      f"local rank[{host}/{g}]: crimer rank[{root_host}/{root_global}] status[LOST] by informer "
                      f"rank[{host}/{g}]\n", hb)
        run.close()
        log = RotatingLog(out, "debug/plog", "plog", pid, 20 << 20)
        log.write(init, ts)
        pool = noise_pool(rng, pid, dev, n=1500)
        before = int(per_rank * 0.97)
        fill_noise(log, pool, rng, st, ts + 400_000, t_root - 50_000 + r * 1_000, before)
        if g == root_global:
            for line, tl, sub in aicore_root_lines(pid, dev, st, t_root + 61):
                rel, ln = log.write(line, tl)
                if sub and planted is None:
                    planted = {"path": rel, "line": ln, "contains": sub}
            fill_noise(log, pool, rng, st, t_root + 3_000, t_root + 2 * US, per_rank - before)
        else:
            fill_noise(log, pool, rng, st, t_root + 40_000, t_to - US, per_rank - before)
            for line, tl in victim_lines(pid, g, dev, root_global, world, st, t_to + g * 1400):
                log.write(line, tl)
        log.close()
        dlog = RotatingLog(out, f"debug/device-{dev}", "device", pid, 20 << 20)
        td = ts + 4 * US
        dlog.write(f"[INFO] AICPU({dpid},aicpu_scheduler):{st.ts6(td)} [aicpusd_main.cpp:214][main][tid:{dpid}] "
                   f"aicpu scheduler start, deviceId={dev}, hostPid={pid}\n", td)
        fill_noise(dlog, device_pool(rng, dpid, dev, n=200), rng, st, td + 1000, t_root - 100_000, per_rank // 50)
        dlog.close()
    return {"node": node, "ranks": list(range(base, base + per_node)),
            "root": root_global if base <= root_global < base + per_node else None, "planted": planted}


def generate_cluster(out: str, nodes: int = 16, per_node: int = 8, size_per_node: int = 2 << 20,
                     root_node: int | None = None, root_local: int = 3, seed: int = 1,
                     skews: dict[int, float] | None = None) -> dict:
    """Every node's tree under OUT/node-XX; returns (and writes to OUT/cluster.json) the plan."""
    root_node = nodes * 2 // 3 if root_node is None else root_node
    root_global = root_node * per_node + min(root_local, per_node - 1)
    os.makedirs(out, exist_ok=True)
    info = {"nodes": [], "root_rank": root_global, "root_node": node_name(root_node), "world_size": nodes * per_node}
    for k in range(nodes):
        got = generate_node(os.path.join(out, node_name(k)), k, nodes, per_node, root_global, size_per_node,
                            seed, (skews or {}).get(k, 0.0))
        info["nodes"].append({"node": node_name(k), "ranks": got["ranks"]})
        if got["planted"]:
            info["planted"] = got["planted"]
    with open(os.path.join(out, "cluster.json"), "w", encoding="utf-8") as fh:
        json.dump(info, fh, indent=2)
    return info


def write_summaries(out: str, info: dict, dest: str, now: float | None = None) -> list[str]:
    """Each generated node's `--report summary`, made in this process, as DEST/node-XX.json.

    `now` fixes the summaries' own clock fields, so that pictures and tests made from them are
    the same on every run."""
    from npudiag_tui.core.summary import dump, node_summary
    from npudiag_tui.core.workspace import Workspace

    os.makedirs(dest, exist_ok=True)
    written = []
    for n in info["nodes"]:
        logs = os.path.join(out, n["node"])
        ws = Workspace.open([logs], [], [])
        try:
            ws.snapshot_index()
            clock = (lambda: now) if now is not None else None
            s = node_summary(ws, ws.diagnose(), n["node"], [logs], **({"now": clock} if clock else {}))
        finally:
            ws.close()
        path = os.path.join(dest, f"{n['node']}.json")
        with open(path, "wb") as fh:
            fh.write(dump(s))
        written.append(path)
    return written


def node_name(k: int) -> str:
    return f"node-{k:02d}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--nodes", type=int, default=16)
    ap.add_argument("--ranks-per-node", type=int, default=8)
    ap.add_argument("--size-per-node", type=parse_size, default=parse_size("2M"))
    ap.add_argument("--root-node", type=int)
    ap.add_argument("--root-local", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skew", action="append", default=[], metavar="NODE=SECONDS")
    a = ap.parse_args(argv)
    skews = {int(k): float(v) for k, v in (s.split("=", 1) for s in a.skew)}
    info = generate_cluster(a.out, a.nodes, a.ranks_per_node, a.size_per_node, a.root_node, a.root_local,
                            a.seed, skews)
    print(f"{a.nodes} node trees in {a.out}; root rank {info['root_rank']} on {info['root_node']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
